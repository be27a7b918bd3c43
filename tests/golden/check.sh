#!/usr/bin/env bash
# Golden outputs: two deterministic runs (the generators' fixed seeds) put
# through every analysis command; each output is compared with the one checked
# in under expected/, so any change of what a command prints or writes fails
# here and shows as a diff to review. HASHTRACE_UPDATE_GOLDEN=1 rewrites them.
#
#   pipeline: 10 nodes (a pipeline, a router fanning out, a queue of two
#             workers, a fan-in, clock offsets, bursts) from generate_long_run;
#   loops:    Case Study 2's VR system (haptics and physics loops, a router,
#             queues) from generate_dataset.
#
# Usage: check.sh HASHTRACE GENERATE_LONG_RUN GENERATE_DATASET EXPECTED_DIR
set -euo pipefail
hashtrace=$(realpath "$1") long_run=$(realpath "$2") dataset=$(realpath "$3") expected=$(realpath -m "$4")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$long_run" "$work/pipeline" --samples 20000 --rate 10000 --seed 7 >/dev/null
"$dataset" "$work/loops" 20000 binary >/dev/null

# One command of one run: its stdout and stderr (and the files it writes,
# named after the step) into the run's outputs. Paths are relative to the
# run's directory, so that no output names the temporary directory.
step() {
    local run=$1 name=$2
    shift 2
    (cd "$work/$run" && "$hashtrace" "$@" >"$work/out/$run/$name.txt" 2>&1) || echo "exit status $?" >>"$work/out/$run/$name.txt"
}

# A binary or very large output: its size and digest stand for it.
digest() {
    local run=$1 file=$2
    (cd "$work/out/$run" && echo "$(stat -c %s "$file") bytes, sha256 $(sha256sum "$file" | cut -d' ' -f1)" >"$file.digest" && rm "$file")
}

for run in pipeline loops; do
    mkdir -p "$work/out/$run"
    o=../out/$run
    step "$run" analyze analyze . --spec spec.toml --quiet --threads 2 --json "$o/analyze.json"
    step "$run" analyze-sharded analyze . --spec spec.toml --quiet --threads 2 --shard-samples 5000 --json "$o/analyze-sharded.json"
    step "$run" analyze-no-spec analyze . --quiet --threads 2
    step "$run" critical-path critical-path . --spec spec.toml --quiet --threads 2 --json "$o/critical-path.json"
    step "$run" infer infer . --quiet --threads 2 -o "$o/infer.toml" --json "$o/infer.json"
    step "$run" clock-estimate clock estimate . --spec spec.toml --quiet --threads 2 --json "$o/clock-estimate.json"
    step "$run" export export . --spec spec.toml --quiet --threads 2 --perfetto "$o/trace.pftrace" --chrome "$o/trace.json"
    digest "$run" trace.pftrace
    digest "$run" trace.json
done
step pipeline whatif whatif . --spec spec.toml --quiet --threads 2 --interval "send to join" --change "Workers/Dispatch->Workers/Work*0.5" --json ../out/pipeline/whatif.json
step loops whatif whatif . --spec spec.toml --quiet --threads 2 --interval "M5.1 Chai force to Unity processed" \
    --change "Router/Receive->Router/Forward+0.2ms" --json ../out/loops/whatif.json

if [ "${HASHTRACE_UPDATE_GOLDEN:-}" = 1 ]; then
    rm -rf "$expected" && mkdir -p "$expected" && cp -r "$work/out/." "$expected/"
    echo "golden outputs rewritten in $expected: review the change (git diff) before committing it"
    exit 0
fi
if ! diff -ru "$expected" "$work/out"; then
    echo "FAIL: an output differs from its golden copy (above: - golden, + now)."
    echo "If the change is intended: HASHTRACE_UPDATE_GOLDEN=1 ctest -L golden, and review the diff."
    exit 1
fi
echo "every output equals its golden copy ($(find "$expected" -type f | wc -l) files)"
