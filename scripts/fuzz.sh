#!/usr/bin/env bash
# fuzz.sh [SECONDS [RUNS]]: builds the libFuzzer targets (test/fuzz) with
# ASan and UBSan in build-fuzz/ (or $FNC_FUZZ_BUILD_DIR; the configuration
# is the one scripts/sanitize.sh uses, so FNC_FUZZ_BUILD_DIR=build-asan
# reuses that build), writes the seed corpora from the repository and runs
# each target for SECONDS (default 60; 0: no limit) or, when RUNS is given,
# until it has run RUNS inputs if that comes first (the soak:
# `fuzz.sh 0 1000000` runs each target a million times; fnc-fuzz-function,
# which compiles every input, runs for 600 s then). A target that crashes
# is restarted for the rest of its time (at most 3 times), so one crash
# does not hide another. Crashers (crash-*, timeout-*, oom-*) are kept in
# <build>/crashes/<target>/, the corpora in <build>/corpus/<target>/, the
# logs in <build>/fuzz-logs/. Prints per target the executions and the
# crashes found; exits 1 if any target found one. Then soaks the agreement
# tests' generator (unittests/Trace/EdgePrograms.h): 4 x SECONDS random
# programs (4000 when SECONDS is 0), each run eagerly, staged with known
# and unknown dims and interpreted, from a seed that changes each run
# ($FNC_AGREEMENT_SEED repeats one); exits 1 if any disagree. Not part of
# CI (which builds the targets: scripts/sanitize.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FNC_FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=${1:-60}
max_runs=${2:-0}
if [ "$seconds" -eq 0 ] && [ "$max_runs" -eq 0 ]; then
  echo "fuzz.sh: give SECONDS or RUNS (both 0 would never stop)" >&2
  exit 2
fi
targets=(fnc-fuzz-mlir fnc-fuzz-interpreter fnc-fuzz-inputs fnc-fuzz-function)

bash "$root/scripts/setup.sh"
source "$root/scripts/sanitized-build.sh"
install_sanitizer_runtime
configure_asan "$build"
ninja -C "$build" -j "$(nproc)" "${targets[@]}" FncFunctionTests

python3 "$root/scripts/fuzz-seeds.py" "$root" "$build/seeds"
mkdir -p "$build/fuzz-logs"
# Sizes the reader rejects after a failed allocation are answers, not
# crashes: let malloc return null (operator new throws) under ASan.
export ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

found=0
summary=()
for t in "${targets[@]}"; do
  crashes="$build/crashes/$t"
  corpus="$build/corpus/$t"
  mkdir -p "$crashes" "$corpus"
  before=$(find "$crashes" -type f | wc -l)
  runs=0
  start=$SECONDS
  budget=$seconds
  limit_runs=$max_runs
  # Compiling every input, the function target cannot soak a million.
  if [ "$t" = fnc-fuzz-function ] && [ "$max_runs" -gt 0 ]; then
    [ "$budget" -eq 0 ] && budget=600
    limit_runs=0
  fi
  for attempt in 1 2 3 4; do
    left=0
    if [ "$budget" -gt 0 ]; then
      left=$((budget - (SECONDS - start)))
      [ "$left" -gt 0 ] || break
    fi
    run_args=(-max_total_time="$left")
    if [ "$limit_runs" -gt 0 ]; then
      [ "$runs" -lt "$limit_runs" ] || break
      run_args+=(-runs=$((limit_runs - runs)))
    fi
    log="$build/fuzz-logs/$t.$attempt.log"
    echo "fuzz: $t (${left}s, 0 is no limit; log: $log)"
    rc=0
    "$build/bin/$t" "${run_args[@]}" -timeout=10 -rss_limit_mb=4096 \
      -print_final_stats=1 -artifact_prefix="$crashes/" \
      "$corpus" "$build/seeds/$t" >"$log" 2>&1 || rc=$?
    # The executions: the final stats, else "Done N runs", else the last
    # status line (#N).
    n=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" |
      tail -1)
    [ -n "$n" ] || n=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -1)
    [ -n "$n" ] || n=$(sed -n 's/^#\([0-9]*\).*/\1/p' "$log" | tail -1)
    runs=$((runs + ${n:-0}))
    [ "$rc" -eq 0 ] && break
    echo "fuzz: $t stopped (exit $rc):"
    grep -m1 -E '^==[0-9]+==ERROR|^SUMMARY|runtime error|deadly signal|fnc-fuzz-' \
      "$log" || true
    grep -m6 -E '^ +#[0-9]+ ' "$log" || true
  done
  new=$(($(find "$crashes" -type f | wc -l) - before))
  if [ "$new" -gt 0 ]; then
    found=1
    summary+=("$t: $runs executions, $new new crash(es) in $crashes")
  else
    summary+=("$t: $runs executions, no crash")
  fi
done

# The agreement generator's soak (ASan build, so memory errors show too).
programs=$((seconds * 4))
[ "$programs" -gt 0 ] || programs=4000
seed=${FNC_AGREEMENT_SEED:-$RANDOM}
log="$build/fuzz-logs/agreement.log"
echo "fuzz: $programs random programs four ways, seed $seed (log: $log)"
if FNC_CACHE_DIR= FNC_EAGER_KERNELS=blocking FNC_AGREEMENT_PROGRAMS=$programs \
    FNC_AGREEMENT_SEED=$seed "$build/bin/FncFunctionTests" \
    --gtest_filter='AgreementTest.RandomEdgeProgramsAgree' >"$log" 2>&1; then
  summary+=("agreement: $programs programs (seed $seed), no disagreement")
else
  found=1
  summary+=("agreement: disagreements among $programs programs (seed $seed), see $log")
fi

echo
echo "fuzz: ${seconds}s per target (0: no limit), runs ${max_runs} (0: no limit)"
printf '  %s\n' "${summary[@]}"
exit "$found"
