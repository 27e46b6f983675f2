#!/usr/bin/env bash
# The main job: set up, build, and run the quickstart example (eager tensor
# code, then the same code staged with fnc::function), then run the seed
# expression of examples/quickstart.mlir through the JIT.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FNC_BUILD_DIR:-$root/build}

bash "$root/scripts/build.sh" fnc-example-quickstart fnc-run
echo "== examples/quickstart.cpp"
"$build/bin/fnc-example-quickstart"
echo
echo "== examples/quickstart.mlir through fnc-run (JIT), 4x4 inputs"
"$build/bin/fnc-run" "$root/examples/quickstart.mlir" \
  --input=4x4xf32=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 --input=4x4xf32=1
