//===- Instance.cpp - Calls of code compiled by fnc-compile ---------------===//
//
// fnc::aot::Instance: the variables' buffers of one loaded module and the
// calls of its packed entry points, with the JIT's checks and messages.
// The arguments become expanded memref descriptors after the call's
// context (lib/Runtime/Descriptors.cpp, shared with the JIT), the call runs
// through fnc::runtime::invoke, and the results become tensors that own
// the memory the generated code allocated.
//
//===----------------------------------------------------------------------===//

#include "fnc/AOT.h"
#include "fnc/API/TensorImpl.h"
#include "fnc/Error.h"
#include "fnc/Memory.h"
#include "fnc/Runtime/Descriptors.h"
#include "fnc/Runtime/Runtime.h"

#include <cstring>
#include <new>
#include <string>

using namespace fnc;
using namespace fnc::aot;

static_assert(aot::kDynamic == shapes::kDynamic,
              "fnc::aot and the shape rules share the unknown-dim sentinel");

namespace {

int64_t numElements(const TypeInfo &type) {
  int64_t n = 1;
  for (size_t i = 0; i < type.rank; ++i)
    n *= type.shape[i];
  return n;
}

size_t numBytes(const TypeInfo &type) {
  return static_cast<size_t>(numElements(type)) * sizeOf(type.dtype);
}

std::string typeString(const TypeInfo &type) {
  return runtime::tensorTypeString(type.dtype, type.shape, type.rank);
}

std::string typeString(const ref::Array &a) {
  return runtime::tensorTypeString(a.dtype, a.shape.data(), a.shape.size());
}

bool accepts(const TypeInfo &type, const ref::Array &a) {
  return runtime::typeAccepts(type.dtype, type.shape, type.rank, a.dtype,
                              a.shape.data(), a.shape.size());
}

/// The row-major array of a tensor argument (throws for a null handle or a
/// symbolic tensor).
const ref::Array &arrayOf(const Tensor &t) {
  return detail::TensorAccess::impl(t).array("data");
}

/// A tensor that owns `allocation` (freed with memory::release) and shows
/// `data` with `shape`.
Tensor adopt(DType dtype, const int64_t *shape, size_t rank, void *data,
             void *allocation) {
  ref::Array array;
  array.dtype = dtype;
  array.shape.assign(shape, shape + rank);
  std::shared_ptr<void> owner(allocation, &memory::release);
  array.buffer = std::shared_ptr<void>(std::move(owner), data);
  return detail::TensorAccess::wrap(std::move(array));
}

/// A tensor holding a copy of `bytes` bytes at `data`.
Tensor copyOf(DType dtype, const int64_t *shape, size_t rank, const void *data,
              size_t bytes) {
  void *copy = memory::allocate(bytes ? bytes : 1);
  if (!copy)
    throw Error(ErrorKind::OutOfRange, "out of memory copying a tensor of " +
                                           std::to_string(bytes) + " bytes");
  std::memcpy(copy, data, bytes);
  return adopt(dtype, shape, rank, copy, copy);
}

[[noreturn]] void argumentError(const FunctionInfo &fn, size_t index,
                                const std::string &what) {
  throw Error(ErrorKind::InvalidArgument, "argument #" + std::to_string(index) +
                                              " of @" + fn.name + ": " + what);
}

} // namespace

//===----------------------------------------------------------------------===//
// Variables
//===----------------------------------------------------------------------===//

Instance::Instance(const ModuleInfo &info) : info_(&info) {
  allocate();
  for (size_t i = 0; i < info_->numVariables; ++i)
    std::memcpy(variables_[i], info_->variables[i].initialValue,
                numBytes(info_->variables[i].type));
}

Instance::Instance(const Instance &other) : info_(other.info_) {
  allocate();
  for (size_t i = 0; i < info_->numVariables; ++i)
    std::memcpy(variables_[i], other.variables_[i],
                numBytes(info_->variables[i].type));
}

Instance &Instance::operator=(const Instance &other) {
  if (this != &other) {
    Instance copy(other);
    *this = std::move(copy);
  }
  return *this;
}

Instance::Instance(Instance &&other) noexcept
    : info_(other.info_), variables_(std::move(other.variables_)) {
  other.variables_.clear();
}

Instance &Instance::operator=(Instance &&other) noexcept {
  if (this != &other) {
    release();
    info_ = other.info_;
    variables_ = std::move(other.variables_);
    other.variables_.clear();
  }
  return *this;
}

Instance::~Instance() { release(); }

void Instance::allocate() {
  variables_.reserve(info_->numVariables);
  for (size_t i = 0; i < info_->numVariables; ++i) {
    size_t bytes = numBytes(info_->variables[i].type);
    void *p = memory::allocate(bytes ? bytes : 1);
    if (!p) {
      release();
      throw Error(ErrorKind::OutOfRange,
                  std::string("out of memory allocating variable @") +
                      info_->variables[i].name + " of " +
                      std::to_string(bytes) + " bytes");
    }
    variables_.push_back(p);
  }
}

void Instance::release() {
  for (void *p : variables_)
    memory::release(p);
  variables_.clear();
}

static const VariableInfo &variableAt(const ModuleInfo &info, size_t index) {
  if (index >= info.numVariables)
    throw Error(ErrorKind::OutOfRange,
                "variable #" + std::to_string(index) + " of module '" +
                    info.name + "': it has " +
                    std::to_string(info.numVariables) + " variables");
  return info.variables[index];
}

Tensor Instance::read(size_t index) const {
  const VariableInfo &var = variableAt(*info_, index);
  return copyOf(var.type.dtype, var.type.shape, var.type.rank,
                variables_[index], numBytes(var.type));
}

void Instance::assign(size_t index, const Tensor &value) {
  const VariableInfo &var = variableAt(*info_, index);
  const ref::Array &a = arrayOf(value);
  if (!accepts(var.type, a))
    throw Error(ErrorKind::InvalidArgument,
                std::string("cannot assign a ") + typeString(a) +
                    " to variable @" + var.name + " of type " +
                    typeString(var.type) +
                    "; assign a tensor of exactly that dtype and shape");
  std::memcpy(variables_[index], a.rawData(), numBytes(var.type));
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

std::vector<Tensor> Instance::call(size_t index,
                                   std::initializer_list<Arg> args) {
  if (index >= info_->numFunctions)
    throw Error(ErrorKind::OutOfRange,
                "function #" + std::to_string(index) + " of module '" +
                    info_->name + "': it has " +
                    std::to_string(info_->numFunctions) + " functions");
  const FunctionInfo &fn = info_->functions[index];

  // The arguments as the signature takes them: the caller's tensors for
  // the parameters, the instance's buffers for the bound variables.
  size_t params = 0;
  for (size_t i = 0; i < fn.numArgs; ++i)
    params += fn.args[i].kind != ArgKind::BoundVariable;
  if (args.size() != params)
    throw Error(ErrorKind::InvalidArgument,
                std::string("@") + fn.name + " takes " +
                    std::to_string(params) + " argument" +
                    (params == 1 ? "" : "s") + " but " +
                    std::to_string(args.size()) + " were given");
  struct Passed {
    void *data;
    const int64_t *shape;
    size_t rank;
  };
  std::vector<Passed> passed(fn.numArgs);
  // Unbound variables are updated in a copy that replaces the caller's
  // tensor after the call (tensors are immutable values).
  std::vector<void *> copies;
  struct CopiesGuard {
    std::vector<void *> &copies;
    ~CopiesGuard() {
      for (void *p : copies)
        memory::release(p);
    }
  } guard{copies};
  const Arg *arg = args.begin();
  size_t slotCount = runtime::kContextSlots;
  for (size_t i = 0; i < fn.numArgs; ++i) {
    const ArgInfo &info = fn.args[i];
    slotCount += runtime::descriptorSlots(info.type.rank);
    if (info.kind == ArgKind::BoundVariable) {
      passed[i] = {variables_.at(info.variable), info.type.shape,
                   info.type.rank};
      continue;
    }
    const ref::Array &a = arrayOf(*arg->in);
    if (!accepts(info.type, a))
      argumentError(
          fn, i,
          "expected " +
              std::string(info.kind == ArgKind::Variable
                              ? "!fnc.variable<" + typeString(info.type) + ">"
                              : typeString(info.type)) +
              ", got " + typeString(a));
    void *data = const_cast<void *>(a.rawData());
    if (info.kind == ArgKind::Variable) {
      if (!arg->inout)
        argumentError(fn, i,
                      "a variable argument needs a non-const fnc::Tensor, "
                      "which the call replaces by the updated value");
      size_t bytes = a.numBytes();
      data = memory::allocate(bytes ? bytes : 1);
      if (!data)
        throw Error(ErrorKind::OutOfRange, "out of memory copying argument #" +
                                               std::to_string(i) + " of @" +
                                               fn.name);
      copies.push_back(data);
      std::memcpy(data, a.rawData(), bytes);
    }
    passed[i] = {data, a.shape.data(), a.shape.size()};
    ++arg;
  }
  size_t resultSlots = 0;
  for (size_t r = 0; r < fn.numResults; ++r)
    resultSlots += runtime::descriptorSlots(fn.results[r].rank);

  runtime::CallContext context;
  std::vector<int64_t> slots(slotCount + resultSlots);
  runtime::packContext(context, slots.data());
  size_t pos = runtime::kContextSlots;
  for (const Passed &p : passed) {
    runtime::packRowMajor(p.data, p.shape, p.rank, &slots[pos]);
    pos += runtime::descriptorSlots(p.rank);
  }
  std::vector<void *> packed(slotCount + (resultSlots ? 1 : 0));
  for (size_t i = 0; i < slotCount; ++i)
    packed[i] = &slots[i];
  int64_t *results = slots.data() + slotCount;
  if (resultSlots)
    packed[slotCount] = results;

  bool finished = runtime::invoke(context, fn.entry, packed.data());

  // Take every returned buffer (even after an error, to free it).
  std::vector<Tensor> outs;
  bool outOfMemory = false;
  if (finished) {
    std::vector<const void *> earlier;
    size_t at = 0;
    for (size_t r = 0; r < fn.numResults; ++r) {
      const TypeInfo &type = fn.results[r];
      runtime::ReturnedDescriptor d(type.dtype, results + at, type.rank);
      at += runtime::descriptorSlots(type.rank);
      bool owned = d.isHeap();
      for (const Passed &p : passed)
        owned &= p.data != d.allocated;
      for (const void *e : earlier)
        owned &= e != d.data;
      runtime::OwnedBuffer b = runtime::takeResult(type.dtype, d, owned);
      int64_t count = 1;
      for (size_t k = 0; k < type.rank; ++k)
        count *= d.sizes[k];
      if (!b.allocation && count != 0) {
        outOfMemory = true;
        continue;
      }
      earlier.push_back(b.data);
      outs.push_back(
          adopt(type.dtype, d.sizes, type.rank, b.data, b.allocation));
    }
  }
  if (!finished || context.failed())
    throw Error(runtime::errorKind(context.errorCode()),
                std::string("@") + fn.name + ": " +
                    context.error().value_or("failed"));
  if (outOfMemory)
    throw Error(ErrorKind::OutOfRange, std::string("@") + fn.name +
                                           ": out of memory copying a result");

  // The updated unbound variables replace the caller's tensors.
  arg = args.begin();
  size_t copy = 0;
  for (size_t i = 0; i < fn.numArgs; ++i) {
    const ArgInfo &info = fn.args[i];
    if (info.kind == ArgKind::BoundVariable)
      continue;
    if (info.kind == ArgKind::Variable) {
      void *data = copies[copy];
      copies[copy++] = nullptr;
      *arg->inout =
          adopt(info.type.dtype, passed[i].shape, passed[i].rank, data, data);
    }
    ++arg;
  }
  return outs;
}
