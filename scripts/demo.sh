#!/usr/bin/env bash
# The main job: set up, build, and train a classifier on Fashion-MNIST
# (Debian's dataset-fashion-mnist package) with the whole train step --
# forward, GradientTape backward, Adam -- staged as one fnc::function.
# Prints a progress bar per epoch and the test accuracy, writes the loss and
# accuracy curves (SVG) and a checkpoint to fashion-mnist-out/, and restores
# the checkpoint into a fresh model. Arguments go to the trainer
# (e.g. --model=cnn --epochs=3 for the small CNN, about 1.5 min an epoch
# on 2 cores; --model=lstm for an LSTM over the images' rows;
# --model=transformer for a small transformer encoder over them; --help
# lists them).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FNC_BUILD_DIR:-$root/build}

bash "$root/scripts/build.sh" fnc-train-fashion-mnist
"$build/bin/fnc-train-fashion-mnist" --model=mlp --epochs=5 "$@"
