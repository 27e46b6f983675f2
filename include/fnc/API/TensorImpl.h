//===- TensorImpl.h - What a fnc::Tensor handle points to -------*- C++ -*-===//
//
// Internal to fnc (the API library and OpSupport.h). A TensorImpl is the
// shared state behind
// fnc::Tensor handles. It is either *concrete* (a reference-kernel array
// holding a buffer) or *symbolic*: produced while tracing a fnc::function,
// it has a dtype and a shape whose dims may be unknown (shapes::kDynamic),
// no buffer, and the id of its value in the trace identified by its
// TraceToken (fnc/Trace/Recorder.h). All buffer access goes through
// array(), the one place that rejects symbolic tensors.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_API_TENSORIMPL_H
#define FNC_API_TENSORIMPL_H

#include "fnc/Memory.h"
#include "fnc/Reference/Kernels.h"
#include "fnc/Tensor.h"
#include "fnc/Trace/Recorder.h"

namespace fnc {

class TensorImpl {
public:
  enum class Kind { Concrete, Symbolic };

  explicit TensorImpl(ref::Array array) : array_(std::move(array)) {}
  /// A symbolic tensor (array_ holds dtype and shape, no buffer).
  TensorImpl(DType dtype, std::vector<int64_t> shape,
             std::shared_ptr<trace::TraceToken> token, int64_t id,
             std::string name)
      : token_(std::move(token)), id_(id), name_(std::move(name)) {
    array_.dtype = dtype;
    array_.shape = std::move(shape);
  }

  Kind kind() const { return token_ ? Kind::Symbolic : Kind::Concrete; }
  bool symbolic() const { return token_ != nullptr; }
  DType dtype() const { return array_.dtype; }
  const std::vector<int64_t> &shape() const { return array_.shape; }

  /// The buffer-backed array; throws FailedPrecondition for a symbolic
  /// tensor (`what` names the operation for the message) and
  /// InvalidArgument for a string tensor, whose buffer holds std::string
  /// objects only the string-aware code may read (stringArray()).
  const ref::Array &array(const char *what = nullptr) const {
    if (token_ || array_.dtype == DType::str) [[unlikely]]
      arrayError(what);
    return array_;
  }
  /// The array of a concrete tensor of any dtype, strings included.
  const ref::Array &anyArray(const char *what = nullptr) const {
    if (token_)
      symbolicError(what);
    return array_;
  }

  const std::shared_ptr<trace::TraceToken> &token() const { return token_; }
  int64_t id() const { return id_; }
  const std::string &name() const { return name_; }

  /// Throws the error for reading the value of a symbolic tensor: the leak
  /// error when its trace has ended or is not this thread's, else the
  /// "no value while tracing" error pointing to staged alternatives.
  [[noreturn]] void symbolicError(const char *what) const;
  /// symbolicError, or the error for a string tensor where an op reads
  /// numbers.
  [[noreturn]] void arrayError(const char *what) const;

private:
  ref::Array array_;
  std::shared_ptr<trace::TraceToken> token_;
  int64_t id_ = -1;
  std::string name_;
};

namespace detail {
/// The bridge between the public handle and the kernels' arrays.
struct TensorAccess {
  /// A new TensorImpl, from memory::allocateObject: one is made and freed
  /// per op and per call.
  template <typename... A> static std::shared_ptr<TensorImpl> make(A &&...a) {
    return std::allocate_shared<TensorImpl>(
        memory::ObjectAllocator<TensorImpl>(), std::forward<A>(a)...);
  }
  static Tensor wrap(ref::Array array) {
    Tensor t;
    t.impl_ = make(std::move(array));
    return t;
  }
  static Tensor wrap(std::shared_ptr<TensorImpl> impl) {
    Tensor t;
    t.impl_ = std::move(impl);
    return t;
  }
  static const ref::Array &array(const Tensor &t) { return t.impl().array(); }
  static const TensorImpl &impl(const Tensor &t) { return t.impl(); }
};
} // namespace detail

} // namespace fnc

#endif // FNC_API_TENSORIMPL_H
