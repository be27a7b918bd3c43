#!/usr/bin/env bash
# The tracepoint beside its floor and an LTTng-UST event, in one process:
# an LTTng session (root: the session daemon) with a user-space channel in
# discard mode enables the benchmark's event, then bench_tracepoint_lttng runs
# the floor (a TSC read and a store of the sample into the thread's ring), the
# deferred tracepoint at 10 B and 64 B, the LTTng event with the two 16-byte
# hashes given, and the inline MD5 tracepoint beside the bare MD5() at 10 B,
# and prints the ratios of this run: medians of CPU time on the calling thread
# (on a shared machine, wall time also counts the time others' work took the
# core). Events LTTng discarded are said (a full buffer drops, it never waits).
# Usage: bench/sdk/lttng_side_by_side.sh [REPETITIONS]   (build: cmake --build build --target bench_tracepoint_lttng)
set -euo pipefail
cd "$(dirname "$0")/../.."
repetitions=${1:-5}
bin=build/bench/sdk/bench_tracepoint_lttng
[ -x "$bin" ] || { echo "no $bin: install liblttng-ust-dev lttng-tools (scripts/install-deps.sh) and build it" >&2; exit 2; }
command -v lttng >/dev/null || { echo "lttng not found (Debian: lttng-tools)" >&2; exit 2; }
pgrep -x lttng-sessiond >/dev/null || lttng-sessiond --daemonize
session=hashtrace-bench-$$
out=$(mktemp -d)
trap 'lttng destroy "$session" >/dev/null 2>&1 || true; rm -rf "$out"' EXIT
lttng create "$session" --output="$out/trace" >/dev/null
lttng enable-channel --userspace --discard --subbuf-size=1M --num-subbuf=8 bench >/dev/null
lttng enable-event --userspace --channel=bench 'hashtrace_bench:*' >/dev/null
lttng start >/dev/null
"$bin" --benchmark_filter='BM_FloorStampAndStore|BM_TracepointDeferredMD5/(10|64)$|BM_LttngEventTwoHashes|BM_BareMD5/10$|BM_TracepointInlineMD5/10$' \
  --benchmark_repetitions="$repetitions" --benchmark_report_aggregates_only=true --benchmark_format=json >"$out/results.json"
lttng stop "$session" 2>&1 | grep -i discard || echo "LTTng discarded no event"
echo "LTTng recorded $(du -sh "$out/trace" | cut -f1) of events"
python3 - "$out/results.json" <<'PY'
import json, sys
rows = {b["run_name"]: b["cpu_time"] for b in json.load(open(sys.argv[1]))["benchmarks"] if b.get("aggregate_name") == "median"}
floor = {n: rows[f"BM_FloorStampAndStore/{n}"] for n in (10, 64)}
deferred = {n: rows[f"BM_TracepointDeferredMD5/{n}"] for n in (10, 64)}
lttng = rows["BM_LttngEventTwoHashes"]
print(f"{'':34}{'ns (median)':>12}")
for n in (10, 64):
    print(f"floor: TSC + store of {n:>2} B{'':10}{floor[n]:>12.1f}")
    print(f"deferred tracepoint, {n:>2} B{'':9}{deferred[n]:>12.1f}   {deferred[n] / floor[n]:.2f}x the floor")
print(f"LTTng-UST event, two hashes given{'':1}{lttng:>12.1f}   {lttng / deferred[10]:.2f}x / {lttng / deferred[64]:.2f}x the deferred tracepoint (10 / 64 B)")
bare, inline = rows["BM_BareMD5/10"], rows["BM_TracepointInlineMD5/10"]
print(f"bare MD5(), 10 B{'':18}{bare:>12.1f}")
print(f"inline MD5 tracepoint, 10 B{'':7}{inline:>12.1f}   {inline / bare:.2f}x bare MD5()")
PY
