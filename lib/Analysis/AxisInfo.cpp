//===- AxisInfo.cpp - Contiguity, divisibility, constancy -----------------===//

#include "tile/Analysis/AxisInfo.h"
#include "tile/Dialect/Tile/IR/Dialect.h"
#include "tile/Dialect/TileGPU/IR/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

using namespace mlir;
using namespace mlir::tile;

/// Divisibility is tracked up to 2^30: beyond that it never matters.
static constexpr int64_t kMaxDivisor = int64_t(1) << 30;

int64_t mlir::tile::highestPowerOf2Divisor(int64_t value) {
  if (value == 0)
    return kMaxDivisor;
  return std::min<int64_t>(value & -value, kMaxDivisor);
}

AxisInfo AxisInfo::unknown(unsigned rank) {
  AxisInfo info;
  info.contiguity.assign(rank, 1);
  info.divisibility.assign(rank, 1);
  info.constancy.assign(rank, 1);
  return info;
}

static SmallVector<int64_t, 4> shapeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return SmallVector<int64_t, 4>(tensor.getShape());
  return {1};
}

static int64_t gcd(int64_t a, int64_t b) { return std::gcd(a, b); }

/// Facts about a value that is the same everywhere: a splat or a scalar.
static AxisInfo uniform(Type type, int64_t divisibility,
                        std::optional<int64_t> constant) {
  SmallVector<int64_t, 4> shape = shapeOf(type);
  AxisInfo info = AxisInfo::unknown(shape.size());
  info.divisibility.assign(shape.size(), divisibility);
  info.constancy = shape;
  info.constant = constant;
  return info;
}

AxisInfoAnalysis::AxisInfoAnalysis(Operation *root) {
  for (Region &region : root->getRegions())
    visitRegion(region);
}

/// Facts that hold for both `a` and `b`.
static AxisInfo join(const AxisInfo &a, const AxisInfo &b) {
  AxisInfo info = AxisInfo::unknown(a.getRank());
  for (unsigned d = 0; d < a.getRank(); ++d) {
    info.contiguity[d] = gcd(a.contiguity[d], b.contiguity[d]);
    info.divisibility[d] = gcd(a.divisibility[d], b.divisibility[d]);
    info.constancy[d] = gcd(a.constancy[d], b.constancy[d]);
  }
  if (a.constant == b.constant)
    info.constant = a.constant;
  return info;
}

void AxisInfoAnalysis::visitRegion(Region &region) {
  for (Block &block : region)
    for (Operation &op : block) {
      if (auto function = dyn_cast<FunctionOpInterface>(&op)) {
        visitFunction(function);
        continue;
      }
      if (auto loop = dyn_cast<scf::ForOp>(&op)) {
        visitLoop(loop);
        continue;
      }
      visit(&op);
      for (Region &inner : op.getRegions())
        visitRegion(inner);
    }
}

void AxisInfoAnalysis::visitFunction(FunctionOpInterface function) {
  for (BlockArgument arg : function.getArguments()) {
    int64_t divisibility = 1, contiguity = 1;
    if (auto attr = function.getArgAttrOfType<IntegerAttr>(
            arg.getArgNumber(), TileDialect::getDivisibilityAttrName()))
      divisibility = attr.getInt();
    if (auto attr = function.getArgAttrOfType<IntegerAttr>(
            arg.getArgNumber(), TileDialect::getContiguityAttrName()))
      contiguity = attr.getInt();
    AxisInfo info = uniform(arg.getType(), divisibility, std::nullopt);
    if (contiguity > 1) {
      info.contiguity.assign(info.getRank(), contiguity);
      info.constancy.assign(info.getRank(), 1);
    }
    facts[arg] = info;
  }
  for (Region &region : function->getRegions())
    visitRegion(region);
}

/// A loop-carried value holds what its initial value and every yielded
/// value have in common. Start from the initial values and weaken until
/// the body's yields agree: each round only lowers the gcds, so a few
/// rounds reach the fixed point (the bound guards against anything else).
void AxisInfoAnalysis::visitLoop(scf::ForOp loop) {
  AxisInfo lower = getAxisInfo(loop.getLowerBound());
  AxisInfo step = getAxisInfo(loop.getStep());
  AxisInfo iv = AxisInfo::unknown(1);
  iv.divisibility[0] = gcd(lower.divisibility[0], step.divisibility[0]);
  facts[loop.getInductionVar()] = iv;
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  for (auto [arg, init] :
       llvm::zip(loop.getRegionIterArgs(), loop.getInitArgs()))
    facts[arg] = getAxisInfo(init);
  bool stable = false;
  for (int round = 0; round < 8 && !stable; ++round) {
    visitRegion(loop.getRegion());
    stable = true;
    for (auto [arg, next] :
         llvm::zip(loop.getRegionIterArgs(), yield.getOperands())) {
      AxisInfo joined = join(facts[arg], getAxisInfo(next));
      if (joined == facts[arg])
        continue;
      facts[arg] = joined;
      stable = false;
    }
  }
  if (!stable) {
    for (BlockArgument arg : loop.getRegionIterArgs())
      facts[arg] = AxisInfo::unknown(shapeOf(arg.getType()).size());
    visitRegion(loop.getRegion());
  }
  // Copied first: inserting the result may rehash the map.
  for (auto [result, arg] :
       llvm::zip(loop.getResults(), loop.getRegionIterArgs())) {
    AxisInfo info = facts[arg];
    facts[result] = std::move(info);
  }
}

AxisInfo AxisInfoAnalysis::getAxisInfo(Value value) const {
  auto it = facts.find(value);
  if (it != facts.end())
    return it->second;
  return AxisInfo::unknown(shapeOf(value.getType()).size());
}

int64_t AxisInfoAnalysis::getPtrVectorLimit(Value ptr, unsigned dim) const {
  AxisInfo info = getAxisInfo(ptr);
  unsigned elementBytes =
      std::max(1u, getElementBitWidth(getPointeeTypeLike(ptr.getType())) / 8);
  int64_t alignedElements =
      std::max<int64_t>(1, info.divisibility[dim] / elementBytes);
  return std::min(info.contiguity[dim], alignedElements);
}

int64_t AxisInfoAnalysis::getMaskConstancy(Value mask, unsigned dim) const {
  if (!mask)
    return kMaxDivisor;
  return getAxisInfo(mask).constancy[dim];
}

/// The divisibility of `x` at the first element of every run of
/// `runLength` (a power of two) along `dim`. `x.divisibility` holds at the
/// first element of x's own runs; inside a run of consecutive values the
/// element k places on divides only as far as k does, so a result with
/// shorter runs than x's keeps gcd(divisibility, runLength): for runs of
/// one, the odd elements make it 1.
static int64_t divisibilityAtRuns(const AxisInfo &x, unsigned dim,
                                  int64_t runLength) {
  if (x.contiguity[dim] <= runLength)
    return x.divisibility[dim];
  return gcd(x.divisibility[dim], runLength);
}

/// x + y (and addptr, where y is scaled by the element size).
static AxisInfo addFacts(const AxisInfo &x, const AxisInfo &y, int64_t yScale) {
  AxisInfo info = AxisInfo::unknown(x.getRank());
  for (unsigned d = 0; d < x.getRank(); ++d) {
    // Runs of x stay consecutive where y is constant, and vice versa.
    // (For addptr, contiguity counts elements, so the scale drops out.)
    info.contiguity[d] = std::max(gcd(x.contiguity[d], y.constancy[d]),
                                  gcd(x.constancy[d], y.contiguity[d]));
    int64_t run = info.contiguity[d];
    info.divisibility[d] =
        gcd(divisibilityAtRuns(x, d, run),
            std::min(kMaxDivisor, divisibilityAtRuns(y, d, run) * yScale));
    info.constancy[d] = gcd(x.constancy[d], y.constancy[d]);
  }
  if (x.constant && y.constant)
    info.constant = *x.constant + *y.constant * yScale;
  return info;
}

void AxisInfoAnalysis::visit(Operation *op) {
  if (op->getNumResults() != 1) {
    for (Value result : op->getResults())
      facts[result] = AxisInfo::unknown(shapeOf(result.getType()).size());
    return;
  }
  Value result = op->getResult(0);
  Type type = result.getType();
  SmallVector<int64_t, 4> shape = shapeOf(type);
  auto operand = [&](unsigned i) { return getAxisInfo(op->getOperand(i)); };

  AxisInfo info =
      llvm::TypeSwitch<Operation *, AxisInfo>(op)
          .Case([&](arith::ConstantOp constant) {
            std::optional<int64_t> value;
            if (auto attr = dyn_cast<IntegerAttr>(constant.getValue()))
              value = attr.getInt();
            else if (auto dense =
                         dyn_cast<DenseIntElementsAttr>(constant.getValue()))
              if (dense.isSplat())
                value = dense.getSplatValue<APInt>().getSExtValue();
            if (!value)
              return AxisInfo::unknown(shape.size());
            return uniform(type, highestPowerOf2Divisor(*value), value);
          })
          .Case([&](HintOp hint) {
            // The kernel's promises replace what the analysis derives, as
            // Triton's tt.divisibility/contiguity/constancy attributes do;
            // runs are capped at the dimension's length.
            AxisInfo facts = operand(0);
            auto take = [&](std::optional<ArrayRef<int64_t>> values,
                            AxisInfo::Vec &into, bool isRun) {
              if (!values)
                return;
              for (auto [d, v] : llvm::enumerate(*values))
                into[d] = isRun ? std::min(v, shape[d])
                                : highestPowerOf2Divisor(v);
            };
            take(hint.getDivisibility(), facts.divisibility, false);
            take(hint.getContiguity(), facts.contiguity, true);
            take(hint.getConstancy(), facts.constancy, true);
            return facts;
          })
          .Case([&](MakeRangeOp range) {
            AxisInfo facts = AxisInfo::unknown(1);
            facts.contiguity[0] = range.getEnd() - range.getStart();
            facts.divisibility[0] = highestPowerOf2Divisor(range.getStart());
            return facts;
          })
          .Case([&](SplatOp splat) {
            AxisInfo src = operand(0);
            return uniform(type, src.divisibility[0], src.constant);
          })
          .Case([&](BroadcastOp broadcast) {
            AxisInfo src = operand(0);
            auto srcShape = shapeOf(broadcast.getSrc().getType());
            AxisInfo facts = src;
            for (unsigned d = 0; d < shape.size(); ++d)
              if (srcShape[d] == 1 && shape[d] != 1) {
                facts.contiguity[d] = 1;
                facts.constancy[d] = shape[d];
              }
            return facts;
          })
          .Case([&](ExpandDimsOp expand) {
            AxisInfo src = operand(0);
            unsigned axis = expand.getAxis();
            // Along the new dimension every element is its own run.
            int64_t divisibility = kMaxDivisor;
            for (unsigned d = 0; d < src.getRank(); ++d)
              divisibility = gcd(divisibility, divisibilityAtRuns(src, d, 1));
            src.contiguity.insert(src.contiguity.begin() + axis, 1);
            src.divisibility.insert(src.divisibility.begin() + axis,
                                    divisibility);
            src.constancy.insert(src.constancy.begin() + axis, 1);
            return src;
          })
          .Case([&](AddPtrOp addptr) {
            unsigned bytes =
                std::max(1u, getElementBitWidth(getPointeeTypeLike(type)) / 8);
            return addFacts(operand(0), operand(1), bytes);
          })
          .Case([&](arith::AddIOp) {
            return addFacts(operand(0), operand(1), 1);
          })
          .Case([&](arith::SubIOp) {
            AxisInfo x = operand(0), y = operand(1);
            AxisInfo facts = AxisInfo::unknown(shape.size());
            for (unsigned d = 0; d < shape.size(); ++d) {
              facts.contiguity[d] = gcd(x.contiguity[d], y.constancy[d]);
              int64_t run = facts.contiguity[d];
              facts.divisibility[d] = gcd(divisibilityAtRuns(x, d, run),
                                          divisibilityAtRuns(y, d, run));
              facts.constancy[d] = gcd(x.constancy[d], y.constancy[d]);
            }
            if (x.constant && y.constant)
              facts.constant = *x.constant - *y.constant;
            return facts;
          })
          .Case([&](arith::MulIOp) {
            AxisInfo x = operand(0), y = operand(1);
            AxisInfo facts = AxisInfo::unknown(shape.size());
            for (unsigned d = 0; d < shape.size(); ++d) {
              facts.constancy[d] = gcd(x.constancy[d], y.constancy[d]);
              // Multiplying by one keeps runs.
              if (y.constant == 1)
                facts.contiguity[d] = x.contiguity[d];
              else if (x.constant == 1)
                facts.contiguity[d] = y.contiguity[d];
              int64_t run = facts.contiguity[d];
              facts.divisibility[d] =
                  std::min(kMaxDivisor, divisibilityAtRuns(x, d, run) *
                                            divisibilityAtRuns(y, d, run));
            }
            if (x.constant && y.constant)
              facts.constant = *x.constant * *y.constant;
            return facts;
          })
          .Case<arith::RemSIOp, arith::RemUIOp>([&](Operation *) {
            // x % y with y the same everywhere: a run of x of length L
            // stays a run when L divides both y and the run's start, since
            // the only multiple of y it can hold is then its first value.
            AxisInfo x = operand(0), y = operand(1);
            AxisInfo facts = AxisInfo::unknown(shape.size());
            for (unsigned d = 0; d < shape.size(); ++d) {
              facts.constancy[d] = gcd(x.constancy[d], y.constancy[d]);
              if (y.constancy[d] != shape[d])
                continue;
              int64_t run = gcd(x.contiguity[d], y.divisibility[d]);
              run = gcd(run, divisibilityAtRuns(x, d, run));
              facts.contiguity[d] = run;
              facts.divisibility[d] =
                  gcd(divisibilityAtRuns(x, d, run), y.divisibility[d]);
            }
            if (x.constant && y.constant && *y.constant != 0)
              facts.constant = *x.constant % *y.constant;
            return facts;
          })
          .Case([&](arith::CmpIOp cmp) {
            AxisInfo x = operand(0), y = operand(1);
            AxisInfo facts = AxisInfo::unknown(shape.size());
            bool ordered = cmp.getPredicate() != arith::CmpIPredicate::eq &&
                           cmp.getPredicate() != arith::CmpIPredicate::ne;
            for (unsigned d = 0; d < shape.size(); ++d) {
              facts.constancy[d] = gcd(x.constancy[d], y.constancy[d]);
              // `range < n`: within a run of the range that starts at a
              // multiple of n's divisor, the answer cannot change.
              if (ordered && y.constancy[d] == shape[d] && x.contiguity[d] > 1)
                facts.constancy[d] =
                    std::max(facts.constancy[d],
                             gcd(x.contiguity[d],
                                 gcd(x.divisibility[d], y.divisibility[d])));
            }
            return facts;
          })
          .Case<arith::AndIOp, arith::OrIOp, arith::XOrIOp, arith::SelectOp,
                arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp>(
              [&](Operation *) {
                AxisInfo facts = AxisInfo::unknown(shape.size());
                facts.constancy = SmallVector<int64_t, 4>(shape);
                for (unsigned i = 0; i < op->getNumOperands(); ++i) {
                  AxisInfo x = operand(i);
                  if (x.getRank() != shape.size())
                    continue;
                  for (unsigned d = 0; d < shape.size(); ++d)
                    facts.constancy[d] =
                        gcd(facts.constancy[d], x.constancy[d]);
                }
                if (isa<arith::ExtSIOp, arith::ExtUIOp>(op)) {
                  AxisInfo x = operand(0);
                  facts.contiguity = x.contiguity;
                  facts.divisibility = x.divisibility;
                  facts.constant = x.constant;
                }
                return facts;
              })
          .Default([&](Operation *) {
            // A layout change moves no values.
            if (op->getName().getStringRef() == "tilegpu.convert_layout")
              return operand(0);
            return AxisInfo::unknown(shape.size());
          });
  facts[result] = info;
}

unsigned mlir::tile::vectorWidth(Value ptr, Value mask,
                                 const AxisInfoAnalysis &axisInfo) {
  using tilegpu::LinearLayout;
  auto type = dyn_cast<RankedTensorType>(ptr.getType());
  if (!type)
    return 1;
  LinearLayout layout = tilegpu::getLinearLayout(type);
  auto regBases = layout.getBases(LinearLayout::Register);
  if (regBases.empty())
    return 1;
  unsigned dim = layout.getFastestDim().value_or(0);
  unsigned elementBits = std::max(
      8u, getElementBitWidth(getPointeeTypeLike(type.getElementType())));
  int64_t limit = std::min<int64_t>(layout.getContiguousRegisters(dim),
                                    axisInfo.getPtrVectorLimit(ptr, dim));
  limit = std::min<int64_t>(limit, axisInfo.getMaskConstancy(mask, dim));
  limit = std::min<int64_t>(limit, 128 / elementBits);
  unsigned vec = 1;
  while (vec * 2 <= limit)
    vec *= 2;
  return vec;
}
