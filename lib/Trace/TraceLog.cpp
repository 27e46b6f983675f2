//===- TraceLog.cpp - A trace recorded as a log of its calls --------------===//
//
// The TraceRecorder (TraceRecorder.h). Tracing talks to it without MLIR:
// each call is checked as the IR builder would check it (an operand outside
// its block, a broadcast the dialect cannot express), answered from the log
// (ids, result types, scopes), written to the log's bytes, which are the
// trace's cache key, and kept as a step to replay.
//
// compile() looks the key up in the compile cache. A hit links the stored
// objects (jit::CompiledModule::fromObjects, with the signature the log
// knows) and reads the rest from the notes beside them (TraceNotes: the IR
// text, the op count, whether unknown dims meet); no MLIRContext is made. A
// miss replays the log into a TraceIR, which builds and verifies the
// fnc-dialect function, compiles it and stores it under the key.
//
// The key holds everything the IR is built from: the function's name (its
// symbol and locations), every call with its operands, attributes, types
// and constant bytes, the results, the pipeline's options, and the target
// with the build of fnc (CacheTarget), so a change of the IR builder, which
// comes with a new build, never reuses an old entry. The writers below bind
// every field of each op's attributes by name: a field added to an op in
// Recorder.h without being written here does not compile.
//
//===----------------------------------------------------------------------===//

#include "fnc/API/Profile.h"
#include "fnc/CheckNumerics.h"
#include "fnc/JIT/CompileCache.h"
#include "fnc/JIT/Engine.h"
#include "fnc/Trace/Bytes.h"
#include "fnc/Trace/CompiledTrace.h"
#include "fnc/Trace/TraceIR.h"
#include "fnc/Trace/TraceRecorder.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <type_traits>
#include <variant>

namespace fnc::trace {
namespace {

//===----------------------------------------------------------------------===//
// The log's bytes
//===----------------------------------------------------------------------===//

using Writer = ByteWriter;

void writeSeed(Writer &w, const std::optional<int64_t> &seed) {
  w.flag(seed.has_value());
  w.i64(seed.value_or(0));
}

// One writer per op family. Families with attributes bind every field by
// name (a structured binding must name them all); the others must stay
// empty.
template <typename Op> void write(Writer &, const Op &) {
  static_assert(std::is_empty_v<Op>,
                "an op with attributes needs a writer in TraceLog.cpp");
}
void write(Writer &w, const ops::Range &op) {
  const auto &[start, limit, delta] = op;
  w.f64(start), w.f64(limit), w.f64(delta);
}
void write(Writer &w, const ops::Binary &op) {
  const auto &[kind] = op;
  w.kind(kind);
}
void write(Writer &w, const ops::Unary &op) {
  const auto &[kind] = op;
  w.kind(kind);
}
void write(Writer &w, const ops::Conv2D &op) {
  const auto &[strides, samePadding] = op;
  w.ints(strides), w.flag(samePadding);
}
void write(Writer &w, const ops::Pool2D &op) {
  const auto &[max, ksize, strides, samePadding] = op;
  w.flag(max), w.ints(ksize), w.ints(strides), w.flag(samePadding);
}
void write(Writer &w, const ops::Pool2DGrad &op) {
  const auto &[max, ksize, strides, samePadding] = op;
  w.flag(max), w.ints(ksize), w.ints(strides), w.flag(samePadding);
}
void write(Writer &w, const ops::Transpose &op) {
  const auto &[perm] = op;
  w.ints(perm);
}
void write(Writer &w, const ops::ExpandDims &op) {
  const auto &[axis] = op;
  w.i64(axis);
}
void write(Writer &w, const ops::Squeeze &op) {
  const auto &[axes] = op;
  w.ints(axes);
}
void write(Writer &w, const ops::Slice &op) {
  const auto &[offsets, sizes, strides] = op;
  w.ints(offsets), w.ints(sizes), w.ints(strides);
}
void write(Writer &w, const shapes::SliceSpec &spec) {
  const auto &[begin, end, strides, shrink] = spec;
  w.ints(begin), w.ints(end), w.ints(strides), w.flags(shrink);
}
void write(Writer &w, const ops::StridedSlice &op) {
  const auto &[spec] = op;
  write(w, spec);
}
void write(Writer &w, const ops::StridedSliceGrad &op) {
  const auto &[spec] = op;
  write(w, spec);
}
void write(Writer &w, const ops::Pad &op) {
  const auto &[low, high, interior, value] = op;
  w.ints(low), w.ints(high), w.ints(interior), w.f64(value);
}
void write(Writer &w, const ops::Concat &op) {
  const auto &[axis] = op;
  w.i64(axis);
}
void write(Writer &w, const ops::DynamicSlice &op) {
  const auto &[axis] = op;
  w.i64(axis);
}
void write(Writer &w, const ops::DynamicUpdateSlice &op) {
  const auto &[axis] = op;
  w.i64(axis);
}
void write(Writer &w, const ops::Gather &op) {
  const auto &[axis] = op;
  w.i64(axis);
}
void write(Writer &w, const ops::OneHot &op) {
  const auto &[depth, axis, on, off] = op;
  w.i64(depth), w.i64(axis), w.f64(on), w.f64(off);
}
void write(Writer &w, const ops::Reduce &op) {
  const auto &[kind, axes, keepDims] = op;
  w.kind(kind), w.ints(axes), w.flag(keepDims);
}
void write(Writer &w, const ops::ArgMax &op) {
  const auto &[axis, argmin] = op;
  w.i64(axis), w.flag(argmin);
}
void write(Writer &w, const ops::Softmax &op) {
  const auto &[axis, log] = op;
  w.i64(axis), w.flag(log);
}
void write(Writer &w, const ops::VarUpdate &op) {
  const auto &[mode] = op;
  w.kind(mode);
}
void write(Writer &w, const ops::Strings &op) {
  const auto &[kind, text, placeholder, option] = op;
  w.kind(kind);
  w.str(text), w.str(placeholder), w.i64(option);
}
void write(Writer &w, const ops::Print &op) {
  const auto &[format] = op;
  w.str(format);
}
void write(Writer &w, const ops::RandomUniform &op) {
  const auto &[min, max, seed] = op;
  w.f64(min), w.f64(max), writeSeed(w, seed);
}
void write(Writer &w, const ops::RandomNormal &op) {
  const auto &[mean, stddev, seed] = op;
  w.f64(mean), w.f64(stddev), writeSeed(w, seed);
}
void write(Writer &w, const OpRecord &record) {
  const auto &[op, operands, dtype, shape] = record;
  w.i64(static_cast<int64_t>(op.index()));
  std::visit([&](const auto &attrs) { write(w, attrs); }, op);
  w.ints(operands), w.dtype(dtype), w.ints(shape);
}

/// Variable updates and printing: effects without a result value.
bool hasNoResult(const OpRecord &op) {
  return std::holds_alternative<ops::VarUpdate>(op.op) ||
         std::holds_alternative<ops::Print>(op.op);
}

//===----------------------------------------------------------------------===//
// Replay
//===----------------------------------------------------------------------===//

/// The state of a replay into a TraceIR: the IR's id of each log id and
/// of each log block, in the order the log made them.
struct Replay {
  TraceIR &ir;
  std::vector<int64_t> values, blocks;
  std::string error;

  std::vector<int64_t> map(const std::vector<int64_t> &logIds) const {
    std::vector<int64_t> ids;
    ids.reserve(logIds.size());
    for (int64_t id : logIds)
      ids.push_back(values[id]);
    return ids;
  }
  bool define(int64_t id) {
    if (id < 0)
      return false;
    values.push_back(id);
    return true;
  }
};
using Step = std::function<bool(Replay &)>;

//===----------------------------------------------------------------------===//
// The recorder
//===----------------------------------------------------------------------===//

class TraceLog final : public TraceRecorder {
public:
  TraceLog(const std::string &name, std::shared_ptr<TraceToken> token)
      : TraceRecorder(std::move(token)), name_(name) {
    log_.str(name);
  }

  int64_t addArgument(DType dtype, const std::vector<int64_t> &shape) override {
    return argument('A', jit::ArgKind::Tensor, dtype, shape);
  }

  int64_t hiddenArgument(DType dtype,
                         const std::vector<int64_t> &shape) override {
    return argument('H', jit::ArgKind::Tensor, dtype, shape);
  }

  int64_t variableArgument(DType dtype,
                           const std::vector<int64_t> &shape) override {
    return argument('V', jit::ArgKind::Variable, dtype, shape);
  }

  int64_t constant(DType dtype, const std::vector<int64_t> &shape,
                   const void *data) override {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    if (dtype == DType::str) { // the strings, not their objects' bytes
      const auto *p = static_cast<const std::string *>(data);
      std::vector<std::string> strings(p, p + n);
      log_.tag('C'), log_.dtype(dtype), log_.ints(shape);
      for (const std::string &s : strings)
        log_.str(s);
      steps_.push_back([=](Replay &r) {
        return r.define(r.ir.constant(dtype, shape, strings.data()));
      });
      return define(dtype, shape, /*scope=*/0);
    }
    std::string bytes(static_cast<const char *>(data),
                      static_cast<size_t>(n) * sizeOf(dtype));
    log_.tag('C'), log_.dtype(dtype), log_.ints(shape), log_.str(bytes);
    steps_.push_back([=](Replay &r) {
      return r.define(r.ir.constant(dtype, shape, bytes.data()));
    });
    return define(dtype, shape, /*scope=*/0);
  }

  int64_t recordOp(const OpRecord &op, std::string &error) override {
    // The checks of the IR builder that a user can reach, here so that
    // they fail at the op, as eager execution would.
    for (int64_t id : op.operands)
      if (!visible(id)) {
        error = "an operand was computed inside a branch of fnc::cond or "
                "the body of a staged loop and is used outside it; return "
                "it from the branch or body instead";
        return -1;
      }
    if (std::holds_alternative<ops::BroadcastTo>(op.op))
      for (int64_t d : op.shape)
        if (d == shapes::kDynamic) {
          error = "a broadcast to a shape with an unknown dim is not "
                  "supported";
          return -1;
        }
    bool noResult = hasNoResult(op);
    if (noResult || std::holds_alternative<ops::RandomUniform>(op.op) ||
        std::holds_alternative<ops::RandomNormal>(op.op))
      ++effectsRecorded;
    log_.tag('R');
    write(log_, op);
    steps_.push_back([op, noResult](Replay &r) {
      OpRecord mapped = op;
      mapped.operands = r.map(op.operands);
      int64_t id = r.ir.record(mapped, r.error);
      return noResult ? id >= 0 : r.define(id);
    });
    if (noResult)
      return 0; // no result (the IR builder's answer too)
    return define(op.dtype, op.shape, open_.back());
  }

  int64_t beginBlock(const std::vector<DType> &dtypes,
                     const std::vector<std::vector<int64_t>> &shapes,
                     std::vector<int64_t> &argIds) override {
    log_.tag('B'), log_.i64(static_cast<int64_t>(dtypes.size()));
    for (size_t i = 0; i < dtypes.size(); ++i)
      log_.dtype(dtypes[i]), log_.ints(shapes[i]);
    steps_.push_back([=](Replay &r) {
      std::vector<int64_t> ids;
      r.blocks.push_back(r.ir.beginBlock(dtypes, shapes, ids));
      for (int64_t id : ids)
        r.define(id);
      return true;
    });
    blockArgs_.push_back({dtypes, shapes});
    open_.push_back(++lastScope_);
    argIds.clear();
    for (size_t i = 0; i < dtypes.size(); ++i)
      argIds.push_back(define(dtypes[i], shapes[i], open_.back()));
    return static_cast<int64_t>(blockArgs_.size()) - 1;
  }

  void endBlock() override {
    log_.tag('E');
    steps_.push_back([](Replay &r) {
      r.ir.endBlock();
      return true;
    });
    open_.pop_back();
  }

  bool visible(int64_t id) const override {
    if (id < 0 || id >= static_cast<int64_t>(values_.size()))
      return false;
    return std::find(open_.begin(), open_.end(), values_[id].scope) !=
           open_.end();
  }

  bool buildCond(int64_t pred, int64_t thenBlock,
                 const std::vector<int64_t> &thenYields, int64_t elseBlock,
                 const std::vector<int64_t> &elseYields,
                 std::vector<int64_t> &results, std::string &) override {
    log_.tag('I'), log_.i64(pred), log_.i64(thenBlock), log_.ints(thenYields);
    log_.i64(elseBlock), log_.ints(elseYields);
    steps_.push_back([=](Replay &r) {
      std::vector<int64_t> ids;
      if (!r.ir.buildCond(r.values[pred], r.blocks[thenBlock],
                          r.map(thenYields), r.blocks[elseBlock],
                          r.map(elseYields), ids, r.error))
        return false;
      for (int64_t id : ids)
        r.define(id);
      return true;
    });
    // The results have the branches' dtypes (the caller checked that
    // they agree, and the ranks) and their most specific common shape.
    results.clear();
    for (size_t i = 0; i < thenYields.size(); ++i) {
      std::vector<int64_t> shape = values_[thenYields[i]].shape;
      const std::vector<int64_t> &other = values_[elseYields[i]].shape;
      for (size_t d = 0; d < shape.size(); ++d)
        if (shape[d] != other[d])
          shape[d] = shapes::kDynamic;
      results.push_back(
          define(values_[thenYields[i]].dtype, shape, open_.back()));
    }
    return true;
  }

  bool buildWhile(const std::vector<int64_t> &inits, int64_t condBlock,
                  int64_t condValue, int64_t bodyBlock,
                  const std::vector<int64_t> &bodyYields,
                  const std::vector<uint8_t> &kinds,
                  std::vector<int64_t> &results, std::string &) override {
    log_.tag('W'), log_.ints(inits), log_.i64(condBlock), log_.i64(condValue);
    log_.i64(bodyBlock), log_.ints(bodyYields);
    log_.ints(std::vector<int64_t>(kinds.begin(), kinds.end()));
    steps_.push_back([=](Replay &r) {
      std::vector<int64_t> ids;
      if (!r.ir.buildWhile(r.map(inits), r.blocks[condBlock],
                           r.values[condValue], r.blocks[bodyBlock],
                           r.map(bodyYields), kinds, ids, r.error))
        return false;
      for (int64_t id : ids)
        r.define(id);
      return true;
    });
    // The loop-carried types are the body's argument types (which may
    // have unknown dims where the inits have known ones).
    const BlockArgs &body = blockArgs_[bodyBlock];
    results.clear();
    for (size_t i = 0; i < body.dtypes.size(); ++i)
      results.push_back(define(body.dtypes[i], body.shapes[i], open_.back()));
    return true;
  }

  bool finish(const std::vector<int64_t> &results, std::string &) override {
    log_.tag('F'), log_.ints(results);
    results_ = results;
    return true;
  }

  void typeOf(int64_t id, DType &dtype,
              std::vector<int64_t> &shape) const override {
    dtype = values_[id].dtype;
    shape = values_[id].shape;
  }

  bool prepare(std::string &error) override {
    if (prepared_)
      return true;
    auto start = std::chrono::steady_clock::now();
    profile::Span span("compile", [&] { return "prepare " + name_; });
    checkNumerics_ = ::fnc::check_numerics_enabled();
    profileKernels_ = profile::kernelsEnabled();
    key_ = cacheKey(checkNumerics_);
    cache_ = jit::CompileCache::get(cacheDir);
    bool hit = cache_ && fromCache(*cache_, key_, fromCache_, notes_);
    span.arg("compile cache", !cache_ ? "off" : hit ? "hit" : "miss");
    if (!hit) {
      fromCache_ = {};
      ir_ = buildIR(error);
      if (!ir_)
        return false;
      notes_ = ir_->notes();
    }
    unknownDimsMeet = notes_.unknownDimsMeet;
    prepared_ = true;
    prepareSeconds_ = secondsSince(start);
    return true;
  }

  bool needsCompiler() const override { return ir_ != nullptr; }
  bool usesStrings() const override { return usesStrings_; }

  const std::string &fncText() const override { return notes_.fncText; }

  int64_t opCount() const override { return notes_.opCount; }

  std::unique_ptr<CompiledTrace> compile(std::string &error) override {
    if (!prepare(error))
      return nullptr;
    // The seconds of prepare() and of this call (not the wait between them,
    // in the background compile thread's queue).
    auto start = std::chrono::steady_clock::now();
    profile::Span span("compile", [&] { return "compile " + name_; });
    CompiledTrace::Parts parts = std::move(fromCache_);
    parts.fastMath = fastMath;
    parts.checkNumerics = checkNumerics_;
    if (ir_) {
      TraceIR::Compiled compiled;
      if (!ir_->compile(fastMath, checkNumerics_, profileKernels_, optLevel,
                        cacheDir, cache_ ? &key_ : nullptr, compiled, error))
        return nullptr;
      ir_.reset();
      parts.module = std::move(compiled.module);
      parts.entry = compiled.entry;
    }
    parts.fncText = std::move(notes_.fncText);
    parts.opCount = notes_.opCount;
    parts.compileSeconds = prepareSeconds_ + secondsSince(start);
    parts.constantCaptures = constantCaptures(); // before hiddenArgs moves
    parts.hiddenArgs = std::move(hiddenArgs);
    parts.hiddenVariables = std::move(hiddenVariables);
    parts.hiddenNames = std::move(hiddenNames);
    parts.hasEffects = effectsRecorded > 0;
    parts.ownedState = std::move(ownedState);
    steps_.clear();
    return std::make_unique<CompiledTrace>(std::move(parts));
  }

private:
  struct Value {
    DType dtype;
    std::vector<int64_t> shape;
    int64_t scope; // 0: the function body
  };
  struct BlockArgs {
    std::vector<DType> dtypes;
    std::vector<std::vector<int64_t>> shapes;
  };

  int64_t define(DType dtype, const std::vector<int64_t> &shape,
                 int64_t scope) {
    usesStrings_ |= dtype == DType::str;
    values_.push_back({dtype, shape, scope});
    return static_cast<int64_t>(values_.size()) - 1;
  }

  int64_t argument(char tag, jit::ArgKind kind, DType dtype,
                   const std::vector<int64_t> &shape) {
    log_.tag(tag), log_.dtype(dtype), log_.ints(shape);
    bool variable = kind == jit::ArgKind::Variable;
    steps_.push_back([=](Replay &r) {
      return r.define(variable ? r.ir.variableArgument(dtype, shape)
                               : r.ir.addArgument(dtype, shape));
    });
    jit::ArgSpec arg;
    arg.kind = kind;
    arg.type.dtype = dtype;
    arg.type.shape = shape;
    signature_.args.push_back(std::move(arg));
    return define(dtype, shape, /*scope=*/0);
  }

  jit::CacheKey cacheKey(bool checkNumerics) const {
    jit::CacheKeyBuilder key;
    key.add("trace", log_.bytes);
    key.add("fast-math", fastMath ? "1" : "0");
    key.add("check-numerics", checkNumerics ? "1" : "0");
    key.add("profile-kernels", profileKernels_ ? "1" : "0");
    key.add("opt-level", std::to_string(optLevel));
    jit::CacheTarget::host().addTo(key);
    return key.finish();
  }

  /// The trace's signature as the IR would have it.
  jit::Signature signature() const {
    jit::Signature sig = signature_;
    sig.name = traceSymbol(name_);
    for (int64_t id : results_) {
      jit::TensorType type;
      type.dtype = values_[id].dtype;
      type.shape = values_[id].shape;
      sig.results.push_back(std::move(type));
    }
    return sig;
  }

  /// Links the code `cache` holds under `key` into `parts`; false on a
  /// miss, or for an entry that proves unusable (removed with a warning).
  bool fromCache(jit::CompileCache &cache, const jit::CacheKey &key,
                 CompiledTrace::Parts &parts, TraceNotes &notes) {
    std::optional<jit::CacheEntry> entry = cache.load(key);
    if (!entry)
      return false;
    std::optional<TraceNotes> decoded = TraceNotes::decode(entry->notes);
    if (!decoded) {
      cache.reject(key, "its notes are not those of a trace");
      return false;
    }
    auto module = jit::CompiledModule::fromObjects(std::move(entry->objects),
                                                   {signature()});
    if (!module) {
      cache.reject(key,
                   "it does not link: " + llvm::toString(module.takeError()));
      return false;
    }
    parts.entry = (*module)->entries().front().get();
    parts.module = std::move(*module);
    notes = std::move(*decoded);
    return true;
  }

  /// Builds the trace's IR from the log; null with `error` set on failure.
  std::unique_ptr<TraceIR> buildIR(std::string &error) {
    std::unique_ptr<TraceIR> ir = TraceIR::create(name_);
    Replay replay{*ir, {}, {}, {}};
    for (const Step &step : steps_)
      if (!step(replay)) {
        error = replay.error;
        return nullptr;
      }
    std::vector<int64_t> results = replay.map(results_);
    if (!ir->finish(results, error))
      return nullptr;
    // The signature a cache hit gives (from the log) must be the IR's.
    for (size_t i = 0; i < results.size(); ++i) {
      DType dtype;
      std::vector<int64_t> shape;
      ir->typeOf(results[i], dtype, shape);
      const Value &logged = values_[results_[i]];
      if (dtype != logged.dtype || shape != logged.shape) {
        error = "internal error: result #" + std::to_string(i) +
                " of the trace has another type in the IR than in its log "
                "(please report this bug)";
        return nullptr;
      }
    }
    return ir;
  }

  static double secondsSince(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t)
        .count();
  }

  // What prepare() found: the code from the cache, or the IR to compile.
  bool prepared_ = false;
  bool usesStrings_ = false;
  double prepareSeconds_ = 0;
  bool checkNumerics_ = false;
  bool profileKernels_ = false;
  jit::CacheKey key_;
  jit::CompileCache *cache_ = nullptr;
  CompiledTrace::Parts fromCache_;
  std::unique_ptr<TraceIR> ir_;
  TraceNotes notes_;

  std::string name_;
  Writer log_;
  std::vector<Step> steps_;
  std::vector<Value> values_;
  std::vector<BlockArgs> blockArgs_;
  // The open scopes: 0, the function body, then one per open block.
  std::vector<int64_t> open_ = {0};
  int64_t lastScope_ = 0;
  jit::Signature signature_; // the arguments
  std::vector<int64_t> results_;
};

} // namespace

//===----------------------------------------------------------------------===//
// TraceNotes
//===----------------------------------------------------------------------===//

std::string TraceNotes::encode() const {
  Writer w;
  w.tag('T');
  w.str(fncText);
  w.i64(opCount);
  w.flag(unknownDimsMeet);
  return w.bytes;
}

std::optional<TraceNotes> TraceNotes::decode(llvm::StringRef notes) {
  ByteReader r(notes);
  TraceNotes result;
  r.tag('T');
  result.fncText = r.str();
  result.opCount = r.i64();
  result.unknownDimsMeet = r.flag();
  if (!r.done())
    return std::nullopt;
  return result;
}

std::unique_ptr<TraceRecorder>
TraceRecorder::create(const std::string &name,
                      std::shared_ptr<TraceToken> token) {
  return std::make_unique<TraceLog>(name, std::move(token));
}

} // namespace fnc::trace
