//===- FncToLinalg.cpp - The -fnc-lower-to-linalg pass --------------------===//
//
// The pass driver (a partial dialect conversion in which every fnc op is
// illegal; variables become memrefs), the runtime declarations, and the
// helpers the op-family files share, chief among them buildElementwise:
// numpy broadcasting as indexing maps of one linalg.generic.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "fnc/Conversion/Passes.h"
#include "fnc/Dialect/Fnc/IR/FncOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::fnc {
#define GEN_PASS_DEF_FNCLOWERTOLINALG
#include "fnc/Conversion/Passes.h.inc"
} // namespace mlir::fnc

using namespace mlir;
using namespace mlir::fnc;
using namespace mlir::fnc::lowering;

//===----------------------------------------------------------------------===//
// Runtime declarations
//===----------------------------------------------------------------------===//

StringRef lowering::runtimeTypeSuffix(Type type) {
  if (type.isF32())
    return "F32";
  if (type.isF64())
    return "F64";
  if (type.isSignlessInteger(1))
    return "I1";
  if (type.isSignlessInteger(32))
    return "I32";
  return "I64";
}

void lowering::declareRuntimeFunctions(ModuleOp module) {
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  MLIRContext *ctx = module.getContext();
  Location loc = module.getLoc();
  auto declare = [&](StringRef name, TypeRange args, bool cInterface) {
    if (module.lookupSymbol(name))
      return;
    auto func = func::FuncOp::create(b, loc, name,
                                     FunctionType::get(ctx, args, {}));
    func.setPrivate();
    if (cInterface)
      func->setAttr("llvm.emit_c_interface", UnitAttr::get(ctx));
  };
  Type i64 = b.getI64Type(), f64 = b.getF64Type();
  Type context = callContextType(ctx);
  declare(kRaiseError, {context, i64, i64, i64}, true);
  declare(kPrintNewline, {context}, true);
  Type text = MemRefType::get({ShapedType::kDynamic}, b.getI8Type());
  declare(kPrintText, {context, text}, true);
  declare(kNumericsError, {context, text}, true);
  declare(kCheckFailed, {context, text}, true);
  for (Type t : {Type(b.getF32Type()), Type(b.getF64Type()), Type(b.getI1Type()),
                 Type(b.getI32Type()), Type(b.getI64Type())}) {
    Type unranked = UnrankedMemRefType::get(t, 0);
    declare(("fncPrintTensor" + runtimeTypeSuffix(t)).str(),
            {context, unranked}, true);
    if (isa<FloatType>(t)) {
      declare(("fncRandomUniform" + runtimeTypeSuffix(t)).str(),
              {context, unranked, i64, f64, f64}, true);
      declare(("fncRandomNormal" + runtimeTypeSuffix(t)).str(),
              {context, unranked, i64, f64, f64}, true);
    }
  }
}

/// The placeholder of the context (see callContext).
static constexpr StringLiteral kCallContext = "fncCallContext";

MemRefType lowering::callContextType(MLIRContext *ctx) {
  return MemRefType::get({3}, IntegerType::get(ctx, 64));
}

Value lowering::callContext(OpBuilder &b, Location loc) {
  return func::CallOp::create(b, loc, kCallContext,
                              TypeRange{callContextType(b.getContext())},
                              ValueRange{})
      .getResult(0);
}

void lowering::resolveCallContexts(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  Type type = callContextType(ctx);
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isDeclaration() && func.getSymName() != kCallContext)
      (void)func.insertArgument(0, type, DictionaryAttr(), func.getLoc());
  SmallVector<func::CallOp> calls;
  module.walk([&](func::CallOp call) { calls.push_back(call); });
  for (func::CallOp call : calls) {
    Value context =
        call->getParentOfType<func::FuncOp>().getBody().getArgument(0);
    if (call.getCallee() == kCallContext) {
      call.getResult(0).replaceAllUsesWith(context);
      call.erase();
      continue;
    }
    // A call of another function of the module passes the caller's context
    // on; the runtime's functions got it from the lowering.
    auto callee = module.lookupSymbol<func::FuncOp>(call.getCalleeAttr());
    if (callee && !callee.isDeclaration())
      call->insertOperands(0, context);
  }
}

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

static Value toI64(OpBuilder &b, Location loc, Value v) {
  if (!v)
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(), 0);
  if (v.getType().isIndex())
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
  if (v.getType().getIntOrFloatBitWidth() < 64)
    return arith::ExtSIOp::create(b, loc, b.getI64Type(), v);
  return v;
}

void lowering::raiseError(OpBuilder &b, Location loc, ErrorCode code, Value a,
                          Value b2) {
  Value c = arith::ConstantIntOp::create(b, loc, b.getI64Type(),
                                         static_cast<int64_t>(code));
  func::CallOp::create(
      b, loc, kRaiseError, TypeRange{},
      ValueRange{callContext(b, loc), c, toI64(b, loc, a), toI64(b, loc, b2)});
}

void lowering::raiseErrorIf(OpBuilder &b, Location loc, Value condition,
                            ErrorCode code, Value a, Value b2) {
  scf::IfOp::create(b, loc, condition, [&](OpBuilder &nb, Location nl) {
    raiseError(nb, nl, code, a, b2);
    scf::YieldOp::create(nb, nl);
  });
}

void lowering::raiseErrorInLoop(OpBuilder &b, Location loc, Value condition,
                                ErrorCode code, Value a, Value b2) {
  scf::IfOp::create(b, loc, condition, [&](OpBuilder &nb, Location nl) {
    Value slot = callContext(nb, nl);
    Value values[] = {
        arith::ConstantIntOp::create(nb, nl, nb.getI64Type(),
                                     static_cast<int64_t>(code)),
        toI64(nb, nl, a), toI64(nb, nl, b2)};
    for (int i = 0; i < 3; ++i)
      memref::StoreOp::create(nb, nl, values[i], slot,
                              ValueRange{indexConstant(nb, nl, i)});
    scf::YieldOp::create(nb, nl);
  });
}

Value lowering::scalarConstant(OpBuilder &b, Location loc, Type type,
                               double value) {
  if (auto ft = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(ft, value));
  if (type.isSignlessInteger(1))
    return arith::ConstantIntOp::create(b, loc, type, value != 0);
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, static_cast<int64_t>(value)));
}

Value lowering::indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

SmallVector<OpFoldResult> lowering::tensorSizes(OpBuilder &b, Location loc,
                                                Value tensor) {
  return tensor::getMixedSizes(b, loc, tensor);
}

SmallVector<Value> lowering::dynamicSizes(OpBuilder &b, Location loc,
                                          RankedTensorType type,
                                          ArrayRef<OpFoldResult> sizes) {
  SmallVector<Value> dynamic;
  for (auto [i, size] : llvm::enumerate(sizes))
    if (type.isDynamicDim(i))
      dynamic.push_back(getValueOrCreateConstantIndexOp(b, loc, size));
  return dynamic;
}

Value lowering::emptyTensor(OpBuilder &b, Location loc, RankedTensorType type,
                            ArrayRef<OpFoldResult> sizes) {
  return tensor::EmptyOp::create(b, loc, type,
                                 dynamicSizes(b, loc, type, sizes));
}

Value lowering::filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                             ArrayRef<OpFoldResult> sizes, double value) {
  Value empty = emptyTensor(b, loc, type, sizes);
  Value scalar = scalarConstant(b, loc, type.getElementType(), value);
  return linalg::FillOp::create(b, loc, scalar, empty).getResult(0);
}

BroadcastSizes lowering::broadcastSizes(OpBuilder &b, Location loc,
                                        ArrayRef<int64_t> resultShape,
                                        ValueRange operands,
                                        ArrayRef<int64_t> ranks,
                                        bool allowStretch,
                                        bool unknownDimsAgree) {
  int64_t rank = resultShape.size();
  BroadcastSizes result;
  result.sizes.resize(rank);
  result.stretched.resize(operands.size());
  result.narrowed.resize(operands.size());
  for (int64_t i = 0; i < rank; ++i) {
    SmallVector<Value> dynamic;
    SmallVector<std::pair<size_t, int64_t>> where; // operand, dim
    for (auto [k, operand, r] : llvm::enumerate(operands, ranks)) {
      auto type = cast<RankedTensorType>(operand.getType());
      int64_t j = i - (rank - r);
      if (j < 0 || type.getDimSize(j) == 1 || !type.isDynamicDim(j))
        continue;
      dynamic.push_back(tensor::DimOp::create(b, loc, operand, j));
      where.push_back({k, j});
    }
    int64_t outDim = resultShape[i];
    if (!ShapedType::isDynamic(outDim)) {
      result.sizes[i] = b.getIndexAttr(outDim);
      for (auto [d, at] : llvm::zip(dynamic, where)) {
        if (allowStretch && outDim != 1) {
          StretchCheck check = checkStretchable(b, loc, d, outDim);
          result.stretch = orElse(b, loc, result.stretch, check.isOne);
          result.stretched[at.first].push_back({at.second, d});
          result.outOfBounds =
              orElse(b, loc, result.outOfBounds, check.mismatch);
          continue;
        }
        result.outOfBounds =
            orElse(b, loc, result.outOfBounds,
                   checkSize(b, loc, d, b.getIndexAttr(outDim),
                             ErrorCode::DimensionMismatch));
      }
      continue;
    }
    // The result dim is dynamic. A static operand dim (> 1) fixes it, and
    // the dynamic ones are checked against it.
    std::optional<int64_t> known;
    for (auto [operand, r] : llvm::zip(operands, ranks)) {
      auto type = cast<RankedTensorType>(operand.getType());
      int64_t j = i - (rank - r);
      if (j >= 0 && !type.isDynamicDim(j) && type.getDimSize(j) != 1)
        known = type.getDimSize(j);
    }
    if (known || dynamic.empty()) {
      int64_t size = known.value_or(1);
      result.sizes[i] = b.getIndexAttr(size);
      for (Value d : dynamic)
        result.outOfBounds =
            orElse(b, loc, result.outOfBounds,
                   checkSize(b, loc, d, b.getIndexAttr(size),
                             ErrorCode::DimensionMismatch));
      continue;
    }
    if (allowStretch && !unknownDimsAgree && dynamic.size() > 1) {
      // numpy's rule at run time: each dim is 1 or the common size (the
      // last dim other than 1, or 1 if all are). A dim of 1 against a
      // common size other than 1 is stretched; any other size is a
      // mismatch (raised, and the op guarded).
      Value one = indexConstant(b, loc, 1);
      auto eq = [&](Value x, Value y) {
        return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
      };
      auto ne = [&](Value x, Value y) {
        return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, y);
      };
      Value size = one;
      for (Value d : dynamic)
        size = arith::SelectOp::create(b, loc, eq(d, one), size, d);
      Value stretchesToSize = ne(size, one);
      for (auto [d, at] : llvm::zip(dynamic, where)) {
        Value mismatch =
            arith::AndIOp::create(b, loc, ne(d, one), ne(d, size));
        raiseErrorIf(b, loc, mismatch, ErrorCode::DimensionMismatch, d, size);
        result.outOfBounds = orElse(b, loc, result.outOfBounds, mismatch);
        result.stretch = orElse(
            b, loc, result.stretch,
            arith::AndIOp::create(b, loc, eq(d, one), stretchesToSize));
        result.stretched[at.first].push_back({at.second, d});
      }
      result.sizes[i] = size;
      continue;
    }
    // Every candidate is dynamic: they must agree. The size is the smallest,
    // and the operands to narrow to it are listed, so that a disagreement
    // reads and writes nothing out of bounds.
    Value size = dynamic.front();
    for (Value d : ArrayRef(dynamic).drop_front()) {
      result.disagree =
          orElse(b, loc, result.disagree,
                 checkSize(b, loc, dynamic.front(), d,
                           ErrorCode::DimensionMismatch));
      size = arith::MinUIOp::create(b, loc, size, d);
    }
    if (dynamic.size() > 1)
      for (auto [k, j] : where)
        result.narrowed[k].push_back(j);
    result.sizes[i] = size;
  }
  return result;
}

Value lowering::guardedBy(OpBuilder &b, Location loc, Value outOfBounds,
                          RankedTensorType type,
                          ArrayRef<OpFoldResult> sizes,
                          function_ref<Value(OpBuilder &, Location)> build) {
  if (!outOfBounds)
    return build(b, loc);
  auto guard = scf::IfOp::create(
      b, loc, outOfBounds,
      [&](OpBuilder &nb, Location nl) {
        scf::YieldOp::create(nb, nl, emptyTensor(nb, nl, type, sizes));
      },
      [&](OpBuilder &nb, Location nl) {
        scf::YieldOp::create(nb, nl, build(nb, nl));
      });
  return guard.getResult(0);
}

bool lowering::hasStaticZeroDim(Type type) {
  return llvm::is_contained(cast<RankedTensorType>(type).getShape(), 0);
}

Value lowering::orElse(OpBuilder &b, Location loc, Value acc, Value cond) {
  if (!acc || !cond)
    return acc ? acc : cond;
  return arith::OrIOp::create(b, loc, acc, cond);
}

Value lowering::checkSize(OpBuilder &b, Location loc, OpFoldResult size,
                          OpFoldResult expected, ErrorCode code) {
  auto s = getConstantIntValue(size), e = getConstantIntValue(expected);
  if (s && e)
    return nullptr;
  Value sv = getValueOrCreateConstantIndexOp(b, loc, size);
  Value ev = getValueOrCreateConstantIndexOp(b, loc, expected);
  Value ne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, sv, ev);
  raiseErrorIf(b, loc, ne, code, sv, ev);
  return ne;
}

StretchCheck lowering::checkStretchable(OpBuilder &b, Location loc, Value d,
                                        int64_t expected) {
  Value size = indexConstant(b, loc, expected);
  Value isOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, d,
                                      indexConstant(b, loc, 1));
  Value mismatch = arith::AndIOp::create(
      b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, d, size),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, d,
                            indexConstant(b, loc, 1)));
  raiseErrorIf(b, loc, mismatch, ErrorCode::DimensionMismatch, d, size);
  return {isOne, mismatch};
}

Value lowering::stretchOperand(
    OpBuilder &b, Location loc, Value operand, RankedTensorType resultType,
    ArrayRef<OpFoldResult> resultSizes,
    ArrayRef<std::pair<int64_t, Value>> dims) {
  auto type = cast<RankedTensorType>(operand.getType());
  int64_t r = type.getRank(), rank = resultType.getRank();
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<OpFoldResult> full = tensorSizes(b, loc, operand);
  for (auto [j, size] : dims) {
    shape[j] = resultType.getDimSize(j + rank - r);
    full[j] = resultSizes[j + rank - r];
  }
  auto fullType = RankedTensorType::get(shape, type.getElementType());
  Value init = emptyTensor(b, loc, fullType, full);
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(r, b.getContext())};
  SmallVector<utils::IteratorType> par(r, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, fullType, ValueRange{}, init, maps, par,
             [&](OpBuilder &bb, Location bl, ValueRange) {
               SmallVector<Value> index;
               for (int64_t j = 0; j < r; ++j)
                 index.push_back(linalg::IndexOp::create(bb, bl, j));
               for (auto [j, size] : dims) {
                 Value one = arith::CmpIOp::create(
                     bb, bl, arith::CmpIPredicate::eq, size,
                     indexConstant(bb, bl, 1));
                 index[j] = arith::SelectOp::create(
                     bb, bl, one, indexConstant(bb, bl, 0), index[j]);
               }
               linalg::YieldOp::create(
                   bb, bl,
                   tensor::ExtractOp::create(bb, bl, operand, index).getResult());
             })
      .getResult(0);
}

Value lowering::buildElementwise(OpBuilder &b, Location loc,
                                 RankedTensorType resultType,
                                 ValueRange operands, ScalarFn body,
                                 bool unknownDimsAgree) {
  int64_t rank = resultType.getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<int64_t> ranks;
  for (Value operand : operands)
    ranks.push_back(cast<RankedTensorType>(operand.getType()).getRank());
  BroadcastSizes bs = broadcastSizes(b, loc, resultType.getShape(), operands,
                                     ranks, /*allowStretch=*/true,
                                     unknownDimsAgree);
  SmallVector<OpFoldResult> sizes = bs.sizes;
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  // An empty result (a static zero dim) computes nothing; views of
  // operands with a zero dim would not even verify (offset 0 of an empty
  // dim is out of bounds upstream). The size checks stay.
  if (hasStaticZeroDim(resultType))
    return guardedBy(b, loc, bs.outOfBounds, resultType, sizes,
                     [&](OpBuilder &nb, Location nl) -> Value {
                       return emptyTensor(nb, nl, resultType, sizes);
                     });

  // Dynamic dims that must agree at run time: every operand is viewed at the
  // smallest size (the whole operand when they agree), since a linalg op
  // takes its loop bounds from its first operand. -fnc-fuse-elementwise
  // moves these slices up to the leaves, so they do not stop fusion.
  SmallVector<Value> narrowed(operands);
  for (auto [k, dims] : llvm::enumerate(bs.narrowed)) {
    if (dims.empty())
      continue;
    Value operand = operands[k];
    auto type = cast<RankedTensorType>(operand.getType());
    SmallVector<OpFoldResult> slice = tensorSizes(b, loc, operand);
    for (int64_t j : dims)
      slice[j] = sizes[j + rank - type.getRank()];
    SmallVector<OpFoldResult> zeros(type.getRank(), b.getIndexAttr(0));
    SmallVector<OpFoldResult> ones(type.getRank(), b.getIndexAttr(1));
    narrowed[k] =
        tensor::ExtractSliceOp::create(b, loc, type, operand, zeros, slice, ones);
  }
  operands = narrowed;

  // The generic on `inputs`, broadcast dims (static size 1) read through
  // constant indices.
  auto generic = [&](OpBuilder &nb, Location nl, ValueRange inputs) -> Value {
    SmallVector<AffineMap> maps;
    for (Value input : inputs) {
      auto type = cast<RankedTensorType>(input.getType());
      SmallVector<AffineExpr> exprs;
      for (int64_t j = 0, r = type.getRank(); j < r; ++j) {
        int64_t i = j + rank - r;
        bool broadcast =
            type.getDimSize(j) == 1 && resultType.getDimSize(i) != 1;
        exprs.push_back(broadcast ? getAffineConstantExpr(0, ctx)
                                  : getAffineDimExpr(i, ctx));
      }
      maps.push_back(AffineMap::get(rank, 0, exprs, ctx));
    }
    maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
    Value init = emptyTensor(nb, nl, resultType, sizes);
    return linalg::GenericOp::create(
               nb, nl, resultType, inputs, init, maps, iterators,
               [&](OpBuilder &bb, Location bl, ValueRange args) {
                 Value r = body(bb, bl, args.drop_back());
                 linalg::YieldOp::create(bb, bl, r);
               })
        .getResult(0);
  };

  // The slow path of a run-time broadcast: each operand with a dynamic dim
  // that may be 1 is first copied to its full size, reading index 0 where
  // that dim is 1.
  auto stretched = [&](OpBuilder &nb, Location nl) -> Value {
    SmallVector<Value> inputs;
    for (auto [operand, dims] : llvm::zip(operands, bs.stretched))
      inputs.push_back(dims.empty() ? operand
                                    : stretchOperand(nb, nl, operand,
                                                     resultType, sizes, dims));
    return generic(nb, nl, inputs);
  };

  return guardedBy(
      b, loc, bs.outOfBounds, resultType, sizes,
      [&](OpBuilder &nb, Location nl) -> Value {
        if (!bs.stretch)
          return generic(nb, nl, operands);
        return scf::IfOp::create(
                   nb, nl, bs.stretch,
                   [&](OpBuilder &tb, Location tl) {
                     scf::YieldOp::create(tb, tl, stretched(tb, tl));
                   },
                   [&](OpBuilder &eb, Location el) {
                     scf::YieldOp::create(eb, el,
                                          generic(eb, el, operands));
                   })
            .getResult(0);
      });
}

/// "FILE:LINE:COL: OP: REASON" out of the message of a check that upstream's
/// -generate-runtime-verification emits ("ERROR: Runtime op verification
/// failed\nOP-TEXT\n^ REASON\nLocation: loc(...)"); other messages as
/// they are.
static std::string checkMessage(StringRef message) {
  SmallVector<StringRef> lines;
  message.split(lines, '\n');
  StringRef op, reason, where;
  for (StringRef line : lines) {
    if (line.consume_front("^ "))
      reason = line;
    else if (line.consume_front("Location: loc(") && line.consume_back(")"))
      where = line;
    else if (op.empty() && !line.starts_with("ERROR:"))
      op = line;
  }
  if (reason.empty())
    return message.str();
  // "%0 = linalg.generic {...} ins(...)" -> "linalg.generic".
  if (size_t eq = op.find(" = "); eq != StringRef::npos)
    op = op.drop_front(eq + 3);
  op = op.take_until([](char c) { return c == ' ' || c == '('; });
  std::string location;
  for (char c : where)
    if (c != '"')
      location += c;
  return (location.empty() ? "" : location + ": ") +
         (op.empty() ? std::string() : op.str() + ": ") + reason.str();
}

/// Every cf.assert (the checks of -generate-runtime-verification, or
/// written by hand) becomes a call that reports the message as an error of
/// the call and abandons it, where the LLVM lowering would abort.
static void lowerAsserts(ModuleOp module) {
  SmallVector<cf::AssertOp> asserts;
  module.walk([&](cf::AssertOp op) { asserts.push_back(op); });
  for (cf::AssertOp op : asserts) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value failed = arith::XOrIOp::create(
        b, loc, op.getArg(),
        arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
    std::string message = checkMessage(op.getMsg());
    scf::IfOp::create(b, loc, failed, [&](OpBuilder &nb, Location nl) {
      callWithText(nb, nl, op, kCheckFailed, message);
      scf::YieldOp::create(nb, nl);
    });
    op.erase();
  }
}

/// Splat constants above this many elements are filled at run time rather
/// than stored in the compiled code.
static constexpr int64_t kMaxSplatGlobal = 1 << 16;

/// Replaces large splat tensor constants by a fill of an empty tensor: as a
/// constant, a splat becomes a global that LLVM materializes element by
/// element at compile time (a 2^40-element splat would take terabytes).
static void materializeLargeSplats(ModuleOp module) {
  SmallVector<arith::ConstantOp> splats;
  module.walk([&](arith::ConstantOp op) {
    auto attr = dyn_cast<SplatElementsAttr>(op.getValue());
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (attr && type && type.hasStaticShape() &&
        type.getNumElements() > kMaxSplatGlobal)
      splats.push_back(op);
  });
  for (arith::ConstantOp op : splats) {
    OpBuilder b(op);
    auto type = cast<RankedTensorType>(op.getType());
    auto attr = cast<SplatElementsAttr>(op.getValue());
    Value scalar = arith::ConstantOp::create(
        b, op.getLoc(), cast<TypedAttr>(attr.getSplatValue<Attribute>()));
    Value empty = tensor::EmptyOp::create(b, op.getLoc(), type, ValueRange{});
    Value fill =
        linalg::FillOp::create(b, op.getLoc(), scalar, empty).getResult(0);
    op.replaceAllUsesWith(fill);
    op.erase();
  }
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

const char *mlir::fnc::reservedFunctionName(StringRef name) {
  static const char *const kLibm[] = {
      "acos",  "acosh", "asin", "asinh", "atan",  "atan2", "atanh",
      "cbrt",  "ceil",  "cos",  "cosh",  "erf",   "erfc",  "exp",
      "exp2",  "expm1", "floor", "fma",  "log",   "log10", "log1p",
      "log2",  "pow",   "rint", "round", "roundeven", "sin", "sinh",
      "sqrt",  "tan",   "tanh", "trunc"};
  StringRef base = name.ends_with("f") ? name.drop_back() : name;
  for (const char *libm : kLibm)
    if (name == libm || base == libm)
      return "the C math library function of that name";
  if (name.size() > 3 && name.starts_with("fnc") && llvm::isUpper(name[3]))
    return "the fnc runtime's functions (fnc + a capital letter)";
  return nullptr;
}

namespace {

struct FncLowerToLinalgPass
    : public mlir::fnc::impl::FncLowerToLinalgBase<FncLowerToLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();

    bool reserved = false;
    for (auto func : module.getOps<func::FuncOp>()) {
      const char *why = reservedFunctionName(func.getSymName());
      if (why && !func.isDeclaration()) {
        func.emitError("function name '")
            << func.getSymName() << "' is reserved: the compiled code calls "
            << why << "; rename the function";
        reserved = true;
      } else if (why && func.getSymName().starts_with("fnc")) {
        // The runtime's functions take the call's context, which only the
        // lowering can pass: fnc programs use fnc ops instead.
        func.emitError("'")
            << func.getSymName()
            << "' is a function of the fnc runtime, which only compiled fnc "
               "ops may call; use the fnc op that does the same (fnc.print, "
               "fnc.random_uniform, ...)";
        reserved = true;
      }
    }
    if (reserved)
      return signalPassFailure();

    // Module variables are the runner's business (it reads them before the
    // pipeline); the compiled code only sees the buffers passed to it.
    for (auto global :
         llvm::make_early_inc_range(module.getOps<GlobalVariableOp>()))
      global.erase();
    for (auto func : module.getOps<func::FuncOp>()) {
      for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
        func.removeArgAttr(i, FncDialect::kBindAttrName);
        // Tensor arguments are the caller's data: never written.
        if (!func.isDeclaration() &&
            isa<TensorType>(func.getArgument(i).getType()))
          func.setArgAttr(i, "bufferization.writable",
                          BoolAttr::get(ctx, false));
      }
    }

    declareRuntimeFunctions(module);
    assignRandomKeys(module);

    TypeConverter converter;
    converter.addConversion([](Type type) { return type; });
    converter.addConversion([](VariableType type) -> Type {
      RankedTensorType value = type.getValueType();
      return MemRefType::get(value.getShape(), value.getElementType());
    });

    ConversionTarget target(*ctx);
    target.addIllegalDialect<FncDialect>();
    target.addLegalDialect<arith::ArithDialect,
                           bufferization::BufferizationDialect,
                           linalg::LinalgDialect, math::MathDialect,
                           memref::MemRefDialect, scf::SCFDialect,
                           tensor::TensorDialect>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp func) {
      return converter.isSignatureLegal(func.getFunctionType()) &&
             converter.isLegal(&func.getBody());
    });
    target.addDynamicallyLegalOp<func::ReturnOp, func::CallOp>(
        [&](Operation *op) { return converter.isLegal(op); });

    RewritePatternSet patterns(ctx);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateCallOpTypeConversionPattern(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    populateElementwisePatterns(patterns);
    populateStructuredPatterns(patterns, fastMath);
    populatePoolingPatterns(patterns);
    populateShapePatterns(patterns);
    populateStridedSlicePatterns(patterns);
    populateStatefulPatterns(converter, patterns);
    if (failed(applyPartialConversion(module, target, std::move(patterns)))) {
      signalPassFailure();
      return;
    }
    lowerAsserts(module);
    resolveCallContexts(module);
    materializeLargeSplats(module);

    // Drop the runtime declarations nothing uses.
    for (Operation &op : llvm::make_early_inc_range(*module.getBody())) {
      auto symbol = dyn_cast<SymbolOpInterface>(&op);
      auto func = dyn_cast<func::FuncOp>(op);
      if (symbol && func && func.isDeclaration() && symbol.getName().starts_with("fnc") &&
          SymbolTable::symbolKnownUseEmpty(&op, module))
        op.erase();
    }
  }
};
} // namespace
