//===- Export.h - What libtile exports --------------------------*- C++ -*-===//
//
// libtile is built with hidden visibility (and a version script); only
// declarations marked TILE_API are visible to its clients.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_SUPPORT_EXPORT_H
#define TILE_SUPPORT_EXPORT_H

#define TILE_API __attribute__((visibility("default")))

#endif // TILE_SUPPORT_EXPORT_H
