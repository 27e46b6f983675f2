//===- AOT.h - Running code compiled ahead of time --------------*- C++ -*-===//
//
// The runtime side of `fnc-compile` (docs/AOT.md). fnc-compile turns an fnc
// module into an object file and a C++ header; the header describes the
// module with the tables below and wraps an fnc::aot::Instance in a class
// with one typed member function per public function and a getter and a
// setter per variable. Programs include the generated header, link the
// object and fnc's runtime library (the CMake target fnc::runtime), and
// need neither MLIR nor LLVM.
//
// Users normally touch only the generated class; these declarations are
// what it is made of, and a program may also use an Instance directly
// (e.g. to call a function by its index).
//
// Thread-safety: an Instance holds the state of the module's variables.
// Calls on distinct instances never interfere. Calls on one instance may
// overlap only if none of them reads or writes a variable (bound variables
// are updated in place); read() and assign() count as such calls.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_AOT_H
#define FNC_AOT_H

#include "fnc/DType.h"
#include "fnc/Tensor.h"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace fnc::aot {

/// The unknown-dim marker of a TypeInfo's shape (the value MLIR uses).
constexpr int64_t kDynamic = INT64_MIN;

/// A ranked tensor type of a compiled signature.
struct TypeInfo {
  DType dtype;
  size_t rank;
  /// `rank` dims; kDynamic for an unknown one (nullptr for rank 0).
  const int64_t *shape;
};

/// How a compiled function receives an argument.
enum class ArgKind {
  /// A tensor, read only: `const fnc::Tensor &` in the generated class.
  Tensor,
  /// A `!fnc.variable` bound to a module variable (`fnc.bind = @name`):
  /// the instance passes its own buffer; not a parameter of the generated
  /// member function.
  BoundVariable,
  /// A `!fnc.variable` without a binding: `fnc::Tensor &` in the generated
  /// class, replaced by its updated value after the call.
  Variable,
};

struct ArgInfo {
  ArgKind kind;
  TypeInfo type;
  /// For BoundVariable: the index of the variable in ModuleInfo::variables.
  size_t variable;
};

/// A public function of the module.
struct FunctionInfo {
  /// The MLIR symbol name ("step" for @step).
  const char *name;
  /// The packed entry point in the object: args[i] points at the i-th slot
  /// of the expanded arguments (the call context first), args[n] at the
  /// results' slots (docs/Runtime.md).
  void (*entry)(void **);
  size_t numArgs;
  const ArgInfo *args;
  size_t numResults;
  const TypeInfo *results;
};

/// A `fnc.global_variable` of the module.
struct VariableInfo {
  const char *name;
  /// Always static.
  TypeInfo type;
  /// The initial value, row-major (in the object).
  const void *initialValue;
};

/// The whole module, as the generated header describes it.
struct ModuleInfo {
  const char *name;
  /// The CPU the object was compiled for (fnc-compile --target-cpu).
  const char *targetCPU;
  size_t numVariables;
  const VariableInfo *variables;
  size_t numFunctions;
  const FunctionInfo *functions;
};

/// An argument of Instance::call: a tensor read by the function, or (from a
/// non-const lvalue) one an unbound variable argument may update.
struct Arg {
  Arg(const Tensor &t) : in(&t), inout(nullptr) {}
  Arg(Tensor &t) : in(&t), inout(&t) {}
  const Tensor *in;
  Tensor *inout;
};

/// The state of one loaded module: a buffer per variable, starting at its
/// initial value. Copying an Instance copies the variables' values.
class Instance {
public:
  explicit Instance(const ModuleInfo &info);
  Instance(const Instance &other);
  Instance &operator=(const Instance &other);
  Instance(Instance &&other) noexcept;
  Instance &operator=(Instance &&other) noexcept;
  ~Instance();

  const ModuleInfo &info() const { return *info_; }

  /// A copy of the current value of variable `index`.
  Tensor read(size_t index) const;
  /// Sets variable `index` to `value`. Throws InvalidArgument naming the
  /// variable, its type and the value's if the dtype or shape differ.
  void assign(size_t index, const Tensor &value);

  /// Calls function `index` with one Arg per argument that is not a bound
  /// variable, in order. Checks every argument's dtype and shape first
  /// (InvalidArgument: "argument #1 of @f: expected tensor<?xf32>, got
  /// tensor<3xf64>"); a run-time error of the compiled code throws the
  /// fnc::Error the JIT gives for it ("@f: gather index 7 is out of range
  /// [0, 5)" with the eager API's kind for that fault). Returns one tensor
  /// per result.
  std::vector<Tensor> call(size_t index, std::initializer_list<Arg> args);

private:
  void allocate();
  void release();

  const ModuleInfo *info_;
  /// One 64-byte aligned buffer per variable (fnc/Memory.h).
  std::vector<void *> variables_;
};

} // namespace fnc::aot

#endif // FNC_AOT_H
