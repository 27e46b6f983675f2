#!/usr/bin/python3
"""Fashion-MNIST training in PyTorch: the reference side of
bench/train-vs-torch.sh.

It trains the same models, with the same recipe, as fnc's
examples/train_fashion_mnist.cpp, so that the epoch times of the two can be
compared:

  mlp  flatten 784 -> Dense 256 + relu -> Dense 10
  cnn  Conv 3x3 16 SAME + relu -> MaxPool 2x2/2 -> Conv 3x3 32 SAME + relu
       -> MaxPool 2x2/2 -> flatten -> Dense 10
       (fnc uses NHWC; torch runs NCHW, its fast path: the same math)
  lstm the 28 rows of 28 pixels as a sequence -> LSTM 128 (torch.nn.LSTM,
       the last h) -> Dense 10; Keras's initialisation as fnc's nn::LSTM:
       glorot-uniform input kernel, orthogonal recurrent kernel, bias 1 for
       the forget gate, 0 elsewhere
  transformer the rows as 28 tokens -> Linear 64 + a learned position
       embedding (uniform in +-0.05) -> 2 x torch.nn.TransformerEncoderLayer
       (64 wide, 4 heads, feed-forward 128, ReLU, post-norm, dropout 0,
       LayerNorm eps 1e-5) -> the mean over the rows -> Dense 10; fnc's is
       nn::MultiHeadAttention and nn::LayerNormalization in the same block

Glorot-uniform kernels, zero biases, Adam (lr 1e-3; times 0.5 after each
epoch for the mlp and 0.7 for the transformer, as fnc-train-fashion-mnist
does), batches of 32 with the
last partial batch kept, a fresh shuffle each epoch (seeded), softmax
cross-entropy, pixels / 255. The data are read from the IDX .gz files with
gzip + numpy (no torchvision).

Output, one line per epoch and one at the end:

  epoch E/N: train_time_s=T loss=L train_acc=A test_acc=B
  RESULT impl=torch model=M epochs=N mean_epoch_s=T test_acc=B

T is the wall time of the epoch's training loop only (batching, forward,
backward, optimizer step), not the test evaluation. L and A are the means
over the epoch's training samples, as measured while training; B is the
accuracy on the 10000 test images after the epoch.

Run with Debian's python3-torch: /usr/bin/python3 bench/fashion_mnist_torch.py
--model=mlp --epochs=5.
"""

import argparse
import gzip
import os
import struct
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

DEFAULT_DATA = "/usr/share/datasets/fashion-mnist"


def read_idx(path, magic):
    """Reads an IDX file (optionally .gz) into a uint8 numpy array."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    if len(data) < 8:
        raise ValueError(f"{path}: too short for an IDX header")
    got, count = struct.unpack(">II", data[:8])
    if got != magic:
        raise ValueError(f"{path}: IDX magic {got}, expected {magic}")
    dims = [count]
    offset = 8
    if magic == 2051:
        rows, cols = struct.unpack(">II", data[8:16])
        dims += [rows, cols]
        offset = 16
    array = np.frombuffer(data, dtype=np.uint8, offset=offset)
    if array.size != int(np.prod(dims)):
        raise ValueError(f"{path}: {array.size} bytes of data, "
                         f"expected {int(np.prod(dims))}")
    return array.reshape(dims)


def load_split(data_dir, prefix):
    """Images as float32 [N, 1, 28, 28] in [0, 1], labels as int64 [N]."""
    images = read_idx(os.path.join(data_dir, f"{prefix}-images-idx3-ubyte.gz"),
                      2051)
    labels = read_idx(os.path.join(data_dir, f"{prefix}-labels-idx1-ubyte.gz"),
                      2049)
    if images.shape[0] != labels.shape[0]:
        raise ValueError(f"{prefix}: {images.shape[0]} images but "
                         f"{labels.shape[0]} labels")
    x = torch.from_numpy(images.astype(np.float32) / 255.0).unsqueeze(1)
    y = torch.from_numpy(labels.astype(np.int64))
    return x, y


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = torch.nn.Linear(784, 256)
        self.out = torch.nn.Linear(256, 10)

    def forward(self, x):
        x = torch.flatten(x, 1)
        return self.out(F.relu(self.hidden(x)))


class Cnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(16, 32, 3, padding=1)
        self.out = torch.nn.Linear(7 * 7 * 32, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2, 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2, 2)
        return self.out(torch.flatten(x, 1))


class Lstm(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(28, 128, batch_first=True)
        self.out = torch.nn.Linear(128, 10)

    def forward(self, x):
        _, (h, _) = self.lstm(x.reshape(-1, 28, 28))
        return self.out(h[0])


class Transformer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Linear(28, 64)
        self.position = torch.nn.Parameter(
            torch.empty(28, 64).uniform_(-0.05, 0.05))
        block = torch.nn.TransformerEncoderLayer(
            64, 4, dim_feedforward=128, dropout=0.0, batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(block, 2)
        self.out = torch.nn.Linear(64, 10)

    def forward(self, x):
        h = self.embed(x.reshape(-1, 28, 28)) + self.position
        return self.out(self.encoder(h).mean(1))


def glorot_init(model):
    """Keras defaults: glorot-uniform kernels (fan over the receptive field,
    as torch's xavier_uniform_ computes it), zero biases."""
    for module in model.modules():
        if isinstance(module, (torch.nn.Linear, torch.nn.Conv2d)):
            torch.nn.init.xavier_uniform_(module.weight)
            torch.nn.init.zeros_(module.bias)
        if isinstance(module, torch.nn.LSTM):
            # Keras's kernel [in, 4h] is torch's weight_ih_l0 [4h, in]
            # transposed: the same fans. Gates i, f, g, o in both.
            torch.nn.init.xavier_uniform_(module.weight_ih_l0)
            torch.nn.init.orthogonal_(module.weight_hh_l0)
            torch.nn.init.zeros_(module.bias_ih_l0)
            torch.nn.init.zeros_(module.bias_hh_l0)
            h = module.hidden_size
            with torch.no_grad():
                module.bias_ih_l0[h:2 * h] = 1.0
    for module in model.modules():
        if isinstance(module, torch.nn.MultiheadAttention):
            # Keras's glorot-uniform fans of a 3-d kernel [a, b, c] are
            # a * b and a * c: its query, key and value kernels [64, heads,
            # 16] are the rows of torch's in_proj_weight [3 * 64, 64], its
            # output kernel [heads, 16, 64] torch's out_proj.
            d, heads = module.embed_dim, module.num_heads
            dim = d // heads
            limit = (6.0 / (d * heads + d * dim)) ** 0.5
            torch.nn.init.uniform_(module.in_proj_weight, -limit, limit)
            torch.nn.init.zeros_(module.in_proj_bias)
            limit = (6.0 / (heads * dim + heads * d)) ** 0.5
            torch.nn.init.uniform_(module.out_proj.weight, -limit, limit)


def evaluate(model, x, y, batch_size):
    model.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, x.shape[0], batch_size):
            logits = model(x[i:i + batch_size])
            correct += (logits.argmax(1) == y[i:i + batch_size]).sum().item()
    model.train()
    return correct / x.shape[0]


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", choices=["mlp", "cnn", "lstm", "transformer"], default="mlp")
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--lr-decay", type=float, default=None,
                   help="the learning rate's factor after each epoch "
                        "(default, as fnc-train-fashion-mnist: 0.5 for the "
                        "mlp, 0.7 for the transformer, 1 for the others)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=2,
                   help="torch.set_num_threads (default 2)")
    p.add_argument("--data-dir", default=DEFAULT_DATA,
                   help=f"folder of the IDX .gz files (default {DEFAULT_DATA})")
    args = p.parse_args(argv)
    if args.epochs < 1 or args.batch_size < 1 or args.threads < 1:
        p.error("--epochs, --batch-size and --threads must be at least 1")

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    try:
        x_train, y_train = load_split(args.data_dir, "train")
        x_test, y_test = load_split(args.data_dir, "t10k")
    except (OSError, ValueError) as e:
        print(f"fashion_mnist_torch.py: cannot read the data set: {e}\n"
              f"Pass --data-dir=FOLDER holding train-images-idx3-ubyte.gz, "
              f"train-labels-idx1-ubyte.gz, t10k-images-idx3-ubyte.gz and "
              f"t10k-labels-idx1-ubyte.gz.", file=sys.stderr)
        return 1

    model = {"mlp": Mlp, "cnn": Cnn, "lstm": Lstm,
             "transformer": Transformer}[args.model]()
    glorot_init(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    if args.lr_decay is None:
        args.lr_decay = {"mlp": 0.5, "transformer": 0.7}.get(args.model, 1.0)
    if not 0 < args.lr_decay <= 1:
        p.error("--lr-decay must be in (0, 1]")
    schedule = torch.optim.lr_scheduler.ExponentialLR(optimizer,
                                                      gamma=args.lr_decay)
    rng = np.random.RandomState(args.seed)
    n = x_train.shape[0]

    epoch_times = []
    test_acc = 0.0
    for epoch in range(1, args.epochs + 1):
        order = torch.from_numpy(rng.permutation(n))
        loss_sum = 0.0
        correct = 0
        start = time.perf_counter()
        for i in range(0, n, args.batch_size):
            idx = order[i:i + args.batch_size]
            xb, yb = x_train[idx], y_train[idx]
            logits = model(xb)
            loss = F.cross_entropy(logits, yb)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            loss_sum += loss.item() * idx.shape[0]
            correct += (logits.argmax(1) == yb).sum().item()
        train_time = time.perf_counter() - start
        epoch_times.append(train_time)
        test_acc = evaluate(model, x_test, y_test, 1000)
        schedule.step()
        print(f"epoch {epoch}/{args.epochs}: train_time_s={train_time:.3f} "
              f"loss={loss_sum / n:.4f} train_acc={correct / n:.4f} "
              f"test_acc={test_acc:.4f}", flush=True)

    mean = sum(epoch_times) / len(epoch_times)
    print(f"RESULT impl=torch model={args.model} epochs={args.epochs} "
          f"mean_epoch_s={mean:.3f} test_acc={test_acc:.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
