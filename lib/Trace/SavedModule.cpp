//===- SavedModule.cpp - The MLIR side of fnc::save and fnc::load ---------===//
//
// Assembles the traces of concrete functions and the values of their
// variables into one module, and reads such a module back: checked against
// its metadata and compiled per function (see SavedModule.h and
// docs/Saved.md for the format).
//
//===----------------------------------------------------------------------===//

#include "fnc/Trace/SavedModule.h"

#include "fnc/Dialect/Fnc/IR/DTypes.h"
#include "fnc/Dialect/Fnc/IR/FncOps.h"
#include "fnc/JIT/Engine.h"
#include "fnc/Pipelines/ParseGuard.h"
#include "fnc/Pipelines/Pipelines.h"
#include "fnc/Saved.h"
#include "fnc/Trace/Bytes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <chrono>
#include <cstring>

using namespace mlir;

namespace fnc::trace {

namespace {

// The metadata attributes (docs/Saved.md).
constexpr llvm::StringLiteral kSavedAttr = "fnc.saved";
constexpr llvm::StringLiteral kFunctionAttr = "fnc.function";
constexpr llvm::StringLiteral kResultsAttr = "fnc.results";
constexpr llvm::StringLiteral kArgNamesAttr = "fnc.arg_names";
constexpr llvm::StringLiteral kFastMathAttr = "fnc.fast_math";
constexpr llvm::StringLiteral kCheckNumericsAttr = "fnc.check_numerics";
constexpr llvm::StringLiteral kCapturedAttr = "fnc.captured";
constexpr llvm::StringLiteral kBindAttr = "fnc.bind";

/// Values of at most this many elements are written inline (`dense<...>`),
/// readable in the file; bigger ones as binary dense resources.
constexpr int64_t kInlineElements = 16;

/// The context of a saved module: the dialects a trace and the pipeline
/// use (loaded as the parser meets them), single-threaded (one module, no
/// pass manager).
struct SavedContext {
  DialectRegistry registry;
  std::unique_ptr<MLIRContext> context;
  SavedContext() {
    mlir::fnc::registerPipelineDialects(registry);
    context = std::make_unique<MLIRContext>(registry,
                                            MLIRContext::Threading::DISABLED);
  }
};

/// Collects diagnostics as "line:col: message" lines while alive.
class Diagnostics {
public:
  explicit Diagnostics(MLIRContext *ctx)
      : handler_(ctx, [this](Diagnostic &d) {
          std::string where;
          if (auto loc = llvm::dyn_cast<FileLineColLoc>(d.getLocation()))
            where = std::to_string(loc.getLine()) + ":" +
                    std::to_string(loc.getColumn()) + ": ";
          text += (text.empty() ? "" : "\n") + where + d.str();
          return success();
        }) {}
  std::string text;

private:
  ScopedDiagnosticHandler handler_;
};

template <typename T>
ElementsAttr inlineValue(RankedTensorType type, const void *data) {
  ArrayRef<T> values(static_cast<const T *>(data), type.getNumElements());
  return DenseElementsAttr::get(type, values);
}

/// The fnc.global_variable value of `g`.
ElementsAttr valueAttr(MLIRContext *ctx, const SavedGlobal &g) {
  auto type = RankedTensorType::get(g.shape, mlir::fnc::typeOf(g.dtype, ctx));
  int64_t n = type.getNumElements();
  if (n <= kInlineElements) {
    switch (g.dtype) {
    case DType::f32:
      return inlineValue<float>(type, g.data);
    case DType::f64:
      return inlineValue<double>(type, g.data);
    case DType::i32:
      return inlineValue<int32_t>(type, g.data);
    case DType::i64:
      return inlineValue<int64_t>(type, g.data);
    case DType::i1: {
      const uint8_t *p = static_cast<const uint8_t *>(g.data);
      SmallVector<bool> values(p, p + n);
      return DenseElementsAttr::get(type, ArrayRef<bool>(values));
    }
    case DType::str:
      llvm_unreachable("variables hold no strings (fnc::Variable rejects "
                       "them)");
    }
  }
  // A resource key is an identifier: the symbol with other characters
  // replaced (the blob manager makes it unique).
  std::string key = g.name;
  for (char &c : key)
    if (!llvm::isAlnum(c) && c != '_' && c != '.')
      c = '_';
  ArrayRef<char> bytes(static_cast<const char *>(g.data), n * sizeOf(g.dtype));
  return DenseResourceElementsAttr::get(
      type, key,
      HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, alignof(double),
                                                    /*dataIsMutable=*/false));
}

/// `base`, or `base_1`, `base_2`... whichever `taken` does not hold yet;
/// inserted into `taken`.
std::string uniqueName(const std::string &base, llvm::StringSet<> &taken) {
  std::string name = base;
  for (int i = 1; taken.contains(name); ++i)
    name = base + "_" + std::to_string(i);
  taken.insert(name);
  return name;
}

/// Whether a value of `module` is a string tensor (which never compiles).
bool usesStrings(ModuleOp module) {
  auto isString = [](Type type) {
    auto shaped = llvm::dyn_cast<ShapedType>(type);
    return shaped && llvm::isa<mlir::fnc::StringType>(shaped.getElementType());
  };
  WalkResult found = module.walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      if (isString(t))
        return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Type t : block.getArgumentTypes())
          if (isString(t))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return found.wasInterrupted();
}

func::FuncOp theEntry(ModuleOp module) {
  func::FuncOp entry;
  for (auto fn : module.getOps<func::FuncOp>())
    if (fn.isPublic() && !fn.isExternal()) {
      if (entry)
        return nullptr;
      entry = fn;
    }
  return entry;
}

/// Adds `f`'s trace to `out`: the hidden arguments bound to their globals,
/// the metadata, and every symbol renamed if `taken` has it.
bool addFunction(ModuleOp out, const SavedFunction &f,
                 const std::vector<SavedGlobal> &globals,
                 llvm::StringSet<> &taken, std::string &error) {
  MLIRContext *ctx = out.getContext();
  OwningOpRef<ModuleOp> m = parseSourceString<ModuleOp>(f.fncText, ctx);
  func::FuncOp entry = m ? theEntry(*m) : nullptr;
  if (!entry) {
    error = "the trace of `" + f.name + "` does not parse again";
    return false;
  }
  Block &body = entry.front();
  size_t hidden = f.hiddenGlobals.size();
  if (hidden > body.getNumArguments()) {
    error = "the trace of `" + f.name + "` lacks its hidden arguments";
    return false;
  }
  size_t first = body.getNumArguments() - hidden;
  OpBuilder b(ctx);
  for (size_t j = 0; j < hidden; ++j) {
    const SavedGlobal &g = globals[f.hiddenGlobals[j]];
    BlockArgument arg = body.getArgument(first + j);
    if (g.captured && !llvm::isa<mlir::fnc::VariableType>(arg.getType())) {
      // A captured tensor is read from its variable at the start (a loaded
      // function saved again reads it already).
      auto type = llvm::cast<RankedTensorType>(arg.getType());
      arg.setType(mlir::fnc::VariableType::get(ctx, type));
      b.setInsertionPointToStart(&body);
      auto read = mlir::fnc::VarReadOp::create(b, entry.getLoc(), arg);
      arg.replaceAllUsesExcept(read, read);
    }
    entry.setArgAttr(first + j, kBindAttr, FlatSymbolRefAttr::get(ctx, g.name));
  }
  entry.setType(
      FunctionType::get(ctx, body.getArgumentTypes(), entry.getResultTypes()));
  SmallVector<Attribute> names;
  for (const std::string &name : f.argNames)
    names.push_back(b.getStringAttr(name));
  entry->setAttr(kFunctionAttr, b.getStringAttr(f.name));
  entry->setAttr(kArgNamesAttr, b.getArrayAttr(names));
  entry->setAttr(kResultsAttr, b.getStringAttr(f.results));
  entry->setAttr(kFastMathAttr, b.getBoolAttr(f.fastMath));
  entry->setAttr(kCheckNumericsAttr, b.getBoolAttr(f.checkNumerics));

  SymbolTable table(*m);
  for (Operation &op : m->getBody()->getOperations()) {
    auto symbol = llvm::dyn_cast<SymbolOpInterface>(op);
    if (!symbol)
      continue;
    std::string base =
        &op == entry.getOperation() ? f.name : symbol.getName().str();
    std::string name = uniqueName(base, taken);
    if (name != symbol.getName() && failed(table.rename(&op, name))) {
      error = "cannot rename @" + symbol.getName().str();
      return false;
    }
  }
  for (Operation &op :
       llvm::make_early_inc_range(m->getBody()->getOperations())) {
    op.remove();
    out.getBody()->push_back(&op);
  }
  return true;
}

} // namespace

bool buildSavedModule(const std::vector<SavedFunction> &functions,
                      const std::vector<SavedGlobal> &globals,
                      std::string &text, std::string &error) {
  SavedContext saved;
  MLIRContext *ctx = saved.context.get();
  ctx->loadDialect<mlir::fnc::FncDialect, func::FuncDialect>();
  Diagnostics diags(ctx);
  OpBuilder b(ctx);
  Location loc = UnknownLoc::get(ctx);
  OwningOpRef<ModuleOp> out = ModuleOp::create(loc);
  (*out)->setAttr(kSavedAttr,
                  b.getDictionaryAttr(b.getNamedAttr(
                      "format", b.getI64IntegerAttr(kSavedFormatVersion))));
  llvm::StringSet<> taken;
  b.setInsertionPointToEnd(out->getBody());
  for (const SavedGlobal &g : globals) {
    taken.insert(g.name);
    auto op =
        mlir::fnc::GlobalVariableOp::create(b, loc, g.name, valueAttr(ctx, g));
    if (g.captured)
      op->setAttr(kCapturedAttr, b.getUnitAttr());
  }
  for (const SavedFunction &f : functions)
    if (!addFunction(*out, f, globals, taken, error))
      return false;
  if (failed(verify(*out))) {
    error = "the saved module does not verify:\n" + diags.text;
    return false;
  }
  llvm::raw_string_ostream os(text);
  out->print(os);
  return true;
}

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

namespace {

/// The bytes of a global's value, from the module (jit::readGlobals).
SavedGlobal loadedGlobal(const jit::GlobalVariable &g, bool captured) {
  SavedGlobal s;
  s.name = g.name;
  s.dtype = g.type.dtype;
  s.shape = g.type.shape;
  s.bytes = g.initialValue;
  s.data = s.bytes.data();
  s.captured = captured;
  return s;
}

/// Checks `entry`'s metadata against its IR and describes it in `out`
/// (without compiling).
bool readEntry(func::FuncOp entry, const jit::Signature &sig,
               const std::vector<SavedGlobal> &globals, LoadedEntry &out,
               std::string &error) {
  std::string where = "@" + sig.name + ": ";
  auto name = entry->getAttrOfType<StringAttr>(kFunctionAttr);
  auto results = entry->getAttrOfType<StringAttr>(kResultsAttr);
  auto argNames = entry->getAttrOfType<ArrayAttr>(kArgNamesAttr);
  if (!name || !results || !argNames) {
    error = where + "the function lacks its metadata (" + kFunctionAttr.str() +
            ", " + kResultsAttr.str() + " and " + kArgNamesAttr.str() +
            " attributes)";
    return false;
  }
  out.name = name.getValue().str();
  out.symbol = sig.name;
  out.results = results.getValue().str();
  size_t inputs = 0;
  for (const jit::ArgSpec &arg : sig.args) {
    if (!arg.boundTo.empty())
      break;
    if (arg.kind == jit::ArgKind::Variable) {
      error = where + "argument #" + std::to_string(inputs) +
              " is a variable bound to no fnc.global_variable; every "
              "variable argument needs {fnc.bind = @name}";
      return false;
    }
    ++inputs;
  }
  for (size_t i = inputs; i < sig.args.size(); ++i) {
    const jit::ArgSpec &arg = sig.args[i];
    if (arg.boundTo.empty()) {
      error = where + "argument #" + std::to_string(i) +
              " is not bound but follows bound ones; the arguments bound "
              "to variables come last";
      return false;
    }
    auto it =
        std::find_if(globals.begin(), globals.end(), [&](const SavedGlobal &g) {
          return g.name == arg.boundTo;
        });
    if (it == globals.end()) {
      error = where + "argument #" + std::to_string(i) + " is bound to @" +
              arg.boundTo + ", which is not a fnc.global_variable";
      return false;
    }
    out.hiddenGlobals.push_back(it - globals.begin());
  }
  if (argNames.size() != inputs) {
    error = where + kArgNamesAttr.str() + " has " +
            std::to_string(argNames.size()) + " names for " +
            std::to_string(inputs) + " tensor arguments";
    return false;
  }
  for (Attribute a : argNames) {
    auto s = llvm::dyn_cast<StringAttr>(a);
    if (!s) {
      error = where + kArgNamesAttr.str() + " must hold strings";
      return false;
    }
    out.argNames.push_back(s.getValue().str());
  }
  size_t n = sig.results.size();
  const std::string &r = out.results;
  bool fits = r == "tensor" ? n == 1
              : r == "none" ? n == 0
              : r == "pair" ? n == 2
              : r == "value_and_grads"
                  ? n >= 1
                  : r == "tuple" || r == "array" || r == "vector" ||
                        r == "tensor_array";
  if (!fits) {
    error = where + "the result structure \"" + r + "\" does not fit its " +
            std::to_string(n) + " result" + (n == 1 ? "" : "s");
    return false;
  }
  for (size_t i = 0; i < inputs; ++i) {
    out.inputDTypes.push_back(sig.args[i].type.dtype);
    out.inputShapes.push_back(sig.args[i].type.shape);
  }
  for (const jit::TensorType &t : sig.results) {
    out.outputDTypes.push_back(t.dtype);
    out.outputShapes.push_back(t.shape);
  }
  return true;
}

/// `entry` alone in a module, as a trace is: no globals, no other public
/// function, no metadata.
OwningOpRef<ModuleOp> traceOf(ModuleOp module, func::FuncOp entry) {
  OwningOpRef<ModuleOp> clone(module.clone());
  for (Operation &op :
       llvm::make_early_inc_range(clone->getBody()->getOperations())) {
    if (llvm::isa<mlir::fnc::GlobalVariableOp>(op)) {
      op.erase();
      continue;
    }
    auto fn = llvm::dyn_cast<func::FuncOp>(op);
    if (!fn || !fn.isPublic() || fn.isExternal())
      continue;
    if (fn.getSymName() != entry.getSymName()) {
      fn.erase();
      continue;
    }
    for (unsigned i = 0; i < fn.getNumArguments(); ++i)
      fn.removeArgAttr(i, kBindAttr);
    for (llvm::StringRef attr : {kFunctionAttr, kResultsAttr, kArgNamesAttr,
                                 kFastMathAttr, kCheckNumericsAttr})
      fn->removeAttr(attr);
  }
  (*clone)->removeAttr(kSavedAttr);
  return clone;
}

bool hasEffects(func::FuncOp fn) {
  bool effects = false;
  fn.walk([&](Operation *op) {
    llvm::StringRef name = op->getName().getStringRef();
    if (name.starts_with("fnc.var_assign") || name == "fnc.print" ||
        name.starts_with("fnc.random"))
      effects = true;
  });
  return effects;
}

int64_t countOps(func::FuncOp fn) {
  int64_t n = 0;
  fn.walk([&](Operation *) { ++n; });
  return n - 2; // the function and its return
}

//===----------------------------------------------------------------------===//
// The compile-cache entry of a saved file
//===----------------------------------------------------------------------===//
//
// A file loaded once is loaded again without MLIR: its entry, keyed by the
// file's bytes (functions, options, values) and the target, holds every
// function's objects and, in its notes, the LoadedModule that parsing and
// checking the file gave (a manifest), with each function's signature and
// object count.

jit::CacheKey savedFileKey(llvm::StringRef bytes) {
  jit::CacheKeyBuilder key;
  key.add("saved-file", bytes);
  jit::CacheTarget::host().addTo(key);
  return key.finish();
}

void writeType(ByteWriter &w, DType dtype, const std::vector<int64_t> &shape) {
  w.dtype(dtype);
  w.ints(shape);
}

std::string manifestOf(const LoadedModule &m,
                       const std::vector<jit::Signature> &signatures,
                       const std::vector<size_t> &objectCounts) {
  ByteWriter w;
  w.tag('S');
  w.i64(static_cast<int64_t>(m.globals.size()));
  for (const SavedGlobal &g : m.globals) {
    w.str(g.name);
    writeType(w, g.dtype, g.shape);
    w.str(llvm::StringRef(reinterpret_cast<const char *>(g.bytes.data()),
                          g.bytes.size()));
    w.flag(g.captured);
  }
  w.i64(static_cast<int64_t>(m.entries.size()));
  for (size_t i = 0; i < m.entries.size(); ++i) {
    const LoadedEntry &e = m.entries[i];
    w.str(e.name), w.str(e.symbol), w.str(e.results);
    w.i64(static_cast<int64_t>(e.argNames.size()));
    for (const std::string &n : e.argNames)
      w.str(n);
    w.i64(static_cast<int64_t>(e.inputDTypes.size()));
    for (size_t j = 0; j < e.inputDTypes.size(); ++j)
      writeType(w, e.inputDTypes[j], e.inputShapes[j]);
    w.i64(static_cast<int64_t>(e.outputDTypes.size()));
    for (size_t j = 0; j < e.outputDTypes.size(); ++j)
      writeType(w, e.outputDTypes[j], e.outputShapes[j]);
    w.ints(
        std::vector<int64_t>(e.hiddenGlobals.begin(), e.hiddenGlobals.end()));
    w.str(e.parts.fncText);
    w.i64(e.parts.opCount);
    w.flag(e.parts.fastMath), w.flag(e.parts.checkNumerics);
    w.flag(e.parts.hasEffects);
    const jit::Signature &sig = signatures[i];
    w.str(sig.name);
    w.i64(static_cast<int64_t>(sig.args.size()));
    for (const jit::ArgSpec &arg : sig.args) {
      w.kind(arg.kind);
      writeType(w, arg.type.dtype, arg.type.shape);
      w.str(arg.boundTo);
    }
    w.i64(static_cast<int64_t>(sig.results.size()));
    for (const jit::TensorType &t : sig.results)
      writeType(w, t.dtype, t.shape);
    w.i64(static_cast<int64_t>(objectCounts[i]));
  }
  return w.bytes;
}

/// Reads a manifest back, checked (sizes, indices, counts against
/// `objects`); false for anything else.
bool readManifest(llvm::StringRef notes, size_t objects, LoadedModule &m,
                  std::vector<jit::Signature> &signatures,
                  std::vector<size_t> &objectCounts) {
  ByteReader r(notes);
  r.tag('S');
  auto readType = [&](DType &dtype, std::vector<int64_t> &shape) {
    dtype = r.dtype();
    shape = r.ints();
  };
  size_t globals = r.count(1);
  for (size_t i = 0; i < globals && r.ok(); ++i) {
    SavedGlobal g;
    g.name = r.str();
    readType(g.dtype, g.shape);
    std::string bytes = r.str();
    g.bytes.assign(bytes.begin(), bytes.end());
    g.data = g.bytes.data();
    g.captured = r.flag();
    size_t n = 1;
    for (int64_t d : g.shape)
      n = d < 0 ? SIZE_MAX : n * static_cast<size_t>(d);
    if (n == SIZE_MAX || g.bytes.size() != n * sizeOf(g.dtype))
      return false;
    m.globals.push_back(std::move(g));
  }
  size_t entries = r.count(1), total = 0;
  for (size_t i = 0; i < entries && r.ok(); ++i) {
    LoadedEntry e;
    e.name = r.str(), e.symbol = r.str(), e.results = r.str();
    for (size_t n = r.count(8), j = 0; j < n && r.ok(); ++j)
      e.argNames.push_back(r.str());
    size_t inputs = r.count(9);
    e.inputDTypes.resize(inputs), e.inputShapes.resize(inputs);
    for (size_t j = 0; j < inputs && r.ok(); ++j)
      readType(e.inputDTypes[j], e.inputShapes[j]);
    size_t outputs = r.count(9);
    e.outputDTypes.resize(outputs), e.outputShapes.resize(outputs);
    for (size_t j = 0; j < outputs && r.ok(); ++j)
      readType(e.outputDTypes[j], e.outputShapes[j]);
    for (int64_t g : r.ints()) {
      if (g < 0 || static_cast<size_t>(g) >= m.globals.size())
        return false;
      e.hiddenGlobals.push_back(static_cast<size_t>(g));
    }
    e.parts.fncText = r.str();
    e.parts.opCount = r.i64();
    e.parts.fastMath = r.flag(), e.parts.checkNumerics = r.flag();
    e.parts.hasEffects = r.flag();
    jit::Signature sig;
    sig.name = r.str();
    for (size_t n = r.count(9), j = 0; j < n && r.ok(); ++j) {
      jit::ArgSpec arg;
      int64_t kind = r.i64();
      if (kind != static_cast<int64_t>(jit::ArgKind::Tensor) &&
          kind != static_cast<int64_t>(jit::ArgKind::Variable))
        return false;
      arg.kind = static_cast<jit::ArgKind>(kind);
      readType(arg.type.dtype, arg.type.shape);
      arg.boundTo = r.str();
      sig.args.push_back(std::move(arg));
    }
    for (size_t n = r.count(9), j = 0; j < n && r.ok(); ++j) {
      jit::TensorType t;
      readType(t.dtype, t.shape);
      sig.results.push_back(std::move(t));
    }
    int64_t count = r.i64();
    if (count < 1 || static_cast<uint64_t>(count) > objects - total ||
        e.argNames.size() != inputs)
      return false;
    total += static_cast<size_t>(count);
    objectCounts.push_back(static_cast<size_t>(count));
    signatures.push_back(std::move(sig));
    m.entries.push_back(std::move(e));
  }
  return r.done() && entries > 0 && total == objects;
}

/// Fills `loaded` from the entry of `key`; false on a miss or for an entry
/// that proves unusable (removed with a warning).
bool loadCached(jit::CompileCache &cache, const jit::CacheKey &key,
                LoadedModule &loaded) {
  std::optional<jit::CacheEntry> entry = cache.load(key);
  if (!entry)
    return false;
  LoadedModule m;
  std::vector<jit::Signature> signatures;
  std::vector<size_t> counts;
  if (!readManifest(entry->notes, entry->objects.size(), m, signatures,
                    counts)) {
    cache.reject(key, "its notes are not those of a saved file");
    return false;
  }
  size_t next = 0;
  for (size_t i = 0; i < m.entries.size(); ++i) {
    auto start = std::chrono::steady_clock::now();
    jit::ObjectFiles objects;
    for (size_t j = 0; j < counts[i]; ++j)
      objects.push_back(std::move(entry->objects[next++]));
    auto module =
        jit::CompiledModule::fromObjects(std::move(objects), {signatures[i]});
    if (!module) {
      cache.reject(key,
                   "it does not link: " + llvm::toString(module.takeError()));
      return false;
    }
    CompiledTrace::Parts &parts = m.entries[i].parts;
    parts.entry = (*module)->entries().front().get();
    parts.module = std::move(*module);
    parts.compileSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
  }
  loaded = std::move(m);
  return true;
}

} // namespace

bool loadSavedModule(const std::string &path,
                     const std::optional<std::string> &cacheDir,
                     LoadedModule &loaded, std::string &error) {
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/true);
  if (!file) {
    error = "cannot read the file: " + file.getError().message();
    return false;
  }
  jit::CompileCache *cache = jit::CompileCache::get(cacheDir);
  std::optional<jit::CacheKey> fileKey;
  if (cache) {
    fileKey = savedFileKey((*file)->getBuffer());
    if (loadCached(*cache, *fileKey, loaded))
      return true;
  }
  SavedContext saved;
  MLIRContext *ctx = saved.context.get();
  Diagnostics diags(ctx);
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(std::move(*file), llvm::SMLoc());
  // Verified below, once the format version is known to be this one.
  ParserConfig config(ctx, /*verifyAfterParse=*/false);
  OwningOpRef<ModuleOp> module = mlir::fnc::parseModule(sources, config);
  if (!module) {
    error = "the file does not parse (is it truncated, or not a saved "
            "function?):\n" +
            diags.text;
    return false;
  }
  auto meta = (*module)->getAttrOfType<DictionaryAttr>(kSavedAttr);
  if (!meta) {
    error = "the module has no " + kSavedAttr.str() +
            " attribute: it was not written by fnc::save (fnc-run runs any "
            "module)";
    return false;
  }
  auto format = meta.getAs<IntegerAttr>("format");
  if (!format) {
    error = kSavedAttr.str() + " lacks its format version";
    return false;
  }
  if (format.getInt() != kSavedFormatVersion) {
    error = "the file has format version " + std::to_string(format.getInt()) +
            "; this fnc reads version " + std::to_string(kSavedFormatVersion) +
            (format.getInt() > kSavedFormatVersion
                 ? " (save it again with this fnc, or use the fnc that "
                   "wrote it)"
                 : "");
    return false;
  }
  if (failed(verify(*module))) {
    error = "the module does not verify:\n" + diags.text;
    return false;
  }
  auto globals = jit::readGlobals(*module);
  if (!globals) {
    error = llvm::toString(globals.takeError());
    return false;
  }
  for (const jit::GlobalVariable &g : *globals) {
    auto op = module->lookupSymbol<mlir::fnc::GlobalVariableOp>(g.name);
    loaded.globals.push_back(loadedGlobal(g, op->hasAttr(kCapturedAttr)));
  }
  // What the file's cache entry holds besides the values (stored only if
  // every function's objects may be).
  jit::ObjectFiles allObjects;
  std::vector<jit::Signature> signatures;
  std::vector<size_t> objectCounts;
  bool storable = fileKey.has_value();
  for (auto fn : module->getOps<func::FuncOp>()) {
    if (!fn.isPublic() || fn.isExternal())
      continue;
    auto sig = jit::readSignature(*module, fn.getSymName());
    if (!sig) {
      error = llvm::toString(sig.takeError());
      return false;
    }
    LoadedEntry entry;
    if (!readEntry(fn, *sig, loaded.globals, entry, error))
      return false;
    auto fastMath = fn->getAttrOfType<BoolAttr>(kFastMathAttr);
    auto checkNumerics = fn->getAttrOfType<BoolAttr>(kCheckNumericsAttr);
    mlir::fnc::PipelineOptions options;
    options.fastMath = fastMath ? fastMath.getValue() : true;
    options.checkNumerics = checkNumerics && checkNumerics.getValue();

    auto start = std::chrono::steady_clock::now();
    OwningOpRef<ModuleOp> trace = traceOf(*module, fn);
    if (usesStrings(*trace)) {
      // Never compiled: the graph executor runs its IR (nor cached).
      CompiledTrace::Parts &parts = entry.parts;
      llvm::raw_string_ostream os(parts.fncText);
      trace->print(os);
      parts.opCount = countOps(fn);
      parts.fastMath = options.fastMath;
      parts.checkNumerics = options.checkNumerics;
      parts.hasEffects = hasEffects(fn);
      entry.executed = true;
      loaded.entries.push_back(std::move(entry));
      storable = false;
      continue;
    }
    jit::ObjectFiles objects;
    auto compiled = jit::CompiledModule::compile(
        *trace, options, /*keepIR=*/false, cacheDir, /*storeAs=*/nullptr,
        storable ? &objects : nullptr);
    if (!compiled) {
      error = "@" + entry.symbol +
              " does not compile: " + llvm::toString(compiled.takeError());
      return false;
    }
    auto found = (*compiled)->lookup(fn.getSymName());
    if (!found) {
      error = llvm::toString(found.takeError());
      return false;
    }
    CompiledTrace::Parts &parts = entry.parts;
    parts.entry = *found;
    parts.module = std::move(*compiled);
    llvm::raw_string_ostream os(parts.fncText);
    trace->print(os);
    parts.opCount = countOps(fn);
    parts.compileSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    parts.fastMath = options.fastMath;
    parts.checkNumerics = options.checkNumerics;
    parts.hasEffects = hasEffects(fn);
    loaded.entries.push_back(std::move(entry));
    storable = storable && !objects.empty();
    signatures.push_back((*found)->signature());
    objectCounts.push_back(objects.size());
    for (auto &object : objects)
      allObjects.push_back(std::move(object));
  }
  if (loaded.entries.empty()) {
    error = "the file holds no public function";
    return false;
  }
  if (storable) {
    std::vector<llvm::MemoryBufferRef> refs;
    for (const auto &object : allObjects)
      refs.push_back(object->getMemBufferRef());
    cache->store(*fileKey, jit::CompileCache::encode(
                               *fileKey, refs,
                               manifestOf(loaded, signatures, objectCounts)));
  }
  return true;
}

} // namespace fnc::trace
