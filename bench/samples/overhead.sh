#!/usr/bin/env bash
# Overhead of the tracepoints on the sample system: the same system built with
# tracepoints (hashtrace-sample) and with -DHASHTRACE_DISABLE
# (hashtrace-sample-notrace), run alternately in the same session so both see
# the same machine load. Each node measures its own loop rate and the
# creation-to-application latency of the messages it applies (no tracing
# needed for that: the creation time travels in the message).
#
#   bench/samples/overhead.sh [BUILD_DIR] [ROUNDS] [SECONDS] [CONFIG]
#     defaults: build-demo, 3 rounds, 10 s each, local-router
# Prints a table (bench/samples/overhead_table.py); results go to docs/benchmarks.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build_dir=${1:-$root/build-demo}
rounds=${2:-3}
seconds=${3:-10}
config=${4:-local-router}
out=$(mktemp -d /tmp/hashtrace-overhead.XXXXXX)
trap 'rm -rf "$out"' EXIT

cmake --build "$build_dir" --target hashtrace-sample hashtrace-sample-notrace >/dev/null
export SAMPLE_BIN_DIR=$build_dir/samples/node DURATION=$seconds
for round in $(seq "$rounds"); do
  for variant in traced notrace; do
    echo "round $round/$rounds: $variant ($config, $seconds s)" >&2
    SAMPLE_VARIANT=$variant "$root/samples/run-system.sh" "$config" "$out/$variant-$round" >&2
  done
done
python3 "$here/overhead_table.py" "$out"
