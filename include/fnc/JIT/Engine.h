//===- Engine.h - JIT compilation and calls of fnc modules ------*- C++ -*-===//
//
// Internal to fnc (used by fnc-run and the embedding API's fnc::function). A
// CompiledModule takes an MLIR module once through the fnc pipeline
// (fnc -> linalg -> bufferized loops -> LLVM dialect), translates it to LLVM
// IR, compiles it to an object file and links that into memory of its own
// (LinkedCode.h), and caches a function pointer per public function. Calls then
// cost a few nanoseconds plus the argument checks.
//
// The boundary is MLIR-free: signatures use fnc::DType and int64 dims,
// inputs are BufferViews (borrowed memory), results are Buffers (owned
// memory allocated by the generated code). Errors are llvm::Error, never
// exceptions.
//
// Calling convention (docs/Runtime.md): each tensor argument is passed as
// an identity-layout memref descriptor expanded into (allocated, aligned,
// offset, sizes..., strides...); a `!fnc.variable<tensor<T>>` argument is a
// memref of T in the same position, updated in place; results come back as
// descriptors whose `allocated` pointer the caller frees with free().
//
// Thread-safety: a CompiledModule is immutable after compile(); its entries
// may be called from several threads at once. Each call passes its own
// runtime context (fnc::runtime::CallContext) to the generated code, so a
// call gets exactly its own run-time error.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_JIT_ENGINE_H
#define FNC_JIT_ENGINE_H

#include "fnc/DType.h"
#include "fnc/JIT/CompileCache.h"
#include "fnc/Shape/ShapeRules.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace mlir {
class ModuleOp;
namespace fnc {
struct PipelineOptions;
} // namespace fnc
} // namespace mlir

namespace fnc::jit {

class LinkedCode;

/// A ranked tensor type of a signature.
struct TensorType {
  /// An unknown dim: the sentinel of the shape rules and of MLIR
  /// (shapes::kDynamic == mlir::ShapedType::kDynamic), so that dims pass
  /// between the tracer, the JIT and MLIR types unconverted.
  static constexpr int64_t kDynamic = shapes::kDynamic;
  DType dtype = DType::f32;
  /// Dims; kDynamic for an unknown one.
  std::vector<int64_t> shape;

  /// MLIR spelling: "tensor<2x?xf32>".
  std::string str() const;
  /// The spelling of a concrete (dtype, shape): "tensor<2x3xf32>".
  static std::string str(DType dtype, llvm::ArrayRef<int64_t> shape);
  /// True if a value of (dtype, shape) is accepted by this type.
  bool accepts(DType dtype, llvm::ArrayRef<int64_t> shape) const;
  bool isStatic() const;
  int64_t numElements() const; // of a static type
};

enum class ArgKind {
  /// An input tensor, read only.
  Tensor,
  /// A `!fnc.variable<...>`: a buffer the function updates in place.
  Variable,
};

struct ArgSpec {
  ArgKind kind = ArgKind::Tensor;
  /// The tensor type (for a variable: the type of its value).
  TensorType type;
  /// For a variable bound with `fnc.bind = @name`: the name; else empty.
  std::string boundTo;
  /// "tensor<2xf32>" or "!fnc.variable<tensor<2xf32>>".
  std::string str() const;
};

/// The fnc-level signature of a public function.
struct Signature {
  std::string name;
  std::vector<ArgSpec> args;
  std::vector<TensorType> results;
  /// "@f(tensor<?xf32>, tensor<?xf32>) -> (tensor<?xf32>)".
  std::string str() const;
};

/// A `fnc.global_variable` of the module: its type and initial value.
struct GlobalVariable {
  std::string name;
  TensorType type; // always static
  /// The initial value, row-major, sizeOf(dtype) bytes per element.
  std::vector<uint8_t> initialValue;
};

/// Borrowed memory of one argument. `data` points at element 0; `strides`
/// are in elements (empty: row-major). Variables must be row-major, since
/// the function updates them in place.
struct BufferView {
  DType dtype = DType::f32;
  llvm::ArrayRef<int64_t> shape;
  void *data = nullptr;
  llvm::ArrayRef<int64_t> strides = {};
};

/// An owned, row-major result buffer (allocated by the generated code).
class Buffer {
public:
  Buffer() = default;
  Buffer(DType dtype, llvm::ArrayRef<int64_t> shape, void *data,
         void *allocation, void (*deleter)(void *));
  Buffer(Buffer &&other) noexcept;
  Buffer &operator=(Buffer &&other) noexcept;
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  ~Buffer();

  DType dtype() const { return dtype_; }
  llvm::ArrayRef<int64_t> shape() const { return shape_; }
  int64_t numElements() const;
  size_t numBytes() const { return numElements() * sizeOf(dtype_); }
  void *data() const { return data_; }
  /// A view of this buffer (for passing it back in).
  BufferView view() const { return {dtype_, shape_, data_, {}}; }
  /// Moves the ownership of the memory into a shared pointer to data()
  /// (one allocation, its control block); leaves this Buffer empty.
  std::shared_ptr<void> share() &&;

private:
  void reset();
  DType dtype_ = DType::f32;
  llvm::SmallVector<int64_t, 4> shape_;
  void *data_ = nullptr;
  void *allocation_ = nullptr;
  void (*deleter_)(void *) = nullptr;
};

/// A result of Entry::callRowMajor: row-major memory the caller now owns
/// (free `allocation` with memory::release; null when it has no elements)
/// and its dims (valid during the callback only).
struct TakenResult {
  DType dtype;
  llvm::ArrayRef<int64_t> shape;
  void *data;
  void *allocation;
};

/// IR of a module at each stage, for `--emit` and for debugging.
enum class Stage {
  /// The input module, as given.
  Fnc,
  /// After the pipeline with stop-after-linalg.
  Linalg,
  /// After the whole pipeline (LLVM dialect).
  LLVMDialect,
  /// LLVM IR, optimized at the pipeline's opt level.
  LLVMIR,
};

/// Runs the pipeline on a clone of `module` up to `stage` and prints the
/// result. Does not JIT.
llvm::Expected<std::string> emitStage(mlir::ModuleOp module,
                                      const mlir::fnc::PipelineOptions &options,
                                      Stage stage);

/// Runs the fnc pipeline on a clone of `module` (which is not modified) and
/// translates the result to an LLVM module in `context`, with a packed
/// wrapper `void _mlir_NAME(void **args)` per function with a body: args[i]
/// points at the i-th argument, args[n] at the result's storage (the
/// calling convention of mlir::ExecutionEngine's packed functions). The
/// module's `fnc.global_variable`s are dropped: whoever calls the code
/// passes the variables' buffers. With `llvmDialectIR`, the module after
/// the pipeline is printed into it. Errors carry the pipeline's
/// diagnostics. ObjectCompiler.h compiles the result.
llvm::Expected<std::unique_ptr<llvm::Module>>
lowerToLLVMIR(mlir::ModuleOp module, const mlir::fnc::PipelineOptions &options,
              llvm::LLVMContext &context, std::string *llvmDialectIR = nullptr);

/// Reads the public functions' signatures (without compiling). Fails if
/// one of them has a signature fnc cannot call.
llvm::Expected<std::vector<Signature>> readSignatures(mlir::ModuleOp module);
/// The signature of the public function `name` (without compiling).
llvm::Expected<Signature> readSignature(mlir::ModuleOp module,
                                        llvm::StringRef name);
/// The module's `fnc.global_variable`s (without compiling).
llvm::Expected<std::vector<GlobalVariable>> readGlobals(mlir::ModuleOp module);
/// The names of the public functions with a body, in module order.
std::vector<std::string> publicFunctions(mlir::ModuleOp module);

/// The error of a call that generated code reported through the runtime:
/// its fnc::runtime::ErrorCode and its user-facing message.
class RuntimeError : public llvm::ErrorInfo<RuntimeError> {
public:
  static char ID;
  RuntimeError(int64_t code, std::string message)
      : code_(code), message_(std::move(message)) {}
  int64_t code() const { return code_; }
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }

private:
  int64_t code_;
  std::string message_;
};

/// A compiled public function. Valid while its CompiledModule lives.
class Entry {
public:
  const Signature &signature() const { return signature_; }

  /// Calls the function. `args` has one view per argument in order; a
  /// variable argument's view is updated in place. Checks dtypes and shapes
  /// against the signature before the call and the runtime's error slot
  /// after it. `results` is cleared and filled (reusing its capacity).
  llvm::Error call(llvm::ArrayRef<BufferView> args,
                   std::vector<Buffer> &results) const;
  llvm::Expected<std::vector<Buffer>>
  call(llvm::ArrayRef<BufferView> args) const;
  /// call() without the argument checks, for a caller that has made them:
  /// one view per argument, with data and with strides empty (or of its
  /// rank), accepted by the signature, row-major for a variable
  /// (fnc::function's cache key guarantees it for tensors). `results` has one
  /// (empty) Buffer per result; on error they stay empty.
  llvm::Error callChecked(llvm::ArrayRef<BufferView> args,
                          llvm::MutableArrayRef<Buffer> results) const;
  /// callChecked() for row-major views (the hot path of fnc::function: an
  /// fnc::Tensor is row-major), with no Buffer in between: `take` gets
  /// each result in order. After an error it may have been given the
  /// results before the one that failed, and no others.
  llvm::Error
  callRowMajor(llvm::ArrayRef<BufferView> args,
               llvm::function_ref<void(const TakenResult &)> take) const;

private:
  friend class CompiledModule;
  llvm::Error checkArgs(llvm::ArrayRef<BufferView> args) const;

  Signature signature_;
  void (*fn_)(void **) = nullptr;
  size_t argSlots_ = 0;    // scalars of the expanded argument descriptors
  size_t resultSlots_ = 0; // int64 slots of the returned struct
};

/// A module compiled once; see the file comment.
class CompiledModule {
public:
  ~CompiledModule();
  CompiledModule(const CompiledModule &) = delete;
  CompiledModule &operator=(const CompiledModule &) = delete;

  /// Compiles a clone of `module` (which is not modified) and every public
  /// function of it. With `keepIR`, the IR of each stage is kept for ir().
  /// Errors carry the diagnostics of the failing pass.
  ///
  /// The object code goes through the compile cache `cache` (by default
  /// the one the environment selects; docs/Cache.md): on a hit the
  /// pipeline, LLVM and code generation are skipped and the stored objects
  /// are linked; on a miss the objects compiled are stored. With `keepIR`
  /// the module is always compiled (the IR of every stage is needed) and
  /// stored. A module whose code holds addresses of this process is never
  /// stored.
  ///
  /// With `storeAs`, the cache is not searched (the caller did, under a key
  /// of its own) and the objects are stored under `storeAs->key` with its
  /// notes beside them, instead of under the module's key. With
  /// `keepObjects`, it receives copies of the objects if the cache may
  /// keep them (a cache is in use and the code holds no host address; it
  /// stays empty otherwise), for a caller that stores them again with
  /// others (fnc::load).
  struct StoreAs {
    CacheKey key;
    std::string notes;
  };
  static llvm::Expected<std::unique_ptr<CompiledModule>>
  compile(mlir::ModuleOp module, const mlir::fnc::PipelineOptions &options,
          bool keepIR = false, const CacheDirectory &cache = std::nullopt,
          const StoreAs *storeAs = nullptr, ObjectFiles *keepObjects = nullptr);

  /// Links objects compiled before (a cache entry stored through
  /// `storeAs`) as a module whose public functions have `signatures`; no
  /// MLIR is involved. fromCache() is true. Fails if they do not link or
  /// lack a function.
  static llvm::Expected<std::unique_ptr<CompiledModule>>
  fromObjects(ObjectFiles objects, std::vector<Signature> signatures);

  /// The entry called `name`; an error listing the public functions if
  /// there is none.
  llvm::Expected<const Entry *> lookup(llvm::StringRef name) const;
  /// The public functions, in module order.
  const std::vector<std::unique_ptr<Entry>> &entries() const {
    return entries_;
  }
  /// The module's `fnc.global_variable`s.
  const std::vector<GlobalVariable> &globals() const { return globals_; }
  /// The IR at `stage` (empty unless compiled with keepIR).
  const std::string &ir(Stage stage) const {
    return ir_[static_cast<int>(stage)];
  }
  /// Wall-clock seconds spent in compile().
  double compileSeconds() const { return compileSeconds_; }
  /// Where compile()'s seconds went (all 0 for code from the cache): the
  /// MLIR pipeline with the translation to LLVM IR, LLVM's optimization and
  /// code generation (of every part, on their threads), and the link.
  struct Phases {
    double mlir = 0, llvm = 0, link = 0;
  };
  const Phases &phases() const { return phases_; }
  /// The object files the module was compiled to: a large module is split
  /// into parts that LLVM optimizes and compiles on threads of their own.
  size_t objectCount() const { return objectCount_; }
  /// True if the code was loaded from the compile cache (the pipeline and
  /// LLVM did not run).
  bool fromCache() const { return fromCache_; }

private:
  CompiledModule();
  void addEntry(Signature signature);
  /// Links `objects` and looks every entry up. On failure nothing stays
  /// linked.
  llvm::Error link(ObjectFiles objects);

  // The module's code, freed with the CompiledModule.
  std::unique_ptr<LinkedCode> code_;
  std::vector<std::unique_ptr<Entry>> entries_;
  std::vector<GlobalVariable> globals_;
  // Public functions whose signature fnc cannot call, with the reason.
  std::vector<std::pair<std::string, std::string>> unsupported_;
  std::string ir_[4];
  double compileSeconds_ = 0;
  Phases phases_;
  size_t objectCount_ = 0;
  bool fromCache_ = false;
};

/// The compile-cache key of compiling `module` with `options` for
/// `target`: the module's canonical text (with locations, which reach
/// run-time messages), every pipeline option and the target's fields.
CacheKey compileCacheKey(mlir::ModuleOp module,
                         const mlir::fnc::PipelineOptions &options,
                         const CacheTarget &target = CacheTarget::host());

} // namespace fnc::jit

#endif // FNC_JIT_ENGINE_H
