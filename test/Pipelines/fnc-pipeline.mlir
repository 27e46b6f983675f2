// RUN: fnc-opt %s -split-input-file --fnc-pipeline=stop-after-linalg | FileCheck %s --check-prefix=LINALG
// RUN: fnc-opt %s -split-input-file --fnc-pipeline | FileCheck %s --check-prefix=LLVM
// RUN: fnc-opt %s -split-input-file --fnc-pipeline=threads=1 | FileCheck %s --check-prefix=SEQ

// The seed expression reduce_mean(x**2 * 3 + y) becomes ONE fused loop
// nest over the inputs: pow(x, 2) -> x * x, and every elementwise producer
// folds into the reduction, which is split so that its rows run in
// parallel (one partial sum per row). Then two tiny loops: the sum of the
// 4096 partials, and the division by the count, in place.
// LINALG-LABEL: func @seed
// LINALG: %[[P:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// LINALG-SAME: ins(%{{.*}}, %{{.*}} : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%{{.*}} : tensor<4096xf32>)
// LINALG: arith.mulf
// LINALG: arith.mulf
// LINALG: arith.addf
// LINALG: arith.addf {{.*}} fastmath<reassoc>
// LINALG: %[[S:.*]] = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[P]] : tensor<4096xf32>)
// LINALG: linalg.generic {{.*}} ins(%[[S]] : tensor<f32>) outs(%[[S]] : tensor<f32>)
// LINALG: arith.divf
// LINALG-NOT: linalg.generic
// LINALG: return
func.func @seed(%x: tensor<4096x4096xf32>, %y: tensor<4096x4096xf32>) -> tensor<f32> {
  %two = fnc.constant dense<2.0> : tensor<f32>
  %three = fnc.constant dense<3.0> : tensor<f32>
  %0 = fnc.pow %x, %two : tensor<4096x4096xf32>, tensor<f32>
  %1 = fnc.mul %0, %three : tensor<4096x4096xf32>, tensor<f32>
  %2 = fnc.add %1, %y : tensor<4096x4096xf32>, tensor<4096x4096xf32>
  %3 = fnc.mean %2 axes [] : tensor<4096x4096xf32>
  return %3 : tensor<f32>
}

// -----

// Big loop nests run on OpenMP threads, small ones stay sequential (no
// fork/join for a 4x4 add); threads=1 keeps everything sequential.
// LLVM-LABEL: llvm.func @big
// LLVM: omp.parallel
// LLVM-LABEL: llvm.func @small
// LLVM-NOT: omp.parallel
// LLVM: llvm.return
// SEQ-NOT: omp.parallel
func.func @big(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = fnc.add %a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}
func.func @small(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = fnc.add %a, %b : tensor<4x4xf32>, tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// Every op of the dialect compiles to the LLVM dialect.
// LLVM-LABEL: llvm.func @everything
// LLVM-NOT: fnc.
func.func @everything(%a: tensor<2x3xf32>, %i: tensor<2xi64>, %v: !fnc.variable<tensor<3xf32>>, %p: tensor<i1>, %x: tensor<1x5x5x3xf32>, %w: tensor<3x3x3x2xf32>) -> (tensor<2x2xf32>, tensor<3xf32>, tensor<1x5x5x2xf32>, tensor<2xi64>) {
  %t = fnc.transpose %a perm [1, 0] : tensor<2x3xf32>
  %m = fnc.matmul %a, %t : tensor<2x3xf32>, tensor<3x2xf32>
  %s = fnc.softmax %m axis -1 : tensor<2x2xf32>
  %g = fnc.gather %a, %i axis 1 : tensor<2x3xf32>, tensor<2xi64>
  %r = fnc.var_read %v : !fnc.variable<tensor<3xf32>>
  %sum = fnc.sum %a axes [0] : tensor<2x3xf32>
  fnc.var_assign_add %v, %sum : !fnc.variable<tensor<3xf32>>
  %c = fnc.cond %p : tensor<i1> -> tensor<3xf32> {
    fnc.yield %r : tensor<3xf32>
  } else {
    %n = fnc.neg %r : tensor<3xf32>
    fnc.yield %n : tensor<3xf32>
  }
  fnc.print "c = {}" %c : tensor<3xf32>
  %conv = fnc.conv2d %x, %w strides [1, 1] padding same : tensor<1x5x5x3xf32>, tensor<3x3x3x2xf32>
  %am = fnc.argmax %g axis 1 : tensor<2x2xf32> -> tensor<2xi64>
  %u = fnc.random_uniform min 0.0 max 1.0 : tensor<2x2xf32>
  %su = fnc.add %s, %u : tensor<2x2xf32>, tensor<2x2xf32>
  return %su, %c, %conv, %am : tensor<2x2xf32>, tensor<3xf32>, tensor<1x5x5x2xf32>, tensor<2xi64>
}
