//===- Effects.cpp - fnc::print and random numbers, eager and staged ------===//
//
// Eagerly, fnc::print formats with the runtime's value format and writes
// through the runtime's output stream, and the random ops call the
// runtime's generator (the same Philox streams and global seed as staged
// code). In a trace they record fnc.print / fnc.random_* (lib/Trace).
//
//===----------------------------------------------------------------------===//

#include "fnc/Effects.h"

#include "fnc/API/OpSupport.h"
#include "fnc/API/Print.h"
#include "fnc/Runtime/Runtime.h"

#include <algorithm>
#include <limits>

namespace fnc {

namespace detail {
void printImpl(const std::string &format, const std::vector<Tensor> &tensors) {
  for (size_t i = 0; i < tensors.size(); ++i)
    if (!tensors[i].defined())
      throw Error(ErrorKind::InvalidArgument,
                  "fnc::print: tensor #" + std::to_string(i) +
                      " is a null fnc::Tensor");
  size_t holes = 0;
  for (size_t p = format.find("{}"); p != std::string::npos;
       p = format.find("{}", p + 2))
    ++holes;
  if (holes > tensors.size())
    throw Error(ErrorKind::InvalidArgument,
                "fnc::print: the format \"" + format + "\" has " +
                    std::to_string(holes) + " `{}` but " +
                    std::to_string(tensors.size()) +
                    " tensors were given; pass one tensor per `{}`");
  if (trace::Recorder *r = api::recording()) {
    trace::OpRecord rec; // no result: dtype and shape stay unset
    rec.op = trace::ops::Print{format};
    for (const Tensor &t : tensors)
      rec.operands.push_back(r->valueOf(t, "print"));
    std::string error;
    if (r->record(rec, error) < 0)
      throw Error(ErrorKind::Unimplemented, "fnc::print: " + error);
    return;
  }
  // The same text as the lowering of fnc.print.
  std::string out;
  std::string rest = format;
  size_t next = 0;
  if (holes) {
    for (size_t p; (p = rest.find("{}")) != std::string::npos;) {
      out += rest.substr(0, p) + formatValues(tensors[next++]);
      rest = rest.substr(p + 2);
    }
  }
  out += rest;
  for (; next < tensors.size(); ++next) {
    if (!format.empty() || next > 0)
      out += " ";
    out += formatValues(tensors[next]);
  }
  StridedMemRefType<int8_t, 1> text;
  text.basePtr = text.data =
      reinterpret_cast<int8_t *>(const_cast<char *>(out.data()));
  text.offset = 0;
  text.sizes[0] = static_cast<int64_t>(out.size());
  text.strides[0] = 1;
  runtime::CallContext context;
  FncContextRef ref = context.ref();
  _mlir_ciface_fncPrintText(&ref, &text);
  _mlir_ciface_fncPrintNewline(&ref);
  if (std::optional<std::string> error = context.error())
    throw Error(ErrorKind::Internal, "fnc::print: " + *error);
}
} // namespace detail

void set_random_seed(uint64_t seed) { runtime::setGlobalSeed(seed); }

namespace {

/// The stream of unseeded eager random ops (staged ones get their own).
constexpr int64_t kEagerStream = std::numeric_limits<int64_t>::max() - 1;

void checkRandomArgs(const char *op, bool normal, double a, double b,
                     DType dtype) {
  if (dtype != DType::f32 && dtype != DType::f64)
    throw Error(ErrorKind::InvalidArgument,
                std::string("fnc::") + op +
                    ": the dtype must be float32 or float64, got " +
                    dtypeName(dtype));
  if (!normal && !(a < b))
    throw Error(ErrorKind::InvalidArgument,
                std::string("fnc::") + op + ": minval (" + std::to_string(a) +
                    ") must be less than maxval (" + std::to_string(b) + ")");
  if (normal && b < 0)
    throw Error(ErrorKind::InvalidArgument,
                std::string("fnc::") + op + ": stddev must be >= 0");
}

trace::OpAttrs randomAttrs(bool normal, double a, double b,
                           std::optional<int64_t> seed) {
  if (normal)
    return trace::ops::RandomNormal{a, b, seed};
  return trace::ops::RandomUniform{a, b, seed};
}

Tensor randomOp(const char *op, bool normal, const Shape &shape, double a,
                double b, DType dtype, std::optional<int64_t> seed) {
  checkRandomArgs(op, normal, a, b, dtype);
  api::requireValidShape(op, shape);
  if (trace::Recorder *r = api::recording()) {
    return api::record(*r, randomAttrs(normal, a, b, seed), dtype, shape, {},
                       op);
  }
  ref::Array out = ref::Array::allocate(dtype, shape);
  int64_t n = out.numElements();
  int64_t key = seed ? *seed : kEagerStream;
  runtime::CallContext context;
  FncContextRef ref = context.ref();
  auto run = [&](auto *data) {
    using T = std::remove_pointer_t<decltype(data)>;
    StridedMemRefType<T, 1> d;
    d.basePtr = d.data = data;
    d.offset = 0;
    d.sizes[0] = n;
    d.strides[0] = 1;
    UnrankedMemRefType<T> u{1, &d};
    if constexpr (std::is_same_v<T, float>) {
      if (normal)
        _mlir_ciface_fncRandomNormalF32(&ref, &u, key, a, b);
      else
        _mlir_ciface_fncRandomUniformF32(&ref, &u, key, a, b);
    } else {
      if (normal)
        _mlir_ciface_fncRandomNormalF64(&ref, &u, key, a, b);
      else
        _mlir_ciface_fncRandomUniformF64(&ref, &u, key, a, b);
    }
  };
  if (n > 0) {
    if (dtype == DType::f32)
      run(out.mutableData<float>());
    else
      run(out.mutableData<double>());
  }
  if (std::optional<std::string> error = context.error())
    throw Error(ErrorKind::Internal, std::string("fnc::") + op + ": " + *error);
  return api::wrap(std::move(out));
}

} // namespace

namespace detail {
Tensor randomFromShapeTensor(const char *op, bool normal,
                             const Tensor &shapeTensor, double a, double b,
                             DType dtype, std::optional<int64_t> seed) {
  Shape shape = api::dimsOfShapeTensor(shapeTensor, op);
  if (!trace::isSymbolic(shapeTensor))
    return randomOp(op, normal, shape, a, b, dtype, seed);
  // Dispatch point: the unknown dims are read from the shape at run time.
  checkRandomArgs(op, normal, a, b, dtype);
  return api::record(*api::recording(), randomAttrs(normal, a, b, seed),
                     dtype, std::move(shape), {&shapeTensor}, op);
}
} // namespace detail

Tensor random_uniform(const Shape &shape, double minval, double maxval,
                      DType dtype, std::optional<int64_t> seed) {
  return randomOp("random_uniform", false, shape, minval, maxval, dtype, seed);
}

Tensor random_normal(const Shape &shape, double mean, double stddev,
                     DType dtype, std::optional<int64_t> seed) {
  return randomOp("random_normal", true, shape, mean, stddev, dtype, seed);
}

Tensor dropout(const Tensor &x, double rate, std::optional<int64_t> seed) {
  if (!(rate >= 0 && rate < 1))
    throw Error(ErrorKind::InvalidArgument,
                "fnc::dropout: rate must be in [0, 1), got " +
                    std::to_string(rate));
  if (x.dtype() != DType::f32 && x.dtype() != DType::f64)
    throw Error(ErrorKind::InvalidArgument,
                "fnc::dropout: x must be float32 or float64, got " +
                    std::string(dtypeName(x.dtype())));
  if (rate == 0)
    return x;
  bool known = std::none_of(x.shape().begin(), x.shape().end(),
                            [](int64_t d) { return shapes::isDynamic(d); });
  Tensor u = known ? random_uniform(x.shape(), 0, 1, x.dtype(), seed)
                   : random_uniform(shape(x, DType::i64), 0, 1, x.dtype(),
                                    seed);
  Tensor keep = cast(greater_equal(u, fill({}, rate, x.dtype())), x.dtype());
  return x * keep * fill({}, 1 / (1 - rate), x.dtype());
}

} // namespace fnc
