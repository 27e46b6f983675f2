//===- UpstreamOps.cpp - The upstream ops of traced functions -------------===//
//
// arith.constant, the integer/index arithmetic of arith, tensor.dim and
// tensor.cast: what a traced function uses to compute dynamic sizes.
// Integers are kept as int64 and wrapped to the width of their type.
//
//===----------------------------------------------------------------------===//

#include "InterpreterImpl.h"

#include "fnc/API/TensorImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::fnc;
using llvm::Error;
using llvm::Expected;

//===----------------------------------------------------------------------===//
// Upstream integer and index ops
//===----------------------------------------------------------------------===//

/// `value` wrapped to the width of the integer (or index) type `type`.
static int64_t wrapTo(Type type, int64_t value) {
  unsigned width =
      isa<IndexType>(type) ? 64 : cast<IntegerType>(type).getWidth();
  if (width >= 64)
    return value;
  return llvm::SignExtend64(static_cast<uint64_t>(value), width);
}

Error Interpreter::Impl::runUpstreamOp(Operation *op, Frame &frame,
                                       bool &handled) {
  handled = true;
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    if (auto attr = dyn_cast<IntegerAttr>(constant.getValue())) {
      if (attr.getType().isIntOrIndex()) {
        frame[constant.getResult()] = RtValue::ofInteger(
            wrapTo(attr.getType(), attr.getValue().getSExtValue()));
        return Error::success();
      }
    }
    if (auto attr = dyn_cast<ElementsAttr>(constant.getValue())) {
      Expected<TensorValue> t = tensorFromAttr(attr);
      if (!t)
        return opError(op, llvm::toString(t.takeError()));
      frame[constant.getResult()] = RtValue::ofTensor(*t);
      return Error::success();
    }
    return opError(op, "only integer, index and dense tensor constants are "
                       "supported by the interpreter");
  }

  if (auto dim = dyn_cast<tensor::DimOp>(op)) {
    Expected<TensorValue> source = tensor(op, dim.getSource(), frame);
    if (!source)
      return source.takeError();
    Expected<int64_t> index = integer(op, dim.getIndex(), frame);
    if (!index)
      return index.takeError();
    if (*index < 0 || *index >= source->rank())
      return opError(op, "dimension " + llvm::Twine(*index) +
                             " is out of range for " + describe(*source));
    frame[dim.getResult()] = RtValue::ofInteger(source->shape()[*index]);
    return Error::success();
  }

  if (auto extract = dyn_cast<tensor::ExtractOp>(op);
      extract && extract.getType().isIntOrIndex()) {
    Expected<TensorValue> source = tensor(op, extract.getTensor(), frame);
    if (!source)
      return source.takeError();
    int64_t flat = 0;
    for (auto [k, index] : llvm::enumerate(extract.getIndices())) {
      Expected<int64_t> i = integer(op, index, frame);
      if (!i)
        return i.takeError();
      int64_t size = source->shape()[k];
      if (*i < 0 || *i >= size)
        return opError(op, "index " + llvm::Twine(*i) + " is out of range for " +
                               describe(*source));
      flat = flat * size + *i;
    }
    const ::fnc::ref::Array &a = ::fnc::detail::TensorAccess::array(*source);
    int64_t v = 0;
    switch (a.dtype) {
    case ::fnc::DType::i1:
      v = a.data<bool>()[flat];
      break;
    case ::fnc::DType::i32:
      v = a.data<int32_t>()[flat];
      break;
    case ::fnc::DType::i64:
      v = a.data<int64_t>()[flat];
      break;
    default:
      return opError(op, "extracts an integer from " + describe(*source));
    }
    frame[extract.getResult()] =
        RtValue::ofInteger(wrapTo(extract.getType(), v));
    return Error::success();
  }

  if (auto castOp = dyn_cast<tensor::CastOp>(op)) {
    Expected<TensorValue> source = tensor(op, castOp.getSource(), frame);
    if (!source)
      return source.takeError();
    frame[castOp.getResult()] = RtValue::ofTensor(*source);
    return Error::success();
  }

  if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(op) &&
      op->getResult(0).getType().isIntOrIndex()) {
    Expected<int64_t> in = integer(op, op->getOperand(0), frame);
    if (!in)
      return in.takeError();
    int64_t v = *in;
    if (isa<arith::IndexCastUIOp>(op)) {
      // Zero-extend from the source width.
      Type from = op->getOperand(0).getType();
      unsigned width =
          isa<IndexType>(from) ? 64 : cast<IntegerType>(from).getWidth();
      if (width < 64)
        v = static_cast<int64_t>(static_cast<uint64_t>(v) &
                                 ((uint64_t(1) << width) - 1));
    }
    frame[op->getResult(0)] =
        RtValue::ofInteger(wrapTo(op->getResult(0).getType(), v));
    return Error::success();
  }

  bool isIntBinary =
      isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::DivSIOp,
          arith::DivUIOp, arith::RemSIOp, arith::RemUIOp, arith::CeilDivSIOp,
          arith::FloorDivSIOp, arith::MaxSIOp, arith::MinSIOp, arith::MaxUIOp,
          arith::MinUIOp>(op);
  if (!isIntBinary || op->getNumOperands() != 2 ||
      !op->getResult(0).getType().isIntOrIndex()) {
    handled = false;
    return Error::success();
  }
  Type type = op->getResult(0).getType();
  Expected<int64_t> lhsOr = integer(op, op->getOperand(0), frame);
  if (!lhsOr)
    return lhsOr.takeError();
  Expected<int64_t> rhsOr = integer(op, op->getOperand(1), frame);
  if (!rhsOr)
    return rhsOr.takeError();
  unsigned width =
      isa<IndexType>(type) ? 64 : cast<IntegerType>(type).getWidth();
  APInt lhs(width, static_cast<uint64_t>(*lhsOr), /*isSigned=*/true,
            /*implicitTrunc=*/true);
  APInt rhs(width, static_cast<uint64_t>(*rhsOr), /*isSigned=*/true,
            /*implicitTrunc=*/true);
  bool divides =
      isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp,
          arith::CeilDivSIOp, arith::FloorDivSIOp>(op);
  if (divides && rhs.isZero())
    return opError(op, "integer division by zero");
  if (divides && !isa<arith::DivUIOp, arith::RemUIOp>(op) &&
      lhs.isMinSignedValue() && rhs.isAllOnes())
    return opError(op, "integer division overflow");
  APInt result =
      llvm::TypeSwitch<Operation *, APInt>(op)
          .Case([&](arith::AddIOp) { return lhs + rhs; })
          .Case([&](arith::SubIOp) { return lhs - rhs; })
          .Case([&](arith::MulIOp) { return lhs * rhs; })
          .Case([&](arith::DivSIOp) { return lhs.sdiv(rhs); })
          .Case([&](arith::DivUIOp) { return lhs.udiv(rhs); })
          .Case([&](arith::RemSIOp) { return lhs.srem(rhs); })
          .Case([&](arith::RemUIOp) { return lhs.urem(rhs); })
          .Case([&](arith::CeilDivSIOp) {
            return llvm::APIntOps::RoundingSDiv(lhs, rhs, APInt::Rounding::UP);
          })
          .Case([&](arith::FloorDivSIOp) {
            return llvm::APIntOps::RoundingSDiv(lhs, rhs,
                                                APInt::Rounding::DOWN);
          })
          .Case([&](arith::MaxSIOp) { return llvm::APIntOps::smax(lhs, rhs); })
          .Case([&](arith::MinSIOp) { return llvm::APIntOps::smin(lhs, rhs); })
          .Case([&](arith::MaxUIOp) { return llvm::APIntOps::umax(lhs, rhs); })
          .Case([&](arith::MinUIOp) { return llvm::APIntOps::umin(lhs, rhs); })
          .Default([&](Operation *) { return lhs; });
  frame[op->getResult(0)] = RtValue::ofInteger(result.getSExtValue());
  return Error::success();
}
