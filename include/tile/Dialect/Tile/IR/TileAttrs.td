#ifndef TILE_DIALECT_TILE_IR_TILEATTRS_TD
#define TILE_DIALECT_TILE_IR_TILEATTRS_TD

include "tile/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/EnumAttr.td"

class Tile_I32Enum<string name, string summary, list<I32EnumAttrCase> cases>
    : I32EnumAttr<name, summary, cases> {
  let cppNamespace = "::mlir::tile";
}

def Tile_ProgramAxis : Tile_I32Enum<"ProgramAxis", "grid axis", [
  I32EnumAttrCase<"X", 0, "x">,
  I32EnumAttrCase<"Y", 1, "y">,
  I32EnumAttrCase<"Z", 2, "z">
]>;

def Tile_CacheModifier : Tile_I32Enum<"CacheModifier", "cache operator of a memory access", [
  I32EnumAttrCase<"None", 0, "none">,
  I32EnumAttrCase<"CA", 1, "ca">,
  I32EnumAttrCase<"CG", 2, "cg">,
  I32EnumAttrCase<"WB", 3, "wb">,
  I32EnumAttrCase<"CS", 4, "cs">,
  I32EnumAttrCase<"WT", 5, "wt">,
  I32EnumAttrCase<"CV", 6, "cv">
]>;

def Tile_EvictionPolicy : Tile_I32Enum<"EvictionPolicy", "L1/L2 eviction priority", [
  I32EnumAttrCase<"Normal", 0, "evict_normal">,
  I32EnumAttrCase<"First", 1, "evict_first">,
  I32EnumAttrCase<"Last", 2, "evict_last">
]>;

def Tile_RMWOp : Tile_I32Enum<"RMWOp", "read-modify-write operation", [
  I32EnumAttrCase<"And", 0, "and">,
  I32EnumAttrCase<"Or", 1, "or">,
  I32EnumAttrCase<"Xor", 2, "xor">,
  I32EnumAttrCase<"Add", 3, "add">,
  I32EnumAttrCase<"FAdd", 4, "fadd">,
  I32EnumAttrCase<"Max", 5, "max">,
  I32EnumAttrCase<"Min", 6, "min">,
  I32EnumAttrCase<"UMax", 7, "umax">,
  I32EnumAttrCase<"UMin", 8, "umin">,
  I32EnumAttrCase<"Xchg", 9, "xchg">
]>;

def Tile_MemSemantic : Tile_I32Enum<"MemSemantic", "memory ordering of an atomic", [
  I32EnumAttrCase<"Relaxed", 0, "relaxed">,
  I32EnumAttrCase<"Acquire", 1, "acquire">,
  I32EnumAttrCase<"Release", 2, "release">,
  I32EnumAttrCase<"AcqRel", 3, "acq_rel">
]>;

def Tile_MemSyncScope : Tile_I32Enum<"MemSyncScope", "threads an atomic synchronises with", [
  I32EnumAttrCase<"GPU", 0, "gpu">,
  I32EnumAttrCase<"CTA", 1, "cta">,
  I32EnumAttrCase<"System", 2, "sys">
]>;

def Tile_InputPrecision : Tile_I32Enum<"InputPrecision", "how fp32 dot operands are rounded", [
  I32EnumAttrCase<"IEEE", 0, "ieee">,
  I32EnumAttrCase<"TF32", 1, "tf32">,
  I32EnumAttrCase<"TF32x3", 2, "tf32x3">
]>;

def Tile_RoundingMode : Tile_I32Enum<"RoundingMode", "floating-point rounding mode", [
  I32EnumAttrCase<"RTNE", 0, "rtne">,
  I32EnumAttrCase<"RTZ", 1, "rtz">
]>;

def Tile_PropagateNan : Tile_I32Enum<"PropagateNan", "NaN handling of clampf", [
  I32EnumAttrCase<"None", 0, "none">,
  I32EnumAttrCase<"All", 1, "all">
]>;

#endif // TILE_DIALECT_TILE_IR_TILEATTRS_TD
