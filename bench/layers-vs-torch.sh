#!/usr/bin/env bash
# Layer train steps, fnc vs PyTorch, one after the other in one run:
#   build/bin/fnc-bench-layers      (nn::LSTM, nn::MultiHeadAttention)
#   /usr/bin/python3 bench/layers_torch.py  (torch.nn.LSTM and
#       torch.nn.MultiheadAttention, torch's own fused layers)
# LSTM: T=28, B=128, D=28, H=128; attention: B=64, T=28, d=64, 4 heads;
# forward + backward + SGD, float32, 2 threads each. Prints both outputs
# and the ratios fnc / torch (issue 31's targets: <= 0.8 each).
# Usage: bench/layers-vs-torch.sh [--build DIR]. Needs python3-torch (apt).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
if [ "${1:-}" = "--build" ]; then build=$2; fi
bin=$build/bin/fnc-bench-layers
[ -x "$bin" ] || { echo "layers-vs-torch.sh: $bin is missing; build it with: ninja -C $build fnc-bench-layers" >&2; exit 1; }
fnc_out=$(OMP_NUM_THREADS=2 FNC_CACHE_DIR= "$bin")
echo "$fnc_out"
torch_out=$(/usr/bin/python3 "$root/bench/layers_torch.py" 2) || {
  echo "layers-vs-torch.sh: the PyTorch side failed (apt install python3-torch)" >&2; exit 1; }
echo "$torch_out"
for layer in lstm attention; do
  f=$(echo "$fnc_out" | sed -n "s/^RESULT impl=fnc layer=$layer step_ms=//p")
  t=$(echo "$torch_out" | sed -n "s/^RESULT impl=torch layer=$layer step_ms=//p")
  awk -v l="$layer" -v f="$f" -v t="$t" \
    'BEGIN { printf "%s: fnc / torch: %.2fx (target <= 0.8x)\n", l, f / t }'
done
