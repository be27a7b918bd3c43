#!/usr/bin/env bash
# `hashtrace infer` against `hashtrace analyze --spec` on the same run, the
# two alternated (docs/benchmarks.md, "Structure recovery"): wall and CPU
# (user + sys) of each process, and the ratio of the medians.
#
#   bench/infer/speed.sh [BUILD_DIR] [RUNS] [DATASET_DIR]
#
# The dataset (default $TMPDIR/hashtrace-bench-graph/binary-4000000, the
# graph builder's 4M-sample benchmark run) is generated on first use.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
runs=${2:-5}
data=${3:-${TMPDIR:-/tmp}/hashtrace-bench-graph/binary-4000000}
hashtrace=$build/app/hashtrace
[ -d "$data" ] || "$build/bench/graph/generate_dataset" "$data" 4000000 binary >/dev/null
spec_out=$(mktemp "${TMPDIR:-/tmp}/hashtrace-infer-speed.XXXXXX.toml")
trap 'rm -f "$spec_out"' EXIT

measure() {  # prints "wall cpu" of one run of the command
  /usr/bin/time -f "%e %U %S" -o /dev/stderr "$@" >/dev/null 2>/tmp/hashtrace-infer-speed-$$.txt || true
  awk 'END { printf "%.3f %.3f\n", $1, $2 + $3 }' /tmp/hashtrace-infer-speed-$$.txt
  rm -f /tmp/hashtrace-infer-speed-$$.txt
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

: >/tmp/hashtrace-infer-speed-analyze-$$ && : >/tmp/hashtrace-infer-speed-infer-$$
for i in $(seq "$runs"); do
  a=$(measure "$hashtrace" analyze "$data" --spec "$data/spec.toml" --quiet)
  b=$(measure "$hashtrace" infer "$data" -o "$spec_out" --force --quiet)
  echo "run $i: analyze wall/cpu $a s   infer wall/cpu $b s"
  echo "$a" >>/tmp/hashtrace-infer-speed-analyze-$$
  echo "$b" >>/tmp/hashtrace-infer-speed-infer-$$
done
aw=$(cut -d' ' -f1 /tmp/hashtrace-infer-speed-analyze-$$ | median); ac=$(cut -d' ' -f2 /tmp/hashtrace-infer-speed-analyze-$$ | median)
iw=$(cut -d' ' -f1 /tmp/hashtrace-infer-speed-infer-$$ | median); ic=$(cut -d' ' -f2 /tmp/hashtrace-infer-speed-infer-$$ | median)
rm -f /tmp/hashtrace-infer-speed-analyze-$$ /tmp/hashtrace-infer-speed-infer-$$
echo "median of $runs: analyze wall $aw s cpu $ac s; infer wall $iw s cpu $ic s; infer/analyze wall $(awk -v a="$aw" -v b="$iw" 'BEGIN { printf "%.2f", b / a }')x cpu $(awk -v a="$ac" -v b="$ic" 'BEGIN { printf "%.2f", b / a }')x"
