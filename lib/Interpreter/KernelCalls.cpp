//===- KernelCalls.cpp - Exception-free calls into the eager kernels ------===//
//
// Built with exceptions (see CMakeLists.txt): each function runs one eager op
// inside guard(), which turns a thrown fnc::Error (or any other exception,
// e.g. std::bad_alloc) into an error value for the MLIR side.
//
//===----------------------------------------------------------------------===//

#include "KernelCalls.h"

#include <cmath>
#include <cstring>
#include <new>

namespace fnc::interp {

namespace {

template <typename Fn> KernelResult guard(Fn &&fn) noexcept {
  KernelResult result;
  try {
    result.value = fn();
  } catch (const Error &e) {
    result.ok = false;
    result.kind = e.kind();
    result.message = e.message();
  } catch (const std::bad_alloc &) {
    result.ok = false;
    result.kind = ErrorKind::OutOfRange;
    result.message = "out of memory";
  } catch (const std::exception &e) {
    result.ok = false;
    result.kind = ErrorKind::Internal;
    result.message = e.what();
  } catch (...) {
    result.ok = false;
    result.kind = ErrorKind::Internal;
    result.message = "unknown exception";
  }
  return result;
}

/// Copies a kernel array into a tensor.
Tensor toTensor(const ref::Array &a) {
  switch (a.dtype) {
  case DType::f32:
    return Tensor(
        std::vector<float>(a.data<float>(), a.data<float>() + a.numElements()),
        a.shape);
  case DType::f64:
    return Tensor(std::vector<double>(a.data<double>(),
                                      a.data<double>() + a.numElements()),
                  a.shape);
  case DType::i1: {
    std::vector<bool> v(a.numElements());
    for (int64_t i = 0; i < a.numElements(); ++i)
      v[i] = a.data<bool>()[i];
    return Tensor(v, a.shape);
  }
  case DType::i32:
    return Tensor(std::vector<int32_t>(a.data<int32_t>(),
                                       a.data<int32_t>() + a.numElements()),
                  a.shape);
  case DType::i64:
    return Tensor(std::vector<int64_t>(a.data<int64_t>(),
                                       a.data<int64_t>() + a.numElements()),
                  a.shape);
  }
  throw Error(ErrorKind::Internal, "unknown dtype");
}

/// A rank-0 tensor of `dtype` holding `value` converted like fnc.fill.
Tensor convertedScalar(DType dtype, double value) {
  return fnc::cast(Tensor(value), dtype);
}

} // namespace

KernelResult makeTensor(DType dtype, const Shape &shape,
                        const void *data) noexcept {
  return guard([&] {
    ref::Array a = ref::Array::allocate(dtype, shape);
    if (a.numBytes())
      std::memcpy(a.rawMutableData(), data, a.numBytes());
    return toTensor(a);
  });
}

bool readInt(const Tensor &t, int64_t index, int64_t &value,
             std::string &error) noexcept {
  KernelResult r = guard([&] {
    if (index < 0 || index >= t.size())
      throw Error(ErrorKind::OutOfRange, "element index out of range");
    switch (t.dtype()) {
    case DType::i32:
      value = t.data<int32_t>()[index];
      break;
    case DType::i64:
      value = t.data<int64_t>()[index];
      break;
    case DType::i1:
      value = t.data<bool>()[index];
      break;
    default:
      throw Error(ErrorKind::InvalidArgument,
                  std::string("expected an integer tensor, got ") +
                      dtypeName(t.dtype()));
    }
    return t;
  });
  if (!r.ok)
    error = r.message;
  return r.ok;
}

bool readBool(const Tensor &t, bool &value, std::string &error) noexcept {
  KernelResult r = guard([&] {
    value = t.item<bool>();
    return t;
  });
  if (!r.ok)
    error = r.message;
  return r.ok;
}

KernelResult fill(DType dtype, const Shape &shape, double value) noexcept {
  return guard([&] { return fnc::fill(shape, convertedScalar(dtype, value)); });
}

KernelResult range(DType dtype, double start, double delta,
                   int64_t count) noexcept {
  return guard([&] {
    ref::Array a = ref::Array::allocate(dtype, {count});
    ref::range(start, delta, a);
    return toTensor(a);
  });
}

KernelResult eye(DType dtype, int64_t n, int64_t m) noexcept {
  return guard([&] { return fnc::eye(n, m, dtype); });
}

KernelResult cast(const Tensor &x, DType dtype) noexcept {
  return guard([&] { return fnc::cast(x, dtype); });
}

KernelResult binary(ref::BinaryOp op, const Tensor &x,
                    const Tensor &y) noexcept {
  return guard([&] {
    switch (op) {
    case ref::BinaryOp::Add:
      return fnc::add(x, y);
    case ref::BinaryOp::Sub:
      return fnc::sub(x, y);
    case ref::BinaryOp::Mul:
      return fnc::mul(x, y);
    case ref::BinaryOp::Div:
      return fnc::div(x, y);
    case ref::BinaryOp::Pow:
      return fnc::pow(x, y);
    case ref::BinaryOp::Maximum:
      return fnc::maximum(x, y);
    case ref::BinaryOp::Minimum:
      return fnc::minimum(x, y);
    case ref::BinaryOp::FloorMod:
      return fnc::floor_mod(x, y);
    case ref::BinaryOp::FloorDiv:
      return fnc::floor_div(x, y);
    case ref::BinaryOp::Equal:
      return fnc::equal(x, y);
    case ref::BinaryOp::NotEqual:
      return fnc::not_equal(x, y);
    case ref::BinaryOp::Less:
      return fnc::less(x, y);
    case ref::BinaryOp::LessEqual:
      return fnc::less_equal(x, y);
    case ref::BinaryOp::Greater:
      return fnc::greater(x, y);
    case ref::BinaryOp::GreaterEqual:
      return fnc::greater_equal(x, y);
    case ref::BinaryOp::LogicalAnd:
      return fnc::logical_and(x, y);
    case ref::BinaryOp::LogicalOr:
      return fnc::logical_or(x, y);
    }
    throw Error(ErrorKind::Internal, "unknown binary op");
  });
}

KernelResult unary(ref::UnaryOp op, const Tensor &x) noexcept {
  return guard([&] {
    switch (op) {
    case ref::UnaryOp::Neg:
      return fnc::neg(x);
    case ref::UnaryOp::Abs:
      return fnc::abs(x);
    case ref::UnaryOp::Exp:
      return fnc::exp(x);
    case ref::UnaryOp::Log:
      return fnc::log(x);
    case ref::UnaryOp::Sqrt:
      return fnc::sqrt(x);
    case ref::UnaryOp::Rsqrt:
      return fnc::rsqrt(x);
    case ref::UnaryOp::Tanh:
      return fnc::tanh(x);
    case ref::UnaryOp::Sigmoid:
      return fnc::sigmoid(x);
    case ref::UnaryOp::Relu:
      return fnc::relu(x);
    case ref::UnaryOp::Square:
      return fnc::square(x);
    case ref::UnaryOp::Sign:
      return fnc::sign(x);
    case ref::UnaryOp::Floor:
      return fnc::floor(x);
    case ref::UnaryOp::Ceil:
      return fnc::ceil(x);
    case ref::UnaryOp::LogicalNot:
      return fnc::logical_not(x);
    }
    throw Error(ErrorKind::Internal, "unknown unary op");
  });
}

KernelResult select(const Tensor &cond, const Tensor &x,
                    const Tensor &y) noexcept {
  return guard([&] { return fnc::select(cond, x, y); });
}

KernelResult matmul(const Tensor &a, const Tensor &b) noexcept {
  return guard([&] { return fnc::matmul(a, b); });
}

KernelResult conv2d(const Tensor &input, const Tensor &filter,
                    const std::vector<int64_t> &strides,
                    bool samePadding) noexcept {
  return guard([&] {
    return fnc::conv2d(input, filter, strides, samePadding ? "SAME" : "VALID");
  });
}

KernelResult transpose(const Tensor &x,
                       const std::vector<int64_t> &perm) noexcept {
  return guard([&] {
    // An empty perm means "reverse" to the eager op; it only occurs for
    // rank 0, where both readings agree.
    return fnc::transpose(x, perm);
  });
}

KernelResult reshape(const Tensor &x, const Shape &target) noexcept {
  return guard([&] { return fnc::reshape(x, target); });
}

KernelResult broadcastTo(const Tensor &x, const Shape &target) noexcept {
  return guard([&] { return fnc::broadcast_to(x, target); });
}

KernelResult expandDims(const Tensor &x, int64_t axis) noexcept {
  return guard([&] { return fnc::expand_dims(x, axis); });
}

KernelResult squeeze(const Tensor &x,
                     const std::vector<int64_t> &axes) noexcept {
  return guard([&] {
    if (axes.empty())
      throw Error(ErrorKind::Internal, "squeeze with no axes");
    return fnc::squeeze(x, axes);
  });
}

KernelResult slice(const Tensor &x, const std::vector<int64_t> &offsets,
                   const std::vector<int64_t> &sizes,
                   const std::vector<int64_t> &strides) noexcept {
  return guard([&] {
    // Sizes of the op are >= 0; -1 ("to the end") of the eager op is not
    // one of them.
    for (int64_t s : sizes)
      if (s < 0)
        throw Error(ErrorKind::InvalidArgument,
                    "fnc::slice: sizes must be >= 0");
    return fnc::slice(x, offsets, sizes, strides);
  });
}

KernelResult concat(const std::vector<Tensor> &inputs, int64_t axis) noexcept {
  return guard([&] { return fnc::concat(inputs, axis); });
}

KernelResult gather(const Tensor &params, const Tensor &indices,
                    int64_t axis) noexcept {
  return guard([&] { return fnc::gather(params, indices, axis); });
}

KernelResult oneHot(const Tensor &indices, int64_t depth, int64_t axis,
                    double on, double off, DType dtype) noexcept {
  return guard([&] {
    // Computed in f64, where every attribute value is exact, then converted
    // elementwise like fnc.fill converts its value.
    Tensor wide = fnc::one_hot(indices, depth, on, off, axis, DType::f64);
    return fnc::cast(wide, dtype);
  });
}

KernelResult reduce(ref::ReduceOp op, const Tensor &x,
                    const std::vector<int64_t> &axes, bool keepDims) noexcept {
  return guard([&] {
    switch (op) {
    case ref::ReduceOp::Sum:
      return fnc::reduce_sum(x, axes, keepDims);
    case ref::ReduceOp::Mean:
      return fnc::reduce_mean(x, axes, keepDims);
    case ref::ReduceOp::Max:
      return fnc::reduce_max(x, axes, keepDims);
    case ref::ReduceOp::Min:
      return fnc::reduce_min(x, axes, keepDims);
    case ref::ReduceOp::Prod:
      return fnc::reduce_prod(x, axes, keepDims);
    case ref::ReduceOp::Any:
      return fnc::reduce_any(x, axes, keepDims);
    case ref::ReduceOp::All:
      return fnc::reduce_all(x, axes, keepDims);
    }
    throw Error(ErrorKind::Internal, "unknown reduction");
  });
}

KernelResult argmax(const Tensor &x, int64_t axis, DType dtype) noexcept {
  return guard([&] { return fnc::argmax(x, axis, dtype); });
}

KernelResult softmax(const Tensor &x, int64_t axis, bool log) noexcept {
  return guard(
      [&] { return log ? fnc::log_softmax(x, axis) : fnc::softmax(x, axis); });
}

KernelResult randomUniform(DType dtype, const Shape &shape, double min,
                           double max, uint64_t key,
                           uint64_t counter) noexcept {
  return guard([&] {
    ref::Array a = ref::Array::allocate(dtype, shape);
    ref::randomUniform(key, counter, min, max, a);
    return toTensor(a);
  });
}

KernelResult randomNormal(DType dtype, const Shape &shape, double mean,
                          double stddev, uint64_t key,
                          uint64_t counter) noexcept {
  return guard([&] {
    ref::Array a = ref::Array::allocate(dtype, shape);
    ref::randomNormal(key, counter, mean, stddev, a);
    return toTensor(a);
  });
}

std::string valuesText(const Tensor &t) noexcept {
  try {
    if (!t.defined())
      return "";
    std::string s = t.str();
    // "fnc.Tensor(<body>, shape=(...), dtype=...)"; the body never contains
    // ", shape=(", and a multi-line body starts with an extra newline.
    constexpr const char *kPrefix = "fnc.Tensor(";
    size_t begin = s.rfind(kPrefix, 0) == 0 ? std::strlen(kPrefix) : 0;
    size_t end = s.rfind(", shape=(");
    if (end == std::string::npos || end < begin)
      return s;
    std::string body = s.substr(begin, end - begin);
    if (!body.empty() && body.front() == '\n')
      body.erase(0, 1);
    return body;
  } catch (...) {
    return "<unprintable tensor>";
  }
}

} // namespace fnc::interp
