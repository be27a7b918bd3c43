#!/usr/bin/env bash
# The test command (README, CI): builds with warnings as errors and runs every
# test three ways: a normal build, AddressSanitizer + UndefinedBehaviorSanitizer,
# and ThreadSanitizer for the suites that exercise the queue and the writer
# (ctest label `tsan`); then fuzzes every parser for a bounded time
# (scripts/fuzz.sh). Run scripts/install-deps.sh first on a fresh machine.
#
#   scripts/test.sh            all three
#   scripts/test.sh quick      the normal build only
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
mode=${1:-all}

step() { printf '\n==== %s\n' "$*"; }

step "build (warnings are errors)"
cmake -S . -B build -DHASHTRACE_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
step "tests"
ctest --test-dir build --output-on-failure --timeout 600

[ "$mode" = quick ] && exit 0

step "build with AddressSanitizer + UndefinedBehaviorSanitizer"
cmake -S . -B build-asan -DHASHTRACE_WERROR=ON -DHASHTRACE_SANITIZE=address,undefined \
  -DHASHTRACE_BUILD_BENCHMARKS=OFF -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-asan -j"$jobs"
step "tests under ASan + UBSan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure --timeout 900 -LE 'nosan'

step "build the queue/writer suites with ThreadSanitizer"
cmake -S . -B build-tsan -DHASHTRACE_WERROR=ON -DHASHTRACE_SANITIZE=thread \
  -DHASHTRACE_BUILD_BENCHMARKS=OFF -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-tsan -j"$jobs" --target tsan-tests
step "queue/writer tests under TSan"
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 ctest --test-dir build-tsan --output-on-failure --timeout 900 -L tsan

step "fuzz every parser for a bounded time (libFuzzer, clang)"
scripts/fuzz.sh
