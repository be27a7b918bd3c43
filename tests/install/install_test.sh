#!/usr/bin/env bash
# Installs the build into a temporary prefix, builds a separate project against
# it with find_package(hashtrace), runs it and reads its log with the installed CLI.
set -euo pipefail
build_dir=$1
source_dir=$2
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
for component in sdk cli python; do cmake --install "$build_dir" --prefix "$prefix" --component "$component" >/dev/null; done
cmake -S "$source_dir/tests/install/consumer" -B "$prefix/build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DQUICKSTART_SOURCE="$source_dir/sdk/examples/quickstart.cpp" >/dev/null
cmake --build "$prefix/build" >/dev/null
(cd "$prefix" && HASHTRACE_LOG_DIR="$prefix/logs" HASHTRACE_NODE=Installed "$prefix/build/consumer")
out=$("$prefix/bin/hashtrace" log "$prefix/logs")
echo "$out" | grep -q "Installed .*ForceComputed .* 1000 " || { echo "$out"; echo "FAIL: expected 1000 ForceComputed samples"; exit 1; }
echo "installed package works: consumer built with find_package(hashtrace), 4000 samples logged"
# The Dask driver, installed beside the CLI, finds its module in the installed package.
help=$(PYTHONPATH="$prefix/lib/python3/dist-packages" /usr/bin/python3 "$prefix/bin/hashtrace-cluster" analyze --help)
echo "$help" | grep -q -- "--scheduler" || { echo "$help"; echo "FAIL: the installed hashtrace-cluster did not run"; exit 1; }
echo "installed hashtrace-cluster runs from the installed package"
