//===- TensorArray.cpp - fnc::TensorArray ---------------------------------===//
//
// fnc/TensorArray.h. An array is an immutable state shared by copies; a
// write makes a new state. Two representations: a list of element tensors
// (eagerly, and in a trace while every index is known in C++), and a
// values tensor [size, element...] with a bool mask [size] of written
// elements (a symbolic index, or carried by a staged loop), written one row
// at a time (api::setRow: fnc.set_row, in place once compiled). Everything is
// built from public fnc ops, so the same code runs eagerly and staged. No
// MLIR here.
//
//===----------------------------------------------------------------------===//

#include "fnc/TensorArray.h"

#include "fnc/API/OpSupport.h"
#include "fnc/Control.h"
#include "fnc/Ops.h"

#include <algorithm>

namespace fnc {
namespace detail {

struct TensorArrayState {
  DType dtype = DType::f32;
  // shapes::kDynamic while tracing a dynamic-size array in tensor form.
  int64_t size = 0;
  bool dynamic = false;
  std::optional<std::vector<int64_t>> elementShape;
  // List form: `elements.size() == size`; null tensors were never written.
  std::vector<Tensor> elements;
  // Tensor form (when `tensorForm`): values [size, element...], mask [size].
  bool tensorForm = false;
  Tensor values, mask;
};

} // namespace detail

namespace {

using detail::TensorArrayState;

std::string typeText(DType dtype, const std::vector<int64_t> &shape) {
  return std::string(dtypeName(dtype)) + shapes::toString(shape);
}

const TensorArrayState &
stateOf(const std::shared_ptr<const TensorArrayState> &s, const char *op) {
  if (!s)
    throw Error(ErrorKind::FailedPrecondition,
                std::string("fnc::TensorArray::") + op +
                    ": this is a null array; create it with "
                    "fnc::TensorArray(dtype, size)");
  return *s;
}

bool sizeKnown(const TensorArrayState &s) {
  return !shapes::isDynamic(s.size);
}

std::string describe(const TensorArrayState &s) {
  return std::string("fnc::TensorArray of ") + dtypeName(s.dtype) +
         (s.elementShape ? shapes::toString(*s.elementShape) : "") + " (size " +
         (sizeKnown(s) ? std::to_string(s.size) : std::string("?")) +
         (s.dynamic ? ", dynamic" : "") + ")";
}

/// The index known in C++ (a C++ integer or an eager tensor), after
/// checking that `index` is an integer scalar.
std::optional<int64_t> knownIndex(const Tensor &index, const char *op) {
  if (!index.defined() || !isInteger(index.dtype()) || !index.shape().empty())
    throw Error(ErrorKind::InvalidArgument,
                std::string("fnc::TensorArray::") + op +
                    ": the index must be an int32 or int64 scalar, got " +
                    (index.defined() ? typeText(index.dtype(), index.shape())
                                     : std::string("a null fnc::Tensor")));
  if (trace::isSymbolic(index))
    return std::nullopt;
  return api::arrayOf(index).getInt(0);
}

void checkRange(const TensorArrayState &s, int64_t i, const char *op,
                bool mayGrow) {
  if (i < 0 || (sizeKnown(s) && i >= s.size && !mayGrow))
    throw Error(
        ErrorKind::OutOfRange,
        std::string("fnc::TensorArray::") + op + ": index " +
            std::to_string(i) + " is out of range for " + describe(s) +
            (s.dynamic ? "" : "; use a bigger size or TensorArray::dynamic"));
}

bool hasUnknownDims(const std::optional<std::vector<int64_t>> &shape) {
  return shape &&
         std::any_of(shape->begin(), shape->end(), shapes::isDynamic);
}

/// Whether a value of `shape` fits the element shape `element` (equal where
/// both are known).
bool fitsElement(const std::vector<int64_t> &element,
                 const std::vector<int64_t> &shape) {
  if (element.size() != shape.size())
    return false;
  for (size_t i = 0; i < shape.size(); ++i)
    if (!shapes::isDynamic(element[i]) && !shapes::isDynamic(shape[i]) &&
        element[i] != shape[i])
      return false;
  return true;
}

/// `element` with its unknown dims taken from `shape` where known.
std::vector<int64_t> refined(std::vector<int64_t> element,
                             const std::vector<int64_t> &shape) {
  for (size_t i = 0; i < element.size(); ++i)
    if (shapes::isDynamic(element[i]))
      element[i] = shape[i];
  return element;
}

/// Zeros of `dims` (a 1-D int64 tensor) whose dims known while tracing are
/// `known`.
Tensor zerosOf(const Tensor &dims, std::vector<int64_t> known, DType dtype) {
  api::noteShapeValues(dims, known);
  return zeros(dims, dtype);
}

/// A tensor-form array's values [size, element...] for an element shape
/// with dims unknown while tracing: zero of them until the first write
/// conforms it to the values written (conform), typed with those dims
/// unknown so that a loop can carry it.
Tensor emptyValues(const TensorArrayState &s) {
  std::vector<int64_t> known = {s.size}, dims = {s.size};
  known.insert(known.end(), s.elementShape->begin(), s.elementShape->end());
  for (int64_t d : *s.elementShape)
    dims.push_back(shapes::isDynamic(d) ? 0 : d);
  trace::Recorder *r = api::recording();
  if (!r)
    return zeros(dims, s.dtype);
  // A symbolic copy of the dims: zeros of it take the type of `known`.
  int64_t rank = static_cast<int64_t>(dims.size());
  Tensor eager(dims, {rank});
  Tensor shapeTensor = api::record(*r, trace::ops::Reshape{}, DType::i64,
                                   {rank}, {&eager}, "shape");
  return zerosOf(shapeTensor, known, s.dtype);
}

/// Before the first write of a tensor-form array whose element shape has
/// unknown dims: values of the written value's dims (read at run time).
/// Later writes keep them (a value of other dims is a run-time error of the
/// write).
void conform(TensorArrayState &s, const Tensor &value) {
  Tensor rowDims = shape(value, DType::i64);
  int64_t rank = static_cast<int64_t>(s.elementShape->size());
  Tensor have = slice(shape(s.values, DType::i64), {1}, {rank});
  Tensor fresh = logical_and(reduce_any(not_equal(rowDims, have)),
                             logical_not(reduce_any(s.mask)));
  std::vector<int64_t> known = {s.size};
  known.insert(known.end(), s.elementShape->begin(), s.elementShape->end());
  Tensor values = s.values, size = slice(shape(s.values, DType::i64), {0}, {1});
  DType dtype = s.dtype;
  s.values = fnc::cond(
      fresh,
      [&] { return zerosOf(concat({size, rowDims}, 0), known, dtype); },
      [&] { return values; });
}

/// The state in tensor form (unwritten elements are zeros).
std::shared_ptr<TensorArrayState> toTensorForm(const TensorArrayState &s,
                                               const char *op) {
  auto out = std::make_shared<TensorArrayState>(s);
  if (s.tensorForm)
    return out;
  if (!s.elementShape)
    throw Error(ErrorKind::InvalidArgument,
                std::string("fnc::TensorArray::") + op + ": " + describe(s) +
                    " has no element shape yet; pass element_shape to the "
                    "constructor or write an element first");
  // Zeros, then the written elements row by row: a few ops however big the
  // array (one op per element made a trace of a 1000-element array slow to
  // compile).
  std::vector<int64_t> full = {s.size};
  full.insert(full.end(), s.elementShape->begin(), s.elementShape->end());
  bool unknown = hasUnknownDims(s.elementShape);
  out->values = unknown ? emptyValues(s) : zeros(full, s.dtype);
  out->mask = zeros({s.size}, DType::i1);
  for (size_t i = 0; i < s.elements.size(); ++i)
    if (const Tensor &e = s.elements[i]; e.defined()) {
      Tensor index(static_cast<int64_t>(i));
      if (unknown)
        conform(*out, e);
      out->values = api::setRow(out->values, index, e);
      out->mask = api::setRow(out->mask, index, Tensor(true));
    }
  out->tensorForm = true;
  out->elements.clear();
  return out;
}

/// The size of a tensor-form array as an int64 scalar (read at run time
/// when it is unknown while tracing).
Tensor lengthOf(const TensorArrayState &s) {
  return api::sizeAlong(s.values, 0);
}

/// A dynamic-size array in tensor form grown (with zeros, unwritten) to
/// hold element `index` if it is past the end (sizes read at run time). A
/// negative index gives a negative size: an error, eagerly and at run time.
void growFor(TensorArrayState &s, const Tensor &index) {
  Tensor i = index.dtype() == DType::i64 ? index : cast(index, DType::i64);
  Tensor len = lengthOf(s);
  Tensor pad = reshape(maximum(len, i + 1) - len, {1});
  const std::vector<int64_t> &element = *s.elementShape;
  int64_t rank = static_cast<int64_t>(element.size());
  Tensor padShape = concat(
      {pad, hasUnknownDims(s.elementShape)
                ? slice(shape(s.values, DType::i64), {1}, {rank})
                : constant(element, {rank})},
      0);
  std::vector<int64_t> known = {shapes::kDynamic};
  known.insert(known.end(), element.begin(), element.end());
  api::noteShapeValues(padShape, known);
  s.values = concat({s.values, zeros(padShape, s.dtype)}, 0);
  s.mask = concat({s.mask, zeros(pad, DType::i1)}, 0);
  s.size = s.values.shape()[0];
}

} // namespace

TensorArray::TensorArray(DType dtype, int64_t size)
    : state_(make(dtype, size, false, std::nullopt)) {}

TensorArray::TensorArray(DType dtype, int64_t size,
                         std::vector<int64_t> element_shape)
    : state_(make(dtype, size, false, std::move(element_shape))) {}

TensorArray TensorArray::dynamic(DType dtype, int64_t size) {
  return TensorArray(make(dtype, size, true, std::nullopt));
}

TensorArray TensorArray::dynamic(DType dtype, int64_t size,
                                 std::vector<int64_t> element_shape) {
  return TensorArray(make(dtype, size, true, std::move(element_shape)));
}

std::shared_ptr<const detail::TensorArrayState>
TensorArray::make(DType dtype, int64_t size, bool dynamic,
                  std::optional<std::vector<int64_t>> element_shape) {
  if (size < 0)
    throw Error(ErrorKind::InvalidArgument,
                "fnc::TensorArray: the size must be >= 0, got " +
                    std::to_string(size));
  if (element_shape)
    for (int64_t &d : *element_shape) {
      if (d == -1)
        d = shapes::kDynamic;
      if (d < 0 && !shapes::isDynamic(d))
        throw Error(ErrorKind::InvalidArgument,
                    "fnc::TensorArray: the element shape " +
                        shapes::toString(*element_shape) +
                        " has a negative dim; give sizes >= 0, or "
                        "fnc::kUnknownDim for one known only at run time");
    }
  auto s = std::make_shared<detail::TensorArrayState>();
  s->dtype = dtype;
  s->size = size;
  s->elementShape = std::move(element_shape);
  s->dynamic = dynamic;
  s->elements.resize(size);
  return s;
}

DType TensorArray::dtype() const { return stateOf(state_, "dtype").dtype; }
int64_t TensorArray::size() const { return stateOf(state_, "size").size; }
bool TensorArray::dynamic_size() const {
  return stateOf(state_, "dynamic_size").dynamic;
}
const std::optional<std::vector<int64_t>> &TensorArray::element_shape() const {
  return stateOf(state_, "element_shape").elementShape;
}

TensorArray TensorArray::write(const Tensor &index, const Tensor &value) const {
  stateOf(state_, "write");
  return writeImpl(&index, knownIndex(index, "write"), value);
}

TensorArray TensorArray::write(int64_t index, const Tensor &value) const {
  return writeImpl(nullptr, index, value);
}

TensorArray TensorArray::writeImpl(const Tensor *index,
                                   std::optional<int64_t> known,
                                   const Tensor &value) const {
  const TensorArrayState &s = stateOf(state_, "write");
  if (!value.defined())
    throw Error(ErrorKind::InvalidArgument,
                "fnc::TensorArray::write: the value is a null fnc::Tensor");
  if (value.dtype() != s.dtype)
    throw Error(ErrorKind::InvalidArgument,
                "fnc::TensorArray::write: " + describe(s) + " cannot hold a " +
                    typeText(value.dtype(), value.shape()) +
                    " value; fnc::cast it to " + dtypeName(s.dtype));
  if (s.elementShape && !fitsElement(*s.elementShape, value.shape()))
    throw Error(ErrorKind::InvalidArgument,
                "fnc::TensorArray::write: " + describe(s) +
                    " has elements of shape " +
                    shapes::toString(*s.elementShape) + " but the value is " +
                    typeText(value.dtype(), value.shape()) +
                    "; every element must have the same shape");
  if (known)
    checkRange(s, *known, "write", s.dynamic);

  if (known && !s.tensorForm) {
    auto out = std::make_shared<TensorArrayState>(s);
    out->elementShape = s.elementShape ? refined(*s.elementShape, value.shape())
                                       : value.shape();
    if (*known >= out->size) {
      out->size = *known + 1;
      out->elements.resize(out->size);
    }
    out->elements[*known] = value;
    return TensorArray(std::move(out));
  }

  auto out = [&] {
    if (s.elementShape)
      return toTensorForm(s, "write");
    TensorArrayState shaped = s;
    shaped.elementShape = value.shape();
    return toTensorForm(shaped, "write");
  }();
  Tensor idx = index ? *index : Tensor(*known);
  if (hasUnknownDims(out->elementShape))
    conform(*out, value);
  if (out->dynamic)
    growFor(*out, idx);
  // One row each: updated in place once compiled (fnc.set_row).
  out->values = api::setRow(out->values, idx, value);
  out->mask = api::setRow(out->mask, idx, Tensor(true));
  return TensorArray(std::move(out));
}

Tensor TensorArray::read(const Tensor &index) const {
  stateOf(state_, "read");
  return readImpl(&index, knownIndex(index, "read"));
}

Tensor TensorArray::read(int64_t index) const {
  return readImpl(nullptr, index);
}

Tensor TensorArray::readImpl(const Tensor *index,
                             std::optional<int64_t> known) const {
  const TensorArrayState &s = stateOf(state_, "read");
  auto unwritten = [&](int64_t i) {
    return Error(ErrorKind::FailedPrecondition,
                 "fnc::TensorArray::read: element " + std::to_string(i) +
                     " of " + describe(s) + " is read before it was written");
  };
  if (known) {
    checkRange(s, *known, "read", false);
    if (!s.tensorForm) {
      if (!s.elements[*known].defined())
        throw unwritten(*known);
      return s.elements[*known];
    }
    if (!trace::isSymbolic(s.mask) && api::arrayOf(s.mask).getInt(*known) == 0)
      throw unwritten(*known);
    return gather(s.values, Tensor(*known), 0);
  }
  // A symbolic index: one row (an element never written is zeros; an index
  // out of range is a run-time error).
  std::shared_ptr<TensorArrayState> t = toTensorForm(s, "read");
  return gather(t->values, *index, 0);
}

Tensor TensorArray::stack() const {
  const TensorArrayState &s = stateOf(state_, "stack");
  if (s.tensorForm)
    return s.values;
  if (!s.elementShape) {
    if (s.size == 0)
      throw Error(ErrorKind::InvalidArgument,
                  "fnc::TensorArray::stack: " + describe(s) +
                      " is empty and has no element shape; pass "
                      "element_shape to the constructor");
    throw Error(ErrorKind::FailedPrecondition,
                "fnc::TensorArray::stack: no element of " + describe(s) +
                    " was written, so its element shape is unknown; write "
                    "the elements or pass element_shape to the constructor");
  }
  std::vector<int64_t> one = {1};
  one.insert(one.end(), s.elementShape->begin(), s.elementShape->end());
  Tensor written; // one written element: unwritten ones are zeros like it
  for (const Tensor &e : s.elements)
    if (e.defined())
      written = e;
  if (hasUnknownDims(s.elementShape) && !written.defined() &&
      !s.elements.empty())
    throw Error(ErrorKind::FailedPrecondition,
                "fnc::TensorArray::stack: no element of " + describe(s) +
                    " was written, so its element shape is unknown");
  bool unknown = hasUnknownDims(s.elementShape);
  auto row = [&](const Tensor &e) {
    return unknown ? expand_dims(e, 0) : reshape(e, one);
  };
  std::vector<Tensor> rows;
  for (const Tensor &e : s.elements)
    rows.push_back(e.defined()         ? row(e)
                   : written.defined() ? zeros_like(row(written))
                                       : zeros(one, s.dtype));
  if (rows.empty()) {
    one[0] = 0;
    return zeros(one, s.dtype);
  }
  return rows.size() == 1 ? rows[0] : concat(rows, 0);
}

std::vector<Tensor> TensorArray::toLoopVars() const {
  const TensorArrayState &s = stateOf(state_, "loop variable");
  std::shared_ptr<TensorArrayState> t = toTensorForm(s, "loop variable");
  return {t->values, t->mask};
}

TensorArray TensorArray::fromLoopVars(const Tensor &values, const Tensor &mask,
                                      bool dynamic) {
  auto s = std::make_shared<TensorArrayState>();
  s->dynamic = dynamic;
  s->dtype = values.dtype();
  s->size = values.shape().at(0);
  s->elementShape =
      std::vector<int64_t>(values.shape().begin() + 1, values.shape().end());
  // Eagerly, an array carried by a loop before its first write has no
  // elements (emptyValues): its empty dims are the unknown ones.
  if (!trace::isSymbolic(values) && !trace::isSymbolic(mask) &&
      shapes::numElements(values.shape()) == 0 &&
      !reduce_any(mask).item<bool>())
    for (int64_t &d : *s->elementShape)
      if (d == 0)
        d = shapes::kDynamic;
  s->tensorForm = true;
  s->values = values;
  s->mask = mask;
  return TensorArray(std::move(s));
}

namespace detail {

bool lackElementShapes(const std::vector<TensorArray *> &arrays) {
  return std::any_of(arrays.begin(), arrays.end(), [](const TensorArray *a) {
    return a->defined() && !a->element_shape();
  });
}

void adoptElementShapes(const std::vector<TensorArray *> &arrays,
                        const std::vector<TensorArray *> &probed) {
  for (size_t k = 0; k < arrays.size() && k < probed.size(); ++k) {
    TensorArray &a = *arrays[k];
    if (!a.defined() || a.element_shape() || !probed[k]->defined() ||
        !probed[k]->element_shape())
      continue; // never written: the loop says what it lacks
    // Not written yet (else it would have an element shape): a fresh array
    // of the same size, with the shape the body writes.
    std::vector<int64_t> shape = *probed[k]->element_shape();
    a = a.dynamic_size() ? TensorArray::dynamic(a.dtype(), a.size(), shape)
                         : TensorArray(a.dtype(), a.size(), shape);
  }
}

} // namespace detail

} // namespace fnc
