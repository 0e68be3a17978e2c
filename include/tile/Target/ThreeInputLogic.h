//===- ThreeInputLogic.h - Two constant logic ops as one lop3 ---*- C++ -*-===//
//
// ptxas merges a chain of bitwise operations into one LOP3 (any function of
// three inputs) only where the chain has at most one immediate: a LOP3 has a
// single immediate slot. `(x & C1) ^ C2`, the unpacking of an int4 weight
// into a bf16 (the nibble, masked, becomes the mantissa of a magic number),
// therefore costs two LOP3s a register, a fifth of an int4 decode kernel's
// instructions. This writes such pairs as one `lop3.b32` whose two
// constants ptxas then places itself (one in a register, hoisted out of the
// loop), looking through a bitcast between 32-bit types (SLP leaves the
// xor on <2 x i16>).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_THREEINPUTLOGIC_H
#define TILE_TARGET_THREEINPUTLOGIC_H

#include "llvm/IR/PassManager.h"

#include <cstdint>

namespace mlir {
namespace tile {

struct ThreeInputLogicPass : llvm::PassInfoMixin<ThreeInputLogicPass> {
  llvm::PreservedAnalyses run(llvm::Function &function,
                              llvm::FunctionAnalysisManager &);
};

/// The lop3 truth table of `outer(inner(a, b), c)` for bitwise opcodes
/// (llvm::Instruction::And, Or, Xor): bit i is the result for a = bit 2 of
/// i, b = bit 1, c = bit 0, as PTX's `lop3.b32 d, a, b, c, immLut` reads it.
uint8_t lop3Table(unsigned inner, unsigned outer);

} // namespace tile
} // namespace mlir

#endif // TILE_TARGET_THREEINPUTLOGIC_H
