#!/usr/bin/env bash
# Builds fnc with AddressSanitizer and UndefinedBehaviorSanitizer in
# build-asan/ (or $FNC_ASAN_BUILD_DIR) and runs the unit tests of the host
# code (tracing, the eager API, the interpreter, the differential tests).
# Not part of CI: a check to run after changing code that manages memory or
# indexes arrays. Generated (JIT) code is not instrumented. Installs the
# sanitizer runtime (libclang-rt-22-dev) if it is missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FNC_ASAN_BUILD_DIR:-$root/build-asan}

bash "$root/scripts/setup.sh"
if ! dpkg-query -W -f='${Status}' libclang-rt-22-dev 2>/dev/null |
    grep -q "install ok installed"; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
    --no-install-recommends libclang-rt-22-dev
fi

flags="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_ENABLE_LLD=ON \
    -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined"
fi
tests=(FncFunctionTests FncAPITests FncReferenceTests FncInterpreterTests
       FncDifferentialTests FncRuntimeTests FncShapeTests)
ninja -C "$build" "${tests[@]}"
# Leaks are not checked: MLIR and the JIT keep process-lifetime state.
for t in "${tests[@]}"; do
  echo "sanitize: $t"
  ASAN_OPTIONS=detect_leaks=0 "$build/bin/$t" --gtest_brief=1
done
