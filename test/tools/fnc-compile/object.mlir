// The object exports one entry point per public function and one constant
// per variable's initial value, under the class's prefix; everything else
// is internal, and allocations go to fnc's runtime (not malloc/free, which
// the JIT redirects). The header declares the typed class.
// RUN: rm -rf %t && mkdir %t
// RUN: fnc-compile %s -o %t/model.o --class-name=Net --namespace=ml::v1
// RUN: llvm-nm %t/model.o | FileCheck %s --check-prefix=SYMS
// RUN: llvm-nm %t/model.o | FileCheck %s --check-prefix=NOSYMS
// RUN: FileCheck %s --check-prefix=HEADER < %t/model.h
// RUN: ls %t | FileCheck %s --check-prefix=FILES

// SYMS-DAG: R fnc_aot_ml_v1_Net_init_bias
// SYMS-DAG: R fnc_aot_ml_v1_Net_init_dense_kernel
// SYMS-DAG: T fnc_aot_ml_v1_Net_predict
// SYMS-DAG: T fnc_aot_ml_v1_Net_train
// SYMS-DAG: U fncMalloc
// NOSYMS-NOT: {{ U (malloc|calloc|free|memrefCopy)$}}
// NOSYMS-NOT: {{ T (helper|_mlir_)}}

// HEADER: #ifndef FNC_AOT_ML_V1_NET_H
// HEADER: #include <fnc/AOT.h>
// HEADER: void fnc_aot_ml_v1_Net_predict(void **);
// HEADER: extern const unsigned char fnc_aot_ml_v1_Net_init_bias[];
// HEADER: namespace ml::v1 {
// HEADER: class Net {
// HEADER: Net() : instance_(info()) {}
// HEADER: /// @predict(tensor<?x2xf32>) -> (tensor<?x2xf32>)
// HEADER-NEXT: fnc::Tensor predict(const fnc::Tensor &arg0) {
// HEADER: /// (argument #0 is the variable @bias)
// HEADER-NEXT: std::tuple<fnc::Tensor, fnc::Tensor> train(const fnc::Tensor &arg1) {
// HEADER: fnc::Tensor get_bias() const { return instance_.read(0); }
// HEADER-NEXT: void set_bias(const fnc::Tensor &value) { instance_.assign(0, value); }
// A variable saved by fnc::save under its module path: '/' becomes '_'.
// HEADER: /// The variable @dense/kernel: tensor<2xf32>.
// HEADER-NEXT: fnc::Tensor get_dense_kernel() const { return instance_.read(1); }
// HEADER: {fnc::aot::ArgKind::BoundVariable, {fnc::DType::f32, 1, s{{[0-9]+}}}, 0},
// HEADER: {"bias", {fnc::DType::f32, 1, s{{[0-9]+}}}, fnc_aot_ml_v1_Net_init_bias},
// HEADER: } // namespace ml::v1

// FILES: model.h
// FILES-NEXT: model.o
// FILES-NOT: tmp

fnc.global_variable @bias = dense<[0.5, -0.5]> : tensor<2xf32>
fnc.global_variable @"dense/kernel" = dense<1.0> : tensor<2xf32>

func.func private @helper(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %y = fnc.mul %x, %x : tensor<?x2xf32>, tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}

func.func @predict(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %y = func.call @helper(%x) : (tensor<?x2xf32>) -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}

func.func @train(%b: !fnc.variable<tensor<2xf32>> {fnc.bind = @bias},
                 %g: tensor<2xf32>) -> (tensor<2xf32>, tensor<f32>) {
  fnc.var_assign_sub %b, %g : !fnc.variable<tensor<2xf32>>
  %v = fnc.var_read %b : !fnc.variable<tensor<2xf32>>
  %s = fnc.sum %v axes [0] : tensor<2xf32>
  return %v, %s : tensor<2xf32>, tensor<f32>
}
