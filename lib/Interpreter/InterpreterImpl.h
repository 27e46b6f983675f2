//===- InterpreterImpl.h - State and helpers of the interpreter -*- C++ -*-===//
//
// Private to the interpreter. Interpreter::Impl holds the module, its
// variables and the random state; it walks regions op by op, keeping the
// run-time value of every SSA value of the current function invocation in a
// Frame. Interpreter.cpp has the driver (creation, calls, arguments, the
// walk), ControlFlow.cpp the control flow, variables and effects,
// UpstreamOps.cpp the arith/tensor ops of dynamic sizes, and TensorOps.cpp
// maps the tensor ops of the dialect onto the eager kernels (through
// KernelCalls.h).
//
//===----------------------------------------------------------------------===//

#ifndef FNC_LIB_INTERPRETER_INTERPRETERIMPL_H
#define FNC_LIB_INTERPRETER_INTERPRETERIMPL_H

#include "KernelCalls.h"
#include "fnc/Dialect/Fnc/IR/DTypes.h"
#include "fnc/Dialect/Fnc/IR/FncOps.h"
#include "fnc/Interpreter/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <optional>

namespace mlir::fnc {

namespace interp = ::fnc::interp;
using ::fnc::DType;
using TensorValue = ::fnc::Tensor;

/// The run-time value of an SSA value: a tensor, an integer (index or a
/// scalar integer of arith), or a variable (a pointer to its tensor slot).
struct RtValue {
  enum class Kind { None, Tensor, Integer, Variable };
  Kind kind = Kind::None;
  TensorValue tensor;
  int64_t integer = 0;
  TensorValue *variable = nullptr;

  static RtValue ofTensor(TensorValue t) {
    RtValue v;
    v.kind = Kind::Tensor;
    v.tensor = std::move(t);
    return v;
  }
  static RtValue ofInteger(int64_t i) {
    RtValue v;
    v.kind = Kind::Integer;
    v.integer = i;
    return v;
  }
  static RtValue ofVariable(TensorValue *slot) {
    RtValue v;
    v.kind = Kind::Variable;
    v.variable = slot;
    return v;
  }
};

/// The values of one function invocation.
using Frame = llvm::DenseMap<Value, RtValue>;

//===----------------------------------------------------------------------===//
// Helpers shared by the two halves
//===----------------------------------------------------------------------===//

/// An llvm::Error holding `message`.
llvm::Error makeError(const llvm::Twine &message);

/// The printed form of `type` ("tensor<2x?xf32>").
std::string typeString(Type type);

/// "file.mlir:3:8" for a location with a file position, else its printed
/// form.
std::string locationString(Location loc);

/// An error "<loc>: '<op name>': <message>".
llvm::Error opError(Operation *op, const llvm::Twine &message);

/// "float32[2,3]".
std::string describe(const TensorValue &t);

/// True if `t` has the element type and every static dim of `type`.
bool matchesType(const TensorValue &t, RankedTensorType type);

/// The tensor held by `attr` (any ElementsAttr with an fnc element type).
llvm::Expected<TensorValue> tensorFromAttr(ElementsAttr attr);

class Interpreter::Impl {
public:
  Impl(ModuleOp module, InterpreterOptions options)
      : module(module), options(options) {}

  llvm::Error initialize();

  llvm::Expected<std::vector<TensorValue>>
  call(llvm::StringRef entry, llvm::ArrayRef<TensorValue> args,
       llvm::ArrayRef<TensorValue *> variables);

  //===--- The entry (Interpreter.cpp) -----------------------------------===//

  /// The function `entry` of the module, which must have a body.
  llvm::Expected<func::FuncOp> lookupEntry(llvm::StringRef entry);
  /// Checks that the caller passes one tensor per tensor or index argument
  /// of `fn` and one variable per variable argument without fnc.bind.
  llvm::Error checkArgumentCounts(func::FuncOp fn, size_t numArgs,
                                  size_t numVariables);
  /// The run-time values of the arguments of `fn`: bound variables from the
  /// module's, the others from `args` and `variables` in order, each checked
  /// against its type.
  llvm::Error bindArguments(func::FuncOp fn, llvm::ArrayRef<TensorValue> args,
                            llvm::ArrayRef<TensorValue *> variables,
                            llvm::SmallVectorImpl<RtValue> &rtArgs);
  /// The results of the entry `fn` as tensors (index results as 0-D int64).
  llvm::Expected<std::vector<TensorValue>>
  entryResults(func::FuncOp fn, llvm::ArrayRef<RtValue> results);

  //===--- Execution (Interpreter.cpp, ControlFlow.cpp, UpstreamOps.cpp) -===//

  /// Runs `fn` on `args` (one per argument) into `results`.
  llvm::Error callFunction(func::FuncOp fn, llvm::ArrayRef<RtValue> args,
                           llvm::SmallVectorImpl<RtValue> &results);

  /// Binds the arguments of the single block of `region`, runs it and
  /// returns the operands of its terminator.
  llvm::Error runRegion(Region &region, llvm::ArrayRef<RtValue> args,
                        Frame &frame, llvm::SmallVectorImpl<RtValue> &yielded);

  /// Runs one non-terminator op.
  llvm::Error runOp(Operation *op, Frame &frame);

  llvm::Error runControlFlowOrEffect(Operation *op, Frame &frame,
                                     bool &handled);
  llvm::Error runCond(CondOp cond, Frame &frame);
  llvm::Error runWhile(WhileOp loop, Frame &frame);
  llvm::Error runCall(func::CallOp call, Frame &frame);
  llvm::Error runVarRead(VarReadOp read, Frame &frame);
  /// fnc.var_assign, fnc.var_assign_add, fnc.var_assign_sub.
  llvm::Error runVarAssign(Operation *op, Frame &frame);
  llvm::Error runPrint(PrintOp print, Frame &frame);
  /// fnc.random_uniform, fnc.random_normal.
  llvm::Error runRandom(Operation *op, Frame &frame);
  llvm::Error runUpstreamOp(Operation *op, Frame &frame, bool &handled);

  //===--- Tensor ops (TensorOps.cpp) ------------------------------------===//

  llvm::Error runTensorOp(Operation *op, Frame &frame, bool &handled);

  /// The result of the one-result tensor op `op` on its tensor operands
  /// `in`: the ops of the op table, then one function per op family.
  llvm::Expected<TensorValue>
  evalTensorOp(Operation *op, const std::vector<TensorValue> &in, Frame &frame);
  /// constant, fill, range, eye, cast, select.
  llvm::Expected<TensorValue> evalCreationOp(Operation *op,
                                             const std::vector<TensorValue> &in,
                                             Frame &frame);
  /// The fnc.string_* ops.
  llvm::Expected<TensorValue> evalStringOp(Operation *op,
                                           const std::vector<TensorValue> &in);
  /// matmul, conv2d, pooling and its gradients.
  llvm::Expected<TensorValue> evalLinalgOp(Operation *op,
                                           const std::vector<TensorValue> &in);
  /// transpose, reshape, broadcast_to, shape_of, broadcast_to_shape,
  /// sum_to_shape, expand_dims, squeeze.
  llvm::Expected<TensorValue>
  evalShapeOp(Operation *op, const std::vector<TensorValue> &in, Frame &frame);
  llvm::Expected<TensorValue> evalShapeOf(Operation *op,
                                          const TensorValue &input);
  /// The sizes a 1-D shape operand holds, checked against the result type
  /// of `op` (none negative, its static dims) and the size limits.
  llvm::Expected<::fnc::Shape> readShapeOperand(Operation *op,
                                                const TensorValue &shape);
  llvm::Expected<TensorValue>
  evalBroadcastToShape(Operation *op, const TensorValue &input,
                       const TensorValue &shapeOperand);
  llvm::Expected<TensorValue> evalSumToShape(Operation *op,
                                             const TensorValue &input,
                                             const TensorValue &shapeOperand);
  /// set_row, slice, concat, gather, one_hot.
  llvm::Expected<TensorValue>
  evalIndexingOp(Operation *op, const std::vector<TensorValue> &in);
  llvm::Expected<TensorValue> evalSetRow(Operation *op,
                                         const TensorValue &input,
                                         const TensorValue &indexOperand,
                                         const TensorValue &value);
  /// argmax, softmax, log_softmax: along one axis.
  llvm::Expected<TensorValue> evalAxisOp(Operation *op,
                                         const std::vector<TensorValue> &in);

  //===--- Value access --------------------------------------------------===//

  /// The tensor of `value`; the verifier guarantees the kind, so a missing
  /// value is an internal error reported through the returned Expected.
  llvm::Expected<TensorValue> tensor(Operation *user, Value value,
                                     Frame &frame);
  llvm::Expected<int64_t> integer(Operation *user, Value value, Frame &frame);
  llvm::Expected<TensorValue *> variable(Operation *user, Value value,
                                         Frame &frame);

  /// The shape of `type` with each dynamic dim taken, in order, from
  /// `dynamicDims` (index values, which must be >= 0).
  llvm::Expected<::fnc::Shape> shapeOf(Operation *op, RankedTensorType type,
                                       ValueRange dynamicDims, Frame &frame);

  /// Turns a kernel result into a tensor or an error naming `op`.
  llvm::Expected<TensorValue> check(Operation *op, interp::KernelResult result);

  ModuleOp module;
  InterpreterOptions options;
  /// Module variables by name; StringMap entries never move.
  llvm::StringMap<TensorValue> globals;
  /// Counters of the random streams: per seeded op, and the shared one.
  llvm::DenseMap<Operation *, uint64_t> randomCounters;
  uint64_t sharedRandomCounter = 0;
  /// Interpreter::lastErrorKind.
  ::fnc::ErrorKind lastErrorKind = ::fnc::ErrorKind::InvalidArgument;
  unsigned callDepth = 0;
  /// Ops run by the current call() (InterpreterOptions::maxSteps).
  int64_t steps = 0;

  /// An error if a tensor of `shape` (its static dims when `type` has
  /// dynamic ones) is over InterpreterOptions::maxElements.
  llvm::Error checkSize(Operation *op, llvm::ArrayRef<int64_t> shape);
};

} // namespace mlir::fnc

#endif // FNC_LIB_INTERPRETER_INTERPRETERIMPL_H
