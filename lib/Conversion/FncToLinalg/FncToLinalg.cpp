//===- FncToLinalg.cpp - Lower fnc ops to linalg/tensor/scf ---------------===//
//
// The pass driver of -fnc-lower-to-linalg (patterns follow in this folder).
//
//===----------------------------------------------------------------------===//

#include "fnc/Conversion/Passes.h"
#include "fnc/Dialect/Fnc/IR/FncOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::fnc {
#define GEN_PASS_DEF_FNCLOWERTOLINALG
#include "fnc/Conversion/Passes.h.inc"
} // namespace mlir::fnc

using namespace mlir;
using namespace mlir::fnc;

namespace {
struct FncLowerToLinalgPass
    : public fnc::impl::FncLowerToLinalgBase<FncLowerToLinalgPass> {
  using Base::Base;
  void runOnOperation() override {}
};
} // namespace
