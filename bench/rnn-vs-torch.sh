#!/usr/bin/env bash
# An RNN train step, fnc vs PyTorch, one after the other in one run:
#   build/bin/fnc-bench-autodiff rnn      (staged: a tanh cell whose
#       Variables are read in a fnc::for_range body, outputs in a
#       TensorArray, MSE on them, gradients from a GradientTape, SGD)
#   /usr/bin/python3 bench/rnn_torch.py   (torch.nn.RNN, the same shapes)
# T=28, B=128, D=28, H=128, float32, 2 threads each. Prints both outputs
# and the ratio fnc / torch (issue 33's target: <= 0.7). fnc's output also
# has the peak memory of longer sequences (linear in T).
# Usage: bench/rnn-vs-torch.sh [--build DIR]. Needs python3-torch (apt).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
if [ "${1:-}" = "--build" ]; then build=$2; fi
bin=$build/bin/fnc-bench-autodiff
[ -x "$bin" ] || { echo "rnn-vs-torch.sh: $bin is missing; build it with: ninja -C $build fnc-bench-autodiff" >&2; exit 1; }
fnc_out=$(OMP_NUM_THREADS=2 "$bin" rnn)
echo "$fnc_out"
torch_out=$(/usr/bin/python3 "$root/bench/rnn_torch.py" 2) || {
  echo "rnn-vs-torch.sh: the PyTorch side failed (apt install python3-torch)" >&2; exit 1; }
echo "$torch_out"
f=$(echo "$fnc_out" | sed -n 's/^RESULT impl=fnc step_ms=//p')
t=$(echo "$torch_out" | sed -n 's/^RESULT impl=torch step_ms=//p')
awk -v f="$f" -v t="$t" 'BEGIN { printf "fnc / torch: %.2fx (target <= 0.7x)\n", f / t }'
