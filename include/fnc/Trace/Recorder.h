//===- Recorder.h - The hook between eager ops and the tracer ---*- C++ -*-===//
//
// Internal to fnc; MLIR-free. While fnc::function traces a callable, a
// Recorder is *active* on the tracing thread. Every public op checks for it at
// its dispatch point (lib/API): after the same dtype and shape checks as
// eager execution, it describes itself as an OpRecord and asks the recorder
// for a value id instead of running its kernel; the result is a *symbolic*
// tensor (dtype, shape with possibly unknown dims, no buffer) that carries
// the id and the TraceToken of its trace.
//
// Eager tensors used by a recorded op are *captured*: small ones (at most
// kMaxConstantBytes) become constants of the trace, bigger ones hidden
// trailing arguments whose tensors are kept in Recorder::hiddenArgs and
// passed on every call. A symbolic tensor used outside its trace (stored
// away and used after the trace ended, or used by another thread) is an
// error that says it leaked and how to fix it.
//
// The recorder implementation (lib/Trace/TraceBuilder.cpp) is MLIR code
// built without exceptions: it returns errors as values; the throwing side
// is here, in the API library.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_TRACE_RECORDER_H
#define FNC_TRACE_RECORDER_H

#include "fnc/Tensor.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fnc::trace {

/// Identity of one trace; shared by the symbolic tensors it produced, so
/// that a tensor used after its trace ended can say where it came from.
struct TraceToken {
  explicit TraceToken(std::string functionName)
      : functionName(std::move(functionName)) {}
  const std::string functionName;
  std::atomic<bool> alive{true};
};

/// Eager tensors of at most this many bytes are captured as constants;
/// bigger ones become hidden arguments (never baked into machine code).
constexpr size_t kMaxConstantBytes = 1024;

/// The op families a dispatch point can record.
enum class OpCode {
  Fill,      // f0: value; shape: result
  Range,     // f0, f1, f2: start, limit, delta
  Eye,       // shape: result
  Cast,      // operand 0
  Binary,    // kind: ref::BinaryOp (comparisons included)
  Unary,     // kind: ref::UnaryOp
  Select,    // cond, lhs, rhs
  Matmul,    // lhs, rhs
  Conv2D,    // ints: strides; flag: SAME padding
  Transpose, // ints: perm
  Reshape,   // shape: result
  BroadcastTo,
  ExpandDims, // axis
  Squeeze,    // ints: axes
  Slice,      // ints: offsets, ints2: sizes, ints3: strides
  Concat,     // axis (normalized)
  Gather,     // axis (normalized)
  OneHot,     // i0: depth, axis (normalized), f0: on, f1: off
  Reduce,     // kind: ref::ReduceOp, ints: normalized axes, flag: keepdims
  ArgMax,     // axis (normalized); flag: argmin instead
  Softmax,    // axis (normalized); flag: log_softmax
  // State and effects (fnc/Variable.h, fnc/Control.h).
  VarRead,       // operand 0: a variable (variableArgument)
  VarAssign,     // variable, value; no result (record returns 0)
  VarAssignAdd,  // variable, value; no result
  VarAssignSub,  // variable, value; no result
  Print,         // text: format; operands: tensors; no result
  RandomUniform, // f0, f1: min, max; flag: has seed i0
  RandomNormal,  // f0, f1: mean, stddev; flag: has seed i0
  // Shapes as values (fnc::shape, fnc::zeros(fnc::shape(x))).
  ShapeOf,          // operand 0; dtype: i32 or i64
  BroadcastToShape, // value, shape tensor; shape: result
  SetRow,           // input, index (0-d integer), value (a row of input)
};

/// One op to record: its operands (value ids), attributes and the result
/// type computed by the shared shape rules.
struct OpRecord {
  OpCode code = OpCode::Cast;
  int kind = 0;
  std::vector<int64_t> operands;
  std::vector<int64_t> ints, ints2, ints3;
  int64_t axis = 0, i0 = 0;
  double f0 = 0, f1 = 0, f2 = 0;
  bool flag = false;
  std::string text;
  DType dtype = DType::f32;
  std::vector<int64_t> shape; // unknown dims are shapes::kDynamic
};

/// What a dispatch point talks to while a trace is active.
class Recorder {
public:
  explicit Recorder(std::shared_ptr<TraceToken> token)
      : token_(std::move(token)) {}
  virtual ~Recorder();

  /// Records `op`; returns the id of its result, or -1 with `error` set.
  virtual int64_t record(const OpRecord &op, std::string &error) = 0;
  /// A constant holding `data` (row-major, bools one byte each).
  virtual int64_t constant(DType dtype, const std::vector<int64_t> &shape,
                           const void *data) = 0;
  /// Appends a hidden argument of a static type.
  virtual int64_t hiddenArgument(DType dtype,
                                 const std::vector<int64_t> &shape) = 0;

  /// Appends a hidden `!fnc.variable<tensor<...>>` argument of a static
  /// type; returns its id (usable only as the variable operand of Var* ops).
  virtual int64_t variableArgument(DType dtype,
                                   const std::vector<int64_t> &shape) = 0;

  /// Staged control flow. beginBlock starts a detached block with arguments
  /// of the given types (their ids in `argIds`) and records into it until
  /// the matching endBlock; blocks nest. Values of a block are visible only
  /// inside it (and blocks nested in it).
  virtual int64_t beginBlock(const std::vector<DType> &dtypes,
                             const std::vector<std::vector<int64_t>> &shapes,
                             std::vector<int64_t> &argIds) = 0;
  virtual void endBlock() = 0;
  /// False if value `id` is not visible at the current insertion point.
  virtual bool visible(int64_t id) const = 0;
  /// A `fnc.cond` on `pred` with the finished blocks as regions, each ended
  /// by a `fnc.yield` of its values (same types, checked by the caller).
  virtual bool buildCond(int64_t pred, int64_t thenBlock,
                         const std::vector<int64_t> &thenYields,
                         int64_t elseBlock,
                         const std::vector<int64_t> &elseYields,
                         std::vector<int64_t> &results,
                         std::string &error) = 0;
  /// A `fnc.while` on `inits`: `condBlock` ends with `fnc.condition
  /// condValue` forwarding its arguments, `bodyBlock` with `fnc.yield`.
  virtual bool buildWhile(const std::vector<int64_t> &inits, int64_t condBlock,
                          int64_t condValue, int64_t bodyBlock,
                          const std::vector<int64_t> &bodyYields,
                          std::vector<int64_t> &results,
                          std::string &error) = 0;

  const std::shared_ptr<TraceToken> &token() const { return token_; }

  /// The id of the variable argument for the variable `uid` whose buffer
  /// `alias` shares (added to hiddenArgs on first use).
  int64_t variableOf(uint64_t uid, const Tensor &alias);

  /// Whether a fnc::Variable may be created while this trace is active
  /// (only on the first trace of a fnc::function: the singleton rule), and
  /// how many were.
  bool allowVariableCreation = true;
  int64_t variablesCreated = 0;
  /// The variables created in this trace (kept alive by the trace).
  std::vector<std::shared_ptr<void>> ownedState;

  /// The id of `t` in this trace: a symbolic tensor of this trace, or a
  /// captured eager tensor. Throws the leak error for a symbolic tensor of
  /// another trace. `op` names the op for the messages.
  int64_t valueOf(const Tensor &t, const char *op);

  /// The eager tensors behind the hidden arguments, in order.
  std::vector<Tensor> hiddenArgs;

  /// Shape tensors recorded by fnc::shape: the value id and the dims known
  /// while tracing (shapes::kDynamic where unknown), so that
  /// fnc::zeros(fnc::shape(x)) keeps the known dims of x in its type.
  std::vector<std::pair<int64_t, std::vector<int64_t>>> shapeValues;

private:
  std::shared_ptr<TraceToken> token_;
  // Captured eager tensors (kept alive so that their identity stays unique)
  // and their ids.
  std::vector<std::pair<Tensor, int64_t>> captured_;
  // Variables used by the trace: uid and id of their argument.
  std::vector<std::pair<uint64_t, int64_t>> variables_;
};

/// The recorder active on this thread, or null when executing eagerly.
Recorder *activeRecorder();

/// Makes `recorder` active on this thread for the scope's lifetime.
class RecorderScope {
public:
  explicit RecorderScope(Recorder *recorder);
  ~RecorderScope();
  RecorderScope(const RecorderScope &) = delete;
  RecorderScope &operator=(const RecorderScope &) = delete;

private:
  Recorder *previous_;
};

/// A symbolic tensor of `token`'s trace; `name` is what printing shows.
Tensor makeSymbolic(DType dtype, std::vector<int64_t> shape,
                    std::shared_ptr<TraceToken> token, int64_t id,
                    std::string name);
bool isSymbolic(const Tensor &t);
/// The buffer of an eager tensor; throws the leak error for a symbolic one.
const void *concreteData(const Tensor &t);
/// An eager tensor owning `buffer` (row-major contents of dtype/shape).
Tensor adoptBuffer(DType dtype, std::vector<int64_t> shape,
                   std::shared_ptr<void> buffer);

} // namespace fnc::trace

#endif // FNC_TRACE_RECORDER_H
