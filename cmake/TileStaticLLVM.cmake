# Debian's MLIR archives name the shared libLLVM.so in their link interface.
# libtile must not depend on any LLVM shared library (it is loaded next to
# PyTorch and Triton, each with its own LLVM, and onto GPU hosts without
# LLVM), so every imported MLIR target is re-pointed at LLVM's component
# archives instead.
#
# TILE_LLVM_COMPONENTS lists what the compiler needs from LLVM; the linker only
# pulls the members that are referenced, so listing a component is cheap.
set(TILE_LLVM_COMPONENTS Support Demangle Core BinaryFormat Remarks
    BitstreamReader TargetParser NVPTXCodeGen NVPTXDesc NVPTXInfo Passes
    Linker IRReader BitReader BitWriter FrontendOpenMP TransformUtils)
llvm_map_components_to_libnames(TILE_LLVM_COMPONENT_LIBS ${TILE_LLVM_COMPONENTS})

# libz3 is only used by LLVM's SMT-based constraint solver, which tile never
# calls; keeping it would add a 20 MB runtime dependency.
get_target_property(_tile_support_deps LLVMSupport INTERFACE_LINK_LIBRARIES)
list(FILTER _tile_support_deps EXCLUDE REGEX "z3")
# zlib and zstd (LLVM's compressed sections) are linked in too: neither is a
# library that manylinux lets a wheel assume on the host.
find_library(TILE_ZLIB_STATIC NAMES libz.a)
find_library(TILE_ZSTD_STATIC NAMES libzstd.a)
if(TILE_ZLIB_STATIC AND TILE_ZSTD_STATIC)
  list(TRANSFORM _tile_support_deps REPLACE "^ZLIB::ZLIB$" "${TILE_ZLIB_STATIC}")
  list(TRANSFORM _tile_support_deps REPLACE "^zstd::libzstd_shared$"
       "${TILE_ZSTD_STATIC}")
else()
  message(WARNING "libz.a or libzstd.a not found: libtile will need the "
                  "shared libz and libzstd at run time")
endif()
set_target_properties(LLVMSupport PROPERTIES
  INTERFACE_LINK_LIBRARIES "${_tile_support_deps}")

get_property(_tile_imported DIRECTORY PROPERTY IMPORTED_TARGETS)
foreach(_tgt IN LISTS _tile_imported)
  if(NOT _tgt MATCHES "^MLIR")
    continue()
  endif()
  get_target_property(_deps ${_tgt} INTERFACE_LINK_LIBRARIES)
  if(NOT _deps)
    continue()
  endif()
  list(FIND _deps LLVM _idx)
  if(_idx EQUAL -1)
    continue()
  endif()
  list(REMOVE_ITEM _deps LLVM)
  list(APPEND _deps ${TILE_LLVM_COMPONENT_LIBS})
  set_target_properties(${_tgt} PROPERTIES INTERFACE_LINK_LIBRARIES "${_deps}")
endforeach()

# add_mlir_library would otherwise add libLLVM.so to tile's own libraries.
set(LLVM_LINK_LLVM_DYLIB OFF)
