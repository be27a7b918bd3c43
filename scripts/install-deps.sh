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
  mono-mcs mono-devel python3-dev python3-pip python3-venv
  mono-xbuild nuget libnunit-cil-dev   # the C# project built alone, its NuGet package, the Unity tests under Mono
  protobuf-compiler chromium nlohmann-json3-dev
  liblttng-ust-dev lttng-tools
  libcpp-httplib-dev chromium-driver python3-selenium
)
# npm, for uPlot below: Debian's client where the machine has none. Where
# Node.js came from elsewhere (NodeSource's nodejs bundles npm and conflicts
# with Debian's npm package), the npm it brings is used.
command -v npm >/dev/null || packages+=(npm)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# uPlot, the charts of the HTML report and the live page (report/CMakeLists.txt
# embeds it at build time): from npm with Debian's client, into a system folder.
web=/usr/local/share/hashtrace-web
if [ ! -f "$web/node_modules/uplot/dist/uPlot.iife.min.js" ]; then
  $SUDO mkdir -p "$web"
  (cd "$web" && $SUDO npm install --no-audit --no-fund --silent uplot@1.6.32)
fi
echo "install-deps: all ${#packages[@]} packages present, and uPlot"
