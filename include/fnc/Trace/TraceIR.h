//===- TraceIR.h - A trace built as a fnc-dialect function ------*- C++ -*-===//
//
// Internal to fnc; MLIR-free interface. A TraceIR owns an MLIRContext and a
// module holding one public `func.func` in the fnc dialect: it adds an op
// per OpRecord (result types come from the shared shape rules and each op
// is verified as it is built, so a mismatch is an error value, never a
// crash), ends the function with the traced results and JIT-compiles it.
//
// The tracer does not build it directly: a trace is recorded as a log
// (TraceRecorder.h), and the log builds its TraceIR only when the compile
// cache lacks the trace's code (creating the MLIRContext and loading its
// dialects is most of a warm first call). Ids are the TraceIR's own.
//
// Built like LLVM (no exceptions): every failure is returned as `false` /
// -1 / null with a message. One TraceIR per trace, used by one thread.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_TRACE_TRACEIR_H
#define FNC_TRACE_TRACEIR_H

#include "fnc/JIT/CompileCache.h"
#include "fnc/Trace/Recorder.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fnc::jit {
class CompiledModule;
class Entry;
} // namespace fnc::jit

namespace fnc::trace {

/// What the compile-cache entry of a trace keeps beside its code
/// (CacheEntry::notes): what a trace needs that only its IR can tell.
struct TraceNotes {
  /// The fnc IR as traced (CompiledTrace::fncText).
  std::string fncText;
  int64_t opCount = 0;
  /// TraceRecorder::unknownDimsMeet.
  bool unknownDimsMeet = false;

  std::string encode() const;
  /// std::nullopt if `notes` is not an encode()d TraceNotes.
  static std::optional<TraceNotes> decode(llvm::StringRef notes);
};

/// The symbol of the function traced as `name`: `name` reduced to
/// [A-Za-z0-9_], not starting with a digit, and not a libm name.
std::string traceSymbol(const std::string &name);

class TraceIR {
public:
  /// A function `func.func @<symbol>` (symbol: `name` reduced to
  /// [A-Za-z0-9_]) with no arguments yet.
  static std::unique_ptr<TraceIR> create(const std::string &name);
  virtual ~TraceIR();

  /// Appends an argument (visible or hidden) of a tensor type.
  virtual int64_t addArgument(DType dtype,
                              const std::vector<int64_t> &shape) = 0;
  /// Appends a `!fnc.variable<tensor<...>>` argument.
  virtual int64_t variableArgument(DType dtype,
                                   const std::vector<int64_t> &shape) = 0;
  /// The Recorder members of the same names.
  virtual int64_t constant(DType dtype, const std::vector<int64_t> &shape,
                           const void *data) = 0;
  virtual int64_t record(const OpRecord &op, std::string &error) = 0;
  virtual int64_t beginBlock(const std::vector<DType> &dtypes,
                             const std::vector<std::vector<int64_t>> &shapes,
                             std::vector<int64_t> &argIds) = 0;
  virtual void endBlock() = 0;
  virtual bool buildCond(int64_t pred, int64_t thenBlock,
                         const std::vector<int64_t> &thenYields,
                         int64_t elseBlock,
                         const std::vector<int64_t> &elseYields,
                         std::vector<int64_t> &results, std::string &error) = 0;
  virtual bool buildWhile(const std::vector<int64_t> &inits, int64_t condBlock,
                          int64_t condValue, int64_t bodyBlock,
                          const std::vector<int64_t> &bodyYields,
                          const std::vector<uint8_t> &kinds,
                          std::vector<int64_t> &results,
                          std::string &error) = 0;
  /// Returns `results` and verifies the module.
  virtual bool finish(const std::vector<int64_t> &results,
                      std::string &error) = 0;
  /// The type of value `id`.
  virtual void typeOf(int64_t id, DType &dtype,
                      std::vector<int64_t> &shape) const = 0;

  /// The notes of the finished function (its fnc IR printed, ...).
  virtual TraceNotes notes() const = 0;

  /// What compile() gives.
  struct Compiled {
    std::unique_ptr<jit::CompiledModule> module;
    const jit::Entry *entry = nullptr;
    TraceNotes notes;
  };
  /// JIT-compiles the finished function with the pipeline options given
  /// (LLVM's optimization level `optLevel`, 0-3),
  /// through the compile cache `cacheDir`: under the module's own key, or,
  /// with `storeKey`, stored under that key with the notes beside the
  /// code (the caller searched the cache). The MLIR is released: nothing
  /// can be built afterwards. False with `error` set if the pipeline or
  /// the JIT fails.
  virtual bool compile(bool fastMath, bool checkNumerics, bool profileKernels,
                       unsigned optLevel, const jit::CacheDirectory &cacheDir,
                       const jit::CacheKey *storeKey, Compiled &out,
                       std::string &error) = 0;
};

} // namespace fnc::trace

#endif // FNC_TRACE_TRACEIR_H
