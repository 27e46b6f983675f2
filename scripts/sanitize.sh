#!/usr/bin/env bash
# Builds fnc with sanitizers and runs the host code's tests under them (part
# of CI, after scripts/test.sh). Generated (JIT) code is not instrumented.
#
#   build-asan/ ($FNC_ASAN_BUILD_DIR): AddressSanitizer and
#     UndefinedBehaviorSanitizer (plus libFuzzer's coverage instrumentation,
#     so that scripts/fuzz.sh can reuse the directory); runs every GoogleTest
#     binary and the lit tests (fnc-opt and fnc-run on every test input).
#   build-tsan/ ($FNC_TSAN_BUILD_DIR): ThreadSanitizer; runs the tests that
#     call into fnc from several threads (FncJITTests, FncFunctionTests and
#     FncIOTests, tests named *Concurrent* or *Thread*).
#
# Leaks are not checked: MLIR and the JIT keep process-lifetime state.
# Installs the sanitizer runtime (libclang-rt-22-dev) if it is missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
asan=${FNC_ASAN_BUILD_DIR:-$root/build-asan}
tsan=${FNC_TSAN_BUILD_DIR:-$root/build-tsan}
jobs=$(nproc)

bash "$root/scripts/setup.sh"
source "$root/scripts/sanitized-build.sh"
install_sanitizer_runtime

# A report aborts (a signal, not exit code 1), so that a lit test expecting
# failure (`not fnc-run ...`) cannot pass on a sanitizer report. Allocations
# too large to satisfy return null, as malloc does without ASan: fnc turns
# that into an error, and tests check it does.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:abort_on_error=1
# As under ctest: no test reads or writes the user's compile cache, and big
# eager ops compile their kernels before they run.
export FNC_CACHE_DIR=
export FNC_EAGER_KERNELS=blocking
# The agreement tests' random programs: fewer than the 1000 of test.sh
# (each compiles twice, slower under ASan).
export FNC_AGREEMENT_PROGRAMS=120
# The gradient checker's (GradientCheckTest), each poisoning what its
# callables captured by reference after the trace: 8 of the 24 compiled
# programs of test.sh and 24 of the 200 on the graph executor.
export FNC_GRADCHECK_PROGRAMS=8
export FNC_GRADCHECK_GRAPH_PROGRAMS=24
# The unit tests of a binary run in one process here: a trace tiered by one
# test (FunctionOptions::jit_compile unset) would compile in the background
# into the next test's memory measurements. Functions compile before their
# first call returns instead; ExecutionModesTest runs again on its own
# without it (tiered calls and the hand-over under ASan), and so do the
# TSan runs below.
export FNC_JIT_COMPILE=1

echo "sanitize: ASan+UBSan build in $asan"
configure_asan "$asan"
# Every GoogleTest binary of the build (new ones join automatically).
mapfile -t tests < <(ninja -C "$asan" -t targets all |
  sed -n 's/^\(Fnc[A-Za-z]*Tests\): phony$/\1/p' | sort -u)
[ ${#tests[@]} -gt 0 ] || { echo "sanitize: no unit tests found" >&2; exit 1; }
# The libFuzzer targets too, so that they keep compiling (scripts/fuzz.sh
# runs them).
step=$SECONDS
ninja -C "$asan" -j "$jobs" "${tests[@]}" fnc-lit-depends \
  fnc-fuzz-mlir fnc-fuzz-interpreter fnc-fuzz-inputs fnc-fuzz-function
echo "sanitize: ASan+UBSan build took $((SECONDS - step))s"
step=$SECONDS
for t in "${tests[@]}"; do
  echo "sanitize: $t (asan+ubsan)"
  "$asan/bin/$t" --gtest_brief=1
done
echo "sanitize: ExecutionModesTest tiered (asan+ubsan)"
# (Set but empty: the default, tiered; the test binaries set it to 1 only
# where it is unset, unittests/Support/CompiledByDefault.cpp.)
FNC_JIT_COMPILE= "$asan/bin/FncFunctionTests" --gtest_brief=1 \
  --gtest_filter='ExecutionModesTest.*'
echo "sanitize: ASan+UBSan unit tests took $((SECONDS - step))s"
step=$SECONDS
lit=$(sed -n 's/^LLVM_EXTERNAL_LIT:FILEPATH=//p' "$asan/CMakeCache.txt")
echo "sanitize: lit tests (asan+ubsan)"
"$lit" -s -j "$jobs" "$asan/test"
echo "sanitize: ASan+UBSan lit tests took $((SECONDS - step))s"

echo "sanitize: TSan build in $tsan"
configure_sanitized "$tsan" thread thread
step=$SECONDS
ninja -C "$tsan" -j "$jobs" FncJITTests FncFunctionTests FncIOTests \
  FncRuntimeTests
echo "sanitize: TSan build took $((SECONDS - step))s"
step=$SECONDS
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$root/scripts/tsan.supp"
# Tiered (set but empty, as above): calls run across the hand-over.
export FNC_JIT_COMPILE=
for t in FncJITTests FncFunctionTests FncIOTests; do
  echo "sanitize: $t (tsan)"
  "$tsan/bin/$t" --gtest_brief=1 --gtest_filter='*Concurrent*:*Thread*'
done
# The thread pool of parallel loops (lib/Runtime/Parallel.cpp).
echo "sanitize: FncRuntimeTests (tsan)"
"$tsan/bin/FncRuntimeTests" --gtest_brief=1 --gtest_filter='RuntimeParallel*'

echo "sanitize: TSan tests took $((SECONDS - step))s"
