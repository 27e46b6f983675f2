//===- Effects.h - Printing and random numbers, eager and staged -*- C++ -*-===//
//
// Effects that must happen on every call of a staged function, not just
// while tracing (C++ `std::cout` in a fnc::function prints at trace time
// only):
//
//   fnc::print("x = {}, y = {}", x, y);  // every call, in program order
//   Tensor r = fnc::random_uniform({2, 3});  // fresh values every call
//
// fnc::print writes `format` with each `{}` replaced by the next tensor's
// values in the eager format (`[1. 2.]`, `4.0`), then a newline; without
// `{}` the tensors follow the format, separated by spaces. Eager and staged
// printing go to the same stream (the runtime's, std::cout by default).
//
// Random ops draw from a counter-based Philox generator: each op (eagerly:
// each seed; unseeded eager ops share one stream) advances its own counter,
// so repeated calls give fresh values. fnc::set_random_seed makes both
// eager and staged draws reproducible from then on; an op `seed`
// distinguishes streams.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_EFFECTS_H
#define FNC_EFFECTS_H

#include "fnc/Ops.h"
#include "fnc/Tensor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fnc {

namespace detail {
void printImpl(const std::string &format, const std::vector<Tensor> &tensors);
} // namespace detail

/// Prints `format` with the tensors' values (see the file comment); staged
/// as fnc.print in a trace, so it runs on every call.
template <typename... Ts>
void print(const std::string &format, const Ts &...tensors) {
  detail::printImpl(format, std::vector<Tensor>{Tensor(tensors)...});
}
/// The same for a literal format: `print("x = {}", x)` (a string literal
/// would convert to a string tensor as well as to std::string).
template <typename... Ts> void print(const char *format, const Ts &...tensors) {
  detail::printImpl(format, std::vector<Tensor>{Tensor(tensors)...});
}
/// Prints the tensors' values separated by spaces (tf.print(x, y)); to
/// print a string tensor first, pass it as a Tensor.
template <typename... Ts> void print(const Tensor &first, const Ts &...rest) {
  detail::printImpl("", std::vector<Tensor>{first, Tensor(rest)...});
}

/// Sets the global seed (eager and staged generators) and resets every
/// stream, so the values drawn from then on are reproducible.
void set_random_seed(uint64_t seed);

/// Values uniform in [minval, maxval) of a float dtype.
Tensor random_uniform(const Shape &shape, double minval = 0, double maxval = 1,
                      DType dtype = DType::f32,
                      std::optional<int64_t> seed = std::nullopt);
/// Normally distributed values of a float dtype.
Tensor random_normal(const Shape &shape, double mean = 0, double stddev = 1,
                     DType dtype = DType::f32,
                     std::optional<int64_t> seed = std::nullopt);

namespace detail {
Tensor randomFromShapeTensor(const char *op, bool normal, const Tensor &shape,
                             double a, double b, DType dtype,
                             std::optional<int64_t> seed);
} // namespace detail

/// The same with the shape held in a 1-D int32/int64 tensor such as
/// fnc::shape(x) (tf.random.uniform(tf.shape(x))): while tracing, the dims
/// of x unknown then are read at run time. (Templates only so that
/// `random_uniform({2, 3})` stays the Shape overload.)
template <typename T, detail::IfTensor<T> = 0>
Tensor random_uniform(const T &shape, double minval = 0, double maxval = 1,
                      DType dtype = DType::f32,
                      std::optional<int64_t> seed = std::nullopt) {
  return detail::randomFromShapeTensor("random_uniform", false, shape, minval,
                                       maxval, dtype, seed);
}
template <typename T, detail::IfTensor<T> = 0>
Tensor random_normal(const T &shape, double mean = 0, double stddev = 1,
                     DType dtype = DType::f32,
                     std::optional<int64_t> seed = std::nullopt) {
  return detail::randomFromShapeTensor("random_normal", true, shape, mean,
                                       stddev, dtype, seed);
}

/// Zeroes each element of `x` with probability `rate` and scales the rest
/// by 1 / (1 - rate) (x must have a float dtype; dims unknown while tracing,
/// such as a batch dim, are fine).
Tensor dropout(const Tensor &x, double rate,
               std::optional<int64_t> seed = std::nullopt);

} // namespace fnc

#endif // FNC_EFFECTS_H
