//===- TensorImpl.h - What a fnc::Tensor handle points to -------*- C++ -*-===//
//
// Private to the API library. A TensorImpl is the shared state behind
// fnc::Tensor handles. Today every tensor is *concrete*: a reference-kernel
// array holding a buffer. Tracing will add a *symbolic* kind (a dtype and a
// shape that may contain unknown dims, no buffer); all buffer access goes
// through array(), which is the one place that will reject symbolic tensors.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_LIB_API_TENSORIMPL_H
#define FNC_LIB_API_TENSORIMPL_H

#include "fnc/Reference/Kernels.h"
#include "fnc/Tensor.h"

namespace fnc {

class TensorImpl {
public:
  enum class Kind { Concrete };

  explicit TensorImpl(ref::Array array) : array_(std::move(array)) {}

  Kind kind() const { return Kind::Concrete; }
  DType dtype() const { return array_.dtype; }
  const std::vector<int64_t> &shape() const { return array_.shape; }

  /// The buffer-backed array; throws FailedPrecondition for a tensor that
  /// has no buffer (none yet; symbolic tensors later).
  const ref::Array &array() const { return array_; }

private:
  ref::Array array_;
};

namespace detail {
/// The bridge between the public handle and the kernels' arrays.
struct TensorAccess {
  static Tensor wrap(ref::Array array) {
    Tensor t;
    t.impl_ = std::make_shared<TensorImpl>(std::move(array));
    return t;
  }
  static const ref::Array &array(const Tensor &t) { return t.impl().array(); }
};
} // namespace detail

} // namespace fnc

#endif // FNC_LIB_API_TENSORIMPL_H
