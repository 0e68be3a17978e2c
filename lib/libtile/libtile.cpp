// libtile is assembled from the TileAPI archive; this file only gives the
// shared library a translation unit of its own.
