// Inputs that once crashed, hung or corrupted the heap in compiled code
// (found by fuzzing): each now gives one clear error or the right result,
// and the interpreter agrees.

// Two unknown dims that disagree, the first operand larger: the op must not
// run (it used to write past the smaller result buffer).
// RUN: not fnc-run %s --entry=add_dynamic --input=7x4xf32=1 --input=2x4xf32=2 2>&1 | FileCheck %s --check-prefix=BIGFIRST
// RUN: not fnc-run %s --entry=add_dynamic --input=2x4xf32=1 --input=7x4xf32=2 2>&1 | FileCheck %s --check-prefix=SMALLFIRST
// RUN: fnc-run %s --entry=add_dynamic --input=2x4xf32=1 --input=2x4xf32=2 | FileCheck %s --check-prefix=AGREE
// BIGFIRST: fnc-run: error: @add_dynamic: dynamic dimension mismatch: 7 vs 2
// SMALLFIRST: fnc-run: error: @add_dynamic: dynamic dimension mismatch: 2 vs 7
// AGREE: {{\[\[}}3. 3. 3. 3.]
func.func @add_dynamic(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = fnc.add %a, %b : tensor<?x4xf32>, tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// The same through a fused chain: the operands are viewed at the smallest
// size, so even a large first operand reads nothing out of bounds.
// RUN: not fnc-run %s --entry=chain --input=4096xf32=1 --input=2xf32=1 --input=2xf32=1 2>&1 | FileCheck %s --check-prefix=CHAIN
// RUN: fnc-run %s --entry=chain --input=2xf32=1 --input=2xf32=1 --input=2xf32=0 | FileCheck %s --check-prefix=CHAIN-OK
// CHAIN: fnc-run: error: @chain: dynamic dimension mismatch: 4096 vs 2
// CHAIN-OK: fnc.Tensor([1. 1.], shape=(2,), dtype=float32)
func.func @chain(%a: tensor<?xf32>, %b: tensor<?xf32>, %c: tensor<?xf32>) -> tensor<?xf32> {
  %0 = fnc.add %a, %b : tensor<?xf32>, tensor<?xf32>
  %1 = fnc.mul %0, %c : tensor<?xf32>, tensor<?xf32>
  %2 = fnc.exp %1 : tensor<?xf32>
  return %2 : tensor<?xf32>
}

// A gather from an axis that is empty at run time.
// RUN: not fnc-run %s --entry=gather_empty --input=0xf32= --input=1xi32=0 2>&1 | FileCheck %s --check-prefix=GATHER
// RUN: not fnc-run %s --entry=gather_empty --interpret --input=0xf32= --input=1xi32=0 2>&1 | FileCheck %s --check-prefix=GATHER-I
// RUN: fnc-run %s --entry=gather_empty --input=0xf32= --input=0xi32= | FileCheck %s --check-prefix=GATHER-NONE
// GATHER: fnc-run: error: @gather_empty: gather index 0 is out of range [0, 0)
// GATHER-I: fnc-run: error: {{.*}}fnc::gather: index 0
// GATHER-NONE: fnc.Tensor([], shape=(0,), dtype=float32)
func.func @gather_empty(%a: tensor<?xf32>, %i: tensor<?xi32>) -> tensor<?xf32> {
  %0 = fnc.gather %a, %i axis 0 : tensor<?xf32>, tensor<?xi32>
  return %0 : tensor<?xf32>
}

// A squeeze of a dim that is 0 (or 2) at run time.
// RUN: not fnc-run %s --entry=squeeze --input=0x3xf32= 2>&1 | FileCheck %s --check-prefix=SQUEEZE
// RUN: not fnc-run %s --entry=squeeze --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=SQUEEZE2
// RUN: fnc-run %s --entry=squeeze --input=1x3xf32=1,2,3 | FileCheck %s --check-prefix=SQUEEZE-OK
// SQUEEZE: fnc-run: error: @squeeze: cannot squeeze a dim of size 0: only dims of size 1 can be squeezed
// SQUEEZE2: fnc-run: error: @squeeze: cannot squeeze a dim of size 2
// SQUEEZE-OK: fnc.Tensor([1. 2. 3.], shape=(3,), dtype=float32)
func.func @squeeze(%a: tensor<?x3xf32>) -> tensor<3xf32> {
  %0 = fnc.squeeze %a axes [0] : tensor<?x3xf32>
  return %0 : tensor<3xf32>
}

// A cast to a less static type verifies and compiles.
// RUN: fnc-run %s --entry=cast_relaxed --input=3xf32=1.5,2,-3 | FileCheck %s --check-prefix=CAST
// CAST: fnc.Tensor([ 1  2 -3], shape=(3,), dtype=int32)
func.func @cast_relaxed(%a: tensor<3xf32>) -> tensor<?xi32> {
  %0 = fnc.cast %a : tensor<3xf32> to tensor<?xi32>
  return %0 : tensor<?xi32>
}

// A reshape from unknown dims to a static shape, checked at run time.
// RUN: fnc-run %s --entry=reshape_static --input=4xf32=1,2,3,4 | FileCheck %s --check-prefix=RESHAPE
// RUN: not fnc-run %s --entry=reshape_static --input=5xf32=1,2,3,4,5 2>&1 | FileCheck %s --check-prefix=RESHAPE-BAD
// RESHAPE: {{\[\[}}1. 2.]
// RESHAPE-NEXT: {{\[}}3. 4.]]
// RESHAPE-BAD: fnc-run: error: @reshape_static: cannot reshape a tensor of 5 elements: the known dimensions of the new shape multiply to 4
func.func @reshape_static(%a: tensor<?xf32>) -> tensor<2x2xf32> {
  %0 = fnc.reshape %a : tensor<?xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
