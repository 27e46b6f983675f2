// --help lists fnc-compile's own options only.
// RUN: fnc-compile --help | FileCheck %s
// CHECK: fnc-compile: compile an fnc module ahead of time into an object file and a C++ header
// CHECK: USAGE: fnc-compile [options] <module.mlir>
// CHECK-DAG: --check-numerics
// CHECK-DAG: --class-name=<Name>
// CHECK-DAG: --fast-math
// CHECK-DAG: --header=<file.h>
// CHECK-DAG: --namespace=<a::b>
// CHECK-DAG: -o <file.o|file.a>
// CHECK-DAG: --opt-level=<uint>
// CHECK-DAG: --target-cpu=<name>
// CHECK-NOT: --mlir-
