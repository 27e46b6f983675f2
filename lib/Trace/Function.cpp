//===- Function.cpp - The cache and dispatcher of fnc::function -----------===//
//
// FunctionCore: keys, the subtype check and the choice of the most specific
// concrete function, input signatures, reduced retracing, the retracing
// warning, single-flight tracing, and calls of compiled traces. Tracing
// itself runs the callable under a TraceRecorder (lib/Trace/TraceLog.cpp)
// made active with RecorderScope. Built with exceptions; the MLIR side
// reports its failures as values, turned into fnc::Error here.
//
//===----------------------------------------------------------------------===//

#include "fnc/Function.h"

#include "fnc/API/OpSupport.h"
#include "fnc/API/Tape.h"
#include "fnc/CheckNumerics.h"
#include "fnc/Effects.h"

#include "fnc/JIT/Engine.h"
#include "fnc/Memory.h"
#include "fnc/Runtime/Runtime.h"
#include "fnc/Trace/ConcreteAccess.h"
#include "fnc/Trace/CompiledTrace.h"
#include "fnc/Trace/GraphExecutor.h"
#include "fnc/Trace/TraceIR.h"
#include "fnc/Trace/TraceRecorder.h"

#include "BackgroundCompile.h"
#include "Gradients.h"
#include "RunTrace.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <iostream>
#include <mutex>
#include <sstream>
#include <pthread.h>

namespace fnc {

namespace {
std::atomic<bool> runEagerly{false};
std::mutex logMutex;
std::function<void(const std::string &)> logCallback;

void logWarning(const std::string &message) {
  std::lock_guard<std::mutex> lock(logMutex);
  if (logCallback)
    logCallback(message);
  else
    std::cerr << "fnc: warning: " << message << "\n";
}

std::vector<int64_t> normalizeDims(std::vector<int64_t> shape) {
  for (int64_t &d : shape)
    if (d == -1)
      d = kUnknownDim;
  return shape;
}
} // namespace

void run_functions_eagerly(bool enable) { runEagerly = enable; }
bool functions_run_eagerly() { return runEagerly; }

bool executing_eagerly() { return trace::activeRecorder() == nullptr; }

void set_log_callback(std::function<void(const std::string &)> callback) {
  std::lock_guard<std::mutex> lock(logMutex);
  logCallback = std::move(callback);
}

//===----------------------------------------------------------------------===//
// TensorSpec
//===----------------------------------------------------------------------===//

TensorSpec::TensorSpec(std::vector<int64_t> shape, DType dtype,
                       std::string name)
    : shape(normalizeDims(std::move(shape))), dtype(dtype),
      name(std::move(name)) {
  for (int64_t d : this->shape)
    if (d < 0 && d != kUnknownDim)
      throw Error(ErrorKind::InvalidArgument,
                  "fnc::TensorSpec: shape " + shapes::tupleString(this->shape) +
                      " has a negative dim; use sizes >= 0, or -1 / "
                      "fnc::kUnknownDim for an unknown dim");
}

TensorSpec::TensorSpec(UnknownShape, DType dtype, std::string name)
    : dtype(dtype), name(std::move(name)), ranked(false) {}

bool TensorSpec::matches(DType dt, const std::vector<int64_t> &s) const {
  if (dt == dtype && !ranked)
    return true;
  if (dt != dtype || s.size() != shape.size())
    return false;
  for (size_t i = 0; i < s.size(); ++i)
    if (shape[i] != kUnknownDim && shape[i] != s[i])
      return false;
  return true;
}

std::string TensorSpec::str() const {
  return std::string(dtypeName(dtype)) + " Tensor, shape=" +
         (ranked ? shapes::tupleString(shape) : std::string("<unknown>"));
}

namespace detail {

void CallKey::tensor(const Tensor &t) {
  const TensorImpl &impl = TensorAccess::impl(t); // throws for a null handle
  const std::vector<int64_t> &shape = impl.shape();
  size_t rank = shape.size();
  KeyWord *w = words.append(3 + rank);
  w[0] = {kTensorTag, KeyWord::Tag, arg};
  w[1] = {static_cast<int64_t>(impl.dtype()), KeyWord::Value, arg};
  w[2] = {static_cast<int64_t>(rank), KeyWord::Rank, arg};
  for (size_t i = 0; i < rank; ++i)
    w[3 + i] = {shape[i], KeyWord::Dim, arg};
  tensors.push_back(&t);
}

void CallKey::spec(const TensorSpec &s) {
  tag(kTensorTag);
  value(static_cast<int64_t>(s.dtype));
  words.push_back({s.ranked ? static_cast<int64_t>(s.shape.size())
                            : kUnknownDim,
                   KeyWord::Rank, arg});
  for (int64_t d : s.shape)
    words.push_back({d, KeyWord::Dim, arg});
}

//===----------------------------------------------------------------------===//
// Key parsing (for tracing, signatures and messages)
//===----------------------------------------------------------------------===//

namespace {

using Words = std::vector<KeyWord>;

/// A tensor argument found in a key.
struct TensorArg {
  int32_t param;
  std::string name;
  TensorSpec spec;
};

/// A parameter rendered for signatures: "a: int32 Tensor, shape=()" lines.
struct ParsedKey {
  std::vector<TensorArg> tensors;
  std::vector<std::string> lines; // "    a: ..." per tensor / C++ value
};

class KeyParser {
public:
  KeyParser(const KeyWord *w, size_t n, const std::vector<std::string> &names)
      : w_(w), n_(n), names_(names) {}

  ParsedKey parse() {
    ParsedKey r;
    while (pos_ < n_) {
      int32_t param = w_[pos_].arg;
      std::string name = paramName(param);
      bool direct = w_[pos_].value == kTensorTag;
      std::vector<TensorArg> tensors;
      std::string text = value(param, name, tensors);
      if (direct) {
        r.lines.push_back(name + ": " + tensors[0].spec.str());
      } else if (!tensors.empty()) {
        for (const TensorArg &t : tensors)
          r.lines.push_back(t.name + ": " + t.spec.str());
      } else {
        r.lines.push_back(name + ": " + text);
      }
      for (TensorArg &t : tensors)
        r.tensors.push_back(std::move(t));
    }
    return r;
  }

  std::string paramName(int32_t param) const {
    if (param < static_cast<int32_t>(names_.size()) && !names_[param].empty())
      return names_[param];
    return "a" + std::to_string(param);
  }

private:
  int64_t next() { return w_[pos_++].value; }

  std::string value(int32_t param, const std::string &path,
                    std::vector<TensorArg> &tensors) {
    int64_t tag = next();
    switch (tag) {
    case kTensorTag: {
      DType dtype = static_cast<DType>(next());
      int64_t rank = next();
      std::vector<int64_t> shape;
      for (int64_t i = 0; i < rank; ++i)
        shape.push_back(next());
      TensorSpec spec = rank == kUnknownDim
                            ? TensorSpec(kUnknownShape, dtype, path)
                            : TensorSpec(shape, dtype, path);
      tensors.push_back({param, path, spec});
      return spec.str();
    }
    case kBoolTag:
      return next() ? "bool = true" : "bool = false";
    case kIntTag:
      return "int = " + std::to_string(next());
    case kUIntTag:
      return "unsigned = " + std::to_string(static_cast<uint64_t>(next()));
    case kFloatTag: {
      int64_t bits = next();
      double d;
      std::memcpy(&d, &bits, sizeof d);
      std::ostringstream os;
      os << d;
      return "float = " + os.str();
    }
    case kEnumTag:
      return "enum = " + std::to_string(next());
    case kStringTag: {
      int64_t len = next();
      std::string s(static_cast<size_t>(len), '\0');
      for (int64_t i = 0; i < len; i += 8) {
        int64_t chunk = next();
        std::memcpy(&s[i], &chunk, std::min<int64_t>(8, len - i));
      }
      return "string = \"" + s + "\"";
    }
    case kVariableTag: {
      next(); // identity
      DType dtype = static_cast<DType>(next());
      int64_t rank = next();
      std::vector<int64_t> shape;
      for (int64_t i = 0; i < rank; ++i)
        shape.push_back(next());
      return std::string(dtypeName(dtype)) +
             " Variable, shape=" + shapes::tupleString(shape);
    }
    case kListTag:
    case kTupleTag: {
      int64_t count = next();
      std::string s = tag == kListTag ? "[" : "(";
      for (int64_t i = 0; i < count; ++i) {
        std::string item =
            value(param, path + "[" + std::to_string(i) + "]", tensors);
        size_t eq = item.find(" = ");
        s += (i ? ", " : "") + (eq == std::string::npos ? item : item.substr(eq + 3));
      }
      return s + (tag == kListTag ? "]" : ")");
    }
    }
    return "?";
  }

  const KeyWord *w_;
  size_t n_;
  size_t pos_ = 0;
  const std::vector<std::string> &names_;
};

/// The number of Dim words after the Rank word `w` (none for an unknown
/// rank).
size_t dimsAfter(const KeyWord &w) {
  return w.value == kUnknownDim ? 0 : static_cast<size_t>(w.value);
}

/// True if a call with key `call` may run a trace of key `stored`: equal
/// structure and values, and every unknown dim or rank of `stored` may be
/// anything in `call` (except a dim of size 1 when `onesExact`).
bool isSubtype(const KeyWord *call, size_t n, const Words &stored,
               bool onesExact = false) {
  size_t i = 0, j = 0;
  for (; i < n && j < stored.size(); ++i, ++j) {
    const KeyWord &s = stored[j];
    if (call[i].kind != s.kind)
      return false;
    if (s.value == call[i].value)
      continue;
    if (s.value != kUnknownDim)
      return false;
    if (s.kind == KeyWord::Rank)
      i += dimsAfter(call[i]); // any rank: skip the call's dims
    else if (s.kind != KeyWord::Dim || (onesExact && call[i].value == 1))
      return false;
  }
  return i == n && j == stored.size();
}

bool hasUnknownRank(const KeyWord *w, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (w[i].kind == KeyWord::Rank && w[i].value == kUnknownDim)
      return true;
  return false;
}
bool hasUnknownRank(const Words &w) {
  return hasUnknownRank(w.data(), w.size());
}

/// `pattern` made ranked for the call `call` (a subtype of it): a tensor
/// of unknown rank takes the call's rank, every dim unknown.
Words specializeRanks(const Words &pattern, const KeyWord *call, size_t n) {
  Words r;
  size_t i = 0;
  for (const KeyWord &p : pattern) {
    if (p.kind == KeyWord::Rank && p.value == kUnknownDim && i < n) {
      const KeyWord &rank = call[i++];
      r.push_back(rank);
      for (size_t d = 0, e = dimsAfter(rank); d < e; ++d, ++i)
        r.push_back({kUnknownDim, KeyWord::Dim, rank.arg});
      continue;
    }
    r.push_back(p);
    ++i;
  }
  return r;
}

/// Sets the unknown dims of `key` (ranked, with the structure of `call`)
/// where the call has a dim of size 1 to 1.
void keepOnes(Words &key, const KeyWord *call, size_t n) {
  for (size_t i = 0; i < key.size() && i < n; ++i)
    if (key[i].kind == KeyWord::Dim && key[i].value == kUnknownDim &&
        call[i].value == 1)
      key[i].value = 1;
}

/// The key to trace for a call `b` under reduce_retracing, given an earlier
/// trace `a`, if they have the same structure and values: dims that differ
/// become unknown, ranks that differ unknown.
std::optional<Words> generalize(const Words &a, const Words &b) {
  Words r;
  size_t i = 0, j = 0;
  for (; i < a.size() && j < b.size(); ++i, ++j) {
    if (a[i].kind != b[j].kind)
      return std::nullopt;
    KeyWord w = b[j];
    if (a[i].kind == KeyWord::Rank && a[i].value != b[j].value) {
      w.value = kUnknownDim;
      i += dimsAfter(a[i]);
      j += dimsAfter(b[j]);
    } else if (a[i].kind == KeyWord::Dim) {
      if (a[i].value != b[j].value)
        w.value = kUnknownDim;
    } else if (a[i].value != b[j].value) {
      return std::nullopt;
    }
    r.push_back(w);
  }
  if (i != a.size() || j != b.size())
    return std::nullopt;
  return r;
}

bool isSubtype(const Words &a, const Words &b) {
  return isSubtype(a.data(), a.size(), b);
}

Words toWords(const CallKey &key) {
  return Words(key.words.data(), key.words.data() + key.words.size());
}

} // namespace

//===----------------------------------------------------------------------===//
// ConcreteImpl
//===----------------------------------------------------------------------===//

namespace {
[[noreturn]] void signatureMismatch(const std::string &fn,
                                    const std::vector<TensorSpec> &sig,
                                    const CallKey &key,
                                    const std::vector<std::string> &names);

/// Throws the error of a failed call of `fn`'s compiled code with the
/// kind the eager API gives the same fault.
[[noreturn]] void throwCallError(const std::string &fn, llvm::Error err) {
  ErrorKind kind = ErrorKind::InvalidArgument; // argument checks
  std::string message;
  llvm::handleAllErrors(
      std::move(err),
      [&](const jit::RuntimeError &e) {
        kind = runtime::errorKind(e.code());
        message = e.message();
      },
      [&](const llvm::ErrorInfoBase &e) { message = e.message(); });
  throw Error(kind, "fnc::function `" + fn + "`: " + message);
}
} // namespace

struct ConcreteImpl {
  ~ConcreteImpl() {
    if (pending)
      pending->abandon(); // a queued compile no call can use
  }

  std::string name;
  Words key;
  // A dim of size 1 of a call does not match the unknown dims of this
  // trace: two of them may meet in a broadcast, which compiled code cannot
  // stretch (TraceRecorder::unknownDimsMeet).
  bool onesExact = false;
  ParsedKey parsed;
  std::vector<TensorSpec> inputs, outputs;
  std::vector<std::string> paramNames;
  // ResultCodec<R>::kStructure of the traced callable (fnc::save).
  std::string results;
  // The code; or, while it compiles (or until something needs it, without
  // jit_compile), the compile and the graph executor that runs the calls.
  std::unique_ptr<trace::CompiledTrace> trace;
  std::shared_ptr<trace::PendingCompile> pending;
  std::shared_ptr<trace::GraphExecutor> executor;
  std::vector<Tensor> executorHidden;
  std::vector<uint64_t> executorVariables;
  std::vector<std::string> executorNames;
  std::vector<Tensor> executorConstants;
  bool executorEffects = false;
  bool fastMath = true; // FunctionOptions::fast_math of the trace
  std::string fncText;
  int64_t opCount = 0;
  bool tiered = false; // the background thread compiles `pending`
  bool strings = false; // string tensors: the executor's alone, never compiled
  // What the trace recorded: its gradient replays it. A loaded function
  // (fnc::load) imports it from its IR on its first call under a tape
  // instead (`importRecorded`; parsing the IR would cost every load about 3
  // ms): read it through recordedProgram().
  std::shared_ptr<const trace::RecordedTrace> recorded;
  std::function<std::shared_ptr<const trace::RecordedTrace>(std::string &)>
      importRecorded;
  mutable std::once_flag importOnce;
  mutable std::shared_ptr<const trace::RecordedTrace> imported;
  // The staged functions of its calls under a gradient tape (made on first
  // use): a backward per set of differentiated inputs, and the forward that
  // also returns the residuals.
  mutable std::mutex gradientMutex;
  mutable std::vector<std::shared_ptr<struct BackwardFunction>> backwards;
  mutable std::shared_ptr<struct ResidualForward> residualForward;
  // Why a loaded function's recorded program could not be imported.
  mutable std::string notDifferentiable;

  const std::shared_ptr<const trace::RecordedTrace> &recordedProgram() const {
    if (!importRecorded)
      return recorded;
    std::call_once(importOnce,
                   [&] { imported = importRecorded(notDifferentiable); });
    return imported;
  }
  // When it last served a call (FunctionOptions::max_traces evicts the
  // least recent).
  mutable std::atomic<uint64_t> lastUse{0};

  /// Runs the compiled code on `count` tensors that match `key` (or
  /// `inputs`); writes one tensor per output to `outs`.
  void run(const Tensor *const *tensors, size_t count, Tensor *outs) const;
  std::vector<Tensor> run(const Tensor *const *tensors, size_t count) const {
    std::vector<Tensor> outs(outputs.size());
    run(tensors, count, outs.data());
    return outs;
  }
  std::string signature() const;
  std::string pretty() const;

  /// The code if it is ready (never blocks).
  const trace::CompiledTrace *ready() const {
    return trace ? trace.get() : pending ? pending->ready() : nullptr;
  }
  /// The code, compiled here or waited for if it is not ready.
  const trace::CompiledTrace &compiled() const;

  /// CompiledTrace's hidden arguments (with their variables), the captured
  /// tensors it holds as constants and whether it has effects, known
  /// before the code is: a call under a tape needs no compile for them.
  const std::vector<Tensor> &hiddenArgs() const {
    const trace::CompiledTrace *code = ready();
    return code ? code->hiddenArgs() : executorHidden;
  }
  const std::vector<uint64_t> &hiddenVariables() const {
    const trace::CompiledTrace *code = ready();
    return code ? code->hiddenVariables() : executorVariables;
  }
  const std::vector<Tensor> &constantCaptures() const {
    const trace::CompiledTrace *code = ready();
    return code ? code->constantCaptures() : executorConstants;
  }
  bool hasEffects() const {
    const trace::CompiledTrace *code = ready();
    return code ? code->hasEffects() : executorEffects;
  }
};

} // namespace detail

namespace trace {
llvm::Error runTrace(const CompiledTrace &trace, const Tensor *const *tensors,
                     size_t count, Tensor *outs) {
  const std::vector<Tensor> &hidden = trace.hiddenArgs();
  llvm::SmallVector<jit::BufferView, 8> views(count + hidden.size());
  // Field by field: a view built aside and copied in costs a stalled
  // store-to-load forward per view on this hot path.
  auto view = [](const Tensor &t, jit::BufferView &v) {
    // array() throws for a symbolic tensor (leaked from a trace).
    const ref::Array &a = detail::TensorAccess::impl(t).array("data");
    v.dtype = a.dtype;
    v.shape = a.shape;
    v.data = a.buffer.get();
  };
  for (size_t i = 0; i < count; ++i)
    view(*tensors[i], views[i]);
  for (size_t i = 0; i < hidden.size(); ++i)
    view(hidden[i], views[count + i]);
  return trace.entry().callRowMajor(views, [&](const jit::TakenResult &r) {
    ref::Array a;
    a.dtype = r.dtype;
    a.shape.assign(r.shape.begin(), r.shape.end());
    void *allocation = r.allocation;
    memory::ObjectAllocator<char> objects;
    if (!allocation) // no elements
      a.buffer = std::shared_ptr<void>(r.data, [](void *) {}, objects);
    else if (allocation == r.data)
      a.buffer = std::shared_ptr<void>(r.data, &memory::release, objects);
    else
      a.buffer = std::shared_ptr<void>(
          r.data, [allocation](void *) { memory::release(allocation); },
          objects);
    *outs++ = detail::TensorAccess::wrap(std::move(a));
  });
}

/// Where the stack stood when this thread's outermost trace began (null
/// when it traces nothing). A staged function called while another traces
/// runs its callable inline: one that calls itself without end would
/// otherwise recurse until the stack overflows.
thread_local const char *traceStackBase = nullptr;

/// Stack a trace may use below traceStackBase before calls inside it are
/// refused: half the thread's stack, at most 4 MiB.
size_t traceStackLimit() {
  static thread_local size_t limit = [] {
    size_t size = 8u << 20;
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
      void *addr;
      size_t got;
      if (pthread_attr_getstack(&attr, &addr, &got) == 0 && got)
        size = got;
      pthread_attr_destroy(&attr);
    }
    return std::min<size_t>(size / 2, 4u << 20);
  }();
  return limit;
}

/// Throws `e` with a line saying which function was being traced (each
/// enclosing one adds its own, innermost first), as tf.function's "in user
/// code" does, unless the message names the function already.
[[noreturn]] static void throwWhileTracing(const Error &e,
                                           const std::string &name) {
  std::string message = e.what();
  if (message.find("`" + name + "`") != std::string::npos)
    throw e;
  throw Error(e.kind(),
              message + "\n  (while tracing fnc::function `" + name + "`)");
}

/// The graph executor's effects go where compiled code's go: the
/// runtime's random streams (with the keys compiled code passes) and its
/// output.
static GraphExecutor::Hooks executorHooks() {
  GraphExecutor::Hooks hooks;
  hooks.random = [](bool normal, DType dtype, const Shape &shape, double a,
                    double b, int64_t key) -> llvm::Expected<Tensor> {
    try {
      return normal ? ::fnc::random_normal(shape, a, b, dtype, key)
                    : ::fnc::random_uniform(shape, a, b, dtype, key);
    } catch (const std::exception &e) {
      return llvm::createStringError(e.what());
    }
  };
  hooks.print = [](const std::string &format,
                   llvm::ArrayRef<Tensor> tensors) -> llvm::Error {
    try {
      ::fnc::detail::printImpl(format,
                        std::vector<Tensor>(tensors.begin(), tensors.end()));
      return llvm::Error::success();
    } catch (const std::exception &e) {
      return llvm::createStringError(e.what());
    }
  };
  return hooks;
}

TracedFunction traceAndCompile(const TraceRequest &request) {
  const std::string &name = request.name;
  // Frame addresses, not a local's: under ASan a local may live on a fake
  // stack in the heap.
  struct StackBase {
    const char *saved = traceStackBase;
    explicit StackBase(const char *at) {
      if (!traceStackBase)
        traceStackBase = at;
    }
    ~StackBase() { traceStackBase = saved; }
  } stackBase{static_cast<const char *>(__builtin_frame_address(0))};
  auto token = std::make_shared<TraceToken>(name);
  std::unique_ptr<TraceRecorder> recorderOwner =
      TraceRecorder::create(name, token);
  TraceRecorder &recorder = *recorderOwner;
  recorder.allowVariableCreation = request.allowVariables;
  recorder.fastMath = request.fastMath;
  recorder.cacheDir = request.cacheDir;
  auto recorded = std::make_shared<RecordedTrace>();
  std::vector<Tensor> symbolic;
  for (size_t i = 0; i < request.dtypes.size(); ++i) {
    int64_t id = recorder.addArgument(request.dtypes[i], request.shapes[i]);
    symbolic.push_back(makeSymbolic(request.dtypes[i], request.shapes[i],
                                    token, id, request.argNames[i]));
    recorded->program.args.push_back(id);
  }

  struct EndOfTrace {
    TraceToken &token;
    ~EndOfTrace() { token.alive = false; }
  } endOfTrace{*token};
  std::vector<int64_t> resultIds;
  {
    // Tapes outside the call do not see the trace (a call under a tape is
    // one entry of theirs: callUnderTape).
    tape::Suspended outerTapes;
    RecorderScope scope(&recorder);
    ProgramScope program(recorder, &recorded->program);
    std::vector<Tensor> outs;
    try {
      profile::Span span("trace", [&] { return "trace " + name; });
      outs = request.body(symbolic);
    } catch (const Error &e) {
      throwWhileTracing(e, name);
    }
    for (size_t i = 0; i < outs.size(); ++i) {
      if (!outs[i].defined())
        throw Error(ErrorKind::InvalidArgument,
                    "fnc::function `" + name + "`: result #" +
                        std::to_string(i) +
                        " is a null fnc::Tensor; return defined tensors");
      resultIds.push_back(recorder.valueOf(outs[i], "return"));
    }
  }
  recorded->program.yields = resultIds;
  recorded->captures = recorder.captures();
  recorded->variables = recorder.variables();
  std::string error;
  if (!recorder.finish(resultIds, error))
    throw Error(ErrorKind::Internal, "fnc::function `" + name + "`: " + error);
  TracedFunction traced;
  for (int64_t id : resultIds) {
    DType dtype;
    std::vector<int64_t> shape;
    recorder.typeOf(id, dtype, shape);
    traced.outputDTypes.push_back(dtype);
    traced.outputShapes.push_back(std::move(shape));
  }
  recorder.optLevel = request.optLevel;
  auto cannotCompile = [&] {
    return Error(ErrorKind::Unimplemented,
                 "fnc::function `" + name +
                     "`: the trace could not be compiled: " + error);
  };
  if (!recorder.prepare(error))
    throw cannotCompile();
  // check_numerics's checks are compiled into the code: traced with it,
  // a function is compiled at once.
  // jit_compile false runs on the executor even where the compile cache
  // has the code. Strings are never compiled.
  bool strings = recorder.usesStrings();
  if (strings && request.jitCompileExplicit && *request.jitCompile)
    throw Error(ErrorKind::InvalidArgument,
                "fnc::function `" + name +
                    "`: jit_compile is true but the trace has string "
                    "tensors, which are not compiled; they run on the graph "
                    "executor: leave jit_compile unset or false");
  bool defer = strings ||
               (!check_numerics_enabled() &&
                (request.jitCompile ? !*request.jitCompile
                                    : recorder.needsCompiler() &&
                                          recorder.opCount() >= kTieredMinOps));
  if (defer) {
    auto executor = GraphExecutor::create(recorder.fncText(),
                                          traceSymbol(name), executorHooks());
    if (!executor)
      throw Error(ErrorKind::Internal,
                  "fnc::function `" + name +
                      "`: " + llvm::toString(executor.takeError()));
    traced.executor = std::move(*executor);
    traced.strings = strings;
    traced.hiddenArgs = recorder.hiddenArgs;
    traced.hiddenVariables = recorder.hiddenVariables;
    traced.hiddenNames = recorder.hiddenNames;
    traced.constantCaptures = recorder.constantCaptures();
    traced.hasEffects = recorder.effectsRecorded > 0;
    traced.unknownDimsMeet = recorder.unknownDimsMeet;
    traced.fncText = recorder.fncText();
    traced.opCount = recorder.opCount();
    traced.pending = std::make_shared<PendingCompile>(std::move(recorderOwner));
    // Tiered: the compiler starts now; graph execution only: when a tape
    // or the IR of a later stage needs the code.
    if (!request.jitCompile && !strings)
      traced.tiered = PendingCompile::start(traced.pending);
  } else {
    traced.trace = recorder.compile(error);
    if (!traced.trace)
      throw cannotCompile();
    traced.unknownDimsMeet = recorder.unknownDimsMeet;
  }
  traced.recorded = std::move(recorded);
  return traced;
}
} // namespace trace

namespace detail {

void ConcreteImpl::run(const Tensor *const *tensors, size_t count,
                       Tensor *outs) const {
  // The key matched this trace, so the arguments fit its signature, and a
  // tensor is row-major: the entry's checks would repeat the key's.
  profile::Span span("function", name);
  const trace::CompiledTrace *code = ready();
  span.arg("runs", code ? "compiled code" : "graph executor");
  if (code) {
    if (llvm::Error err = trace::runTrace(*code, tensors, count, outs))
      throwCallError(name, std::move(err));
    return;
  }
  ErrorKind kind = ErrorKind::InvalidArgument;
  if (llvm::Error err = executor->run(tensors, count, executorHidden,
                                      executorVariables, outs, kind))
    throw Error(kind, "fnc::function `" + name +
                          "`: " + llvm::toString(std::move(err)));
}

const trace::CompiledTrace &ConcreteImpl::compiled() const {
  if (const trace::CompiledTrace *code = ready())
    return *code;
  if (strings)
    throw Error(ErrorKind::Unimplemented,
                "fnc::function `" + name +
                    "`: the trace has string tensors, which run on the graph "
                    "executor and are never compiled: there is no compiled "
                    "code to save or show (its fnc IR is there: ir())");
  std::string error;
  const trace::CompiledTrace *code = pending->wait(error);
  if (!code)
    throw Error(ErrorKind::Unimplemented,
                "fnc::function `" + name +
                    "`: the trace could not be compiled: " + error);
  return *code;
}

std::string ConcreteImpl::signature() const {
  std::string s = name + "(";
  for (size_t i = 0; i < parsed.lines.size(); ++i)
    s += (i ? ", " : "") + parsed.lines[i];
  s += ") -> ";
  if (outputs.empty())
    return s + "void";
  if (outputs.size() == 1)
    return s + outputs[0].str();
  s += "(";
  for (size_t i = 0; i < outputs.size(); ++i)
    s += (i ? "; " : "") + outputs[i].str();
  return s + ")";
}

std::string ConcreteImpl::pretty() const {
  std::string s = name + "(";
  for (size_t i = 0; i < paramNames.size(); ++i)
    s += (i ? ", " : "") + paramNames[i];
  s += ")\n  Args:\n";
  for (const std::string &line : parsed.lines)
    s += "    " + line + "\n";
  s += "  Returns:\n";
  if (outputs.empty())
    s += "    void\n";
  else if (outputs.size() == 1)
    s += "    " + outputs[0].str() + "\n";
  else
    for (size_t i = 0; i < outputs.size(); ++i)
      s += "    [" + std::to_string(i) + "]: " + outputs[i].str() + "\n";
  return s;
}

//===----------------------------------------------------------------------===//
// FunctionCore
//===----------------------------------------------------------------------===//

/// The traces of a Function as calls read them without a lock: an
/// append-only array of pointers, published with release stores (the array,
/// then the count). A full array is replaced by a copy twice its size; the
/// old ones stay (readers may hold them), which costs at most as much again.
/// The traces themselves are owned by State::concretes and never dropped
/// while this is in use (no max_traces), so the pointers stay valid while
/// the Function lives.
class PublishedTraces {
public:
  /// Appends `c`. Writers are serialized by State::mutex.
  void append(const ConcreteImpl *c) {
    size_t n = count_.load(std::memory_order_relaxed);
    if (n == capacity_) {
      capacity_ = std::max<size_t>(4, 2 * capacity_);
      auto grown = std::make_unique<const ConcreteImpl *[]>(capacity_);
      std::copy_n(items_.load(std::memory_order_relaxed), n, grown.get());
      items_.store(grown.get(), std::memory_order_release);
      arrays_.push_back(std::move(grown));
    }
    arrays_.back()[n] = c;
    count_.store(n + 1, std::memory_order_release);
  }

  /// The traces published so far (any thread, no lock).
  llvm::ArrayRef<const ConcreteImpl *> read() const {
    // The count first: an array loaded after it holds at least that many.
    size_t n = count_.load(std::memory_order_acquire);
    return {items_.load(std::memory_order_acquire), n};
  }

private:
  std::atomic<size_t> count_{0};
  std::atomic<const ConcreteImpl **> items_{nullptr};
  size_t capacity_ = 0;
  std::vector<std::unique_ptr<const ConcreteImpl *[]>> arrays_;
};

struct FunctionCore::State {
  FunctionOptions options;
  std::string name;
  std::vector<bool> paramIsTensor;
  std::optional<Words> signatureKey;
  bool signatureUnranked = false; // one trace per rank, not one in all

  mutable std::mutex mutex;
  std::condition_variable traced;
  std::vector<std::shared_ptr<ConcreteImpl>> concretes;
  /// `concretes` for calls that find their trace without the mutex (see
  /// cachedTrace); unused with max_traces, which may drop traces.
  PublishedTraces published;
  std::vector<Words> pending;
  int64_t traces = 0;
  // Retracing statistics: how often each parameter differed from the
  // previous trace's key, and how (shape, dtype or value).
  std::vector<int64_t> changes;
  std::vector<std::string> changeKind;
  // When the recent traces happened (the warning counts traces in a short
  // span) and when it last warned (at most once per span).
  std::deque<std::chrono::steady_clock::time_point> recentTraces;
  std::optional<std::chrono::steady_clock::time_point> lastWarning;

  std::vector<std::string> paramNames() const {
    // A generic callable's parameters are known per call: name as many as
    // the signature has.
    size_t n = std::max(
        paramIsTensor.size(),
        options.input_signature ? options.input_signature->size() : size_t{0});
    std::vector<std::string> r;
    for (size_t i = 0; i < n; ++i)
      r.push_back(KeyParser(nullptr, 0, options.arg_names)
                      .paramName(static_cast<int32_t>(i)));
    return r;
  }
};

/// $FNC_JIT_COMPILE: 1 (or true) always compiles, 0 (or false) never does;
/// unset or empty, calls are tiered.
static std::optional<bool> jitCompileFromEnvironment() {
  static const std::optional<bool> value = []() -> std::optional<bool> {
    const char *v = std::getenv("FNC_JIT_COMPILE");
    if (!v || !*v)
      return std::nullopt;
    std::string s = v;
    if (s == "1" || s == "true")
      return true;
    if (s == "0" || s == "false")
      return false;
    throw Error(ErrorKind::InvalidArgument,
                "FNC_JIT_COMPILE is \"" + s +
                    "\"; set it to 1 (always compile), 0 (never compile: "
                    "the graph executor runs every call) or leave it unset "
                    "(tiered)");
  }();
  return value;
}

FunctionCore::FunctionCore(FunctionOptions options,
                           std::vector<bool> paramIsTensor, bool fixedParams)
    : state_(std::make_unique<State>()) {
  State &s = *state_;
  s.name = options.name.empty() ? "function" : options.name;
  s.options = std::move(options);
  s.paramIsTensor = std::move(paramIsTensor);
  s.changes.assign(s.paramIsTensor.size(), 0);
  s.changeKind.assign(s.paramIsTensor.size(), "");
  if (s.options.max_traces && *s.options.max_traces == 0)
    throw Error(ErrorKind::InvalidArgument,
                "fnc::function `" + s.name +
                    "`: max_traces must be at least 1 (leave it unset for no "
                    "bound)");
  if (s.options.opt_level > 3)
    throw Error(ErrorKind::InvalidArgument,
                "fnc::function `" + s.name +
                    "`: opt_level must be 0 to 3, not " +
                    std::to_string(s.options.opt_level));
  if (s.options.input_signature) {
    const auto &sig = *s.options.input_signature;
    // A spec's name names its parameter (in signatures and errors) unless
    // arg_names does.
    std::vector<std::string> &names = s.options.arg_names;
    for (size_t i = 0; i < sig.size(); ++i) {
      if (sig[i].name.empty() || (i < names.size() && !names[i].empty()))
        continue;
      names.resize(std::max(names.size(), i + 1));
      names[i] = sig[i].name;
    }
    if (fixedParams && sig.size() != s.paramIsTensor.size())
      throw Error(ErrorKind::InvalidArgument,
                  "fnc::function `" + s.name + "`: the input_signature has " +
                      std::to_string(sig.size()) + " spec" +
                      (sig.size() == 1 ? "" : "s") + " but the callable has " +
                      std::to_string(s.paramIsTensor.size()) +
                      " parameters; give one fnc::TensorSpec per parameter");
    for (size_t i = 0; i < s.paramIsTensor.size(); ++i)
      if (!s.paramIsTensor[i])
        throw Error(ErrorKind::InvalidArgument,
                    "fnc::function `" + s.name + "`: parameter `" +
                        s.paramNames()[i] + "` (#" + std::to_string(i) +
                        ") is not a fnc::Tensor; with an input_signature "
                        "every parameter must be a fnc::Tensor (pass C++ "
                        "values as tensors, or drop the input_signature)");
    CallKey key;
    for (size_t i = 0; i < sig.size(); ++i) {
      key.arg = static_cast<int32_t>(i);
      key.spec(sig[i]);
    }
    s.signatureKey = toWords(key);
    s.signatureUnranked = hasUnknownRank(*s.signatureKey);
  }
}

FunctionCore::~FunctionCore() = default;

void FunctionCore::emptyFunctionError() {
  throw Error(ErrorKind::FailedPrecondition,
              "an empty fnc::Function was called; assign it a staged "
              "callable first (fnc::function(...))");
}

bool FunctionCore::runCallableDirectly() {
  // Inside a trace the callable is inlined (a tape in that trace sees its
  // ops).
  return runEagerly.load(std::memory_order_relaxed) ||
         trace::activeRecorder() != nullptr;
}

bool FunctionCore::underTape() { return tape::anyRecording(); }

void FunctionCore::rethrowFromDirectCall(const Error &e) const {
  if (trace::activeRecorder())
    trace::throwWhileTracing(e, state_->name);
  throw e;
}

void FunctionCore::checkDirectCall(const CallKey &key) const {
  const State &s = *state_;
  const char *here = static_cast<const char *>(__builtin_frame_address(0));
  if (trace::traceStackBase && trace::traceStackBase > here &&
      static_cast<size_t>(trace::traceStackBase - here) >
          trace::traceStackLimit())
    throw Error(ErrorKind::InvalidArgument,
                "fnc::function `" + s.name +
                    "`: calls nest too deep while tracing (over " +
                    std::to_string(trace::traceStackLimit() >> 20) +
                    " MiB of stack): a staged function calls itself (or "
                    "another one that calls it) without end; end the "
                    "recursion with a C++ condition that tracing can see "
                    "(a shape, a C++ argument), or loop with "
                    "fnc::while_loop / fnc::for_range");
  if (!s.options.input_signature)
    return;
  const std::vector<TensorSpec> &sig = *s.options.input_signature;
  for (size_t i = 0; i < key.tensors.size() && i < sig.size(); ++i)
    if (!sig[i].matches(key.tensors[i]->dtype(), key.tensors[i]->shape()))
      signatureMismatch(s.name, sig, key, s.paramNames());
}

const std::string &FunctionCore::name() const { return state_->name; }

int64_t FunctionCore::tracingCount() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->traces;
}

std::vector<ConcreteFunction> FunctionCore::concreteFunctions() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  std::vector<ConcreteFunction> r;
  for (const auto &c : state_->concretes) {
    ConcreteFunction f;
    f.impl_ = c;
    r.push_back(f);
  }
  return r;
}

std::string FunctionCore::prettyPrintedConcreteSignatures() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  std::string s;
  for (const auto &c : state_->concretes)
    s += (s.empty() ? "" : "\n") + c->pretty();
  return s;
}

namespace {

/// Throws the input_signature mismatch error for the first argument of
/// `key` that does not match.
[[noreturn]] void signatureMismatch(const std::string &fn,
                                    const std::vector<TensorSpec> &sig,
                                    const CallKey &key,
                                    const std::vector<std::string> &names) {
  size_t n = std::min(sig.size(), key.tensors.size());
  for (size_t i = 0; i < n; ++i) {
    const Tensor &t = *key.tensors[i];
    if (!sig[i].matches(t.dtype(), t.shape())) {
      TensorSpec actual(t.shape(), t.dtype());
      throw Error(ErrorKind::InvalidArgument,
                  "fnc::function `" + fn + "`: argument `" + names[i] +
                      "` (#" + std::to_string(i) +
                      ") does not match the input_signature: expected " +
                      sig[i].str() + ", got " + actual.str() +
                      "; pass a tensor of the expected dtype and shape, or "
                      "relax the input_signature (fnc::kUnknownDim)");
    }
  }
  throw Error(ErrorKind::InvalidArgument,
              "fnc::function `" + fn +
                  "`: the call does not match the input_signature of " +
                  std::to_string(sig.size()) + " spec" +
                  (sig.size() == 1 ? "" : "s") +
                  "; pass exactly one fnc::Tensor per spec");
}

/// The most specific of `concretes` (shared or raw pointers to
/// ConcreteImpl) that `key` may run; null if none.
template <typename Ptr>
const Ptr *mostSpecific(llvm::ArrayRef<Ptr> concretes, const KeyWord *key,
                        size_t n) {
  const Ptr *best = nullptr;
  for (const Ptr &c : concretes)
    if (isSubtype(key, n, c->key, c->onesExact) &&
        (!best ||
         (isSubtype(c->key, (*best)->key) && c->key != (*best)->key)))
      best = &c;
  return best;
}

/// Runs `thunk` on symbolic tensors of the specs in `key`, recording a new
/// trace (variables may only be created on the `firstTrace`), and compiles
/// it; throws fnc::Error when the callable or the compilation fails.
std::shared_ptr<const ConcreteImpl>
traceConcrete(const std::string &name, const FunctionOptions &options,
              const Words &key, const TraceThunk &thunk,
              bool firstTrace) {
  auto impl = std::make_shared<ConcreteImpl>();
  impl->name = name;
  impl->key = key;
  impl->parsed = KeyParser(key.data(), key.size(), options.arg_names).parse();
  impl->results = thunk.results ? thunk.results : "vector";

  trace::TraceRequest request;
  request.name = name;
  for (const TensorArg &t : impl->parsed.tensors) {
    // Unknown dims are kUnknownDim == shapes::kDynamic.
    request.dtypes.push_back(t.spec.dtype);
    request.shapes.push_back(t.spec.shape);
    request.argNames.push_back(t.name);
    impl->inputs.push_back(t.spec);
  }
  request.body = [&thunk](const std::vector<Tensor> &symbolic) {
    return thunk.run(thunk.context, symbolic);
  };
  // The singleton rule (fnc/Variable.h): variables only on the first trace.
  request.allowVariables = firstTrace;
  request.fastMath = options.fast_math;
  request.optLevel = options.opt_level;
  // $FNC_JIT_COMPILE is the default; a trace with strings, which cannot
  // compile, ignores it.
  request.jitCompile =
      options.jit_compile ? options.jit_compile : jitCompileFromEnvironment();
  request.jitCompileExplicit = options.jit_compile.has_value();
  request.cacheDir = options.cache_dir;
  trace::TracedFunction traced = trace::traceAndCompile(request);
  for (size_t i = 0; i < traced.outputDTypes.size(); ++i)
    impl->outputs.emplace_back(traced.outputShapes[i], traced.outputDTypes[i]);
  impl->onesExact = traced.unknownDimsMeet;
  impl->trace = std::move(traced.trace);
  impl->pending = std::move(traced.pending);
  impl->executor = std::move(traced.executor);
  impl->executorHidden = std::move(traced.hiddenArgs);
  impl->executorVariables = std::move(traced.hiddenVariables);
  impl->executorNames = std::move(traced.hiddenNames);
  impl->executorConstants = std::move(traced.constantCaptures);
  impl->executorEffects = traced.hasEffects;
  impl->fastMath = options.fast_math;
  impl->fncText = std::move(traced.fncText);
  impl->opCount = traced.opCount;
  impl->tiered = traced.tiered;
  impl->strings = traced.strings;
  impl->recorded = std::move(traced.recorded);
  return impl;
}

std::shared_ptr<ConcreteImpl> lookupOrTrace(FunctionCore::State &s,
                                            const CallKey &key,
                                            const TraceThunk &thunk,
                                            bool exact);

/// The trace a call runs, found without the mutex among the published
/// ones as lookupOrTrace would find it; null when the call needs
/// lookupOrTrace (a miss, a signature mismatch, or max_traces).
const ConcreteImpl *cachedTrace(const FunctionCore::State &s,
                                const CallKey &key) {
  const KeyWord *w = key.words.data();
  size_t n = key.words.size();
  llvm::ArrayRef<const ConcreteImpl *> traces = s.published.read();
  if (traces.empty())
    return nullptr;
  if (s.signatureKey) {
    if (!isSubtype(w, n, *s.signatureKey))
      return nullptr;
    if (!s.signatureUnranked && !traces.front()->onesExact)
      return traces.front(); // the one trace of the signature
  }
  const ConcreteImpl *const *best = mostSpecific(traces, w, n);
  return best ? *best : nullptr;
}

/// The trace a call runs: a published one, or lookupOrTrace's, which
/// `held` keeps alive (it may be dropped under max_traces meanwhile).
const ConcreteImpl &dispatch(FunctionCore::State &s, const CallKey &key,
                             const TraceThunk &thunk,
                             std::shared_ptr<ConcreteImpl> &held) {
  if (const ConcreteImpl *c = cachedTrace(s, key))
    return *c;
  held = lookupOrTrace(s, key, thunk, false);
  return *held;
}
} // namespace

std::vector<Tensor> FunctionCore::call(const CallKey &key,
                                       const TraceThunk &thunk) {
  std::shared_ptr<ConcreteImpl> held;
  return dispatch(*state_, key, thunk, held)
      .run(key.tensors.data(), key.tensors.size());
}

Tensor FunctionCore::callOne(const CallKey &key, const TraceThunk &thunk) {
  std::shared_ptr<ConcreteImpl> held;
  Tensor out;
  dispatch(*state_, key, thunk, held)
      .run(key.tensors.data(), key.tensors.size(), &out);
  return out;
}

ConcreteFunction FunctionCore::concrete(const CallKey &key,
                                        const TraceThunk &thunk) {
  if (hasUnknownRank(key.words.data(), key.words.size())) {
    std::vector<std::string> names = state_->paramNames();
    int32_t arg = 0;
    for (size_t i = 0; i < key.words.size(); ++i)
      if (key.words[i].kind == KeyWord::Rank &&
          key.words[i].value == kUnknownDim)
        arg = key.words[i].arg;
    throw Error(ErrorKind::InvalidArgument,
                "fnc::Function::get_concrete_function `" + state_->name +
                    "`: the spec of argument `" + names[arg] +
                    "` has an unknown rank (fnc::kUnknownShape), and fnc "
                    "compiles one concrete function per rank; give a "
                    "TensorSpec with the rank (unknown dims as "
                    "fnc::kUnknownDim), or an example tensor");
  }
  ConcreteFunction f;
  f.impl_ = lookupOrTrace(*state_, key, thunk, true);
  return f;
}

//===----------------------------------------------------------------------===//
// Calls under a gradient tape
//===----------------------------------------------------------------------===//

/// The staged backward of one concrete function for one set of
/// differentiated inputs: a function of its own (traced and compiled once,
/// cached) whose parameters are the forward's tensor arguments, then the
/// gradients of its results, and whose results are the gradients of the
/// differentiated inputs of the tape entry, in its order (the arguments,
/// then the hidden arguments: captured eager tensors and variables). It
/// replays the forward's recorded program under a tape of its own
/// (recomputation: the only residuals are the inputs); the callable that
/// traced the forward is never called again.
/// A value of a forward with effects that its backward cannot compute
/// again: a random draw, or a read of a variable the forward updates.
struct Residual {
  int64_t id; // in the forward's recorded program
  TensorSpec spec;
};

/// The residuals of a recorded forward: its random draws (those made in
/// staged conds are the conds' extra results), its reads of the variables
/// it updates and, with `products`, the results of its matmuls and
/// convolutions (JAX's dots-saveable checkpoint policy). None when staged
/// control flow keeps no rows of its random draws or of its reads of a
/// variable it updates (a cond read from a file saved by an older fnc; the
/// call then runs its callable eagerly, where it has one).
std::optional<std::vector<Residual>>
residualsOf(const trace::RecordedTrace &recorded, bool products) {
  const trace::Program &p = recorded.program;
  std::vector<Residual> residuals;
  for (const trace::Program::Step &step : p.steps) {
    if (step.nested) {
      const trace::ProgramFacts &f = step.nested->facts;
      if (f.random || f.staleReads || f.replayMiscounts)
        return std::nullopt;
      for (const trace::Drawn &d : step.nested->draws)
        residuals.push_back({d.id, TensorSpec(d.shape, d.dtype)});
      continue;
    }
    const trace::OpRecord &op = step.op;
    if (std::holds_alternative<trace::ops::VarRead>(op.op)) {
      if (std::find(p.updates.begin(), p.updates.end(), step.variable) ==
          p.updates.end())
        continue;
    } else if (!std::holds_alternative<trace::ops::RandomUniform>(op.op) &&
               !std::holds_alternative<trace::ops::RandomNormal>(op.op)) {
      bool product = std::holds_alternative<trace::ops::Matmul>(op.op) ||
                     std::holds_alternative<trace::ops::Conv2D>(op.op);
      if (!products || !product || !isFloat(op.dtype))
        continue;
    }
    residuals.push_back({step.result, TensorSpec(op.shape, op.dtype)});
  }
  return residuals;
}

/// The forward of a concrete function with effects, as called under a
/// tape: its recorded program replayed with its effects, returning its
/// results and then its residuals (one trace per concrete function).
struct ResidualForward {
  std::shared_ptr<const trace::RecordedTrace> recorded;
  std::vector<TensorSpec> inputs;
  std::vector<Residual> residuals;
  std::unique_ptr<FunctionCore> core;

  static std::vector<Tensor> run(const void *self,
                                 const std::vector<Tensor> &args) {
    const auto &f = *static_cast<const ResidualForward *>(self);
    const trace::RecordedTrace &recorded = *f.recorded;
    trace::ValueMap map = recorded.map();
    map.effects = true;
    std::vector<Tensor> outs = trace::replay(recorded.program, map, args);
    for (const Residual &r : f.residuals)
      outs.push_back(map.get(r.id));
    return outs;
  }

  std::vector<Tensor> call(const std::vector<Tensor> &args) {
    CallKey key;
    for (size_t i = 0; i < args.size(); ++i) {
      key.arg = static_cast<int32_t>(i);
      key.spec(inputs[i]);
      key.tensors.push_back(&args[i]);
    }
    return core->call(key, {this, &run});
  }
};

struct BackwardFunction {
  std::shared_ptr<const trace::RecordedTrace> recorded;
  std::vector<bool> mask; // per input of the tape entry
  size_t argCount = 0;
  /// Values of the forward it takes after the arguments.
  std::vector<Residual> residuals;
  std::vector<Tensor> captured; // eager tensors the forward captured
  std::vector<uint64_t> variables;
  std::vector<Tensor> variableBuffers; // their aliases, for zeros
  /// Per differentiated hidden argument, in order: a variable (its index
  /// in `variables`) or a captured tensor (its index in `captured`).
  std::vector<std::pair<bool, size_t>> hiddenOrder;
  std::vector<TensorSpec> specs; // the forward's inputs, then results
  std::unique_ptr<FunctionCore> core;
  /// Which results a gradient flows to (set while tracing: it is a
  /// property of the program, not of the shapes); the others are null for
  /// the tape, as unconnected sources are.
  mutable std::vector<bool> connected;

  std::vector<Tensor> body(const std::vector<Tensor> &tensors) const {
    std::vector<Tensor> args(tensors.begin(), tensors.begin() + argCount);
    size_t gradsAt = argCount + residuals.size();
    std::vector<Tensor> grads(tensors.begin() + gradsAt, tensors.end());
    std::vector<Tensor> watch;
    for (size_t i = 0; i < argCount; ++i)
      if (mask[i])
        watch.push_back(args[i]);
    size_t maskedArgs = watch.size();
    watch.insert(watch.end(), captured.begin(), captured.end());
    trace::ValueMap map = recorded->map();
    // A kept read of a variable is a read of the variable to the tapes
    // (replay): its gradient is the variable's.
    for (size_t k = 0; k < residuals.size(); ++k)
      map.residuals[residuals[k].id] = tensors[argCount + k];
    std::vector<Tensor> g = grad::vjp(
        [&] { return trace::replay(recorded->program, map, args); }, watch,
        variables, grads);
    // In the entry's order: the arguments, then the hidden arguments.
    std::vector<size_t> order;
    for (size_t i = 0; i < maskedArgs; ++i)
      order.push_back(i);
    for (const auto &[isVariable, index] : hiddenOrder)
      order.push_back(isVariable ? watch.size() + index : maskedArgs + index);
    std::vector<Tensor> ordered;
    connected.clear();
    for (size_t i : order) {
      connected.push_back(g[i].defined());
      // Every result is a defined tensor: zeros where no gradient flows.
      if (g[i].defined())
        ordered.push_back(g[i]);
      else if (i < watch.size())
        ordered.push_back(zeros_like(watch[i]));
      else
        ordered.push_back(zeros(variableBuffers[i - watch.size()].shape(),
                                variableBuffers[i - watch.size()].dtype()));
    }
    return ordered;
  }

  static std::vector<Tensor> run(const void *self,
                                 const std::vector<Tensor> &tensors) {
    return static_cast<const BackwardFunction *>(self)->body(tensors);
  }

  std::vector<Tensor> call(const std::vector<Tensor> &tensors) {
    // The key is the specs' (one trace for every shape they admit), so the
    // tensors are checked here: a call runs the code unchecked.
    CallKey key;
    for (size_t i = 0; i < specs.size(); ++i) {
      if (!specs[i].matches(tensors[i].dtype(), tensors[i].shape()))
        throw Error(ErrorKind::InvalidArgument,
                    "the gradient of fnc::function `" + core->name() +
                        "`: input #" + std::to_string(i) + " of its backward "
                        "function is " +
                        TensorSpec(tensors[i].shape(), tensors[i].dtype())
                            .str() +
                        ", expected " + specs[i].str() +
                        "; give output gradients of the results' shapes");
      key.arg = static_cast<int32_t>(i);
      key.spec(specs[i]);
      key.tensors.push_back(&tensors[i]);
    }
    // Under an outer recording tape (higher derivatives) the backward is
    // one entry of that tape in turn.
    if (FunctionCore::underTape())
      return core->callUnderTape(key, {this, &run});
    return core->call(key, {this, &run});
  }
};

namespace {

/// A tensor sharing `buffer`'s memory with an identity of its own: what a
/// tape takes as the value a call read from a variable.
Tensor viewOf(const Tensor &buffer) {
  auto holder = std::make_shared<Tensor>(buffer);
  void *data = const_cast<void *>(trace::concreteData(buffer));
  return trace::adoptBuffer(buffer.dtype(), buffer.shape(),
                            std::shared_ptr<void>(holder, data));
}

const void *identity(const Tensor &t) {
  return &detail::TensorAccess::impl(t);
}

} // namespace

/// How a concrete function is called under a tape: the names and options
/// of its staged forward and backward, and what runs when its residuals
/// sit inside staged control flow (the callable eagerly, for a
/// fnc::Function; an error, for a concrete function called directly).
struct TapedCall {
  const std::string &name;
  bool fastMath, recompute;
  std::function<std::vector<Tensor>(const std::vector<Tensor> &)> eager;
  // The function's, for its staged backward and residual forward.
  std::optional<bool> jitCompile{};
  unsigned optLevel = 3;
};

/// A call of `c` on `args` whose inputs a tape may watch: one tape entry
/// whose backward is `c`'s staged backward function.
std::vector<Tensor> tapedCall(const std::shared_ptr<const ConcreteImpl> &c,
                              const TapedCall &how, const Tensor *const *args,
                              size_t argCount);

std::vector<Tensor> FunctionCore::callUnderTape(const CallKey &key,
                                                const TraceThunk &thunk) {
  State &s = *state_;
  std::shared_ptr<ConcreteImpl> c = lookupOrTrace(s, key, thunk, false);
  TapedCall call{s.name, s.options.fast_math, s.options.recompute_gradients,
                 [&](const std::vector<Tensor> &inputs) {
                   return thunk.run(thunk.context, inputs);
                 },
                 s.options.jit_compile, s.options.opt_level};
  return tapedCall(c, call, key.tensors.data(), key.tensors.size());
}

std::vector<Tensor> tapedCall(const std::shared_ptr<const ConcreteImpl> &c,
                              const TapedCall &how, const Tensor *const *args,
                              size_t argCount) {
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < argCount; ++i)
    inputs.push_back(*args[i]);
  // A forward with effects runs once, as a variant that also returns the
  // values its backward cannot compute again (residuals). Where those sit
  // inside staged control flow, the callable runs eagerly instead, so that
  // the tapes see its ops and its effects happen once.
  const std::shared_ptr<const trace::RecordedTrace> &recorded =
      c->recordedProgram();
  std::optional<std::vector<Residual>> residuals;
  if (recorded)
    residuals = residualsOf(*recorded, !how.recompute);
  if (c->hasEffects() && recorded && !residuals)
    return how.eager(inputs);
  if (residuals && residuals->empty())
    residuals.reset(); // the plain forward serves
  // The tape entry's inputs: the arguments, then the hidden arguments (a
  // variable's as a fresh view of its buffer, read from the variable), then
  // the captured tensors the trace holds as constants.
  std::vector<Tensor> hidden = c->hiddenArgs();
  std::vector<uint64_t> hiddenVariables = c->hiddenVariables();
  const std::vector<Tensor> &constants = c->constantCaptures();
  hidden.insert(hidden.end(), constants.begin(), constants.end());
  hiddenVariables.resize(hidden.size(), 0);
  for (size_t j = 0; j < hidden.size(); ++j) {
    if (!hiddenVariables[j]) {
      inputs.push_back(hidden[j]);
      continue;
    }
    Tensor value = viewOf(hidden[j]);
    tape::noteVariableRead(hiddenVariables[j], value);
    inputs.push_back(value);
  }
  std::vector<bool> mask(inputs.size());
  bool any = false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    mask[i] = isFloat(inputs[i].dtype()) && tape::watchedByAny(inputs[i]);
    any |= mask[i];
  }
  if (!any)
    return c->run(args, argCount);
  if (!recorded)
    throw Error(ErrorKind::Unimplemented,
                "fnc: the gradient of `" + how.name + "`: " +
                    (c->notDifferentiable.empty()
                         ? std::string("it has no recorded program")
                         : c->notDifferentiable) +
                    "; call it outside the GradientTape, or stop watching "
                    "its inputs");

  std::unique_lock<std::mutex> lock(c->gradientMutex);
  std::shared_ptr<ResidualForward> withResiduals;
  if (residuals && !c->residualForward) {
    auto f = std::make_shared<ResidualForward>();
    f->recorded = recorded;
    f->inputs = c->inputs;
    f->residuals = *residuals;
    FunctionOptions options;
    options.name = how.name + "_forward";
    options.fast_math = how.fastMath;
    options.jit_compile = how.jitCompile;
    options.opt_level = how.optLevel;
    f->core = std::make_unique<FunctionCore>(
        options, std::vector<bool>(argCount, true));
    c->residualForward = std::move(f);
  }
  if (residuals)
    withResiduals = c->residualForward;

  std::shared_ptr<BackwardFunction> backward;
  for (const auto &b : c->backwards)
    if (b->mask == mask)
      backward = b;
  if (!backward) {
    backward = std::make_shared<BackwardFunction>();
    backward->recorded = recorded;
    backward->mask = mask;
    backward->argCount = argCount;
    if (residuals)
      backward->residuals = *residuals;
    for (size_t j = 0; j < hidden.size(); ++j) {
      if (!mask[argCount + j])
        continue;
      if (hiddenVariables[j]) {
        backward->hiddenOrder.emplace_back(true, backward->variables.size());
        backward->variables.push_back(hiddenVariables[j]);
        backward->variableBuffers.push_back(hidden[j]);
      } else {
        backward->hiddenOrder.emplace_back(false, backward->captured.size());
        backward->captured.push_back(hidden[j]);
      }
    }
    backward->specs = c->inputs;
    for (const Residual &r : backward->residuals)
      backward->specs.push_back(r.spec);
    backward->specs.insert(backward->specs.end(), c->outputs.begin(),
                           c->outputs.end());
    FunctionOptions options;
    options.name = how.name + "_backward";
    options.jit_compile = how.jitCompile;
    options.opt_level = how.optLevel;
    backward->core = std::make_unique<FunctionCore>(
        options, std::vector<bool>(backward->specs.size(), true));
    c->backwards.push_back(backward);
  }
  lock.unlock();

  tape::RegionScope region;
  std::vector<Tensor> outs, kept;
  if (withResiduals) {
    outs = withResiduals->call(
        std::vector<Tensor>(inputs.begin(), inputs.begin() + argCount));
    kept.assign(outs.end() - residuals->size(), outs.end());
    outs.resize(outs.size() - residuals->size());
  } else {
    outs = c->run(args, argCount);
  }
  auto entry = std::make_shared<tape::Region>();
  entry->op = "function";
  // Non-float results get no gradient; the backward takes zeros for them.
  std::vector<std::pair<Shape, DType>> outputTypes;
  for (const Tensor &t : outs)
    outputTypes.emplace_back(t.shape(), t.dtype());
  entry->backward = [backward, inputs, kept, outputTypes](
                        const std::vector<Tensor> &captured,
                        const std::vector<Tensor> &resultGrads) {
    std::vector<Tensor> tensors(inputs.begin(),
                                inputs.begin() + backward->argCount);
    tensors.insert(tensors.end(), kept.begin(), kept.end());
    for (size_t k = 0; k < outputTypes.size(); ++k)
      tensors.push_back(k < resultGrads.size() && resultGrads[k].defined()
                            ? resultGrads[k]
                            : zeros(outputTypes[k].first,
                                    outputTypes[k].second));
    std::vector<Tensor> g = backward->call(tensors);
    // g holds one gradient per differentiated input, in input order; the
    // tape asks for those of `captured` (its watched inputs, deduplicated).
    std::vector<Tensor> result;
    for (const Tensor &t : captured) {
      Tensor sum;
      size_t next = 0;
      for (size_t i = 0; i < inputs.size(); ++i) {
        if (!backward->mask[i])
          continue;
        if (identity(inputs[i]) == identity(t) && backward->connected[next])
          sum = sum.defined() ? sum + g[next] : g[next];
        ++next;
      }
      result.push_back(sum);
    }
    return result;
  };
  region.end(entry, inputs, outs);
  return outs;
}

std::vector<ConcreteFunction> FunctionCore::backwardConcreteFunctions() const {
  std::vector<std::shared_ptr<BackwardFunction>> backwards;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    for (const auto &c : state_->concretes) {
      std::lock_guard<std::mutex> gradients(c->gradientMutex);
      backwards.insert(backwards.end(), c->backwards.begin(),
                       c->backwards.end());
    }
  }
  std::vector<ConcreteFunction> r;
  for (const auto &b : backwards)
    for (ConcreteFunction &f : b->core->concreteFunctions())
      r.push_back(std::move(f));
  return r;
}

namespace {

/// The "short span" of the retracing warning.
constexpr std::chrono::seconds kRetraceSpan{60};

void noteRetrace(FunctionCore::State &s, const Words &key) {
  ++s.traces;
  if (!s.concretes.empty()) {
    const Words &prev = s.concretes.back()->key;
    std::vector<bool> seen(s.changes.size(), false);
    for (size_t i = 0; i < key.size(); ++i) {
      int32_t p = key[i].arg;
      bool differs = i >= prev.size() || prev[i].value != key[i].value ||
                     prev[i].arg != p;
      if (!differs || p >= static_cast<int32_t>(seen.size()) || seen[p])
        continue;
      seen[p] = true;
      ++s.changes[p];
      if (!s.paramIsTensor[p])
        s.changeKind[p] = "value";
      else if (i < prev.size() && (key[i].kind == KeyWord::Dim ||
                                   key[i].kind == KeyWord::Rank))
        s.changeKind[p] = "shape";
      else
        s.changeKind[p] = "dtype";
    }
  }
  // Warn when more than 5 traces fall within one span, once per span.
  auto now = std::chrono::steady_clock::now();
  s.recentTraces.push_back(now);
  while (now - s.recentTraces.front() > kRetraceSpan)
    s.recentTraces.pop_front();
  if (s.recentTraces.size() <= 5 ||
      (s.lastWarning && now - *s.lastWarning < kRetraceSpan))
    return;
  s.lastWarning = now;
  size_t worst = 0;
  for (size_t p = 1; p < s.changes.size(); ++p)
    if (s.changes[p] > s.changes[worst])
      worst = p;
  std::string name = s.paramNames().empty() ? "" : s.paramNames()[worst];
  std::string msg = "fnc::function `" + s.name + "` was traced " +
                    std::to_string(s.traces) +
                    " times; tracing is expensive (it runs the C++ code and "
                    "compiles it). ";
  if (s.changes.empty() || s.changes[worst] == 0) {
    msg += "Create the fnc::function once and call it many times, instead "
           "of creating it again.";
  } else {
    msg += "The argument that kept changing is `" + name + "` (#" +
           std::to_string(worst) + "), whose " + s.changeKind[worst] +
           " changed " + std::to_string(s.changes[worst]) + " times. ";
    if (s.changeKind[worst] == "value")
      msg += "Every distinct C++ value is a new trace: pass it as a "
             "fnc::Tensor instead, so that one trace serves all values.";
    else if (s.changeKind[worst] == "shape")
      msg += "Give the function an input_signature with unknown dims "
             "(fnc::kUnknownDim; fnc::kUnknownShape for any rank) or set "
             "FunctionOptions::reduce_retracing, so that one trace serves "
             "all shapes.";
    else
      msg += "Cast it to one dtype (fnc::cast) before the call.";
  }
  logWarning(msg);
}

/// Notes that `c` serves a call now, for the least-recently-used eviction
/// of FunctionOptions::max_traces (only counted when that is set).
const std::shared_ptr<ConcreteImpl> &
touched(const FunctionCore::State &s, const std::shared_ptr<ConcreteImpl> &c) {
  static std::atomic<uint64_t> clock{0};
  if (s.options.max_traces)
    c->lastUse.store(clock.fetch_add(1, std::memory_order_relaxed) + 1,
                     std::memory_order_relaxed);
  return c;
}

/// Drops least recently used traces until one more fits in max_traces. A
/// call running a dropped trace keeps it alive (shared ownership).
void evictForOneMore(FunctionCore::State &s) {
  if (!s.options.max_traces)
    return;
  while (!s.concretes.empty() && s.concretes.size() >= *s.options.max_traces) {
    auto lru = std::min_element(
        s.concretes.begin(), s.concretes.end(), [](const auto &a, const auto &b) {
          return a->lastUse.load(std::memory_order_relaxed) <
                 b->lastUse.load(std::memory_order_relaxed);
        });
    s.concretes.erase(lru);
  }
}

std::shared_ptr<ConcreteImpl> lookupOrTrace(FunctionCore::State &s,
                                            const CallKey &key,
                                            const TraceThunk &thunk,
                                            bool exact) {
  const KeyWord *w = key.words.data();
  size_t n = key.words.size();
  std::unique_lock<std::mutex> lock(s.mutex);
  if (s.signatureKey && !isSubtype(w, n, *s.signatureKey)) {
    lock.unlock();
    signatureMismatch(s.name, *s.options.input_signature, key,
                      s.paramNames());
  }
  for (;;) {
    // The hit path: no allocation.
    if (s.signatureKey && !s.signatureUnranked && !s.concretes.empty() &&
        !s.concretes.front()->onesExact)
      return touched(s, s.concretes.front()); // the one trace of the signature
    if (exact && !s.signatureKey) {
      for (const auto &c : s.concretes)
        if (c->key.size() == n && std::equal(w, w + n, c->key.begin(),
                                             [](const KeyWord &a,
                                                const KeyWord &b) {
                                               return a.value == b.value &&
                                                      a.kind == b.kind;
                                             }))
          return touched(s, c);
    } else if (const auto *best = mostSpecific(
                   llvm::ArrayRef(s.concretes), w, n)) {
      return touched(s, *best);
    }

    // A miss: choose the key to trace.
    Words traceKey = s.signatureKey ? *s.signatureKey : toWords(key);
    if (s.options.reduce_retracing && !s.signatureKey && !exact)
      for (const auto &c : s.concretes)
        if (std::optional<Words> general = generalize(c->key, traceKey))
          traceKey = std::move(*general);
    // fnc compiles ranked code: an unknown rank takes the call's.
    if (hasUnknownRank(traceKey))
      traceKey = specializeRanks(traceKey, w, n);
    // A trace of this key exists but cannot take the call's dims of size 1
    // (its unknown dims meet in a broadcast): trace one with those 1s.
    for (const auto &c : s.concretes)
      if (c->onesExact && c->key == traceKey) {
        keepOnes(traceKey, w, n);
        break;
      }

    // Single flight: wait for a running trace that will serve this call.
    bool waiting = false;
    for (const Words &p : s.pending)
      if (exact ? p == traceKey : isSubtype(w, n, p))
        waiting = true;
    if (waiting) {
      s.traced.wait(lock);
      continue;
    }
    s.pending.push_back(traceKey);
    lock.unlock();
    std::shared_ptr<const ConcreteImpl> made;
    try {
      made = traceConcrete(s.name, s.options, traceKey, thunk,
                           s.traces == 0);
    } catch (...) {
      lock.lock();
      s.pending.erase(std::find(s.pending.begin(), s.pending.end(), traceKey));
      s.traced.notify_all();
      throw;
    }
    auto c = std::const_pointer_cast<ConcreteImpl>(made);
    c->paramNames = s.paramNames();
    lock.lock();
    noteRetrace(s, c->key);
    evictForOneMore(s);
    touched(s, c);
    s.concretes.push_back(c);
    if (!s.options.max_traces)
      s.published.append(c.get());
    s.pending.erase(std::find(s.pending.begin(), s.pending.end(), traceKey));
    s.traced.notify_all();
    if (!exact && !isSubtype(w, n, c->key, c->onesExact))
      continue; // the call has a 1 this trace cannot broadcast: another
    return c;
  }
}

} // namespace
} // namespace detail

//===----------------------------------------------------------------------===//
// ConcreteFunction
//===----------------------------------------------------------------------===//

namespace {
const detail::ConcreteImpl &implOf(
    const std::shared_ptr<const detail::ConcreteImpl> &impl) {
  if (!impl)
    throw Error(ErrorKind::FailedPrecondition,
                "fnc::ConcreteFunction: this is an empty handle; get one "
                "from fnc::Function::get_concrete_function");
  return *impl;
}
} // namespace

std::vector<Tensor>
ConcreteFunction::operator()(const std::vector<Tensor> &args) const {
  const detail::ConcreteImpl &c = implOf(impl_);
  if (args.size() != c.inputs.size())
    throw Error(ErrorKind::InvalidArgument,
                "fnc::ConcreteFunction `" + c.name + "`: takes " +
                    std::to_string(c.inputs.size()) + " tensor" +
                    (c.inputs.size() == 1 ? "" : "s") + " but " +
                    std::to_string(args.size()) +
                    " were given; signature: " + c.signature());
  std::vector<const Tensor *> ptrs;
  for (size_t i = 0; i < args.size(); ++i) {
    const TensorSpec &spec = c.inputs[i];
    if (!spec.matches(args[i].dtype(), args[i].shape()))
      throw Error(ErrorKind::InvalidArgument,
                  "fnc::ConcreteFunction `" + c.name + "`: argument `" +
                      spec.name + "` (#" + std::to_string(i) + ") expected " +
                      spec.str() + ", got " +
                      TensorSpec(args[i].shape(), args[i].dtype()).str() +
                      "; call the fnc::Function instead to trace a new "
                      "concrete function");
    ptrs.push_back(&args[i]);
  }
  if (!tape::anyRecording())
    return c.run(ptrs.data(), ptrs.size());
  // Under a tape: one entry whose backward replays the recorded program
  // (for a loaded function, the one read back from its IR).
  detail::TapedCall how{c.name, c.fastMath, false,
                [&](const std::vector<Tensor> &) -> std::vector<Tensor> {
                  throw Error(
                      ErrorKind::Unimplemented,
                      "fnc::ConcreteFunction `" + c.name +
                          "`: called under a GradientTape, it would have to "
                          "run its C++ callable eagerly (its staged "
                          "control flow keeps no rows of the random "
                          "numbers it draws), and a concrete function has "
                          "none; call the fnc::Function under the tape, or "
                          "put the tape inside it");
                }};
  return detail::tapedCall(impl_, how, ptrs.data(), ptrs.size());
}

std::string ConcreteFunction::signature() const {
  return implOf(impl_).signature();
}

detail::ConcreteAccess::View
detail::ConcreteAccess::view(const ConcreteFunction &f) {
  const ConcreteImpl &c = implOf(f.impl_);
  std::vector<std::string> argNames;
  for (const TensorArg &t : c.parsed.tensors)
    argNames.push_back(t.name);
  if (c.strings && !c.ready())
    return {c.name,
            c.results,
            c.inputs,
            std::move(argNames),
            c.fncText,
            c.fastMath,
            false,
            c.executorHidden,
            c.executorVariables,
            c.executorNames};
  const trace::CompiledTrace &code = c.compiled();
  return {c.name,
          c.results,
          c.inputs,
          std::move(argNames),
          code.fncText(),
          code.fastMath(),
          code.checkNumerics(),
          code.hiddenArgs(),
          code.hiddenVariables(),
          code.hiddenNames()};
}

/// A ConcreteImpl no fnc::Function traced (loaded from a file), without
/// what runs it.
static std::shared_ptr<detail::ConcreteImpl> untracedImpl(
    std::string name, std::string results, std::vector<TensorSpec> inputs,
    std::vector<TensorSpec> outputs,
    std::function<std::shared_ptr<const trace::RecordedTrace>(std::string &)>
        importRecorded) {
  auto impl = std::make_shared<detail::ConcreteImpl>();
  impl->importRecorded = std::move(importRecorded);
  impl->name = std::move(name);
  impl->results = std::move(results);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorSpec &spec = inputs[i];
    impl->paramNames.push_back(spec.name);
    impl->parsed.lines.push_back(spec.name + ": " + spec.str());
    impl->parsed.tensors.push_back({static_cast<int32_t>(i), spec.name, spec});
  }
  impl->inputs = std::move(inputs);
  impl->outputs = std::move(outputs);
  return impl;
}

const trace::CompiledTrace &
detail::ConcreteAccess::compiled(const ConcreteFunction &f) {
  return implOf(f.impl_).compiled();
}

ConcreteFunction detail::ConcreteAccess::make(
    std::string name, std::string results, std::vector<TensorSpec> inputs,
    std::vector<TensorSpec> outputs,
    std::unique_ptr<trace::CompiledTrace> trace,
    std::function<std::shared_ptr<const trace::RecordedTrace>(std::string &)>
        importRecorded) {
  auto impl =
      untracedImpl(std::move(name), std::move(results), std::move(inputs),
                   std::move(outputs), std::move(importRecorded));
  impl->fastMath = trace->fastMath();
  impl->trace = std::move(trace);
  ConcreteFunction f;
  f.impl_ = std::move(impl);
  return f;
}
ConcreteFunction detail::ConcreteAccess::makeExecuted(
    std::string name, std::string results, std::vector<TensorSpec> inputs,
    std::vector<TensorSpec> outputs, const std::string &symbol,
    trace::CompiledTrace::Parts parts,
    std::function<std::shared_ptr<const trace::RecordedTrace>(std::string &)>
        importRecorded) {
  auto executor = trace::GraphExecutor::create(parts.fncText, symbol,
                                               trace::executorHooks());
  if (!executor)
    throw Error(ErrorKind::Internal, "fnc::load: `" + name + "`: " +
                                         llvm::toString(executor.takeError()));
  auto impl =
      untracedImpl(std::move(name), std::move(results), std::move(inputs),
                   std::move(outputs), std::move(importRecorded));
  impl->executor = std::move(*executor);
  impl->executorHidden = std::move(parts.hiddenArgs);
  impl->executorVariables = std::move(parts.hiddenVariables);
  impl->executorNames = std::move(parts.hiddenNames);
  impl->executorConstants = std::move(parts.constantCaptures);
  impl->executorEffects = parts.hasEffects;
  impl->fastMath = parts.fastMath;
  impl->fncText = std::move(parts.fncText);
  impl->opCount = parts.opCount;
  impl->strings = true;
  ConcreteFunction f;
  f.impl_ = std::move(impl);
  return f;
}

std::string ConcreteFunction::pretty_printed_signature() const {
  return implOf(impl_).pretty();
}
const std::vector<TensorSpec> &ConcreteFunction::input_specs() const {
  return implOf(impl_).inputs;
}
const std::vector<TensorSpec> &ConcreteFunction::output_specs() const {
  return implOf(impl_).outputs;
}
int64_t ConcreteFunction::op_count() const {
  const detail::ConcreteImpl &c = implOf(impl_);
  return c.trace ? c.trace->opCount() : c.opCount;
}
double ConcreteFunction::compile_seconds() const {
  const detail::ConcreteImpl &c = implOf(impl_);
  if (!c.ready() && !c.tiered)
    return 0;
  return c.compiled().compileSeconds();
}
bool ConcreteFunction::is_compiled() const {
  return implOf(impl_).ready() != nullptr;
}

// The public IRStage names the stages of jit::Stage (fnc/Function.h must not
// include the JIT's header); they convert by value.
static_assert(static_cast<int>(IRStage::Fnc) ==
                      static_cast<int>(jit::Stage::Fnc) &&
                  static_cast<int>(IRStage::Linalg) ==
                      static_cast<int>(jit::Stage::Linalg) &&
                  static_cast<int>(IRStage::LLVMDialect) ==
                      static_cast<int>(jit::Stage::LLVMDialect) &&
                  static_cast<int>(IRStage::LLVMIR) ==
                      static_cast<int>(jit::Stage::LLVMIR),
              "IRStage and jit::Stage must list the same stages in order");

std::string ConcreteFunction::ir(IRStage stage) const {
  const detail::ConcreteImpl &c = implOf(impl_);
  if (stage == IRStage::Fnc && !c.trace)
    return c.fncText;
  std::string out;
  if (!c.compiled().emit(static_cast<jit::Stage>(stage), out))
    throw Error(ErrorKind::Internal, "fnc::ConcreteFunction `" + c.name +
                                         "`: could not emit the IR: " + out);
  return out;
}

} // namespace fnc
