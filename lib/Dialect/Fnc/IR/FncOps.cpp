//===- FncOps.cpp - Result-type inference and verifiers of fnc ops --------===//
//
// Every shape rule comes from fnc/Shape/ShapeRules.h, the same code the
// eager API and the tracer call; this file turns MLIR types into shapes and
// the rules' messages into diagnostics. Folders live in FncFolds.cpp.
//
//===----------------------------------------------------------------------===//

#include "fnc/Dialect/Fnc/IR/FncOps.h"
#include "fnc/Dialect/Fnc/IR/SliceSpec.h"
#include "fnc/Shape/ShapeRules.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::fnc;
namespace rules = ::fnc::shapes;

static_assert(ShapedType::kDynamic == ::fnc::shapes::kDynamic,
              "fnc shape rules and MLIR must agree on the dynamic marker");

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static rules::Shape toShape(ArrayRef<int64_t> dims) {
  return rules::Shape(dims.begin(), dims.end());
}

static std::vector<int64_t> toVector(ArrayRef<int64_t> values) {
  return std::vector<int64_t>(values.begin(), values.end());
}

/// The ranked tensor type of `value`, or a diagnostic naming the operand.
static FailureOr<RankedTensorType> rankedType(std::optional<Location> loc,
                                              StringRef opName, Value value,
                                              StringRef what) {
  if (auto type = dyn_cast<RankedTensorType>(value.getType()))
    return type;
  (void)emitOptionalError(loc, "'", opName, "' op ", what,
                          " must be a ranked tensor, got ", value.getType());
  return failure();
}

/// Pushes `elementType` with the rule's shape, or reports the rule's error.
static LogicalResult fromRule(std::optional<Location> loc, StringRef opName,
                              const rules::ShapeResult &rule, Type elementType,
                              SmallVectorImpl<Type> &inferred) {
  if (!rule.ok())
    return emitOptionalError(loc, "'", opName, "' op ", rule.error);
  inferred.push_back(RankedTensorType::get(rule.shape, elementType));
  return success();
}

/// Emits the rule's error on `op` (for verifiers).
static LogicalResult checkRule(Operation *op,
                               const rules::ShapeResult &rule) {
  if (!rule.ok())
    return op->emitOpError(rule.error);
  return success();
}

/// Checks that each dynamic dimension of `type` has one index operand.
static LogicalResult verifyDynamicDims(Operation *op, RankedTensorType type,
                                       ValueRange dims) {
  if (dims.size() != static_cast<size_t>(type.getNumDynamicDims()))
    return op->emitOpError("result ")
           << type << " has " << type.getNumDynamicDims()
           << " dynamic dimension(s) but " << dims.size()
           << " size operand(s) were given; pass one index per '?'";
  return success();
}

/// The numpy broadcast of the operands' shapes, with `elementType`.
static LogicalResult inferBroadcast(std::optional<Location> loc,
                                    StringRef opName, ValueRange operands,
                                    Type elementType,
                                    SmallVectorImpl<Type> &inferred) {
  std::vector<rules::Shape> shapes;
  for (Value v : operands) {
    auto type = rankedType(loc, opName, v, "every operand");
    if (failed(type))
      return failure();
    shapes.push_back(toShape(type->getShape()));
  }
  return fromRule(loc, opName, rules::broadcast(shapes), elementType,
                  inferred);
}

/// A number as a user wrote it: "2", "0.5", "1e+30".
static std::string num(double value) {
  char buffer[32];
  snprintf(buffer, sizeof(buffer), "%g", value);
  return buffer;
}

//===----------------------------------------------------------------------===//
// Creation ops
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &inferred) {
  auto value = adaptor.getValueAttr();
  if (!value)
    return emitOptionalError(loc, "'fnc.constant' op needs a value");
  inferred.push_back(value.getType());
  return success();
}

LogicalResult FillOp::verify() {
  return verifyDynamicDims(*this, getType(), getDynamicDims());
}

LogicalResult RangeOp::verify() {
  rules::ShapeResult rule = rules::range(
      getStart().convertToDouble(), getLimit().convertToDouble(),
      getDelta().convertToDouble());
  if (failed(checkRule(*this, rule)))
    return failure();
  int64_t size = getType().getDimSize(0);
  if (size != rule.shape[0])
    return emitOpError("range(")
           << num(getStart().convertToDouble()) << ", "
           << num(getLimit().convertToDouble()) << ", "
           << num(getDelta().convertToDouble()) << ") has " << rule.shape[0]
           << " elements but the result type is " << getType();
  return success();
}

LogicalResult EyeOp::verify() {
  if (!getType().hasStaticShape())
    return emitOpError("result ") << getType() << " must have a static shape";
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

#define FNC_BINARY_OP(KIND, CLASS, ...)                                        \
  LogicalResult CLASS::inferReturnTypes(MLIRContext *,                         \
                                        std::optional<Location> loc,           \
                                        Adaptor adaptor,                       \
                                        SmallVectorImpl<Type> &inferred) {     \
    return inferBroadcast(loc, getOperationName(), adaptor.getOperands(),      \
                          getElementTypeOrSelf(adaptor.getLhs().getType()),    \
                          inferred);                                           \
  }
#include "fnc/Dialect/Fnc/IR/FncOpTable.inc"

LogicalResult CompareOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  return inferBroadcast(loc, getOperationName(), adaptor.getOperands(),
                        IntegerType::get(context, 1), inferred);
}

LogicalResult CompareOp::verify() {
  bool ordering = getPredicate() != ComparePredicate::eq &&
                  getPredicate() != ComparePredicate::ne;
  Type element = getLhs().getType().getElementType();
  if (ordering && element.isSignlessInteger(1))
    return emitOpError("bools are only compared with eq and ne, not ")
           << stringifyComparePredicate(getPredicate())
           << "; cast them to an integer type first";
  if (ordering && isa<StringType>(element))
    return emitOpError("strings are only compared with eq and ne, not ")
           << stringifyComparePredicate(getPredicate());
  return success();
}

LogicalResult SelectOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  return inferBroadcast(loc, getOperationName(), adaptor.getOperands(),
                        getElementTypeOrSelf(adaptor.getLhs().getType()),
                        inferred);
}

LogicalResult SelectOp::verify() {
  if (getLhs().getType().getElementType() !=
      getRhs().getType().getElementType())
    return emitOpError("the two choices differ in element type: ")
           << getLhs().getType() << " vs " << getRhs().getType()
           << "; cast one of them first";
  return success();
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto lhs = rankedType(loc, getOperationName(), adaptor.getLhs(), "lhs");
  auto rhs = rankedType(loc, getOperationName(), adaptor.getRhs(), "rhs");
  if (failed(lhs) || failed(rhs))
    return failure();
  return fromRule(loc, getOperationName(),
                  rules::matmul(toShape(lhs->getShape()),
                                toShape(rhs->getShape())),
                  lhs->getElementType(), inferred);
}

LogicalResult Conv2DOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  auto input = rankedType(loc, name, adaptor.getInput(), "input");
  auto filter = rankedType(loc, name, adaptor.getFilter(), "filter");
  if (failed(input) || failed(filter))
    return failure();
  ArrayRef<int64_t> strides = adaptor.getStrides();
  if (strides.size() != 2)
    return emitOptionalError(loc, "'", name,
                             "' op needs 2 strides (height, width), got ",
                             strides.size());
  auto padding = adaptor.getPadding() == Padding::same ? rules::Padding::Same
                                                       : rules::Padding::Valid;
  return fromRule(loc, name,
                  rules::conv2d(toShape(input->getShape()),
                                toShape(filter->getShape()), strides[0],
                                strides[1], padding),
                  input->getElementType(), inferred);
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// The shape rule of a pooling op (`gradOutput` null) or of its gradient.
template <typename Adaptor>
static LogicalResult inferPool2D(std::optional<Location> loc, StringRef name,
                                 Adaptor adaptor, Value gradOutput,
                                 SmallVectorImpl<Type> &inferred) {
  auto input = rankedType(loc, name, adaptor.getInput(), "input");
  if (failed(input))
    return failure();
  std::string op = name.split('.').second.str(); // "max_pool2d"
  auto padding = adaptor.getPadding() == Padding::same ? rules::Padding::Same
                                                       : rules::Padding::Valid;
  std::vector<int64_t> ksize = toVector(adaptor.getKsize()),
                       strides = toVector(adaptor.getStrides());
  if (!gradOutput)
    return fromRule(
        loc, name,
        rules::pool2d(op, toShape(input->getShape()), ksize, strides, padding),
        input->getElementType(), inferred);
  auto grad = rankedType(loc, name, gradOutput, "grad_output");
  if (failed(grad))
    return failure();
  return fromRule(loc, name,
                  rules::pool2dGrad(op, toShape(input->getShape()),
                                    toShape(grad->getShape()), ksize, strides,
                                    padding),
                  input->getElementType(), inferred);
}

#define FNC_POOL_INFER(CLASS, GRAD)                                            \
  LogicalResult CLASS::inferReturnTypes(                                       \
      MLIRContext *, std::optional<Location> loc, Adaptor adaptor,             \
      SmallVectorImpl<Type> &inferred) {                                       \
    return inferPool2D(loc, getOperationName(), adaptor, GRAD, inferred);      \
  }
FNC_POOL_INFER(MaxPool2DOp, Value())
FNC_POOL_INFER(AvgPool2DOp, Value())
FNC_POOL_INFER(MaxPool2DGradOp, adaptor.getGradOutput())
FNC_POOL_INFER(AvgPool2DGradOp, adaptor.getGradOutput())
#undef FNC_POOL_INFER

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

/// Inference of the single-tensor-input shape ops: the rule applied to the
/// input's shape, keeping its element type.
template <typename Rule>
static LogicalResult inferFromInput(std::optional<Location> loc,
                                    StringRef opName, Value input, Rule rule,
                                    SmallVectorImpl<Type> &inferred) {
  auto type = rankedType(loc, opName, input, "input");
  if (failed(type))
    return failure();
  return fromRule(loc, opName, rule(toShape(type->getShape())),
                  type->getElementType(), inferred);
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto perm = toVector(adaptor.getPerm());
  return inferFromInput(
      loc, getOperationName(), adaptor.getInput(),
      [&](const rules::Shape &in) { return rules::transpose(in, perm); },
      inferred);
}

LogicalResult ReshapeOp::verify() {
  auto in = getInput().getType(), out = getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("cannot change the element type (")
           << in.getElementType() << " to " << out.getElementType()
           << "); use fnc.cast";
  if (out.getNumDynamicDims() > 1)
    return emitOpError("result ")
           << out << " has more than one dynamic dimension; at most one can "
           << "be inferred from the element count";
  rules::ShapeResult rule =
      rules::reshape(toShape(in.getShape()), toShape(out.getShape()));
  if (failed(checkRule(*this, rule)))
    return failure();
  // A dynamic result dim that the rule could compute must be static.
  if (out.getNumDynamicDims() == 1 && in.hasStaticShape())
    return emitOpError("the dynamic dimension of ")
           << out << " is known from the static input " << in
           << "; use the static result type "
           << RankedTensorType::get(rule.shape, out.getElementType());
  return success();
}

/// The checks shared by broadcast_to and broadcast_to_shape: the same
/// element type, and numpy's broadcasting rule from `in` to `out`.
static LogicalResult verifyBroadcast(Operation *op, RankedTensorType in,
                                     RankedTensorType out) {
  if (in.getElementType() != out.getElementType())
    return op->emitOpError("cannot change the element type (")
           << in.getElementType() << " to " << out.getElementType()
           << "); use fnc.cast";
  return checkRule(op, rules::broadcastTo(toShape(in.getShape()),
                                          toShape(out.getShape())));
}

LogicalResult BroadcastToOp::verify() {
  if (failed(verifyDynamicDims(*this, getType(), getDynamicDims())))
    return failure();
  return verifyBroadcast(*this, getInput().getType(), getType());
}

LogicalResult ShapeOfOp::verify() {
  int64_t rank = getInput().getType().getRank();
  if (getType().getDimSize(0) != rank)
    return emitOpError("result ")
           << getType() << " must have one element per dimension of the "
           << "input (" << rank << ")";
  return success();
}

LogicalResult BroadcastToShapeOp::verify() {
  if (getShape().getType().getDimSize(0) != getType().getRank())
    return emitOpError("the shape operand ")
           << getShape().getType() << " must have one element per dimension "
           << "of the result " << getType();
  return verifyBroadcast(*this, getInput().getType(), getType());
}

LogicalResult ReshapeToShapeOp::verify() {
  RankedTensorType in = getInput().getType(), out = getType();
  if (getShape().getType().getDimSize(0) != out.getRank())
    return emitOpError("the shape operand ")
           << getShape().getType() << " must have one element per dimension "
           << "of the result " << out;
  if (in.getElementType() != out.getElementType())
    return emitOpError("the result ")
           << out << " must have the input's element type (" << in << ")";
  if (in.hasStaticShape() && out.hasStaticShape() &&
      in.getNumElements() != out.getNumElements())
    return emitOpError("the result ")
           << out << " does not hold the input's " << in.getNumElements()
           << " elements";
  return success();
}

LogicalResult SumToShapeOp::verify() {
  if (getShape().getType().getDimSize(0) != getType().getRank())
    return emitOpError("the shape operand ")
           << getShape().getType() << " must have one element per dimension "
           << "of the result " << getType();
  RankedTensorType in = getInput().getType(), out = getType();
  if (in.getElementType() != out.getElementType())
    return verifyBroadcast(*this, in, out); // names the element types
  // The input is a broadcast of the result.
  return verifyBroadcast(*this, out, in);
}

LogicalResult ExpandDimsOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &inferred) {
  int64_t axis = adaptor.getAxis();
  return inferFromInput(
      loc, getOperationName(), adaptor.getInput(),
      [&](const rules::Shape &in) { return rules::expandDims(in, axis); },
      inferred);
}

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  auto axes = toVector(adaptor.getAxes());
  return inferFromInput(
      loc, getOperationName(), adaptor.getInput(),
      [&](const rules::Shape &in) { return rules::squeeze(in, axes); },
      inferred);
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  auto offsets = toVector(adaptor.getOffsets());
  auto sizes = toVector(adaptor.getSizes());
  auto strides = toVector(adaptor.getStrides());
  return inferFromInput(
      loc, getOperationName(), adaptor.getInput(),
      [&](const rules::Shape &in) {
        return rules::slice(in, offsets, sizes, strides);
      },
      inferred);
}

LogicalResult
StridedSliceOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                 Adaptor adaptor,
                                 SmallVectorImpl<Type> &inferred) {
  rules::SliceSpec spec = sliceSpecOf(adaptor);
  return inferFromInput(
      loc, getOperationName(), adaptor.getInput(),
      [&](const rules::Shape &in) { return rules::stridedSlice(in, spec); },
      inferred);
}

LogicalResult
StridedSliceGradOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                     Adaptor adaptor,
                                     SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  auto grad = rankedType(loc, name, adaptor.getGrad(), "grad");
  if (failed(grad))
    return failure();
  rules::SliceSpec spec = sliceSpecOf(adaptor);
  return inferFromInput(
      loc, name, adaptor.getInput(),
      [&](const rules::Shape &in) {
        return rules::stridedSliceGrad(in, toShape(grad->getShape()), spec);
      },
      inferred);
}

/// Whether `bound` is the omitted begin (`isBegin`) or end of a range with
/// `stride`: the sentinel that clamps to the side it stands for.
static bool isOmittedBound(int64_t bound, int64_t stride, bool isBegin) {
  bool low = (stride > 0) == isBegin;
  return bound == (low ? rules::kSliceMin : rules::kSliceMax);
}

/// The spec of fnc.strided_slice as numpy writes it: `[1:3, ::-1, -1, :]`,
/// one entry per dimension, an integer for an index.
static ParseResult parseSliceSpec(OpAsmParser &parser, DenseI64ArrayAttr &begin,
                                  DenseI64ArrayAttr &end,
                                  DenseI64ArrayAttr &strides,
                                  DenseBoolArrayAttr &shrink) {
  SmallVector<int64_t> b, e, s;
  SmallVector<bool> k;
  auto parseEntry = [&]() -> ParseResult {
    int64_t first = 0, last = 0, stride = 1;
    OptionalParseResult hasFirst = parser.parseOptionalInteger(first);
    if (hasFirst.has_value() && failed(*hasFirst))
      return failure();
    if (failed(parser.parseOptionalColon())) {
      if (!hasFirst.has_value())
        return parser.emitError(parser.getCurrentLocation(),
                                "expected an index or a range "
                                "`begin:end:stride` (each part optional)");
      b.push_back(first);
      e.push_back(0);
      s.push_back(1);
      k.push_back(true);
      return success();
    }
    OptionalParseResult hasLast = parser.parseOptionalInteger(last);
    if (hasLast.has_value() && failed(*hasLast))
      return failure();
    if (succeeded(parser.parseOptionalColon())) {
      OptionalParseResult hasStride = parser.parseOptionalInteger(stride);
      if (hasStride.has_value() && failed(*hasStride))
        return failure();
    }
    bool forward = stride > 0;
    b.push_back(hasFirst.has_value()
                    ? first
                    : (forward ? rules::kSliceMin : rules::kSliceMax));
    e.push_back(hasLast.has_value()
                    ? last
                    : (forward ? rules::kSliceMax : rules::kSliceMin));
    s.push_back(stride);
    k.push_back(false);
    return success();
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square,
                                     parseEntry))
    return failure();
  MLIRContext *ctx = parser.getContext();
  begin = DenseI64ArrayAttr::get(ctx, b);
  end = DenseI64ArrayAttr::get(ctx, e);
  strides = DenseI64ArrayAttr::get(ctx, s);
  shrink = DenseBoolArrayAttr::get(ctx, k);
  return success();
}

static void printSliceSpec(OpAsmPrinter &printer, Operation *,
                           DenseI64ArrayAttr begin, DenseI64ArrayAttr end,
                           DenseI64ArrayAttr strides,
                           DenseBoolArrayAttr shrink) {
  ArrayRef<int64_t> b = begin.asArrayRef(), e = end.asArrayRef(),
                    s = strides.asArrayRef();
  ArrayRef<bool> k = shrink.asArrayRef();
  printer << "[";
  // The generic form may hold arrays of different lengths (the verifier
  // reports them); print what every one of them has.
  size_t n = std::min({b.size(), e.size(), s.size(), k.size()});
  for (size_t i = 0; i < n; ++i) {
    if (i)
      printer << ", ";
    if (k[i]) {
      printer << b[i];
      continue;
    }
    if (!isOmittedBound(b[i], s[i], /*isBegin=*/true))
      printer << b[i];
    printer << ":";
    if (!isOmittedBound(e[i], s[i], /*isBegin=*/false))
      printer << e[i];
    if (s[i] != 1)
      printer << ":" << s[i];
  }
  printer << "]";
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &inferred) {
  auto low = toVector(adaptor.getLow());
  auto high = toVector(adaptor.getHigh());
  auto interior = toVector(adaptor.getInterior());
  return inferFromInput(
      loc, getOperationName(), adaptor.getInput(),
      [&](const rules::Shape &in) {
        return rules::pad(in, low, high, interior);
      },
      inferred);
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  if (adaptor.getInputs().empty())
    return emitOptionalError(loc, "'", name, "' op needs at least one operand");
  std::vector<rules::Shape> shapes;
  for (Value v : adaptor.getInputs()) {
    auto type = rankedType(loc, name, v, "every operand");
    if (failed(type))
      return failure();
    shapes.push_back(toShape(type->getShape()));
  }
  return fromRule(loc, name, rules::concat(shapes, adaptor.getAxis()),
                  getElementTypeOrSelf(adaptor.getInputs()[0].getType()),
                  inferred);
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  auto params = rankedType(loc, name, adaptor.getParams(), "params");
  auto indices = rankedType(loc, name, adaptor.getIndices(), "indices");
  if (failed(params) || failed(indices))
    return failure();
  return fromRule(loc, name,
                  rules::gather(toShape(params->getShape()),
                                toShape(indices->getShape()),
                                adaptor.getAxis()),
                  params->getElementType(), inferred);
}

LogicalResult SetRowOp::verify() {
  auto in = getInput().getType(), value = getValue().getType();
  if (in.getRank() == 0)
    return emitOpError("the input must have rank >= 1 (rows along dim 0)");
  if (value.getElementType() != in.getElementType())
    return emitOpError("the value's element type ")
           << value.getElementType() << " differs from the input's "
           << in.getElementType();
  ArrayRef<int64_t> row = in.getShape().drop_front();
  bool fits = value.getRank() == static_cast<int64_t>(row.size());
  for (size_t i = 0; fits && i < row.size(); ++i)
    fits = ShapedType::isDynamic(row[i]) || value.isDynamicDim(i) ||
           row[i] == value.getDimSize(i);
  if (!fits)
    return emitOpError("the value ")
           << value << " is not a row of " << in
           << " (its shape without dim 0)";
  return success();
}

LogicalResult DynamicSliceOp::verify() {
  auto in = getInput().getType(), out = getType();
  int64_t rank = in.getRank(), axis = getAxis();
  if (rank == 0)
    return emitOpError("the input must have rank >= 1");
  if (axis < 0 || axis >= rank)
    return emitOpError("axis ") << axis << " is out of range for rank " << rank;
  if (out.getElementType() != in.getElementType() || out.getRank() != rank)
    return emitOpError("the result ")
           << out << " must have the input's element type and rank (" << in
           << ")";
  if (!out.isDynamicDim(axis))
    return emitOpError("the result's dim ")
           << axis << " (the axis) must be unknown (?): the size is read at "
           << "run time";
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis && in.getDimSize(d) != out.getDimSize(d))
      return emitOpError("the result ")
             << out << " differs from the input " << in
             << " in a dim other than the axis";
  return success();
}

LogicalResult DynamicUpdateSliceOp::verify() {
  auto in = getInput().getType(), update = getUpdate().getType();
  int64_t rank = in.getRank(), axis = getAxis();
  if (rank == 0)
    return emitOpError("the input must have rank >= 1");
  if (axis < 0 || axis >= rank)
    return emitOpError("axis ") << axis << " is out of range for rank " << rank;
  if (update.getElementType() != in.getElementType() ||
      update.getRank() != rank)
    return emitOpError("the update ")
           << update << " must have the input's element type and rank ("
           << in << ")";
  for (int64_t d = 0; d < rank; ++d) {
    int64_t a = in.getDimSize(d), b = update.getDimSize(d);
    if (ShapedType::isDynamic(a) || ShapedType::isDynamic(b))
      continue;
    if (d == axis ? b > a : a != b)
      return emitOpError("the update ")
             << update << " does not fit the input " << in
             << (d == axis ? " along the axis" : " in a dim other than the axis");
  }
  return success();
}

LogicalResult OneHotOp::verify() {
  rules::ShapeResult rule =
      rules::oneHot(toShape(getIndices().getType().getShape()), getDepth(),
                    getAxis());
  if (failed(checkRule(*this, rule)))
    return failure();
  auto expected = RankedTensorType::get(rule.shape, getType().getElementType());
  if (expected != getType())
    return emitOpError("result type ")
           << getType() << " does not match the one-hot shape " << expected;
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

#define FNC_INFER_REDUCE(OP)                                                   \
  LogicalResult OP::inferReturnTypes(MLIRContext *,                            \
                                     std::optional<Location> loc,              \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &inferred) {        \
    auto axes = toVector(adaptor.getAxes());                                   \
    bool keepDims = adaptor.getKeepdims();                                     \
    return inferFromInput(                                                     \
        loc, getOperationName(), adaptor.getInput(),                           \
        [&](const rules::Shape &in) {                                          \
          return rules::reduce(in, axes, keepDims);                            \
        },                                                                     \
        inferred);                                                             \
  }
FNC_INFER_REDUCE(SumOp)
FNC_INFER_REDUCE(MeanOp)
FNC_INFER_REDUCE(MaxOp)
FNC_INFER_REDUCE(MinOp)
FNC_INFER_REDUCE(ProdOp)
#undef FNC_INFER_REDUCE

LogicalResult ArgmaxOp::verify() {
  rules::ShapeResult rule =
      rules::reduceAxis(toShape(getInput().getType().getShape()), getAxis());
  if (failed(checkRule(*this, rule)))
    return failure();
  auto expected = RankedTensorType::get(rule.shape, getType().getElementType());
  if (expected != getType())
    return emitOpError("result type ")
           << getType() << " does not match the reduced shape " << expected;
  return success();
}

static LogicalResult verifyAxis(Operation *op, int64_t axis,
                                RankedTensorType type) {
  int64_t normalized;
  if (!rules::normalizeAxis(axis, type.getRank(), normalized))
    return op->emitOpError("axis ")
           << axis << " is out of range for " << type << " (valid: "
           << -type.getRank() << " to " << type.getRank() - 1 << ")";
  return success();
}

LogicalResult SoftmaxOp::verify() {
  return verifyAxis(*this, getAxis(), getType());
}

LogicalResult LogSoftmaxOp::verify() {
  return verifyAxis(*this, getAxis(), getType());
}

//===----------------------------------------------------------------------===//
// Variables
//===----------------------------------------------------------------------===//

LogicalResult VarReadOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  auto type = dyn_cast<VariableType>(adaptor.getVariable().getType());
  if (!type)
    return emitOptionalError(loc, "'fnc.var_read' op operand must be a "
                                  "!fnc.variable, got ",
                             adaptor.getVariable().getType());
  inferred.push_back(type.getValueType());
  return success();
}

LogicalResult GlobalVariableOp::verify() {
  auto type = dyn_cast<RankedTensorType>(getInitialValue().getType());
  if (!type || !type.hasStaticShape())
    return emitOpError("initial value must be a statically shaped tensor, got ")
           << getInitialValue().getType();
  return VariableType::verify([&] { return emitOpError(); }, type);
}

/// var_assign_add and var_assign_sub: bool has no addition (the eager
/// Variable::assign_add refuses it too).
static LogicalResult verifyArithmeticUpdate(Operation *op, Value value) {
  Type element = cast<RankedTensorType>(value.getType()).getElementType();
  if (element.isSignlessInteger(1))
    return op->emitOpError("needs a numeric variable, got a bool one; use "
                           "fnc.var_assign with a fnc.logical_or / "
                           "fnc.logical_and of its value instead");
  return success();
}
LogicalResult VarAssignAddOp::verify() {
  return verifyArithmeticUpdate(*this, getValue());
}
LogicalResult VarAssignSubOp::verify() {
  return verifyArithmeticUpdate(*this, getValue());
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

void CondOp::getSuccessorRegions(RegionBranchPoint point,
                                 SmallVectorImpl<RegionSuccessor> &regions) {
  if (!point.isParent()) {
    regions.push_back(RegionSuccessor(getOperation(), getResults()));
    return;
  }
  regions.push_back(RegionSuccessor(&getThenRegion()));
  regions.push_back(RegionSuccessor(&getElseRegion()));
}

void CondOp::getRegionInvocationBounds(
    ArrayRef<Attribute> operands, SmallVectorImpl<InvocationBounds> &bounds) {
  auto pred = dyn_cast_or_null<DenseIntElementsAttr>(operands[0]);
  if (!pred) {
    bounds.assign(2, {0, 1});
    return;
  }
  bool taken = (*pred.value_begin<APInt>()).getBoolValue();
  bounds.push_back({0, taken ? 1u : 0u});
  bounds.push_back({0, taken ? 0u : 1u});
}

LogicalResult WhileOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location>,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  llvm::append_range(inferred, adaptor.getInits().getTypes());
  return success();
}

OperandRange WhileOp::getEntrySuccessorOperands(RegionSuccessor) {
  return getInits();
}

void WhileOp::getSuccessorRegions(RegionBranchPoint point,
                                  SmallVectorImpl<RegionSuccessor> &regions) {
  // Parent -> cond; body -> cond; cond -> body or the results.
  Operation *from = point.getTerminatorPredecessorOrNull();
  if (point.isParent() || from->getParentRegion() == &getBodyRegion()) {
    regions.push_back(RegionSuccessor(&getCondRegion(),
                                      getCondRegion().getArguments()));
    return;
  }
  regions.push_back(
      RegionSuccessor(&getBodyRegion(), getBodyRegion().getArguments()));
  regions.push_back(RegionSuccessor(getOperation(), getResults()));
}

LogicalResult WhileOp::verifyRegions() {
  // RegionBranchOpInterface checks the types along every control-flow edge;
  // this checks which terminator ends each region.
  if (!isa<ConditionOp>(getCondRegion().front().getTerminator()))
    return emitOpError("the cond region must end with fnc.condition");
  if (!isa<YieldOp>(getBodyRegion().front().getTerminator()))
    return emitOpError("the body region must end with fnc.yield");
  return success();
}

MutableOperandRange ConditionOp::getMutableSuccessorOperands(RegionSuccessor) {
  return getArgsMutable();
}

//===----------------------------------------------------------------------===//
// Effects
//===----------------------------------------------------------------------===//

LogicalResult PrintOp::verify() {
  size_t placeholders = 0;
  StringRef format = getFormat();
  for (size_t pos = format.find("{}"); pos != StringRef::npos;
       pos = format.find("{}", pos + 2))
    ++placeholders;
  if (placeholders != 0 && placeholders != getInputs().size())
    return emitOpError("format \"")
           << format << "\" has " << placeholders << " '{}' placeholder(s) but "
           << getInputs().size()
           << " tensor(s) are printed; use one '{}' per tensor, or none";
  return success();
}

LogicalResult RandomUniformOp::verify() {
  if (!(getMin().convertToDouble() < getMax().convertToDouble()))
    return emitOpError("needs min < max, got min ")
           << num(getMin().convertToDouble()) << " and max "
           << num(getMax().convertToDouble());
  return verifyDynamicDims(*this, getType(), getDynamicDims());
}

LogicalResult RandomNormalOp::verify() {
  if (!(getStddev().convertToDouble() >= 0))
    return emitOpError("needs stddev >= 0, got ")
           << num(getStddev().convertToDouble());
  return verifyDynamicDims(*this, getType(), getDynamicDims());
}

//===----------------------------------------------------------------------===//
// Strings
//===----------------------------------------------------------------------===//

/// Checks that `result` has the shape of `rule`: its rank, and each dim
/// both know alike.
static LogicalResult verifyShape(Operation *op, const rules::ShapeResult &rule,
                                 Type result) {
  if (failed(checkRule(op, rule)))
    return failure();
  auto type = cast<RankedTensorType>(result);
  bool alike = type.getRank() == static_cast<int64_t>(rule.shape.size());
  for (int64_t d = 0; alike && d < type.getRank(); ++d)
    alike = type.isDynamicDim(d) || rule.shape[d] == rules::kDynamic ||
            type.getDimSize(d) == rule.shape[d];
  if (!alike)
    return op->emitOpError("result type ")
           << result << " does not have the shape "
           << rules::toString(rule.shape) << " of its operands";
  return success();
}

LogicalResult StringJoinOp::verify() {
  if (getInputs().empty())
    return emitOpError("needs at least one input");
  std::vector<rules::Shape> shapes;
  for (Value v : getInputs())
    shapes.push_back(toShape(cast<RankedTensorType>(v.getType()).getShape()));
  return verifyShape(*this, rules::broadcast(shapes), getType());
}

LogicalResult StringFormatOp::verify() {
  StringRef text = getFormat(), hole = getPlaceholder();
  if (hole.empty())
    return emitOpError("has an empty placeholder");
  size_t holes = 0;
  for (size_t at = text.find(hole); at != StringRef::npos;
       at = text.find(hole, at + hole.size()))
    ++holes;
  if (holes != getInputs().size())
    return emitOpError("format has ")
           << holes << " placeholders but " << getInputs().size()
           << " inputs are given";
  return success();
}

LogicalResult StringLengthOp::verify() {
  rules::ShapeResult same{toShape(getInput().getType().getShape()), {}};
  return verifyShape(*this, same, getType());
}

LogicalResult StringSplitOp::verify() {
  auto input = getInput().getType();
  if (input.getRank() > 1)
    return emitOpError("splits a scalar or a 1-D tensor, not ") << input;
  rules::ShapeResult parts{toShape(input.getShape()), {}};
  parts.shape.push_back(rules::kDynamic);
  return verifyShape(*this, parts, getType());
}

#define GET_OP_CLASSES
#include "fnc/Dialect/Fnc/IR/FncOps.cpp.inc"
