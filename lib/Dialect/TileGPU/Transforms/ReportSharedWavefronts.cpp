//===- ReportSharedWavefronts.cpp - Bank conflicts, op by op --------------===//
//
// Remarks one warp's shared-memory wavefronts on each op that moves a
// tensor between registers and shared memory, with what they would be
// without bank conflicts. Nothing changes; the numbers come from the same
// access maps the lowering emits addresses from, so a conflict reported
// here is one the kernel has.
//
//===----------------------------------------------------------------------===//

#include "tile/Analysis/Allocation.h"
#include "tile/Analysis/SharedAccess.h"
#include "tile/Analysis/WarpShuffle.h"
#include "tile/Dialect/TileGPU/IR/Dialect.h"
#include "tile/Dialect/TileGPU/Transforms/Passes.h"

#include "llvm/ADT/TypeSwitch.h"

namespace mlir {
namespace tilegpu {
#define GEN_PASS_DEF_TILEGPUREPORTSHAREDWAVEFRONTS
#include "tile/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilegpu
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

namespace {

/// "N (M without conflicts)" for `tensor`'s registers moving to or from a
/// `buffer` buffer; empty when the two do not compose. A load of bytes the
/// lowering reads with ldmatrix counts its 16-byte rows.
std::string describe(Type tensor, MemDescType buffer, bool load = false) {
  auto tensorType = dyn_cast<RankedTensorType>(tensor);
  if (!tensorType || !getDistributedEncoding(tensorType))
    return "";
  FailureOr<SharedAccessMap> map = composeAccessMap(tensorType, buffer);
  if (failed(map))
    return "";
  SharedWavefronts count =
      load ? measureLoadWavefronts(*map, buffer.getElementType())
           : measureSharedWavefronts(
                 *map, getSharedElementBytes(buffer.getElementType()));
  return std::to_string(count.actual) + " (" +
         std::to_string(count.conflictFree) + " without bank conflicts)";
}

void remark(Operation *op, StringRef what, const std::string &count) {
  if (!count.empty())
    op->emitRemark() << op->getName() << " " << what
                     << ": shared wavefronts per warp " << count;
}

struct ReportSharedWavefrontsPass
    : tilegpu::impl::TileGPUReportSharedWavefrontsBase<
          ReportSharedWavefrontsPass> {
  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      llvm::TypeSwitch<Operation *>(op)
          .Case([](LocalLoadOp load) {
            remark(load, "load",
                   describe(load.getType(), load.getBuffer().getType(),
                            /*load=*/true));
          })
          .Case([](LocalStoreOp store) {
            remark(store, "store",
                   describe(store.getSrc().getType(),
                            store.getBuffer().getType()));
          })
          .Case([](LocalAllocOp alloc) {
            if (Value src = alloc.getSrc())
              remark(alloc, "store", describe(src.getType(), alloc.getType()));
          })
          .Case([](AsyncCopyGlobalToLocalOp copy) {
            remark(
                copy, "copy",
                describe(copy.getSrc().getType(), copy.getBuffer().getType()));
          })
          .Case([](ConvertLayoutOp convert) {
            RankedTensorType src = convert.getSrc().getType();
            RankedTensorType dst = convert.getType();
            if (getRegisterMapping(convert) ||
                getConversionShufflePlan(src, dst) ||
                !getConversionRoundBits(src, dst).empty())
              return;
            if (std::optional<MemDescType> scratch =
                    getConversionScratchLayout(src, dst)) {
              remark(convert, "store", describe(src, *scratch));
              remark(convert, "load", describe(dst, *scratch, /*load=*/true));
            }
          });
    });
  }
};

} // namespace
