//===- GraphExecutor.h - Runs a trace op by op on the eager kernels -*- C++ -*-===//
//
// Internal to fnc; MLIR-free interface. The graph executor of fnc::function
// (the executor tf.function runs its graphs on): it runs the fnc IR of a
// trace op by op on the eager kernels, through the reference interpreter
// (fnc/Interpreter/Interpreter.h), while the trace compiles in the
// background or instead of compiling it (FunctionOptions::jit_compile).
// Its random ops draw from the runtime's streams with the keys compiled
// code gives them and its prints go where compiled code prints (the hooks
// fnc::function passes), so the compiled code takes over where it left off.
//
// Built like LLVM (no exceptions): failures come back as llvm::Error.
// Thread-safe: calls are serialized.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_TRACE_GRAPHEXECUTOR_H
#define FNC_TRACE_GRAPHEXECUTOR_H

#include "fnc/Error.h"
#include "fnc/Tensor.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace fnc::trace {

class GraphExecutor {
public:
  /// InterpreterOptions::random and ::print.
  struct Hooks {
    std::function<llvm::Expected<Tensor>(bool normal, DType dtype,
                                         const std::vector<int64_t> &shape,
                                         double a,
                                         double b, int64_t key)>
        random;
    std::function<llvm::Error(const std::string &format,
                              llvm::ArrayRef<Tensor> tensors)>
        print;
  };

  /// An executor of the function `symbol` of `fncText` (a trace's fnc IR,
  /// CompiledTrace::fncText). Fails if the text does not parse or verify.
  static llvm::Expected<std::unique_ptr<GraphExecutor>>
  create(const std::string &fncText, const std::string &symbol, Hooks hooks);
  ~GraphExecutor();

  /// Runs the function on `count` tensors followed by `hidden` (per hidden
  /// argument, `hiddenVariables` holds its variable's uid, or 0 for a
  /// tensor) and writes one tensor per result to `outs`. A variable's
  /// tensor shares the variable's buffer: its updates are written into it,
  /// as compiled code writes them. Each result has a buffer of its own (as
  /// compiled code's): none is an argument's or another result's.
  /// A failure sets `kind` to the kind the eager op would throw.
  llvm::Error run(const Tensor *const *tensors, size_t count,
                  const std::vector<Tensor> &hidden,
                  const std::vector<uint64_t> &hiddenVariables, Tensor *outs,
                  ErrorKind &kind);

  class Impl;

private:
  explicit GraphExecutor(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

} // namespace fnc::trace

#endif // FNC_TRACE_GRAPHEXECUTOR_H
