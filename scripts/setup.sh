#!/usr/bin/env bash
# Installs every build and test dependency of fnc from Debian's packages.
# Idempotent: does nothing (no apt calls) when everything is already present.
set -euo pipefail

packages=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  clang-22 lld-22 libomp-22-dev libclang-rt-22-dev
  libgtest-dev libbenchmark-dev libopenblas-dev
  cmake ninja-build ccache python3 pkg-config
  libzip-dev zlib1g-dev dataset-fashion-mnist python3-numpy
  libdnnl-dev libeigen3-dev
  g++ gdb dpkg-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
