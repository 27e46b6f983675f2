//===- Engine.cpp - JIT compilation of fnc modules ------------------------===//
//
// Reads the fnc-level signatures of a module, runs the one fnc pipeline on a
// clone, translates it to LLVM IR, optimizes and compiles it for the host
// CPU, and links the objects into memory of the module's own (LinkedCode.h:
// ORC's JITLink, against the runtime's symbols and the process's).
// Every public function is looked up once here, so calls only use cached
// pointers. The objects go through the on-disk compile cache
// (CompileCache.h): a module compiled before, by any process, is linked
// from its stored objects.
//
//===----------------------------------------------------------------------===//

#include "fnc/JIT/Engine.h"
#include "fnc/API/Profile.h"
#include "fnc/Dialect/Fnc/IR/DTypes.h"
#include "fnc/Dialect/Fnc/IR/FncOps.h"
#include "fnc/JIT/LinkedCode.h"
#include "fnc/JIT/ObjectCompiler.h"
#include "fnc/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/SplitModule.h"

#include <chrono>
#include <limits>
#include <thread>

using namespace fnc;
using namespace fnc::jit;
using mlir::fnc::PipelineOptions;

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

static std::optional<TensorType> tensorTypeOf(mlir::Type t) {
  auto ranked = llvm::dyn_cast<mlir::RankedTensorType>(t);
  if (!ranked)
    return std::nullopt;
  std::optional<DType> dtype = mlir::fnc::dtypeOf(ranked.getElementType());
  if (!dtype)
    return std::nullopt;
  TensorType result;
  result.dtype = *dtype;
  // Unknown dims keep their value: TensorType::kDynamic is
  // mlir::ShapedType::kDynamic.
  result.shape.assign(ranked.getShape().begin(), ranked.getShape().end());
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
  mlir::ElementsAttr value = op.getInitialValue();
  auto dense = llvm::dyn_cast<mlir::DenseElementsAttr>(value);
  auto resource = llvm::dyn_cast<mlir::DenseResourceElementsAttr>(value);
  std::optional<TensorType> tt =
      dense || resource ? tensorTypeOf(value.getType()) : std::nullopt;
  if (!tt || !tt->isStatic())
    return makeError("fnc.global_variable @" + global.name +
                     ": the initial value must be a dense (or dense_resource), "
                     "statically shaped tensor of f32, f64, i1, i32 or i64");
  global.type = *tt;
  if (resource) {
    // The blob holds the elements row-major, one byte per i1.
    size_t expected = tt->numElements() * sizeOf(tt->dtype);
    mlir::AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return makeError("fnc.global_variable @" + global.name +
                       ": the dense resource of its initial value is missing "
                       "from the file's dialect_resources section");
    llvm::ArrayRef<char> data = blob->getData();
    if (data.size() != expected)
      return makeError("fnc.global_variable @" + global.name +
                       ": the dense resource of its initial value holds " +
                       llvm::Twine(data.size()) + " bytes; " +
                       tt->str() + " needs " + llvm::Twine(expected));
    global.initialValue.assign(data.begin(), data.end());
    return global;
  }
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
  case DType::str:
    return makeError("fnc.global_variable @" + global.name +
                     ": variables of strings are not compiled");
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
  // One line per diagnostic: the failing op is named by its location, not
  // printed whole after it.
  ctx->printOpOnDiagnostic(false);
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

static llvm::Error checkOptions(const PipelineOptions &options) {
  if (options.optLevel > 3)
    return makeError("opt level must be 0, 1, 2 or 3, not " +
                     llvm::Twine(static_cast<unsigned>(options.optLevel)));
  return llvm::Error::success();
}

/// Translates `module` (after the pipeline) to LLVM IR in `context`.
static llvm::Expected<std::unique_ptr<llvm::Module>>
translate(mlir::ModuleOp module, llvm::LLVMContext &context) {
  DiagnosticCollector diags(module.getContext());
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, context);
  if (!llvmModule)
    return diags.error("translation to LLVM IR failed");
  return std::move(llvmModule);
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

  llvm::LLVMContext llvmContext;
  auto llvmModule = translate(*clone, llvmContext);
  if (!llvmModule)
    return llvmModule.takeError();
  auto tm = createTargetMachine(CodeTarget(), options.optLevel);
  if (!tm)
    return tm.takeError();
  if (llvm::Error err = optimizeModule(**llvmModule, **tm, options.optLevel))
    return std::move(err);
  std::string s;
  llvm::raw_string_ostream os(s);
  (*llvmModule)->print(os, nullptr);
  return s;
}

/// Gives every function with a body a `_mlir_NAME(void **args)` wrapper:
/// args[i] points at the i-th argument, args[n] at the result's storage (the
/// calling convention of mlir::ExecutionEngine's packed functions). Local
/// functions (outlined loop nests and OpenMP regions) get none.
static void addPackedWrappers(llvm::Module &module) {
  llvm::LLVMContext &ctx = module.getContext();
  llvm::IRBuilder<> b(ctx);
  llvm::Type *ptr = b.getPtrTy();
  llvm::SmallVector<llvm::Function *> functions;
  for (llvm::Function &f : module)
    if (!f.isDeclaration() && !f.hasLocalLinkage())
      functions.push_back(&f);
  for (llvm::Function *f : functions) {
    auto *type = llvm::FunctionType::get(b.getVoidTy(), {ptr}, false);
    auto *wrapper = llvm::Function::Create(
        type, llvm::GlobalValue::ExternalLinkage, "_mlir_" + f->getName(),
        module);
    b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", wrapper));
    llvm::Value *list = wrapper->getArg(0);
    llvm::SmallVector<llvm::Value *> args;
    for (llvm::Argument &arg : f->args()) {
      llvm::Value *slot = b.CreateConstGEP1_64(ptr, list, arg.getArgNo());
      args.push_back(b.CreateLoad(arg.getType(), b.CreateLoad(ptr, slot)));
    }
    llvm::Value *result = b.CreateCall(f, args);
    if (!result->getType()->isVoidTy()) {
      llvm::Value *slot = b.CreateConstGEP1_64(ptr, list, f->arg_size());
      b.CreateStore(result, b.CreateLoad(ptr, slot));
    }
    b.CreateRetVoid();
  }
}

llvm::Expected<std::unique_ptr<llvm::Module>>
fnc::jit::lowerToLLVMIR(mlir::ModuleOp module, const PipelineOptions &options,
                        llvm::LLVMContext &context,
                        std::string *llvmDialectIR) {
  mlir::OwningOpRef<mlir::ModuleOp> clone(module.clone());
  if (llvm::Error err = runPipeline(*clone, options, /*linalgOnly=*/false))
    return std::move(err);
  if (llvmDialectIR)
    *llvmDialectIR = print(*clone);
  auto llvmModule = translate(*clone, context);
  if (!llvmModule)
    return llvmModule.takeError();
  addPackedWrappers(**llvmModule);
  return llvmModule;
}

/// Optimizes `module` for the host at `optLevel` and compiles it to an
/// object file with code generation at `codeGenLevel`.
static llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
optimizeAndCompile(llvm::Module &module, unsigned optLevel,
                   unsigned codeGenLevel, std::string *optimizedIR = nullptr) {
  auto tm = createTargetMachine(CodeTarget(), codeGenLevel);
  if (!tm)
    return tm.takeError();
  return compileToObject(module, **tm, optLevel, optimizedIR);
}

/// True if `f` has no loop of its own that runs long: each of its innermost
/// loops calls a function of the module (the outlined loop nests of
/// `-fnc-outline-kernels`) or forks an OpenMP region, so `f` only
/// allocates, fills in descriptors and calls (a call of the runtime, such
/// as an error report on a cold path, does not count). Such glue is most of the
/// instructions of a big module and gains little from LLVM's slower code
/// generation.
static bool isGlue(llvm::Function &f) {
  if (f.isDeclaration())
    return false;
  llvm::DominatorTree dominators(f);
  llvm::LoopInfo loops(dominators);
  for (llvm::Loop *loop : loops.getLoopsInPreorder()) {
    if (!loop->isInnermost())
      continue;
    bool calls = false;
    for (llvm::BasicBlock *block : loop->blocks())
      for (llvm::Instruction &inst : *block)
        if (auto *call = llvm::dyn_cast<llvm::CallBase>(&inst))
          if (llvm::Function *callee = call->getCalledFunction())
            if (!callee->isDeclaration() ||
                callee->getName().starts_with("__kmpc_fork_call"))
              calls = true;
    if (!calls)
      return false;
  }
  return true;
}

/// Moves the glue functions of `module` (isGlue) into a module of their
/// own, which it returns: none if they hold fewer than `minInstructions`
/// instructions (a small glue part costs its thread and the copies more
/// than it saves: the MLP step's LLVM time went from 261-295 to 303-383 ms)
/// or no function is left. Local
/// functions and mutable globals become hidden external symbols first,
/// as llvm::SplitModule makes them, so that each side can reach the
/// other's; constant local globals are copied into both.
static std::unique_ptr<llvm::Module> splitOffGlue(llvm::Module &module,
                                                  size_t minInstructions) {
  llvm::DenseSet<const llvm::Function *> glue;
  size_t kernels = 0, glueInstructions = 0;
  for (llvm::Function &f : module) {
    if (f.isDeclaration())
      continue;
    if (isGlue(f)) {
      glue.insert(&f);
      glueInstructions += f.getInstructionCount();
    } else {
      ++kernels;
    }
  }
  if (glueInstructions < minInstructions || kernels == 0)
    return nullptr;
  auto externalize = [](llvm::GlobalValue &gv) {
    if (!gv.hasLocalLinkage())
      return;
    if (!gv.hasName())
      gv.setName("fnc.split");
    gv.setLinkage(llvm::GlobalValue::ExternalLinkage);
    gv.setVisibility(llvm::GlobalValue::HiddenVisibility);
  };
  for (llvm::Function &f : module)
    if (!f.isDeclaration())
      externalize(f);
  for (llvm::GlobalVariable &gv : module.globals())
    if (!gv.isConstant())
      externalize(gv);
  // Constant local globals are defined on both sides; the rest on one.
  auto owned = [&](const llvm::GlobalValue *gv, bool glueSide) {
    if (auto *f = llvm::dyn_cast<llvm::Function>(gv))
      return glue.contains(f) == glueSide;
    auto *var = llvm::dyn_cast<llvm::GlobalVariable>(gv);
    if (var && var->isConstant() && var->hasLocalLinkage())
      return true;
    return glueSide;
  };
  llvm::ValueToValueMapTy map;
  std::unique_ptr<llvm::Module> glueModule =
      llvm::CloneModule(module, map, [&](const llvm::GlobalValue *gv) {
        return owned(gv, true);
      });
  for (llvm::Function &f : module)
    if (glue.contains(&f))
      f.deleteBody();
  for (llvm::GlobalVariable &gv : module.globals())
    if (!owned(&gv, false))
      gv.setInitializer(nullptr);
  return glueModule;
}

/// Compiles `module` to object files for the JIT. A large module is split:
/// its glue (splitOffGlue) is compiled on its own with LLVM's fast
/// instruction selection and register allocation (CodeGenOptLevel::None;
/// the IR is optimized at `optLevel` all the same), and the rest into as
/// many parts as the machine has cores (llvm::SplitModule externalizes the
/// internal functions one part calls in another, such as OpenMP's outlined
/// regions). The parts are optimized and compiled on threads of their own,
/// each in an LLVMContext of its own (a context is not thread-safe): the
/// bitcode of each part carries it across. LLVM's optimization and code
/// generation are most of the time of a first call. With `optimizedIR`
/// (IR kept for ConcreteFunction::ir), one part.
static llvm::Expected<std::vector<std::unique_ptr<llvm::MemoryBuffer>>>
compileInParts(std::unique_ptr<llvm::Module> module, unsigned optLevel,
               std::string *optimizedIR) {
  // Below this many instructions, splitting costs more than it saves.
  constexpr size_t kMinSplitInstructions = 4000;
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> objects;
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  unsigned parts = std::min(cores, 4u);
  if (optimizedIR || parts == 1 ||
      module->getInstructionCount() < kMinSplitInstructions) {
    auto object = optimizeAndCompile(*module, optLevel, optLevel, optimizedIR);
    if (!object)
      return object.takeError();
    objects.push_back(std::move(*object));
    return objects;
  }
  /// A part's bitcode and whether it is the glue.
  struct Part {
    llvm::SmallVector<char, 0> bitcode;
    bool glue = false;
  };
  std::vector<Part> bitcode;
  std::unique_ptr<llvm::Module> glue =
      splitOffGlue(*module, kMinSplitInstructions);
  if (glue) {
    bitcode.emplace_back();
    bitcode.back().glue = true;
    llvm::raw_svector_ostream os(bitcode.back().bitcode);
    llvm::WriteBitcodeToFile(*glue, os);
    glue.reset();
  }
  llvm::SplitModule(
      *module, parts,
      [&](std::unique_ptr<llvm::Module> part) {
        bitcode.emplace_back();
        llvm::raw_svector_ostream os(bitcode.back().bitcode);
        llvm::WriteBitcodeToFile(*part, os);
      },
      /*PreserveLocals=*/false, /*RoundRobin=*/true);
  module.reset();
  objects.resize(bitcode.size());
  std::vector<std::string> failures(bitcode.size());
  auto compilePart = [&](size_t i) {
    llvm::LLVMContext context;
    auto part = llvm::parseBitcodeFile(
        llvm::MemoryBufferRef(llvm::StringRef(bitcode[i].bitcode.data(),
                                              bitcode[i].bitcode.size()),
                              "part"),
        context);
    if (!part) {
      failures[i] = llvm::toString(part.takeError());
      return;
    }
    auto object = bitcode[i].glue
                      ? optimizeAndCompile(**part, optLevel, /*codeGenLevel=*/0)
                      : optimizeAndCompile(**part, optLevel, optLevel);
    if (object)
      objects[i] = std::move(*object);
    else
      failures[i] = llvm::toString(object.takeError());
  };
  std::vector<std::thread> threads;
  for (size_t i = 1; i < bitcode.size(); ++i)
    threads.emplace_back(compilePart, i);
  compilePart(0);
  for (std::thread &t : threads)
    t.join();
  std::string errors;
  for (const std::string &failure : failures)
    if (!failure.empty())
      errors += (errors.empty() ? "" : "; ") + failure;
  if (!errors.empty())
    return makeError(errors);
  return objects;
}

//===----------------------------------------------------------------------===//
// CompiledModule
//===----------------------------------------------------------------------===//

CompiledModule::CompiledModule() = default;

CacheKey fnc::jit::compileCacheKey(mlir::ModuleOp module,
                                   const PipelineOptions &options,
                                   const CacheTarget &target) {
  CacheKeyBuilder key;
  // Every flag set explicitly: the defaults follow command-line options of
  // the process (e.g. eliding large constants), and the text must be the
  // same in every process and hold every value.
  mlir::OpPrintingFlags flags;
  flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false)
      .elideLargeElementsAttrs(std::numeric_limits<int64_t>::max())
      .elideLargeResourceString(std::numeric_limits<int64_t>::max())
      .printLargeElementsAttrWithHex(100)
      .printGenericOpForm(false)
      .skipRegions(false)
      .assumeVerified(false)
      .useLocalScope(false)
      .printValueUsers(false)
      .printUniqueSSAIDs(false)
      .printNameLocAsPrefix(false);
  key.addStreamed("module", [&](llvm::raw_ostream &os) {
    module->print(os, flags);
  });
  std::string opts;
  llvm::raw_string_ostream os(opts);
  options.print(os);
  key.add("pipeline-options", opts);
  target.addTo(key);
  return key.finish();
}

llvm::Error CompiledModule::link(ObjectFiles objects) {
  profile::Span span("compile", "link");
  size_t count = objects.size();
  auto code = LinkedCode::link(std::move(objects));
  if (!code)
    return makeError("JIT compilation failed: " +
                     llvm::toString(code.takeError()));
  // Every entry is looked up now, so a call only uses the cached pointer.
  for (auto &entry : entries_) {
    void *fn = (*code)->lookup("_mlir_" + entry->signature_.name);
    if (!fn) {
      for (auto &e : entries_)
        e->fn_ = nullptr;
      return makeError("JIT compilation of @" + entry->signature_.name +
                       " failed: its code has no symbol _mlir_" +
                       entry->signature_.name);
    }
    entry->fn_ = reinterpret_cast<void (*)(void **)>(fn);
  }
  code_ = std::move(*code);
  objectCount_ = count;
  return llvm::Error::success();
}

CompiledModule::~CompiledModule() = default;

/// Copies of `objects`.
static ObjectFiles copiesOf(const ObjectFiles &objects) {
  ObjectFiles copies;
  for (const auto &object : objects)
    copies.push_back(
        llvm::MemoryBuffer::getMemBufferCopy(object->getBuffer(), "object"));
  return copies;
}

static size_t slotsOf(const TensorType &type) {
  return 3 + 2 * type.shape.size();
}

void CompiledModule::addEntry(Signature signature) {
  auto entry = std::make_unique<Entry>();
  entry->signature_ = std::move(signature);
  for (const ArgSpec &arg : entry->signature_.args)
    entry->argSlots_ += slotsOf(arg.type);
  for (const TensorType &type : entry->signature_.results)
    entry->resultSlots_ += slotsOf(type);
  entries_.push_back(std::move(entry));
}

llvm::Expected<std::unique_ptr<CompiledModule>>
CompiledModule::fromObjects(ObjectFiles objects,
                            std::vector<Signature> signatures) {
  auto start = std::chrono::steady_clock::now();
  std::unique_ptr<CompiledModule> result(new CompiledModule());
  for (Signature &signature : signatures)
    result->addEntry(std::move(signature));
  if (llvm::Error err = result->link(std::move(objects)))
    return std::move(err);
  result->fromCache_ = true;
  result->compileSeconds_ =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return std::move(result);
}

llvm::Expected<std::unique_ptr<CompiledModule>>
CompiledModule::compile(mlir::ModuleOp module, const PipelineOptions &options,
                        bool keepIR, const CacheDirectory &cacheDir,
                        const StoreAs *storeAs, ObjectFiles *keepObjects) {
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
    result->addEntry(std::move(*sig));
  }
  llvm::Expected<std::vector<GlobalVariable>> globals = readGlobals(module);
  if (!globals)
    return globals.takeError();
  result->globals_ = std::move(*globals);

  auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  CompileCache *cache = CompileCache::get(cacheDir);
  std::optional<CacheKey> key;
  if (cache)
    key = storeAs ? storeAs->key : compileCacheKey(module, options);
  if (cache && !keepIR && !storeAs) {
    profile::Span span("compile", "compile cache lookup");
    std::optional<CacheEntry> cached = cache->load(*key);
    span.arg("result", cached ? "hit" : "miss");
    if (cached) {
      ObjectFiles copies =
          keepObjects ? copiesOf(cached->objects) : ObjectFiles();
      llvm::Error err = result->link(std::move(cached->objects));
      if (!err) {
        if (keepObjects)
          *keepObjects = std::move(copies);
        result->fromCache_ = true;
        result->compileSeconds_ = seconds();
        return std::move(result);
      }
      cache->reject(*key,
                    "it does not link: " + llvm::toString(std::move(err)));
    }
  }

  if (keepIR) {
    result->ir_[static_cast<int>(Stage::Fnc)] = print(module);
    llvm::Expected<std::string> linalg =
        emitStage(module, options, Stage::Linalg);
    if (!linalg)
      return linalg.takeError();
    result->ir_[static_cast<int>(Stage::Linalg)] = std::move(*linalg);
  }

  // LLVM IR, optimized for the host, compiled to object files.
  double phaseStart = seconds();
  llvm::LLVMContext llvmContext;
  profile::Span mlirSpan("compile", "MLIR passes");
  auto lowered = lowerToLLVMIR(
      module, options, llvmContext,
      keepIR ? &result->ir_[static_cast<int>(Stage::LLVMDialect)] : nullptr);
  if (!lowered)
    return lowered.takeError();
  std::unique_ptr<llvm::Module> llvmModule = std::move(*lowered);

  bool storable = cache && !embedsHostAddresses(*llvmModule);
  std::string *optimizedIR =
      keepIR ? &result->ir_[static_cast<int>(Stage::LLVMIR)] : nullptr;
  result->phases_.mlir = seconds() - phaseStart;
  mlirSpan.end();
  phaseStart = seconds();
  profile::Span llvmSpan("compile", "LLVM optimization and codegen");
  auto objects =
      compileInParts(std::move(llvmModule), options.optLevel, optimizedIR);
  if (!objects)
    return makeError("JIT compilation failed: " +
                     llvm::toString(objects.takeError()));
  result->phases_.llvm = seconds() - phaseStart;
  llvmSpan.end();

  // Encoded before linking takes the objects; stored once they linked.
  std::string entry;
  if (storable) {
    std::vector<llvm::MemoryBufferRef> refs;
    for (const auto &object : *objects)
      refs.push_back(object->getMemBufferRef());
    entry = CompileCache::encode(*key, refs,
                                 storeAs ? storeAs->notes : llvm::StringRef());
    if (keepObjects)
      *keepObjects = copiesOf(*objects);
  }
  phaseStart = seconds();
  if (llvm::Error err = result->link(std::move(*objects)))
    return std::move(err);
  result->phases_.link = seconds() - phaseStart;
  if (storable)
    cache->store(*key, entry);
  result->compileSeconds_ = seconds();
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
