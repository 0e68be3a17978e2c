//===- PrologueLoads.cpp - Loads before a loop that are its iteration -1 --===//
//
// A loop written to overlap one block's softmax with the next block's
// product (FlashAttention-3's intra-warpgroup overlap) loads its first key
// block before the loop and block i + 1 in iteration i. That first block
// is exactly what the staged load would read in the iteration before the
// first, so a producer warpgroup can copy it into the pipeline's first
// buffer instead of a buffer of its own: at 128x128 blocks this is the
// 32 KiB that lets three stages fit.
//
// The coordinates are compared as linear forms over the loop's invariant
// values: add, sub and multiplication by a constant are ring operations
// modulo 2^width, so equal forms give equal indices whatever wraps.
//
//===----------------------------------------------------------------------===//

#include "Pipeliner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <map>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;
using namespace mlir::tilegpu::pipeliner;

namespace {

/// sum(coefficient * term) + constant over integers of one width, each
/// coefficient kept modulo 2^width. Terms are values the form does not look
/// through (arguments, loads, anything but add/sub/mul-by-constant).
class LinearForm {
public:
  explicit LinearForm(unsigned width) : width(width) {}

  /// The form of `value`, an integer scalar, looking through constants,
  /// addi, subi and muli by a constant; `substitute` values are replaced by
  /// their given forms (the loop's induction variable).
  static std::optional<LinearForm>
  of(Value value,
     const llvm::SmallDenseMap<Value, LinearForm> &substitute = {}) {
    auto type = dyn_cast<IntegerType>(value.getType());
    if (!type || type.getWidth() > 64)
      return std::nullopt;
    return build(value, type.getWidth(), substitute, /*depth=*/0);
  }

  static LinearForm constant(unsigned width, int64_t value) {
    LinearForm form(width);
    form.offset = form.wrap(value);
    return form;
  }

  static LinearForm term(Value value, unsigned width) {
    LinearForm form(width);
    form.coefficients[value.getAsOpaquePointer()] = 1;
    return form;
  }

  LinearForm plus(const LinearForm &other, int64_t scale = 1) const {
    LinearForm sum = *this;
    for (auto [key, coefficient] : other.coefficients) {
      uint64_t &mine = sum.coefficients[key];
      mine = sum.wrap(mine + coefficient * static_cast<uint64_t>(scale));
      if (mine == 0)
        sum.coefficients.erase(key);
    }
    sum.offset = sum.wrap(sum.offset + other.offset * uint64_t(scale));
    return sum;
  }

  LinearForm times(int64_t scale) const {
    return LinearForm(width).plus(*this, scale);
  }

  bool operator==(const LinearForm &other) const {
    return width == other.width && offset == other.offset &&
           coefficients == other.coefficients;
  }

private:
  static std::optional<LinearForm>
  build(Value value, unsigned width,
        const llvm::SmallDenseMap<Value, LinearForm> &substitute,
        unsigned depth) {
    if (auto it = substitute.find(value); it != substitute.end())
      return it->second;
    APInt bits;
    if (matchPattern(value, m_ConstantInt(&bits)))
      return constant(width, bits.getSExtValue());
    Operation *def = value.getDefiningOp();
    // Deep chains are not address arithmetic worth proving equal.
    if (!def || depth > 32 ||
        !isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(def))
      return term(value, width);
    auto operand = [&](unsigned i) {
      return build(def->getOperand(i), width, substitute, depth + 1);
    };
    std::optional<LinearForm> lhs = operand(0), rhs = operand(1);
    if (!lhs || !rhs)
      return std::nullopt;
    if (isa<arith::AddIOp>(def))
      return lhs->plus(*rhs);
    if (isa<arith::SubIOp>(def))
      return lhs->plus(*rhs, -1);
    // A product of two non-constant forms is not linear: a term of its own.
    if (rhs->coefficients.empty())
      return lhs->times(static_cast<int64_t>(rhs->offset));
    if (lhs->coefficients.empty())
      return rhs->times(static_cast<int64_t>(lhs->offset));
    return term(value, width);
  }

  uint64_t wrap(uint64_t value) const {
    return width >= 64 ? value : value & ((uint64_t(1) << width) - 1);
  }

  unsigned width;
  uint64_t offset = 0;
  /// Keyed by the term's opaque pointer: equal forms have equal maps.
  std::map<const void *, uint64_t> coefficients;
};

/// Whether something before `op` in its block (nested ops included) may
/// write global memory: a copy issued at the kernel's start could then
/// read what that write replaces.
bool globalWriteBefore(Operation *op) {
  for (Operation &earlier : *op->getBlock()) {
    if (&earlier == op)
      return false;
    WalkResult result = earlier.walk([](Operation *nested) {
      auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
      if (!effects)
        return nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
                       isPure(nested)
                   ? WalkResult::advance()
                   : WalkResult::interrupt();
      SmallVector<MemoryEffects::EffectInstance> instances;
      effects.getEffects(instances);
      for (auto &instance : instances)
        if (isa<MemoryEffects::Write>(instance.getEffect()) &&
            isa<GlobalMemory>(instance.getResource()))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return true;
  }
  return false;
}

/// Whether every reader of `alloc`'s buffer (through views) sits before
/// `loop` in its block and finishes there: no async dot, so the buffer is
/// free once the loop starts.
bool readOnlyBefore(LocalAllocOp alloc, scf::ForOp loop) {
  SmallVector<Value> worklist{alloc.getResult()};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (user->getBlock() != loop->getBlock() || !user->isBeforeInBlock(loop))
        return false;
      if (auto dot = dyn_cast<WarpGroupDotOp>(user)) {
        if (dot.getIsAsync())
          return false;
        continue;
      }
      if (isa<MemDescTransOp>(user)) {
        worklist.push_back(user->getResult(0));
        continue;
      }
      // Anything else reading the buffer (a local_load, a store into it)
      // is not a dot operand the pipeline would stage either.
      return false;
    }
  }
  return true;
}

} // namespace

SmallVector<PrologueLoad> pipeliner::findPrologueLoads(scf::ForOp loop,
                                                       const LoopPlan &plan) {
  SmallVector<PrologueLoad> found;
  std::optional<LinearForm> lower = LinearForm::of(loop.getLowerBound());
  std::optional<LinearForm> step = LinearForm::of(loop.getStep());
  if (!lower || !step)
    return found;
  // The induction variable one step before the first iteration.
  LinearForm before = lower->plus(*step, -1);
  llvm::SmallDenseMap<Value, LinearForm> substitute;
  substitute.try_emplace(loop.getInductionVar(), before);
  for (auto [index, staged] : llvm::enumerate(plan.loads)) {
    LocalAllocOp stagedAlloc = staged.alloc;
    auto load = dyn_cast<DescriptorLoadOp>(staged.load);
    if (!load)
      continue;
    SmallVector<LinearForm> wanted;
    for (Value coordinate : load.getIndices()) {
      std::optional<LinearForm> form = LinearForm::of(coordinate, substitute);
      if (!form)
        break;
      wanted.push_back(*form);
    }
    if (wanted.size() != load.getIndices().size())
      continue;
    for (Operation &op : *loop->getBlock()) {
      if (&op == loop.getOperation())
        break;
      auto candidate = dyn_cast<DescriptorLoadOp>(&op);
      if (!candidate || candidate.getDesc() != load.getDesc() ||
          candidate.getType() != load.getType() || !candidate->hasOneUse())
        continue;
      auto alloc = dyn_cast<LocalAllocOp>(*candidate->getUsers().begin());
      if (!alloc || alloc.getType() != stagedAlloc.getType() ||
          !readOnlyBefore(alloc, loop) || globalWriteBefore(candidate))
        continue;
      bool same = true;
      for (auto [coordinate, form] :
           llvm::zip(candidate.getIndices(), wanted)) {
        std::optional<LinearForm> mine = LinearForm::of(coordinate);
        same &= mine && *mine == form;
      }
      if (!same)
        continue;
      found.push_back({candidate, alloc, static_cast<unsigned>(index)});
      break;
    }
  }
  return found;
}
