//===- SliceSpec.h - The spec of the strided slice ops ----------*- C++ -*-===//
//
// The attributes of fnc.strided_slice and fnc.strided_slice_grad as the
// shape rules take them (fnc/Shape/ShapeRules.h), for the code that hands
// those ops to the rules: type inference, the lowering, the interpreter.
// Kept out of FncOps.h, whose users would otherwise see namespace ::fnc
// next to mlir::fnc.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_DIALECT_FNC_IR_SLICESPEC_H
#define FNC_DIALECT_FNC_IR_SLICESPEC_H

#include "fnc/Shape/ShapeRules.h"

#include "mlir/IR/BuiltinAttributes.h"

namespace mlir::fnc {

/// The spec of an op (or adaptor) with begin, end, strides and shrink.
template <typename OpOrAdaptor>
::fnc::shapes::SliceSpec sliceSpecOf(OpOrAdaptor op) {
  ArrayRef<int64_t> begin = op.getBegin(), end = op.getEnd(),
                    strides = op.getStrides();
  ArrayRef<bool> shrink = op.getShrink();
  return {std::vector<int64_t>(begin.begin(), begin.end()),
          std::vector<int64_t>(end.begin(), end.end()),
          std::vector<int64_t>(strides.begin(), strides.end()),
          std::vector<bool>(shrink.begin(), shrink.end())};
}

} // namespace mlir::fnc

#endif // FNC_DIALECT_FNC_IR_SLICESPEC_H
