// Every bad input ends with one clear line on stderr and exit code 1.

// RUN: not fnc-run %t.does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: fnc-run: error: cannot open '{{.*}}does-not-exist.mlir': No such file or directory

// RUN: echo 'func.func @f(%%a: tensor<2xf32>) -> tensor<2xf32> {' > %t.bad.mlir
// RUN: echo '  return %%b : tensor<2xf32>' >> %t.bad.mlir
// RUN: echo '}' >> %t.bad.mlir
// RUN: not fnc-run %t.bad.mlir 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: fnc-run: error: {{.*}}bad.mlir:2:10: use of undeclared SSA value name
// PARSE-NOT: error

// A call of a function that is declared but defined nowhere: one line
// naming the symbol (ORC used to print a second "JIT session error" line).
// RUN: echo 'func.func private @mystery(tensor<2xf32>) -> tensor<2xf32>' > %t.undef.mlir
// RUN: echo 'func.func @f(%%a: tensor<2xf32>) -> tensor<2xf32> {' >> %t.undef.mlir
// RUN: echo '  %%0 = func.call @mystery(%%a) : (tensor<2xf32>) -> tensor<2xf32>' >> %t.undef.mlir
// RUN: echo '  return %%0 : tensor<2xf32>' >> %t.undef.mlir
// RUN: echo '}' >> %t.undef.mlir
// RUN: not fnc-run %t.undef.mlir --input=2xf32=1,2 2>&1 | FileCheck %s --check-prefix=UNDEF
// UNDEF: fnc-run: error: JIT compilation failed: Symbols not found: [ mystery ]
// UNDEF-NOT: error

// An OpenMP entry point fnc's parallel runtime lacks is never taken from
// libomp (the linker's generator of process symbols refuses it).
// RUN: echo 'func.func private @__kmpc_mystery(tensor<2xf32>) -> tensor<2xf32>' > %t.kmpc.mlir
// RUN: echo 'func.func @f(%%a: tensor<2xf32>) -> tensor<2xf32> {' >> %t.kmpc.mlir
// RUN: echo '  %%0 = func.call @__kmpc_mystery(%%a) : (tensor<2xf32>) -> tensor<2xf32>' >> %t.kmpc.mlir
// RUN: echo '  return %%0 : tensor<2xf32>' >> %t.kmpc.mlir
// RUN: echo '}' >> %t.kmpc.mlir
// RUN: not fnc-run %t.kmpc.mlir --input=2xf32=1,2 --cache-dir= 2>&1 | FileCheck %s --check-prefix=KMPC
// KMPC: fnc-run: error: JIT compilation failed: __kmpc_mystery is an OpenMP entry point fnc's parallel runtime lacks
// KMPC-NOT: error

// A function of the fnc runtime cannot be declared by hand.
// RUN: echo 'func.func private @fncRaiseError(i64, i64, i64)' > %t.runtime.mlir
// RUN: echo 'func.func @f(%%a: tensor<2xf32>) -> tensor<2xf32> {' >> %t.runtime.mlir
// RUN: echo '  return %%a : tensor<2xf32>' >> %t.runtime.mlir
// RUN: echo '}' >> %t.runtime.mlir
// RUN: not fnc-run %t.runtime.mlir --input=2xf32=1,2 2>&1 | FileCheck %s --check-prefix=RUNTIME-DECL
// RUNTIME-DECL: error: 'fncRaiseError' is a function of the fnc runtime, which only compiled fnc ops may call

// A function named like a C function the compiled code calls.
// RUN: echo 'func.func @tanh(%%a: tensor<2xf64>) -> tensor<2xf64> {' > %t.libm.mlir
// RUN: echo '  %%0 = fnc.tanh %%a : tensor<2xf64>' >> %t.libm.mlir
// RUN: echo '  return %%0 : tensor<2xf64>' >> %t.libm.mlir
// RUN: echo '}' >> %t.libm.mlir
// RUN: not fnc-run %t.libm.mlir --input=2xf64=1,2 2>&1 | FileCheck %s --check-prefix=RESERVED
// RESERVED: error: function name 'tanh' is reserved: the compiled code calls the C math library function of that name; rename the function

// RUN: not fnc-run %s 2>&1 | FileCheck %s --check-prefix=AMBIGUOUS
// AMBIGUOUS: fnc-run: error: '{{.*}}errors.mlir' has several public functions (@add, @fails, @idx); choose one with --entry

// RUN: not fnc-run %s --entry=nope 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: fnc-run: error: no public function @nope in '{{.*}}errors.mlir'; it has @add, @fails, @idx

// RUN: not fnc-run %s --entry=helper 2>&1 | FileCheck %s --check-prefix=PRIVATE
// PRIVATE: fnc-run: error: no public function @helper in

// RUN: not fnc-run %s --entry=add --input=3xf32=1,2,3 2>&1 | FileCheck %s --check-prefix=ARITY
// ARITY: fnc-run: error: @add takes 2 inputs (tensor<3xf32>, tensor<?xf32>) but 1 --input was given; add one --input per missing input, in order: a literal such as --input=1xf32=0 (every element 0) or a .npy file, --input=@file.npy

// --benchmark calls the entry too, so it needs the inputs as well.
// RUN: not fnc-run %s --entry=add --benchmark=10 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: fnc-run: error: @add takes 2 inputs (tensor<3xf32>, tensor<?xf32>) but 0 --inputs were given; add one --input per missing input, in order: a literal such as --input=3xf32=0 (every element 0) or a .npy file, --input=@file.npy

// RUN: not fnc-run %s --entry=add --input=3xf32=1,2,3 --input=3xf32=1,2,3 \
// RUN:   --input=f32=1 2>&1 | FileCheck %s --check-prefix=EXTRA
// EXTRA: fnc-run: error: @add takes 2 inputs (tensor<3xf32>, tensor<?xf32>) but 3 --inputs were given; remove the extra --input options

// RUN: not fnc-run %s --entry=add --input=3xf32=1,2,3 --input=2x2xf32=1,2,3,4 2>&1 \
// RUN:   | FileCheck %s --check-prefix=RANK
// RANK: fnc-run: error: --input #1 for argument #1 of @add: expected tensor<?xf32>, got tensor<2x2xf32>

// RUN: not fnc-run %s --entry=add --input=2xf32=1,2 --input=3xf32=1,2,3 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SHAPE
// SHAPE: fnc-run: error: --input #0 for argument #0 of @add: expected tensor<3xf32>, got tensor<2xf32>

// RUN: not fnc-run %s --entry=add --input=3xf64=1,2,3 --input=3xf32=1,2,3 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DTYPE
// DTYPE: fnc-run: error: --input #0 for argument #0 of @add: expected tensor<3xf32>, got tensor<3xf64>

// RUN: not fnc-run %s --entry=add --input=3xf32=1,x,3 --input=3xf32=1,2,3 2>&1 \
// RUN:   | FileCheck %s --check-prefix=VALUE
// VALUE: fnc-run: error: --input #0 ('3xf32=1,x,3'): value #1 'x' is not a valid f32

// RUN: not fnc-run %s --entry=add --input=3xf32=1,2 --input=3xf32=1,2,3 2>&1 \
// RUN:   | FileCheck %s --check-prefix=COUNT
// COUNT: fnc-run: error: --input #0 ('3xf32=1,2'): '3xf32' has 3 elements but 2 values were given

// RUN: not fnc-run %s --entry=add --input=3xf16=1,2,3 --input=3xf32=1,2,3 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ELEMENT
// ELEMENT: fnc-run: error: --input #0 ('3xf16=1,2,3'): unknown element type 'f16' in '3xf16' (expected f32, f64, i1, i32, i64 or !fnc.string)

// RUN: not fnc-run %s --entry=add --input=-3xf32=1 --input=3xf32=1,2,3 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DIM
// DIM: fnc-run: error: --input #0 ('-3xf32=1'): bad dimension '-3' in '-3xf32' (expected a non-negative integer)

// RUN: not fnc-run %s --entry=add --input=1,2,3 --input=3xf32=1,2,3 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOTYPE
// NOTYPE: fnc-run: error: --input #0 ('1,2,3'): expected TYPE=VALUES (e.g. 2x3xf32=1,2,3,4,5,6, f32=2.5) or @FILE.npy

// RUN: not fnc-run %s --entry=idx 2>&1 | FileCheck %s --check-prefix=NOCALL
// NOCALL: fnc-run: error: cannot call @idx: argument #0 of @idx has type index

// RUN: not fnc-run %s --entry=add --input=3xf32=1,2,3 --input=3xf32=1,2,3 --output=@%t.a.npy \
// RUN:   --output=@%t.b.npy 2>&1 | FileCheck %s --check-prefix=OUTPUTS
// OUTPUTS: fnc-run: error: @add returns 1 result but 2 --outputs were given

// RUN: not fnc-run %s --entry=add --input=3xf32=1,2,3 --input=3xf32=1,2,3 \
// RUN:   --output=@%t.no/such/dir/out.npy 2>&1 | FileCheck %s --check-prefix=UNWRITABLE
// UNWRITABLE: fnc-run: error: cannot write '{{.*}}no/such/dir/out.npy': No such file or directory

// A run-time error of the generated code leaves no output file behind.
// RUN: rm -rf %t.dir && mkdir %t.dir
// RUN: not fnc-run %s --entry=fails --input=5xf32=1,2,3,4,5 --input=1xi32=7 --output=@%t.dir/out.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=RUNTIME
// RUN: ls %t.dir | count 0
// RUNTIME: fnc-run: error: @fails: gather index 7 is out of range [0, 5); valid indices are 0 to 4

// A run stopped by SIGTERM or SIGINT leaves no temporary output behind.
// RUN: rm -rf %t.killed && mkdir %t.killed
// RUN: not timeout -s TERM 2 fnc-run %s --entry=add --input=3xf32=1,2,3 --input=1xf32=1 --benchmark=1000000000 --output=@%t.killed/out.npy
// RUN: ls %t.killed | count 0

// RUN: not fnc-run %s --entry=add --opt-level=4 2>&1 | FileCheck %s --check-prefix=OPT
// OPT: fnc-run: error: --opt-level must be 0, 1, 2 or 3

// RUN: not fnc-run %s --entry=add --threads=many 2>&1 | FileCheck %s --check-prefix=THREADS
// THREADS: fnc-run: error: --threads expects a non-negative integer, not 'many'

func.func @add(%a: tensor<3xf32>, %b: tensor<?xf32>) -> tensor<3xf32> {
  %e = tensor.empty() : tensor<3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>,
                                        affine_map<(d0) -> (d0)>,
                                        affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a, %b : tensor<3xf32>, tensor<?xf32>) outs(%e : tensor<3xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}

func.func @fails(%a: tensor<5xf32>, %i: tensor<1xi32>) -> tensor<1xf32> {
  %r = fnc.gather %a, %i axis 0 : tensor<5xf32>, tensor<1xi32>
  return %r : tensor<1xf32>
}

func.func @idx(%i: index) -> index {
  return %i : index
}

func.func private @helper() {
  return
}
