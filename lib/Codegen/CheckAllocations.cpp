//===- CheckAllocations.cpp - Overflow checks of allocation sizes ---------===//
//
// -fnc-check-allocations and -fnc-check-types: see Passes.td.
//
//===----------------------------------------------------------------------===//

#include "fnc/Codegen/Passes.h"
#include "fnc/Dialect/Fnc/IR/FncDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"

#include <functional>

namespace mlir::fnc {
#define GEN_PASS_DEF_FNCCHECKALLOCATIONS
#define GEN_PASS_DEF_FNCCHECKTYPES
#include "fnc/Codegen/Passes.h.inc"
} // namespace mlir::fnc

using namespace mlir;

namespace {

constexpr StringLiteral kSizeOverflow = "fncSizeOverflow";

/// The runtime context of the function holding `op`: its first argument,
/// a memref<3xi64> (null if the function has none).
Value contextOf(Operation *op) {
  auto func = op->getParentOfType<func::FuncOp>();
  if (!func || func.getNumArguments() == 0)
    return nullptr;
  Value first = func.getArgument(0);
  auto type = dyn_cast<MemRefType>(first.getType());
  if (!type || type.getShape() != ArrayRef<int64_t>{3} ||
      !type.getElementType().isInteger(64))
    return nullptr;
  return first;
}

/// Bytes of one element of a memref (the lowering to LLVM stores index as
/// 64 bits).
int64_t elementBytes(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.getNumElements() * elementBytes(vector.getElementType());
  if (type.isIntOrFloat())
    return std::max<int64_t>(1, llvm::divideCeil(type.getIntOrFloatBitWidth(), 8));
  return 8;
}

struct FncCheckAllocationsPass
    : public fnc::impl::FncCheckAllocationsBase<FncCheckAllocationsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<memref::AllocOp> allocs;
    bool failed = false;
    module.walk([&](memref::AllocOp alloc) {
      MemRefType type = alloc.getType();
      int64_t bytes = elementBytes(type.getElementType());
      for (int64_t d : type.getShape())
        if (!ShapedType::isDynamic(d) &&
            llvm::MulOverflow(bytes, d, bytes)) {
          alloc.emitError("the byte size of ")
              << type << " does not fit in 64 bits";
          failed = true;
          return;
        }
      if (!alloc.getDynamicSizes().empty())
        allocs.push_back(alloc);
    });
    if (failed)
      return signalPassFailure();
    if (allocs.empty())
      return;

    MLIRContext *ctx = &getContext();
    Type i64 = IntegerType::get(ctx, 64);
    Type contextType = MemRefType::get({3}, i64);
    if (!module.lookupSymbol(kSizeOverflow)) {
      OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
      auto decl = func::FuncOp::create(
          b, module.getLoc(), kSizeOverflow,
          FunctionType::get(ctx, {contextType, i64}, {}));
      decl.setPrivate();
      decl->setAttr("llvm.emit_c_interface", UnitAttr::get(ctx));
    }

    for (memref::AllocOp alloc : allocs) {
      Value context = contextOf(alloc);
      if (!context)
        continue; // not fnc-lowered code: nothing to report through
      OpBuilder b(alloc);
      Location loc = alloc.getLoc();
      MemRefType type = alloc.getType();
      int64_t staticBytes = elementBytes(type.getElementType());
      for (int64_t d : type.getShape())
        if (!ShapedType::isDynamic(d))
          staticBytes *= d; // checked above
      Value acc = arith::ConstantIntOp::create(b, loc, i64, staticBytes);
      Value zero = arith::ConstantIntOp::create(b, loc, i64, 0);
      Value overflow, culprit = zero;
      for (Value size : alloc.getDynamicSizes()) {
        Value d = arith::IndexCastOp::create(b, loc, i64, size);
        auto product = arith::MulUIExtendedOp::create(b, loc, acc, d);
        // Overflow: a high word, or a low word past INT64_MAX.
        Value bad = arith::OrIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                  product.getHigh(), zero),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                  product.getLow(), zero));
        Value first =
            overflow
                ? arith::AndIOp::create(
                      b, loc, bad,
                      arith::XOrIOp::create(
                          b, loc, overflow,
                          arith::ConstantIntOp::create(b, loc, b.getI1Type(),
                                                       1)))
                : bad;
        culprit = arith::SelectOp::create(b, loc, first, d, culprit);
        overflow = overflow ? arith::OrIOp::create(b, loc, overflow, bad)
                            : bad;
        acc = product.getLow();
      }
      scf::IfOp::create(b, loc, overflow, [&](OpBuilder &nb, Location nl) {
        func::CallOp::create(nb, nl, kSizeOverflow, TypeRange{},
                             ValueRange{context, culprit});
        scf::YieldOp::create(nb, nl);
      });
    }
  }
};

struct FncCheckTypesPass
    : public fnc::impl::FncCheckTypesBase<FncCheckTypesPass> {
  using Base::Base;

  void runOnOperation() override {
    // The vector type in `type` (itself, or a memref's or tensor's element
    // type) that has too many elements; null if none.
    std::function<VectorType(Type)> tooWide = [&](Type type) -> VectorType {
      auto vector = dyn_cast<VectorType>(type);
      if (!vector)
        return isa<ShapedType>(type)
                   ? tooWide(cast<ShapedType>(type).getElementType())
                   : VectorType();
      // The product saturates: no overflowing shape passes for a small one.
      int64_t lanes = 1;
      for (int64_t d : vector.getShape())
        if (llvm::MulOverflow(lanes, d, lanes))
          return vector;
      return lanes > maxLanes ? vector : VectorType();
    };
    WalkResult result = getOperation().walk([&](Operation *op) {
      SmallVector<Type> types(op->getOperandTypes());
      llvm::append_range(types, op->getResultTypes());
      for (Region &region : op->getRegions())
        for (Block &block : region)
          llvm::append_range(types, block.getArgumentTypes());
      for (Type type : types) {
        auto shaped = dyn_cast<ShapedType>(type);
        if (shaped && isa<fnc::StringType>(shaped.getElementType())) {
          op->emitError("string tensors (")
              << type
              << ") are not compiled; run the module with the interpreter "
                 "(fnc-run --interpret; a fnc::function runs them on its "
                 "graph executor)";
          return WalkResult::interrupt();
        }
        if (VectorType vector = tooWide(type)) {
          op->emitError("the vector type ")
              << vector << " has more than " << maxLanes.getValue()
              << " elements, which fnc does not compile; hold so many "
                 "elements in a tensor or memref";
          return WalkResult::interrupt();
        }
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
