#!/usr/bin/env bash
# Installs the dependencies (if missing), configures and builds fnc in
# build/ (or $FNC_BUILD_DIR) with clang-22, lld, Ninja and ccache.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FNC_BUILD_DIR:-$root/build}

bash "$root/scripts/setup.sh"

if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_ENABLE_LLD=ON
fi
ninja -C "$build" "$@"
