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
#include "fnc/Ops.h"

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
  out->values = zeros(full, s.dtype);
  out->mask = zeros({s.size}, DType::i1);
  for (size_t i = 0; i < s.elements.size(); ++i)
    if (const Tensor &e = s.elements[i]; e.defined()) {
      Tensor index(static_cast<int64_t>(i));
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
  return gather(shape(s.values, DType::i64), Tensor(int64_t{0}), 0);
}

/// A dynamic-size array in tensor form grown (with zeros, unwritten) to
/// hold element `index` if it is past the end (sizes read at run time). A
/// negative index gives a negative size: an error, eagerly and at run time.
void growFor(TensorArrayState &s, const Tensor &index) {
  Tensor i = index.dtype() == DType::i64 ? index : cast(index, DType::i64);
  Tensor len = lengthOf(s);
  Tensor pad = reshape(maximum(len, i + 1) - len, {1});
  const std::vector<int64_t> &element = *s.elementShape;
  Tensor padShape = concat(
      {pad, constant(element, {static_cast<int64_t>(element.size())})}, 0);
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
    for (int64_t d : *element_shape)
      if (d < 0)
        throw Error(ErrorKind::InvalidArgument,
                    "fnc::TensorArray: the element shape " +
                        shapes::toString(*element_shape) +
                        " must be static (no unknown dims)");
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
  for (int64_t d : value.shape())
    if (d < 0)
      throw Error(ErrorKind::InvalidArgument,
                  "fnc::TensorArray::write: the value " +
                      typeText(value.dtype(), value.shape()) +
                      " has unknown dims; elements need a static shape");
  if (s.elementShape && *s.elementShape != value.shape())
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
    out->elementShape = value.shape();
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
  std::vector<Tensor> rows;
  for (const Tensor &e : s.elements)
    rows.push_back(e.defined() ? reshape(e, one) : zeros(one, s.dtype));
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
  s->tensorForm = true;
  s->values = values;
  s->mask = mask;
  return TensorArray(std::move(s));
}

} // namespace fnc
