#!/usr/bin/env python3
"""PyTorch's side of bench/layers-vs-torch.sh: the train steps of
fnc-bench-layers (forward, backward, SGD lr 0.01; MSE), best median of 3
rounds of 20 steps:
  lstm       torch.nn.LSTM(28, 128) over x [128, 28, 28], the last h
  attention  torch.nn.MultiheadAttention(64, 4) self-attention over
             x [64, 28, 64] (need_weights=False)
Usage: layers_torch.py [threads] [lstm|attention]. Prints
"RESULT impl=torch layer=... step_ms=..." per layer."""
import statistics
import sys
import time

import torch

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 2
which = sys.argv[2] if len(sys.argv) > 2 else "all"
torch.set_num_threads(threads)
torch.manual_seed(11)


class LastOutput(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(28, 128, batch_first=True)

    def forward(self, x):
        _, (h, _) = self.lstm(x)
        return h[0]


class SelfAttention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.attention = torch.nn.MultiheadAttention(64, 4, batch_first=True)

    def forward(self, x):
        out, _ = self.attention(x, x, x, need_weights=False)
        return out


def bench(name, model, x, target):
    opt = torch.optim.SGD(model.parameters(), lr=0.01)

    def step():
        opt.zero_grad()
        loss = torch.mean((model(x) - target) ** 2)
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
    print(f"PyTorch {torch.__version__} {name} train step, {threads} "
          f"threads: {best:.3f} ms")
    print(f"RESULT impl=torch layer={name} step_ms={best:.4f}")


if which in ("all", "lstm"):
    bench("lstm", LastOutput(), torch.randn(128, 28, 28),
          torch.randn(128, 128) * 0.5)
if which in ("all", "attention"):
    bench("attention", SelfAttention(), torch.randn(64, 28, 64),
          torch.randn(64, 28, 64) * 0.5)
