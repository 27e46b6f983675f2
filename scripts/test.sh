#!/usr/bin/env bash
# Sets up, builds and runs every test (lit + GoogleTest) through ctest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FNC_BUILD_DIR:-$root/build}

bash "$root/scripts/build.sh"
cd "$build"
ctest --output-on-failure -j "$(nproc)"
