#!/usr/bin/env bash
# The SDK on its own, and the Debian packages, as their users get them:
#   1. -DHASHTRACE_SDK_ONLY=ON configures with every other package disabled
#      (OpenCV, ZXing, toml++, nlohmann-json, GoogleTest, Benchmark, Python),
#      builds, and packs hashtrace-dev;
#   2. the full build packs hashtrace-dev and hashtrace-tools;
#   3. each package's name and dependencies are checked, the packages are
#      unpacked into a root, and a user's project builds against them with
#      find_package(hashtrace) and with pkg-config, traces, and the packaged
#      `hashtrace` reads the log.
# Usage: packages_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build_dir=$1
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# 1. The SDK alone.
disabled=()
for package in OpenCV ZXing tomlplusplus nlohmann_json GTest benchmark Python3; do disabled+=("-DCMAKE_DISABLE_FIND_PACKAGE_$package=TRUE"); done
cmake -S "$source_dir" -B "$work/sdk-only" -DHASHTRACE_SDK_ONLY=ON -DHASHTRACE_WERROR=ON "${disabled[@]}" >"$work/sdk-only.log" 2>&1 ||
  { cat "$work/sdk-only.log"; fail "the SDK alone does not configure without the lab's packages"; }
cmake --build "$work/sdk-only" -j"$(nproc)" >"$work/sdk-only-build.log" 2>&1 || { tail -30 "$work/sdk-only-build.log"; fail "the SDK alone does not build"; }
(cd "$work/sdk-only" && cpack -G DEB -B "$work/sdk-debs" >/dev/null)
ls "$work"/sdk-debs/hashtrace-dev_*.deb >/dev/null || fail "the SDK alone made no hashtrace-dev package"
ls "$work"/sdk-debs/hashtrace-tools_*.deb >/dev/null 2>&1 && fail "the SDK alone packed the tools"

# 2. The full build's packages.
# (cpack installs from the build as it is: its "preinstall" step only checks that the build is up to date)
(cd "$build_dir" && cpack -G DEB -B "$work/debs" >"$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log" "$work"/debs/_CPack_Packages/*/DEB/PreinstallOutput.log 2>/dev/null | tail -40; fail "cpack of the build"; }
dev=$(ls "$work"/debs/hashtrace-dev_*.deb) tools=$(ls "$work"/debs/hashtrace-tools_*.deb)
[ "$(dpkg-deb -f "$dev" Package)" = hashtrace-dev ] || fail "$dev is not hashtrace-dev"
[ "$(dpkg-deb -f "$tools" Package)" = hashtrace-tools ] || fail "$tools is not hashtrace-tools"
for need in libssl-dev libconcurrentqueue-dev libxxhash-dev; do
  dpkg-deb -f "$dev" Depends | grep -q "$need" || fail "hashtrace-dev does not depend on $need"
done
dpkg-deb -f "$tools" Depends | grep -q "libc6" || fail "hashtrace-tools has no library dependencies (dpkg-shlibdeps)"
dev_files=$(dpkg-deb -c "$dev") tools_files=$(dpkg-deb -c "$tools")  # listed whole: grep -q would cut the pipe
grep -q "usr/lib/cmake/hashtrace/hashtraceConfig.cmake" <<<"$dev_files" || fail "hashtrace-dev holds no CMake package"
grep -q "usr/include/hashtrace/hashtrace.hpp" <<<"$dev_files" || fail "hashtrace-dev holds no SDK header"
grep -q "usr/bin/hashtrace$" <<<"$tools_files" || fail "hashtrace-tools holds no hashtrace"

# 3. A user's project against the unpacked packages (the SDK-only one: the same files).
root=$work/root
for deb in "$(ls "$work"/sdk-debs/hashtrace-dev_*.deb)" "$tools"; do dpkg-deb -x "$deb" "$root"; done
cmake -S "$source_dir/tests/install/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$root/usr" \
  -DQUICKSTART_SOURCE="$source_dir/sdk/examples/quickstart.cpp" >/dev/null
cmake --build "$work/consumer" >/dev/null
(cd "$work" && HASHTRACE_LOG_DIR="$work/logs" HASHTRACE_NODE=Packaged "$work/consumer/consumer" >/dev/null)
out=$("$root/usr/bin/hashtrace" log "$work/logs")
echo "$out" | grep -q "Packaged .*ForceComputed .* 1000 " || { echo "$out"; fail "the packaged hashtrace did not read 1000 ForceComputed samples"; }
cc -std=c99 -Wall -Wextra -Werror -o "$work/c_example" "$source_dir/bindings/c/examples/c_example.c" \
  $(PKG_CONFIG_SYSROOT_DIR="$root" PKG_CONFIG_LIBDIR="$root/usr/lib/pkgconfig" pkg-config --cflags --libs hashtrace)
out=$(LD_LIBRARY_PATH="$root/usr/lib" HASHTRACE_LOG_DIR="$work/logs-c" "$work/c_example" 100)
echo "$out" | grep -q "^200 samples (0 dropped)" || fail "C example via pkg-config: $out"
echo "packages work: the SDK alone configured without the lab's packages; hashtrace-dev and hashtrace-tools"
echo "built, checked and unpacked; find_package, pkg-config and the packaged CLI used from them"
