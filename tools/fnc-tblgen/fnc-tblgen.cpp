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
#include <string>
#include <vector>

using namespace llvm;

namespace {

enum class Action { OpTable };

cl::opt<Action> action(cl::desc("Action to perform:"),
                       cl::values(clEnumValN(Action::OpTable, "gen-op-table",
                                             "Generate the fnc op table")));

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

} // namespace

int main(int argc, char **argv) {
  InitLLVM y(argc, argv);
  cl::ParseCommandLineOptions(argc, argv);
  return TableGenMain(argv[0],
                      [](raw_ostream &os, const RecordKeeper &records) {
                        switch (action) {
                        case Action::OpTable:
                          return emitOpTable(os, records);
                        }
                        return true;
                      });
}
