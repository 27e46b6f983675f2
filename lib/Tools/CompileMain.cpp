//===- CompileMain.cpp - The fnc-compile driver ---------------------------===//
//
// Parses the command line and the module, compiles it with fnc::aot and
// writes the object (or static library) and the header. Both outputs go
// to temporary files next to their targets and are renamed only when both
// are complete, so a failure leaves no output file behind; every failure
// ends with a "fnc-compile: error: ..." line and exit code 1.
//
//===----------------------------------------------------------------------===//

#include "fnc/Tools/CompileMain.h"
#include "fnc/AOT/Compiler.h"
#include "fnc/Pipelines/ParseGuard.h"
#include "fnc/Pipelines/Pipelines.h"
#include "fnc/Tools/ErrorHandlers.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cctype>
#include <optional>

using namespace fnc;
namespace cl = llvm::cl;

namespace {

int fail(const llvm::Twine &message) {
  llvm::errs() << "fnc-compile: error: " << message << "\n";
  return 1;
}

int fail(llvm::Error err) { return fail(llvm::toString(std::move(err))); }

/// An output written to a temporary file next to `path` (removed on
/// failure and on signals) and renamed to `path` by commit().
class Output {
public:
  explicit Output(std::string path) : path_(std::move(path)) {}
  ~Output() {
    if (temp_)
      llvm::consumeError(temp_->discard());
  }

  llvm::Error open() {
    auto temp = llvm::sys::fs::TempFile::create(path_ + ".tmp-%%%%%%");
    if (!temp)
      return llvm::createStringError("cannot write '" + path_ +
                                     "': " + llvm::toString(temp.takeError()));
    temp_.emplace(std::move(*temp));
    return llvm::Error::success();
  }

  llvm::Error write(llvm::StringRef bytes) {
    llvm::raw_fd_ostream os(temp_->FD, /*shouldClose=*/false);
    os << bytes;
    os.flush();
    if (os.has_error())
      return llvm::createStringError("cannot write '" + path_ +
                                     "': " + os.error().message());
    return llvm::Error::success();
  }

  llvm::Error commit() {
    llvm::Error err = temp_->keep(path_);
    temp_.reset();
    if (err)
      return llvm::createStringError("cannot write '" + path_ +
                                     "': " + llvm::toString(std::move(err)));
    return llvm::Error::success();
  }

  const std::string &path() const { return path_; }

private:
  std::string path_;
  std::optional<llvm::sys::fs::TempFile> temp_;
};

/// The default class name: the output file's stem as a C++ identifier.
std::string classNameFor(llvm::StringRef output) {
  std::string name = llvm::sys::path::stem(output).str();
  for (char &c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)))
      c = '_';
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])))
    name = "module_" + name;
  return name;
}

} // namespace

int fnc::tools::compileMain(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  installErrorHandlers("fnc-compile");

  static cl::OptionCategory category("fnc-compile options");
  static cl::opt<std::string> input(cl::Positional, cl::Required,
                                    cl::desc("<module.mlir>"),
                                    cl::cat(category));
  static cl::opt<std::string> output(
      "o", cl::Required,
      cl::desc("The object file to write (a static library if it ends in "
               ".a)"),
      cl::value_desc("file.o|file.a"), cl::cat(category));
  static cl::opt<std::string> header(
      "header",
      cl::desc("The C++ header to write (default: the output with .h)"),
      cl::value_desc("file.h"), cl::cat(category));
  static cl::opt<std::string> className(
      "class-name",
      cl::desc("The generated class, also the prefix of the object's "
               "symbols (default: the output's name)"),
      cl::value_desc("Name"), cl::cat(category));
  static cl::opt<std::string> cppNamespace(
      "namespace", cl::desc("The namespace of the generated class"),
      cl::value_desc("a::b"), cl::cat(category));
  static cl::opt<std::string> targetCPU(
      "target-cpu",
      cl::desc("The CPU to compile for: host (this machine's CPU with all "
               "its features), generic, x86-64-v3, skylake-avx512, ... "
               "(llc-22 -mcpu=help lists them)"),
      cl::value_desc("name"), cl::init("host"), cl::cat(category));
  static cl::opt<unsigned> optLevel("opt-level",
                                    cl::desc("LLVM optimization level (0-3)"),
                                    cl::init(3), cl::cat(category));
  static cl::opt<bool> checkNumerics(
      "check-numerics",
      cl::desc("Report the first op that produces a NaN or an Inf"),
      cl::cat(category));
  static cl::opt<bool> fastMath(
      "fast-math",
      cl::desc("Vectorized polynomials for f32 exp, log, tanh, erf, expm1, "
               "log1p (at most 5 ulp from libm) and reassociated float "
               "reductions; --fast-math=false gives libm's results"),
      cl::init(true), cl::cat(category));
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "fnc-compile: compile an fnc module ahead of time into an object file "
      "and a C++ header\n");

  if (optLevel > 3)
    return fail("--opt-level must be 0, 1, 2 or 3");
  if (output.empty())
    return fail("-o needs a file name (-o model.o)");
  if (targetCPU.empty())
    return fail("--target-cpu needs a CPU name (host, generic, x86-64-v3, "
                "...)");
  std::string headerPath = header;
  if (headerPath.empty()) {
    llvm::SmallString<128> path(output.getValue());
    llvm::sys::path::replace_extension(path, ".h");
    headerPath = path.str().str();
  }
  if (headerPath == output)
    return fail("the header and the object would both be '" + headerPath +
                "'; choose another --header");

  // The outputs' temporary files first: an unwritable path fails before
  // any work.
  Output object(output), headerFile(headerPath);
  if (llvm::Error err = object.open())
    return fail(std::move(err));
  if (llvm::Error err = headerFile.open())
    return fail(std::move(err));

  mlir::DialectRegistry registry;
  mlir::fnc::registerPipelineDialects(registry);
  mlir::MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context,
                                               llvm::errs());
  std::string error;
  auto file = llvm::MemoryBuffer::getFileOrSTDIN(input);
  if (!file)
    return fail("cannot open '" + input + "': " + file.getError().message());
  sourceMgr.AddNewSourceBuffer(std::move(*file), llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::fnc::parseModule(sourceMgr, mlir::ParserConfig(&context));
  if (!module)
    return fail("cannot parse '" + input + "' (the errors are above)");

  mlir::fnc::PipelineOptions pipeline;
  pipeline.optLevel = optLevel;
  pipeline.checkNumerics = checkNumerics;
  pipeline.fastMath = fastMath;
  aot::CompileOptions options;
  options.className =
      className.empty() ? classNameFor(output) : className.getValue();
  options.cppNamespace = cppNamespace;
  options.targetCPU = targetCPU;
  options.source = llvm::sys::path::filename(input).str();
  auto compiled = aot::compile(*module, pipeline, options);
  if (!compiled)
    return fail(compiled.takeError());

  std::string bytes = std::move(compiled->object);
  if (llvm::StringRef(output).ends_with(".a")) {
    auto library =
        aot::archive(bytes, llvm::sys::path::stem(output).str() + ".o");
    if (!library)
      return fail(library.takeError());
    bytes = std::move(*library);
  }
  if (llvm::Error err = object.write(bytes))
    return fail(std::move(err));
  if (llvm::Error err = headerFile.write(compiled->header))
    return fail(std::move(err));
  if (llvm::Error err = headerFile.commit())
    return fail(std::move(err));
  if (llvm::Error err = object.commit()) {
    llvm::sys::fs::remove(headerFile.path());
    return fail(std::move(err));
  }
  return 0;
}
