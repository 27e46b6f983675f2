//===- Engine.cpp - JIT compilation of fnc modules ------------------------===//
//
// Reads the fnc-level signatures of a module, runs the one fnc pipeline on a
// clone, translates it to LLVM IR and hands it to mlir::ExecutionEngine
// with a host-tuned TargetMachine, the runtime's symbols and libomp. Every
// public function is looked up once here, so the lazy JIT compiles
// everything inside compile() and calls only use cached pointers.
//
//===----------------------------------------------------------------------===//

#include "fnc/JIT/Engine.h"
#include "fnc/Dialect/Fnc/IR/FncOps.h"
#include "fnc/Pipelines/Pipelines.h"
#include "fnc/Runtime/Runtime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"

#include <chrono>
#include <mutex>

using namespace fnc;
using namespace fnc::jit;
using mlir::fnc::PipelineOptions;

/// Where Debian's libomp-22-dev puts the OpenMP runtime.
static const char kLibOmp[] = "/usr/lib/llvm-22/lib/libomp.so";
/// MLIR's C runner utilities (memrefCopy for strided copies), from
/// libmlir-22-dev.
static const char kLibRunnerUtils[] =
    "/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so";

//===----------------------------------------------------------------------===//
// Signatures
//===----------------------------------------------------------------------===//

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

static std::string typeString(mlir::Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

static std::optional<DType> elementDType(mlir::Type t) {
  if (t.isF32())
    return DType::f32;
  if (t.isF64())
    return DType::f64;
  if (t.isSignlessInteger(1))
    return DType::i1;
  if (t.isSignlessInteger(32))
    return DType::i32;
  if (t.isSignlessInteger(64))
    return DType::i64;
  return std::nullopt;
}

static std::optional<TensorType> tensorTypeOf(mlir::Type t) {
  auto ranked = llvm::dyn_cast<mlir::RankedTensorType>(t);
  if (!ranked)
    return std::nullopt;
  std::optional<DType> dtype = elementDType(ranked.getElementType());
  if (!dtype)
    return std::nullopt;
  TensorType result;
  result.dtype = *dtype;
  for (int64_t d : ranked.getShape())
    result.shape.push_back(mlir::ShapedType::isDynamic(d) ? TensorType::kDynamic
                                                          : d);
  return result;
}

/// The signature of `func`, or the reason fnc cannot call it.
static llvm::Expected<Signature> signatureOf(mlir::func::FuncOp func) {
  Signature sig;
  sig.name = func.getSymName().str();
  mlir::FunctionType type = func.getFunctionType();
  for (unsigned i = 0; i < type.getNumInputs(); ++i) {
    mlir::Type t = type.getInput(i);
    ArgSpec arg;
    if (auto var = llvm::dyn_cast<mlir::fnc::VariableType>(t)) {
      arg.kind = ArgKind::Variable;
      t = var.getValueType();
      if (auto bind =
              func.getArgAttrOfType<mlir::FlatSymbolRefAttr>(i, "fnc.bind"))
        arg.boundTo = bind.getValue().str();
    }
    std::optional<TensorType> tt = tensorTypeOf(t);
    if (!tt)
      return makeError("argument #" + llvm::Twine(i) + " of @" + sig.name +
                       " has type " + typeString(type.getInput(i)) +
                       "; entry functions take ranked tensors of f32, f64, "
                       "i1, i32 or i64, or !fnc.variable of those");
    arg.type = *tt;
    sig.args.push_back(std::move(arg));
  }
  for (unsigned i = 0; i < type.getNumResults(); ++i) {
    std::optional<TensorType> tt = tensorTypeOf(type.getResult(i));
    if (!tt)
      return makeError("result #" + llvm::Twine(i) + " of @" + sig.name +
                       " has type " + typeString(type.getResult(i)) +
                       "; entry functions return ranked tensors of f32, f64, "
                       "i1, i32 or i64");
    sig.results.push_back(*tt);
  }
  return sig;
}

static bool isEntry(mlir::func::FuncOp func) {
  return func.isPublic() && !func.isExternal();
}

llvm::Expected<std::vector<Signature>>
fnc::jit::readSignatures(mlir::ModuleOp module) {
  std::vector<Signature> sigs;
  for (auto func : module.getOps<mlir::func::FuncOp>()) {
    if (!isEntry(func))
      continue;
    llvm::Expected<Signature> sig = signatureOf(func);
    if (!sig)
      return sig.takeError();
    sigs.push_back(std::move(*sig));
  }
  return sigs;
}

llvm::Expected<Signature> fnc::jit::readSignature(mlir::ModuleOp module,
                                                  llvm::StringRef name) {
  for (auto func : module.getOps<mlir::func::FuncOp>())
    if (isEntry(func) && func.getSymName() == name)
      return signatureOf(func);
  return makeError("no public function @" + name + " in the module");
}

std::vector<std::string> fnc::jit::publicFunctions(mlir::ModuleOp module) {
  std::vector<std::string> names;
  for (auto func : module.getOps<mlir::func::FuncOp>())
    if (isEntry(func))
      names.push_back(func.getSymName().str());
  return names;
}

template <typename T>
static void appendValues(mlir::DenseElementsAttr attr,
                         std::vector<uint8_t> &out) {
  for (T v : attr.getValues<T>()) {
    const uint8_t *p = reinterpret_cast<const uint8_t *>(&v);
    out.insert(out.end(), p, p + sizeof(T));
  }
}

static llvm::Expected<GlobalVariable>
readGlobal(mlir::fnc::GlobalVariableOp op) {
  GlobalVariable global;
  global.name = op.getSymName().str();
  auto dense = llvm::dyn_cast<mlir::DenseElementsAttr>(op.getInitialValue());
  std::optional<TensorType> tt =
      dense ? tensorTypeOf(dense.getType()) : std::nullopt;
  if (!tt || !tt->isStatic())
    return makeError("fnc.global_variable @" + global.name +
                     ": the initial value must be a dense, statically shaped "
                     "tensor of f32, f64, i1, i32 or i64");
  global.type = *tt;
  switch (tt->dtype) {
  case DType::f32:
    appendValues<float>(dense, global.initialValue);
    break;
  case DType::f64:
    appendValues<double>(dense, global.initialValue);
    break;
  case DType::i1:
    for (bool b : dense.getValues<bool>())
      global.initialValue.push_back(b ? 1 : 0);
    break;
  case DType::i32:
    appendValues<int32_t>(dense, global.initialValue);
    break;
  case DType::i64:
    appendValues<int64_t>(dense, global.initialValue);
    break;
  }
  return global;
}

llvm::Expected<std::vector<GlobalVariable>>
fnc::jit::readGlobals(mlir::ModuleOp module) {
  std::vector<GlobalVariable> globals;
  for (auto op : module.getOps<mlir::fnc::GlobalVariableOp>()) {
    llvm::Expected<GlobalVariable> global = readGlobal(op);
    if (!global)
      return global.takeError();
    globals.push_back(std::move(*global));
  }
  return globals;
}

//===----------------------------------------------------------------------===//
// Pipeline
//===----------------------------------------------------------------------===//

namespace {
/// Collects the diagnostics emitted while alive as "file:line:col: error:
/// message" lines, so that they can travel in an llvm::Error.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(mlir::MLIRContext *ctx)
      : handler_(ctx, [this](mlir::Diagnostic &diag) {
          append(diag);
          for (mlir::Diagnostic &note : diag.getNotes())
            append(note);
          return mlir::success();
        }) {}

  llvm::Error error(const llvm::Twine &what) const {
    std::string message = what.str();
    if (!text_.empty())
      message += ":\n" + text_;
    while (!message.empty() && message.back() == '\n')
      message.pop_back();
    return makeError(message);
  }

private:
  void append(mlir::Diagnostic &diag) {
    std::string loc;
    if (auto file = llvm::dyn_cast<mlir::FileLineColLoc>(diag.getLocation()))
      loc = (file.getFilename().str() + ":" + std::to_string(file.getLine()) +
             ":" + std::to_string(file.getColumn()) + ": ");
    const char *severity = "error";
    if (diag.getSeverity() == mlir::DiagnosticSeverity::Note)
      severity = "note";
    else if (diag.getSeverity() == mlir::DiagnosticSeverity::Warning)
      severity = "warning";
    else if (diag.getSeverity() == mlir::DiagnosticSeverity::Remark)
      severity = "remark";
    text_ += loc + severity + ": " + diag.str() + "\n";
  }

  std::string text_;
  mlir::ScopedDiagnosticHandler handler_;
};
} // namespace

static void ensureRegistered(mlir::MLIRContext *ctx) {
  mlir::DialectRegistry registry;
  mlir::fnc::registerPipelineDialects(registry);
  ctx->appendDialectRegistry(registry);
}

static void initializeLLVM() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

static std::string print(mlir::Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  op->print(os);
  return s;
}

/// Runs the pipeline (with `stopAfterLinalg` forced to `linalgOnly`) on
/// `module` in place.
static llvm::Error runPipeline(mlir::ModuleOp module,
                               const PipelineOptions &options,
                               bool linalgOnly) {
  mlir::MLIRContext *ctx = module.getContext();
  ensureRegistered(ctx);
  PipelineOptions opts;
  opts.copyOptionValuesFrom(options);
  opts.stopAfterLinalg = linalgOnly;
  DiagnosticCollector diags(ctx);
  mlir::PassManager pm = mlir::PassManager::on<mlir::ModuleOp>(ctx);
  mlir::fnc::buildFncPipeline(pm, opts);
  if (mlir::failed(pm.run(module)))
    return diags.error("the fnc pipeline failed");
  // Global variables are host-side declarations: the runner passes their
  // buffers. Whatever the lowering left of them has no code to generate.
  for (auto global :
       llvm::make_early_inc_range(module.getOps<mlir::fnc::GlobalVariableOp>()))
    global.erase();
  return llvm::Error::success();
}

static llvm::CodeGenOptLevel codeGenLevel(unsigned optLevel) {
  switch (optLevel) {
  case 0:
    return llvm::CodeGenOptLevel::None;
  case 1:
    return llvm::CodeGenOptLevel::Less;
  case 2:
    return llvm::CodeGenOptLevel::Default;
  default:
    return llvm::CodeGenOptLevel::Aggressive;
  }
}

/// A TargetMachine for the host CPU and all its features.
static llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
hostTargetMachine(unsigned optLevel) {
  initializeLLVM();
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return builder.takeError();
  builder->setCodeGenOptLevel(codeGenLevel(optLevel));
  return builder->createTargetMachine();
}

static llvm::Error checkOptions(const PipelineOptions &options) {
  if (options.optLevel > 3)
    return makeError("opt level must be 0, 1, 2 or 3, not " +
                     llvm::Twine(static_cast<unsigned>(options.optLevel)));
  return llvm::Error::success();
}

llvm::Expected<std::string> fnc::jit::emitStage(mlir::ModuleOp module,
                                                const PipelineOptions &options,
                                                Stage stage) {
  if (stage == Stage::Fnc)
    return print(module);
  if (llvm::Error err = checkOptions(options))
    return std::move(err);
  mlir::OwningOpRef<mlir::ModuleOp> clone(module.clone());
  if (llvm::Error err =
          runPipeline(*clone, options, /*linalgOnly=*/stage == Stage::Linalg))
    return std::move(err);
  if (stage != Stage::LLVMIR)
    return print(*clone);

  auto tm = hostTargetMachine(options.optLevel);
  if (!tm)
    return tm.takeError();
  llvm::LLVMContext llvmContext;
  DiagnosticCollector diags(module.getContext());
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(*clone, llvmContext);
  if (!llvmModule)
    return diags.error("translation to LLVM IR failed");
  mlir::ExecutionEngine::setupTargetTripleAndDataLayout(llvmModule.get(),
                                                        tm->get());
  auto optimize =
      mlir::makeOptimizingTransformer(options.optLevel, 0, tm->get());
  if (llvm::Error err = optimize(llvmModule.get()))
    return std::move(err);
  std::string s;
  llvm::raw_string_ostream os(s);
  llvmModule->print(os, nullptr);
  return s;
}

//===----------------------------------------------------------------------===//
// CompiledModule
//===----------------------------------------------------------------------===//

CompiledModule::CompiledModule() = default;
CompiledModule::~CompiledModule() = default;

static size_t slotsOf(const TensorType &type) {
  return 3 + 2 * type.shape.size();
}

llvm::Expected<std::unique_ptr<CompiledModule>>
CompiledModule::compile(mlir::ModuleOp module, const PipelineOptions &options,
                        bool keepIR) {
  auto start = std::chrono::steady_clock::now();
  if (llvm::Error err = checkOptions(options))
    return std::move(err);
  if (options.stopAfterLinalg)
    return makeError("cannot JIT-compile with stop-after-linalg: the "
                     "pipeline must reach the LLVM dialect");
  std::unique_ptr<CompiledModule> result(new CompiledModule());

  // Signatures and globals come from the fnc-level module.
  for (auto func : module.getOps<mlir::func::FuncOp>()) {
    if (!isEntry(func))
      continue;
    llvm::Expected<Signature> sig = signatureOf(func);
    if (!sig) {
      result->unsupported_.emplace_back(func.getSymName().str(),
                                        llvm::toString(sig.takeError()));
      continue;
    }
    auto entry = std::make_unique<Entry>();
    entry->signature_ = std::move(*sig);
    for (const ArgSpec &arg : entry->signature_.args)
      entry->argSlots_ += slotsOf(arg.type);
    for (const TensorType &type : entry->signature_.results)
      entry->resultSlots_ += slotsOf(type);
    result->entries_.push_back(std::move(entry));
  }
  llvm::Expected<std::vector<GlobalVariable>> globals = readGlobals(module);
  if (!globals)
    return globals.takeError();
  result->globals_ = std::move(*globals);

  if (keepIR) {
    result->ir_[static_cast<int>(Stage::Fnc)] = print(module);
    llvm::Expected<std::string> linalg =
        emitStage(module, options, Stage::Linalg);
    if (!linalg)
      return linalg.takeError();
    result->ir_[static_cast<int>(Stage::Linalg)] = std::move(*linalg);
  }

  mlir::OwningOpRef<mlir::ModuleOp> clone(module.clone());
  if (llvm::Error err = runPipeline(*clone, options, /*linalgOnly=*/false))
    return std::move(err);
  if (keepIR)
    result->ir_[static_cast<int>(Stage::LLVMDialect)] = print(*clone);

  auto tm = hostTargetMachine(options.optLevel);
  if (!tm)
    return tm.takeError();
  // The engine keeps `tm` alive (it compiles with it), so the optimizer may
  // point at it.
  auto optimize =
      mlir::makeOptimizingTransformer(options.optLevel, 0, tm->get());
  CompiledModule *self = result.get();
  result->transformer_ = [optimize, keepIR,
                          self](llvm::Module *m) -> llvm::Error {
    if (llvm::Error err = optimize(m))
      return err;
    if (keepIR) {
      std::string &text = self->ir_[static_cast<int>(Stage::LLVMIR)];
      llvm::raw_string_ostream os(text);
      m->print(os, nullptr);
    }
    return llvm::Error::success();
  };

  mlir::ExecutionEngineOptions engineOptions;
  engineOptions.transformer = result->transformer_;
  engineOptions.jitCodeGenOptLevel = codeGenLevel(options.optLevel);
  llvm::SmallVector<llvm::StringRef, 2> libs;
  for (const char *lib : {kLibOmp, kLibRunnerUtils})
    if (llvm::sys::fs::exists(lib))
      libs.push_back(lib);
  engineOptions.sharedLibPaths = libs;
  engineOptions.enablePerfNotificationListener = false;

  DiagnosticCollector diags(module.getContext());
  auto engine =
      mlir::ExecutionEngine::create(*clone, engineOptions, std::move(*tm));
  if (!engine) {
    std::string reason = llvm::toString(engine.takeError());
    return diags.error("JIT compilation failed: " + reason);
  }
  result->engine_ = std::move(*engine);
  result->engine_->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap map;
    for (auto &[name, address] : runtime::symbols())
      map[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                             llvm::JITSymbolFlags::Exported};
    return map;
  });
  result->engine_->initialize();

  // Look every entry up now: this is when the lazy JIT compiles.
  for (auto &entry : result->entries_) {
    auto fn = result->engine_->lookupPacked(entry->signature_.name);
    if (!fn)
      return makeError("JIT compilation of @" + entry->signature_.name +
                       " failed: " + llvm::toString(fn.takeError()));
    entry->fn_ = *fn;
  }
  result->compileSeconds_ =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return std::move(result);
}

llvm::Expected<const Entry *>
CompiledModule::lookup(llvm::StringRef name) const {
  for (const auto &entry : entries_)
    if (entry->signature().name == name)
      return entry.get();
  for (const auto &[fn, reason] : unsupported_)
    if (fn == name)
      return makeError("cannot call @" + name + ": " + reason);
  std::string names;
  for (const auto &entry : entries_)
    names += (names.empty() ? "@" : ", @") + entry->signature().name;
  return makeError(
      "no public function @" + name + " in the module" +
      (names.empty() ? std::string(" (it has none)") : "; it has " + names));
}
