#!/usr/bin/env bash
# Installs the C API and the Python package into a temporary prefix, as a user
# does, then: builds the C example with pkg-config and with find_package
# (hashtrace::c), runs it, and traces from Python with the installed package.
set -euo pipefail
build_dir=$1
source_dir=$2
python=$3
accelerated=$4  # True when CMake built the accelerator, else False
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
for component in sdk python; do cmake --install "$build_dir" --prefix "$prefix" --component "$component" >/dev/null; done
test -f "$prefix/include/hashtrace.h"

# pkg-config, a plain C compiler, no C++ anywhere in the user's build.
cc -std=c99 -Wall -Wextra -Werror -o "$prefix/c_example" "$source_dir/bindings/c/examples/c_example.c" \
  $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs hashtrace)
out=$(LD_LIBRARY_PATH="$prefix/lib" HASHTRACE_LOG_DIR="$prefix/logs-c" "$prefix/c_example" 100)
echo "$out" | grep -q "^200 samples (0 dropped)" || { echo "FAIL: C example via pkg-config: $out"; exit 1; }

# find_package(hashtrace) gives hashtrace::c too.
mkdir -p "$prefix/consumer"
cat > "$prefix/consumer/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.16)
project(c_consumer C CXX)
find_package(hashtrace REQUIRED)
add_executable(c_consumer $source_dir/bindings/c/examples/c_example.c)
target_link_libraries(c_consumer PRIVATE hashtrace::c)
CMAKE
cmake -S "$prefix/consumer" -B "$prefix/consumer/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$prefix/consumer/build" >/dev/null
out=$(HASHTRACE_LOG_DIR="$prefix/logs-cmake" "$prefix/consumer/build/c_consumer" 100)
echo "$out" | grep -q "^200 samples (0 dropped)" || { echo "FAIL: C example via find_package: $out"; exit 1; }

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
