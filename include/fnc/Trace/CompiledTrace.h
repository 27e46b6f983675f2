//===- CompiledTrace.h - A trace compiled to machine code -------*- C++ -*-===//
//
// Internal to fnc; MLIR-free interface. What a concrete function of
// fnc::function keeps once its trace is compiled: the JIT's code and entry
// point, the eager tensors passed as hidden arguments on every call, the
// variables the trace created (kept alive by it), and the text of its fnc
// IR. The MLIRContext the trace was recorded in is gone by then (it is most
// of a trace's memory); emit() parses the text again in a context of its
// own when the IR of a later stage is asked for.
//
// Thread-safety: immutable after construction; entry() may be called and
// emit() run from any number of threads at once.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_TRACE_COMPILEDTRACE_H
#define FNC_TRACE_COMPILEDTRACE_H

#include "fnc/Tensor.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fnc::jit {
class CompiledModule;
class Entry;
enum class Stage;
} // namespace fnc::jit

namespace fnc::trace {

class CompiledTrace {
public:
  struct Parts {
    std::unique_ptr<jit::CompiledModule> module;
    const jit::Entry *entry = nullptr;
    /// The fnc IR as traced.
    std::string fncText;
    /// Ops of the traced function (without the return).
    int64_t opCount = 0;
    double compileSeconds = 0;
    /// The pipeline options it was compiled with (ir() repeats them).
    bool fastMath = true;
    bool checkNumerics = false;
    std::vector<Tensor> hiddenArgs;
    /// Per hidden argument: the uid of its variable, or 0.
    std::vector<uint64_t> hiddenVariables;
    /// Per hidden argument: the name of its variable (empty for a tensor).
    std::vector<std::string> hiddenNames;
    /// The captured eager tensors that became constants (small ones).
    std::vector<Tensor> constantCaptures;
    /// Whether the trace has side effects (variable updates, printing,
    /// random numbers): running it again would repeat them.
    bool hasEffects = false;
    std::vector<std::shared_ptr<void>> ownedState;
  };

  explicit CompiledTrace(Parts parts);
  ~CompiledTrace();
  CompiledTrace(const CompiledTrace &) = delete;
  CompiledTrace &operator=(const CompiledTrace &) = delete;

  /// The compiled function; its arguments are the trace's tensor arguments
  /// followed by hiddenArgs().
  const jit::Entry &entry() const { return *parts_.entry; }
  /// The module holding entry().
  const jit::CompiledModule &module() const { return *parts_.module; }
  /// The eager tensors behind the hidden trailing arguments, in order.
  const std::vector<Tensor> &hiddenArgs() const { return parts_.hiddenArgs; }
  const std::vector<uint64_t> &hiddenVariables() const {
    return parts_.hiddenVariables;
  }
  const std::vector<std::string> &hiddenNames() const {
    return parts_.hiddenNames;
  }
  bool hasEffects() const { return parts_.hasEffects; }
  bool fastMath() const { return parts_.fastMath; }
  bool checkNumerics() const { return parts_.checkNumerics; }
  /// The fnc IR as traced (the text emit(Stage::Fnc) gives).
  const std::string &fncText() const { return parts_.fncText; }
  const std::vector<Tensor> &constantCaptures() const {
    return parts_.constantCaptures;
  }
  int64_t opCount() const { return parts_.opCount; }
  double compileSeconds() const { return parts_.compileSeconds; }

  /// The IR at `stage`: the fnc dialect as traced, or after the pipeline
  /// up to `stage`. False with the message in `out` if it fails.
  bool emit(jit::Stage stage, std::string &out) const;

private:
  Parts parts_;
};

} // namespace fnc::trace

#endif // FNC_TRACE_COMPILEDTRACE_H
