//===- Call.cpp - Calling JIT-compiled fnc functions ----------------------===//
//
// The hot path of the engine: checks the arguments against the signature,
// expands them into memref descriptors for the packed `_mlir_NAME(void **)`
// wrapper with a fresh per-call runtime context, takes ownership of the
// returned buffers and checks the context for a run-time error. No MLIR
// here and no heap allocation for small signatures (beyond what the
// generated code allocates for its results).
//
//===----------------------------------------------------------------------===//

#include "fnc/JIT/Engine.h"
#include "fnc/Memory.h"
#include "fnc/Runtime/Descriptors.h"
#include "fnc/Runtime/Runtime.h"

#include "mlir/IR/BuiltinTypeInterfaces.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"

using namespace fnc;
using namespace fnc::jit;

static_assert(TensorType::kDynamic == mlir::ShapedType::kDynamic,
              "jit::TensorType and MLIR types share the unknown-dim sentinel");

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

char RuntimeError::ID = 0;

void RuntimeError::log(llvm::raw_ostream &os) const { os << message_; }

std::string TensorType::str(DType dtype, llvm::ArrayRef<int64_t> shape) {
  return runtime::tensorTypeString(dtype, shape.data(), shape.size());
}

std::string TensorType::str() const { return str(dtype, shape); }

bool TensorType::accepts(DType other, llvm::ArrayRef<int64_t> dims) const {
  return runtime::typeAccepts(dtype, shape.data(), shape.size(), other,
                              dims.data(), dims.size());
}

bool TensorType::isStatic() const {
  for (int64_t d : shape)
    if (d == kDynamic)
      return false;
  return true;
}

int64_t TensorType::numElements() const { return shapes::numElements(shape); }

std::string ArgSpec::str() const {
  if (kind == ArgKind::Variable)
    return "!fnc.variable<" + type.str() + ">";
  return type.str();
}

std::string Signature::str() const {
  std::string s = "@" + name + "(";
  for (size_t i = 0; i < args.size(); ++i)
    s += (i ? ", " : "") + args[i].str();
  s += ") -> (";
  for (size_t i = 0; i < results.size(); ++i)
    s += (i ? ", " : "") + results[i].str();
  return s + ")";
}

//===----------------------------------------------------------------------===//
// Buffer
//===----------------------------------------------------------------------===//

Buffer::Buffer(DType dtype, llvm::ArrayRef<int64_t> shape, void *data,
               void *allocation, void (*deleter)(void *))
    : dtype_(dtype), shape_(shape.begin(), shape.end()), data_(data),
      allocation_(allocation), deleter_(deleter) {}

Buffer::Buffer(Buffer &&other) noexcept
    : dtype_(other.dtype_), shape_(std::move(other.shape_)), data_(other.data_),
      allocation_(other.allocation_), deleter_(other.deleter_) {
  other.allocation_ = other.data_ = nullptr;
  other.deleter_ = nullptr;
}

Buffer &Buffer::operator=(Buffer &&other) noexcept {
  if (this != &other) {
    reset();
    dtype_ = other.dtype_;
    shape_ = std::move(other.shape_);
    data_ = other.data_;
    allocation_ = other.allocation_;
    deleter_ = other.deleter_;
    other.allocation_ = other.data_ = nullptr;
    other.deleter_ = nullptr;
  }
  return *this;
}

Buffer::~Buffer() { reset(); }

void Buffer::reset() {
  if (deleter_ && allocation_)
    deleter_(allocation_);
  allocation_ = data_ = nullptr;
  deleter_ = nullptr;
}

std::shared_ptr<void> Buffer::share() && {
  void *data = std::exchange(data_, nullptr);
  void *allocation = std::exchange(allocation_, nullptr);
  void (*deleter)(void *) = std::exchange(deleter_, nullptr);
  if (!deleter || !allocation)
    return std::shared_ptr<void>(data, [](void *) {});
  return std::shared_ptr<void>(
      data, [allocation, deleter](void *) { deleter(allocation); });
}

int64_t Buffer::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape_)
    n *= d;
  return n;
}

//===----------------------------------------------------------------------===//
// Entry::call
//===----------------------------------------------------------------------===//

namespace {
bool isRowMajor(const BufferView &view) {
  return runtime::isRowMajor(view.shape.data(),
                             view.strides.empty() ? nullptr
                                                  : view.strides.data(),
                             view.shape.size());
}

int64_t product(llvm::ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

} // namespace

llvm::Error Entry::checkArgs(llvm::ArrayRef<BufferView> args) const {
  const auto &specs = signature_.args;
  if (args.size() != specs.size())
    return llvm::createStringError(
        "@" + signature_.name + " takes " + std::to_string(specs.size()) +
        " argument" + (specs.size() == 1 ? "" : "s") + " but " +
        std::to_string(args.size()) +
        " were given; signature: " + signature_.str());
  for (size_t i = 0; i < args.size(); ++i) {
    const BufferView &a = args[i];
    const ArgSpec &spec = specs[i];
    if (!spec.type.accepts(a.dtype, a.shape))
      return llvm::createStringError("argument #" + std::to_string(i) +
                                     " of @" + signature_.name + ": expected " +
                                     spec.str() + ", got " +
                                     TensorType::str(a.dtype, a.shape));
    if (!a.data && product(a.shape) != 0)
      return llvm::createStringError("argument #" + std::to_string(i) +
                                     " of @" + signature_.name +
                                     " has no data");
    if (!a.strides.empty() && a.strides.size() != a.shape.size())
      return llvm::createStringError("argument #" + std::to_string(i) +
                                     " of @" + signature_.name +
                                     ": strides and shape differ in rank");
    if (spec.kind == ArgKind::Variable && !isRowMajor(a))
      return llvm::createStringError(
          "argument #" + std::to_string(i) + " of @" + signature_.name +
          ": a variable's buffer must be row-major (it is updated in place)");
  }
  return llvm::Error::success();
}

llvm::Error Entry::call(llvm::ArrayRef<BufferView> args,
                        std::vector<Buffer> &results) const {
  results.clear();
  if (llvm::Error err = checkArgs(args))
    return err;
  results.resize(signature_.results.size());
  llvm::Error err = callChecked(args, results);
  if (err)
    results.clear();
  return err;
}

llvm::Error Entry::callChecked(llvm::ArrayRef<BufferView> args,
                               llvm::MutableArrayRef<Buffer> results) const {
  // Strided arguments are gathered into row-major temporaries.
  llvm::SmallVector<BufferView, 8> rowMajor(args.begin(), args.end());
  llvm::SmallVector<void *, 2> temporaries;
  llvm::scope_exit releaseTemporaries([&] {
    for (void *t : temporaries)
      memory::release(t);
  });
  for (BufferView &a : rowMajor) {
    if (isRowMajor(a))
      continue;
    a.data = runtime::gatherRowMajor(a.dtype, a.data, a.shape.data(),
                                     a.strides.data(), a.shape.size());
    if (!a.data)
      return llvm::createStringError("out of memory copying an argument");
    a.strides = {};
    temporaries.push_back(a.data);
  }
  size_t next = 0;
  llvm::Error err = callRowMajor(rowMajor, [&](const TakenResult &r) {
    results[next++] =
        Buffer(r.dtype, r.shape, r.data, r.allocation, &memory::release);
  });
  if (err)
    for (Buffer &b : results)
      b = Buffer();
  return err;
}

llvm::Error
Entry::callRowMajor(llvm::ArrayRef<BufferView> args,
                    llvm::function_ref<void(const TakenResult &)> take) const {
  // Expanded descriptors: one int64 slot per scalar, one pointer per slot.
  // The context comes first. Every slot is written before it is read: the
  // arguments' here, the results' by the generated code (which returns
  // them all, unless it abandons the call, and then none is read).
  runtime::CallContext context;
  constexpr size_t kContext = runtime::kContextSlots;
  const size_t inSlots = kContext + argSlots_;
  llvm::SmallVector<int64_t, 64> slots;
  slots.resize_for_overwrite(inSlots + resultSlots_);
  runtime::packContext(context, slots.data());
  llvm::SmallVector<void *, 64> packed;
  packed.resize_for_overwrite(inSlots + (resultSlots_ ? 1 : 0));
  size_t pos = kContext;
  for (const BufferView &a : args) {
    runtime::packRowMajor(a.data, a.shape.data(), a.shape.size(), &slots[pos]);
    pos += runtime::descriptorSlots(a.shape.size());
  }
  for (size_t i = 0; i < inSlots; ++i)
    packed[i] = &slots[i];
  int64_t *resultSlots = slots.data() + inSlots;
  if (resultSlots_)
    packed[inSlots] = resultSlots;

  if (!runtime::invoke(context, fn_, packed.data())) // no result written
    return llvm::make_error<RuntimeError>(
        context.errorCode(),
        "@" + signature_.name + ": " + context.error().value_or("abandoned"));

  // A result is the caller's to free unless it is a constant of the code,
  // an argument, or an earlier result: those are copied. So is a strided
  // one, whose memory is released once every result is taken (a later
  // result may be a view of it).
  bool failed = context.failed();
  llvm::Error err = llvm::Error::success();
  llvm::SmallVector<void *, 4> taken, copied;
  size_t at = 0;
  for (const TensorType &type : signature_.results) {
    size_t rank = type.shape.size();
    runtime::ReturnedDescriptor returned(type.dtype, resultSlots + at, rank);
    at += runtime::descriptorSlots(rank);
    bool owned =
        returned.isHeap() && !llvm::is_contained(taken, returned.allocated);
    for (const BufferView &a : args)
      owned &= a.data != returned.allocated;
    if (owned)
      taken.push_back(returned.allocated);
    if (failed || err) { // Not handed out: free what is ours.
      if (owned)
        memory::release(returned.allocated);
      continue;
    }
    bool rowMajor = runtime::isRowMajor(returned.sizes, returned.strides, rank);
    if (owned && !rowMajor)
      copied.push_back(returned.allocated);
    runtime::OwnedBuffer buffer =
        runtime::takeResult(type.dtype, returned, owned && rowMajor);
    llvm::ArrayRef<int64_t> shape(returned.sizes, rank);
    if (!buffer.allocation && product(shape) != 0) {
      err = llvm::createStringError("out of memory copying a result");
      continue;
    }
    take({type.dtype, shape, buffer.data, buffer.allocation});
  }
  for (void *p : copied)
    memory::release(p);
  if (failed) {
    consumeError(std::move(err));
    return llvm::make_error<RuntimeError>(
        context.errorCode(),
        "@" + signature_.name + ": " + context.error().value_or("failed"));
  }
  return err;
}

llvm::Expected<std::vector<Buffer>>
Entry::call(llvm::ArrayRef<BufferView> args) const {
  std::vector<Buffer> results;
  if (llvm::Error err = call(args, results))
    return std::move(err);
  return std::move(results);
}
