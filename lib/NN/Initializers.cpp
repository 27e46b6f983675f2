//===- Initializers.cpp - fnc::nn initializers and activations -----------===//
//
// The Keras initializers (fans, Glorot/He scaling, the truncated normal)
// and the activations that are compositions of fnc ops. Initializers run
// eagerly: fnc::Variable runs them under a fnc::InitScope.
//
//===----------------------------------------------------------------------===//

#include "fnc/Effects.h"
#include "fnc/Error.h"
#include "fnc/NN.h"

#include <algorithm>
#include <cmath>

namespace fnc::nn {

namespace {

struct Fans {
  double in = 1, out = 1;
};

/// Keras's fans: [n] -> n, n; [in, out]; a conv kernel [..., in, out] scales
/// both by the receptive field (the product of the leading dims).
Fans fansOf(const Shape &shape) {
  Fans f;
  if (shape.size() == 1) {
    f.in = f.out = static_cast<double>(shape[0]);
  } else if (shape.size() >= 2) {
    double receptive = 1;
    for (size_t i = 0; i + 2 < shape.size(); ++i)
      receptive *= static_cast<double>(shape[i]);
    f.in = static_cast<double>(shape[shape.size() - 2]) * receptive;
    f.out = static_cast<double>(shape.back()) * receptive;
  }
  return f;
}

void requireFloat(DType dtype, const char *initializer) {
  if (dtype != DType::f32 && dtype != DType::f64)
    throw Error(ErrorKind::InvalidArgument,
                std::string("fnc::nn::init::") + initializer +
                    ": the variable must be float32 or float64, got " +
                    dtypeName(dtype));
}

/// Normal values truncated at two standard deviations (redrawn outside).
Tensor truncatedNormal(const Shape &shape, double stddev, DType dtype,
                       std::optional<int64_t> seed) {
  Tensor x = random_normal(shape, 0, 1, dtype, seed);
  for (;;) {
    Tensor outside = greater(abs(x), 2.0);
    if (!reduce_any(outside).item<bool>())
      break;
    x = select(outside, random_normal(shape, 0, 1, dtype, seed), x);
  }
  // The standard deviation of a unit normal truncated at +-2.
  constexpr double kTruncatedStddev = 0.87962566103423978;
  return x * fill({}, stddev / kTruncatedStddev, dtype);
}

/// Variance scaling (Keras): scale / fan, uniform or truncated normal.
Initializer varianceScaling(const char *name, double scale, bool fanInOnly,
                            bool uniform, std::optional<int64_t> seed) {
  return [=](const Shape &shape, DType dtype) {
    requireFloat(dtype, name);
    Fans f = fansOf(shape);
    double n = fanInOnly ? f.in : (f.in + f.out) / 2;
    double variance = scale / std::max(1.0, n);
    if (uniform) {
      double limit = std::sqrt(3 * variance);
      return random_uniform(shape, -limit, limit, dtype, seed);
    }
    return truncatedNormal(shape, std::sqrt(variance), dtype, seed);
  };
}

} // namespace

namespace init {
Initializer zeros() {
  return
      [](const Shape &shape, DType dtype) { return fnc::zeros(shape, dtype); };
}
Initializer ones() {
  return
      [](const Shape &shape, DType dtype) { return fnc::ones(shape, dtype); };
}
Initializer constant(double value) {
  return [value](const Shape &shape, DType dtype) {
    return fnc::fill(shape, value, dtype);
  };
}
Initializer random_normal(double mean, double stddev,
                          std::optional<int64_t> seed) {
  return [=](const Shape &shape, DType dtype) {
    requireFloat(dtype, "random_normal");
    return fnc::random_normal(shape, mean, stddev, dtype, seed);
  };
}
Initializer random_uniform(double minval, double maxval,
                           std::optional<int64_t> seed) {
  if (!(minval < maxval))
    throw Error(ErrorKind::InvalidArgument,
                "fnc::nn::init::random_uniform: minval must be below maxval, "
                "got " +
                    std::to_string(minval) + " and " + std::to_string(maxval));
  return [=](const Shape &shape, DType dtype) {
    requireFloat(dtype, "random_uniform");
    return fnc::random_uniform(shape, minval, maxval, dtype, seed);
  };
}
Initializer orthogonal(double gain, std::optional<int64_t> seed) {
  return [=](const Shape &shape, DType dtype) {
    requireFloat(dtype, "orthogonal");
    if (shape.size() < 2)
      throw Error(ErrorKind::InvalidArgument,
                  "fnc::nn::init::orthogonal: needs a variable of rank >= 2, "
                  "got rank " +
                      std::to_string(shape.size()));
    int64_t cols = shape.back(), rows = 1;
    for (size_t i = 0; i + 1 < shape.size(); ++i)
      rows *= shape[i];
    // Keras: the Q of a normal [max, min] matrix (signs fixed by R's
    // diagonal, which Gram-Schmidt keeps positive), transposed if wide.
    int64_t n = std::max(rows, cols), m = std::min(rows, cols);
    std::vector<double> a =
        random_normal({n, m}, 0, 1, DType::f64, seed).to_vector<double>();
    for (int64_t j = 0; j < m; ++j) {
      for (int64_t k = 0; k < j; ++k) {
        double dot = 0;
        for (int64_t i = 0; i < n; ++i)
          dot += a[i * m + j] * a[i * m + k];
        for (int64_t i = 0; i < n; ++i)
          a[i * m + j] -= dot * a[i * m + k];
      }
      double norm = 0;
      for (int64_t i = 0; i < n; ++i)
        norm += a[i * m + j] * a[i * m + j];
      norm = std::sqrt(norm);
      for (int64_t i = 0; i < n; ++i)
        a[i * m + j] /= norm;
    }
    Tensor q = Tensor(a, {n, m});
    if (rows < cols)
      q = transpose(q);
    return cast(reshape(q * gain, shape), dtype);
  };
}
Initializer glorot_uniform(std::optional<int64_t> seed) {
  return varianceScaling("glorot_uniform", 1, false, true, seed);
}
Initializer glorot_normal(std::optional<int64_t> seed) {
  return varianceScaling("glorot_normal", 1, false, false, seed);
}
Initializer he_uniform(std::optional<int64_t> seed) {
  return varianceScaling("he_uniform", 2, true, true, seed);
}
Initializer he_normal(std::optional<int64_t> seed) {
  return varianceScaling("he_normal", 2, true, false, seed);
}
} // namespace init

Tensor leaky_relu(const Tensor &x, double alpha) {
  return select(greater(x, 0.0), x, x * alpha);
}

Tensor elu(const Tensor &x, double alpha) {
  return select(greater(x, 0.0), x, expm1(x) * alpha);
}

Tensor gelu(const Tensor &x) { return x * (erf(x * M_SQRT1_2) + 1.0) * 0.5; }

Tensor silu(const Tensor &x) { return x * sigmoid(x); }

} // namespace fnc::nn
