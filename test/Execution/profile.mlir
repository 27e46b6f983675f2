// --profile writes a trace-event JSON timeline of the compile and the run,
// with a span per kernel named by the fnc ops fused into it; FNC_PROFILE
// records the same without the kernels (FNC_PROFILE_KERNELS=1 adds them).
// -fnc-name-op-locations names each fnc op's location after the op, and
// -fnc-profile-kernels calls the runtime around every loop nest.
// RUN: rm -rf %t && mkdir -p %t
// RUN: fnc-run %s --input=64x64xf32=0.5 --input=64x64xf32=0.01 --cache-dir= --profile=%t/run.json | FileCheck %s --check-prefix=RESULT
// RUN: python3 -c "import json, sys; json.load(open(sys.argv[1]))" %t/run.json
// RUN: FileCheck %s --check-prefix=TRACE --input-file=%t/run.json
// RUN: env FNC_PROFILE=%t/env.json fnc-run %s --input=64x64xf32=0.5 --input=64x64xf32=0.01 --cache-dir= > /dev/null
// RUN: FileCheck %s --check-prefix=ENV --input-file=%t/env.json
// RUN: not fnc-run %s --input=64x64xf32=0.5 --input=64x64xf32=0.01 --profile=%t/missing/run.json 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: fnc-opt %s -fnc-name-op-locations -mlir-print-debuginfo -mlir-print-local-scope | FileCheck %s --check-prefix=NAMES
// RUN: fnc-opt %s --fnc-pipeline="profile-kernels=1" | FileCheck %s --check-prefix=CALLS

// RESULT: {{\[\[}}1.8771275 1.8771275

// TRACE-DAG: "cat": "compile", "name": "MLIR passes"
// TRACE-DAG: "cat": "compile", "name": "LLVM optimization and codegen"
// TRACE-DAG: "cat": "compile", "name": "link"
// TRACE-DAG: "cat": "kernel", "name": "fnc.matmul", {{.*}} "args": {"function": "step"}
// TRACE-DAG: "cat": "kernel", "name": "fnc.add+fnc.exp", {{.*}} "args": {"function": "step"}
// TRACE-DAG: "cat": "function", "name": "step"
// TRACE-DAG: "name": "thread_name", {{.*}} "args": {"name": "main"}

// ENV: "cat": "compile", "name": "MLIR passes"
// ENV-NOT: "kernel"
// ENV: "cat": "function", "name": "step"

// BAD: fnc-run: error: fnc::profiler::start: cannot write {{.*}}missing/run.json: No such file or directory; create its directory first

// NAMES: fnc.matmul {{.*}} loc("fnc.matmul"("{{.*}}profile.mlir":{{[0-9]+}}:8))
// NAMES: fnc.exp {{.*}} loc("fnc.exp"("{{.*}}profile.mlir":{{[0-9]+}}:8))

// CALLS-DAG: llvm.func @fncProfileKernelBegin() -> i64
// CALLS-DAG: llvm.func @fncProfileKernelEnd(!llvm.ptr, !llvm.ptr, i64)
// CALLS-DAG: llvm.mlir.global internal constant @[[MATMUL:.*]]("fnc.matmul\00")
// CALLS-DAG: llvm.mlir.global internal constant @[[FUSED:.*]]("fnc.add+fnc.exp\00")
// CALLS-DAG: llvm.mlir.global internal constant @[[STEP:.*]]("step\00")
// CALLS: %[[NAME:.*]] = llvm.mlir.addressof @[[FUSED]]
// CALLS: %[[WHERE:.*]] = llvm.mlir.addressof @[[STEP]]
// CALLS: %[[START:.*]] = llvm.call @fncProfileKernelBegin() : () -> i64
// CALLS: llvm.call @fncProfileKernelEnd(%{{.*}}, %[[WHERE]], %[[START]])
// CALLS: llvm.call @fncProfileKernelEnd(%[[NAME]], %[[WHERE]], %{{.*}})
func.func @step(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %m = fnc.matmul %x, %w : tensor<64x64xf32>, tensor<64x64xf32>
  %e = fnc.exp %m : tensor<64x64xf32>
  %s = fnc.add %e, %x : tensor<64x64xf32>, tensor<64x64xf32>
  return %s : tensor<64x64xf32>
}
