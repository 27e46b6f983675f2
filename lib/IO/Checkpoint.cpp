//===- Checkpoint.cpp - fnc::save_variables and restore_variables ---------===//
//
// Checkpoints are .npz archives written and read by fnc::save_npz and
// fnc::load_npz; this file adds the checks of a variable list and the
// all-or-nothing comparison of a file with it.
//
//===----------------------------------------------------------------------===//

#include "fnc/Checkpoint.h"
#include "fnc/API/OpSupport.h"
#include "fnc/IO.h"

#include <map>
#include <set>

using namespace fnc;

namespace {

std::string describe(DType dtype, const std::vector<int64_t> &shape) {
  std::string s = std::string(dtypeName(dtype)) + "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

/// Throws unless `vars` is a valid list for `op` outside a trace.
void checkVariables(const char *op, const std::string &path,
                    const std::vector<std::pair<std::string, Variable>> &vars) {
  if (trace::Recorder *r = api::recording())
    throw Error(ErrorKind::FailedPrecondition,
                std::string(op) + ": called while tracing `" +
                    r->token()->functionName +
                    "`; checkpoints are eager operations: save or restore "
                    "outside the fnc::function (before or after calling it); "
                    "the function sees restored variables on its next call");
  std::set<std::string> names;
  for (size_t i = 0; i < vars.size(); ++i) {
    const auto &[name, v] = vars[i];
    if (name.empty())
      throw Error(ErrorKind::InvalidArgument,
                  std::string(op) + ": '" + path + "': variable #" +
                      std::to_string(i) +
                      " has an empty name; give every variable a name");
    if (!v.defined())
      throw Error(ErrorKind::InvalidArgument, std::string(op) + ": '" + path +
                                                  "': the variable '" + name +
                                                  "' is a null fnc::Variable");
    if (!names.insert(name).second)
      throw Error(ErrorKind::InvalidArgument,
                  std::string(op) + ": '" + path + "': the name '" + name +
                      "' is given twice; names must be distinct");
  }
}

} // namespace

void fnc::save_variables(
    const std::string &path,
    const std::vector<std::pair<std::string, Variable>> &vars) {
  checkVariables("fnc::save_variables", path, vars);
  std::vector<std::pair<std::string, Tensor>> arrays;
  arrays.reserve(vars.size());
  for (const auto &[name, v] : vars)
    arrays.emplace_back(name, v.read_value());
  save_npz(path, arrays);
}

void fnc::restore_variables(
    const std::string &path,
    const std::vector<std::pair<std::string, Variable>> &vars) {
  const char *op = "fnc::restore_variables";
  checkVariables(op, path, vars);
  std::vector<std::pair<std::string, Tensor>> arrays;
  try {
    arrays = load_npz(path);
  } catch (const Error &e) {
    // Name the public operation; keep the reason (it names the path).
    std::string message = e.message();
    const std::string prefix = "fnc::load_npz";
    if (message.rfind(prefix, 0) == 0)
      message = op + message.substr(prefix.size());
    throw Error(e.kind(), message);
  }
  std::map<std::string, const Tensor *> inFile;
  for (const auto &[name, t] : arrays)
    inFile.emplace(name, &t);

  std::vector<std::string> differences;
  std::set<std::string> listed;
  for (const auto &[name, v] : vars) {
    listed.insert(name);
    auto it = inFile.find(name);
    if (it == inFile.end()) {
      differences.push_back("'" + name + "' (" +
                            describe(v.dtype(), v.shape()) +
                            ") is missing from the file");
      continue;
    }
    const Tensor &t = *it->second;
    if (t.dtype() != v.dtype() || t.shape() != v.shape())
      differences.push_back(
          "'" + name + "' is " + describe(t.dtype(), t.shape()) +
          " in the file but the variable is " + describe(v.dtype(), v.shape()));
  }
  for (const auto &[name, t] : arrays)
    if (!listed.count(name))
      differences.push_back("'" + name + "' (" +
                            describe(t.dtype(), t.shape()) +
                            ") is in the file but not in the list");
  if (!differences.empty()) {
    std::string message =
        std::string(op) + ": '" + path + "' does not match the variables (" +
        std::to_string(differences.size()) + " difference" +
        (differences.size() == 1 ? "" : "s") + "; nothing was restored):";
    for (const std::string &d : differences)
      message += "\n  " + d;
    throw Error(ErrorKind::InvalidArgument, message);
  }
  for (const auto &[name, v] : vars)
    v.assign(*inFile.at(name));
}
