//===- PackHalfBranchResults.cpp - f16 pairs through scf.if as words ------===//
//
// After the 1:N conversion a tensor of f16 or bf16 is one scalar per
// register, and an scf.if that yields such a tensor yields each half on
// its own. ptxas then keeps every half of the merged value in a 32-bit
// register of its own: a lock's critical section that updates two f16
// rows under `if first: ... else: ... +=` needed 28 more registers than
// the same code without the branch, and the kernel lost its second CTA
// per SM. Yielding the halves two to a 32-bit word (the form their packed
// stores and f16x2 arithmetic use anyway) lets the branch results share
// registers; the unpacking after the if folds into those users.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

bool isHalf(Type type) { return type.isF16() || type.isBF16(); }

void packResults(scf::IfOp ifOp) {
  // Pairs of results of one half type, in result order.
  SmallVector<std::pair<unsigned, unsigned>> pairs;
  for (Type halfType : {Type(Float16Type::get(ifOp.getContext())),
                        Type(BFloat16Type::get(ifOp.getContext()))}) {
    std::optional<unsigned> pending;
    for (auto [i, type] : llvm::enumerate(ifOp.getResultTypes())) {
      if (type != halfType)
        continue;
      if (pending) {
        pairs.push_back({*pending, i});
        pending.reset();
      } else {
        pending = i;
      }
    }
  }
  if (pairs.empty())
    return;
  llvm::SmallDenseSet<unsigned> paired;
  for (auto [lo, hi] : pairs) {
    paired.insert(lo);
    paired.insert(hi);
  }

  // The new results: the unpaired ones in order, then a word per pair.
  SmallVector<Type> types;
  SmallVector<unsigned> kept;
  for (auto [i, type] : llvm::enumerate(ifOp.getResultTypes()))
    if (!paired.contains(i)) {
      kept.push_back(i);
      types.push_back(type);
    }
  OpBuilder b(ifOp);
  Type word = b.getI32Type();
  types.append(pairs.size(), word);

  Location loc = ifOp.getLoc();
  auto packed = scf::IfOp::create(b, loc, types, ifOp.getCondition(),
                                  /*withElseRegion=*/false);
  packed.getThenRegion().takeBody(ifOp.getThenRegion());
  packed.getElseRegion().takeBody(ifOp.getElseRegion());
  for (Region *region : {&packed.getThenRegion(), &packed.getElseRegion()}) {
    auto yield = cast<scf::YieldOp>(region->front().getTerminator());
    b.setInsertionPoint(yield);
    SmallVector<Value> operands;
    for (unsigned i : kept)
      operands.push_back(yield.getOperand(i));
    for (auto [lo, hi] : pairs)
      operands.push_back(
          packHalves(b, loc, yield.getOperand(lo), yield.getOperand(hi)));
    yield->setOperands(operands);
  }

  b.setInsertionPointAfter(packed);
  for (auto [n, i] : llvm::enumerate(kept))
    ifOp.getResult(i).replaceAllUsesWith(packed.getResult(n));
  for (auto [n, pair] : llvm::enumerate(pairs)) {
    auto [lo, hi] = pair;
    Type half = ifOp.getResult(lo).getType();
    Value vector = LLVM::BitcastOp::create(
        b, loc, VectorType::get(2, half), packed.getResult(kept.size() + n));
    ifOp.getResult(lo).replaceAllUsesWith(LLVM::ExtractElementOp::create(
        b, loc, vector, i32Constant(b, loc, 0)));
    ifOp.getResult(hi).replaceAllUsesWith(LLVM::ExtractElementOp::create(
        b, loc, vector, i32Constant(b, loc, 1)));
  }
  ifOp.erase();
}

} // namespace

void mlir::tile::packHalfBranchResults(ModuleOp module) {
  SmallVector<scf::IfOp> ifs;
  module.walk([&](scf::IfOp ifOp) {
    if (llvm::count_if(ifOp.getResultTypes(), isHalf) >= 2)
      ifs.push_back(ifOp);
  });
  for (scf::IfOp ifOp : ifs)
    packResults(ifOp);
}
