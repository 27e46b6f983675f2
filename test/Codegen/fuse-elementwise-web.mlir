// Values that feed each other (a = a*b + 0.5; b = max(b - a, 0.25), 8
// times): recomputing shared producers must not grow the fused bodies
// without bound (this once hung compilation). Every body stays small.
// RUN: fnc-opt %s --fnc-pipeline=stop-after-linalg | FileCheck %s
// CHECK-LABEL: func @web
// CHECK: linalg.generic
// CHECK: return
func.func @web(%x: tensor<64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %half = fnc.constant dense<0.5> : tensor<f32>
  %quarter = fnc.constant dense<0.25> : tensor<f32>
  %m0 = fnc.mul %x, %y : tensor<64xf32>, tensor<64xf32>
  %a0 = fnc.add %m0, %half : tensor<64xf32>, tensor<f32>
  %s0 = fnc.sub %y, %a0 : tensor<64xf32>, tensor<64xf32>
  %b0 = fnc.maximum %s0, %quarter : tensor<64xf32>, tensor<f32>
  %m1 = fnc.mul %a0, %b0 : tensor<64xf32>, tensor<64xf32>
  %a1 = fnc.add %m1, %half : tensor<64xf32>, tensor<f32>
  %s1 = fnc.sub %b0, %a1 : tensor<64xf32>, tensor<64xf32>
  %b1 = fnc.maximum %s1, %quarter : tensor<64xf32>, tensor<f32>
  %m2 = fnc.mul %a1, %b1 : tensor<64xf32>, tensor<64xf32>
  %a2 = fnc.add %m2, %half : tensor<64xf32>, tensor<f32>
  %s2 = fnc.sub %b1, %a2 : tensor<64xf32>, tensor<64xf32>
  %b2 = fnc.maximum %s2, %quarter : tensor<64xf32>, tensor<f32>
  %m3 = fnc.mul %a2, %b2 : tensor<64xf32>, tensor<64xf32>
  %a3 = fnc.add %m3, %half : tensor<64xf32>, tensor<f32>
  %s3 = fnc.sub %b2, %a3 : tensor<64xf32>, tensor<64xf32>
  %b3 = fnc.maximum %s3, %quarter : tensor<64xf32>, tensor<f32>
  %m4 = fnc.mul %a3, %b3 : tensor<64xf32>, tensor<64xf32>
  %a4 = fnc.add %m4, %half : tensor<64xf32>, tensor<f32>
  %s4 = fnc.sub %b3, %a4 : tensor<64xf32>, tensor<64xf32>
  %b4 = fnc.maximum %s4, %quarter : tensor<64xf32>, tensor<f32>
  %m5 = fnc.mul %a4, %b4 : tensor<64xf32>, tensor<64xf32>
  %a5 = fnc.add %m5, %half : tensor<64xf32>, tensor<f32>
  %s5 = fnc.sub %b4, %a5 : tensor<64xf32>, tensor<64xf32>
  %b5 = fnc.maximum %s5, %quarter : tensor<64xf32>, tensor<f32>
  %m6 = fnc.mul %a5, %b5 : tensor<64xf32>, tensor<64xf32>
  %a6 = fnc.add %m6, %half : tensor<64xf32>, tensor<f32>
  %s6 = fnc.sub %b5, %a6 : tensor<64xf32>, tensor<64xf32>
  %b6 = fnc.maximum %s6, %quarter : tensor<64xf32>, tensor<f32>
  %m7 = fnc.mul %a6, %b6 : tensor<64xf32>, tensor<64xf32>
  %a7 = fnc.add %m7, %half : tensor<64xf32>, tensor<f32>
  %s7 = fnc.sub %b6, %a7 : tensor<64xf32>, tensor<64xf32>
  %b7 = fnc.maximum %s7, %quarter : tensor<64xf32>, tensor<f32>
  %r = fnc.add %a7, %b7 : tensor<64xf32>, tensor<64xf32>
  return %r : tensor<64xf32>
}
