//===- Compiler.cpp - Ahead-of-time compilation of fnc modules ------------===//
//
// fnc-compile's work: the JIT's lowering (jit::lowerToLLVMIR) and object
// compiler (jit::compileToObject) applied to a whole module for a chosen
// CPU, with what a program linked without MLIR and LLVM needs instead of
// the JIT's process: the entry points under names of their own, every
// other symbol internal, the variables' initial values as constants of the
// object, and generated code's calls of `malloc`, `calloc`, `free` and
// `memrefCopy` renamed to fnc's runtime. Then the C++ header that
// describes the module for fnc::aot::Instance.
//
//===----------------------------------------------------------------------===//

#include "fnc/AOT/Compiler.h"
#include "fnc/JIT/Engine.h"
#include "fnc/JIT/ObjectCompiler.h"
#include "fnc/Pipelines/Pipelines.h"
#include "fnc/Runtime/Runtime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

#include <cctype>
#include <map>
#include <set>

using namespace fnc;
using namespace fnc::aot;
using jit::ArgKind;
using jit::GlobalVariable;
using jit::Signature;
using jit::TensorType;

namespace {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

bool isIdentifier(llvm::StringRef name) {
  if (name.empty() || !(std::isalpha(name[0]) || name[0] == '_'))
    return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
      return false;
  return true;
}

bool isKeyword(llvm::StringRef name) {
  static const std::set<std::string> keywords = {
      "alignas",       "alignof",     "and",
      "and_eq",        "asm",         "auto",
      "bitand",        "bitor",       "bool",
      "break",         "case",        "catch",
      "char",          "char8_t",     "char16_t",
      "char32_t",      "class",       "compl",
      "concept",       "const",       "consteval",
      "constexpr",     "constinit",   "const_cast",
      "continue",      "co_await",    "co_return",
      "co_yield",      "decltype",    "default",
      "delete",        "do",          "double",
      "dynamic_cast",  "else",        "enum",
      "explicit",      "export",      "extern",
      "false",         "float",       "for",
      "friend",        "goto",        "if",
      "inline",        "int",         "long",
      "mutable",       "namespace",   "new",
      "noexcept",      "not",         "not_eq",
      "nullptr",       "operator",    "or",
      "or_eq",         "private",     "protected",
      "public",        "register",    "reinterpret_cast",
      "requires",      "return",      "short",
      "signed",        "sizeof",      "static",
      "static_assert", "static_cast", "struct",
      "switch",        "template",    "this",
      "thread_local",  "throw",       "true",
      "try",           "typedef",     "typeid",
      "typename",      "union",       "unsigned",
      "using",         "virtual",     "void",
      "volatile",      "wchar_t",     "while",
      "xor",           "xor_eq"};
  return keywords.count(name.str()) != 0;
}

/// True if `name` can name a C++ class or member: an identifier that is
/// no keyword and no name reserved for the implementation.
bool isUsableName(llvm::StringRef name) {
  return isIdentifier(name) && !isKeyword(name) && !name.starts_with("__") &&
         !(name.size() > 1 && name[0] == '_' && std::isupper(name[1]));
}

/// The C++ spelling of a variable's name: each character that cannot be
/// in an identifier becomes '_' (fnc::save names variables by their
/// module paths, such as "dense_1/kernel", which becomes dense_1_kernel).
std::string memberNameOf(llvm::StringRef name) {
  std::string member = name.str();
  for (char &c : member)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      c = '_';
  return member;
}

/// An error unless `name` can name a member of the generated class.
llvm::Error checkMemberName(llvm::StringRef name, llvm::StringRef what) {
  if (!isUsableName(name))
    return makeError(what +
                     " cannot be a member of the generated C++ "
                     "class: '" +
                     name +
                     "' is not a C++ identifier, is a keyword or is "
                     "reserved; rename it in the module");
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// The module's interface
//===----------------------------------------------------------------------===//

/// An argument as the header passes it.
struct Argument {
  /// fnc::aot::ArgKind's spelling.
  const char *kind;
  TensorType type;
  size_t variable = 0;
};

struct Function {
  Signature signature;
  std::vector<Argument> args;
  std::string symbol;
};

struct Interface {
  std::vector<Function> functions;
  std::vector<GlobalVariable> variables;
  /// Per variable: its name in C++ (get_NAME, set_NAME) and the symbol of
  /// its initial value.
  std::vector<std::string> variableMembers, variableSymbols;
  /// fnc_aot_<namespace>_<class>_
  std::string prefix;
};

llvm::Expected<Interface> readInterface(mlir::ModuleOp module,
                                        const CompileOptions &options) {
  Interface result;
  result.prefix = "fnc_aot_";
  for (llvm::StringRef part : llvm::split(options.cppNamespace, "::"))
    if (!part.empty())
      result.prefix += part.str() + "_";
  result.prefix += options.className + "_";

  auto globals = jit::readGlobals(module);
  if (!globals)
    return globals.takeError();
  result.variables = std::move(*globals);
  std::map<std::string, size_t> variableIndex;
  // The members of the class besides the functions.
  llvm::StringSet<> members = {"instance", "info", options.className};
  for (size_t i = 0; i < result.variables.size(); ++i) {
    const std::string &name = result.variables[i].name;
    std::string member = memberNameOf(name);
    if (llvm::Error err = checkMemberName(member, "fnc.global_variable @" + name))
      return std::move(err);
    if (members.count("get_" + member))
      return makeError("fnc.global_variable @" + name +
                       " and another variable both become get_" + member +
                       "/set_" + member +
                       " in C++ (characters other than letters, digits and "
                       "_ become _); rename one in the module");
    variableIndex[name] = i;
    members.insert("get_" + member);
    members.insert("set_" + member);
    result.variableMembers.push_back(member);
    result.variableSymbols.push_back(result.prefix + "init_" + member);
  }

  // The object must link on its own: the JIT would resolve a declared
  // function in its process, a program has nothing to resolve it with.
  for (auto func : module.getOps<mlir::func::FuncOp>())
    if (func.isExternal())
      return makeError("the module declares @" + func.getSymName() +
                       " without a body; code compiled ahead of time can "
                       "only call functions the module defines");

  auto signatures = jit::readSignatures(module);
  if (!signatures)
    return makeError(llvm::toString(signatures.takeError()) +
                     "; fnc-compile compiles every public function: make "
                     "the others private");
  if (signatures->empty())
    return makeError("the module has no public function to compile");
  for (Signature &sig : *signatures) {
    Function fn;
    if (llvm::Error err = checkMemberName(sig.name, "@" + sig.name))
      return std::move(err);
    if (members.count(sig.name))
      return makeError("@" + sig.name +
                       " has the name of another member of the generated "
                       "class (its own name, a variable's get_/set_, "
                       "instance or info); "
                       "rename it in the module");
    for (size_t i = 0; i < sig.args.size(); ++i) {
      const jit::ArgSpec &spec = sig.args[i];
      Argument arg{"Tensor", spec.type, 0};
      if (spec.kind == ArgKind::Variable && spec.boundTo.empty()) {
        arg.kind = "Variable";
      } else if (spec.kind == ArgKind::Variable) {
        // The verifier made sure that @boundTo is a global variable of the
        // argument's type.
        auto it = variableIndex.find(spec.boundTo);
        assert(it != variableIndex.end() && "fnc.bind names no variable");
        arg.kind = "BoundVariable";
        arg.variable = it->second;
      }
      fn.args.push_back(std::move(arg));
    }
    fn.symbol = result.prefix + sig.name;
    fn.signature = std::move(sig);
    result.functions.push_back(std::move(fn));
  }
  return result;
}

//===----------------------------------------------------------------------===//
// The object
//===----------------------------------------------------------------------===//

/// Gives the entry points their names, makes every other definition
/// internal (nothing else is exported; LLVM may inline the functions into
/// their entry points), and adds the variables' initial values.
void prepareForLinking(llvm::Module &module, const Interface &interface) {
  llvm::StringMap<std::string> entries;
  for (const Function &fn : interface.functions)
    entries["_mlir_" + fn.signature.name] = fn.symbol;
  std::vector<llvm::Function *> unused;
  for (llvm::Function &f : module) {
    if (f.isDeclaration())
      continue;
    auto it = entries.find(f.getName());
    if (it != entries.end()) {
      f.setName(it->second);
      f.setLinkage(llvm::GlobalValue::ExternalLinkage);
      f.setVisibility(llvm::GlobalValue::DefaultVisibility);
    } else if (f.getName().starts_with("_mlir_")) {
      unused.push_back(&f); // the packed wrapper of a private function
    } else {
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
    }
  }
  for (llvm::Function *f : unused)
    f->eraseFromParent();
  for (llvm::GlobalVariable &g : module.globals())
    if (!g.isDeclaration())
      g.setLinkage(llvm::GlobalValue::InternalLinkage);

  llvm::LLVMContext &ctx = module.getContext();
  for (size_t i = 0; i < interface.variables.size(); ++i) {
    const std::vector<uint8_t> &bytes = interface.variables[i].initialValue;
    llvm::Constant *init = llvm::ConstantDataArray::get(ctx, bytes);
    auto *global = new llvm::GlobalVariable(
        module, init->getType(), /*isConstant=*/true,
        llvm::GlobalValue::ExternalLinkage, init, interface.variableSymbols[i]);
    global->setAlignment(llvm::Align(64));
  }
}

/// Renames generated code's calls of the C functions the JIT resolves to
/// its process or its runtime's table (fnc's allocator; MLIR's runner
/// utilities; the OpenMP entry points of parallel loops) to fnc's runtime.
/// Runs after optimization: LLVM knows `malloc` and `free` by name.
llvm::Error renameHostCalls(llvm::Module &module) {
  static const std::pair<const char *, const char *> renames[] = {
      {"malloc", "fncMalloc"},
      {"calloc", "fncCalloc"},
      {"free", "fncFree"},
      {"memrefCopy", "fncMemrefCopy"},
  };
  std::vector<std::pair<const char *, const char *>> all(std::begin(renames),
                                                         std::end(renames));
  // Parallel loops run on the runtime's pool, not libomp.
  for (const runtime::ParallelEntry &e : runtime::parallelEntries())
    all.emplace_back(e.openmpName, e.name);
  for (auto [from, to] : all) {
    llvm::Function *f = module.getFunction(from);
    if (!f)
      continue;
    if (llvm::Function *existing = module.getFunction(to)) {
      f->replaceAllUsesWith(existing);
      f->eraseFromParent();
    } else {
      f->setName(to);
    }
  }
  // The runtime's functions, by the names generated code calls them.
  llvm::StringSet<> runtime;
  for (const auto &[name, address] : runtime::symbols())
    runtime.insert(name);
  for (llvm::Function &f : module) {
    if (!f.isDeclaration() || f.isIntrinsic() || f.use_empty())
      continue;
    llvm::StringRef name = f.getName();
    // MLIR's C interfaces and runner utilities (printMemref*, print*, ...)
    // live in libmlir_c_runner_utils, which links libMLIR and libLLVM.
    if ((name.starts_with("_mlir_") && !runtime.count(name)) ||
        name.starts_with("printMemref") || name.starts_with("verifyMemRef"))
      return makeError("the generated code calls " + name +
                       " of MLIR's runner utilities, which code compiled "
                       "ahead of time cannot use (it would need libMLIR)");
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// The header
//===----------------------------------------------------------------------===//

/// The C++ spelling of `dtype`: its enumerator is MLIR's element name.
std::string dtypeSpelling(DType dtype) {
  return std::string("fnc::DType::") + mlirElementName(dtype);
}

/// Emits the static tables of fnc::aot::ModuleInfo into `os` (inside the
/// class's info()).
class TableWriter {
public:
  explicit TableWriter(llvm::raw_ostream &os) : os_(os) {}

  /// `{dtype, rank, shape}`, declaring the shape array first.
  std::string type(const TensorType &type) {
    std::string shape = "nullptr";
    if (!type.shape.empty()) {
      shape = "s" + std::to_string(next_++);
      os_ << "    static const int64_t " << shape << "[] = {";
      for (size_t i = 0; i < type.shape.size(); ++i) {
        os_ << (i ? ", " : "");
        if (type.shape[i] == TensorType::kDynamic)
          os_ << "fnc::aot::kDynamic";
        else
          os_ << type.shape[i];
      }
      os_ << "};\n";
    }
    return "{" + dtypeSpelling(type.dtype) + ", " +
           std::to_string(type.shape.size()) + ", " + shape + "}";
  }

  /// Declares `static const T name[] = {items}` (or nothing, returning
  /// "nullptr", when there are no items).
  std::string array(const char *type, const std::vector<std::string> &items) {
    if (items.empty())
      return "nullptr";
    std::string name = "t" + std::to_string(next_++);
    os_ << "    static const " << type << " " << name << "[] = {\n";
    for (const std::string &item : items)
      os_ << "        " << item << ",\n";
    os_ << "    };\n";
    return name;
  }

private:
  llvm::raw_ostream &os_;
  int next_ = 0;
};

std::string headerGuard(const CompileOptions &options) {
  std::string guard = "FNC_AOT_";
  for (llvm::StringRef part : llvm::split(options.cppNamespace, "::"))
    if (!part.empty())
      guard += part.upper() + "_";
  return guard + llvm::StringRef(options.className).upper() + "_H";
}

std::string writeHeader(const Interface &interface,
                        const CompileOptions &options, const std::string &cpu) {
  std::string text;
  llvm::raw_string_ostream os(text);
  const std::string &cls = options.className;
  std::string guard = headerGuard(options);
  os << "// Generated by fnc-compile from "
     << (options.source.empty() ? "a module" : options.source)
     << " for the CPU\n// " << cpu << ". Do not edit.\n"
     << "//\n"
     << "// class " << cls
     << ": the module's public functions as member functions and its\n"
     << "// variables as get_NAME()/set_NAME(); each instance holds its own\n"
     << "// variables (docs/AOT.md). Link the object compiled with this\n"
     << "// header and fnc's runtime library (CMake: fnc::runtime).\n\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include <fnc/AOT.h>\n\n#include <tuple>\n#include <utility>\n\n";

  os << "extern \"C\" {\n";
  for (const Function &fn : interface.functions)
    os << "void " << fn.symbol << "(void **);\n";
  for (const std::string &symbol : interface.variableSymbols)
    os << "extern const unsigned char " << symbol << "[];\n";
  os << "}\n\n";
  if (!options.cppNamespace.empty())
    os << "namespace " << options.cppNamespace << " {\n\n";

  os << "class " << cls << " {\npublic:\n"
     << "  /// A new instance: every variable at its initial value.\n"
     << "  " << cls << "() : instance_(info()) {}\n";

  for (size_t f = 0; f < interface.functions.size(); ++f) {
    const Function &fn = interface.functions[f];
    const Signature &sig = fn.signature;
    std::string params, passed;
    for (size_t i = 0; i < fn.args.size(); ++i) {
      if (llvm::StringRef(fn.args[i].kind) == "BoundVariable")
        continue;
      bool inout = llvm::StringRef(fn.args[i].kind) == "Variable";
      params += std::string(params.empty() ? "" : ", ") +
                (inout ? "fnc::Tensor &" : "const fnc::Tensor &") + "arg" +
                std::to_string(i);
      passed +=
          std::string(passed.empty() ? "" : ", ") + "arg" + std::to_string(i);
    }
    os << "\n  /// " << sig.str() << "\n";
    for (size_t i = 0; i < fn.args.size(); ++i)
      if (llvm::StringRef(fn.args[i].kind) == "BoundVariable")
        os << "  /// (argument #" << i << " is the variable @"
           << sig.args[i].boundTo << ")\n";
      else if (llvm::StringRef(fn.args[i].kind) == "Variable")
        os << "  /// (arg" << i
           << " is a variable: the call replaces it by its new value)\n";
    std::string call =
        "instance_.call(" + std::to_string(f) + ", {" + passed + "})";
    size_t results = sig.results.size();
    if (results == 0) {
      os << "  void " << sig.name << "(" << params << ") { " << call << "; }\n";
    } else if (results == 1) {
      os << "  fnc::Tensor " << sig.name << "(" << params << ") {\n"
         << "    return std::move(" << call << "[0]);\n  }\n";
    } else {
      std::string tuple = "std::tuple<";
      std::string moved;
      for (size_t r = 0; r < results; ++r) {
        tuple += std::string(r ? ", " : "") + "fnc::Tensor";
        moved += std::string(r ? ", " : "") + "std::move(r[" +
                 std::to_string(r) + "])";
      }
      tuple += ">";
      os << "  " << tuple << " " << sig.name << "(" << params << ") {\n"
         << "    auto r = " << call << ";\n"
         << "    return " << tuple << "(" << moved << ");\n  }\n";
    }
  }

  for (size_t v = 0; v < interface.variables.size(); ++v) {
    const GlobalVariable &var = interface.variables[v];
    const std::string &member = interface.variableMembers[v];
    os << "\n  /// The variable @" << var.name << ": " << var.type.str()
       << ".\n"
       << "  fnc::Tensor get_" << member
       << "() const { return instance_.read(" << v << "); }\n"
       << "  void set_" << member
       << "(const fnc::Tensor &value) { instance_.assign(" << v
       << ", value); }\n";
  }

  os << "\n  /// The instance underneath (calls by index, the variables).\n"
     << "  fnc::aot::Instance &instance() { return instance_; }\n"
     << "  const fnc::aot::Instance &instance() const { return instance_; "
        "}\n\n"
     << "  /// The module's functions and variables.\n"
     << "  static const fnc::aot::ModuleInfo &info() {\n";
  TableWriter tables(os);
  std::vector<std::string> functions;
  for (const Function &fn : interface.functions) {
    std::vector<std::string> args, results;
    for (const Argument &arg : fn.args)
      args.push_back(std::string("{fnc::aot::ArgKind::") + arg.kind + ", " +
                     tables.type(arg.type) + ", " +
                     std::to_string(arg.variable) + "}");
    for (const TensorType &type : fn.signature.results)
      results.push_back(tables.type(type));
    std::string argTable = tables.array("fnc::aot::ArgInfo", args);
    std::string resultTable = tables.array("fnc::aot::TypeInfo", results);
    functions.push_back("{\"" + fn.signature.name + "\", &" + fn.symbol + ", " +
                        std::to_string(args.size()) + ", " + argTable + ", " +
                        std::to_string(results.size()) + ", " + resultTable +
                        "}");
  }
  std::vector<std::string> variables;
  for (size_t v = 0; v < interface.variables.size(); ++v)
    variables.push_back("{\"" + interface.variables[v].name + "\", " +
                        tables.type(interface.variables[v].type) + ", " +
                        interface.variableSymbols[v] + "}");
  std::string variableTable = tables.array("fnc::aot::VariableInfo", variables);
  std::string functionTable = tables.array("fnc::aot::FunctionInfo", functions);
  os << "    static const fnc::aot::ModuleInfo module = {\"" << cls << "\", \""
     << cpu << "\", " << variables.size() << ", " << variableTable << ", "
     << functions.size() << ", " << functionTable << "};\n"
     << "    return module;\n  }\n\n"
     << "private:\n  fnc::aot::Instance instance_;\n};\n";
  if (!options.cppNamespace.empty())
    os << "\n} // namespace " << options.cppNamespace << "\n";
  os << "\n#endif // " << guard << "\n";
  return text;
}

} // namespace

//===----------------------------------------------------------------------===//
// compile
//===----------------------------------------------------------------------===//

llvm::Expected<Compiled>
fnc::aot::compile(mlir::ModuleOp module,
                  const mlir::fnc::PipelineOptions &pipeline,
                  const CompileOptions &options) {
  if (!isUsableName(options.className))
    return makeError("the class name '" + options.className +
                     "' is not a C++ identifier, is a keyword or is "
                     "reserved; choose another with --class-name");
  if (!options.cppNamespace.empty())
    for (llvm::StringRef part : llvm::split(options.cppNamespace, "::"))
      if (!isUsableName(part))
        return makeError("the namespace '" + options.cppNamespace +
                         "' is not a C++ namespace name such as a::b");
  if (pipeline.stopAfterLinalg)
    return makeError("cannot compile with stop-after-linalg: the pipeline "
                     "must reach the LLVM dialect");

  // The CPU first: a wrong name fails before any work.
  jit::CodeTarget target;
  target.cpu = options.targetCPU;
  target.positionIndependent = true;
  auto tm = jit::createTargetMachine(target, pipeline.optLevel);
  if (!tm)
    return tm.takeError();

  auto interface = readInterface(module, options);
  if (!interface)
    return interface.takeError();

  llvm::LLVMContext context;
  auto llvmModule = jit::lowerToLLVMIR(module, pipeline, context);
  if (!llvmModule)
    return llvmModule.takeError();
  if (jit::embedsHostAddresses(**llvmModule))
    return makeError("the compiled code holds addresses of this process "
                     "(host functions or buffers baked in), which only the "
                     "JIT can run; compile a module that takes them as "
                     "arguments");
  prepareForLinking(**llvmModule, *interface);
  auto object = jit::compileToObject(**llvmModule, **tm, pipeline.optLevel,
                                     /*optimizedIR=*/nullptr, renameHostCalls);
  if (!object)
    return object.takeError();

  Compiled result;
  result.object = (*object)->getBuffer().str();
  result.cpu = options.targetCPU == jit::CodeTarget::kHost
                   ? llvm::sys::getHostCPUName().str() + " (host)"
                   : options.targetCPU;
  result.header = writeHeader(*interface, options, result.cpu);
  return result;
}

llvm::Expected<std::string> fnc::aot::archive(const std::string &object,
                                              const std::string &memberName) {
  std::vector<llvm::NewArchiveMember> members(1);
  members[0].Buf = llvm::MemoryBuffer::getMemBuffer(object, memberName,
                                                    /*RequiresNull=*/false);
  members[0].MemberName = memberName;
  auto buffer = llvm::writeArchiveToBuffer(
      members, llvm::SymtabWritingMode::NormalSymtab,
      llvm::object::Archive::K_GNU, /*Deterministic=*/true, /*Thin=*/false);
  if (!buffer)
    return buffer.takeError();
  return (*buffer)->getBuffer().str();
}
