//===- fnc-tblgen.cpp - Generates the fnc op table from FncOps.td ---------===//
//
// A TableGen backend. `-gen-op-table` writes FncOpTable.inc: one X-macro line
// per entry of the op table (the defs deriving from Fnc_TableEntry in
// FncOps.td), grouped by family and in definition order:
//
//   FNC_UNARY_OP(Kind, OpClass, api_name, DTypes, differentiable)
//   FNC_BINARY_OP(Kind, OpClass, api_name, DTypes, differentiable)
//   FNC_COMPARE_OP(Kind, predicate, api_name, DTypes)
//   FNC_REDUCE_OP(Kind, OpClass, api_name, DTypes, differentiable)
//
// A user defines the macros of the families it needs and includes the file;
// undefined families are skipped and every macro is undefined at the end.
// The output has no MLIR in it, so MLIR-free code (the reference kernels,
// the eager API) includes it as well as the dialect does.
//
// The map from the C++ API to the ops comes from the ops' `cppApi` and
// `cppApiNote`, the op table (an entry's `tableApiName`; a comparison is
// `fnc.compare` with its predicate) and the `Fnc_ApiCall` records:
// `-gen-api-doc` writes it as markdown (docs/ApiToOps.md), `-gen-api-table`
// as X-macro lines for the test that traces every call,
//
//   FNC_API_CALL("reduce_any", "fnc.cast, fnc.max")
//
// Both fail when an op has neither a C++ call nor a note, or when a
// Fnc_ApiCall names an op or a predicate that does not exist.
//
//===----------------------------------------------------------------------===//

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TableGen/Error.h"
#include "llvm/TableGen/Main.h"
#include "llvm/TableGen/Record.h"
#include "llvm/TableGen/TableGenBackend.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

using namespace llvm;

namespace {

enum class Action { OpTable, ApiDoc, ApiTable };

cl::opt<Action> action(
    cl::desc("Action to perform:"),
    cl::values(clEnumValN(Action::OpTable, "gen-op-table",
                          "Generate the fnc op table"),
               clEnumValN(Action::ApiDoc, "gen-api-doc",
                          "Generate the markdown map of C++ calls to ops"),
               clEnumValN(Action::ApiTable, "gen-api-table",
                          "Generate the X-macro map of C++ calls to ops")));

/// One family of the table: its name in FncOps.td and its macro.
struct Family {
  StringRef name;  // the `tableFamily` of its entries
  StringRef macro; // FNC_<NAME>_OP
  bool hasOpClass; // entries are ops (compare kinds are predicates)
};

constexpr Family kFamilies[] = {
    {"Unary", "FNC_UNARY_OP", true},
    {"Binary", "FNC_BINARY_OP", true},
    {"Compare", "FNC_COMPARE_OP", false},
    {"Reduce", "FNC_REDUCE_OP", true},
};

/// "Fnc_FloorModOp" -> "FloorModOp": the C++ class ODS generates for a def
/// (the name after the dialect prefix).
StringRef opClassOf(const Record &def) {
  StringRef name = def.getName();
  size_t underscore = name.find('_');
  return underscore == StringRef::npos ? name : name.drop_front(underscore + 1);
}

/// The entry's kind: `tableKind` if set, else the op class without "Op".
std::string kindOf(const Record &def) {
  StringRef kind = def.getValueAsString("tableKind");
  if (!kind.empty())
    return kind.str();
  StringRef cls = opClassOf(def);
  if (!cls.consume_back("Op"))
    PrintFatalError(&def, "an op of the table must be named Fnc_<Kind>Op");
  return cls.str();
}

bool emitOpTable(raw_ostream &os, const RecordKeeper &records) {
  emitSourceFileHeader("The fnc op table (see FncOps.td)", os, records);
  std::vector<const Record *> entries(
      records.getAllDerivedDefinitions("Fnc_TableEntry"));
  // Definition order, not the records' alphabetical order.
  std::sort(
      entries.begin(), entries.end(),
      [](const Record *a, const Record *b) { return a->getID() < b->getID(); });
  for (const Family &family : kFamilies) {
    os << "#ifdef " << family.macro << "\n";
    for (const Record *def : entries) {
      if (def->getValueAsString("tableFamily") != family.name)
        continue;
      os << family.macro << "(" << kindOf(*def) << ", ";
      if (family.hasOpClass)
        os << opClassOf(*def);
      else
        os << def->getValueAsString("tablePredicate");
      os << ", " << def->getValueAsString("tableApiName") << ", "
         << def->getValueAsDef("tableDTypes")->getValueAsString("cppName");
      if (family.hasOpClass)
        os << ", " << (def->getValueAsBit("tableDifferentiable") ? 1 : 0);
      os << ")\n";
    }
    os << "#undef " << family.macro << "\n#endif\n\n";
  }
  for (const Record *def : entries) {
    StringRef family = def->getValueAsString("tableFamily");
    if (std::none_of(std::begin(kFamilies), std::end(kFamilies),
                     [&](const Family &f) { return f.name == family; }))
      PrintFatalError(def, "unknown op table family '" + family + "'");
  }
  return false;
}

//===----------------------------------------------------------------------===//
// The map from the C++ API to the ops
//===----------------------------------------------------------------------===//

/// "fnc.<mnemonic>" of an op def.
std::string opNameOf(const Record &op) {
  return "fnc." + op.getValueAsString("opName").str();
}

/// An op of the dialect, with what the map says about it.
struct OpInfo {
  const Record *def;
  std::string className; // "AddOp"
  std::string note;      // cppApiNote
};

/// One C++ call: the ops it stages, in the order first given, and notes.
struct ApiCall {
  std::vector<std::string> ops;
  std::vector<std::string> notes;

  void addOp(const std::string &op) {
    if (std::find(ops.begin(), ops.end(), op) == ops.end())
      ops.push_back(op);
  }
};

struct ApiMap {
  std::map<std::string, OpInfo> ops;    // by op name
  std::map<std::string, ApiCall> calls; // by C++ name
};

std::vector<const Record *> inDefinitionOrder(ArrayRef<const Record *> defs) {
  std::vector<const Record *> sorted(defs.begin(), defs.end());
  std::sort(sorted.begin(), sorted.end(), [](const Record *a, const Record *b) {
    return a->getID() < b->getID();
  });
  return sorted;
}

/// Collects the map and checks it: every op is staged by some call or says
/// why not, every op a Fnc_ApiCall names exists.
ApiMap collectApiMap(const RecordKeeper &records) {
  ApiMap map;
  std::set<std::string> predicates;
  for (const Record *def :
       inDefinitionOrder(records.getAllDerivedDefinitions("Fnc_Op"))) {
    std::string name = opNameOf(*def);
    map.ops[name] = {def, opClassOf(*def).str(),
                     def->getValueAsString("cppApiNote").str()};
    for (StringRef api : def->getValueAsListOfStrings("cppApi"))
      map.calls[api.str()].addOp(name);
    if (def->isSubClassOf("Fnc_TableEntry"))
      map.calls[def->getValueAsString("tableApiName").str()].addOp(name);
  }
  for (const Record *def :
       inDefinitionOrder(records.getAllDerivedDefinitions("Fnc_Comparison"))) {
    std::string predicate = def->getValueAsString("tablePredicate").str();
    predicates.insert(predicate);
    std::string op = "fnc.compare " + predicate;
    map.calls[def->getValueAsString("tableApiName").str()].addOp(op);
    for (StringRef api : def->getValueAsListOfStrings("cppApi"))
      map.calls[api.str()].addOp(op);
  }
  std::set<std::string> staged;
  for (const Record *def :
       inDefinitionOrder(records.getAllDerivedDefinitions("Fnc_ApiCall"))) {
    ApiCall &call = map.calls[def->getValueAsString("cppApi").str()];
    for (StringRef op : def->getValueAsListOfStrings("cppOps")) {
      auto [name, predicate] = op.split(' ');
      if (!map.ops.count(name.str()))
        PrintFatalError(def, "'" + name + "' is not an op of the dialect");
      if (!predicate.empty() &&
          (name != "fnc.compare" || !predicates.count(predicate.str())))
        PrintFatalError(def, "'" + op +
                                 "': only fnc.compare takes a "
                                 "predicate (eq, ne, lt, le, gt or ge)");
      call.addOp(op.str());
    }
    call.notes.push_back(def->getValueAsString("cppApiNote").str());
  }
  for (auto &[name, call] : map.calls)
    for (const std::string &op : call.ops)
      staged.insert(StringRef(op).split(' ').first.str());
  for (auto &[name, info] : map.ops)
    if (!staged.count(name) && info.note.empty())
      PrintFatalError(info.def,
                      name + " has no C++ call: list the calls that stage "
                             "it in `cppApi` (or a Fnc_ApiCall), or say in "
                             "`cppApiNote` where it comes from");
  return map;
}

/// Free functions first, then operators, then methods by class; each group
/// alphabetically.
std::tuple<int, std::string> callOrder(const std::string &name) {
  StringRef n(name);
  if (n.contains("::"))
    return {2, name};
  return {n.starts_with("operator") ? 1 : 0, name};
}

std::string cell(StringRef text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += '\\';
    out += c;
  }
  return out;
}

/// The op as a link to its section of DialectReference.md (GitHub's anchor
/// of "### `fnc.floor_mod` (fnc::FloorModOp)" is "fncfloor_mod-fncfloormodop").
std::string opLink(const ApiMap &map, const std::string &op) {
  StringRef name = StringRef(op).split(' ').first;
  std::string anchor = name.str();
  anchor.erase(std::remove(anchor.begin(), anchor.end(), '.'), anchor.end());
  anchor += "-fnc" + StringRef(map.ops.at(name.str()).className).lower();
  return "[`" + op + "`](DialectReference.md#" + anchor + ")";
}

bool emitApiDoc(raw_ostream &os, const RecordKeeper &records) {
  ApiMap map = collectApiMap(records);
  os << "<!-- Generated from include/fnc/Dialect/Fnc/IR/FncOps.td by "
        "`fnc-tblgen -gen-api-doc`; do not edit. -->\n\n"
     << "# The C++ API and the fnc ops\n\n"
     << "Which ops each call of the C++ API stages while a `fnc::function` "
        "traces,\nand which calls stage each op. Constants, scalar "
        "broadcasts and terminators\nthat a call also stages are not "
        "listed. `Dialect.md` says where this table\ncomes from and how it "
        "is tested; `DialectReference.md` has the syntax of\nevery op.\n\n"
     << "## From C++ calls to ops\n\n"
     << "| C++ | Ops | How |\n| --- | --- | --- |\n";
  std::vector<std::string> names;
  for (auto &[name, call] : map.calls)
    names.push_back(name);
  std::sort(names.begin(), names.end(),
            [](const std::string &a, const std::string &b) {
              return callOrder(a) < callOrder(b);
            });
  std::map<std::string, std::vector<std::string>> callsOfOp;
  for (const std::string &name : names) {
    const ApiCall &call = map.calls.at(name);
    os << "| `fnc::" << cell(name) << "` | ";
    for (size_t i = 0; i < call.ops.size(); ++i) {
      os << (i ? ", " : "") << opLink(map, call.ops[i]);
      callsOfOp[StringRef(call.ops[i]).split(' ').first.str()].push_back(name);
    }
    os << " | ";
    for (size_t i = 0; i < call.notes.size(); ++i)
      os << (i ? " " : "") << cell(call.notes[i]);
    os << " |\n";
  }
  os << "\n## From ops to C++ calls\n\n"
     << "| Op | C++ calls | Notes |\n| --- | --- | --- |\n";
  for (auto &[op, info] : map.ops) {
    os << "| " << opLink(map, op) << " | ";
    std::vector<std::string> &calls = callsOfOp[op];
    calls.erase(std::unique(calls.begin(), calls.end()), calls.end());
    for (size_t i = 0; i < calls.size(); ++i)
      os << (i ? ", " : "") << "`fnc::" << cell(calls[i]) << "`";
    os << " | " << cell(info.note) << " |\n";
  }
  return false;
}

bool emitApiTable(raw_ostream &os, const RecordKeeper &records) {
  emitSourceFileHeader("The C++ calls and the ops they stage (see FncOps.td)",
                       os, records);
  ApiMap map = collectApiMap(records);
  os << "#ifdef FNC_API_CALL\n";
  for (auto &[name, call] : map.calls) {
    os << "FNC_API_CALL(\"" << name << "\", \"";
    for (size_t i = 0; i < call.ops.size(); ++i)
      os << (i ? ", " : "") << call.ops[i];
    os << "\")\n";
  }
  os << "#undef FNC_API_CALL\n#endif\n";
  return false;
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM y(argc, argv);
  cl::ParseCommandLineOptions(argc, argv);
  return TableGenMain(argv[0],
                      [](raw_ostream &os, const RecordKeeper &records) {
                        switch (action) {
                        case Action::OpTable:
                          return emitOpTable(os, records);
                        case Action::ApiDoc:
                          return emitApiDoc(os, records);
                        case Action::ApiTable:
                          return emitApiTable(os, records);
                        }
                        return true;
                      });
}
