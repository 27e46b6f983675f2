#!/usr/bin/env python3
"""PyTorch's side of bench/rnn-vs-torch.sh: the train step of
fnc-bench-autodiff rnn (T=28, B=128, D=28, H=128, tanh nn.RNN, MSE on the
outputs of every step, SGD lr 0.01), best median of 3 rounds of 20 steps.
Prints "RESULT impl=torch step_ms=..."."""
import statistics
import sys
import time

import torch

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 2
torch.set_num_threads(threads)
torch.manual_seed(11)
T, B, D, H = 28, 128, 28, 128
rnn = torch.nn.RNN(D, H, nonlinearity="tanh", batch_first=True)
opt = torch.optim.SGD(rnn.parameters(), lr=0.01)
x = torch.randn(B, T, D)
target = torch.randn(B, T, H) * 0.5
h0 = torch.zeros(1, B, H)


def step():
    opt.zero_grad()
    out, _ = rnn(x, h0)
    loss = torch.mean((out - target) ** 2)
    loss.backward()
    opt.step()
    return loss


for _ in range(3):
    step()
best = float("inf")
for _ in range(3):
    times = []
    for _ in range(20):
        start = time.perf_counter()
        step()
        times.append((time.perf_counter() - start) * 1e3)
    best = min(best, statistics.median(times))
print(f"PyTorch {torch.__version__} nn.RNN train step, T={T} B={B} D={D} "
      f"H={H}, {threads} threads: {best:.3f} ms")
print(f"RESULT impl=torch step_ms={best:.4f}")
