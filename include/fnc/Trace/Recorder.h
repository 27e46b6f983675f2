//===- Recorder.h - The hook between eager ops and the tracer ---*- C++ -*-===//
//
// Internal to fnc; MLIR-free. While fnc::function traces a callable, a
// Recorder is *active* on the tracing thread. Every public op checks for it at
// its dispatch point (lib/API): after the same dtype and shape checks as
// eager execution, it describes itself as an OpRecord (a struct per op
// family, namespace ops, with named attributes) and asks the recorder for a
// value id instead of running its kernel; the result is a *symbolic* tensor
// (dtype, shape with possibly unknown dims, no buffer) that carries the id and
// the TraceToken of its trace.
//
// Eager tensors used by a recorded op are *captured*: small ones (at most
// kMaxConstantBytes) become constants of the trace, bigger ones hidden
// trailing arguments whose tensors are kept in Recorder::hiddenArgs and
// passed on every call. A symbolic tensor used outside its trace (stored
// away and used after the trace ended, or used by another thread) is an
// error that says it leaked and how to fix it.
//
// The recorder implementation (lib/Trace/TraceLog.cpp, with the MLIR side
// in lib/Trace/TraceIR.cpp) is built without exceptions: it returns errors
// as values; the throwing side is here, in the API library.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_TRACE_RECORDER_H
#define FNC_TRACE_RECORDER_H

#include "fnc/Reference/Kernels.h"
#include "fnc/Shape/ShapeRules.h"
#include "fnc/Tensor.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
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

/// The ops a dispatch point can record: one struct per op family, holding
/// its attributes (operands, result dtype and shape are in OpRecord). Axes
/// are normalized (non-negative) by the dispatch point.
namespace ops {
// Creation (fnc::fill records BroadcastTo of its captured scalar).
struct Range {
  double start, limit, delta;
};
struct Eye {};
// Elementwise.
struct Cast {};
struct Binary {
  ref::BinaryOp kind; // comparisons included
};
struct Unary {
  ref::UnaryOp kind;
};
struct Select {}; // cond, lhs, rhs
// Linear algebra.
struct Matmul {};
struct Conv2D {
  std::vector<int64_t> strides;
  bool samePadding;
};
// Pooling: max or average; the gradient ops take (input, output gradient).
struct Pool2D {
  bool max;
  std::vector<int64_t> ksize, strides;
  bool samePadding;
};
struct Pool2DGrad {
  bool max;
  std::vector<int64_t> ksize, strides;
  bool samePadding;
};
// Shapes.
struct Transpose {
  std::vector<int64_t> perm;
};
struct Reshape {};
struct BroadcastTo {};
struct ExpandDims {
  int64_t axis;
};
struct Squeeze {
  std::vector<int64_t> axes;
};
struct Slice {
  std::vector<int64_t> offsets, sizes, strides;
};
/// fnc.strided_slice: one entry per input dim (the ellipsis and new axes
/// resolved by the dispatch point).
struct StridedSlice {
  shapes::SliceSpec spec;
};
/// fnc.strided_slice_grad: operands the sliced input (for its shape) and
/// the gradient of the slice.
struct StridedSliceGrad {
  shapes::SliceSpec spec;
};
struct Pad {
  std::vector<int64_t> low, high, interior;
  double value;
};
struct Concat {
  int64_t axis;
};
struct Gather {
  int64_t axis;
};
struct OneHot {
  int64_t depth, axis;
  double on, off;
};
// Reductions.
struct Reduce {
  ref::ReduceOp kind;
  std::vector<int64_t> axes;
  bool keepDims;
};
struct ArgMax {
  int64_t axis;
  bool argmin;
};
struct Softmax {
  int64_t axis;
  bool log; // log_softmax
};
/// The fnc::strings functions (fnc/Strings.h; == and != on strings are
/// Binary).
struct Strings {
  enum class Kind { Join, Format, Length, Upper, Lower, Split } kind;
  std::string text;        // join's separator, format's template, split's
  std::string placeholder; // format's
  int64_t option = -1;     // length: 1 for UTF-8 characters; split: maxsplit
};
// State and effects (fnc/Variable.h, fnc/Control.h).
struct VarRead {}; // operand: a variable (Recorder::variableArgument)
/// Operands: variable, value. No result (record returns 0).
struct VarUpdate {
  enum class Mode { Assign, Add, Sub } mode;
};
/// Operands: the tensors to print. No result (record returns 0).
struct Print {
  std::string format;
};
struct RandomUniform {
  double min, max;
  std::optional<int64_t> seed;
};
struct RandomNormal {
  double mean, stddev;
  std::optional<int64_t> seed;
};
// Shapes as values (fnc::shape, fnc::zeros(fnc::shape(x))).
struct ShapeOf {};          // result dtype i32 or i64
struct BroadcastToShape {}; // value, shape tensor
struct SumToShape {};       // a broadcast of the shape, shape tensor
struct ReshapeToShape {};   // input, shape tensor
struct SetRow {};           // input, index (0-d integer), a row of input
/// input, start, size (0-d integers): [start, start + size) along `axis`.
struct DynamicSlice {
  int64_t axis;
};
/// input, start (0-d integer), update: the update written at
/// [start, start + its size) along `axis`.
struct DynamicUpdateSlice {
  int64_t axis;
};
} // namespace ops

using OpAttrs = std::variant<
    ops::Range, ops::Eye, ops::Cast, ops::Binary, ops::Unary, ops::Select,
    ops::Matmul, ops::Conv2D, ops::Pool2D, ops::Pool2DGrad, ops::Transpose,
    ops::Reshape, ops::BroadcastTo, ops::ExpandDims, ops::Squeeze, ops::Slice,
    ops::StridedSlice, ops::StridedSliceGrad, ops::Pad, ops::Concat,
    ops::Gather, ops::OneHot, ops::Reduce, ops::ArgMax, ops::Softmax,
    ops::VarRead, ops::VarUpdate, ops::Print, ops::RandomUniform,
    ops::RandomNormal, ops::ShapeOf, ops::BroadcastToShape, ops::SetRow,
    ops::SumToShape, ops::DynamicSlice, ops::DynamicUpdateSlice,
    ops::ReshapeToShape, ops::Strings>;

/// One op to record: what it is, its operands (value ids) and the result
/// type computed by the shared shape rules (unused by VarUpdate and Print).
struct OpRecord {
  OpAttrs op;
  std::vector<int64_t> operands;
  DType dtype = DType::f32;
  std::vector<int64_t> shape; // unknown dims are shapes::kDynamic
};

/// A variable as a trace passes it: its identity, the tensor sharing its
/// buffer, its name.
struct VariableRef {
  uint64_t uid = 0;
  Tensor alias;
  std::string name;
};

struct Program;

/// What a dispatch point talks to while a trace is active.
class Recorder {
public:
  explicit Recorder(std::shared_ptr<TraceToken> token)
      : token_(std::move(token)) {}
  virtual ~Recorder();

  /// Records `op`; returns the id of its result (0 for an op without one),
  /// or -1 with `error` set. Appends it to `program` if one is open.
  int64_t record(const OpRecord &op, std::string &error);
  /// The result type of value `id`.
  virtual void typeOf(int64_t id, DType &dtype,
                      std::vector<int64_t> &shape) const = 0;
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
                         std::vector<int64_t> &results, std::string &error) = 0;
  /// A `fnc.while` on `inits`: `condBlock` ends with `fnc.condition
  /// condValue` forwarding its arguments, `bodyBlock` with `fnc.yield`.
  /// `kinds`: empty, or per loop variable what it is (a fnc::LoopVar:
  /// 0 a tensor, 1 or 2 part of a fixed-size or growing TensorArray),
  /// kept on the op (`fnc.loop_kinds`) for a gradient of the IR read back.
  virtual bool buildWhile(const std::vector<int64_t> &inits, int64_t condBlock,
                          int64_t condValue, int64_t bodyBlock,
                          const std::vector<int64_t> &bodyYields,
                          const std::vector<uint8_t> &kinds,
                          std::vector<int64_t> &results,
                          std::string &error) = 0;

  const std::shared_ptr<TraceToken> &token() const { return token_; }

  /// The program the ops recorded now go to (fnc/Trace/Program.h): the
  /// trace's, or that of the staged block being recorded; null for none.
  Program *program = nullptr;

  /// The id of the variable argument for the variable `uid` whose buffer
  /// `alias` shares (added to hiddenArgs on first use); `name` is the
  /// variable's (fnc::save names its saved value after it).
  int64_t variableOf(uint64_t uid, const Tensor &alias,
                     const std::string &name);

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

  /// The captured eager tensors that became constants of the trace (small
  /// ones; the others are hidden arguments).
  std::vector<Tensor> constantCaptures() const;
  /// Every captured eager tensor, with its id.
  const std::vector<std::pair<Tensor, int64_t>> &captures() const {
    return captured_;
  }
  /// The variable whose argument is `id` (a uid of 0 for another id), and
  /// the ids of all of them.
  VariableRef variableRef(int64_t id) const;
  const std::vector<std::pair<VariableRef, int64_t>> &variables() const {
    return variables_;
  }

  /// The eager tensors behind the hidden arguments, in order, and for each
  /// the uid of the variable whose buffer it is (0: a captured tensor).
  std::vector<Tensor> hiddenArgs;
  std::vector<uint64_t> hiddenVariables;
  /// Per hidden argument: the name of its variable (empty for a tensor).
  std::vector<std::string> hiddenNames;

  /// How many ops with side effects (variable updates, print, random) have
  /// been recorded: staged control flow compares it around a region.
  int64_t effectsRecorded = 0;

  /// Shape tensors recorded by fnc::shape: the value id and the dims known
  /// while tracing (shapes::kDynamic where unknown), so that
  /// fnc::zeros(fnc::shape(x)) keeps the known dims of x in its type.
  std::vector<std::pair<int64_t, std::vector<int64_t>>> shapeValues;

private:
  std::shared_ptr<TraceToken> token_;
  // Captured eager tensors (kept alive so that their identity stays unique)
  // and their ids.
  std::vector<std::pair<Tensor, int64_t>> captured_;
  // Variables used by the trace and the ids of their arguments.
  std::vector<std::pair<VariableRef, int64_t>> variables_;

protected:
  virtual int64_t recordOp(const OpRecord &op, std::string &error) = 0;
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
