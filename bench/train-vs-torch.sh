#!/usr/bin/env bash
# Fashion-MNIST training, fnc vs PyTorch: runs, one after the other,
#   build/bin/fnc-train-fashion-mnist --model=M --epochs=N --batch=B --bench
#   /usr/bin/python3 bench/fashion_mnist_torch.py --model=M --epochs=N
#     --batch-size=B
# for the MLP and the CNN (and the LSTM and the transformer: --models
# mlp,cnn,lstm,transformer), shows
# their output as it comes, then prints a table: mean training time per
# epoch of each (the training loop only, not the test evaluation), their
# ratio fnc/torch, and the final test accuracy of each. Both sides print
# "RESULT impl=... model=... epochs=... mean_epoch_s=... test_acc=..."
# lines, which this script reads.
#
# Usage: bench/train-vs-torch.sh [--mlp-epochs N] [--cnn-epochs N]
#          [--lstm-epochs N] [--transformer-epochs N] [--epochs N (all)]
#          [--models mlp,cnn,lstm,transformer] [--build DIR]
#          [--torch-threads N] [--batch N]
# Defaults: 5 MLP epochs, 3 CNN epochs, 2 LSTM and transformer epochs,
# models mlp,cnn,
# build/, 2 threads, batches of 32 (Keras's default).
# A benchmark, not a test. The "busy" column is how many cores other
# processes kept busy during each run (from /proc/stat, less the run's own
# CPU time); above 0.5 the figures are not comparable: OpenMP threads that
# wait for each other on a busy machine slow down many times over.
# Exits 1 if a side failed or the fnc binary is missing (the torch side
# still runs and its figures are printed).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
mlp_epochs=5
cnn_epochs=3
lstm_epochs=2
transformer_epochs=2
models=mlp,cnn
torch_threads=2
batch=32

usage() { sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; }
need_value() {
  [ $# -ge 2 ] && [ -n "$2" ] || { echo "train-vs-torch.sh: $1 needs a value" >&2; exit 1; }
}
positive() {
  [[ $2 =~ ^[1-9][0-9]*$ ]] || { echo "train-vs-torch.sh: $1 must be a positive integer, got '$2'" >&2; exit 1; }
}
while [ $# -gt 0 ]; do
  arg=$1
  case $arg in
  --*=*) set -- "${arg%%=*}" "${arg#*=}" "${@:2}"; continue ;;
  --mlp-epochs) need_value "$@"; positive "$1" "$2"; mlp_epochs=$2; shift 2 ;;
  --cnn-epochs) need_value "$@"; positive "$1" "$2"; cnn_epochs=$2; shift 2 ;;
  --lstm-epochs) need_value "$@"; positive "$1" "$2"; lstm_epochs=$2; shift 2 ;;
  --transformer-epochs) need_value "$@"; positive "$1" "$2"; transformer_epochs=$2; shift 2 ;;
  --epochs) need_value "$@"; positive "$1" "$2"; mlp_epochs=$2; cnn_epochs=$2; lstm_epochs=$2; transformer_epochs=$2; shift 2 ;;
  --models) need_value "$@"; models=$2; shift 2 ;;
  --torch-threads) need_value "$@"; positive "$1" "$2"; torch_threads=$2; shift 2 ;;
  --batch) need_value "$@"; positive "$1" "$2"; batch=$2; shift 2 ;;
  --build) need_value "$@"; build=$(cd "$2" && pwd); shift 2 ;;
  -h|--help) usage; exit 0 ;;
  *) echo "train-vs-torch.sh: unknown argument '$arg' (see --help)" >&2; exit 1 ;;
  esac
done
IFS=, read -r -a model_list <<<"$models"
for m in "${model_list[@]}"; do
  case $m in
  mlp|cnn|lstm|transformer) ;;
  *) echo "train-vs-torch.sh: unknown model '$m' in --models (mlp, cnn, lstm, transformer)" >&2; exit 1 ;;
  esac
done

# PyTorch from Debian (python3-torch), installed like scripts/setup.sh does.
python=/usr/bin/python3
if ! "$python" -c 'import torch, numpy' 2>/dev/null; then
  echo "train-vs-torch.sh: installing python3-torch and python3-numpy"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends python3-torch python3-numpy
fi

fnc_bin=$build/bin/fnc-train-fashion-mnist
fnc_missing=""
if [ ! -x "$fnc_bin" ]; then
  fnc_missing="the fnc side is missing: $fnc_bin does not exist; build it with 'bash scripts/build.sh fnc-train-fashion-mnist' (or give --build DIR)"
  echo "train-vs-torch.sh: $fnc_missing" >&2
fi

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
failed=0

# CPU time (seconds) all processes have used so far, from /proc/stat.
machine_busy() {
  local _ user nice system idle iowait irq softirq steal
  read -r _ user nice system idle iowait irq softirq steal _ </proc/stat
  awk -v t="$((user + nice + system + irq + softirq + steal))" \
    -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", t / hz }'
}

# run NAME COMMAND...: shows the output and keeps it in $logs/NAME; puts in
# $logs/NAME.busy the cores other processes used meanwhile.
run() {
  local name=$1 before after times
  shift
  echo "== $name: $*"
  before=$(machine_busy)
  local TIMEFORMAT='%R %U %S'
  if ! { time "$@" 2>&1 | tee "$logs/$name"; } 2>"$logs/$name.time"; then
    echo "train-vs-torch.sh: $name failed" >&2
    failed=1
  fi
  after=$(machine_busy)
  times=$(tail -n 1 "$logs/$name.time")
  # The pipeline's CPU time includes tee's, which is negligible.
  awk -v b="$before" -v a="$after" -v t="$times" 'BEGIN {
    split(t, f, " "); if (f[1] > 0) printf "%.2f", (a - b - f[2] - f[3]) / f[1]
    else printf "-" }' >"$logs/$name.busy"
}

# field FILE IMPL MODEL KEY: KEY's value on FILE's RESULT line, or "-".
field() {
  local line
  line=$(grep -E "^RESULT impl=$2 model=$3 " "$1" 2>/dev/null | tail -n 1) || true
  [[ $line =~ (^|[[:space:]])$4=([^[:space:]]+) ]] && echo "${BASH_REMATCH[2]}" || echo "-"
}

for m in "${model_list[@]}"; do
  epochs=$mlp_epochs
  [ "$m" = cnn ] && epochs=$cnn_epochs
  [ "$m" = lstm ] && epochs=$lstm_epochs
  [ "$m" = transformer ] && epochs=$transformer_epochs
  if [ -z "$fnc_missing" ]; then
    run "fnc-$m" "$fnc_bin" --model="$m" --epochs="$epochs" --batch="$batch" --bench
  fi
  run "torch-$m" "$python" "$root/bench/fashion_mnist_torch.py" --model="$m" \
    --epochs="$epochs" --batch-size="$batch" --threads="$torch_threads"
done

echo
format='%-11s %6s %12s %14s %10s %9s %10s %9s %11s\n'
printf "$format" model epochs "fnc s/epoch" "torch s/epoch" fnc/torch "fnc acc" "torch acc" \
  "fnc busy" "torch busy"
noisy=0
for m in "${model_list[@]}"; do
  epochs=$mlp_epochs
  [ "$m" = cnn ] && epochs=$cnn_epochs
  [ "$m" = lstm ] && epochs=$lstm_epochs
  [ "$m" = transformer ] && epochs=$transformer_epochs
  ft=$(field "$logs/fnc-$m" fnc "$m" mean_epoch_s)
  tt=$(field "$logs/torch-$m" torch "$m" mean_epoch_s)
  fa=$(field "$logs/fnc-$m" fnc "$m" test_acc)
  ta=$(field "$logs/torch-$m" torch "$m" test_acc)
  ratio=-
  if [ "$ft" != - ] && [ "$tt" != - ]; then
    ratio=$(awk -v a="$ft" -v b="$tt" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }')
  fi
  fb=$(cat "$logs/fnc-$m.busy" 2>/dev/null || echo -)
  tb=$(cat "$logs/torch-$m.busy" 2>/dev/null || echo -)
  for b in "$fb" "$tb"; do
    [ "$b" != - ] && awk -v b="$b" 'BEGIN { exit !(b > 0.5) }' && noisy=1
  done
  printf "$format" "$m" "$epochs" "$ft" "$tt" "$ratio" "$fa" "$ta" "$fb" "$tb"
  if [ "$ft" = - ] && [ -z "$fnc_missing" ]; then
    echo "train-vs-torch.sh: no 'RESULT impl=fnc model=$m' line in the fnc output" >&2
    failed=1
  fi
  if [ "$tt" = - ]; then
    echo "train-vs-torch.sh: no 'RESULT impl=torch model=$m' line in the torch output" >&2
    failed=1
  fi
done
if [ $noisy = 1 ]; then
  echo "train-vs-torch.sh: other processes kept more than half a core busy during a run" \
    "(\"busy\" column): its times are not comparable; rerun on a quiet machine" >&2
fi
if [ -n "$fnc_missing" ]; then
  echo "train-vs-torch.sh: $fnc_missing" >&2
  exit 1
fi
exit $failed
