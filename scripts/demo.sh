#!/usr/bin/env bash
# The main job: set up, build, and run the quickstart example.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FNC_BUILD_DIR:-$root/build}

bash "$root/scripts/build.sh" fnc-opt
echo "== examples/quickstart.mlir, as written"
cat "$root/examples/quickstart.mlir"
echo "== after fnc-opt --canonicalize --cse"
"$build/bin/fnc-opt" --canonicalize --cse "$root/examples/quickstart.mlir"
