//===- Kernels.h - Reference kernels of the fnc ops -------------*- C++ -*-===//
//
// Plain, obviously correct C++ implementations of every fnc op, with no MLIR.
// They serve three clients: the eager API (lib/API), the interpreter of the
// fnc dialect, and the differential tests, which use them as the oracle for
// compiled code.
//
// Kernels work on `ref::Array`, a dense row-major buffer with a dtype and a
// shape. The caller computes the result shape with fnc/Shape/ShapeRules.h,
// allocates the result with Array::allocate and passes it in; a kernel checks
// only what depends on the data (a gather index out of range, an integer
// division by zero) and throws fnc::Error for that. Calling a kernel with
// shapes or dtypes that the shape rules would reject is a bug of the caller
// and is reported as ErrorKind::Internal, never undefined behaviour.
//
// Thread-safety: kernels are pure functions of their inputs; different
// threads may run kernels concurrently as long as they write to different
// output arrays.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_REFERENCE_KERNELS_H
#define FNC_REFERENCE_KERNELS_H

#include "fnc/DType.h"
#include "fnc/Error.h"
#include "fnc/Reference/Scalar.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fnc::ref {

using Shape = std::vector<int64_t>;

/// A dense, row-major array: dtype, shape and a shared 64-byte-aligned
/// buffer of numElements() * sizeOf(dtype) bytes (bool: one byte per
/// element, holding 0 or 1; string: std::string objects, constructed and
/// destroyed with the buffer, which the kernels of this header never see:
/// the string functions are lib/API/Strings.cpp).
///
/// Copying an Array shares the buffer. Arrays are treated as immutable once
/// a kernel has filled them; reshaping shares the buffer.
struct Array {
  DType dtype = DType::f32;
  Shape shape;
  std::shared_ptr<void> buffer;

  /// An array of `shape` with uninitialized contents (empty strings for
  /// DType::str). Throws InvalidArgument for a negative dim and OutOfRange
  /// when the size overflows.
  static Array allocate(DType dtype, Shape shape);

  /// A rank-0 array holding `value` converted to `dtype`.
  static Array scalar(DType dtype, double value);
  static Array scalarInt(DType dtype, int64_t value);

  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  int64_t numElements() const;
  size_t numBytes() const { return numElements() * sizeOf(dtype); }

  template <typename T> const T *data() const {
    return static_cast<const T *>(buffer.get());
  }
  template <typename T> T *mutableData() {
    return static_cast<T *>(buffer.get());
  }
  const void *rawData() const { return buffer.get(); }
  void *rawMutableData() { return buffer.get(); }

  /// The same buffer viewed with another shape of the same element count.
  Array withShape(Shape newShape) const;

  /// Element `i` (row-major) converted to double / int64 (any dtype).
  double getDouble(int64_t i) const;
  int64_t getInt(int64_t i) const;
};

/// Row-major strides (in elements) of `shape`.
Shape stridesOf(const Shape &shape);

//===----------------------------------------------------------------------===//
// Creation (Creation.cpp)
//===----------------------------------------------------------------------===//

/// out[i] = start + i * delta, converted to out's dtype.
void range(double start, double delta, Array &out);
/// Identity in the last two dims (rank 2 out: an n x m identity).
void eye(Array &out);
/// Element conversion to out's dtype: float->int truncates toward zero
/// (NaN and out-of-range values saturate), x->bool is x != 0, bool->number
/// is 0/1. Shapes of x and out are equal.
void cast(const Array &x, Array &out);

//===----------------------------------------------------------------------===//
// Elementwise (Elementwise.cpp)
//===----------------------------------------------------------------------===//

/// The binary ops of the op table (FncOpTable.inc, generated from FncOps.td),
/// then its comparisons.
enum class BinaryOp {
#define FNC_BINARY_OP(KIND, ...) KIND,
#define FNC_COMPARE_OP(KIND, ...) KIND,
#include "fnc/Dialect/Fnc/IR/FncOpTable.inc"
};

namespace detail {
/// What the op table says of each BinaryOp, in enum order.
struct BinaryOpInfo {
  const char *name;
  scalar::DTypes dtypes;
  bool comparison;
};
inline constexpr BinaryOpInfo kBinaryOps[] = {
#define FNC_BINARY_OP(KIND, CLASS, API, DTYPES, ...)                           \
  {#API, scalar::DTypes::DTYPES, false},
#define FNC_COMPARE_OP(KIND, PREDICATE, API, DTYPES)                           \
  {#API, scalar::DTypes::DTYPES, true},
#include "fnc/Dialect/Fnc/IR/FncOpTable.inc"
};
struct UnaryOpInfo {
  const char *name;
  scalar::DTypes dtypes;
};
inline constexpr UnaryOpInfo kUnaryOps[] = {
#define FNC_UNARY_OP(KIND, CLASS, API, DTYPES, ...)                            \
  {#API, scalar::DTypes::DTYPES},
#include "fnc/Dialect/Fnc/IR/FncOpTable.inc"
};
} // namespace detail

/// The op's API name ("add", "floor_mod", ...).
inline const char *binaryOpName(BinaryOp op) {
  return detail::kBinaryOps[static_cast<int>(op)].name;
}
/// True for the comparisons (result dtype bool).
inline bool isComparison(BinaryOp op) {
  return detail::kBinaryOps[static_cast<int>(op)].comparison;
}
/// The dtypes the op's operands may have.
inline scalar::DTypes binaryOpDTypes(BinaryOp op) {
  return detail::kBinaryOps[static_cast<int>(op)].dtypes;
}
/// True if `op` is defined on operands of `dtype`.
inline bool binaryOpSupports(BinaryOp op, DType dtype) {
  return scalar::accepts(binaryOpDTypes(op), dtype);
}

/// out = op(a, b) with numpy broadcasting, element by element as
/// fnc/Reference/Scalar.h defines. a and b have the same dtype; out has the
/// broadcast shape and dtype bool for comparisons, a's otherwise. Throws
/// InvalidArgument for an integer division or modulo by zero and for an
/// integer pow with a negative exponent.
void binary(BinaryOp op, const Array &a, const Array &b, Array &out);

/// The unary ops of the op table.
enum class UnaryOp {
#define FNC_UNARY_OP(KIND, ...) KIND,
#include "fnc/Dialect/Fnc/IR/FncOpTable.inc"
};

inline const char *unaryOpName(UnaryOp op) {
  return detail::kUnaryOps[static_cast<int>(op)].name;
}
inline scalar::DTypes unaryOpDTypes(UnaryOp op) {
  return detail::kUnaryOps[static_cast<int>(op)].dtypes;
}
inline bool unaryOpSupports(UnaryOp op, DType dtype) {
  return scalar::accepts(unaryOpDTypes(op), dtype);
}

/// out = op(x); same shape and dtype.
void unary(UnaryOp op, const Array &x, Array &out);

/// out = cond ? a : b with 3-way broadcasting; cond is bool, a and b have
/// out's dtype.
void select(const Array &cond, const Array &a, const Array &b, Array &out);

/// Broadcasts x to out's shape (which broadcastTo() accepted).
void broadcastTo(const Array &x, Array &out);

//===----------------------------------------------------------------------===//
// Reductions (Reduction.cpp)
//===----------------------------------------------------------------------===//

/// The reductions of the op table, then reduce_any and reduce_all (which
/// are not dialect ops: a trace records them as max and min over int32).
enum class ReduceOp {
#define FNC_REDUCE_OP(KIND, ...) KIND,
#include "fnc/Dialect/Fnc/IR/FncOpTable.inc"
  Any,
  All,
};

const char *reduceOpName(ReduceOp op);
scalar::DTypes reduceOpDTypes(ReduceOp op);
inline bool reduceOpSupports(ReduceOp op, DType dtype) {
  return scalar::accepts(reduceOpDTypes(op), dtype);
}

/// Reduces x over `axes` (normalized, sorted, unique; as returned by
/// shapes::reductionAxes). out holds the result with or without the kept
/// dims (the element order is the same). Empty reductions give the
/// identity: sum 0, prod 1, max -inf / lowest, min +inf / max, mean NaN for
/// floats and 0 for integers. Float sums accumulate in double. Max and min
/// propagate NaN. Integer mean truncates toward zero.
void reduce(ReduceOp op, const Array &x, const std::vector<int64_t> &axes,
            Array &out);

/// Index of the first maximum (argmax) or minimum (argmin) along the
/// normalized `axis`; NaN counts as the extreme. out is i32 or i64. Throws
/// InvalidArgument if the axis is empty.
void argExtreme(bool isMax, const Array &x, int64_t axis, Array &out);

/// softmax or log_softmax along the normalized `axis` of a float array,
/// subtracting the max for stability.
void softmax(const Array &x, int64_t axis, bool log, Array &out);

//===----------------------------------------------------------------------===//
// Linear algebra (Linalg.cpp)
//===----------------------------------------------------------------------===//

/// Batched matmul [..., m, k] x [..., k, n] -> [..., m, n] with broadcast
/// batch dims; float and integer dtypes. Blocked i-k-j loops.
void matmul(const Array &a, const Array &b, Array &out);

/// conv2d with NHWC input, HWCF filter, strides and the padding before the
/// first row/column (from shapes::conv2dPadding); out is NHWF.
void conv2d(const Array &input, const Array &filter, int64_t strideH,
            int64_t strideW, int64_t padTop, int64_t padLeft, Array &out);

//===----------------------------------------------------------------------===//
// Pooling (Pooling.cpp)
//===----------------------------------------------------------------------===//

/// The windows of a 2-D pooling op over an NHWC array: window (kh, kw),
/// strides and the padding before the first row/column (from
/// shapes::conv2dPadding). Output pixel (oh, ow) covers the input rows
/// oh * strideH - padTop + [0, kh) that exist, and likewise columns.
struct Window2D {
  int64_t kh, kw, strideH, strideW, padTop, padLeft;

  /// The windows of {kh, kw} `ksize` and {sh, sw} `strides` over an NHWC
  /// input of `shape` (known dims), with VALID or SAME (TensorFlow's)
  /// padding.
  static Window2D of(const std::vector<int64_t> &shape,
                     const std::vector<int64_t> &ksize,
                     const std::vector<int64_t> &strides, bool samePadding);
};

/// Max pooling of a float NHWC array: the maximum of each window's input
/// elements (padding never counts); NaN propagates. out is [n, oh, ow, c].
void maxPool2d(const Array &input, const Window2D &window, Array &out);

/// Average pooling: the sum of each window's input elements (row-major
/// window order, in the element type) divided by their count.
void avgPool2d(const Array &input, const Window2D &window, Array &out);

/// The input gradient of maxPool2d: each window adds its element of
/// `gradOutput` to its first maximum in row-major window order (a NaN is
/// the maximum), windows taken in row-major output order. out has the
/// shape of `input`.
void maxPool2dGrad(const Array &input, const Array &gradOutput,
                   const Window2D &window, Array &out);

/// The input gradient of avgPool2d: each window adds its element of
/// `gradOutput` divided by its count to each input element it covers,
/// windows taken in row-major output order. out has the input's shape.
void avgPool2dGrad(const Array &gradOutput, const Window2D &window, Array &out);

//===----------------------------------------------------------------------===//
// Shape ops (ShapeOps.cpp)
//===----------------------------------------------------------------------===//

/// out[i...] = x[permuted i...]; `perm` as accepted by shapes::transpose.
void transpose(const Array &x, const std::vector<int64_t> &perm, Array &out);

/// out[i...] = x[offsets + i * strides] (validated by shapes::slice, or
/// resolved by shapes::stridedSlice: a stride may be negative, every
/// element read lies inside x).
void slice(const Array &x, const std::vector<int64_t> &offsets,
           const std::vector<int64_t> &strides, Array &out);

/// The transpose of slice: out all zeros but out[offsets + i * strides] =
/// grad[i...] (grad has out's rank; every element written lies inside out).
void sliceGrad(const Array &grad, const std::vector<int64_t> &offsets,
               const std::vector<int64_t> &strides, Array &out);

/// out filled with `value` (rank 0, out's dtype), then x[i...] written to
/// out[low + i * (interior + 1)...] (shapes validated by shapes::pad).
void pad(const Array &x, const std::vector<int64_t> &low,
         const std::vector<int64_t> &interior, const Array &value, Array &out);

/// Concatenation along the normalized `axis`.
void concat(const std::vector<Array> &inputs, int64_t axis, Array &out);

/// Take along the normalized `axis`. Indices are i32 or i64; a negative or
/// too-large index throws OutOfRange naming the index and the valid range.
void gather(const Array &params, const Array &indices, int64_t axis,
            Array &out);

/// one_hot with depth out.shape[axis] at the normalized `axis`: on where
/// the index matches, off elsewhere (an out-of-range index gives all off).
void oneHot(const Array &indices, int64_t axis, double on, double off,
            Array &out);

//===----------------------------------------------------------------------===//
// Random numbers (Random.cpp)
//===----------------------------------------------------------------------===//

/// One block of Philox4x32-10: the four 32-bit words for the 128-bit counter
/// {counter, 0} under the 64-bit `key` (low word first in both).
std::array<uint32_t, 4> philox4x32(uint64_t key, uint64_t counter);

/// Uniform values in [min, max) of out's float dtype; element i comes from
/// block `counter + i` of stream `key` (f32: the top 24 bits of word 0;
/// f64: the top 53 bits of words 0 and 1). A stateful generator advances
/// its counter by out.numElements() per call.
void randomUniform(uint64_t key, uint64_t counter, double min, double max,
                   Array &out);

/// Normal values (Box-Muller) of out's float dtype; element i comes from
/// block `counter + i` of stream `key`.
void randomNormal(uint64_t key, uint64_t counter, double mean, double stddev,
                  Array &out);

} // namespace fnc::ref

#endif // FNC_REFERENCE_KERNELS_H
