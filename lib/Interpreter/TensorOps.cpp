//===- TensorOps.cpp - The tensor ops of fnc on the eager kernels ---------===//
//
// The ops of the op table (FncOpTable.inc) by their kind, the others by one
// function per op family of FncOps.td (creation, linear algebra, shape,
// indexing, along an axis): decode the attributes and result type into plain
// C++, run the shape rule and reference kernel through KernelCalls.h, store
// the result. Where the dialect and the eager API differ in a detail, the
// dialect's description wins and the difference is handled here (e.g.
// fnc.fill converts its value instead of requiring it to be representable;
// fnc.squeeze with no axes removes the dims of static size 1 only).
//
//===----------------------------------------------------------------------===//

#include "InterpreterImpl.h"

#include "fnc/Dialect/Fnc/IR/FncOps.h"
#include "fnc/Dialect/Fnc/IR/SliceSpec.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fnc;
using ::fnc::ref::BinaryOp;
using ::fnc::ref::ReduceOp;
using ::fnc::ref::UnaryOp;
using llvm::Error;
using llvm::Expected;

namespace {

// The kind of an op of the op table (FncOpTable.inc), if it is one.

std::optional<BinaryOp> binaryKind(Operation *op) {
  if (auto compare = dyn_cast<CompareOp>(op)) {
    switch (compare.getPredicate()) {
#define FNC_COMPARE_OP(KIND, PREDICATE, ...)                                   \
  case ComparePredicate::PREDICATE:                                            \
    return BinaryOp::KIND;
#include "fnc/Dialect/Fnc/IR/FncOpTable.inc"
    }
    return std::nullopt;
  }
  return llvm::TypeSwitch<Operation *, std::optional<BinaryOp>>(op)
#define FNC_BINARY_OP(KIND, CLASS, ...)                                        \
  .Case([](CLASS) { return BinaryOp::KIND; })
#include "fnc/Dialect/Fnc/IR/FncOpTable.inc"
      .Default([](Operation *) { return std::nullopt; });
}

std::optional<UnaryOp> unaryKind(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<UnaryOp>>(op)
#define FNC_UNARY_OP(KIND, CLASS, ...)                                         \
  .Case([](CLASS) { return UnaryOp::KIND; })
#include "fnc/Dialect/Fnc/IR/FncOpTable.inc"
      .Default([](Operation *) { return std::nullopt; });
}

std::optional<ReduceOp> reduceKind(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<ReduceOp>>(op)
#define FNC_REDUCE_OP(KIND, CLASS, ...)                                        \
  .Case([](CLASS) { return ReduceOp::KIND; })
#include "fnc/Dialect/Fnc/IR/FncOpTable.inc"
      .Default([](Operation *) { return std::nullopt; });
}

std::vector<int64_t> toVector(llvm::ArrayRef<int64_t> values) {
  return std::vector<int64_t>(values.begin(), values.end());
}

DType resultDType(Operation *op) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  return *dtypeOf(type.getElementType());
}

RankedTensorType resultType(Operation *op) {
  return cast<RankedTensorType>(op->getResult(0).getType());
}

} // namespace

Error Interpreter::Impl::runTensorOp(Operation *op, Frame &frame,
                                     bool &handled) {
  handled = false;
  if (!isa_and_nonnull<FncDialect>(op->getDialect()) ||
      op->getNumResults() != 1 ||
      !isa<RankedTensorType>(op->getResult(0).getType()))
    return Error::success();
  // Everything below is a one-result tensor op of fnc; the control-flow and
  // effect ops (cond, while, var_read, random) fall through to the driver.
  if (isa<CondOp, WhileOp, VarReadOp, RandomUniformOp, RandomNormalOp>(op))
    return Error::success();
  handled = true;

  // The tensor operands, in order (index operands are read by the cases).
  std::vector<TensorValue> in;
  for (Value operand : op->getOperands()) {
    if (!isa<RankedTensorType>(operand.getType()))
      continue;
    Expected<TensorValue> t = tensor(op, operand, frame);
    if (!t)
      return t.takeError();
    in.push_back(*t);
  }

  Expected<TensorValue> result = evalTensorOp(op, in, frame);
  if (!result)
    return result.takeError();
  frame[op->getResult(0)] = RtValue::ofTensor(std::move(*result));
  return Error::success();
}

Expected<TensorValue> Interpreter::Impl::evalTensorOp(
    Operation *op, const std::vector<TensorValue> &in, Frame &frame) {
  if (std::optional<BinaryOp> kind = binaryKind(op))
    return check(op, interp::binary(*kind, in[0], in[1]));
  if (std::optional<UnaryOp> kind = unaryKind(op))
    return check(op, interp::unary(*kind, in[0]));
  if (std::optional<ReduceOp> kind = reduceKind(op)) {
    auto axes =
        toVector(op->getAttrOfType<DenseI64ArrayAttr>("axes").asArrayRef());
    bool keepDims = op->hasAttr("keepdims");
    return check(op, interp::reduce(*kind, in[0], axes, keepDims));
  }
  return llvm::TypeSwitch<Operation *, Expected<TensorValue>>(op)
      .Case<ConstantOp, FillOp, RangeOp, EyeOp, CastOp, SelectOp>(
          [&](auto) { return evalCreationOp(op, in, frame); })
      .Case<MatmulOp, Conv2DOp, MaxPool2DOp, AvgPool2DOp, MaxPool2DGradOp,
            AvgPool2DGradOp>([&](auto) { return evalLinalgOp(op, in); })
      .Case<TransposeOp, ReshapeOp, BroadcastToOp, ShapeOfOp,
            BroadcastToShapeOp, SumToShapeOp, ReshapeToShapeOp, ExpandDimsOp,
            SqueezeOp>([&](auto) { return evalShapeOp(op, in, frame); })
      .Case<SetRowOp, SliceOp, DynamicSliceOp, DynamicUpdateSliceOp,
            StridedSliceOp, StridedSliceGradOp, PadOp, ConcatOp, GatherOp,
            OneHotOp>([&](auto) { return evalIndexingOp(op, in); })
      .Case<ArgmaxOp, SoftmaxOp, LogSoftmaxOp>(
          [&](auto) { return evalAxisOp(op, in); })
      .Case<StringJoinOp, StringFormatOp, StringLengthOp, StringUpperOp,
            StringLowerOp, StringSplitOp>(
          [&](auto) { return evalStringOp(op, in); })
      .Default([&](Operation *) -> Expected<TensorValue> {
        return opError(op, "op not supported by the interpreter");
      });
}

Expected<TensorValue> Interpreter::Impl::evalCreationOp(
    Operation *op, const std::vector<TensorValue> &in, Frame &frame) {
  return llvm::TypeSwitch<Operation *, Expected<TensorValue>>(op)
      .Case([&](ConstantOp c) -> Expected<TensorValue> {
        Expected<TensorValue> t = tensorFromAttr(c.getValue());
        if (!t)
          return opError(op, llvm::toString(t.takeError()));
        return t;
      })
      .Case([&](FillOp fill) -> Expected<TensorValue> {
        Expected<::fnc::Shape> shape =
            shapeOf(op, fill.getType(), fill.getDynamicDims(), frame);
        if (!shape)
          return shape.takeError();
        return check(op, interp::fill(resultDType(op), *shape,
                                      fill.getValue().convertToDouble()));
      })
      .Case([&](RangeOp range) {
        return check(op, interp::range(resultDType(op),
                                       range.getStart().convertToDouble(),
                                       range.getDelta().convertToDouble(),
                                       resultType(op).getDimSize(0)));
      })
      .Case([&](EyeOp) {
        RankedTensorType type = resultType(op);
        return check(op, interp::eye(resultDType(op), type.getDimSize(0),
                                     type.getDimSize(1)));
      })
      .Case([&](CastOp) {
        return check(op, interp::cast(in[0], resultDType(op)));
      })
      .Case([&](SelectOp) {
        return check(op, interp::select(in[0], in[1], in[2]));
      })
      .Default([](Operation *) -> Expected<TensorValue> {
        llvm_unreachable("not a creation op");
      });
}

Expected<TensorValue>
Interpreter::Impl::evalLinalgOp(Operation *op,
                                const std::vector<TensorValue> &in) {
  if (isa<MatmulOp>(op))
    return check(op, interp::matmul(in[0], in[1]));
  if (isa<MaxPool2DOp, AvgPool2DOp, MaxPool2DGradOp, AvgPool2DGradOp>(op)) {
    auto attr = [&](StringRef name) {
      return toVector(op->getAttrOfType<DenseI64ArrayAttr>(name).asArrayRef());
    };
    bool max = isa<MaxPool2DOp, MaxPool2DGradOp>(op);
    bool same =
        op->getAttrOfType<PaddingAttr>("padding").getValue() == Padding::same;
    if (isa<MaxPool2DOp, AvgPool2DOp>(op))
      return check(
          op, interp::pool2d(max, in[0], attr("ksize"), attr("strides"), same));
    return check(op, interp::pool2dGrad(max, in[0], in[1], attr("ksize"),
                                        attr("strides"), same));
  }
  auto conv = cast<Conv2DOp>(op);
  return check(op, interp::conv2d(in[0], in[1], toVector(conv.getStrides()),
                                  conv.getPadding() == Padding::same));
}

Expected<TensorValue> Interpreter::Impl::evalShapeOp(
    Operation *op, const std::vector<TensorValue> &in, Frame &frame) {
  return llvm::TypeSwitch<Operation *, Expected<TensorValue>>(op)
      .Case([&](TransposeOp t) {
        return check(op, interp::transpose(in[0], toVector(t.getPerm())));
      })
      .Case([&](ReshapeOp) {
        ::fnc::Shape target;
        for (int64_t d : resultType(op).getShape())
          target.push_back(ShapedType::isDynamic(d) ? -1 : d);
        return check(op, interp::reshape(in[0], target));
      })
      .Case([&](BroadcastToOp b) -> Expected<TensorValue> {
        Expected<::fnc::Shape> shape =
            shapeOf(op, resultType(op), b.getDynamicDims(), frame);
        if (!shape)
          return shape.takeError();
        return check(op, interp::broadcastTo(in[0], *shape));
      })
      .Case([&](ShapeOfOp) { return evalShapeOf(op, in[0]); })
      .Case([&](BroadcastToShapeOp) {
        return evalBroadcastToShape(op, in[0], in[1]);
      })
      .Case([&](SumToShapeOp) { return evalSumToShape(op, in[0], in[1]); })
      .Case([&](ReshapeToShapeOp) -> Expected<TensorValue> {
        Expected<::fnc::Shape> shape = readShapeOperand(op, in[1]);
        if (!shape)
          return shape.takeError();
        return check(op, interp::reshape(in[0], *shape));
      })
      .Case([&](ExpandDimsOp e) {
        return check(
            op, interp::expandDims(in[0], static_cast<int64_t>(e.getAxis())));
      })
      .Case([&](SqueezeOp s) -> Expected<TensorValue> {
        std::vector<int64_t> axes = toVector(s.getAxes());
        if (axes.empty()) {
          // Only the dims of static size 1 in the operand's type.
          auto type = cast<RankedTensorType>(s.getInput().getType());
          for (int64_t i = 0; i < type.getRank(); ++i)
            if (type.getDimSize(i) == 1)
              axes.push_back(i);
          if (axes.empty())
            return in[0];
        }
        return check(op, interp::squeeze(in[0], axes));
      })
      .Default([](Operation *) -> Expected<TensorValue> {
        llvm_unreachable("not a shape op");
      });
}

Expected<TensorValue> Interpreter::Impl::evalShapeOf(Operation *op,
                                                     const TensorValue &input) {
  const ::fnc::Shape &dims = input.shape();
  DType dtype = resultDType(op);
  std::vector<int32_t> narrow(dims.begin(), dims.end());
  const void *data = dtype == DType::i32
                         ? static_cast<const void *>(narrow.data())
                         : static_cast<const void *>(dims.data());
  return check(
      op, interp::makeTensor(dtype, {static_cast<int64_t>(dims.size())}, data));
}

Expected<::fnc::Shape>
Interpreter::Impl::readShapeOperand(Operation *op,
                                    const TensorValue &shapeOperand) {
  RankedTensorType type = resultType(op);
  ::fnc::Shape shape;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    int64_t size;
    std::string error;
    if (!interp::readInt(shapeOperand, i, size, error))
      return opError(op, "the shape operand: " + error);
    if (size < 0)
      return opError(op, "a shape holds the negative size " +
                             llvm::Twine(size) + " (at index " +
                             llvm::Twine(i) + "); sizes must be >= 0");
    if (!type.isDynamicDim(i) && type.getDimSize(i) != size)
      return opError(op, "dynamic dimension mismatch: " + llvm::Twine(size) +
                             " vs " + llvm::Twine(type.getDimSize(i)));
    shape.push_back(size);
  }
  if (Error err = checkSize(op, shape))
    return std::move(err);
  return shape;
}

Expected<TensorValue>
Interpreter::Impl::evalBroadcastToShape(Operation *op, const TensorValue &input,
                                        const TensorValue &shapeOperand) {
  Expected<::fnc::Shape> shape = readShapeOperand(op, shapeOperand);
  if (!shape)
    return shape.takeError();
  return check(op, interp::broadcastTo(input, *shape));
}

Expected<TensorValue>
Interpreter::Impl::evalSumToShape(Operation *op, const TensorValue &input,
                                  const TensorValue &shapeOperand) {
  RankedTensorType type = resultType(op);
  const ::fnc::Shape &in = input.shape();
  int64_t rank = type.getRank();
  int64_t lead = static_cast<int64_t>(in.size()) - rank;
  ::fnc::Shape shape;
  std::vector<int64_t> axes;
  for (int64_t i = 0; i < lead; ++i)
    axes.push_back(i);
  for (int64_t i = 0; i < rank; ++i) {
    int64_t size;
    std::string error;
    if (!interp::readInt(shapeOperand, i, size, error))
      return opError(op, "the shape operand: " + error);
    int64_t d = in[lead + i];
    if ((size != 1 && size != d) ||
        (!type.isDynamicDim(i) && type.getDimSize(i) != size))
      return opError(op, "dynamic dimension mismatch: " + llvm::Twine(size) +
                             " vs " + llvm::Twine(d));
    if (size == 1 && d != 1)
      axes.push_back(lead + i);
    shape.push_back(size);
  }
  if (axes.empty())
    return input;
  Expected<TensorValue> sum =
      check(op, interp::reduce(ReduceOp::Sum, input, axes, false));
  if (!sum)
    return sum.takeError();
  return check(op, interp::reshape(*sum, shape));
}

Expected<TensorValue>
Interpreter::Impl::evalIndexingOp(Operation *op,
                                  const std::vector<TensorValue> &in) {
  return llvm::TypeSwitch<Operation *, Expected<TensorValue>>(op)
      .Case([&](SetRowOp) { return evalSetRow(op, in[0], in[1], in[2]); })
      .Case([&](DynamicSliceOp s) -> Expected<TensorValue> {
        int64_t start, size, axis = s.getAxis();
        int64_t dim = in[0].shape()[axis];
        std::string error;
        if (!interp::readInt(in[1], 0, start, error) ||
            !interp::readInt(in[2], 0, size, error))
          return opError(op, "the bounds: " + error);
        if (start < 0 || size < 0 || start > dim - size)
          return opError(op, "the range [" + llvm::Twine(start) + ", " +
                                 llvm::Twine(start) + " + " +
                                 llvm::Twine(size) +
                                 ") is outside a dimension of size " +
                                 llvm::Twine(dim));
        std::vector<int64_t> offsets(in[0].shape().size(), 0),
            sizes = in[0].shape(), strides(in[0].shape().size(), 1);
        offsets[axis] = start;
        sizes[axis] = size;
        return check(op, interp::slice(in[0], offsets, sizes, strides));
      })
      .Case([&](DynamicUpdateSliceOp u) -> Expected<TensorValue> {
        int64_t start, axis = u.getAxis();
        const ::fnc::Shape &shape = in[0].shape(), &update = in[2].shape();
        int64_t dim = shape[axis], size = update[axis];
        std::string error;
        if (!interp::readInt(in[1], 0, start, error))
          return opError(op, "the start: " + error);
        if (start < 0 || start > dim - size)
          return opError(op, "the range [" + llvm::Twine(start) + ", " +
                                 llvm::Twine(start) + " + " +
                                 llvm::Twine(size) +
                                 ") is outside a dimension of size " +
                                 llvm::Twine(dim));
        for (size_t d = 0; d < shape.size(); ++d)
          if (static_cast<int64_t>(d) != axis && shape[d] != update[d])
            return opError(op, "the update's dim " + llvm::Twine(d) + " is " +
                                   llvm::Twine(update[d]) + ", the input's " +
                                   llvm::Twine(shape[d]));
        // input[:start] ++ update ++ input[start + size:] along the axis
        auto part = [&](int64_t from, int64_t count) {
          std::vector<int64_t> offsets(shape.size(), 0), sizes = shape,
                                                         strides(shape.size(), 1);
          offsets[axis] = from;
          sizes[axis] = count;
          return interp::slice(in[0], offsets, sizes, strides);
        };
        interp::KernelResult before = part(0, start),
                             after = part(start + size, dim - start - size);
        for (const interp::KernelResult *r : {&before, &after})
          if (!r->ok)
            return check(op, *r);
        return check(op, interp::concat({before.value, in[2], after.value},
                                        axis));
      })
      .Case([&](SliceOp s) {
        return check(op, interp::slice(in[0], toVector(s.getOffsets()),
                                       toVector(s.getSizes()),
                                       toVector(s.getStrides())));
      })
      .Case([&](StridedSliceOp s) {
        return check(op, interp::stridedSlice(in[0], sliceSpecOf(s)));
      })
      .Case([&](StridedSliceGradOp s) {
        return check(op,
                     interp::stridedSliceGrad(in[0], in[1], sliceSpecOf(s)));
      })
      .Case([&](PadOp p) {
        return check(op, interp::pad(in[0], toVector(p.getLow()),
                                     toVector(p.getHigh()),
                                     toVector(p.getInterior()),
                                     p.getValue().convertToDouble()));
      })
      .Case([&](ConcatOp c) {
        return check(op, interp::concat(in, static_cast<int64_t>(c.getAxis())));
      })
      .Case([&](GatherOp g) {
        return check(op, interp::gather(in[0], in[1],
                                        static_cast<int64_t>(g.getAxis())));
      })
      .Case([&](OneHotOp h) {
        return check(
            op, interp::oneHot(in[0], static_cast<int64_t>(h.getDepth()),
                               static_cast<int64_t>(h.getAxis()),
                               h.getOn().convertToDouble(),
                               h.getOff().convertToDouble(), resultDType(op)));
      })
      .Default([](Operation *) -> Expected<TensorValue> {
        llvm_unreachable("not an indexing op");
      });
}

Expected<TensorValue>
Interpreter::Impl::evalSetRow(Operation *op, const TensorValue &input,
                              const TensorValue &indexOperand,
                              const TensorValue &value) {
  int64_t index, rows = input.shape()[0];
  std::string error;
  if (!interp::readInt(indexOperand, 0, index, error))
    return opError(op, "the index: " + error);
  if (index < 0 || index >= rows)
    return opError(op, "row index " + llvm::Twine(index) +
                           " is out of range [0, " + llvm::Twine(rows) + ")");
  ::fnc::Shape row(input.shape().begin() + 1, input.shape().end());
  if (value.shape() != row)
    return opError(op, "the value's shape does not match a row");
  // input[:index] ++ [value] ++ input[index + 1:]
  auto part = [&](int64_t from, int64_t count) {
    std::vector<int64_t> offsets(input.shape().size(), 0),
        sizes = input.shape(), strides(input.shape().size(), 1);
    offsets[0] = from;
    sizes[0] = count;
    return interp::slice(input, offsets, sizes, strides);
  };
  interp::KernelResult before = part(0, index),
                       after = part(index + 1, rows - index - 1),
                       middle = interp::expandDims(value, 0);
  for (const interp::KernelResult *r : {&before, &after, &middle})
    if (!r->ok)
      return check(op, *r);
  return check(op,
               interp::concat({before.value, middle.value, after.value}, 0));
}

Expected<TensorValue>
Interpreter::Impl::evalAxisOp(Operation *op,
                              const std::vector<TensorValue> &in) {
  return llvm::TypeSwitch<Operation *, Expected<TensorValue>>(op)
      .Case([&](ArgmaxOp a) {
        return check(op,
                     interp::argmax(in[0], static_cast<int64_t>(a.getAxis()),
                                    resultDType(op)));
      })
      .Case([&](SoftmaxOp s) {
        return check(op,
                     interp::softmax(in[0], static_cast<int64_t>(s.getAxis()),
                                     /*log=*/false));
      })
      .Case([&](LogSoftmaxOp s) {
        return check(op,
                     interp::softmax(in[0], static_cast<int64_t>(s.getAxis()),
                                     /*log=*/true));
      })
      .Default([](Operation *) -> Expected<TensorValue> {
        llvm_unreachable("not an axis op");
      });
}

Expected<TensorValue>
Interpreter::Impl::evalStringOp(Operation *op,
                                const std::vector<TensorValue> &in) {
  return llvm::TypeSwitch<Operation *, Expected<TensorValue>>(op)
      .Case([&](StringJoinOp j) {
        return check(op, interp::stringJoin(in, j.getSeparator().str()));
      })
      .Case([&](StringFormatOp f) {
        return check(op, interp::stringFormat(f.getFormat().str(),
                                              f.getPlaceholder().str(), in));
      })
      .Case([&](StringLengthOp l) {
        return check(op, interp::stringLength(in[0], l.getUtf8Chars()));
      })
      .Case([&](StringUpperOp) {
        return check(op, interp::stringCase(in[0], /*upper=*/true));
      })
      .Case([&](StringLowerOp) {
        return check(op, interp::stringCase(in[0], /*upper=*/false));
      })
      .Case([&](StringSplitOp s) {
        return check(op, interp::stringSplit(in[0], s.getSeparator().str(),
                                             int64_t(s.getMaxsplit())));
      })
      .Default([&](Operation *) -> Expected<TensorValue> {
        return opError(op, "not a string op");
      });
}
