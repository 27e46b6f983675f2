//===- Interpreter.cpp - Driver of the fnc reference interpreter ----------===//
//
// Creation (verification, module variables), calls (argument checking),
// the walk over regions and the shared helpers. Control flow, variables and
// effects are in ControlFlow.cpp, tensor ops in TensorOps.cpp and the
// upstream integer/index ops in UpstreamOps.cpp.
//
// Built without exceptions: every call that may fail in the eager kernels
// goes through KernelCalls.h, which returns errors as values.
//
//===----------------------------------------------------------------------===//

#include "InterpreterImpl.h"

#include "fnc/Dialect/Fnc/IR/FncOps.h"
#include "fnc/Shape/ShapeRules.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/ScopeExit.h"

#include <cstdlib>
#include <limits>
#include <memory>

using namespace mlir;
using namespace mlir::fnc;
using llvm::Error;
using llvm::Expected;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

Error mlir::fnc::makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::string mlir::fnc::locationString(Location loc) {
  if (auto file = loc->findInstanceOf<FileLineColLoc>())
    return (file.getFilename().getValue() + ":" + llvm::Twine(file.getLine()) +
            ":" + llvm::Twine(file.getColumn()))
        .str();
  if (isa<UnknownLoc>(loc))
    return "";
  std::string s;
  llvm::raw_string_ostream os(s);
  loc.print(os);
  return s;
}

Error mlir::fnc::opError(Operation *op, const llvm::Twine &message) {
  std::string where = locationString(op->getLoc());
  return makeError((where.empty() ? "" : where + ": ") + "'" +
                   op->getName().getStringRef() + "': " + message);
}

std::string mlir::fnc::describe(const TensorValue &t) {
  if (!t.defined())
    return "<null tensor>";
  return ::fnc::shapes::describe(t.dtype(), t.shape());
}

bool mlir::fnc::matchesType(const TensorValue &t, RankedTensorType type) {
  if (!t.defined() || dtypeOf(type.getElementType()) != t.dtype())
    return false;
  const std::vector<int64_t> &shape = t.shape();
  if (static_cast<int64_t>(shape.size()) != type.getRank())
    return false;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (!type.isDynamicDim(i) && type.getDimSize(i) != shape[i])
      return false;
  return true;
}

std::string mlir::fnc::typeString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

namespace {
/// Reads every element of `attr` as T (or, failing that, as the wide APInt /
/// APFloat form) into `out`.
template <typename T, typename Wide, typename Convert>
bool readElements(ElementsAttr attr, T *out, Convert convert) {
  int64_t i = 0;
  if (auto values = attr.tryGetValues<T>()) {
    for (T v : *values)
      out[i++] = v;
    return true;
  }
  if (auto values = attr.tryGetValues<Wide>()) {
    for (Wide v : *values)
      out[i++] = convert(v);
    return true;
  }
  return false;
}
} // namespace

Expected<TensorValue> mlir::fnc::tensorFromAttr(ElementsAttr attr) {
  auto type = dyn_cast<RankedTensorType>(attr.getShapedType());
  std::optional<DType> dtype =
      type ? dtypeOf(type.getElementType()) : std::nullopt;
  if (!dtype)
    return makeError("the constant of type " + typeString(attr.getType()) +
                     " is not a ranked tensor of f32, f64, i1, i32, i64 or "
                     "!fnc.string");
  if (*dtype == DType::str) {
    auto strings = dyn_cast<DenseStringElementsAttr>(attr);
    if (!strings)
      return makeError("the string constant of type " + typeString(type) +
                       " is not a dense<...> of strings");
    std::vector<std::string> values;
    for (StringRef s : strings.getValues<StringRef>())
      values.push_back(s.str());
    interp::KernelResult r =
        interp::makeStrings(::fnc::Shape(type.getShape()), values);
    if (!r.ok)
      return makeError(r.message);
    return r.value;
  }
  // The count saturates instead of wrapping (getNumElements would wrap).
  int64_t n = ::fnc::shapes::numElements(::fnc::Shape(type.getShape()));
  if (n > std::numeric_limits<int64_t>::max() / 16)
    return makeError("the byte size of the constant of type " +
                     typeString(type) + " does not fit in 64 bits");
  // (malloc, not a vector: too large a size is an error, not an abort.)
  size_t size = n * ::fnc::sizeOf(*dtype);
  std::unique_ptr<char, void (*)(void *)> owner(
      static_cast<char *>(std::malloc(size + 1)), &std::free);
  if (!owner)
    return makeError("out of memory reading the constant of type " +
                     typeString(type) + " (" + std::to_string(size) +
                     " bytes)");
  char *bytes = owner.get();
  bool ok = false;
  // A dense resource (fnc::save's big values): the elements row-major, one
  // byte per i1.
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob || blob->getData().size() != size)
      return makeError("the dense resource of the constant of type " +
                       typeString(type) + " is missing or holds " +
                       std::to_string(blob ? blob->getData().size() : 0) +
                       " bytes instead of " + std::to_string(size));
    std::copy(blob->getData().begin(), blob->getData().end(), bytes);
    ok = true;
  } else {
    auto asDouble = [](const APFloat &v) { return v.convertToDouble(); };
    auto asFloat = [](const APFloat &v) { return v.convertToFloat(); };
    switch (*dtype) {
    case DType::i1:
      ok = readElements<bool, APInt>(
          attr, reinterpret_cast<bool *>(bytes),
          [](const APInt &v) { return !v.isZero(); });
      break;
    case DType::f32:
      ok = readElements<float, APFloat>(
          attr, reinterpret_cast<float *>(bytes), asFloat);
      break;
    case DType::f64:
      ok = readElements<double, APFloat>(
          attr, reinterpret_cast<double *>(bytes), asDouble);
      break;
    case DType::i32:
      ok = readElements<int32_t, APInt>(
          attr, reinterpret_cast<int32_t *>(bytes), [](const APInt &v) {
            return static_cast<int32_t>(v.getSExtValue());
          });
      break;
    case DType::i64:
      ok = readElements<int64_t, APInt>(
          attr, reinterpret_cast<int64_t *>(bytes),
          [](const APInt &v) { return v.getSExtValue(); });
      break;
    case DType::str: // above
      break;
    }
  }
  if (!ok)
    return makeError("cannot read the elements of the constant of type " +
                     typeString(type) +
                     " (use a dense<...> or dense_resource<...> attribute)");
  interp::KernelResult r =
      interp::makeTensor(*dtype, ::fnc::Shape(type.getShape()), bytes);
  if (!r.ok)
    return makeError(r.message);
  return r.value;
}

//===----------------------------------------------------------------------===//
// Interpreter
//===----------------------------------------------------------------------===//

Interpreter::Interpreter(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
Interpreter::~Interpreter() = default;

Expected<std::unique_ptr<Interpreter>>
Interpreter::create(ModuleOp module, InterpreterOptions options) {
  auto impl = std::make_unique<Impl>(module, options);
  if (Error err = impl->initialize())
    return std::move(err);
  return std::unique_ptr<Interpreter>(new Interpreter(std::move(impl)));
}

Expected<std::vector<TensorValue>>
Interpreter::call(llvm::StringRef entry, llvm::ArrayRef<TensorValue> args,
                  llvm::ArrayRef<TensorValue *> variables) {
  impl->lastErrorKind = ::fnc::ErrorKind::InvalidArgument;
  return impl->call(entry, args, variables);
}

::fnc::ErrorKind Interpreter::lastErrorKind() const {
  return impl->lastErrorKind;
}

std::optional<TensorValue>
Interpreter::getVariable(llvm::StringRef name) const {
  auto it = impl->globals.find(name);
  if (it == impl->globals.end())
    return std::nullopt;
  return it->second;
}

Error Interpreter::setVariable(llvm::StringRef name, const TensorValue &value) {
  auto it = impl->globals.find(name);
  if (it == impl->globals.end())
    return makeError("the module has no fnc.global_variable @" + name);
  auto global = impl->module.lookupSymbol<GlobalVariableOp>(name);
  auto type = cast<RankedTensorType>(global.getInitialValue().getType());
  if (!matchesType(value, type))
    return makeError("module variable @" + name + " has type " +
                     typeString(type) + "; cannot set it to " +
                     describe(value));
  it->second = value;
  return Error::success();
}

void Interpreter::setOutput(std::ostream *output) {
  impl->options.output = output;
}

Error Interpreter::Impl::initialize() {
  std::string diagnostics;
  {
    ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &d) {
      std::string where = locationString(d.getLocation());
      diagnostics += (where.empty() ? "" : where + ": ") + d.str() + "\n";
      return success();
    });
    if (failed(verify(module)))
      return makeError("the module does not verify:\n" + diagnostics);
  }
  for (auto global : module.getOps<GlobalVariableOp>()) {
    if (auto type = dyn_cast<ShapedType>(global.getInitialValue().getType()))
      if (Error err = checkSize(global, type.getShape()))
        return err;
    Expected<TensorValue> value = tensorFromAttr(global.getInitialValue());
    if (!value)
      return opError(global, "initial value of @" + global.getSymName() + ": " +
                                 llvm::toString(value.takeError()));
    globals[global.getSymName()] = *value;
  }
  return Error::success();
}

Expected<std::vector<TensorValue>>
Interpreter::Impl::call(llvm::StringRef entry, llvm::ArrayRef<TensorValue> args,
                        llvm::ArrayRef<TensorValue *> variables) {
  Expected<func::FuncOp> fn = lookupEntry(entry);
  if (!fn)
    return fn.takeError();
  if (Error err = checkArgumentCounts(*fn, args.size(), variables.size()))
    return std::move(err);
  llvm::SmallVector<RtValue> rtArgs;
  if (Error err = bindArguments(*fn, args, variables, rtArgs))
    return std::move(err);
  llvm::SmallVector<RtValue> results;
  steps = 0;
  if (Error err = callFunction(*fn, rtArgs, results))
    return std::move(err);
  return entryResults(*fn, results);
}

Expected<func::FuncOp> Interpreter::Impl::lookupEntry(llvm::StringRef entry) {
  auto fn = module.lookupSymbol<func::FuncOp>(entry);
  if (!fn) {
    std::string names;
    for (auto f : module.getOps<func::FuncOp>())
      if (!f.isExternal())
        names += (names.empty() ? "@" : ", @") + f.getSymName().str();
    return makeError(
        "the module has no function @" + entry +
        (names.empty() ? std::string(" (it has none)") : "; it has " + names));
  }
  if (fn.isExternal())
    return makeError("@" + entry + " is a declaration without a body");
  return fn;
}

Error Interpreter::Impl::checkArgumentCounts(func::FuncOp fn, size_t numArgs,
                                             size_t numVariables) {
  FunctionType type = fn.getFunctionType();
  // What the caller must pass, for the messages.
  size_t tensorArgs = 0, unboundVars = 0;
  std::string expected;
  for (unsigned i = 0; i < type.getNumInputs(); ++i) {
    Type t = type.getInput(i);
    if (isa<VariableType>(t)) {
      if (!fn.getArgAttr(i, FncDialect::kBindAttrName))
        ++unboundVars;
      continue;
    }
    expected += (tensorArgs ? ", " : "") +
                (isa<IndexType>(t) ? "index (a 0-D int32/int64 tensor)"
                                   : typeString(t));
    ++tensorArgs;
  }
  std::string name = "@" + fn.getSymName().str();
  if (numArgs != tensorArgs)
    return makeError(name + " takes " + llvm::Twine(tensorArgs) +
                     " tensor argument(s) (" + expected + "), got " +
                     llvm::Twine(numArgs));
  if (numVariables != unboundVars)
    return makeError(name + " takes " + llvm::Twine(unboundVars) +
                     " variable argument(s) without fnc.bind, got " +
                     llvm::Twine(numVariables));
  return Error::success();
}

Error Interpreter::Impl::bindArguments(func::FuncOp fn,
                                       llvm::ArrayRef<TensorValue> args,
                                       llvm::ArrayRef<TensorValue *> variables,
                                       llvm::SmallVectorImpl<RtValue> &rtArgs) {
  FunctionType type = fn.getFunctionType();
  std::string name = "@" + fn.getSymName().str();
  size_t nextArg = 0, nextVar = 0;
  for (unsigned i = 0; i < type.getNumInputs(); ++i) {
    Type t = type.getInput(i);
    std::string which = "argument #" + std::to_string(i) + " of " + name;
    if (auto varType = dyn_cast<VariableType>(t)) {
      TensorValue *slot = nullptr;
      if (auto bind = fn.getArgAttrOfType<FlatSymbolRefAttr>(
              i, FncDialect::kBindAttrName)) {
        auto it = globals.find(bind.getValue());
        if (it == globals.end())
          return makeError(which + " is bound to " + bind.getValue() +
                           ", which is not a module variable");
        slot = &it->second;
      } else {
        slot = variables[nextVar];
        std::string pos = std::to_string(nextVar++);
        if (!slot || !slot->defined())
          return makeError(which + " (variable #" + pos +
                           ") needs a tensor slot holding a value of type " +
                           typeString(varType.getValueType()));
      }
      if (!matchesType(*slot, varType.getValueType()))
        return makeError(which + ": the variable holds " + describe(*slot) +
                         " but the function expects " +
                         typeString(varType.getValueType()));
      rtArgs.push_back(RtValue::ofVariable(slot));
      continue;
    }
    const TensorValue &arg = args[nextArg];
    which += " (tensor argument #" + std::to_string(nextArg++) + ")";
    if (isa<IndexType>(t)) {
      int64_t value = 0;
      std::string error;
      if (!arg.defined() || arg.rank() != 0 ||
          !interp::readInt(arg, 0, value, error) || arg.dtype() == DType::i1)
        return makeError(which +
                         " is an index: pass a 0-D int32 or int64 "
                         "tensor, got " +
                         describe(arg));
      rtArgs.push_back(RtValue::ofInteger(value));
      continue;
    }
    auto tensorType = dyn_cast<RankedTensorType>(t);
    if (!tensorType)
      return makeError(which + " has type " + typeString(t) +
                       ", which the interpreter cannot pass; use tensors, "
                       "index or !fnc.variable arguments");
    if (!arg.defined())
      return makeError(which + " is a null tensor; expected " +
                       typeString(tensorType));
    if (!matchesType(arg, tensorType))
      return makeError(which + ": expected " + typeString(tensorType) +
                       ", got " + describe(arg));
    rtArgs.push_back(RtValue::ofTensor(arg));
  }
  return Error::success();
}

Expected<std::vector<TensorValue>>
Interpreter::Impl::entryResults(func::FuncOp fn,
                                llvm::ArrayRef<RtValue> results) {
  std::string name = "@" + fn.getSymName().str();
  std::vector<TensorValue> out;
  for (auto [i, r] : llvm::enumerate(results)) {
    switch (r.kind) {
    case RtValue::Kind::Tensor:
      out.push_back(r.tensor);
      break;
    case RtValue::Kind::Integer: {
      interp::KernelResult t = interp::makeTensor(DType::i64, {}, &r.integer);
      if (!t.ok)
        return makeError(t.message);
      out.push_back(t.value);
      break;
    }
    default:
      return makeError(name + " returns a variable (result #" + llvm::Twine(i) +
                       "); return its value with fnc.var_read instead");
    }
  }
  return out;
}

//===----------------------------------------------------------------------===//
// The walk
//===----------------------------------------------------------------------===//

Error Interpreter::Impl::callFunction(func::FuncOp fn,
                                      llvm::ArrayRef<RtValue> args,
                                      llvm::SmallVectorImpl<RtValue> &results) {
  if (fn.isExternal())
    return opError(fn,
                   "@" + fn.getSymName() + " is a declaration without a body");
  if (callDepth >= options.maxCallDepth)
    return opError(fn, "calls nested more than " +
                           llvm::Twine(options.maxCallDepth) +
                           " deep (runaway recursion?)");
  ++callDepth;
  llvm::scope_exit restore([&] { --callDepth; });
  Frame frame;
  return runRegion(fn.getBody(), args, frame, results);
}

Error Interpreter::Impl::runRegion(Region &region, llvm::ArrayRef<RtValue> args,
                                   Frame &frame,
                                   llvm::SmallVectorImpl<RtValue> &yielded) {
  Operation *parent = region.getParentOp();
  if (!region.hasOneBlock())
    return opError(parent, "regions with several blocks (unstructured "
                           "control flow) are not supported by the "
                           "interpreter");
  Block &block = region.front();
  if (block.getNumArguments() != args.size())
    return opError(parent, "internal error: region expects " +
                               llvm::Twine(block.getNumArguments()) +
                               " values, got " + llvm::Twine(args.size()));
  for (auto [arg, value] : llvm::zip(block.getArguments(), args)) {
    if (auto type = dyn_cast<RankedTensorType>(arg.getType()))
      if (value.kind != RtValue::Kind::Tensor ||
          !matchesType(value.tensor, type))
        return opError(parent, "region argument #" +
                                   llvm::Twine(arg.getArgNumber()) +
                                   " of type " + typeString(type) +
                                   " receives " + describe(value.tensor));
    frame[arg] = value;
  }
  for (Operation &op : block) {
    if (!op.hasTrait<OpTrait::IsTerminator>()) {
      if (Error err = runOp(&op, frame))
        return err;
      continue;
    }
    if (!isa<func::ReturnOp, YieldOp, ConditionOp>(op))
      return opError(&op, "unsupported terminator; the interpreter runs "
                          "func.return, fnc.yield and fnc.condition");
    yielded.clear();
    for (Value operand : op.getOperands()) {
      auto it = frame.find(operand);
      if (it == frame.end())
        return opError(&op, "internal error: operand has no value");
      yielded.push_back(it->second);
    }
    return Error::success();
  }
  return opError(parent, "a block without terminator");
}

Error Interpreter::Impl::checkSize(Operation *op,
                                   llvm::ArrayRef<int64_t> shape) {
  const int64_t limit = options.maxElements;
  if (limit <= 0)
    return Error::success();
  // The element count, saturated just above the limit.
  int64_t count = 1;
  for (int64_t d : shape)
    if (!ShapedType::isDynamic(d))
      count = d != 0 && count > limit / d ? limit + 1 : count * d;
  if (count <= limit)
    return Error::success();
  std::string dims;
  for (int64_t d : shape)
    dims += (dims.empty() ? "" : "x") +
            (ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d));
  return opError(op, "a tensor of shape [" + dims + "] is over this "
                     "interpreter's limit of " + llvm::Twine(limit) +
                     " elements");
}

Error Interpreter::Impl::runOp(Operation *op, Frame &frame) {
  if (options.maxSteps > 0 && ++steps > options.maxSteps)
    return opError(op, "the call ran more than " +
                           llvm::Twine(options.maxSteps) +
                           " ops, this interpreter's limit (a loop that does "
                           "not end?)");
  for (Type type : op->getResultTypes())
    if (auto shaped = dyn_cast<RankedTensorType>(type))
      if (Error err = checkSize(op, shaped.getShape()))
        return err;
  bool handled = false;
  if (Error err = runTensorOp(op, frame, handled))
    return err;
  if (!handled)
    if (Error err = runControlFlowOrEffect(op, frame, handled))
      return err;
  if (!handled)
    if (Error err = runUpstreamOp(op, frame, handled))
      return err;
  if (!handled)
    return opError(op, "op not supported by the interpreter (it runs the fnc "
                       "dialect, func.call/func.return, arith integer and "
                       "index ops, tensor.dim and tensor.cast)");
  // Every tensor result must agree with its static type.
  for (OpResult result : op->getResults()) {
    auto it = frame.find(result);
    if (it == frame.end())
      return opError(op, "internal error: result #" +
                             llvm::Twine(result.getResultNumber()) +
                             " was not computed");
    if (auto type = dyn_cast<RankedTensorType>(result.getType())) {
      if (it->second.kind == RtValue::Kind::Tensor)
        if (Error err = checkSize(op, it->second.tensor.shape()))
          return err;
      if (!matchesType(it->second.tensor, type))
        return opError(op, "result #" + llvm::Twine(result.getResultNumber()) +
                               " is " + describe(it->second.tensor) +
                               " but its type is " + typeString(type) +
                               " (a dynamic size did not match at run time)");
    }
  }
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Value access
//===----------------------------------------------------------------------===//

Expected<TensorValue> Interpreter::Impl::tensor(Operation *user, Value value,
                                                Frame &frame) {
  auto it = frame.find(value);
  if (it == frame.end() || it->second.kind != RtValue::Kind::Tensor)
    return opError(user, "internal error: operand is not a computed tensor");
  return it->second.tensor;
}

Expected<int64_t> Interpreter::Impl::integer(Operation *user, Value value,
                                             Frame &frame) {
  auto it = frame.find(value);
  if (it == frame.end() || it->second.kind != RtValue::Kind::Integer)
    return opError(user, "internal error: operand is not a computed integer");
  return it->second.integer;
}

Expected<TensorValue *> Interpreter::Impl::variable(Operation *user,
                                                    Value value, Frame &frame) {
  auto it = frame.find(value);
  if (it == frame.end() || it->second.kind != RtValue::Kind::Variable)
    return opError(user, "internal error: operand is not a variable");
  return it->second.variable;
}

Expected<::fnc::Shape> Interpreter::Impl::shapeOf(Operation *op,
                                                  RankedTensorType type,
                                                  ValueRange dynamicDims,
                                                  Frame &frame) {
  ::fnc::Shape shape;
  auto dim = dynamicDims.begin();
  for (int64_t i = 0; i < type.getRank(); ++i) {
    if (!type.isDynamicDim(i)) {
      shape.push_back(type.getDimSize(i));
      continue;
    }
    if (dim == dynamicDims.end())
      return opError(op, "internal error: missing dynamic dimension");
    Expected<int64_t> size = integer(op, *dim++, frame);
    if (!size)
      return size.takeError();
    if (*size < 0)
      return opError(op, "dynamic dimension #" + llvm::Twine(i) + " of " +
                             typeString(type) + " is " + llvm::Twine(*size) +
                             "; sizes must be >= 0");
    shape.push_back(*size);
  }
  if (Error err = checkSize(op, shape))
    return std::move(err);
  return shape;
}

Expected<TensorValue> Interpreter::Impl::check(Operation *op,
                                               interp::KernelResult result) {
  if (!result.ok) {
    lastErrorKind = result.kind;
    return opError(op, result.message);
  }
  return std::move(result.value);
}
