//===- Arrays.h - Eager tensors as reference arrays -------------*- C++ -*-===//
//
// Internal to fnc; MLIR-free. An eager fnc::Tensor is a handle to a
// ref::Array. Code that runs the reference kernels on tensors without going
// through the public ops (the dialect interpreter, the staged features
// built on the API) converts with these; both share the buffer, nothing is
// copied.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_API_ARRAYS_H
#define FNC_API_ARRAYS_H

#include "fnc/API/TensorImpl.h"
#include "fnc/Reference/Kernels.h"
#include "fnc/Tensor.h"

namespace fnc::api {

/// The array behind an eager tensor. Throws InvalidArgument for a null
/// handle and the leak / "no value while tracing" error for a symbolic one.
inline const ref::Array &arrayOf(const Tensor &t) {
  return detail::TensorAccess::array(t);
}

/// An eager tensor holding `array`.
inline Tensor wrap(ref::Array array) {
  return detail::TensorAccess::wrap(std::move(array));
}

} // namespace fnc::api

#endif // FNC_API_ARRAYS_H
