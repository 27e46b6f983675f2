//===- Saved.h - fnc::save and fnc::load: staged functions as files -*- C++
//-*-===//
//
// A staged function outlives its process and its C++ source (the role of
// TensorFlow's SavedModel):
//
//   auto f = fnc::function(model_step, {.name = "step"});
//   f(x);                                   // traced for [32, 784]
//   fnc::save("/tmp/step.mlir", f);          // every traced signature
//   fnc::save("/tmp/step.mlir", f, fnc::TensorSpec({-1, 784}));  // this one
//
//   fnc::LoadedFunction g = fnc::load("/tmp/step.mlir");   // no model code
//   fnc::Tensor y = g(x)[0];
//   g.variable("dense/kernel").assign(w);
//
// Functions that share variables (a train step and a prediction) are saved
// together, fnc::save(path, {train.get_concrete_function(...),
// predict.get_concrete_function(...)}), and selected by name after loading:
// fnc::load(path).function("predict").
//
// The file is one .mlir module of the fnc dialect (docs/Saved.md):
//   - one public function per concrete function, named after the
//     fnc::Function (`@step`, `@step_1`...), as traced;
//   - the variables it uses, as `fnc.global_variable`s holding their values
//     at the time of the save (big ones as dense resources, in binary at the
//     end of the file), bound to the functions' `!fnc.variable` arguments
//     with `{fnc.bind = @name}`; eager tensors the trace captured become
//     variables that the functions only read;
//   - the metadata: the format version (`fnc.saved`) on the module, and per
//     function the fnc::Function's name, the parameter names, the result
//     structure and the compile options.
// `fnc-run step.mlir --input=...` runs it too.
//
// fnc::load parses the file, checks the version and the metadata against
// the IR (an error names what disagrees), creates one fnc::Variable per
// variable (with its saved value and name), and compiles each function (the
// compile cache makes it cheap after the first load). The result calls the
// most specific signature that matches its arguments, as fnc::Function
// does, but never traces.
//
// Thread-safety: a LoadedFunction may be called from several threads at
// once, as a ConcreteFunction can. save() reads the variables' values: do
// not assign them concurrently.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_SAVED_H
#define FNC_SAVED_H

#include "fnc/Function.h"
#include "fnc/Variable.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fnc {

/// The version of the file format fnc::save writes and fnc::load reads.
constexpr int64_t kSavedFormatVersion = 1;

/// Writes `functions` (at least one; their variables' current values
/// included) to `path`, atomically: on error no file is left there.
/// Throws InvalidArgument for an empty list or handle, Unavailable if the
/// file cannot be written.
void save(const std::string &path,
          const std::vector<ConcreteFunction> &functions);
void save(const std::string &path, const ConcreteFunction &function);

/// Every concrete function `f` has traced so far.
template <typename F> void save(const std::string &path, const Function<F> &f) {
  save(path, f.concrete_functions());
}
/// The concrete function of `f` for these specs (traced if needed).
template <typename F, typename... Specs>
void save(const std::string &path, const Function<F> &f, const TensorSpec &spec,
          const Specs &...specs) {
  save(path, f.get_concrete_function(spec, specs...));
}

struct LoadOptions {
  /// The compile cache (FunctionOptions::cache_dir): unset, the
  /// environment's; empty, none.
  std::optional<std::string> cache_dir{};
};

/// The functions of a saved file and their variables.
class LoadedFunction {
public:
  /// An empty handle (defined() is false).
  LoadedFunction() = default;

  /// Runs the most specific saved signature that accepts the arguments.
  /// Throws InvalidArgument, listing the signatures, if none does.
  std::vector<Tensor> operator()(const std::vector<Tensor> &args) const;
  template <
      typename... Ts,
      std::enable_if_t<(std::is_convertible_v<Ts, Tensor> && ...), int> = 0>
  std::vector<Tensor> operator()(const Ts &...args) const {
    return (*this)(std::vector<Tensor>{Tensor(args)...});
  }
  /// The same, rebuilt as the C++ result type R (fnc::Tensor,
  /// std::tuple<Tensor, Tensor>...). Throws InvalidArgument if the saved
  /// function returned another structure.
  template <typename R, typename... Ts> R call(const Ts &...args) const {
    return detail::ResultCodec<R>::rebuild(
        callAs(detail::ResultCodec<R>::kStructure,
               std::vector<Tensor>{Tensor(args)...}));
  }

  /// The name of the fnc::Function saved first (or the one function()
  /// selected).
  const std::string &name() const;
  /// The names of the fnc::Functions in the file, in file order.
  std::vector<std::string> function_names() const;
  /// The saved function `name` alone, sharing the variables (a file may
  /// hold a train step and a prediction that use the same model). Throws
  /// InvalidArgument listing the names if there is none.
  LoadedFunction function(const std::string &name) const;
  /// One per saved signature, in file order (of function() alone once
  /// selected).
  std::vector<ConcreteFunction> concrete_functions() const;
  /// The result structure of each of concrete_functions() ("tensor",
  /// "tuple", "pair", "vector", "array", "none"...).
  std::vector<std::string> result_structures() const;
  /// The signatures, as fnc::Function::pretty_printed_concrete_signatures.
  std::string pretty_printed_concrete_signatures() const;
  /// The variables, by their saved names, in file order.
  const std::vector<std::pair<std::string, Variable>> &variables() const;
  /// The variable saved as `name`; throws NotFound listing the names.
  Variable variable(const std::string &name) const;
  bool defined() const { return state_ != nullptr; }

private:
  friend LoadedFunction load(const std::string &, const LoadOptions &);
  struct State;
  std::vector<Tensor> callAs(const char *structure,
                             const std::vector<Tensor> &args) const;
  const State &state() const;
  /// Whether function() selected another name than the concrete function's.
  bool skips(const ConcreteFunction &f) const;
  std::shared_ptr<const State> state_;
  std::string only_; // function(name)'s name; empty: every function
};

/// Loads a file written by fnc::save. Throws NotFound for a missing file,
/// InvalidArgument for a file that does not parse (truncated), is of
/// another format version, or whose metadata disagrees with its IR, and
/// Unimplemented if a function does not compile.
LoadedFunction load(const std::string &path, const LoadOptions &options = {});

} // namespace fnc

#endif // FNC_SAVED_H
