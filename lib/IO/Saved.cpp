//===- Saved.cpp - fnc::save and fnc::load
//---------------------------------===//
//
// The public side of saved functions (fnc/Saved.h): which variables and
// captured tensors a set of concrete functions uses, the atomic write, and
// the LoadedFunction built from a loaded module (variables, concrete
// functions, dispatch). The MLIR side is lib/Trace/SavedModule.cpp.
//
//===----------------------------------------------------------------------===//

#include "fnc/Saved.h"

#include "fnc/IO/Files.h"
#include "fnc/JIT/Engine.h"
#include "fnc/Trace/ConcreteAccess.h"
#include "fnc/Trace/ImportTrace.h"
#include "fnc/Trace/Recorder.h"
#include "fnc/Trace/SavedModule.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <unistd.h>

namespace fnc {

namespace {

using detail::ConcreteAccess;

/// The variables and captured tensors `functions` pass as hidden arguments,
/// each once, named after the variable (unique in the file).
struct GlobalCollector {
  std::vector<trace::SavedGlobal> globals;
  std::map<uint64_t, size_t> byVariable;
  std::map<const void *, size_t> byTensor;
  std::set<std::string> taken;

  std::string unique(std::string base) {
    if (base.empty())
      base = "variable";
    std::string name = base;
    for (int i = 1; taken.count(name); ++i)
      name = base + "_" + std::to_string(i);
    taken.insert(name);
    return name;
  }

  size_t add(const Tensor &t, uint64_t variable, const std::string &name) {
    const void *data = trace::concreteData(t);
    auto known = variable ? byVariable.find(variable) : byVariable.end();
    if (known != byVariable.end())
      return known->second;
    auto seen = variable ? byTensor.end() : byTensor.find(data);
    if (seen != byTensor.end())
      return seen->second;
    trace::SavedGlobal g;
    g.name = unique(variable ? name : "captured");
    g.dtype = t.dtype();
    g.shape = t.shape();
    g.data = data;
    g.captured = variable == 0;
    globals.push_back(std::move(g));
    size_t index = globals.size() - 1;
    if (variable)
      byVariable[variable] = index;
    else
      byTensor[data] = index;
    return index;
  }
};

} // namespace

void save(const std::string &path,
          const std::vector<ConcreteFunction> &functions) {
  const char *op = "fnc::save";
  if (functions.empty())
    io::fail(ErrorKind::InvalidArgument, op, path,
             "no concrete function to save: call the fnc::Function first, "
             "or pass the specs of the signature to save, as in "
             "fnc::save(path, f, fnc::TensorSpec({-1, 784}))");
  GlobalCollector collector;
  std::vector<trace::SavedFunction> saved;
  for (const ConcreteFunction &f : functions) {
    if (!f.defined())
      io::fail(ErrorKind::InvalidArgument, op, path,
               "an empty fnc::ConcreteFunction handle; get one from "
               "fnc::Function::get_concrete_function");
    ConcreteAccess::View view = ConcreteAccess::view(f);
    trace::SavedFunction s;
    s.name = view.name;
    s.results = view.results;
    s.argNames = view.argNames;
    s.fncText = view.fncText;
    s.fastMath = view.fastMath;
    s.checkNumerics = view.checkNumerics;
    for (size_t j = 0; j < view.hiddenArgs.size(); ++j)
      s.hiddenGlobals.push_back(collector.add(
          view.hiddenArgs[j], view.hiddenVariables[j], view.hiddenNames[j]));
    saved.push_back(std::move(s));
  }
  std::string text, error;
  if (!trace::buildSavedModule(saved, collector.globals, text, error))
    io::fail(ErrorKind::Internal, op, path, error);
  io::AtomicFile file(op, path);
  file.write(text.data(), text.size());
  file.commit();
}

void save(const std::string &path, const ConcreteFunction &function) {
  save(path, std::vector<ConcreteFunction>{function});
}

//===----------------------------------------------------------------------===//
// LoadedFunction
//===----------------------------------------------------------------------===//

struct LoadedFunction::State {
  std::string name;
  std::vector<ConcreteFunction> functions;
  std::vector<std::string> structures;
  std::vector<std::pair<std::string, Variable>> variables;
  // The captured tensors the functions read (kept alive here too).
  std::vector<Tensor> captured;
};

namespace {

/// An eager tensor holding a copy of `g`'s value.
Tensor tensorOf(const trace::SavedGlobal &g) {
  size_t bytes = g.bytes.size();
  void *buffer = std::malloc(bytes ? bytes : 1);
  if (!buffer)
    throw Error(ErrorKind::OutOfRange,
                "fnc::load: out of memory for the value of `" + g.name + "`");
  std::memcpy(buffer, g.bytes.data(), bytes);
  return trace::adoptBuffer(g.dtype, g.shape,
                            std::shared_ptr<void>(buffer, std::free));
}

std::vector<int64_t> specShape(const std::vector<int64_t> &shape) {
  std::vector<int64_t> dims = shape;
  for (int64_t &d : dims)
    if (d == jit::TensorType::kDynamic)
      d = kUnknownDim;
  return dims;
}

/// How many dims of `f`'s inputs are known (the most specific signature
/// wins, as fnc::Function's dispatch does).
size_t knownDims(const ConcreteFunction &f) {
  size_t n = 0;
  for (const TensorSpec &spec : f.input_specs())
    for (int64_t d : spec.shape)
      n += d != kUnknownDim;
  return n;
}

} // namespace

LoadedFunction load(const std::string &path, const LoadOptions &options) {
  const char *op = "fnc::load";
  trace::LoadedModule module;
  std::string error;
  if (!trace::loadSavedModule(path, options.cache_dir, module, error))
    io::fail(error.find("does not compile") != std::string::npos
                 ? ErrorKind::Unimplemented
             : ::access(path.c_str(), F_OK) != 0 && errno == ENOENT
                 ? ErrorKind::NotFound
                 : ErrorKind::InvalidArgument,
             op, path, error);

  auto state = std::make_shared<LoadedFunction::State>();
  // Per global: the tensor passed for it and its variable's uid (0 for a
  // captured tensor).
  std::vector<Tensor> buffers;
  std::vector<uint64_t> uids;
  std::vector<std::string> names;
  for (const trace::SavedGlobal &g : module.globals) {
    Tensor value = tensorOf(g);
    if (g.captured) {
      state->captured.push_back(value);
      buffers.push_back(value);
      uids.push_back(0);
      names.emplace_back();
      continue;
    }
    Variable v(value, g.name);
    buffers.push_back(ConcreteAccess::buffer(v));
    uids.push_back(v.id());
    names.push_back(g.name);
    state->variables.emplace_back(g.name, v);
  }
  for (trace::LoadedEntry &e : module.entries) {
    if (state->name.empty())
      state->name = e.name;
    std::vector<TensorSpec> inputs, outputs;
    for (size_t i = 0; i < e.inputDTypes.size(); ++i)
      inputs.emplace_back(specShape(e.inputShapes[i]), e.inputDTypes[i],
                          e.argNames[i].empty() ? "a" + std::to_string(i)
                                                : e.argNames[i]);
    for (size_t i = 0; i < e.outputDTypes.size(); ++i)
      outputs.emplace_back(specShape(e.outputShapes[i]), e.outputDTypes[i]);
    std::vector<trace::VariableRef> hidden;
    for (size_t g : e.hiddenGlobals) {
      e.parts.hiddenArgs.push_back(buffers[g]);
      e.parts.hiddenVariables.push_back(uids[g]);
      e.parts.hiddenNames.push_back(names[g]);
      hidden.push_back({uids[g], buffers[g], names[g]});
    }
    // Its gradient replays the program read back from its IR, parsed on
    // the first call under a tape.
    auto importRecorded =
        [text = e.parts.fncText, hidden](
            std::string &why) -> std::shared_ptr<const trace::RecordedTrace> {
      auto recorded = std::make_shared<trace::RecordedTrace>();
      if (trace::importTrace(text, hidden, trace::stagedControlSteps(),
                             *recorded, why))
        return recorded;
      why = "the loaded function has no gradient: " + why;
      return nullptr;
    };
    state->functions.push_back(
        e.executed
            ? ConcreteAccess::makeExecuted(
                  e.name, e.results, std::move(inputs), std::move(outputs),
                  e.symbol, std::move(e.parts), std::move(importRecorded))
            : ConcreteAccess::make(
                  e.name, e.results, std::move(inputs), std::move(outputs),
                  std::make_unique<trace::CompiledTrace>(std::move(e.parts)),
                  std::move(importRecorded)));
    state->structures.push_back(e.results);
  }
  LoadedFunction loaded;
  loaded.state_ = std::move(state);
  return loaded;
}

const LoadedFunction::State &LoadedFunction::state() const {
  if (!state_)
    throw Error(ErrorKind::FailedPrecondition,
                "fnc::LoadedFunction: this is an empty handle; get one from "
                "fnc::load(path)");
  return *state_;
}

bool LoadedFunction::skips(const ConcreteFunction &f) const {
  return !only_.empty() && ConcreteAccess::view(f).name != only_;
}

std::vector<Tensor>
LoadedFunction::callAs(const char *structure,
                       const std::vector<Tensor> &args) const {
  const State &s = state();
  const ConcreteFunction *best = nullptr;
  size_t bestIndex = 0;
  for (size_t i = 0; i < s.functions.size(); ++i) {
    const ConcreteFunction &f = s.functions[i];
    if (skips(f))
      continue;
    const std::vector<TensorSpec> &specs = f.input_specs();
    bool fits = specs.size() == args.size();
    for (size_t a = 0; fits && a < args.size(); ++a)
      fits = args[a].defined() &&
             specs[a].matches(args[a].dtype(), args[a].shape());
    if (fits && (!best || knownDims(f) > knownDims(*best))) {
      best = &f;
      bestIndex = i;
    }
  }
  if (!best) {
    std::string given;
    for (size_t a = 0; a < args.size(); ++a)
      given += (a ? ", " : "") +
               (args[a].defined()
                    ? TensorSpec(args[a].shape(), args[a].dtype()).str()
                    : std::string("a null fnc::Tensor"));
    throw Error(ErrorKind::InvalidArgument,
                "fnc::LoadedFunction `" + name() +
                    "`: no saved signature accepts (" + given +
                    "); the file has:\n" +
                    pretty_printed_concrete_signatures() +
                    "Save a concrete function for this signature");
  }
  if (structure && s.structures[bestIndex] != structure)
    throw Error(ErrorKind::InvalidArgument,
                "fnc::LoadedFunction `" + name() + "`: call<R>: R is a " +
                    structure + " but the saved function returns a " +
                    s.structures[bestIndex] +
                    "; call it without a type for the tensors in order");
  return (*best)(args);
}

std::vector<Tensor>
LoadedFunction::operator()(const std::vector<Tensor> &args) const {
  return callAs(nullptr, args);
}

const std::string &LoadedFunction::name() const {
  return only_.empty() ? state().name : only_;
}

std::vector<std::string> LoadedFunction::function_names() const {
  std::vector<std::string> names;
  for (const ConcreteFunction &f : state().functions) {
    const std::string &n = ConcreteAccess::view(f).name;
    if (std::find(names.begin(), names.end(), n) == names.end())
      names.push_back(n);
  }
  return names;
}

LoadedFunction LoadedFunction::function(const std::string &name) const {
  std::vector<std::string> names = function_names();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string list;
    for (const std::string &n : names)
      list += (list.empty() ? "`" : ", `") + n + "`";
    throw Error(ErrorKind::InvalidArgument,
                "fnc::LoadedFunction: the file has no function `" + name +
                    "`; it has " + list);
  }
  LoadedFunction selected = *this;
  selected.only_ = name;
  return selected;
}

std::vector<ConcreteFunction> LoadedFunction::concrete_functions() const {
  std::vector<ConcreteFunction> out;
  for (const ConcreteFunction &f : state().functions)
    if (!skips(f))
      out.push_back(f);
  return out;
}

std::vector<std::string> LoadedFunction::result_structures() const {
  std::vector<std::string> out;
  const State &s = state();
  for (size_t i = 0; i < s.functions.size(); ++i)
    if (!skips(s.functions[i]))
      out.push_back(s.structures[i]);
  return out;
}
std::string LoadedFunction::pretty_printed_concrete_signatures() const {
  std::string s;
  for (const ConcreteFunction &f : concrete_functions())
    s += f.pretty_printed_signature() + "\n";
  return s;
}

const std::vector<std::pair<std::string, Variable>> &
LoadedFunction::variables() const {
  return state().variables;
}

Variable LoadedFunction::variable(const std::string &name) const {
  const State &s = state();
  std::string names;
  for (const auto &[n, v] : s.variables) {
    if (n == name)
      return v;
    names += (names.empty() ? "`" : ", `") + n + "`";
  }
  throw Error(ErrorKind::NotFound,
              "fnc::LoadedFunction `" + s.name + "`: no variable `" + name +
                  "`; " +
                  (names.empty() ? std::string("the file has none")
                                 : "the file has " + names));
}

} // namespace fnc
