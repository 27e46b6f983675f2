//===- Creation.cpp - Reference kernels that create tensors ---------------===//
//
// range, eye and cast (the element conversion used by fnc::cast and by the
// C++-scalar operands of the API).
//
//===----------------------------------------------------------------------===//

#include "Dispatch.h"


namespace fnc::ref {

using scalar::convert;

void range(double start, double delta, Array &out) {
  if (out.rank() != 1)
    internalError("range result of rank != 1");
  dispatch(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    T *po = out.mutableData<T>();
    for (int64_t i = 0, n = out.numElements(); i < n; ++i)
      po[i] = convert<T>(start + static_cast<double>(i) * delta);
  });
}

void eye(Array &out) {
  if (out.rank() < 2)
    internalError("eye result of rank < 2");
  int64_t n = out.shape[out.rank() - 2], m = out.shape.back();
  int64_t batch = n * m == 0 ? 0 : out.numElements() / (n * m);
  dispatch(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    T *po = out.mutableData<T>();
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < m; ++j)
          po[(b * n + i) * m + j] = static_cast<T>(i == j);
  });
}

void cast(const Array &x, Array &out) {
  if (x.numElements() != out.numElements())
    internalError("cast with a different element count");
  dispatch(x.dtype, [&](auto fromTag) {
    using From = decltype(fromTag);
    dispatch(out.dtype, [&](auto toTag) {
      using To = decltype(toTag);
      const From *px = x.data<From>();
      To *po = out.mutableData<To>();
      for (int64_t i = 0, n = x.numElements(); i < n; ++i)
        po[i] = convert<To>(px[i]);
    });
  });
}

} // namespace fnc::ref
