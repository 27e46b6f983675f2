//===- Lowering.h - Shared pieces of -fnc-lower-to-linalg -------*- C++ -*-===//
//
// Helpers and pattern sets of the fnc -> linalg/tensor/scf lowering, split
// by op family over the files of this folder.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_LIB_CONVERSION_FNCTOLINALG_LOWERING_H
#define FNC_LIB_CONVERSION_FNCTOLINALG_LOWERING_H

#include "fnc/Runtime/ErrorCode.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::fnc::lowering {

/// The codes passed to the runtime's fncRaiseError.
using ErrorCode = ::fnc::runtime::ErrorCode;

/// Names of the runtime functions the lowering calls. Each takes the call's
/// context (see callContext) first.
constexpr llvm::StringLiteral kRaiseError = "fncRaiseError";
constexpr llvm::StringLiteral kPrintText = "fncPrintText";
constexpr llvm::StringLiteral kPrintNewline = "fncPrintNewline";
constexpr llvm::StringLiteral kNumericsError = "fncNumericsError";
constexpr llvm::StringLiteral kCheckFailed = "fncCheckFailed";

/// Declares every runtime function in `module` (private, C interface).
/// Unused declarations are removed after lowering.
void declareRuntimeFunctions(ModuleOp module);

/// The type of the per-call context every lowered function takes as its
/// first argument: the three words generated loops store an error into;
/// its `allocated` pointer is the host's fnc::runtime::CallContext.
MemRefType callContextType(MLIRContext *ctx);

/// The context of the call running the code at the insertion point. While
/// patterns run, this is a placeholder (a call of the undefined
/// `fncCallContext`, usable anywhere, even in a region under construction);
/// when every op is lowered, resolveCallContexts gives each function its
/// context argument and puts it in the placeholders' place.
Value callContext(OpBuilder &b, Location loc);
void resolveCallContexts(ModuleOp module);

/// "F32", "F64", "I1", "I32", "I64": the suffix of typed runtime functions.
StringRef runtimeTypeSuffix(Type elementType);

/// Calls fncRaiseError(code, a, b) (index or integer values, or null for 0).
void raiseError(OpBuilder &b, Location loc, ErrorCode code, Value a, Value b2);

/// Calls fncRaiseError(code, a, b) when `condition` (i1) holds.
void raiseErrorIf(OpBuilder &b, Location loc, Value condition, ErrorCode code,
                  Value a, Value b2);

/// Inside a loop body (a linalg.generic): when `condition` holds, stores
/// {code, a, b} into the call context's loop-error words. No call, so the
/// loop stays a plain loop for vectorization and OpenMP.
void raiseErrorInLoop(OpBuilder &b, Location loc, Value condition,
                      ErrorCode code, Value a, Value b2);

/// Calls `callee(context, memref<?xi8>)` (a C-interface runtime function) on
/// the bytes of `text`, kept in a private constant global of `op`'s module.
void callWithText(OpBuilder &b, Location loc, Operation *op, StringRef callee,
                  StringRef text);

/// A scalar arith.constant of an int/float `type`.
Value scalarConstant(OpBuilder &b, Location loc, Type type, double value);
Value indexConstant(OpBuilder &b, Location loc, int64_t value);

/// Sizes of every dimension of a ranked tensor, as index values.
SmallVector<OpFoldResult> tensorSizes(OpBuilder &b, Location loc, Value tensor);

/// The dynamic sizes of `type` out of `sizes`.
SmallVector<Value> dynamicSizes(OpBuilder &b, Location loc,
                                RankedTensorType type,
                                ArrayRef<OpFoldResult> sizes);

/// tensor.empty of `type` with the given full sizes.
Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type,
                  ArrayRef<OpFoldResult> sizes);

/// Whether a dim of the ranked tensor `type` is statically 0 (it has no
/// elements: slices of it read nothing, and tensor.extract_slice /
/// insert_slice reject every static offset into it).
bool hasStaticZeroDim(Type type);

/// A tensor of `type` filled with `value`.
Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                   ArrayRef<OpFoldResult> sizes, double value);

/// The sizes of a broadcast result of `resultShape` whose dims come from the
/// leading `ranks[i]` dims of each operand (right-aligned). A dynamic dim
/// against a static one is checked at run time and makes `outOfBounds`
/// (null when no read can go out of bounds) true on mismatch. A dynamic
/// result dim may come from a static operand dim. When all candidates are
/// dynamic, the size is the smallest and a disagreement is reported and
/// makes `disagree` true; `narrowed[k]` lists the dims of operand k that must
/// be viewed at that size (or the op guarded by `disagree`) so that nothing
/// is read or written out of bounds.
///
/// With `allowStretch`, a dynamic dim that is 1 at run time against a
/// static result dim > 1 is not a mismatch but broadcasts (numpy's rule at
/// run time), nor, unless `unknownDimsAgree` (the caller knows they are
/// equal), against another dynamic dim that is not 1: `stretch` is then
/// true, and `stretched[k]` lists the dims of operand k that may need it,
/// with their run-time sizes.
struct BroadcastSizes {
  SmallVector<OpFoldResult> sizes;
  Value outOfBounds;
  Value disagree;
  Value stretch;
  SmallVector<SmallVector<std::pair<int64_t, Value>>> stretched;
  SmallVector<SmallVector<int64_t>> narrowed;
};
BroadcastSizes broadcastSizes(OpBuilder &b, Location loc,
                              ArrayRef<int64_t> resultShape,
                              ValueRange operands, ArrayRef<int64_t> ranks,
                              bool allowStretch = false,
                              bool unknownDimsAgree = true);

/// `acc || cond` for i1 conditions, either of which may be null (never).
Value orElse(OpBuilder &b, Location loc, Value acc, Value cond);

/// Checks `size == expected` at run time when either is dynamic; raises
/// `code` and returns the mismatch condition (null when statically equal).
Value checkSize(OpBuilder &b, Location loc, OpFoldResult size,
                OpFoldResult expected, ErrorCode code);

/// A run-time size `d` against a static size `expected` > 1 it may be
/// stretched to: `isOne` (d == 1, a broadcast) and `mismatch` (any other
/// size but `expected`, on which DimensionMismatch is raised).
struct StretchCheck {
  Value isOne, mismatch;
};
StretchCheck checkStretchable(OpBuilder &b, Location loc, Value d,
                              int64_t expected);

/// `operand` copied to the sizes `resultSizes` of `resultType`
/// (right-aligned) at `dims` (dim of the operand, its run-time size): where
/// that size is 1 the copy reads index 0 (a run-time broadcast), otherwise
/// the same index.
Value stretchOperand(OpBuilder &b, Location loc, Value operand,
                     RankedTensorType resultType,
                     ArrayRef<OpFoldResult> resultSizes,
                     ArrayRef<std::pair<int64_t, Value>> dims);

/// `build()`, or an uninitialized tensor when `outOfBounds` (an i1, or null
/// for never) holds at run time (the error was raised already).
Value guardedBy(OpBuilder &b, Location loc, Value outOfBounds,
                RankedTensorType type, ArrayRef<OpFoldResult> sizes,
                function_ref<Value(OpBuilder &, Location)> build);

/// The body of an elementwise op: scalars in, scalar out.
using ScalarFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// Builds a linalg.generic that applies `body` elementwise to `operands`
/// broadcast (numpy rules) to `resultType`. Broadcast operands are read
/// through indexing maps. Dynamic dimensions are checked at run time: a
/// mismatch raises kDimensionMismatch and never reads out of bounds. A
/// dynamic dim that is 1 at run time against a static dim broadcasts, on a
/// slower path that first copies the stretched operand to full size.
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange operands, ScalarFn body,
                       bool unknownDimsAgree = true);

/// The computation of each elementwise fnc op on scalars.
Value buildScalarOp(OpBuilder &b, Location loc, Operation *op,
                    ValueRange scalars);

void populateElementwisePatterns(RewritePatternSet &patterns);
void populateStructuredPatterns(RewritePatternSet &patterns, bool fastMath);
void populatePoolingPatterns(RewritePatternSet &patterns);
void populateShapePatterns(RewritePatternSet &patterns);
void populateStridedSlicePatterns(RewritePatternSet &patterns);
/// Gives every random op without a seed a stable key of its own stream.
void assignRandomKeys(ModuleOp module);

void populateStatefulPatterns(const TypeConverter &converter,
                              RewritePatternSet &patterns);

} // namespace mlir::fnc::lowering

#endif // FNC_LIB_CONVERSION_FNCTOLINALG_LOWERING_H
