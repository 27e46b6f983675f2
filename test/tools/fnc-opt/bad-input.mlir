// Malformed input gives a located diagnostic and exit code 1, never a crash.

// RUN: not fnc-opt %S/Inputs/garbage.mlir 2>&1 | FileCheck %s --check-prefix=GARBAGE
// GARBAGE: garbage.mlir:1:{{[0-9]+}}: error: unexpected character

// RUN: not fnc-opt %S/Inputs/bad-type.mlir 2>&1 | FileCheck %s --check-prefix=TYPE
// TYPE: bad-type.mlir:2:{{[0-9]+}}: error: 'fnc.add' op inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'

// RUN: not fnc-opt %S/Inputs/bad-broadcast.mlir 2>&1 | FileCheck %s --check-prefix=BCAST
// BCAST: bad-broadcast.mlir:2:{{[0-9]+}}: error: 'fnc.mul' op shapes [2] and [3] are not broadcast-compatible

// RUN: not fnc-opt %S/Inputs/bad-axis.mlir 2>&1 | FileCheck %s --check-prefix=AXIS
// AXIS: bad-axis.mlir:2:{{[0-9]+}}: error: 'fnc.sum' op reduction axis 5 is out of range for rank 2

// RUN: not fnc-opt %S/Inputs/bad-dtype.mlir 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: bad-dtype.mlir:1:{{[0-9]+}}: error:

// RUN: not fnc-opt %S/Inputs/bad-region.mlir 2>&1 | FileCheck %s --check-prefix=REGION
// REGION: bad-region.mlir:2:{{[0-9]+}}: error: 'fnc.cond' op along control flow edge

// The exit code is exactly 1.
// RUN: fnc-opt %S/Inputs/garbage.mlir > /dev/null 2>&1 || test $? -eq 1
// RUN: fnc-opt %S/Inputs/bad-type.mlir > /dev/null 2>&1 || test $? -eq 1
// RUN: not fnc-opt %S/Inputs/does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: does-not-exist.mlir

// A bad integer list after linalg.transpose's `permutation =` or
// linalg.broadcast's / linalg.reduce's `dimensions =` crashes MLIR 22's own
// parsers; fnc-opt and fnc-run refuse it first (fnc/Pipelines/ParseGuard.h).
// RUN: not fnc-opt %S/Inputs/bad-linalg-transpose.mlir 2>&1 | FileCheck %s --check-prefix=TRANSPOSE
// TRANSPOSE: bad-linalg-transpose.mlir:2:92: error: custom op 'linalg.transpose' expected a list of integers such as [1, 0] after `permutation =`
// RUN: not fnc-opt < %S/Inputs/bad-linalg-broadcast.mlir 2>&1 | FileCheck %s --check-prefix=BROADCAST
// BROADCAST: <stdin>:5:21: error: custom op 'linalg.broadcast' expected a list of integers
// RUN: not fnc-opt %S/Inputs/bad-linalg-reduce.mlir 2>&1 | FileCheck %s --check-prefix=REDUCE
// REDUCE: bad-linalg-reduce.mlir:2:86: error: custom op 'linalg.reduce' expected a list of integers
// RUN: not fnc-run %S/Inputs/bad-linalg-reduce.mlir 2>&1 | FileCheck %s --check-prefix=RUN-REDUCE
// RUN-REDUCE: fnc-run: error: {{.*}}bad-linalg-reduce.mlir:2:86: custom op 'linalg.reduce' expected a list of integers
// RUN: fnc-opt %S/Inputs/bad-linalg-reduce.mlir > /dev/null 2>&1 || test $? -eq 1

// A resource blob whose alignment header is 0: MLIR's parser accepts it and
// then aborts allocating the blob.
// RUN: not fnc-opt %S/Inputs/bad-blob-alignment.mlir 2>&1 | FileCheck %s --check-prefix=BLOB
// BLOB: bad-blob-alignment.mlir:12:13: error: resource blob starts with alignment 0; its first 4 bytes must hold a power of two
// RUN: not fnc-run %S/Inputs/bad-blob-alignment.mlir 2>&1 | FileCheck %s --check-prefix=RUN-BLOB
// RUN-BLOB: fnc-run: error: {{.*}}bad-blob-alignment.mlir:12:13: resource blob starts with alignment 0
