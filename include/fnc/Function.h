//===- Function.h - fnc::function: staging C++ callables --------*- C++ -*-===//
//
// fnc::function wraps a C++ callable that computes with fnc tensors into a
// fnc::Function, as tf.function does for Python:
//
//   auto f = fnc::function([](fnc::Tensor x, fnc::Tensor y) {
//     return fnc::reduce_mean(x * x * 3 + y);
//   });
//   fnc::Tensor r = f(x, y);  // traced, compiled, run
//   r = f(x2, y2);            // same dtypes and shapes: runs the machine code
//
// Tracing. On a call whose key has no cached concrete function, the
// callable runs once with *symbolic* tensors (dtype and shape, no values);
// every fnc op records itself into a function of the fnc MLIR dialect,
// which is compiled by the JIT and cached as a ConcreteFunction. C++ side
// effects of the callable (printing, counters) happen while tracing only;
// C++ values computed while tracing are baked in as constants. Eager
// tensors the callable uses (closures) are captured by value: up to 1 KiB as
// constants, bigger ones as hidden arguments. Asking a symbolic tensor for a
// C++ value (item(), to_vector(), data()) throws; printing one shows its
// name, dtype and shape. A symbolic tensor that escapes the trace (stored in
// a global) throws "tensor leaked from the trace of `f`" when used.
//
// Keys and dispatch. A call's key holds dtype and shape of every tensor
// argument and the *value* of every other argument (bool, integers, floating
// point, std::string, enums; std::vector / std::array / std::tuple /
// std::pair of these or of tensors, element by element). A known dim is a
// subtype of an unknown one (fnc::kUnknownDim), and a ranked shape of an
// unknown one (fnc::kUnknownShape); a call runs the most specific cached
// concrete function whose key it is a subtype of, otherwise it traces a
// new one.
//
// Unknown ranks. fnc compiles ranked code: a tensor whose spec has an
// unknown rank (an input_signature entry TensorSpec(fnc::kUnknownShape),
// or reduce_retracing after calls of different ranks) is traced once per
// rank it is called with, every dim of that trace unknown. Each such trace
// is a concrete function of its own.
//
// Size-1 dims. Compiled code cannot broadcast two unknown dims against each
// other at run time. A trace in which unknown dims of different sizes may
// meet in a broadcast (`x + y` with both unknown) therefore does not serve
// a call with a dim of size 1 there: that call gets a trace with the 1, so
// staged broadcasting always matches eager (docs/Semantics.md).
//
// Callables. A lambda, a function pointer or any class with one call
// operator has fixed parameter types, taken by value or const reference.
// Generic callables (`[](auto x, auto y)`, std::bind_front, overloaded call
// operators) are staged too: each call's parameter types are its decayed
// argument types (a string literal is a std::string), and calls whose keys
// are equal share a trace. A member function is staged with its object,
// fnc::function(this, &Model::call); the object must outlive the Function.
// Function<R(A...)> is the type-erased form for class members: any staged
// callable of that signature converts to it and keeps its cache. Results:
// fnc::Tensor, std::tuple / std::pair / std::array / std::vector of
// tensors, or void. A callable that cannot be staged is a compile error
// whose static_assert says what to write instead.
//
// Input signatures are checked on every path: a staged call, a call that
// runs the callable inline in another function's trace (its arguments'
// traced dtypes and shapes must match, so a dim unknown in the outer trace
// does not match a known spec dim), and a call under
// run_functions_eagerly(true). An inline call is part of the outer trace:
// it makes no concrete function of the inner function and leaves its
// tracing_count() unchanged. A spec's `name` names its parameter in
// signatures and errors unless FunctionOptions::arg_names does.
//
// Thread-safety: a Function (and its copies, which share the cache) may be
// called from several threads at once. A key that needs a trace is traced
// once: concurrent calls with the same key wait for that trace (single
// flight); traces of different keys run concurrently. The callable itself
// runs on the calling thread, only while tracing (or on every call with
// run_functions_eagerly(true)). A ConcreteFunction is immutable and may be
// called concurrently. The global settings (run_functions_eagerly,
// set_log_callback) are atomic / mutex-protected.
//
// Lifetime: a ConcreteFunction keeps its compiled code and captured tensors
// alive for as long as a handle to it exists.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_FUNCTION_H
#define FNC_FUNCTION_H

#include "fnc/CheckNumerics.h"
#include "fnc/Tensor.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace fnc {

/// An unknown dimension in a TensorSpec (and in the shape of a symbolic
/// tensor). TensorSpec also accepts -1.
constexpr int64_t kUnknownDim = std::numeric_limits<int64_t>::min();

/// An unknown rank in a TensorSpec: TensorSpec(fnc::kUnknownShape, dtype)
/// matches tensors of that dtype and any shape (TensorFlow's shape=None).
struct UnknownShape {
  // Constructible only from this tag, never from a braced list: then
  // TensorSpec({}) is a scalar spec and TensorSpec({-1}) a 1-D one with
  // every compiler (GCC found `{-1}` ambiguous with an `int` constructor).
  struct Tag {
    explicit Tag() = default;
  };
  explicit constexpr UnknownShape(Tag) {}
};
inline constexpr UnknownShape kUnknownShape{UnknownShape::Tag{}};

/// The dtype and (possibly partial) shape of a tensor argument.
struct TensorSpec {
  TensorSpec(std::vector<int64_t> shape, DType dtype = DType::f32,
             std::string name = {});
  TensorSpec(UnknownShape, DType dtype = DType::f32, std::string name = {});

  std::vector<int64_t> shape; // kUnknownDim for an unknown dim
  DType dtype = DType::f32;
  std::string name; // optional; shown in signatures
  bool ranked = true; // false: any rank (and `shape` is empty)

  /// True if a tensor of `dtype` and `shape` matches this spec.
  bool matches(DType dtype, const std::vector<int64_t> &shape) const;
  /// "float32 Tensor, shape=(None, 3)" or "float32 Tensor, shape=<unknown>"
  /// (the seeds' format).
  std::string str() const;
};

/// FunctionOptions::input_signature: none (the default), or one spec per
/// parameter, written with single braces:
///   fnc::function(f, {.input_signature = {fnc::TensorSpec({-1, 784})}});
/// (`{}` is no signature; a function of no parameters needs none.)
class InputSignature {
public:
  InputSignature() = default;
  InputSignature(std::nullopt_t) {}
  InputSignature(std::initializer_list<TensorSpec> specs) : specs_(specs) {}
  InputSignature(std::vector<TensorSpec> specs) : specs_(std::move(specs)) {}

  bool has_value() const { return specs_.has_value(); }
  explicit operator bool() const { return has_value(); }
  const std::vector<TensorSpec> &operator*() const { return *specs_; }
  std::vector<TensorSpec> &operator*() { return *specs_; }
  const std::vector<TensorSpec> *operator->() const { return &*specs_; }
  std::vector<TensorSpec> *operator->() { return &*specs_; }

private:
  std::optional<std::vector<TensorSpec>> specs_;
};

/// The IR of a concrete function at each stage of the pipeline.
enum class IRStage {
  Fnc,         ///< The fnc dialect, as traced.
  Linalg,      ///< Lowered to linalg/tensor/scf.
  LLVMDialect, ///< After the whole pipeline.
  LLVMIR,      ///< Optimized LLVM IR.
};

struct FunctionOptions {
  /// Name shown in signatures, errors and the IR (default "function").
  std::string name{};
  /// Names of the parameters in signatures and errors (default a0, a1...).
  std::vector<std::string> arg_names{};
  /// One spec per parameter (all must be tensors): one trace serves every
  /// matching call; other calls throw InvalidArgument.
  InputSignature input_signature{};
  /// Trace with unknown dims where calls differ in shape ([2] then [3]
  /// gives one trace for [None]) instead of one trace per shape.
  bool reduce_retracing = false;
  /// At most this many concrete functions stay cached (>= 1): a trace that
  /// would exceed it first drops the least recently called one, which is
  /// traced again if a later call needs it (tracing_count() counts every
  /// trace). Unbounded by default; a cached trace holds about 22 KiB plus
  /// the tensors it captured.
  std::optional<size_t> max_traces{};
  /// f32 exp, log, tanh, sigmoid, erf, expm1, log1p and softplus as
  /// vectorized polynomials (at most 5 ulp from libm; docs/Pipeline.md) and
  /// float reductions that reassociate. false: libm's results as eager, and
  /// reductions in order, f32 ones in f64 (slower). Docs/Semantics.md.
  bool fast_math = true;
  /// The on-disk cache of compiled code shared by processes (docs/Cache.md):
  /// unset, the environment's ($FNC_CACHE_DIR, else $XDG_CACHE_HOME/fnc,
  /// else $HOME/.cache/fnc); an empty string, none; else that directory.
  /// A trace whose code is in the cache skips the compiler.
  std::optional<std::string> cache_dir{};
  /// Called under a gradient tape, the function runs a forward that also
  /// returns the results of its matmuls and convolutions (residuals), and
  /// its backward recomputes only the cheap ops between them. true: the
  /// forward returns nothing extra and the backward recomputes it all
  /// (less memory, about a third more FLOPs). Random draws and reads of
  /// the variables the function updates are kept either way.
  bool recompute_gradients = false;
  /// The seeds' jit_compile. true: each new concrete function is compiled
  /// before its first call returns. false: never compiled; the graph
  /// executor runs its calls op by op on the eager kernels (what a call
  /// under a GradientTape or ir() of a lowered stage needs compiles then).
  /// Unset (the default, or $FNC_JIT_COMPILE): tiered; a trace of 24 ops
  /// or more whose code is not in the compile cache runs on the graph
  /// executor while a background thread compiles it, and its compiled code
  /// serves every call from then on (docs/Runtime.md: what may differ).
  std::optional<bool> jit_compile{};
  /// LLVM's optimization level for the compiled code, 0 to 3.
  unsigned opt_level = 3;
};

/// Makes every fnc::Function run its callable eagerly (for debugging).
void run_functions_eagerly(bool enable);
bool functions_run_eagerly();
/// tf.executing_eagerly: false while a fnc::function traces its callable
/// (ops are staged), true otherwise (also inside a function run eagerly).
bool executing_eagerly();

/// Where warnings go (e.g. excessive retracing); nullptr restores the
/// default (stderr, prefixed "fnc: warning: ").
void set_log_callback(std::function<void(const std::string &)> callback);

namespace detail {
struct ConcreteImpl;
struct ConcreteAccess;
class FunctionCore;
} // namespace detail

/// One trace of a Function, compiled: callable with tensors only (the
/// tensor arguments of the call that traced it, flattened in order; C++
/// arguments are baked in).
class ConcreteFunction {
public:
  ConcreteFunction() = default;

  /// Runs the compiled code. Throws InvalidArgument for a wrong number of
  /// tensors or a tensor that does not match the signature.
  std::vector<Tensor> operator()(const std::vector<Tensor> &args) const;
  template <typename... Ts,
            std::enable_if_t<(std::is_convertible_v<Ts, Tensor> && ...), int> = 0>
  std::vector<Tensor> operator()(const Ts &...args) const {
    return (*this)(std::vector<Tensor>{Tensor(args)...});
  }

  /// "double(a: int32 Tensor, shape=()) -> int32 Tensor, shape=()".
  std::string signature() const;
  /// The seeds' multi-line form (see Function::pretty_printed_concrete_signatures).
  std::string pretty_printed_signature() const;
  /// The specs of the tensor arguments and of the results.
  const std::vector<TensorSpec> &input_specs() const;
  const std::vector<TensorSpec> &output_specs() const;
  /// The IR at `stage`. Throws Internal if the pipeline fails.
  std::string ir(IRStage stage = IRStage::Fnc) const;
  /// Number of ops in the traced function.
  int64_t op_count() const;
  /// Seconds spent compiling this trace (pipeline + JIT, or loading its
  /// code from the compile cache); waits for a compile in flight (tiered),
  /// 0 for a trace nothing compiled (jit_compile false).
  double compile_seconds() const;
  /// Whether its compiled code runs its calls now: false while a tiered
  /// trace compiles, and with jit_compile false (until a GradientTape or
  /// ir() of a lowered stage needed the code).
  bool is_compiled() const;
  bool defined() const { return impl_ != nullptr; }

private:
  friend class detail::FunctionCore;
  friend struct detail::ConcreteAccess;
  std::shared_ptr<const detail::ConcreteImpl> impl_;
};

namespace detail {

/// A growable buffer with N elements inline (no heap until it overflows).
template <typename T, size_t N> class SmallBuffer {
  static_assert(std::is_trivially_copyable_v<T>);

public:
  SmallBuffer() = default;
  SmallBuffer(const SmallBuffer &) = delete;
  SmallBuffer &operator=(const SmallBuffer &) = delete;
  void push_back(const T &v) {
    if (size_ == capacity_)
      grow();
    data()[size_++] = v;
  }
  /// Appends `n` uninitialized elements; returns the first.
  T *append(size_t n) {
    while (size_ + n > capacity_)
      grow();
    T *first = data() + size_;
    size_ += n;
    return first;
  }
  size_t size() const { return size_; }
  T *data() { return heap_ ? heap_.get() : inline_; }
  const T *data() const { return heap_ ? heap_.get() : inline_; }
  const T &operator[](size_t i) const { return data()[i]; }
  T &operator[](size_t i) { return data()[i]; }

private:
  void grow() {
    auto bigger = std::make_unique<T[]>(capacity_ * 2);
    std::memcpy(bigger.get(), data(), size_ * sizeof(T));
    heap_ = std::move(bigger);
    capacity_ *= 2;
  }
  T inline_[N];
  std::unique_ptr<T[]> heap_;
  size_t size_ = 0, capacity_ = N;
};

/// One word of a call key. Tag words give the structure, Value words must
/// be equal, Dim words may be unknown (kUnknownDim) in a stored key. A Rank
/// word (a tensor's rank, followed by that many Dim words) may be unknown
/// too, and is then followed by no Dim words: it matches any rank.
struct KeyWord {
  enum Kind : int32_t { Tag, Value, Dim, Rank };
  int64_t value;
  Kind kind;
  int32_t arg; // the parameter it belongs to
  friend bool operator==(const KeyWord &a, const KeyWord &b) {
    return a.value == b.value && a.kind == b.kind && a.arg == b.arg;
  }
  friend bool operator!=(const KeyWord &a, const KeyWord &b) {
    return !(a == b);
  }
};

/// Tags of the key encoding.
enum KeyTag : int64_t {
  kTensorTag = 1,
  kBoolTag,
  kIntTag,
  kUIntTag,
  kFloatTag,
  kEnumTag,
  kStringTag,
  kListTag,
  kTupleTag,
  kVariableTag, // fnc::Variable (fnc/Variable.h): uid, dtype, rank, dims
};

/// The key of a call and its tensor arguments (in order), built without
/// heap allocation for typical calls.
struct CallKey {
  SmallBuffer<KeyWord, 48> words;
  SmallBuffer<const Tensor *, 8> tensors;
  int32_t arg = 0;
  void tag(int64_t t) { words.push_back({t, KeyWord::Tag, arg}); }
  void value(int64_t v) { words.push_back({v, KeyWord::Value, arg}); }
  /// Appends a tensor's words (dtype, rank, dims) and the tensor itself.
  void tensor(const Tensor &t);
  /// Appends a spec's words (no tensor).
  void spec(const TensorSpec &s);
};

template <typename T> constexpr bool kAlwaysFalse = false;

/// How one parameter type goes into a key and is rebuilt with symbolic
/// tensors for tracing.
template <typename T, typename = void> struct ArgCodec {
  static_assert(kAlwaysFalse<T>,
                "fnc::function: unsupported parameter type; parameters must "
                "be fnc::Tensor, bool, integers, floating point, std::string, "
                "enums, or std::vector/std::array/std::tuple/std::pair of "
                "these");
};
template <> struct ArgCodec<Tensor> {
  static constexpr bool kIsTensor = true;
  static void encode(CallKey &k, const Tensor &t) { k.tensor(t); }
  static void substitute(Tensor &t, const Tensor *&next) { t = *next++; }
};
template <> struct ArgCodec<bool> {
  static constexpr bool kIsTensor = false;
  static void encode(CallKey &k, bool v) {
    k.tag(kBoolTag);
    k.value(v);
  }
  static void substitute(bool &, const Tensor *&) {}
};
template <typename T>
struct ArgCodec<T, std::enable_if_t<std::is_integral_v<T> &&
                                    !std::is_same_v<T, bool>>> {
  static constexpr bool kIsTensor = false;
  static void encode(CallKey &k, T v) {
    k.tag(std::is_signed_v<T> ? kIntTag : kUIntTag);
    k.value(static_cast<int64_t>(v));
  }
  static void substitute(T &, const Tensor *&) {}
};
template <typename T>
struct ArgCodec<T, std::enable_if_t<std::is_floating_point_v<T>>> {
  static constexpr bool kIsTensor = false;
  static void encode(CallKey &k, T v) {
    double d = static_cast<double>(v);
    int64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    k.tag(kFloatTag);
    k.value(bits);
  }
  static void substitute(T &, const Tensor *&) {}
};
template <typename T> struct ArgCodec<T, std::enable_if_t<std::is_enum_v<T>>> {
  static constexpr bool kIsTensor = false;
  static void encode(CallKey &k, T v) {
    k.tag(kEnumTag);
    k.value(static_cast<int64_t>(v));
  }
  static void substitute(T &, const Tensor *&) {}
};
template <> struct ArgCodec<std::string> {
  static constexpr bool kIsTensor = false;
  static void encode(CallKey &k, const std::string &s) {
    k.tag(kStringTag);
    k.value(static_cast<int64_t>(s.size()));
    for (size_t i = 0; i < s.size(); i += 8) {
      int64_t chunk = 0;
      std::memcpy(&chunk, s.data() + i, std::min<size_t>(8, s.size() - i));
      k.value(chunk);
    }
  }
  static void substitute(std::string &, const Tensor *&) {}
};
template <typename T> struct ArgCodec<std::vector<T>> {
  static constexpr bool kIsTensor = false;
  static void encode(CallKey &k, const std::vector<T> &v) {
    k.tag(kListTag);
    k.value(static_cast<int64_t>(v.size()));
    for (const T &e : v)
      ArgCodec<T>::encode(k, e);
  }
  static void substitute(std::vector<T> &v, const Tensor *&next) {
    for (T &e : v)
      ArgCodec<T>::substitute(e, next);
  }
};
template <typename T, size_t N> struct ArgCodec<std::array<T, N>> {
  static constexpr bool kIsTensor = false;
  static void encode(CallKey &k, const std::array<T, N> &v) {
    k.tag(kTupleTag);
    k.value(static_cast<int64_t>(N));
    for (const T &e : v)
      ArgCodec<T>::encode(k, e);
  }
  static void substitute(std::array<T, N> &v, const Tensor *&next) {
    for (T &e : v)
      ArgCodec<T>::substitute(e, next);
  }
};
template <typename... Ts> struct ArgCodec<std::tuple<Ts...>> {
  static constexpr bool kIsTensor = false;
  static void encode(CallKey &k, const std::tuple<Ts...> &v) {
    k.tag(kTupleTag);
    k.value(static_cast<int64_t>(sizeof...(Ts)));
    std::apply([&](const Ts &...e) { (ArgCodec<Ts>::encode(k, e), ...); }, v);
  }
  static void substitute(std::tuple<Ts...> &v, const Tensor *&next) {
    std::apply([&](Ts &...e) { (ArgCodec<Ts>::substitute(e, next), ...); },
               v);
  }
};
template <typename A, typename B>
struct ArgCodec<std::pair<A, B>> {
  static constexpr bool kIsTensor = false;
  static void encode(CallKey &k, const std::pair<A, B> &v) {
    k.tag(kTupleTag);
    k.value(2);
    ArgCodec<A>::encode(k, v.first);
    ArgCodec<B>::encode(k, v.second);
  }
  static void substitute(std::pair<A, B> &v, const Tensor *&next) {
    ArgCodec<A>::substitute(v.first, next);
    ArgCodec<B>::substitute(v.second, next);
  }
};

/// What a flattened loop variable of fnc::while_loop / for_range is: a
/// tensor of the caller's, or one of the two tensors a TensorArray flattens
/// to (values and mask), whose first dim grows for a dynamic-size array.
enum class LoopVar : uint8_t { Tensor, Array, GrowingArray };

/// How a result type is flattened to tensors and rebuilt.
template <typename R> struct ResultCodec {
  static_assert(kAlwaysFalse<R>,
                "fnc::function: unsupported result type; return fnc::Tensor, "
                "std::tuple/std::pair/std::array/std::vector of tensors, or "
                "nothing");
};
template <> struct ResultCodec<void> {
  static constexpr const char *kStructure = "none";
};
template <> struct ResultCodec<Tensor> {
  static constexpr const char *kStructure = "tensor";
  static std::vector<Tensor> flatten(const Tensor &t) { return {t}; }
  static Tensor rebuild(std::vector<Tensor> &&v) { return std::move(v[0]); }
};
template <> struct ResultCodec<std::vector<Tensor>> {
  static constexpr const char *kStructure = "vector";
  static std::vector<Tensor> flatten(const std::vector<Tensor> &v) {
    return v;
  }
  static std::vector<Tensor> rebuild(std::vector<Tensor> &&v) {
    return std::move(v);
  }
};
template <size_t N> struct ResultCodec<std::array<Tensor, N>> {
  static constexpr const char *kStructure = "array";
  static std::vector<Tensor> flatten(const std::array<Tensor, N> &v) {
    return std::vector<Tensor>(v.begin(), v.end());
  }
  static std::array<Tensor, N> rebuild(std::vector<Tensor> &&v) {
    std::array<Tensor, N> r;
    for (size_t i = 0; i < N; ++i)
      r[i] = std::move(v[i]);
    return r;
  }
};
template <typename... Ts> struct ResultCodec<std::tuple<Ts...>> {
  static_assert((std::is_same_v<Ts, Tensor> && ...),
                "fnc::function: a returned std::tuple must hold fnc::Tensor "
                "elements only");
  static constexpr const char *kStructure = "tuple";
  static std::vector<Tensor> flatten(const std::tuple<Ts...> &t) {
    return std::apply(
        [](const Ts &...e) { return std::vector<Tensor>{e...}; }, t);
  }
  static std::tuple<Ts...> rebuild(std::vector<Tensor> &&v) {
    return rebuildAt(v, std::index_sequence_for<Ts...>{});
  }
  template <size_t... I>
  static std::tuple<Ts...> rebuildAt(std::vector<Tensor> &v,
                                     std::index_sequence<I...>) {
    return std::tuple<Ts...>(std::move(v[I])...);
  }
};
template <> struct ResultCodec<std::pair<Tensor, Tensor>> {
  static constexpr const char *kStructure = "pair";
  static std::vector<Tensor> flatten(const std::pair<Tensor, Tensor> &p) {
    return {p.first, p.second};
  }
  static std::pair<Tensor, Tensor> rebuild(std::vector<Tensor> &&v) {
    return {std::move(v[0]), std::move(v[1])};
  }
};
/// fnc::value_and_grad with several argnums: the value, then the gradients.
template <> struct ResultCodec<std::pair<Tensor, std::vector<Tensor>>> {
  static constexpr const char *kStructure = "value_and_grads";
  static std::vector<Tensor>
  flatten(const std::pair<Tensor, std::vector<Tensor>> &p) {
    std::vector<Tensor> v = {p.first};
    v.insert(v.end(), p.second.begin(), p.second.end());
    return v;
  }
  static std::pair<Tensor, std::vector<Tensor>>
  rebuild(std::vector<Tensor> &&v) {
    Tensor first = std::move(v[0]);
    v.erase(v.begin());
    return {std::move(first), std::move(v)};
  }
};

/// Runs the callable with symbolic tensors (type-erased, non-owning).
struct TraceThunk {
  const void *context;
  std::vector<Tensor> (*run)(const void *context,
                             const std::vector<Tensor> &symbolic);
  /// The C++ result type's structure ("tensor", "tuple", "none"...;
  /// ResultCodec<R>::kStructure), recorded by fnc::save.
  const char *results = nullptr;
};

/// The type-erased, thread-safe cache and dispatcher behind a Function.
class FunctionCore {
public:
  /// Throws InvalidArgument if `options.input_signature` does not fit the
  /// parameters (count, all tensors). Without `fixedParams` (a generic
  /// callable) the parameters are known per call, and calls that do not
  /// fit the signature fail as mismatches.
  FunctionCore(FunctionOptions options, std::vector<bool> paramIsTensor,
               bool fixedParams = true);
  ~FunctionCore();

  /// Throws FailedPrecondition: an empty Function<R(A...)> was called.
  [[noreturn]] static void emptyFunctionError();

  /// True if the callable should run directly: eager mode, or a call
  /// inside another trace (the callable then records into that trace).
  static bool runCallableDirectly();
  /// True if a gradient tape records on this thread: calls then go through
  /// callUnderTape.
  static bool underTape();
  /// Checks a call that runs the callable directly against the
  /// input_signature (throws InvalidArgument as a staged call would).
  void checkDirectCall(const CallKey &key) const;
  /// Rethrows `e`, raised by the callable run directly: inside a trace,
  /// with a line naming this function (as tracing it would).
  [[noreturn]] void rethrowFromDirectCall(const Error &e) const;

  /// Dispatches `key` (tracing on a miss) and runs it.
  std::vector<Tensor> call(const CallKey &key, const TraceThunk &thunk);
  /// call() of a callable that returns one fnc::Tensor (no result vector).
  Tensor callOne(const CallKey &key, const TraceThunk &thunk);
  /// call() for a call under a recording tape: the tapes get one entry for
  /// the whole call, whose gradient is a staged backward function, traced
  /// and compiled once per concrete function and cached: it replays the
  /// recorded forward (fnc/Trace/Program.h), never the callable.
  std::vector<Tensor> callUnderTape(const CallKey &key,
                                    const TraceThunk &thunk);
  /// The concrete functions of the backward functions made so far.
  std::vector<ConcreteFunction> backwardConcreteFunctions() const;
  /// Dispatches `key` (tracing on a miss) without running it.
  ConcreteFunction concrete(const CallKey &key, const TraceThunk &thunk);

  int64_t tracingCount() const;
  std::string prettyPrintedConcreteSignatures() const;
  std::vector<ConcreteFunction> concreteFunctions() const;
  const std::string &name() const;

  struct State; // defined in lib/Trace/Function.cpp

private:
  std::unique_ptr<State> state_;
};

/// The parameters and result of a callable with one fixed signature (a
/// function, or a class with one non-template operator()): kFixed. Other
/// callables (generic lambdas, std::bind_front, overloaded call operators)
/// take their parameter types from each call's arguments.
template <typename F, typename = void> struct CallableTraits {
  static constexpr bool kFixed = false;
};
template <typename R, typename... A> struct CallableTraits<R (*)(A...)> {
  static_assert(
      !(... || (std::is_lvalue_reference_v<A> &&
                !std::is_const_v<std::remove_reference_t<A>>)),
      "fnc::function: a parameter of the staged callable is a non-const "
      "reference (such as fnc::Tensor &); take it by value or by const "
      "reference (fnc::Tensor x, const fnc::Tensor &x): a traced call "
      "passes symbolic tensors, and what the callable assigns to them "
      "would not reach the caller's variables");
  static constexpr bool kFixed = true;
  using Result = R;
  using Params = std::tuple<std::decay_t<A>...>;
};
template <typename R, typename... A>
struct CallableTraits<R(A...)> : CallableTraits<R (*)(A...)> {};
template <typename C, typename R, typename... A>
struct CallableTraits<R (C::*)(A...) const> : CallableTraits<R (*)(A...)> {};
template <typename C, typename R, typename... A>
struct CallableTraits<R (C::*)(A...)> : CallableTraits<R (*)(A...)> {};
template <typename F>
struct CallableTraits<F, std::void_t<decltype(&F::operator())>>
    : CallableTraits<decltype(&F::operator())> {};

/// The parameter type an argument of a generic callable is traced as: its
/// decayed type; a string literal or `const char *` is a std::string.
template <typename A, typename D = std::decay_t<A>>
using ParamOf = std::conditional_t<std::is_same_v<D, const char *> ||
                                       std::is_same_v<D, char *>,
                                   std::string, D>;

/// The callable Function<R(A...)> stores: any callable with that signature.
template <typename F>
using StoredCallable =
    std::conditional_t<std::is_function_v<F>, std::function<F>, F>;

/// `object->*method` as a callable with the method's own parameters
/// (fnc::function(this, &Model::call)).
template <typename C, typename M> struct BoundMethod;
template <typename C, typename K, typename R, typename... A>
struct BoundMethod<C, R (K::*)(A...)> {
  C *object;
  R (K::*method)(A...);
  R operator()(A... a) const { return (object->*method)(a...); }
};
template <typename C, typename K, typename R, typename... A>
struct BoundMethod<C, R (K::*)(A...) const> {
  const C *object;
  R (K::*method)(A...) const;
  R operator()(A... a) const { return (object->*method)(a...); }
};

template <typename F, typename R, typename Params> struct Caller;
template <typename F, typename R, typename... Ps>
struct Caller<F, R, std::tuple<Ps...>> {
  static std::vector<bool> paramIsTensor() {
    return {ArgCodec<Ps>::kIsTensor...};
  }

  static void encode(CallKey &key, const Ps &...args) {
    int32_t i = 0;
    ((key.arg = i++, ArgCodec<Ps>::encode(key, args)), ...);
  }

  struct Bound {
    const std::shared_ptr<F> &fn;
    std::tuple<const Ps &...> args;
  };

  /// Calls fn on `args` with their tensors replaced by `tensors`, in order.
  static std::vector<Tensor> invoke(F &fn, std::tuple<Ps...> args,
                                    const std::vector<Tensor> &tensors) {
    const Tensor *next = tensors.data();
    std::apply([&](Ps &...a) { (ArgCodec<Ps>::substitute(a, next), ...); },
               args);
    if constexpr (std::is_void_v<R>) {
      std::apply(fn, args);
      return {};
    } else {
      return ResultCodec<R>::flatten(std::apply(fn, args));
    }
  }

  static std::vector<Tensor> runTraced(const void *context,
                                       const std::vector<Tensor> &symbolic) {
    const Bound &b = *static_cast<const Bound *>(context);
    return invoke(*b.fn, std::tuple<Ps...>(b.args), symbolic);
  }

  static R call(const std::shared_ptr<F> &fn, FunctionCore &core,
                const Ps &...args) {
    if (FunctionCore::runCallableDirectly()) {
      CallKey key;
      encode(key, args...);
      core.checkDirectCall(key);
      try {
        return (*fn)(args...);
      } catch (const Error &e) {
        core.rethrowFromDirectCall(e);
      }
    }
    CallKey key;
    encode(key, args...);
    Bound bound{fn, std::tuple<const Ps &...>(args...)};
    std::vector<Tensor> outs;
    if (FunctionCore::underTape())
      outs = core.callUnderTape(
          key, {&bound, &runTraced, ResultCodec<R>::kStructure});
    else if constexpr (std::is_same_v<R, Tensor>)
      return core.callOne(key, {&bound, &runTraced, ResultCodec<R>::kStructure});
    else
      outs = core.call(key, {&bound, &runTraced, ResultCodec<R>::kStructure});
    if constexpr (!std::is_void_v<R>)
      return ResultCodec<R>::rebuild(std::move(outs));
  }

  static ConcreteFunction concrete(const std::shared_ptr<F> &fn,
                                   FunctionCore &core, const Ps &...args) {
    CallKey key;
    encode(key, args...);
    Bound bound{fn, std::tuple<const Ps &...>(args...)};
    return core.concrete(key, {&bound, &runTraced, ResultCodec<R>::kStructure});
  }

  template <typename... Specs>
  static ConcreteFunction concreteFromSpecs(const std::shared_ptr<F> &fn,
                                            FunctionCore &core,
                                            const Specs &...specs) {
    static_assert((std::is_same_v<Ps, Tensor> && ...),
                  "fnc::Function::get_concrete_function(TensorSpec...) needs "
                  "a callable whose parameters are all fnc::Tensor; pass "
                  "example arguments instead");
    static_assert(sizeof...(Specs) == sizeof...(Ps),
                  "one TensorSpec per parameter");
    CallKey key;
    int32_t i = 0;
    ((key.arg = i++, key.spec(specs)), ...);
    // Tracing only reads the symbolic tensors, never these.
    std::tuple<Ps...> none;
    Bound bound{fn, std::apply(
                         [](const Ps &...a) {
                           return std::tuple<const Ps &...>(a...);
                         },
                         none)};
    return core.concrete(key, {&bound, &runTraced, ResultCodec<R>::kStructure});
  }
};

} // namespace detail

/// A staged callable; see the file comment. Cheap to copy: copies share
/// the callable and the cache of concrete functions.
///
/// `Function<R(A...)>` is the type-erased form, for class members and
/// containers: any staged callable with that signature converts to it and
/// keeps sharing its cache; a default-constructed one is empty.
///
///   struct Model {
///     fnc::Function<fnc::Tensor(fnc::Tensor, bool)> call =
///         fnc::function(this, &Model::forward);
///     fnc::Tensor forward(fnc::Tensor x, bool training);
///   };
template <typename F> class Function {
  using Stored = detail::StoredCallable<F>;
  using Traits = detail::CallableTraits<F>;

  /// The Caller of a call with arguments `Args`: F's own signature, or for
  /// a generic callable the arguments' types.
  template <typename... Args> static auto callerFor() {
    if constexpr (Traits::kFixed) {
      using Params = typename Traits::Params;
      static_assert(sizeof...(Args) == std::tuple_size_v<Params>,
                    "fnc::Function called with the wrong number of "
                    "arguments");
      return detail::Caller<Stored, typename Traits::Result, Params>{};
    } else {
      static_assert(
          std::is_invocable_v<Stored &, detail::ParamOf<Args>...>,
          "fnc::function: the callable cannot be called with these "
          "arguments. Check their number and types; a callable given to "
          "fnc::function takes fnc::Tensor, C++ values or containers of "
          "them, and a member function is staged as "
          "fnc::function(this, &Class::method)");
      using Result = std::invoke_result_t<Stored &, detail::ParamOf<Args>...>;
      return detail::Caller<Stored, Result,
                            std::tuple<detail::ParamOf<Args>...>>{};
    }
  }
  template <typename... Args> using CallerFor = decltype(callerFor<Args...>());
  template <typename C> struct ResultOf;
  template <typename G, typename R, typename P>
  struct ResultOf<detail::Caller<G, R, P>> {
    using type = R;
  };

  static std::vector<bool> paramIsTensorOfFixed() {
    if constexpr (Traits::kFixed)
      return detail::Caller<Stored, typename Traits::Result,
                            typename Traits::Params>::paramIsTensor();
    else
      return {};
  }

public:
  /// An empty Function (only the type-erased form Function<R(A...)>):
  /// assign a staged callable before calling it.
  template <typename G = F, std::enable_if_t<std::is_function_v<G>, int> = 0>
  Function() {}

  Function(Stored fn, FunctionOptions options)
      : fn_(std::make_shared<Stored>(std::move(fn))),
        core_(std::make_shared<detail::FunctionCore>(
            std::move(options), paramIsTensorOfFixed(), Traits::kFixed)) {}

  /// Converts a staged callable to the type-erased form (sharing its
  /// callable and its cache).
  template <
      typename G, typename H = F,
      std::enable_if_t<std::is_function_v<H> && !std::is_same_v<G, H>, int> = 0>
  Function(const Function<G> &other)
      : fn_(std::make_shared<Stored>(
            [fn = other.fn_](auto &&...a) -> decltype(auto) {
              return (*fn)(std::forward<decltype(a)>(a)...);
            })),
        core_(other.core_) {
    using Own = typename detail::CallableTraits<F>::Params;
    if constexpr (detail::CallableTraits<G>::kFixed)
      static_assert(
          std::is_same_v<typename detail::CallableTraits<G>::Params, Own>,
          "fnc::Function<R(A...)>: the staged callable has other "
          "parameter types than A...");
  }

  /// Calls the staged function: traces on a new key, else runs the cached
  /// machine code. Arguments convert to the parameter types as in a plain
  /// call.
  template <typename... Args>
  typename ResultOf<CallerFor<Args...>>::type operator()(Args &&...args) const {
    if constexpr (std::is_function_v<F>)
      if (!core_)
        detail::FunctionCore::emptyFunctionError();
    return CallerFor<Args...>::call(fn_, *core_, std::forward<Args>(args)...);
  }

  /// The concrete function for these arguments (tracing it if needed)
  /// without running it.
  template <typename... Args>
  ConcreteFunction get_concrete_function(Args &&...args) const {
    if constexpr (std::is_function_v<F>)
      if (!core_)
        detail::FunctionCore::emptyFunctionError();
    if constexpr (Traits::kFixed && sizeof...(Args) > 0 &&
                  (std::is_same_v<std::decay_t<Args>, TensorSpec> && ...)) {
      static_assert(sizeof...(Args) ==
                        std::tuple_size_v<typename Traits::Params>,
                    "get_concrete_function: one argument per parameter");
      return CallerFor<Args...>::concreteFromSpecs(fn_, *core_, args...);
    } else {
      return CallerFor<Args...>::concrete(fn_, *core_,
                                          std::forward<Args>(args)...);
    }
  }

  /// Number of traces so far. Calls made while another function traces
  /// run the callable inline in that trace and do not count.
  int64_t tracing_count() const { return core_ ? core_->tracingCount() : 0; }
  /// Every concrete function, in tracing order, in the seeds' format:
  /// "double(a)\n  Args:\n    a: int32 Tensor, shape=()\n  Returns:\n
  ///  int32 Tensor, shape=()", separated by blank lines.
  std::string pretty_printed_concrete_signatures() const {
    return core_->prettyPrintedConcreteSignatures();
  }
  /// The concrete functions, in tracing order.
  std::vector<ConcreteFunction> concrete_functions() const {
    return core_->concreteFunctions();
  }
  /// The concrete functions of the staged backward functions made for
  /// calls under a fnc::GradientTape (one per concrete function and set of
  /// differentiated inputs), in the order they were made: their IR is the
  /// gradient computation (fnc/GradientTape.h).
  std::vector<ConcreteFunction> backward_concrete_functions() const {
    return core_->backwardConcreteFunctions();
  }
  const std::string &name() const { return core_->name(); }
  /// False for an empty Function<R(A...)>.
  bool defined() const { return core_ != nullptr; }

private:
  template <typename G> friend class Function;
  std::shared_ptr<Stored> fn_;
  std::shared_ptr<detail::FunctionCore> core_;
};

/// Stages `fn`; see the file comment. Throws InvalidArgument for an
/// input_signature that does not fit the parameters.
template <typename F>
Function<std::decay_t<F>> function(F &&fn, FunctionOptions options = {}) {
  static_assert(!std::is_member_function_pointer_v<std::decay_t<F>>,
                "fnc::function: a member function needs its object; write "
                "fnc::function(this, &Class::method) or wrap the call in a "
                "lambda");
  return Function<std::decay_t<F>>(std::forward<F>(fn), std::move(options));
}

/// Stages the member function `method` of `object` (which must outlive
/// the Function): fnc::function(this, &Model::call).
template <typename C, typename M,
          std::enable_if_t<std::is_member_function_pointer_v<M>, int> = 0>
Function<detail::BoundMethod<C, M>> function(C *object, M method,
                                             FunctionOptions options = {}) {
  return Function<detail::BoundMethod<C, M>>({object, method},
                                             std::move(options));
}

} // namespace fnc

#endif // FNC_FUNCTION_H
