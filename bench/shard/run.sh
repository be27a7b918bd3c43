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
PAIRS=${2:-8}
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
cpu() { /usr/bin/time -f '%e %U %S %M' "$@" 2>&1 >/dev/null | tail -1; }  # wall, user, system s, peak KiB
echo "pair  whole: wall user sys MiB  sharded: wall user sys MiB  wall ratio (whole/sharded)  load"
for i in $(seq "$PAIRS"); do
  read -r w wu ws wm < <(cpu "$BIN" analyze "$DATA/$T" --spec "$spec" --quiet)
  read -r s su ss sm < <(cpu "$BIN" analyze "$DATA/$T" --spec "$spec" --quiet $shard_opts)
  echo "$i $w $wu $ws $wm $s $su $ss $sm $(cut -d' ' -f1 /proc/loadavg)"
done | awk '{ printf "%4d  %5.2f %5.2f %5.2f %4.0f  %5.2f %5.2f %5.2f %4.0f  %5.2f  %s\n", $1, $2, $3, $4, $5 / 1024, $6, $7, $8, $9 / 1024, $2 / $6, $10
              w[NR] = $2; s[NR] = $6; r[NR] = $2 / $6; wu[NR] = $3; su[NR] = $7 }
  function median(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                                    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  END { printf "medians: whole %.3f s (user %.2f), sharded %.3f s (user %.2f), ratio %.3f\n", median(w, NR), median(wu, NR), median(s, NR), median(su, NR), median(r, NR) }'
echo "budget 512M: samples  wall_s  peak_MiB"
for n in "$T" "$((4 * T))"; do
  read -r s sm < <(peak "$BIN" analyze "$DATA/$n" --spec "$spec" --quiet --memory-budget 512M)
  awk -v n="$n" -v s="$s" -v sm="$sm" 'BEGIN { printf "%12d  %6.2f  %8.0f\n", n, s, sm / 1024 }'
done
