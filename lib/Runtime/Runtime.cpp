//===- Runtime.cpp - The C runtime called by generated code ---------------===//
//
// Printing (through the eager API's numpy-compatible formatter), the
// counter-based Philox4x32-10 random generator and the per-call error
// context. Every entry point called by generated code catches all
// exceptions: they must never unwind through JIT-compiled frames.
//
//===----------------------------------------------------------------------===//

#include "fnc/Runtime/Runtime.h"
#include "fnc/API/Print.h"
#include "fnc/API/Profile.h"
#include "fnc/Memory.h"
#include "fnc/Tensor.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <random>
#include <unistd.h>
#include <unordered_map>

using namespace fnc;
using namespace fnc::runtime;

namespace {

//===----------------------------------------------------------------------===//
// State
//===----------------------------------------------------------------------===//

struct OutputState {
  std::mutex mutex;
  std::ostream *os = nullptr;
  std::ostream &stream() { return os ? *os : std::cout; }
};
OutputState &output() {
  static OutputState state;
  return state;
}

struct RandomState {
  std::mutex mutex;
  bool seeded = false;
  uint64_t seed = 0;
  std::unordered_map<int64_t, uint64_t> counters;
};
RandomState &randomState() {
  static RandomState state;
  return state;
}

/// The call running on this thread inside invoke(), if any (initial-exec:
/// set twice per call; see lib/API/Trace.cpp).
__attribute__((tls_model("initial-exec"))) thread_local CallContext
    *currentCall = nullptr;

/// Reports `code` for the current call and abandons it; where that is not
/// possible, reports and exits.
[[noreturn]] void abandonCall(CallContext *call, ErrorCode code, int64_t a,
                              const std::string &text = {}) {
  if (call && !inParallelRegion()) {
    call->raise(static_cast<int64_t>(code), a, 0, text);
    std::longjmp(call->abandon, 1);
  }
  std::string message = text.empty()
                            ? errorMessage(static_cast<int64_t>(code), a, 0)
                            : text;
  std::fprintf(stderr, "fnc: error: %s (in a parallel loop, where the call "
                       "cannot be abandoned)\n",
               message.c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

CallContext &contextOf(FncContextRef *ref) {
  return *static_cast<CallContext *>(static_cast<void *>(ref->basePtr));
}

void raise(FncContextRef *ref, ErrorCode code) {
  contextOf(ref).raise(static_cast<int64_t>(code), 0, 0);
}

void write(const std::string &text) {
  OutputState &out = output();
  std::lock_guard<std::mutex> lock(out.mutex);
  out.stream() << text;
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

/// Copies the (strided) memref into a row-major tensor and formats it.
template <typename T>
void printTensor(FncContextRef *ctx, UnrankedMemRefType<T> *memref) {
  try {
    DynamicMemRefType<T> d(*memref);
    std::vector<int64_t> shape;
    int64_t count = 1;
    for (int64_t i = 0; i < d.rank; ++i) {
      shape.push_back(d.sizes[i]);
      count *= d.sizes[i];
    }
    std::vector<T> values;
    values.reserve(count);
    if (count > 0) {
      std::vector<int64_t> index(d.rank, 0);
      for (int64_t n = 0; n < count; ++n) {
        int64_t pos = d.offset;
        for (int64_t i = 0; i < d.rank; ++i)
          pos += index[i] * d.strides[i];
        values.push_back(d.data[pos]);
        for (int64_t i = d.rank - 1; i >= 0; --i) {
          if (++index[i] < shape[i])
            break;
          index[i] = 0;
        }
      }
    }
    Tensor t(values, shape);
    write(detail::formatValues(t));
  } catch (...) {
    raise(ctx, ErrorCode::Internal);
  }
}

//===----------------------------------------------------------------------===//
// Random numbers
//===----------------------------------------------------------------------===//

constexpr uint32_t kPhiloxM0 = 0xD2511F53, kPhiloxM1 = 0xCD9E8D57;
constexpr uint32_t kPhiloxW0 = 0x9E3779B9, kPhiloxW1 = 0xBB67AE85;

/// Reserves `blocks` Philox blocks of the stream of `opKey`: returns the key
/// and the first block index.
void reserve(int64_t opKey, uint64_t blocks, std::array<uint32_t, 2> &key,
             uint64_t &first) {
  RandomState &state = randomState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (!state.seeded) {
    std::random_device device;
    state.seed = (static_cast<uint64_t>(device()) << 32) ^ device();
    state.seeded = true;
  }
  uint64_t &counter = state.counters[opKey];
  first = counter;
  counter += blocks;
  key = {static_cast<uint32_t>(state.seed),
         static_cast<uint32_t>(state.seed >> 32)};
}

/// Block `i` of the stream of `opKey`: the counter holds the block index in
/// its low words and the op key in its high words.
std::array<uint32_t, 4> block(uint64_t i, int64_t opKey,
                              const std::array<uint32_t, 2> &key) {
  uint64_t k = static_cast<uint64_t>(opKey);
  return philox4x32({static_cast<uint32_t>(i), static_cast<uint32_t>(i >> 32),
                     static_cast<uint32_t>(k), static_cast<uint32_t>(k >> 32)},
                    key);
}

/// [0, 1) from the top 24 bits / (0, 1] for Box-Muller's logarithm.
double unit24(uint32_t x) { return (x >> 8) * 0x1p-24; }
double unit53(uint32_t hi, uint32_t lo) {
  return ((static_cast<uint64_t>(hi) << 32 | lo) >> 11) * 0x1p-53;
}

template <typename T>
T *contiguousData(UnrankedMemRefType<T> *memref, int64_t &count) {
  DynamicMemRefType<T> d(*memref);
  count = 1;
  for (int64_t i = 0; i < d.rank; ++i)
    count *= d.sizes[i];
  return d.data + d.offset;
}

/// Values per Philox block: 4 for f32 (24 bits each), 2 for f64 (53 bits).
template <typename T> constexpr int64_t kPerBlock = sizeof(T) == 4 ? 4 : 2;

/// Fills `memref` with `perBlock` uniform numbers in [0, 1) per block, given
/// to `emit(u0, u1, ..., index)`.
template <typename T, typename Emit>
void fill(FncContextRef *ctx, UnrankedMemRefType<T> *memref, int64_t opKey,
          Emit emit) {
  int64_t count;
  T *data = contiguousData(memref, count);
  if (count <= 0)
    return;
  constexpr int64_t per = kPerBlock<T>;
  uint64_t blocks = (count + per - 1) / per;
  std::array<uint32_t, 2> key;
  uint64_t first;
  try {
    reserve(opKey, blocks, key, first);
  } catch (...) { // std::random_device or the counter map failed
    raise(ctx, ErrorCode::Internal);
    return;
  }
  double u[4];
  for (uint64_t b = 0; b < blocks; ++b) {
    std::array<uint32_t, 4> x = block(first + b, opKey, key);
    if (per == 4) {
      for (int i = 0; i < 4; ++i)
        u[i] = unit24(x[i]);
    } else {
      u[0] = unit53(x[0], x[1]);
      u[1] = unit53(x[2], x[3]);
    }
    int64_t base = static_cast<int64_t>(b) * per;
    emit(data + base, std::min<int64_t>(per, count - base), u);
  }
}

template <typename T>
void uniform(FncContextRef *ctx, UnrankedMemRefType<T> *memref, int64_t opKey,
             double min, double max) {
  fill(ctx, memref, opKey, [&](T *out, int64_t n, const double *u) {
    for (int64_t i = 0; i < n; ++i) {
      T v = static_cast<T>(min + (max - min) * u[i]);
      // Rounding may reach `max`; keep the interval half-open.
      if (v >= static_cast<T>(max) && min < max)
        v = std::nextafter(static_cast<T>(max), static_cast<T>(min));
      out[i] = v;
    }
  });
}

template <typename T>
void normal(FncContextRef *ctx, UnrankedMemRefType<T> *memref, int64_t opKey,
            double mean, double stddev) {
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  fill(ctx, memref, opKey, [&](T *out, int64_t n, const double *u) {
    for (int64_t i = 0; i < n; i += 2) {
      double r = std::sqrt(-2.0 * std::log(1.0 - u[i]));
      double theta = kTwoPi * u[i + 1];
      out[i] = static_cast<T>(mean + stddev * r * std::cos(theta));
      if (i + 1 < n)
        out[i + 1] = static_cast<T>(mean + stddev * r * std::sin(theta));
    }
  });
}

} // namespace

//===----------------------------------------------------------------------===//
// C entry points
//===----------------------------------------------------------------------===//

extern "C" {

void _mlir_ciface_fncPrintText(FncContextRef *ctx,
                               StridedMemRefType<int8_t, 1> *text) {
  try {
    std::string s;
    s.reserve(text->sizes[0]);
    for (int64_t i = 0; i < text->sizes[0]; ++i)
      s += static_cast<char>(text->data[text->offset + i * text->strides[0]]);
    write(s);
  } catch (...) {
    raise(ctx, ErrorCode::Internal);
  }
}

void _mlir_ciface_fncPrintTensorF32(FncContextRef *ctx,
                                    UnrankedMemRefType<float> *t) {
  printTensor(ctx, t);
}
void _mlir_ciface_fncPrintTensorF64(FncContextRef *ctx,
                                    UnrankedMemRefType<double> *t) {
  printTensor(ctx, t);
}
void _mlir_ciface_fncPrintTensorI1(FncContextRef *ctx,
                                   UnrankedMemRefType<bool> *t) {
  printTensor(ctx, t);
}
void _mlir_ciface_fncPrintTensorI32(FncContextRef *ctx,
                                    UnrankedMemRefType<int32_t> *t) {
  printTensor(ctx, t);
}
void _mlir_ciface_fncPrintTensorI64(FncContextRef *ctx,
                                    UnrankedMemRefType<int64_t> *t) {
  printTensor(ctx, t);
}

void _mlir_ciface_fncPrintNewline(FncContextRef *ctx) {
  try {
    write("\n");
  } catch (...) {
    raise(ctx, ErrorCode::Internal);
  }
}

void _mlir_ciface_fncRandomUniformF32(FncContextRef *ctx,
                                      UnrankedMemRefType<float> *out,
                                      int64_t opKey, double min, double max) {
  uniform(ctx, out, opKey, min, max);
}
void _mlir_ciface_fncRandomUniformF64(FncContextRef *ctx,
                                      UnrankedMemRefType<double> *out,
                                      int64_t opKey, double min, double max) {
  uniform(ctx, out, opKey, min, max);
}
void _mlir_ciface_fncRandomNormalF32(FncContextRef *ctx,
                                     UnrankedMemRefType<float> *out,
                                     int64_t opKey, double mean,
                                     double stddev) {
  normal(ctx, out, opKey, mean, stddev);
}
void _mlir_ciface_fncRandomNormalF64(FncContextRef *ctx,
                                     UnrankedMemRefType<double> *out,
                                     int64_t opKey, double mean,
                                     double stddev) {
  normal(ctx, out, opKey, mean, stddev);
}

void _mlir_ciface_fncNumericsError(FncContextRef *ctx,
                                   StridedMemRefType<int8_t, 1> *text) {
  try {
    const int8_t *bytes = text->data + text->offset;
    contextOf(ctx).raise(static_cast<int64_t>(ErrorCode::NonFinite), 0, 0,
                         std::string(reinterpret_cast<const char *>(bytes),
                                     text->sizes[0]));
  } catch (...) {
    raise(ctx, ErrorCode::NonFinite);
  }
}

void _mlir_ciface_fncRaiseError(FncContextRef *ctx, int64_t code, int64_t a,
                                int64_t b) {
  contextOf(ctx).raise(code, a, b);
}

void *fncMalloc(size_t bytes) {
  void *p = fnc::memory::allocate(bytes);
  if (!p && bytes)
    abandonCall(currentCall, ErrorCode::OutOfMemory,
                static_cast<int64_t>(bytes));
  return p;
}

void *fncCalloc(size_t count, size_t size) {
  size_t bytes = 0;
  if (__builtin_mul_overflow(count, size, &bytes))
    abandonCall(currentCall, ErrorCode::OutOfMemory,
                static_cast<int64_t>(count));
  void *p = fncMalloc(bytes);
  if (p)
    std::memset(p, 0, bytes);
  return p;
}

void _mlir_ciface_fncCheckFailed(FncContextRef *ctx,
                                 StridedMemRefType<int8_t, 1> *text) {
  CallContext *call = &contextOf(ctx);
  std::string message;
  try {
    message.assign(reinterpret_cast<const char *>(text->data + text->offset),
                   text->sizes[0]);
  } catch (...) {
  }
  abandonCall(call == currentCall ? call : nullptr, ErrorCode::CheckFailed, 0,
              message);
}

void _mlir_ciface_fncSizeOverflow(FncContextRef *ctx, int64_t count) {
  CallContext *call = &contextOf(ctx);
  abandonCall(call == currentCall ? call : nullptr, ErrorCode::SizeOverflow,
              count);
}

} // extern "C"

//===----------------------------------------------------------------------===//
// Host API
//===----------------------------------------------------------------------===//

std::string fnc::runtime::errorMessage(int64_t code, int64_t a, int64_t b) {
  std::string sa = std::to_string(a), sb = std::to_string(b);
  switch (static_cast<ErrorCode>(code)) {
  case ErrorCode::GatherIndex:
    return "gather index " + sa + " is out of range [0, " + sb + ")" +
           (b > 0 ? "; valid indices are 0 to " + std::to_string(b - 1)
                  : "; the gathered axis is empty");
  case ErrorCode::DivisionByZero:
    return "integer division by zero; make sure the divisor has no zeros "
           "(e.g. fnc::select(fnc::not_equal(y, 0), ...)) or cast both "
           "operands to a float dtype";
  case ErrorCode::DimensionMismatch:
    return "dynamic dimension mismatch: " + sa + " vs " + sb +
           " (dims unknown when the code was compiled must agree at run "
           "time, or be 1 where they broadcast)";
  case ErrorCode::ReshapeSize:
    return "cannot reshape a tensor of " + sa +
           " elements: the known dimensions of the new shape multiply to " +
           sb;
  case ErrorCode::NegativeExponent:
    return "integer pow with the negative exponent " + sa +
           "; cast to a float dtype first";
  case ErrorCode::NonFinite:
    return "check_numerics: an op produced NaN or Inf";
  case ErrorCode::SliceOutOfRange:
    return "slice reaches element " + sa + " of a dimension of size " + sb;
  case ErrorCode::RowIndex:
    return "row index " + sa + " is out of range [0, " + sb +
           ") (a write to a fnc::TensorArray past its size, or fnc.set_row)";
  case ErrorCode::NegativeDimension:
    return "a shape holds the negative size " + sa + " (at index " + sb +
           "); sizes must be >= 0";
  case ErrorCode::SqueezeSize:
    return "cannot squeeze a dim of size " + sa +
           ": only dims of size 1 can be squeezed";
  case ErrorCode::OutOfMemory:
    return "out of memory: cannot allocate " + sa + " bytes for a tensor";
  case ErrorCode::SizeOverflow:
    return "a tensor with a dim of " + sa +
           " elements would have more bytes than 64 bits can count (its "
           "sizes come from the inputs or from shape tensors: check them)";
  case ErrorCode::CheckFailed:
    return "a run-time check of an op failed";
  case ErrorCode::WindowTooLarge:
    return "a window (of a pooling op, or a conv2d filter) of " + sa +
           " rows or columns with VALID padding is larger than the input's " +
           sb + "; use SAME padding or a smaller window";
  case ErrorCode::IndexOutOfRange:
    return "index " + sa + " is out of range for a dimension of size " + sb +
           (b == 0 ? std::string(" (the dim is empty)")
                   : " (valid: " + std::to_string(-b) + " to " +
                         std::to_string(b - 1) + ")");
  case ErrorCode::EmptyArgAxis:
    return "argmax / argmin along an empty axis (of a tensor with " + sa +
           " results): there is no extreme element; reduce along a "
           "non-empty axis";
  case ErrorCode::Internal:
    return "internal error in the fnc runtime (out of memory?)";
  }
  return "unknown runtime error code " + std::to_string(code) + " (" + sa +
         ", " + sb + ")";
}

fnc::ErrorKind fnc::runtime::errorKind(int64_t code) {
  switch (static_cast<ErrorCode>(code)) {
  case ErrorCode::GatherIndex:
  case ErrorCode::IndexOutOfRange:
  case ErrorCode::RowIndex:
  case ErrorCode::OutOfMemory:
  case ErrorCode::SizeOverflow:
    return ErrorKind::OutOfRange;
  case ErrorCode::NonFinite:
    return ErrorKind::FailedPrecondition;
  case ErrorCode::Internal:
    return ErrorKind::Internal;
  case ErrorCode::DivisionByZero:
  case ErrorCode::DimensionMismatch:
  case ErrorCode::ReshapeSize:
  case ErrorCode::NegativeExponent:
  case ErrorCode::SliceOutOfRange:
  case ErrorCode::NegativeDimension:
  case ErrorCode::SqueezeSize:
  case ErrorCode::CheckFailed:
  case ErrorCode::WindowTooLarge:
  case ErrorCode::EmptyArgAxis:
    return ErrorKind::InvalidArgument;
  }
  return ErrorKind::Internal;
}

void fnc::runtime::setGlobalSeed(uint64_t seed) {
  RandomState &state = randomState();
  std::lock_guard<std::mutex> lock(state.mutex);
  state.seed = seed;
  state.seeded = true;
  state.counters.clear();
}

void CallContext::raise(int64_t errorCode, int64_t errorA, int64_t errorB,
                        std::string errorText) {
  int64_t none = 0;
  // The winner of the exchange owns a, b and text; they are read after the
  // call returned, which happens after every worker of the call finished.
  if (!code.compare_exchange_strong(none, errorCode, std::memory_order_acq_rel))
    return;
  a = errorA;
  b = errorB;
  text = std::move(errorText);
}

bool CallContext::failed() const {
  return code.load(std::memory_order_acquire) != 0 || loopError[0] != 0;
}

std::optional<std::string> CallContext::error() const {
  int64_t c = code.load(std::memory_order_acquire);
  if (c == static_cast<int64_t>(ErrorCode::NonFinite) && !text.empty())
    return "check_numerics: " + text + " produced NaN or Inf";
  if (c == static_cast<int64_t>(ErrorCode::CheckFailed) && !text.empty())
    return text;
  if (c != 0)
    return errorMessage(c, a, b);
  if (loopError[0] != 0)
    return errorMessage(loopError[0], loopError[1], loopError[2]);
  return std::nullopt;
}

int64_t CallContext::errorCode() const {
  int64_t c = code.load(std::memory_order_acquire);
  return c != 0 ? c : loopError[0];
}

FncContextRef CallContext::ref() {
  return {reinterpret_cast<int64_t *>(this), loopError, 0, {3}, {1}};
}

bool fnc::runtime::invoke(CallContext &context, void (*fn)(void **),
                          void **args) {
  CallContext *outer = currentCall;
  currentCall = &context;
  // Nothing that setjmp's caller keeps in registers is used after a
  // longjmp but `outer`, which is not modified in between.
  if (setjmp(context.abandon) != 0) {
    currentCall = outer;
    return false;
  }
  fn(args);
  currentCall = outer;
  return true;
}

void fnc::runtime::packContext(CallContext &context,
                               int64_t slots[kContextSlots]) {
  FncContextRef ref = context.ref();
  slots[0] = reinterpret_cast<intptr_t>(ref.basePtr);
  slots[1] = reinterpret_cast<intptr_t>(ref.data);
  slots[2] = ref.offset;
  slots[3] = ref.sizes[0];
  slots[4] = ref.strides[0];
}

void fnc::runtime::setOutputStream(std::ostream *os) {
  OutputState &out = output();
  std::lock_guard<std::mutex> lock(out.mutex);
  out.os = os;
}

int64_t fncProfileKernelBegin() {
  return fnc::profile::enabled() ? fnc::profile::now() : -1;
}

void fncProfileKernelEnd(const char *name, const char *function,
                         int64_t start) {
  if (start < 0 || !fnc::profile::enabled())
    return;
  fnc::profile::complete("kernel", name, start, fnc::profile::now(),
                         "\"function\": " + fnc::profile::quoted(function));
}

std::vector<std::pair<std::string, void *>> fnc::runtime::symbols() {
  auto fn = [](auto *f) { return reinterpret_cast<void *>(f); };
  std::vector<std::pair<std::string, void *>> all = {
      {"_mlir_ciface_fncPrintText", fn(&_mlir_ciface_fncPrintText)},
      {"_mlir_ciface_fncPrintNewline", fn(&_mlir_ciface_fncPrintNewline)},
      {"_mlir_ciface_fncPrintTensorF32", fn(&_mlir_ciface_fncPrintTensorF32)},
      {"_mlir_ciface_fncPrintTensorF64", fn(&_mlir_ciface_fncPrintTensorF64)},
      {"_mlir_ciface_fncPrintTensorI1", fn(&_mlir_ciface_fncPrintTensorI1)},
      {"_mlir_ciface_fncPrintTensorI32", fn(&_mlir_ciface_fncPrintTensorI32)},
      {"_mlir_ciface_fncPrintTensorI64", fn(&_mlir_ciface_fncPrintTensorI64)},
      {"_mlir_ciface_fncRandomUniformF32",
       fn(&_mlir_ciface_fncRandomUniformF32)},
      {"_mlir_ciface_fncRandomUniformF64",
       fn(&_mlir_ciface_fncRandomUniformF64)},
      {"_mlir_ciface_fncRandomNormalF32", fn(&_mlir_ciface_fncRandomNormalF32)},
      {"_mlir_ciface_fncRandomNormalF64", fn(&_mlir_ciface_fncRandomNormalF64)},
      {"_mlir_ciface_fncRaiseError", fn(&_mlir_ciface_fncRaiseError)},
      {"_mlir_ciface_fncSizeOverflow", fn(&_mlir_ciface_fncSizeOverflow)},
      {"_mlir_ciface_fncCheckFailed", fn(&_mlir_ciface_fncCheckFailed)},
      // Every allocation of generated code is checked, and comes from (and
      // goes back to) the buffer cache of fnc/Memory.h.
      {"malloc", fn(&fncMalloc)},
      {"calloc", fn(&fncCalloc)},
      {"free", fn(&fnc::memory::release)},
      {"_mlir_ciface_fncNumericsError", fn(&_mlir_ciface_fncNumericsError)},
      {"fncProfileKernelBegin", fn(&fncProfileKernelBegin)},
      {"fncProfileKernelEnd", fn(&fncProfileKernelEnd)},
  };
  for (const ParallelEntry &e : parallelEntries())
    all.emplace_back(e.openmpName, e.address);
  return all;
}

std::array<uint32_t, 4> fnc::runtime::philox4x32(std::array<uint32_t, 4> ctr,
                                                 std::array<uint32_t, 2> key) {
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = static_cast<uint64_t>(kPhiloxM0) * ctr[0];
    uint64_t p1 = static_cast<uint64_t>(kPhiloxM1) * ctr[2];
    uint32_t hi0 = p0 >> 32, lo0 = static_cast<uint32_t>(p0);
    uint32_t hi1 = p1 >> 32, lo1 = static_cast<uint32_t>(p1);
    ctr = {hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0};
    key[0] += kPhiloxW0;
    key[1] += kPhiloxW1;
  }
  return ctr;
}

namespace {
/// The handlers of runAtMainThreadExit, run by the main thread's
/// thread_local destructor.
struct MainThreadExitHandlers {
  std::vector<void (*)()> handlers;
  ~MainThreadExitHandlers() {
    for (auto it = handlers.rbegin(); it != handlers.rend(); ++it)
      (*it)();
  }
};
} // namespace

void fnc::runtime::runAtMainThreadExit(void (*fn)()) {
  if (gettid() != getpid())
    return;
  static thread_local MainThreadExitHandlers exitHandlers;
  if (std::find(exitHandlers.handlers.begin(), exitHandlers.handlers.end(),
                fn) == exitHandlers.handlers.end())
    exitHandlers.handlers.push_back(fn);
}
