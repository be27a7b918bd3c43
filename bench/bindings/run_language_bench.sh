#!/usr/bin/env bash
# The tracepoint's cost in C++, C# (Mono) and Python, one after the other in
# one run, at the paper's Table 7 sizes (10 B, 100 B, 1 kB). All figures are
# ns of CPU on the application thread.
#   cmake --build build -j2 --target bench_tracepoint bench_csharp hashtrace_speedups
#   bench/bindings/run_language_bench.sh build
set -euo pipefail
build=${1:-build}
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
echo "== C++ (Google Benchmark, CPU column; median of 3)"
"$build/bench/sdk/bench_tracepoint" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_filter='^BM_(BareMD5|TracepointInlineMD5|TracepointDeferredMD5)/(10|100|1000)_median$|^BM_(BareMD5|TracepointInlineMD5|TracepointDeferredMD5)/(10|100|1000)$' \
  --benchmark_min_time=0.2 2>/dev/null | grep -E "median|Benchmark"
echo "== C# (Mono)"
mono --optimize=all "$build/bench/bindings/CsBench.exe" 3
for mode in accelerated pure; do
  echo "== Python ($mode)"
  env HASHTRACE_LIBRARY="$build/bindings/c/libhashtrace.so.0" PYTHONPATH="$source_dir/bindings/python:$build/bindings/python" \
    HASHTRACE_PURE_PYTHON=$([ $mode = pure ] && echo 1 || echo 0) python3 "$source_dir/bench/bindings/py_bench.py" 3
done
