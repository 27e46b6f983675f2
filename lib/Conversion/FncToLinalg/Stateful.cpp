//===- Stateful.cpp - Lowering of control flow, variables and effects -----===//
//
// fnc.cond/fnc.while become scf.if/scf.while (their regions move over;
// the terminators follow). A variable is a memref argument: var_read copies
// it into a fresh tensor (later assignments must not change what was
// read; -fnc-elide-snapshot-copies removes the copies that are not needed
// once bufferized), var_assign materializes the value into it,
// var_assign_add/sub update it in place with a memref-level generic.
// fnc.print and fnc.random_* call the C runtime on buffers.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "fnc/Dialect/Fnc/IR/FncOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;
using namespace mlir::fnc;
using namespace mlir::fnc::lowering;

namespace {

/// The 0-D bool tensor `pred` as an i1.
Value extractBool(OpBuilder &b, Location loc, Value pred) {
  return tensor::ExtractOp::create(b, loc, pred, ValueRange{});
}

/// A memref type of `shape` that any buffer layout casts to.
MemRefType anyLayout(ArrayRef<int64_t> shape, Type element) {
  SmallVector<int64_t> strides(shape.size(), ShapedType::kDynamic);
  auto layout = StridedLayoutAttr::get(element.getContext(),
                                       ShapedType::kDynamic, strides);
  return MemRefType::get(shape, element, layout);
}

/// The buffer of `tensor`, read only, as an unranked memref.
Value unrankedBuffer(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  Value buffer = bufferization::ToBufferOp::create(
      b, loc, anyLayout(type.getShape(), type.getElementType()), tensor,
      /*read_only=*/true);
  return memref::CastOp::create(
      b, loc, UnrankedMemRefType::get(type.getElementType(), 0), buffer);
}

SmallVector<Value> dynamicMemRefSizes(OpBuilder &b, Location loc, Value mem) {
  SmallVector<Value> sizes;
  auto type = cast<MemRefType>(mem.getType());
  for (int64_t i = 0, e = type.getRank(); i < e; ++i)
    if (type.isDynamicDim(i))
      sizes.push_back(memref::DimOp::create(b, loc, mem, i));
  return sizes;
}

struct CondLowering : public OpConversionPattern<CondOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CondOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value pred = extractBool(rewriter, loc, adaptor.getPred());
    auto ifOp = scf::IfOp::create(rewriter, loc, op.getResultTypes(), pred,
                                  /*addThenBlock=*/false,
                                  /*addElseBlock=*/false);
    rewriter.inlineRegionBefore(op.getThenRegion(), ifOp.getThenRegion(),
                                ifOp.getThenRegion().end());
    rewriter.inlineRegionBefore(op.getElseRegion(), ifOp.getElseRegion(),
                                ifOp.getElseRegion().end());
    rewriter.replaceOp(op, ifOp.getResults());
    return success();
  }
};

struct WhileLowering : public OpConversionPattern<WhileOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WhileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto loop = scf::WhileOp::create(rewriter, op.getLoc(),
                                     op.getResultTypes(), adaptor.getInits());
    rewriter.inlineRegionBefore(op.getCondRegion(), loop.getBefore(),
                                loop.getBefore().end());
    rewriter.inlineRegionBefore(op.getBodyRegion(), loop.getAfter(),
                                loop.getAfter().end());
    rewriter.replaceOp(op, loop.getResults());
    return success();
  }
};

struct ConditionLowering : public OpConversionPattern<ConditionOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConditionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value pred = extractBool(rewriter, op.getLoc(), adaptor.getCondition());
    rewriter.replaceOpWithNewOp<scf::ConditionOp>(op, pred, adaptor.getArgs());
    return success();
  }
};

struct YieldLowering : public OpConversionPattern<YieldOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(YieldOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<scf::YieldOp>(op, adaptor.getValues());
    return success();
  }
};

struct VarReadLowering : public OpConversionPattern<VarReadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(VarReadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value mem = adaptor.getVariable();
    auto type = cast<MemRefType>(mem.getType());
    Value copy = memref::AllocOp::create(rewriter, loc, type,
                                         dynamicMemRefSizes(rewriter, loc, mem));
    memref::CopyOp::create(rewriter, loc, mem, copy);
    rewriter.replaceOpWithNewOp<bufferization::ToTensorOp>(
        op, op.getType(), copy, rewriter.getUnitAttr(),
        rewriter.getUnitAttr());
    return success();
  }
};

struct VarAssignLowering : public OpConversionPattern<VarAssignOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(VarAssignOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<bufferization::MaterializeInDestinationOp>(
        op, TypeRange{}, adaptor.getValue(), adaptor.getVariable(),
        /*restrict=*/true, /*writable=*/true);
    return success();
  }
};

/// var_assign_add / var_assign_sub: variable op= value, in place.
template <typename OpTy, bool isAdd>
struct VarUpdateLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value mem = adaptor.getVariable();
    auto type = cast<MemRefType>(mem.getType());
    auto valueType = cast<RankedTensorType>(adaptor.getValue().getType());
    Value value = bufferization::ToBufferOp::create(
        rewriter, loc, anyLayout(valueType.getShape(), type.getElementType()),
        adaptor.getValue(), /*read_only=*/true);
    int64_t rank = type.getRank();
    SmallVector<AffineMap> maps(
        2, AffineMap::getMultiDimIdentityMap(rank, rewriter.getContext()));
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    bool fp = isa<FloatType>(type.getElementType());
    linalg::GenericOp::create(
        rewriter, loc, ValueRange{value}, ValueRange{mem}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value v = args[0], acc = args[1], r;
          if (isAdd)
            r = fp ? (Value)arith::AddFOp::create(b, l, acc, v)
                   : (Value)arith::AddIOp::create(b, l, acc, v);
          else
            r = fp ? (Value)arith::SubFOp::create(b, l, acc, v)
                   : (Value)arith::SubIOp::create(b, l, acc, v);
          linalg::YieldOp::create(b, l, r);
        });
    rewriter.eraseOp(op);
    return success();
  }
};

struct PrintLowering : public OpConversionPattern<PrintOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PrintOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    StringRef format = op.getFormat();
    ValueRange tensors = adaptor.getInputs();
    bool placeholders = format.contains("{}");
    size_t next = 0;
    while (true) {
      size_t pos = placeholders ? format.find("{}") : StringRef::npos;
      printText(rewriter, loc, op, format.substr(0, pos));
      if (pos == StringRef::npos)
        break;
      printTensor(rewriter, loc, tensors[next++]);
      format = format.substr(pos + 2);
    }
    for (; next < tensors.size(); ++next) {
      if (!op.getFormat().empty() || next > 0)
        printText(rewriter, loc, op, " ");
      printTensor(rewriter, loc, tensors[next]);
    }
    func::CallOp::create(rewriter, loc, kPrintNewline, TypeRange{},
                         ValueRange{callContext(rewriter, loc)});
    rewriter.eraseOp(op);
    return success();
  }

  static void printTensor(OpBuilder &b, Location loc, Value tensor) {
    Type element = cast<RankedTensorType>(tensor.getType()).getElementType();
    func::CallOp::create(b, loc,
                         ("fncPrintTensor" + runtimeTypeSuffix(element)).str(),
                         TypeRange{},
                         ValueRange{callContext(b, loc),
                                    unrankedBuffer(b, loc, tensor)});
  }

  static void printText(ConversionPatternRewriter &rewriter, Location loc,
                        Operation *op, StringRef text) {
    if (!text.empty())
      callWithText(rewriter, loc, op, kPrintText, text);
  }
};

} // namespace

void lowering::callWithText(OpBuilder &b, Location loc, Operation *op,
                            StringRef callee, StringRef text) {
  auto module = op->getParentOfType<ModuleOp>();
  auto type = MemRefType::get({static_cast<int64_t>(text.size())},
                              b.getI8Type());
  std::string name;
  for (unsigned i = 0;; ++i) {
    name = "__fnc_text_" + std::to_string(i);
    if (!module.lookupSymbol(name))
      break;
  }
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    SmallVector<int8_t> bytes(text.begin(), text.end());
    auto init = DenseElementsAttr::get(
        RankedTensorType::get(type.getShape(), b.getI8Type()),
        ArrayRef<int8_t>(bytes));
    memref::GlobalOp::create(b, loc, b.getStringAttr(name),
                             b.getStringAttr("private"), TypeAttr::get(type),
                             init, b.getUnitAttr(), IntegerAttr());
  }
  Value global = memref::GetGlobalOp::create(b, loc, type, name);
  Value dynamic = memref::CastOp::create(
      b, loc, MemRefType::get({ShapedType::kDynamic}, b.getI8Type()), global);
  func::CallOp::create(b, loc, callee, TypeRange{},
                       ValueRange{callContext(b, loc), dynamic});
}

namespace {

/// check_numerics: any(isnan(x) || isinf(x)) as a reduction to one bool,
/// then, if set, one runtime call with the message.
struct CheckNumericsLowering : public OpConversionPattern<CheckNumericsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CheckNumericsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    int64_t rank = type.getRank();
    auto boolType = RankedTensorType::get({}, rewriter.getI1Type());
    Value empty = tensor::EmptyOp::create(rewriter, loc, boolType, ValueRange{});
    Value falseV = arith::ConstantIntOp::create(rewriter, loc,
                                                rewriter.getI1Type(), 0);
    Value init = linalg::FillOp::create(rewriter, loc, falseV, empty)
                     .getResult(0);
    SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx),
                                   AffineMap::get(rank, 0, {}, ctx)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::reduction);
    Type element = type.getElementType();
    Value any = linalg::GenericOp::create(
                    rewriter, loc, boolType, input, init, maps, iterators,
                    [&](OpBuilder &b, Location l, ValueRange args) {
                      Value x = args[0];
                      Value nan = arith::CmpFOp::create(
                          b, l, arith::CmpFPredicate::UNO, x, x);
                      Value inf = arith::CmpFOp::create(
                          b, l, arith::CmpFPredicate::OEQ,
                          math::AbsFOp::create(b, l, x),
                          scalarConstant(
                              b, l, element,
                              std::numeric_limits<double>::infinity()));
                      Value bad = arith::OrIOp::create(b, l, nan, inf);
                      linalg::YieldOp::create(
                          b, l, arith::OrIOp::create(b, l, bad, args[1])
                                    .getResult());
                    })
                    .getResult(0);
    Value failed = tensor::ExtractOp::create(rewriter, loc, any, ValueRange{});
    scf::IfOp::create(rewriter, loc, failed, [&](OpBuilder &b, Location l) {
      callWithText(b, l, op, kNumericsError, op.getMessage());
      scf::YieldOp::create(b, l);
    });
    rewriter.eraseOp(op);
    return success();
  }
};

/// The attribute giving each unseeded random op its own stream.
constexpr StringLiteral kRandomKeyAttr = "fnc.random_key";

template <typename OpTy, bool isUniform>
struct RandomLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    auto memType = MemRefType::get(type.getShape(), type.getElementType());
    Value mem = memref::AllocOp::create(rewriter, loc, memType,
                                        adaptor.getDynamicDims());
    Value unranked = memref::CastOp::create(
        rewriter, loc, UnrankedMemRefType::get(type.getElementType(), 0), mem);
    int64_t key = 0;
    if (auto seed = op.getSeed())
      key = static_cast<int64_t>(*seed);
    else if (auto attr = op->template getAttrOfType<IntegerAttr>(kRandomKeyAttr))
      key = attr.getInt();
    Value keyV = arith::ConstantIntOp::create(rewriter, loc,
                                              rewriter.getI64Type(), key);
    double a, b;
    if constexpr (isUniform) {
      a = op.getMin().convertToDouble();
      b = op.getMax().convertToDouble();
    } else {
      a = op.getMean().convertToDouble();
      b = op.getStddev().convertToDouble();
    }
    Value av = scalarConstant(rewriter, loc, rewriter.getF64Type(), a);
    Value bv = scalarConstant(rewriter, loc, rewriter.getF64Type(), b);
    std::string callee = (StringRef(isUniform ? "fncRandomUniform"
                                              : "fncRandomNormal") +
                          runtimeTypeSuffix(type.getElementType()))
                             .str();
    func::CallOp::create(rewriter, loc, callee, TypeRange{},
                         ValueRange{callContext(rewriter, loc), unranked, keyV,
                                    av, bv});
    rewriter.replaceOpWithNewOp<bufferization::ToTensorOp>(
        op, type, mem, rewriter.getUnitAttr(), rewriter.getUnitAttr());
    return success();
  }
};

} // namespace

void lowering::assignRandomKeys(ModuleOp module) {
  // Unseeded ops get keys above every 32-bit user seed, in program order,
  // so a module gives the same streams every time it is compiled.
  int64_t next = int64_t(1) << 32;
  module.walk([&](Operation *op) {
    bool seeded = op->hasAttr("seed");
    if (isa<RandomUniformOp, RandomNormalOp>(op) && !seeded)
      op->setAttr(kRandomKeyAttr,
                  IntegerAttr::get(IntegerType::get(op->getContext(), 64),
                                   next++));
  });
}

void lowering::populateStatefulPatterns(const TypeConverter &converter,
                                        RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<CondLowering, WhileLowering, ConditionLowering, YieldLowering,
               PrintLowering, CheckNumericsLowering, RandomLowering<RandomUniformOp, true>,
               RandomLowering<RandomNormalOp, false>>(ctx);
  patterns.add<VarReadLowering, VarAssignLowering,
               VarUpdateLowering<VarAssignAddOp, true>,
               VarUpdateLowering<VarAssignSubOp, false>>(converter, ctx);
}
