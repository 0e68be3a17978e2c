//===- DebugOps.cpp - device_print through vprintf, device_assert ---------===//
//
// tile.print becomes one vprintf call per element a thread owns (copies of
// a broadcast element stay quiet), each line naming the program and the
// element's index. A scalar operand, the same in every thread, is printed by
// thread 0 of each program. tile.assert calls the CUDA runtime's
// __assertfail, which reports the source position and traps, in every
// thread that owns a false element.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

namespace {

LLVM::LLVMPointerType genericPtr(MLIRContext *context) {
  return LLVM::LLVMPointerType::get(context);
}

/// A pointer to a NUL-terminated constant string, one global per distinct
/// text.
Value getStringPointer(OpBuilder &b, Location loc, Operation *op,
                       StringRef text) {
  auto module = op->getParentOfType<ModuleOp>();
  std::string contents = text.str();
  contents.push_back('\0');
  auto type = LLVM::LLVMArrayType::get(b.getI8Type(), contents.size());
  LLVM::GlobalOp global;
  unsigned count = 0;
  for (auto existing : module.getOps<LLVM::GlobalOp>()) {
    if (!existing.getSymName().starts_with("tile_str_"))
      continue;
    ++count;
    if (auto value = dyn_cast_or_null<StringAttr>(existing.getValueOrNull()))
      if (value.getValue() == contents)
        global = existing;
  }
  if (!global) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    global = LLVM::GlobalOp::create(
        b, loc, type, /*isConstant=*/true, LLVM::Linkage::Internal,
        ("tile_str_" + Twine(count)).str(), b.getStringAttr(contents));
  }
  return LLVM::AddressOfOp::create(b, loc, genericPtr(b.getContext()),
                                   global.getSymName());
}

LLVM::LLVMFuncOp getOrDeclare(OpBuilder &b, Operation *op, StringRef name,
                              LLVM::LLVMFunctionType type) {
  auto module = op->getParentOfType<ModuleOp>();
  if (auto existing = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return existing;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  return LLVM::LLVMFuncOp::create(b, module.getLoc(), name, type);
}

/// Thread 0 of the CTA.
Value isFirstThread(OpBuilder &b, Location loc, Operation *op) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                               getThreadId(b, op).linear,
                               i32Constant(b, loc, 0));
}

/// `value` as vprintf takes it, and its conversion in the format.
std::pair<Value, std::string> printable(OpBuilder &b, Location loc,
                                        Value value, bool isSigned,
                                        bool hex) {
  Type type = value.getType();
  if (isa<PointerType>(type))
    return {PtrToIntOp::create(b, loc, b.getI64Type(), value), "%p"};
  if (auto floatType = dyn_cast<FloatType>(type)) {
    if (hex) {
      unsigned bits = floatType.getWidth();
      Value asInt =
          arith::BitcastOp::create(b, loc, b.getIntegerType(bits), value);
      if (bits < 32)
        asInt = arith::ExtUIOp::create(b, loc, b.getI32Type(), asInt);
      return {asInt, bits == 64 ? "0x%llx" : "0x%x"};
    }
    if (!floatType.isF64())
      value = arith::ExtFOp::create(b, loc, b.getF64Type(), value);
    return {value, "%f"};
  }
  unsigned bits = type.getIntOrFloatBitWidth();
  if (bits < 32) {
    if (isSigned && bits > 1)
      value = arith::ExtSIOp::create(b, loc, b.getI32Type(), value);
    else
      value = arith::ExtUIOp::create(b, loc, b.getI32Type(), value);
  }
  const char *wide = hex ? "0x%llx" : isSigned ? "%lld" : "%llu";
  const char *narrow = hex ? "0x%x" : isSigned ? "%d" : "%u";
  return {value, bits > 32 ? wide : narrow};
}

/// One vprintf call with the arguments packed the way vprintf reads them:
/// a buffer of naturally aligned values.
void emitVprintf(OpBuilder &b, Location loc, Operation *op, StringRef format,
                 ArrayRef<Value> args) {
  MLIRContext *context = b.getContext();
  auto ptr = genericPtr(context);
  auto vprintf = getOrDeclare(
      b, op, "vprintf",
      LLVM::LLVMFunctionType::get(b.getI32Type(), {ptr, ptr}));
  Value formatPtr = getStringPointer(b, loc, op, format);
  Value buffer = LLVM::ZeroOp::create(b, loc, ptr);
  if (!args.empty()) {
    SmallVector<Type> types;
    for (Value arg : args)
      types.push_back(arg.getType());
    auto structType = LLVM::LLVMStructType::getLiteral(context, types);
    // The buffer lives in the entry block so that a print in a loop does
    // not grow the stack on every iteration.
    {
      OpBuilder::InsertionGuard guard(b);
      auto function = op->getParentOfType<FunctionOpInterface>();
      b.setInsertionPointToStart(&function.getFunctionBody().front());
      Value one = LLVM::ConstantOp::create(b, loc, b.getI64Type(), 1);
      buffer = LLVM::AllocaOp::create(b, loc, ptr, structType, one, 8);
    }
    for (auto [i, arg] : llvm::enumerate(args)) {
      Value field = LLVM::GEPOp::create(
          b, loc, ptr, structType, buffer,
          ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)});
      LLVM::StoreOp::create(b, loc, arg, field);
    }
  }
  LLVM::CallOp::create(b, loc, vprintf, ValueRange{formatPtr, buffer});
}

std::string escapePercent(StringRef text) {
  std::string out;
  for (char c : text) {
    out.push_back(c);
    if (c == '%')
      out.push_back('%');
  }
  return out;
}

struct PrintPattern : OpConversionPattern<PrintOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PrintOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> pids;
    for (auto axis : {ProgramAxis::X, ProgramAxis::Y, ProgramAxis::Z})
      pids.push_back(GetProgramIdOp::create(rewriter, loc, axis));
    // The line already ends its index part with a space.
    std::string prefix = escapePercent(op.getPrefix().ltrim());
    bool many = op.getArgs().size() > 1;
    if (op.getArgs().empty()) {
      auto ifOp = scf::IfOp::create(rewriter, loc,
                                    isFirstThread(rewriter, loc, op), false);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(ifOp.thenBlock());
      emitVprintf(rewriter, loc, op, "pid (%d, %d, %d) " + prefix + "\n",
                  pids);
      rewriter.eraseOp(op);
      return success();
    }
    for (auto [k, arg] : llvm::enumerate(op.getArgs())) {
      bool isSigned = op.getIsSigned()[k] != 0;
      std::string operand =
          many ? " (operand " + std::to_string(k) + ")" : std::string();
      ValueRange values = adaptor.getArgs()[k];
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!type) {
        auto ifOp = scf::IfOp::create(rewriter, loc,
                                      isFirstThread(rewriter, loc, op), false);
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPointToStart(ifOp.thenBlock());
        auto [value, conversion] =
            printable(rewriter, loc, values[0], isSigned, op.getHex());
        SmallVector<Value> args(pids);
        args.push_back(value);
        emitVprintf(rewriter, loc, op,
                    "pid (%d, %d, %d) " + prefix + operand + conversion + "\n",
                    args);
        continue;
      }
      LinearLayout layout = getLinearLayout(type);
      ThreadId tid = getThreadId(rewriter, op);
      Value owner = emitOwnerPredicate(rewriter, loc, layout, tid);
      std::string index = "idx (";
      for (unsigned d = 0; d < type.getRank(); ++d)
        index += d ? ", %d" : "%d";
      index += ") ";
      auto coordinates = emitCoordinates(rewriter, loc, layout, tid);
      for (auto [value, coords] : llvm::zip(values, coordinates)) {
        OpBuilder::InsertionGuard guard(rewriter);
        if (owner) {
          auto ifOp = scf::IfOp::create(rewriter, loc, owner, false);
          rewriter.setInsertionPointToStart(ifOp.thenBlock());
        }
        auto [shown, conversion] =
            printable(rewriter, loc, value, isSigned, op.getHex());
        SmallVector<Value> args(pids);
        args.append(coords.begin(), coords.end());
        args.push_back(shown);
        emitVprintf(rewriter, loc, op,
                    "pid (%d, %d, %d) " + index + prefix + operand +
                        conversion + "\n",
                    args);
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct AssertPattern : OpConversionPattern<AssertOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AssertOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // Any owned element false: broadcast copies agree with their owner, so
    // every register may be checked.
    Value anyFalse;
    Value trueValue = arith::ConstantIntOp::create(rewriter, loc, 1, 1);
    for (Value ok : adaptor.getCondition()) {
      Value bad = arith::XOrIOp::create(rewriter, loc, ok, trueValue);
      anyFalse = anyFalse ? Value(arith::OrIOp::create(rewriter, loc,
                                                       anyFalse, bad))
                          : bad;
    }
    auto ifOp = scf::IfOp::create(rewriter, loc, anyFalse, false);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(ifOp.thenBlock());
    StringRef file = "unknown";
    unsigned line = 0;
    if (auto position = dyn_cast<FileLineColLoc>(loc)) {
      file = position.getFilename();
      line = position.getLine();
    }
    auto function = op->getParentOfType<FunctionOpInterface>();
    MLIRContext *context = getContext();
    auto ptr = genericPtr(context);
    auto assertfail = getOrDeclare(
        rewriter, op, "__assertfail",
        LLVM::LLVMFunctionType::get(
            LLVM::LLVMVoidType::get(context),
            {ptr, ptr, rewriter.getI32Type(), ptr, rewriter.getI64Type()}));
    Value args[] = {
        getStringPointer(rewriter, loc, op, op.getMessage()),
        getStringPointer(rewriter, loc, op, file),
        i32Constant(rewriter, loc, line),
        getStringPointer(rewriter, loc, op, function.getName()),
        LLVM::ConstantOp::create(rewriter, loc, rewriter.getI64Type(), 1)};
    LLVM::CallOp::create(rewriter, loc, assertfail, args);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::populateDebugPatterns(ThreadTypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<PrintPattern, AssertPattern>(converter, patterns.getContext());
}
