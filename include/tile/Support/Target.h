//===- Target.h - What a target string names --------------------*- C++ -*-===//
//
// Passes and lowerings that pick instructions by the architecture read the
// module's target ("sm_90a") through here.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_SUPPORT_TARGET_H
#define TILE_SUPPORT_TARGET_H

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

namespace tile {

/// The SM version a target names: 90 for "sm_90a", 80 for "sm_80"; 0 when
/// the string is not of that form.
inline unsigned getSmVersion(llvm::StringRef target) {
  unsigned version = 0;
  if (!target.consume_front("sm_") ||
      target.take_while(llvm::isDigit).getAsInteger(10, version))
    return 0;
  return version;
}

} // namespace tile

#endif // TILE_SUPPORT_TARGET_H
