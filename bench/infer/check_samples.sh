#!/usr/bin/env bash
# The proof of structure recovery (docs/infer.md):
# on the sample system's runs (mesh, local router, remote router where
# namespaces can be made, and the local router with case study 1's bug) and
# on the benchmark's synthetic multi-node run, `hashtrace infer --all-intervals`
# writes a spec, and `infer_check` links the run with it and with the
# hand-written spec (samples/spec.toml, the dataset's spec.toml): precision
# and recall of the links, and every hand-written interval's (from, to)
# among the inferred ones with the same count and mean.
#
#   bench/infer/check_samples.sh [BUILD_DIR] [OUT_DIR]      (env DURATION, default 5 s a run)
#
# BUILD_DIR (default build/) must hold app/hashtrace, bench/infer/infer_check,
# bench/graph/generate_dataset and samples/node/hashtrace-sample
# (SAMPLE_BIN_DIR overrides the last). Exit status 1 when any run disagrees.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out=${2:-$(mktemp -d "${TMPDIR:-/tmp}/hashtrace-infer-check.XXXXXX")}
mkdir -p "$out"
hashtrace=$build/app/hashtrace
check=$build/bench/infer/infer_check
export SAMPLE_BIN_DIR=${SAMPLE_BIN_DIR:-$build/samples/node}
export DURATION=${DURATION:-5}
for tool in "$hashtrace" "$check" "$build/bench/graph/generate_dataset" "$SAMPLE_BIN_DIR/hashtrace-sample"; do
  [ -x "$tool" ] || { echo "check_samples.sh: $tool is not built" >&2; exit 2; }
done

failed=0
verify() {  # verify NAME RUN_DIR HAND_SPEC
  local name=$1 run=$2 hand=$3
  "$hashtrace" infer "$run" -o "$run/inferred.toml" --all-intervals --force --quiet >"$run/infer.txt"
  echo "== $name: $(head -1 "$run/infer.txt")"
  if ! "$check" "$run" --reference "$hand" --inferred "$run/inferred.toml" | tee "$run/check.txt"; then failed=1; fi
}

configs=(mesh local-router)
if ip netns add "htinfer-probe-$$" 2>/dev/null; then
  ip netns del "htinfer-probe-$$"
  configs+=(remote-router)
else
  echo "(remote-router skipped: creating a network namespace needs root)"
fi
for config in "${configs[@]}"; do
  "$root/samples/run-system.sh" "$config" "$out/$config" >"$out/$config.log" 2>&1
  verify "$config" "$out/$config" "$root/samples/spec.toml"
done
BUG=1 "$root/samples/run-system.sh" local-router "$out/local-router-bug" >"$out/local-router-bug.log" 2>&1
verify "local-router with the bug" "$out/local-router-bug" "$root/samples/spec.toml"

"$build/bench/graph/generate_dataset" "$out/dataset" 200000 >/dev/null
verify "synthetic case study 2 run (200k samples)" "$out/dataset" "$out/dataset/spec.toml"

echo "runs, inferred specs and checks: $out"
exit "$failed"
