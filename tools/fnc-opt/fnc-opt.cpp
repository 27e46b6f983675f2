//===- fnc-opt.cpp - The fnc pass driver ----------------------------------===//
//
// mlir-opt for fnc: parses .mlir, runs fnc and upstream passes, prints the
// result. Malformed input gives located diagnostics and exit code 1.
//
//===----------------------------------------------------------------------===//

#include "fnc/Dialect/Fnc/IR/FncOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::fnc::FncDialect, mlir::arith::ArithDialect,
                  mlir::func::FuncDialect, mlir::math::MathDialect,
                  mlir::scf::SCFDialect, mlir::tensor::TensorDialect>();
  mlir::registerTransformsPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "fnc optimizer driver: runs fnc and MLIR passes\n",
      registry));
}
