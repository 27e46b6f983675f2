// Every bad input ends with a "fnc-compile: error: ..." line, exit code 1
// and no output file (not even a temporary one).
// RUN: rm -rf %t && mkdir %t

// RUN: not fnc-compile %t/missing.mlir -o %t/x.o 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: fnc-compile: error: cannot open '{{.*}}missing.mlir': No such file or directory

// RUN: echo 'func.func @f(%%a: tensor<2xf32>) -> tensor<2xf32> {' > %t/bad.mlir
// RUN: echo '  return %%b : tensor<2xf32>' >> %t/bad.mlir
// RUN: echo '}' >> %t/bad.mlir
// RUN: not fnc-compile %t/bad.mlir -o %t/x.o 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: bad.mlir:2:10: error: use of undeclared SSA value name
// PARSE: fnc-compile: error: cannot parse '{{.*}}bad.mlir' (the errors are above)

// RUN: not fnc-compile %s -o %t/x.o --target-cpu=pentium9 2>&1 | FileCheck %s --check-prefix=CPU
// CPU: fnc-compile: error: unknown target CPU 'pentium9' for x86_64{{.*}}; use 'host', 'generic' or an LLVM CPU name such as 'x86-64-v3' or 'skylake-avx512' (llc-22 -mcpu=help lists them)
// RUN: not fnc-compile %s -o %t/x.o --target-cpu= 2>&1 | FileCheck %s --check-prefix=NOCPU
// NOCPU: fnc-compile: error: --target-cpu needs a CPU name

// RUN: not fnc-compile %s -o %t/no-such-dir/x.o 2>&1 | FileCheck %s --check-prefix=UNWRITABLE
// UNWRITABLE: fnc-compile: error: cannot write '{{.*}}no-such-dir/x.o': No such file or directory
// RUN: not fnc-compile %s -o %t/x.o --header=%t/no-such-dir/x.h 2>&1 | FileCheck %s --check-prefix=UNWRITABLE-H
// UNWRITABLE-H: fnc-compile: error: cannot write '{{.*}}no-such-dir/x.h'
// RUN: not fnc-compile %s -o %t/x.h 2>&1 | FileCheck %s --check-prefix=SAME
// SAME: fnc-compile: error: the header and the object would both be '{{.*}}x.h'; choose another --header

// RUN: not fnc-compile %s 2>&1 | FileCheck %s --check-prefix=NO-OUTPUT
// NO-OUTPUT: fnc-compile: for the -o option: must be specified at least once!
// RUN: not fnc-compile %s -o %t/x.o --opt-level=4 2>&1 | FileCheck %s --check-prefix=OPT
// OPT: fnc-compile: error: --opt-level must be 0, 1, 2 or 3
// RUN: not fnc-compile %s -o %t/x.o --class-name=class 2>&1 | FileCheck %s --check-prefix=CLASS
// CLASS: fnc-compile: error: the class name 'class' is not a C++ identifier, is a keyword or is reserved; choose another with --class-name
// RUN: not fnc-compile %s -o %t/x.o --namespace=a::1b 2>&1 | FileCheck %s --check-prefix=NAMESPACE
// NAMESPACE: fnc-compile: error: the namespace 'a::1b' is not a C++ namespace name such as a::b

// A function fnc cannot call.
// RUN: echo 'func.func @f(%%a: tensor<*xf32>) -> tensor<*xf32> {' > %t/unranked.mlir
// RUN: echo '  return %%a : tensor<*xf32>' >> %t/unranked.mlir
// RUN: echo '}' >> %t/unranked.mlir
// RUN: not fnc-compile %t/unranked.mlir -o %t/x.o 2>&1 | FileCheck %s --check-prefix=UNRANKED
// UNRANKED: fnc-compile: error: argument #0 of @f has type tensor<*xf32>; entry functions take ranked tensors of f32, f64, i1, i32 or i64, or !fnc.variable of those; fnc-compile compiles every public function: make the others private

// RUN: echo 'func.func private @mystery(tensor<2xf32>) -> tensor<2xf32>' > %t/undef.mlir
// RUN: echo 'func.func @f(%%a: tensor<2xf32>) -> tensor<2xf32> {' >> %t/undef.mlir
// RUN: echo '  %%0 = func.call @mystery(%%a) : (tensor<2xf32>) -> tensor<2xf32>' >> %t/undef.mlir
// RUN: echo '  return %%0 : tensor<2xf32>' >> %t/undef.mlir
// RUN: echo '}' >> %t/undef.mlir
// RUN: not fnc-compile %t/undef.mlir -o %t/x.o 2>&1 | FileCheck %s --check-prefix=UNDEF
// UNDEF: fnc-compile: error: the module declares @mystery without a body; code compiled ahead of time can only call functions the module defines

// RUN: echo 'func.func private @f(%%a: tensor<2xf32>) -> tensor<2xf32> {' > %t/none.mlir
// RUN: echo '  return %%a : tensor<2xf32>' >> %t/none.mlir
// RUN: echo '}' >> %t/none.mlir
// RUN: not fnc-compile %t/none.mlir -o %t/x.o 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: fnc-compile: error: the module has no public function to compile

// Names the generated class cannot hold.
// RUN: echo 'func.func @"my-f"(%%a: tensor<2xf32>) -> tensor<2xf32> {' > %t/name.mlir
// RUN: echo '  return %%a : tensor<2xf32>' >> %t/name.mlir
// RUN: echo '}' >> %t/name.mlir
// RUN: not fnc-compile %t/name.mlir -o %t/x.o 2>&1 | FileCheck %s --check-prefix=NAME
// NAME: fnc-compile: error: @my-f cannot be a member of the generated C++ class: 'my-f' is not a C++ identifier, is a keyword or is reserved; rename it in the module
// RUN: echo 'fnc.global_variable @w = dense<1.0> : tensor<f32>' > %t/clash.mlir
// RUN: echo 'func.func @get_w(%%a: tensor<2xf32>) -> tensor<2xf32> {' >> %t/clash.mlir
// RUN: echo '  return %%a : tensor<2xf32>' >> %t/clash.mlir
// RUN: echo '}' >> %t/clash.mlir
// RUN: not fnc-compile %t/clash.mlir -o %t/x.o 2>&1 | FileCheck %s --check-prefix=CLASH
// CLASH: fnc-compile: error: @get_w has the name of another member of the generated class (its own name, a variable's get_/set_, instance or info); rename it in the module
// RUN: not fnc-compile %s -o %t/twice.o 2>&1 | FileCheck %s --check-prefix=CTOR
// CTOR: fnc-compile: error: @twice has the name of another member of the generated class

// Variable names become C++ names with '_' for other characters (fnc::save
// names variables "dense/kernel"); two that meet are an error.
// RUN: echo 'fnc.global_variable @"a/b" = dense<1.0> : tensor<f32>' > %t/vars.mlir
// RUN: echo 'fnc.global_variable @a_b = dense<2.0> : tensor<f32>' >> %t/vars.mlir
// RUN: echo 'func.func @f(%%a: tensor<2xf32>) -> tensor<2xf32> {' >> %t/vars.mlir
// RUN: echo '  return %%a : tensor<2xf32>' >> %t/vars.mlir
// RUN: echo '}' >> %t/vars.mlir
// RUN: not fnc-compile %t/vars.mlir -o %t/x.o 2>&1 | FileCheck %s --check-prefix=VARS
// VARS: fnc-compile: error: fnc.global_variable @a_b and another variable both become get_a_b/set_a_b in C++ (characters other than letters, digits and _ become _); rename one in the module

// A variable bound to a global of another type (the verifier's error).
// RUN: echo 'fnc.global_variable @w = dense<1.0> : tensor<f32>' > %t/bind.mlir
// RUN: echo 'func.func @f(%%v: !fnc.variable<tensor<2xf32>> {fnc.bind = @w}) -> tensor<2xf32> {' >> %t/bind.mlir
// RUN: echo '  %%r = fnc.var_read %%v : !fnc.variable<tensor<2xf32>>' >> %t/bind.mlir
// RUN: echo '  return %%r : tensor<2xf32>' >> %t/bind.mlir
// RUN: echo '}' >> %t/bind.mlir
// RUN: not fnc-compile %t/bind.mlir -o %t/x.o 2>&1 | FileCheck %s --check-prefix=BIND
// BIND: bind.mlir:2:1: error: argument 0 of type '!fnc.variable<tensor<2xf32>>' is bound to @w of type 'tensor<f32>'
// BIND: fnc-compile: error: cannot parse

// The pipeline fails after the outputs' temporary files exist.
// RUN: echo 'func.func private @fncRaiseError(i64, i64, i64)' > %t/runtime.mlir
// RUN: echo 'func.func @f(%%a: tensor<2xf32>) -> tensor<2xf32> {' >> %t/runtime.mlir
// RUN: echo '  return %%a : tensor<2xf32>' >> %t/runtime.mlir
// RUN: echo '}' >> %t/runtime.mlir
// RUN: not fnc-compile %t/runtime.mlir -o %t/x.o 2>&1 | FileCheck %s --check-prefix=PIPELINE
// PIPELINE: fnc-compile: error: {{.*}}fncRaiseError

// Nothing was written by any of the runs above.
// RUN: ls %t | FileCheck %s --check-prefix=LEFT
// LEFT-NOT: {{\.(o|h|a)$}}
// LEFT-NOT: tmp

func.func @twice(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = fnc.add %x, %x : tensor<?xf32>, tensor<?xf32>
  return %y : tensor<?xf32>
}
