#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang with ASan + UBSan; only the
# targets and the libraries they link) and runs each on its kept corpus,
# fuzz/corpus/<target>/, for a bounded time. A crash, leak, undefined
# behaviour or slow input (over 10 s) fails the run; the input is left in
# build-fuzz/findings/ (keep it in fuzz/findings/ until fixed). New inputs go
# to build-fuzz/new-corpus/, not into git. scripts/test.sh runs this.
#
#   scripts/fuzz.sh                     25-30 s a target (6 targets: ~3 min with the build cached)
#   FUZZ_SECONDS=600 scripts/fuzz.sh    a longer hunt
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-25}
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache); fi
cmake -S fuzz -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang "${launcher[@]}" >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target fuzz-targets

mkdir -p build-fuzz/findings
for target in csv_reader binary_reader spec_parser clock_records analyze_csv analyze_binary; do
  new=build-fuzz/new-corpus/$target
  mkdir -p "$new"
  # -max_len above the 4 kB default: the corpus holds larger logs (a batch of
  # samples is 4096). libFuzzer runs the whole corpus before it looks at
  # -max_total_time (the pipeline targets take 0.1-0.3 s an input on a busy
  # machine): an interrupt ends the run on time, exit code 72.
  status=0
  timeout --preserve-status -s INT $((seconds + 5)) "build-fuzz/fuzz_$target" -max_total_time="$seconds" -max_len=65536 \
    -timeout=10 -rss_limit_mb=2048 -artifact_prefix="build-fuzz/findings/$target-" "$new" "fuzz/corpus/$target" \
    >"build-fuzz/$target.log" 2>&1 || status=$?
  if [ "$status" != 0 ] && [ "$status" != 72 ]; then
    tail -n 60 "build-fuzz/$target.log"
    echo "fuzz_$target failed (exit $status): see build-fuzz/$target.log and build-fuzz/findings/" >&2
    exit 1
  fi
  echo "fuzz_$target: $(grep -oE '^#[0-9]+' "build-fuzz/$target.log" | tail -n 1 | tr -d '#') runs in ${seconds} s"
done
