//===- Array.cpp - The buffer type of the reference kernels ---------------===//
//
// Allocation (fnc/Memory.h: 64-byte aligned, cached), element access helpers and the
// stride helpers shared by all kernel families.
//
//===----------------------------------------------------------------------===//

#include "Dispatch.h"
#include "fnc/Memory.h"
#include "fnc/Shape/ShapeRules.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>

namespace fnc::ref {

void internalError(const std::string &what) {
  throw Error(ErrorKind::Internal,
              "fnc internal error in a reference kernel: " + what +
                  "; this is a bug in fnc, please report it");
}

Array Array::allocate(DType dtype, Shape shape) {
  for (int64_t d : shape)
    if (d < 0)
      throw Error(ErrorKind::InvalidArgument,
                  "cannot allocate a tensor with a negative dimension (" +
                      std::to_string(d) + "); dimensions must be >= 0");
  // A zero dim makes the tensor empty whatever the other dims are (as
  // numpy's ones((2**62, 0))), in any order.
  bool empty = std::find(shape.begin(), shape.end(), 0) != shape.end();
  int64_t count = empty ? 0 : 1;
  for (int64_t d : shape) {
    if (empty)
      break;
    if (count > std::numeric_limits<int64_t>::max() / 16 / d)
      throw Error(ErrorKind::OutOfRange,
                  "tensor is too large to allocate; reduce its shape");
    count *= d;
  }
  size_t bytes = static_cast<size_t>(count) * sizeOf(dtype);
  void *p = memory::allocate(bytes);
  if (!p)
    throw Error(ErrorKind::OutOfRange,
                "out of memory allocating " + std::to_string(bytes) +
                    " bytes for a tensor; reduce its shape");
  Array a;
  a.dtype = dtype;
  a.shape = std::move(shape);
  if (dtype == DType::str) {
    // Empty strings, destroyed with the buffer.
    auto *strings = static_cast<std::string *>(p);
    std::uninitialized_default_construct_n(strings, count);
    a.buffer = std::shared_ptr<void>(
        p,
        [count](void *q) {
          std::destroy_n(static_cast<std::string *>(q), count);
          memory::release(q);
        },
        memory::ObjectAllocator<char>());
    return a;
  }
  // The control block from allocateObject: one is made per op and call.
  a.buffer = std::shared_ptr<void>(p, &memory::release,
                                   memory::ObjectAllocator<char>());
  return a;
}

/// A 0-d array of `dtype` holding `value` (converted; nonzero is true).
template <typename V> static Array scalarOf(DType dtype, V value) {
  Array a = Array::allocate(dtype, {});
  dispatch(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>)
      *a.mutableData<T>() = value != 0;
    else
      *a.mutableData<T>() = static_cast<T>(value);
  });
  return a;
}

Array Array::scalar(DType dtype, double value) {
  return scalarOf(dtype, value);
}

Array Array::scalarInt(DType dtype, int64_t value) {
  return scalarOf(dtype, value);
}

int64_t Array::numElements() const { return shapes::numElements(shape); }

Array Array::withShape(Shape newShape) const {
  Array a = *this;
  a.shape = std::move(newShape);
  if (a.numElements() != numElements())
    internalError("withShape changes the element count");
  return a;
}

double Array::getDouble(int64_t i) const {
  double r = 0;
  dispatch(dtype, [&](auto tag) {
    using T = decltype(tag);
    r = static_cast<double>(data<T>()[i]);
  });
  return r;
}

int64_t Array::getInt(int64_t i) const {
  int64_t r = 0;
  dispatch(dtype, [&](auto tag) {
    using T = decltype(tag);
    r = static_cast<int64_t>(data<T>()[i]);
  });
  return r;
}

Shape stridesOf(const Shape &shape) {
  Shape s(shape.size());
  int64_t stride = 1;
  for (int64_t i = static_cast<int64_t>(shape.size()) - 1; i >= 0; --i) {
    s[i] = stride;
    stride *= shape[i];
  }
  return s;
}

Shape broadcastStrides(const Shape &in, const Shape &out) {
  if (in.size() > out.size())
    internalError("broadcast from a higher rank");
  Shape strides(out.size(), 0);
  Shape inStrides = stridesOf(in);
  size_t lead = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == out[lead + i])
      strides[lead + i] = inStrides[i];
    else if (in[i] != 1)
      internalError("shape " + std::to_string(in[i]) +
                    " does not broadcast to " + std::to_string(out[lead + i]));
  }
  return strides;
}

} // namespace fnc::ref
