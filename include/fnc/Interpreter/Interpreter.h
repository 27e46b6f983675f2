//===- Interpreter.h - Reference interpreter of the fnc dialect -*- C++ -*-===//
//
// Runs a `func.func` of the fnc dialect op by op on the reference kernels
// (the eager API): the oracle the JIT is checked against (`fnc-run
// --interpret`, the differential tests). It is slow and obviously correct;
// every op computes exactly what its eager counterpart computes.
//
// Supported: every op of FncOps.td, `func.call` and `func.return`, and the
// upstream ops a traced function uses for dynamic sizes: `arith.constant`
// (integers and index, or dense tensors), the integer/index arithmetic of
// arith (addi subi muli divsi divui remsi remui ceildivsi floordivsi maxsi
// minsi maxui minui index_cast index_castui), `tensor.dim`, `tensor.cast`
// and `tensor.extract` of an integer element.
// Anything else is reported as an error naming the op and its location.
//
// Arguments. An entry function's arguments are of three kinds:
//  - tensors: passed in `args`, in order, checked against the signature
//    (dtype, rank, every static dim; `?` matches anything);
//  - `index`: also passed in `args`, as a 0-D int32/int64 tensor;
//  - variables (`!fnc.variable<tensor<...>>`): an argument with
//    `{fnc.bind = @name}` is bound to the module variable `@name`; the
//    others are passed in `variables`, in order, as pointers to tensor slots
//    that var_assign/var_assign_add/var_assign_sub overwrite.
// Module variables (`fnc.global_variable`) are created from their initial
// values by create() and persist across calls until the Interpreter dies.
//
// Errors (bad arguments, a gather index out of range, an unsupported op, ...)
// come back as llvm::Error whose message starts with the location of the
// failing op when it has one (`file.mlir:3:8: 'fnc.gather' failed: ...`).
// Nothing here throws, aborts or asserts on user input.
//
// Thread-safety: an Interpreter is not thread-safe (calls mutate variables
// and random state); use one per thread. The module must outlive it and must
// not be modified while it exists.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_INTERPRETER_INTERPRETER_H
#define FNC_INTERPRETER_INTERPRETER_H

#include "fnc/Error.h"
#include "fnc/Tensor.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <vector>

namespace mlir::fnc {

/// Options of an Interpreter.
struct InterpreterOptions {
  /// Where fnc.print writes; std::cout when null. Flushed after each print.
  std::ostream *output = nullptr;
  /// The global seed of the random ops. An op with `seed S` draws from the
  /// Philox stream keyed by (seed, S); ops without a seed share one stream
  /// keyed by the global seed. Every stream starts at counter 0 when the
  /// Interpreter is created and advances on every execution, so a fresh
  /// Interpreter with the same seed reproduces the same values.
  uint64_t seed = 0;
  /// Maximum nesting of func.call (guards against runaway recursion).
  unsigned maxCallDepth = 256;
  /// The most elements a tensor that an op (or a module variable) creates
  /// may have; 0: no limit. A larger one is an error before it is
  /// allocated where its size is known in advance (static types, dynamic
  /// sizes, shape operands), else right after. Bounds the memory an
  /// untrusted module can take (the fuzzer sets it).
  int64_t maxElements = 0;
  /// The most ops one call() may run, counting every op of every loop trip
  /// and branch; 0: no limit. More is an error: bounds the time of a loop
  /// that does not end.
  int64_t maxSteps = 0;
  /// Where the random ops draw, instead of the interpreter's streams above:
  /// called with the op's dtype, shape and parameters (min/max or
  /// mean/stddev) and its key: its `seed`, else its `fnc.random_key`
  /// attribute, else 0 (the keys compiled code gives the runtime's
  /// generator). fnc::function's graph executor draws from the runtime's
  /// streams through it, as its compiled code does.
  std::function<llvm::Expected<::fnc::Tensor>(
      bool normal, ::fnc::DType dtype, const std::vector<int64_t> &shape, double a,
      double b, int64_t key)>
      random;
  /// Where fnc.print goes instead of `output`: its format and tensors.
  std::function<llvm::Error(const std::string &format,
                            llvm::ArrayRef<::fnc::Tensor> tensors)>
      print;
};

/// The reference interpreter of one module; see the file comment.
class Interpreter {
public:
  /// Prepares `module` for interpretation: verifies it and creates its
  /// module variables from their initial values. Fails with the verifier's
  /// diagnostics or a message naming an unreadable initial value.
  static llvm::Expected<std::unique_ptr<Interpreter>>
  create(ModuleOp module, InterpreterOptions options = {});

  ~Interpreter();

  /// Runs the function `entry` and returns its results. `args` holds the
  /// tensor (and index) arguments in order; `variables` the variable
  /// arguments without `fnc.bind`, in order, each a tensor slot that must
  /// hold a tensor of the variable's type and that receives the updates.
  llvm::Expected<std::vector<::fnc::Tensor>>
  call(llvm::StringRef entry, llvm::ArrayRef<::fnc::Tensor> args,
       llvm::ArrayRef<::fnc::Tensor *> variables = {});

  /// The kind of the error of the last call that failed: the kind a
  /// kernel failed with (the kind its eager op throws), else
  /// InvalidArgument.
  ::fnc::ErrorKind lastErrorKind() const;

  /// The current value of the module variable `name` (no '@'), or
  /// std::nullopt if the module has no such variable.
  std::optional<::fnc::Tensor> getVariable(llvm::StringRef name) const;

  /// Sets the module variable `name`; the value must have the variable's
  /// dtype and shape.
  llvm::Error setVariable(llvm::StringRef name, const ::fnc::Tensor &value);

  /// Redirects fnc.print (null: std::cout).
  void setOutput(std::ostream *output);

  class Impl;

private:
  explicit Interpreter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

} // namespace mlir::fnc

#endif // FNC_INTERPRETER_INTERPRETER_H
