#!/usr/bin/env bash
# The sharded analysis against the in-memory one, whole process, on the
# Case Study 2 dataset (docs/benchmarks.md, "Runs of any length"):
#   - throughput: `analyze` in time shards against `analyze` whole, on a run
#     that fits both ways, in turn (A B A B ...), the ratio pair by pair;
#   - bounded memory: peak RSS of the sharded analysis of runs of T and 4T
#     samples under one budget.
# Usage: bench/shard/run.sh [T] [PAIRS]   (build first: cmake --build build --target hashtrace generate_dataset)
set -euo pipefail
cd "$(dirname "$0")/../.."
T=${1:-10000000}
PAIRS=${2:-5}
BIN=build/app/hashtrace
GEN=build/bench/graph/generate_dataset
DATA=${HASHTRACE_BENCH_DATA:-/tmp/hashtrace-bench-shard}
for n in "$T" "$((4 * T))"; do
  [ -d "$DATA/$n" ] || "$GEN" "$DATA/$n" "$n" binary >/dev/null
done
spec="$DATA/$T/spec.toml"
# Shards of a quarter of the run, the default margin (widened to 2 s by the
# first shard: the dataset's loops link samples up to 1 s apart).
shard_opts="--shard-samples $((T / 4))"
peak() { /usr/bin/time -f '%e %M' "$@" 2>&1 >/dev/null | tail -1; }  # wall s, peak KiB
echo "pair  whole_s  sharded_s  ratio(whole/sharded)  whole_MiB  sharded_MiB"
for i in $(seq "$PAIRS"); do
  read -r w wm < <(peak "$BIN" analyze "$DATA/$T" --spec "$spec" --quiet)
  read -r s sm < <(peak "$BIN" analyze "$DATA/$T" --spec "$spec" --quiet $shard_opts)
  awk -v i="$i" -v w="$w" -v s="$s" -v wm="$wm" -v sm="$sm" 'BEGIN { printf "%4d  %7.2f  %9.2f  %20.2f  %9.0f  %11.0f\n", i, w, s, w / s, wm / 1024, sm / 1024 }'
done
echo "budget 512M: samples  wall_s  peak_MiB"
for n in "$T" "$((4 * T))"; do
  read -r s sm < <(peak "$BIN" analyze "$DATA/$n" --spec "$spec" --quiet --memory-budget 512M)
  awk -v n="$n" -v s="$s" -v sm="$sm" 'BEGIN { printf "%12d  %6.2f  %8.0f\n", n, s, sm / 1024 }'
done
