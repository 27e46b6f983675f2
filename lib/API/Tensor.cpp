//===- Tensor.cpp - fnc::Tensor construction and element access -----------===//
//
// The non-template members of fnc::Tensor. Printing is in Print.cpp.
//
//===----------------------------------------------------------------------===//

#include "fnc/API/TensorImpl.h"
#include "fnc/Shape/ShapeRules.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

namespace fnc {

namespace {
Tensor scalarTensor(DType dtype, const void *value) {
  ref::Array a = ref::Array::allocate(dtype, {});
  std::memcpy(a.rawMutableData(), value, sizeOf(dtype));
  return detail::TensorAccess::wrap(std::move(a));
}
} // namespace

Tensor::Tensor(float value) : Tensor(scalarTensor(DType::f32, &value)) {}
Tensor::Tensor(double value) : Tensor(scalarTensor(DType::f64, &value)) {}
Tensor::Tensor(int32_t value) : Tensor(scalarTensor(DType::i32, &value)) {}
Tensor::Tensor(int64_t value) : Tensor(scalarTensor(DType::i64, &value)) {}

Tensor Tensor::fromBool(bool value) { return scalarTensor(DType::i1, &value); }

Tensor::Tensor(const char *value) {
  if (!value)
    throw Error(ErrorKind::InvalidArgument,
                "fnc::Tensor: the string is a null pointer; pass \"\" for an "
                "empty string");
  initFrom<std::string>({}, std::vector<std::string>{value});
}

void Tensor::raggedError(int64_t got, int64_t expected) {
  throw Error(ErrorKind::InvalidArgument,
              "fnc::Tensor: the nested initializer list is ragged (a row has " +
                  std::to_string(got) + " elements, the first has " +
                  std::to_string(expected) +
                  "); all rows must have the same length");
}

void Tensor::init(DType dtype, const std::vector<int64_t> &shape,
                  const void *data, size_t count) {
  for (int64_t d : shape)
    if (d < 0)
      throw Error(ErrorKind::InvalidArgument,
                  "fnc::Tensor: shape " + shapes::toString(shape) +
                      " has a negative dimension; dims must be >= 0");
  int64_t expected = shapes::numElements(shape);
  if (expected != static_cast<int64_t>(count))
    throw Error(ErrorKind::InvalidArgument,
                "fnc::Tensor: " + std::to_string(count) +
                    " values do not fill shape " + shapes::toString(shape) +
                    " (" + std::to_string(expected) +
                    " elements); pass exactly as many values as the shape has "
                    "elements");
  ref::Array a = ref::Array::allocate(dtype, shape);
  if (dtype == DType::str)
    std::copy_n(static_cast<const std::string *>(data), count,
                a.mutableData<std::string>());
  else if (count)
    std::memcpy(a.rawMutableData(), data, count * sizeOf(dtype));
  impl_ = detail::TensorAccess::make(std::move(a));
}

namespace {
/// Validates the arguments of Tensor::from_blob; returns the byte size.
size_t checkBlob(const void *data, const std::vector<int64_t> &shape,
                 DType dtype) {
  if (dtype == DType::str)
    throw Error(ErrorKind::InvalidArgument,
                "fnc::Tensor::from_blob: string tensors own their strings; "
                "copy them with fnc::Tensor(std::vector<std::string>, shape)");
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0)
      throw Error(ErrorKind::InvalidArgument,
                  "fnc::Tensor::from_blob: shape " + shapes::toString(shape) +
                      " has a negative dimension; dims must be >= 0");
    if (__builtin_mul_overflow(count, d, &count) ||
        count > std::numeric_limits<int64_t>::max() / 8)
      throw Error(ErrorKind::InvalidArgument,
                  "fnc::Tensor::from_blob: shape " + shapes::toString(shape) +
                      " has more elements than memory can hold");
  }
  if (!data && count > 0)
    throw Error(ErrorKind::InvalidArgument,
                "fnc::Tensor::from_blob: data is null but shape " +
                    shapes::toString(shape) + " has " + std::to_string(count) +
                    " elements");
  if (reinterpret_cast<uintptr_t>(data) % sizeOf(dtype) != 0)
    throw Error(ErrorKind::InvalidArgument,
                std::string("fnc::Tensor::from_blob: data is not aligned for "
                            "dtype ") +
                    dtypeName(dtype) + " (it needs " +
                    std::to_string(sizeOf(dtype)) +
                    "-byte alignment); copy the values instead (fnc::Tensor("
                    "std::vector, shape))");
  return static_cast<size_t>(count) * sizeOf(dtype);
}
} // namespace

Tensor Tensor::from_blob(const void *data, std::vector<int64_t> shape,
                         DType dtype) {
  checkBlob(data, shape, dtype);
  ref::Array a;
  a.dtype = dtype;
  a.shape = std::move(shape);
  // Borrowed: nothing to free. The generated code and the reference
  // kernels never write to an input buffer.
  a.buffer = std::shared_ptr<void>(const_cast<void *>(data), [](void *) {});
  Tensor t;
  t.impl_ = detail::TensorAccess::make(std::move(a));
  return t;
}

Tensor Tensor::from_blob(void *data, std::vector<int64_t> shape, DType dtype,
                         std::function<void(void *)> deleter) {
  checkBlob(data, shape, dtype);
  if (!deleter)
    throw Error(ErrorKind::InvalidArgument,
                "fnc::Tensor::from_blob: the deleter is empty; pass a callable "
                "that frees the memory, or use the overload without a deleter "
                "to borrow it");
  ref::Array a;
  a.dtype = dtype;
  a.shape = std::move(shape);
  a.buffer = std::shared_ptr<void>(data, std::move(deleter));
  Tensor t;
  t.impl_ = detail::TensorAccess::make(std::move(a));
  return t;
}

void Tensor::nullHandleError() {
  throw Error(ErrorKind::FailedPrecondition,
              "fnc::Tensor: this tensor is a default-constructed (null) "
              "handle; assign a tensor to it before using it");
}

const std::vector<int64_t> &Tensor::shape() const { return impl().shape(); }
DType Tensor::dtype() const { return impl().dtype(); }
int64_t Tensor::size() const { return shapes::numElements(shape()); }

const void *Tensor::rawData(DType expected, const char *what) const {
  const TensorImpl &i = impl();
  if (i.symbolic())
    i.symbolicError(what);
  if (i.dtype() != expected)
    throw Error(ErrorKind::InvalidArgument,
                std::string("fnc::Tensor::") + what + ": requested " +
                    dtypeName(expected) +
                    " elements but the tensor has dtype " +
                    dtypeName(i.dtype()) +
                    "; use the matching C++ type (float, double, bool, "
                    "int32_t, int64_t, std::string) or convert with "
                    "fnc::cast");
  return i.anyArray(what).rawData();
}

void Tensor::checkItem(DType expected) const {
  if (impl().symbolic())
    impl().symbolicError("item");
  if (size() != 1)
    throw Error(ErrorKind::InvalidArgument,
                "fnc::Tensor::item: the tensor has shape " +
                    shapes::toString(shape()) + " (" + std::to_string(size()) +
                    " elements), not one element; use to_vector() or at() "
                    "for non-scalar tensors");
  (void)rawData(expected, "item");
}

int64_t Tensor::flatIndex(const int64_t *index, size_t count) const {
  const std::vector<int64_t> &s = shape();
  auto indexStr = [&] {
    std::string r = "[";
    for (size_t i = 0; i < count; ++i)
      r += (i ? ", " : "") + std::to_string(index[i]);
    return r + "]";
  };
  if (count != s.size())
    throw Error(ErrorKind::InvalidArgument,
                "fnc::Tensor::at: index " + indexStr() + " has " +
                    std::to_string(count) +
                    " entries but the tensor has rank " +
                    std::to_string(s.size()) + "; give one index per dim");
  int64_t flat = 0;
  for (size_t i = 0; i < count; ++i) {
    if (index[i] < 0 || index[i] >= s[i])
      throw Error(ErrorKind::OutOfRange,
                  "fnc::Tensor::at: index " + indexStr() +
                      " is out of range for shape " + shapes::toString(s) +
                      "; each index must be in [0, dim)");
    flat = flat * s[i] + index[i];
  }
  return flat;
}

} // namespace fnc
