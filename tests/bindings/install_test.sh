#!/usr/bin/env bash
# Installs the C API and the Python package into a temporary prefix, as a user
# does, then: builds the installed C example with pkg-config and with
# find_package (hashtrace::c, also where OpenSSL cannot be found), runs it with
# no LD_LIBRARY_PATH or ldconfig (pkg-config's rpath, CMake's), and traces from
# Python with the installed package.
set -euo pipefail
build_dir=$1
source_dir=$2
python=$3
accelerated=$4  # True when CMake built the accelerator, else False
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
for component in sdk python; do cmake --install "$build_dir" --prefix "$prefix" --component "$component" >/dev/null; done
test -f "$prefix/include/hashtrace.h"

example=$prefix/share/doc/hashtrace/examples/c_example.c
test -f "$example" || { echo "FAIL: the C example is not installed ($example)"; exit 1; }

# pkg-config, a plain C compiler, no C++ anywhere in the user's build. The
# program runs as built: the rpath pkg-config gives finds libhashtrace.
cc -std=c99 -Wall -Wextra -Werror -o "$prefix/c_example" "$example" \
  $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs hashtrace)
out=$(env -u LD_LIBRARY_PATH HASHTRACE_LOG_DIR="$prefix/logs-c" "$prefix/c_example" 100 2>&1) ||
  { echo "FAIL: the C example built with pkg-config does not run by itself: $out"; exit 1; }
echo "$out" | grep -q "^200 samples (0 dropped)" || { echo "FAIL: C example via pkg-config: $out"; exit 1; }

# find_package(hashtrace) gives hashtrace::c too: with no components (the C++
# SDK loaded beside it) and with COMPONENTS c where OpenSSL cannot be found, as
# on a machine without its headers (the C API needs none).
mkdir -p "$prefix/consumer" "$prefix/consumer-c"
for variant in consumer consumer-c; do
  components=""
  [ "$variant" = consumer-c ] && components="COMPONENTS c"
  cat > "$prefix/$variant/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.16)
project(c_consumer C)
find_package(hashtrace REQUIRED $components)
add_executable(c_consumer $example)
target_link_libraries(c_consumer PRIVATE hashtrace::c)
CMAKE
done
cmake -S "$prefix/consumer" -B "$prefix/consumer/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake -S "$prefix/consumer-c" -B "$prefix/consumer-c/build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_DISABLE_FIND_PACKAGE_OpenSSL=TRUE >/dev/null
for variant in consumer consumer-c; do
  cmake --build "$prefix/$variant/build" >/dev/null
  out=$(HASHTRACE_LOG_DIR="$prefix/logs-$variant" "$prefix/$variant/build/c_consumer" 100)
  echo "$out" | grep -q "^200 samples (0 dropped)" || { echo "FAIL: C example via find_package ($variant): $out"; exit 1; }
done
# And the C++ SDK, asked for by name where OpenSSL cannot be found, fails at find_package with the reason.
mkdir -p "$prefix/consumer-sdk"
printf 'cmake_minimum_required(VERSION 3.16)\nproject(sdk_consumer CXX)\nfind_package(hashtrace REQUIRED COMPONENTS sdk)\n' \
  > "$prefix/consumer-sdk/CMakeLists.txt"
if out=$(cmake -S "$prefix/consumer-sdk" -B "$prefix/consumer-sdk/build" -DCMAKE_PREFIX_PATH="$prefix" \
           -DCMAKE_DISABLE_FIND_PACKAGE_OpenSSL=TRUE 2>&1); then
  echo "FAIL: find_package(hashtrace COMPONENTS sdk) succeeded without OpenSSL"; exit 1
fi
echo "$out" | grep -q "OpenSSL" || { echo "FAIL: find_package(hashtrace COMPONENTS sdk) without OpenSSL did not say why: $out"; exit 1; }

# The installed Python package finds the installed library by itself.
out=$(cd "$prefix" && env -u HASHTRACE_LIBRARY PYTHONPATH="$prefix/lib/python3/dist-packages" "$python" -c "
import hashtrace
with hashtrace.session(node='Installed', log_dir='$prefix/logs-py', read_environment=False):
    for i in range(50):
        hashtrace.tracepoint('Step', hashtrace.inout('i', i))
print(hashtrace.stats().written, hashtrace.accelerated(), hashtrace.__file__)
")
echo "$out" | grep -q "^50 $accelerated " || { echo "FAIL: installed Python package (expected 50 samples, accelerated $accelerated): $out"; exit 1; }
echo "installed bindings work: C via pkg-config and find_package, Python ($out)"
