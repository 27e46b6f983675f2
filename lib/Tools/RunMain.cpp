//===- RunMain.cpp - The fnc-run driver -----------------------------------===//
//
// Parses the command line and the module, picks the entry function, builds
// its arguments from `--input`s and the module's global variables, runs it
// through the JIT engine (or the interpreter) and prints the results in the
// eager format or saves them as .npy. Every user mistake ends with one
// "fnc-run: error: ..." line on stderr, exit code 1 and no output file.
//
//===----------------------------------------------------------------------===//

#include "fnc/Tools/RunMain.h"
#include "fnc/API/Profile.h"
#include "fnc/IO/Npy.h"
#include "fnc/Interpreter/Interpreter.h"
#include "fnc/JIT/Engine.h"
#include "fnc/Pipelines/ParseGuard.h"
#include "fnc/Pipelines/Pipelines.h"
#include "fnc/Profiler.h"
#include "fnc/Runtime/Runtime.h"
#include "fnc/Tools/ErrorHandlers.h"
#include "fnc/Tools/RunSupport.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <iostream>

using namespace fnc;
using namespace fnc::tools;
namespace cl = llvm::cl;

namespace {

int fail(const llvm::Twine &message) {
  llvm::errs() << "fnc-run: error: " << message << "\n";
  return 1;
}

int fail(llvm::Error err) { return fail(llvm::toString(std::move(err))); }

/// Output files are written to a temporary file next to the target and
/// renamed at the end, so a failed run leaves no partial output behind.
class OutputFiles {
public:
  ~OutputFiles() {
    for (const std::string &tmp : temps_)
      if (!tmp.empty())
        llvm::sys::fs::remove(tmp);
  }

  /// Creates the temporary file of `path`.
  llvm::Error add(const std::string &path) {
    llvm::SmallString<128> model(path);
    model += ".tmp-%%%%%%";
    int fd;
    llvm::SmallString<128> tmp;
    if (std::error_code ec = llvm::sys::fs::createUniqueFile(model, fd, tmp))
      return llvm::createStringError("cannot write '" + path +
                                     "': " + ec.message());
    llvm::sys::Process::SafelyCloseFileDescriptor(fd);
    // Removed on SIGINT/SIGTERM and by the fatal-error handlers too.
    llvm::sys::RemoveFileOnSignal(tmp);
    paths_.push_back(path);
    temps_.push_back(tmp.str().str());
    return llvm::Error::success();
  }

  size_t size() const { return paths_.size(); }

  llvm::Error write(size_t i, const std::string &bytes) {
    std::error_code ec;
    llvm::raw_fd_ostream os(temps_[i], ec);
    if (!ec) {
      os << bytes;
      os.close();
      ec = os.error();
    }
    if (ec)
      return llvm::createStringError("cannot write '" + paths_[i] +
                                     "': " + ec.message());
    return llvm::Error::success();
  }

  /// Renames every temporary file to its target.
  llvm::Error commit() {
    for (size_t i = 0; i < paths_.size(); ++i) {
      if (std::error_code ec = llvm::sys::fs::rename(temps_[i], paths_[i]))
        return llvm::createStringError("cannot write '" + paths_[i] +
                                       "': " + ec.message());
      llvm::sys::DontRemoveFileOnSignal(temps_[i]);
      temps_[i].clear();
    }
    return llvm::Error::success();
  }

private:
  std::vector<std::string> paths_, temps_;
};

/// "file:line:col: message" of the first error diagnostic.
std::string formatDiagnostic(mlir::Diagnostic &diag) {
  std::string loc;
  if (auto file = llvm::dyn_cast<mlir::FileLineColLoc>(diag.getLocation()))
    loc = file.getFilename().str() + ":" + std::to_string(file.getLine()) +
          ":" + std::to_string(file.getColumn()) + ": ";
  return loc + diag.str();
}

std::string formatDuration(double seconds) {
  char buf[64];
  if (seconds < 1e-6)
    snprintf(buf, sizeof(buf), "%.1f ns", seconds * 1e9);
  else if (seconds < 1e-3)
    snprintf(buf, sizeof(buf), "%.3f us", seconds * 1e6);
  else if (seconds < 1)
    snprintf(buf, sizeof(buf), "%.3f ms", seconds * 1e3);
  else
    snprintf(buf, sizeof(buf), "%.3f s", seconds);
  return buf;
}

void printTimes(double compileSeconds, bool fromCache,
                std::vector<double> times) {
  std::sort(times.begin(), times.end());
  double median =
      times.size() % 2
          ? times[times.size() / 2]
          : (times[times.size() / 2 - 1] + times[times.size() / 2]) / 2;
  std::cout << "compile: " << formatDuration(compileSeconds)
            << (fromCache ? " (from the compile cache)" : "") << "\n"
            << "calls: " << times.size() << ", median "
            << formatDuration(median) << ", min "
            << formatDuration(times.front()) << ", max "
            << formatDuration(times.back()) << "\n";
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

/// Reads one `--input` value: a literal or `@file.npy`.
llvm::Error readInput(size_t index, const std::string &spec, HostTensor &out) {
  std::string where = "--input #" + std::to_string(index) + " ('" + spec + "')";
  if (!spec.empty() && spec[0] == '@') {
    std::string path = spec.substr(1);
    auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer)
      return llvm::createStringError(where + ": cannot read '" + path +
                                     "': " + buffer.getError().message());
    llvm::StringRef contents = (*buffer)->getBuffer();
    std::string_view view(contents.data(), contents.size());
    io::NpyHeader header;
    std::string error = io::parseNpyHeader(view.data(), view.size(), header);
    if (error.empty() && header.dtype == DType::str) {
      out.dtype = DType::str;
      error = io::decodeNpyStrings(view, out.shape, out.strings);
    } else if (error.empty()) {
      error = io::decodeNpy(view, out.dtype, out.shape, out.bytes);
    }
    if (!error.empty())
      return llvm::createStringError(where + ": " + error);
    return llvm::Error::success();
  }
  std::string error = parseLiteral(spec, out);
  if (!error.empty())
    return llvm::createStringError(where + ": " + error);
  return llvm::Error::success();
}

/// The inputs of every argument: bound variables from the module's global
/// variables (left empty without `bindGlobals`), the others from `--input`s
/// in order.
llvm::Error buildArguments(const jit::Signature &sig,
                           llvm::ArrayRef<jit::GlobalVariable> globals,
                           llvm::ArrayRef<std::string> inputs,
                           std::vector<HostTensor> &args,
                           bool bindGlobals = true) {
  size_t expected = 0;
  std::string wanted;
  // A literal for the first input that has no --input, as a hint.
  std::string example;
  for (const jit::ArgSpec &arg : sig.args)
    if (arg.boundTo.empty()) {
      wanted += (expected ? ", " : "") + arg.str();
      if (expected++ == inputs.size()) {
        for (int64_t dim : arg.type.shape)
          example += (dim == jit::TensorType::kDynamic ? std::string("1")
                                                       : std::to_string(dim)) +
                     "x";
        example += std::string(mlirElementName(arg.type.dtype)) + "=0";
      }
    }
  if (inputs.size() != expected)
    return llvm::createStringError(
        "@" + sig.name + " takes " + std::to_string(expected) + " input" +
        (expected == 1 ? "" : "s") + (expected ? " (" + wanted + ")" : "") +
        " but " + std::to_string(inputs.size()) + " --input" +
        (inputs.size() == 1 ? " was" : "s were") + " given; " +
        (inputs.size() > expected
             ? std::string("remove the extra --input options")
             : "add one --input per missing input, in order" +
                   (example.empty() ? std::string()
                                    : ": a literal such as --input=" + example +
                                          " (every element 0) or a .npy file, "
                                          "--input=@file.npy")));
  size_t next = 0;
  args.resize(sig.args.size());
  for (size_t i = 0; i < sig.args.size(); ++i) {
    const jit::ArgSpec &arg = sig.args[i];
    HostTensor &t = args[i];
    if (!arg.boundTo.empty() && !bindGlobals)
      continue;
    if (!arg.boundTo.empty()) {
      const jit::GlobalVariable *global = nullptr;
      for (const jit::GlobalVariable &g : globals)
        if (g.name == arg.boundTo)
          global = &g;
      if (!global)
        return llvm::createStringError(
            "argument #" + std::to_string(i) + " of @" + sig.name +
            " is bound to @" + arg.boundTo +
            ", which is not a fnc.global_variable of the module");
      if (!arg.type.accepts(global->type.dtype, global->type.shape))
        return llvm::createStringError("argument #" + std::to_string(i) +
                                       " of @" + sig.name + " (" + arg.str() +
                                       ") is bound to @" + arg.boundTo +
                                       " of type " + global->type.str());
      t.dtype = global->type.dtype;
      t.shape = global->type.shape;
      t.bytes = global->initialValue;
      continue;
    }
    size_t index = next++;
    if (llvm::Error err = readInput(index, inputs[index], t))
      return err;
    if (!arg.type.accepts(t.dtype, t.shape))
      return llvm::createStringError(
          "--input #" + std::to_string(index) + " for argument #" +
          std::to_string(i) + " of @" + sig.name + ": expected " +
          arg.type.str() + ", got " + jit::TensorType::str(t.dtype, t.shape));
  }
  return llvm::Error::success();
}

/// Prints the results or writes them to the output files.
llvm::Error emitResults(llvm::ArrayRef<HostTensor> results,
                        OutputFiles &outputs) {
  if (outputs.size() == 0) {
    for (const HostTensor &r : results)
      std::cout << formatTensor(r.dtype, r.shape, r.data()) << "\n";
    std::cout.flush();
    return llvm::Error::success();
  }
  for (size_t i = 0; i < results.size(); ++i) {
    std::string bytes;
    std::string error = io::encodeNpy(results[i].dtype, results[i].shape,
                                      results[i].data(), bytes);
    if (!error.empty())
      return llvm::createStringError("result #" + std::to_string(i) + ": " +
                                     error);
    if (llvm::Error err = outputs.write(i, bytes))
      return err;
  }
  return outputs.commit();
}

HostTensor copyOf(const jit::Buffer &b) {
  HostTensor t;
  t.dtype = b.dtype();
  t.shape.assign(b.shape().begin(), b.shape().end());
  const uint8_t *p = static_cast<const uint8_t *>(b.data());
  t.bytes.assign(p, p + b.numBytes());
  return t;
}

struct RunConfig {
  std::string entry;
  std::vector<std::string> inputs;
  unsigned benchmark = 0;
  std::optional<uint64_t> seed;
  /// --cache-dir: unset, the environment's cache; empty, none.
  jit::CacheDirectory cacheDir;
};

/// The signature of the entry function, checked against the number of
/// --output files.
llvm::Expected<jit::Signature> entrySignature(mlir::ModuleOp module,
                                              const RunConfig &config,
                                              const OutputFiles &outputs) {
  auto sig = jit::readSignature(module, config.entry);
  if (!sig)
    return llvm::createStringError("cannot call @" + config.entry + ": " +
                                   llvm::toString(sig.takeError()));
  if (outputs.size() && outputs.size() != sig->results.size())
    return llvm::createStringError(
        "@" + sig->name + " returns " + std::to_string(sig->results.size()) +
        " result" + (sig->results.size() == 1 ? "" : "s") + " but " +
        std::to_string(outputs.size()) + " --output" +
        (outputs.size() == 1 ? " was" : "s were") + " given");
  return sig;
}

int runJIT(mlir::ModuleOp module, const mlir::fnc::PipelineOptions &options,
           const RunConfig &config, OutputFiles &outputs) {
  // The arguments are checked before compiling, so mistakes fail fast.
  auto sig = entrySignature(module, config, outputs);
  if (!sig)
    return fail(sig.takeError());
  auto globals = jit::readGlobals(module);
  if (!globals)
    return fail(globals.takeError());
  std::vector<HostTensor> args;
  if (llvm::Error err = buildArguments(*sig, *globals, config.inputs, args))
    return fail(std::move(err));

  auto compiled = jit::CompiledModule::compile(module, options,
                                               /*keepIR=*/false,
                                               config.cacheDir);
  if (!compiled)
    return fail(compiled.takeError());
  auto entry = (*compiled)->lookup(config.entry);
  if (!entry)
    return fail(entry.takeError());
  std::vector<jit::BufferView> views;
  for (HostTensor &a : args)
    views.push_back({a.dtype, a.shape, a.data(), {}});

  if (config.seed)
    runtime::setGlobalSeed(*config.seed);
  std::vector<jit::Buffer> results;
  std::vector<double> times;
  unsigned calls = std::max(1u, config.benchmark);
  for (unsigned i = 0; i < calls; ++i) {
    auto start = std::chrono::steady_clock::now();
    profile::Span span("function", config.entry);
    llvm::Error err = (*entry)->call(views, results);
    span.end();
    times.push_back(secondsSince(start));
    if (err)
      return fail(std::move(err));
  }
  std::vector<HostTensor> hostResults;
  for (const jit::Buffer &b : results)
    hostResults.push_back(copyOf(b));
  if (llvm::Error err = emitResults(hostResults, outputs))
    return fail(std::move(err));
  if (config.benchmark)
    printTimes((*compiled)->compileSeconds(), (*compiled)->fromCache(),
               times);
  return 0;
}

int runInterpreter(mlir::ModuleOp module, const RunConfig &config,
                   OutputFiles &outputs) {
  auto start = std::chrono::steady_clock::now();
  mlir::fnc::InterpreterOptions options;
  if (config.seed)
    options.seed = *config.seed;
  auto interpreter = mlir::fnc::Interpreter::create(module, options);
  if (!interpreter)
    return fail(interpreter.takeError());
  double setupSeconds = secondsSince(start);
  auto sig = entrySignature(module, config, outputs);
  if (!sig)
    return fail(sig.takeError());
  // Bound variables are the interpreter's own; only the others are built.
  std::vector<HostTensor> args;
  if (llvm::Error err = buildArguments(*sig, {}, config.inputs, args,
                                       /*bindGlobals=*/false))
    return fail(std::move(err));
  std::vector<Tensor> tensors;
  std::vector<Tensor> variables;
  for (size_t i = 0; i < sig->args.size(); ++i) {
    const jit::ArgSpec &a = sig->args[i];
    if (!a.boundTo.empty())
      continue;
    Tensor t = toTensor(args[i]);
    if (!t.defined())
      return fail("out of memory building the inputs");
    (a.kind == jit::ArgKind::Variable ? variables : tensors).push_back(t);
  }
  std::vector<Tensor *> variableSlots;
  for (Tensor &v : variables)
    variableSlots.push_back(&v);
  std::vector<double> times;
  std::vector<Tensor> results;
  unsigned calls = std::max(1u, config.benchmark);
  for (unsigned i = 0; i < calls; ++i) {
    auto callStart = std::chrono::steady_clock::now();
    auto r = (*interpreter)->call(config.entry, tensors, variableSlots);
    times.push_back(secondsSince(callStart));
    if (!r)
      return fail(r.takeError());
    results = std::move(*r);
  }
  std::vector<HostTensor> hostResults(results.size());
  for (size_t i = 0; i < results.size(); ++i)
    if (!fromTensor(results[i], hostResults[i]))
      return fail("cannot read result #" + std::to_string(i));
  if (llvm::Error err = emitResults(hostResults, outputs))
    return fail(std::move(err));
  if (config.benchmark)
    printTimes(setupSeconds, /*fromCache=*/false, times);
  return 0;
}

/// What the command line asks for.
struct CommandLine {
  std::string file;
  /// The --entry asked for; empty to choose one (see chooseEntry).
  std::string entry;
  std::vector<std::string> outputs;
  std::optional<jit::Stage> emit;
  bool interpret = false;
  unsigned optLevel = 3;
  bool checkNumerics = false;
  bool fastMath = true;
  unsigned threads = 0;
  /// --profile: the trace file to write.
  std::string profile;
  /// Everything but the entry, which chooseEntry fills in.
  RunConfig run;
};

/// Takes `--threads=N` out of `argv` into `threads`; the other arguments go
/// to `rest`. libLLVM already registers a top-level `--threads`, so ours is
/// taken out of the command line before cl sees it.
llvm::Error takeThreadsOption(int argc, char **argv, unsigned &threads,
                              std::vector<char *> &rest) {
  for (int i = 0; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (i > 0 &&
        (arg.consume_front("--threads=") || arg.consume_front("-threads="))) {
      if (arg.getAsInteger(10, threads))
        return llvm::createStringError(
            "--threads expects a non-negative integer, not '" + arg + "'");
      continue;
    }
    rest.push_back(argv[i]);
  }
  return llvm::Error::success();
}

llvm::Expected<CommandLine> parseCommandLine(int argc, char **argv) {
  static cl::OptionCategory category("fnc-run options");
  static cl::opt<std::string> runFile(cl::Positional, cl::Required,
                                      cl::desc("<module.mlir>"),
                                      cl::cat(category));
  static cl::opt<std::string> runEntry(
      "entry",
      cl::desc("The function to run (default: the only public "
               "function, or @main)"),
      cl::value_desc("name"), cl::cat(category));
  static cl::list<std::string> runInputs(
      "input",
      cl::desc("An argument, in order: 2x3xf32=1,2,3,4,5,6 | f32=2.5 | "
               "i1=true | 3xf32=0 (splat) | @file.npy"),
      cl::value_desc("value"), cl::cat(category));
  static cl::list<std::string> runOutputs(
      "output",
      cl::desc("Write the results to .npy files (one per result, in order) "
               "instead of printing them"),
      cl::value_desc("@file.npy"), cl::cat(category));
  static cl::opt<unsigned> runBenchmark(
      "benchmark",
      cl::desc("Call the function N times and print the compile time and the "
               "median, min and max time per call"),
      cl::value_desc("N"), cl::init(0), cl::cat(category));
  static cl::opt<jit::Stage> runEmit(
      "emit", cl::desc("Print the IR at a stage instead of running"),
      cl::values(
          clEnumValN(jit::Stage::Fnc, "fnc", "the input module"),
          clEnumValN(jit::Stage::Linalg, "linalg",
                     "after lowering to linalg on tensors"),
          clEnumValN(jit::Stage::LLVMDialect, "llvm", "the LLVM dialect"),
          clEnumValN(jit::Stage::LLVMIR, "llvm-ir", "optimized LLVM IR")),
      cl::cat(category));
  static cl::opt<bool> runInterpret(
      "interpret", cl::desc("Run with the reference interpreter, not the JIT"),
      cl::cat(category));
  static cl::opt<unsigned> runOptLevel(
      "opt-level", cl::desc("LLVM optimization level (0-3)"), cl::init(3),
      cl::cat(category));
  static cl::opt<bool> runCheckNumerics(
      "check-numerics",
      cl::desc("Report the first op that produces a NaN or an Inf"),
      cl::cat(category));
  static cl::opt<bool> runFastMath(
      "fast-math",
      cl::desc("Vectorized polynomials for f32 exp, log, tanh, erf, expm1, "
               "log1p (at most 5 ulp from libm) and reassociated float "
               "reductions; --fast-math=false gives libm's results"),
      cl::init(true), cl::cat(category));
  static cl::opt<uint64_t> runSeed(
      "seed", cl::desc("Global seed of the random ops (reproducible runs)"),
      cl::cat(category));
  static cl::opt<std::string> runProfile(
      "profile",
      cl::desc("Write a timeline of the compile and the run, with a span "
               "per kernel, to <file> (Chrome trace-event JSON, for "
               "Perfetto)"),
      cl::value_desc("file"), cl::cat(category));
  static cl::opt<std::string> runCacheDir(
      "cache-dir",
      cl::desc("The compile cache's directory (default: $FNC_CACHE_DIR, "
               "else $XDG_CACHE_HOME/fnc, else ~/.cache/fnc); "
               "--cache-dir= disables the cache"),
      cl::value_desc("dir"), cl::cat(category));

  CommandLine cmd;
  std::vector<char *> args;
  if (llvm::Error err = takeThreadsOption(argc, argv, cmd.threads, args))
    return std::move(err);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      static_cast<int>(args.size()), args.data(),
      "fnc-run: JIT-compile a function of an fnc module and run it\n\n"
      "  --threads=<N>  threads of parallel loops (1: sequential, 0: all "
      "cores)\n");
  if (runOptLevel > 3)
    return llvm::createStringError("--opt-level must be 0, 1, 2 or 3");

  cmd.file = runFile;
  cmd.entry = runEntry;
  cmd.outputs.assign(runOutputs.begin(), runOutputs.end());
  if (runEmit.getNumOccurrences())
    cmd.emit = runEmit.getValue();
  cmd.interpret = runInterpret;
  cmd.optLevel = runOptLevel;
  cmd.checkNumerics = runCheckNumerics;
  cmd.fastMath = runFastMath;
  cmd.profile = runProfile;
  cmd.run.inputs.assign(runInputs.begin(), runInputs.end());
  cmd.run.benchmark = runBenchmark;
  if (runSeed.getNumOccurrences())
    cmd.run.seed = runSeed.getValue();
  if (runCacheDir.getNumOccurrences())
    cmd.run.cacheDir = runCacheDir.getValue();
  return cmd;
}

/// Creates the temporary file of every `--output` (a path or `@path`).
llvm::Error createOutputFiles(llvm::ArrayRef<std::string> specs,
                              OutputFiles &outputs) {
  for (const std::string &out : specs) {
    std::string path = !out.empty() && out[0] == '@' ? out.substr(1) : out;
    if (path.empty())
      return llvm::createStringError(
          "--output needs a file name (--output=@out.npy)");
    if (llvm::Error err = outputs.add(path))
      return err;
  }
  return llvm::Error::success();
}

/// Parses the module in `path`; `firstError` is the first error diagnostic
/// the caller's handler collected, if any.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
parseModule(const std::string &path, mlir::MLIRContext &context,
            const std::string &firstError) {
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      mlir::openInputFile(path, &errorMessage);
  if (!file)
    return llvm::createStringError("cannot open '" + path +
                                   "': " + errorMessage);
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  mlir::ParserConfig parserConfig(&context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::fnc::parseModule(sourceMgr, parserConfig);
  if (!module)
    return llvm::createStringError(
        firstError.empty() ? "cannot parse '" + path + "'" : firstError);
  return module;
}

/// Prints the IR of `module` at `stage` (--emit).
int printStage(mlir::ModuleOp module, const mlir::fnc::PipelineOptions &options,
               jit::Stage stage) {
  auto text = jit::emitStage(module, options, stage);
  if (!text)
    return fail(text.takeError());
  std::cout << *text;
  if (!text->empty() && text->back() != '\n')
    std::cout << "\n";
  std::cout.flush();
  return 0;
}

/// The function to run: --entry, else the only public function, else @main.
llvm::Expected<std::string> chooseEntry(mlir::ModuleOp module,
                                        const std::string &file,
                                        const std::string &requested) {
  std::vector<std::string> publics = jit::publicFunctions(module);
  std::string names;
  for (const std::string &n : publics)
    names += (names.empty() ? "@" : ", @") + n;
  if (!requested.empty()) {
    if (std::find(publics.begin(), publics.end(), requested) == publics.end())
      return llvm::createStringError(
          "no public function @" + requested + " in '" + file + "'" +
          (names.empty() ? "" : "; it has " + names));
    return requested;
  }
  if (publics.size() == 1)
    return publics[0];
  if (std::find(publics.begin(), publics.end(), "main") != publics.end())
    return std::string("main");
  if (publics.empty())
    return llvm::createStringError("'" + file +
                                   "' has no public function to run");
  return llvm::createStringError("'" + file +
                                 "' has several public functions (" + names +
                                 "); choose one with --entry");
}

} // namespace

int fnc::tools::runMain(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  installErrorHandlers("fnc-run");
  llvm::Expected<CommandLine> cmd = parseCommandLine(argc, argv);
  if (!cmd)
    return fail(cmd.takeError());

  // The output files are created first: an unwritable path fails before
  // any work, and nothing is left behind on a later failure.
  OutputFiles outputs;
  if (llvm::Error err = createOutputFiles(cmd->outputs, outputs))
    return fail(std::move(err));
  // --profile: recording from here, written when fnc-run returns.
  struct Profiling {
    ~Profiling() {
      ErrorKind kind;
      std::string error;
      if (profile::enabled() && !profile::stopRecording(kind, error))
        llvm::errs() << "fnc-run: error: " << error << "\n";
    }
  } profiling;
  if (!cmd->profile.empty()) {
    ErrorKind kind;
    std::string error;
    if (!profile::startRecording(cmd->profile, /*kernels=*/true, kind, error))
      return fail(llvm::createStringError(error));
  }

  mlir::DialectRegistry registry;
  mlir::fnc::registerPipelineDialects(registry);
  mlir::MLIRContext context(registry);
  std::string firstError;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    if (d.getSeverity() == mlir::DiagnosticSeverity::Error &&
        firstError.empty())
      firstError = formatDiagnostic(d);
    return mlir::success();
  });
  auto module = parseModule(cmd->file, context, firstError);
  if (!module)
    return fail(module.takeError());

  mlir::fnc::PipelineOptions options;
  options.optLevel = cmd->optLevel;
  options.checkNumerics = cmd->checkNumerics;
  options.threads = cmd->threads;
  options.fastMath = cmd->fastMath;
  options.profileKernels =
      profile::kernelsEnabled(); // --profile or FNC_PROFILE_KERNELS
  if (cmd->emit)
    return printStage(**module, options, *cmd->emit);

  RunConfig &config = cmd->run;
  llvm::Expected<std::string> entry =
      chooseEntry(**module, cmd->file, cmd->entry);
  if (!entry)
    return fail(entry.takeError());
  config.entry = *entry;
  if (cmd->interpret)
    return runInterpreter(**module, config, outputs);
  return runJIT(**module, options, config, outputs);
}
