#!/usr/bin/env bash
# Installs every Debian 12 package hashtrace needs to build, test and run its
# demo. Idempotent; needs root (or sudo).
set -euo pipefail
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
packages=(
  build-essential cmake pkg-config git
  libssl-dev libconcurrentqueue-dev libxxhash-dev libtomlplusplus-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  linuxptp libgpiod-dev gpiod iproute2 iputils-ping
  libzxing-dev libopencv-dev
  clang libclang-rt-14-dev
  python3 python3-pandas python3-distributed sqlite3
  mono-mcs mono-devel python3-dev python3-pip
  protobuf-compiler chromium nlohmann-json3-dev
  liblttng-ust-dev lttng-tools
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
echo "install-deps: all ${#packages[@]} packages present"
