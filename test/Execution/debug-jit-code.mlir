// Generated code is visible to the tools (lib/JIT/LinkedCode.cpp):
// FNC_PERF_MAP=1 appends each function's address, size and name to
// /tmp/perf-PID.map for `perf report`; FNC_PERF_JITDUMP=1 writes a perf
// jitdump (ORC's plugin) with every function, outlined nests included; gdb
// gets each object through its JIT interface (automatically when it runs
// the process), so a breakpoint on a generated function is hit and the
// backtrace names the functions.
// REQUIRES: gdb
// UNSUPPORTED: asan
// RUN: rm -f %t.pid
// RUN: env FNC_PERF_MAP=1 sh -c 'echo $$ > %t.pid; exec fnc-run %s --input=64x64xf32=0.5 --input=64x64xf32=0.01 --cache-dir= > /dev/null'
// RUN: sh -c 'cat /tmp/perf-$(cat %t.pid).map; rm /tmp/perf-$(cat %t.pid).map' | FileCheck %s --check-prefix=MAP
// RUN: rm -rf %t.jitdump && mkdir %t.jitdump
// RUN: env FNC_PERF_JITDUMP=1 JITDUMPDIR=%t.jitdump fnc-run %s --input=64x64xf32=0.5 --input=64x64xf32=0.01 --cache-dir= > /dev/null
// RUN: cat %t.jitdump/.debug/jit/*/jit-*.dump | grep -a -o 'step_nest1\|_mlir_step' | sort | FileCheck %s --check-prefix=JITDUMP
// RUN: gdb -q -batch -ex 'set breakpoint pending on' -ex 'break step_nest1' \
// RUN:   -ex run -ex 'bt 2' -ex 'kill' --args fnc-run %s \
// RUN:   --input=64x64xf32=0.5 --input=64x64xf32=0.01 --cache-dir= 2>&1 \
// RUN:   | FileCheck %s --check-prefix=GDB

// MAP-DAG: {{^[0-9a-f]+ [0-9a-f]+ fnc:step$}}
// MAP-DAG: {{^[0-9a-f]+ [0-9a-f]+ fnc:step_nest1$}}
// MAP-DAG: {{^[0-9a-f]+ [0-9a-f]+ fnc:_mlir_step$}}

// JITDUMP: _mlir_step
// JITDUMP-NEXT: step_nest1

// GDB: Breakpoint 1, {{.*}} in step_nest1 ()
// GDB-NEXT: #0 {{.*}} in step_nest1 ()
// GDB-NEXT: #1 {{.*}} in _mlir_step ()
func.func @step(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %m = fnc.matmul %x, %w : tensor<64x64xf32>, tensor<64x64xf32>
  %e = fnc.exp %m : tensor<64x64xf32>
  %s = fnc.add %e, %x : tensor<64x64xf32>, tensor<64x64xf32>
  return %s : tensor<64x64xf32>
}
