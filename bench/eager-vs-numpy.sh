#!/usr/bin/env bash
# Eager fnc vs numpy on issue 14's workloads, one after the other on the
# same machine:
#   build/bin/fnc-bench-eager numpy   (compiled eager kernels, then the
#                                      reference kernels, best of 10 each)
#   /usr/bin/python3 (numpy, the same shapes, best of 10)
#   build/bin/fnc-bench-eager rss     (peak memory of 100 seed expressions)
# and prints the ratios fnc/numpy. Workloads: mean(x**2*3+y) on 4096x4096
# f32 (seed: written with fnc::square; seedpow: with fnc::pow(x, 2), as the
# guide writes x ** 2), matmul 1024^3 f32, MLP inference 256x784 -> 512 ->
# 512 -> 10 with ReLU and softmax (mlpT: the weights stored as PyTorch
# stores them and used as matmul(x, transpose(W)); numpy's W.T is a view),
# and the shape ops transpose, concat (along dim 1) and
# slice of 4096x4096 f32 (copies: numpy's views are made contiguous). A
# benchmark, not a test.
#
# Usage: bench/eager-vs-numpy.sh [--build DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
if [ "${1:-}" = "--build" ]; then build=$2; fi
bin=$build/bin/fnc-bench-eager
if [ ! -x "$bin" ]; then
  echo "eager-vs-numpy: $bin is missing; build it with ninja -C $build fnc-bench-eager" >&2
  exit 1
fi
fnc_out=$("$bin" numpy)
echo "$fnc_out"
numpy_out=$(/usr/bin/python3 - <<'PY'
import time
import numpy as np

def best(body, reps=10):
    body()
    t = 1e30
    for _ in range(reps):
        s = time.perf_counter()
        body()
        t = min(t, time.perf_counter() - s)
    return t * 1e3

rng = np.random.default_rng(0)
x = rng.standard_normal((4096, 4096), dtype=np.float32)
y = rng.standard_normal((4096, 4096), dtype=np.float32)
a = rng.standard_normal((1024, 1024), dtype=np.float32)
b = rng.standard_normal((1024, 1024), dtype=np.float32)
inp = rng.standard_normal((256, 784), dtype=np.float32)
p = [rng.standard_normal(s, dtype=np.float32) * np.float32(0.05)
     for s in [(784, 512), (512,), (512, 512), (512,), (512, 10), (10,)]]

def mlp():
    h = np.maximum(inp @ p[0] + p[1], 0)
    h = np.maximum(h @ p[2] + p[3], 0)
    z = h @ p[4] + p[5]
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)

print("workload seed   numpy     %8.2f ms" % best(lambda: np.mean(x ** 2 * 3 + y)))
print("workload seedpow numpy    %8.2f ms" % best(lambda: np.mean(x ** 2 * 3 + y)))
print("workload matmul numpy     %8.2f ms" % best(lambda: a @ b))
print("workload mlp    numpy     %8.2f ms" % best(mlp))
pt = [q.T.copy() if q.ndim == 2 else q for q in p]

def mlp_t():
    h = np.maximum(inp @ pt[0].T + pt[1], 0)
    h = np.maximum(h @ pt[2].T + pt[3], 0)
    z = h @ pt[4].T + pt[5]
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)

print("workload mlpT   numpy     %8.2f ms" % best(mlp_t))
print("workload transpose numpy  %8.2f ms" % best(lambda: np.ascontiguousarray(x.T)))
print("workload concat numpy     %8.2f ms" % best(lambda: np.concatenate([x, y], axis=1)))
print("workload slice  numpy     %8.2f ms" % best(lambda: np.ascontiguousarray(x[1:4001, 1:4001])))
PY
)
echo "$numpy_out"
"$bin" rss
echo
printf '%-9s %12s %12s %12s %16s %16s\n' workload compiled reference numpy compiled/numpy reference/numpy
for w in seed seedpow matmul mlp mlpT transpose concat slice; do
  c=$(echo "$fnc_out" | awk -v w=$w '$1=="workload" && $2==w && $3=="compiled" {print $4}')
  r=$(echo "$fnc_out" | awk -v w=$w '$1=="workload" && $2==w && $3=="reference" {print $4}')
  n=$(echo "$numpy_out" | awk -v w=$w '$1=="workload" && $2==w {print $4}')
  awk -v w=$w -v c=$c -v r=$r -v n=$n 'BEGIN {printf "%-9s %9.2f ms %9.2f ms %9.2f ms %15.2fx %15.2fx\n", w, c, r, n, c/n, r/n}'
done
s=$(echo "$fnc_out" | awk '$1=="workload" && $2=="mlp" && $3=="staged" {print $4}')
n=$(echo "$numpy_out" | awk '$1=="workload" && $2=="mlp" {print $4}')
awk -v s=$s -v n=$n 'BEGIN {printf "mlp staged (fnc::function) %.2f ms, numpy %.2f ms: %.2fx\n", s, n, s/n}'
