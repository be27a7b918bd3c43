#!/usr/bin/env bash
# The hashtrace demo: the paper's case studies 1 and 2 on a real distributed
# system (docs/samples.md).
#
#   samples/demo.sh [--duration S] [--out DIR] [--build-dir DIR] [--no-build] [--live [PORT]] [--no-realtime]
#
# 1. builds hashtrace and the sample system (haptics 1 kHz, physics 250 Hz,
#    render 60 Hz, router) - incremental, nothing is downloaded;
# 2. runs it in each interconnection of case study 2 - mesh, local router,
#    remote router (a network namespace on a veth link) - for S seconds each
#    (default 10; env DEMO_DURATION), then once more with case study 1's bug
#    planted;
# 3. analyses every run (`hashtrace analyze`: text, JSON, an HTML report and
#    Chrome/Perfetto traces kept in the run's
#    folder) and prints the Table-5-style comparison (`hashtrace compare`) and
#    which link of the physics -> haptics chain holds the bug's delay;
# 4. on the bug run, the critical path of physics -> haptics (the haptics
#    queue decides it) and the bound the model gives with that queue's waits
#    gone; then a what-if beside its real run: render's apply made 0.5 ms
#    slower, predicted from the baseline alone, then run for real
#    (--extra-work) and measured, with the error.
#
# With --live, every node also streams its samples (HASHTRACE_STREAM) to
# `hashtrace live`, started first (streams on 127.0.0.1:PORT, default 7400;
# the page on PORT+1): open the page it prints and watch the bug run's L4
# link (haptics queued -> processed) grow and turn red while it happens. The
# collector saves what it received in OUT/live and stays up at the end until
# Enter when run from a terminal. The remote router runs in its own network
# namespace, whose loopback does not reach the collector: it says so, and its
# log counts its samples as stream drops.
#
# As root the sample system runs at real-time priority (SCHED_FIFO 10), so
# that what else the machine runs does not move its latencies; --no-realtime
# runs it at normal priority.
#
# Stops every process it started and removes its namespace on any exit,
# including Ctrl-C. The remote router needs root (ip netns); without it that
# configuration is skipped, and said so.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
duration=${DEMO_DURATION:-10}
build_dir=${DEMO_BUILD_DIR:-$root/build-demo}
out=""
build=1
live_port=""
realtime_allowed=1
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) duration=${2:?--duration needs seconds}; shift 2 ;;
    --out) out=${2:?--out needs a folder}; shift 2 ;;
    --build-dir) build_dir=${2:?--build-dir needs a folder}; shift 2 ;;
    --no-build) build=0; shift ;;  # use what --build-dir already holds
    --no-realtime) realtime_allowed=0; shift ;;
    --live)
      live_port=7400
      if [[ "${2:-}" =~ ^[0-9]+$ ]]; then live_port=$2; shift; fi
      shift ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "demo.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ "$duration" =~ ^[0-9]+([.][0-9]+)?$ ]] || { echo "demo.sh: --duration must be seconds, not '$duration'" >&2; exit 2; }
out=${out:-$root/demo-output/$(date -u +%Y%m%dT%H%M%SZ)}

child=""
live_pid=""
stop_live() {  # the collector settles what it holds, prints its last state, and exits
  [ -n "$live_pid" ] || return 0
  kill -INT "$live_pid" 2>/dev/null || true
  wait "$live_pid" 2>/dev/null || true
  live_pid=""
}
on_signal() {
  echo >&2
  echo "demo.sh: interrupted; stopping the running configuration" >&2
  if [ -n "$child" ]; then
    kill -TERM "$child" 2>/dev/null || true
    wait "$child" 2>/dev/null || true  # run-system.sh stops its processes and removes its namespace
  fi
  stop_live
  exit 130
}
trap on_signal INT TERM
trap stop_live EXIT

section() { printf '\n==== %s ====\n' "$*"; }

if [ "$build" = 1 ]; then
  section "building (in $build_dir)"
  mkdir -p "$build_dir"
  # A fresh build dir gets only what the demo needs; an existing one (--build-dir
  # of a developer's build) keeps its own configuration.
  fresh=()
  [ -f "$build_dir/CMakeCache.txt" ] ||
    fresh=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DHASHTRACE_BUILD_TESTS=OFF -DHASHTRACE_BUILD_BENCHMARKS=OFF)
  cmake -S "$root" -B "$build_dir" "${fresh[@]}" >"$build_dir/demo-configure.log" 2>&1 ||
    { cat "$build_dir/demo-configure.log" >&2; exit 1; }
  cmake --build "$build_dir" -j"$(nproc)" --target hashtrace hashtrace-sample hashtrace-sample-notrace
fi
build_dir=$(cd "$build_dir" && pwd)  # absolute: the comparisons run from the output folder
hashtrace=$build_dir/app/hashtrace
export SAMPLE_BIN_DIR=$build_dir/samples/node
spec=$here/spec.toml
# As root the system runs at real-time priority (SCHED_FIFO 10): its threads
# get a core whenever they are runnable, even beside a build, so its
# latencies come from its own work and queues, which is what the analysis
# and the what-if below are about (on a loaded machine without it, a 2 s run
# measured twice its idle latency). The kernel's real-time throttling leaves
# the rest of the machine 5 % of the time in any case.
realtime=()
if [ "$realtime_allowed" = 1 ] && [ "$(id -u)" = 0 ] && chrt -f 10 true 2>/dev/null; then
  realtime=(chrt -f 10)
  echo "the sample system runs at real-time priority (SCHED_FIFO 10, as root)"
fi

if [ -n "$live_port" ]; then
  section "live view: every node streams to hashtrace live"
  mkdir -p "$out/live"
  # A margin of 3 s: the bug's queue waits grow past a second within the run.
  "$hashtrace" live --spec "$spec" --listen "127.0.0.1:$live_port" --http "127.0.0.1:$((live_port + 1))" \
    --save "$out/live" --margin-ms 3000 >"$out/live/collector-output.txt" &
  live_pid=$!
  export HASHTRACE_STREAM=127.0.0.1:$live_port
  echo "open http://127.0.0.1:$((live_port + 1))/ now: the runs below appear as they happen; in the last one"
  echo "(local-router-bug) the L4 link, haptics queued -> processed, grows and is drawn red."
fi

run() {  # run NAME CONFIG [BUG]: one configuration, in the background so a signal is handled at once
  local name=$1 config=$2 bug=${3:-0}
  section "running $name for ${duration} s"
  DURATION=$duration BUG=$bug "${realtime[@]}" "$here/run-system.sh" "$config" "$out/$name" &
  child=$!
  wait "$child"
  child=""
  "$hashtrace" analyze "$out/$name" --spec "$spec" --json "$out/$name/analysis.json" \
    --html "$out/$name/report.html" --html-title "hashtrace demo: $name" >"$out/$name/analysis.txt"
  "$hashtrace" export "$out/$name" --spec "$spec" --chrome "$out/$name/trace.json" --perfetto "$out/$name/trace.pftrace"
  echo "analysis: $out/$name/analysis.txt ($(grep -c '' "$out/$name/analysis.txt") lines), $out/$name/analysis.json"
  echo "report:   $out/$name/report.html; traces for ui.perfetto.dev: $out/$name/trace.pftrace, trace.json"
}

configs=(mesh local-router)
run mesh mesh
run local-router local-router
if ip netns add "htdemo-probe-$$" 2>/dev/null; then
  ip netns del "htdemo-probe-$$"
  run remote-router remote-router
  configs+=(remote-router)
else
  section "skipping remote-router: creating a network namespace needs root (ip netns)"
fi
run local-router-bug local-router 1

section "case study 2: the interconnections compared (Table 5; $out/table5.md)"
(cd "$out" && "$hashtrace" compare "${configs[@]}" --spec "$spec" --markdown table5.md --html table5.html)

section "case study 1: the planted bug (local router without and with it)"
(cd "$out" && "$hashtrace" compare local-router local-router-bug --spec "$spec" --markdown bug.md --html bug.html)

section "where the delay is: the physics -> haptics chain, link by link"
python3 "$here/which_link.py" "$out/local-router/analysis.json" "$out/local-router-bug/analysis.json"

section "why, and what would help: the critical path on the bug run"
interval="M5.3 Physics simulation to Haptics scene graph"
"$hashtrace" critical-path "$out/local-router-bug" --spec "$spec" --interval "$interval" --quiet
"$hashtrace" whatif "$out/local-router-bug" --spec "$spec" --interval "$interval" --quiet \
  --change "Haptics/MessageQueued->Haptics/MessageProcessed-60s" --json "$out/whatif-bug.json"
python3 - "$out/whatif-bug.json" "$out/local-router/analysis.json" "$interval" <<'PY'
import json, sys
whatif, analysis, name = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
without_bug = next(i["mean_ms"] for i in analysis["intervals"] if i["name"] == name)
print(f"{name}: {whatif['baseline']['mean_ms']:.3f} ms with the bug. With every wait in the haptics queue removed (-60s),\n"
      f"  the model gives {whatif['predicted']['mean_ms']:.3f} ms: a lower bound, not a prediction of the fix, since the fix\n"
      f"  keeps the queue's normal waits (the run without the bug measured {without_bug:.3f} ms).")
PY

# A what-if shown the way its accuracy is proven: one change predicted from
# the baseline run alone, then made for real and measured.
section "a what-if beside its real run: render's apply 0.5 ms slower"
interval="M5.4 Physics simulation to Render scene graph"
change="Render/MessageProcessed->Render/SceneGraphUpdated+0.5ms"
"$hashtrace" whatif "$out/local-router" --spec "$spec" --interval "$interval" --quiet \
  --change "$change" --json "$out/whatif-render.json" >/dev/null
RENDER_ARGS="--extra-work apply=0.5" run local-router-render-slower local-router
python3 - "$out/whatif-render.json" "$out/local-router-render-slower/analysis.json" "$interval" "$change" <<'PY'
import json, sys
whatif, measured, name, change = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3], sys.argv[4]
real = next(i for i in measured["intervals"] if i["name"] == name)
base, pred = whatif["baseline"], whatif["predicted"]
print(f"{name}, change {change}")
print(f"  {'':10} {'baseline':>10} {'predicted':>10} {'measured':>10} {'error':>8}")
for key in ("mean_ms", "p95_ms"):
    err = (pred[key] - real[key]) / real[key] * 100 if real[key] else float("nan")
    print(f"  {key:10} {base[key]:10.3f} {pred[key]:10.3f} {real[key]:10.3f} {err:+7.1f}%")
print("  predicted from the baseline run alone; measured on a run with --extra-work apply=0.5 on render.\n"
      "  Both runs are real and short: their own run-to-run spread (a few %) is part of the error.")
PY

section "done"
echo "runs, logs, analyses and tables: $out"
if [ -n "$live_pid" ]; then
  if [ -t 0 ]; then
    read -r -p "the live page stays up at http://127.0.0.1:$((live_port + 1))/ - press Enter to stop it " _ || true
  fi
  stop_live
  echo "live: what the collector received is saved in $out/live (hashtrace analyze $out/live --spec $spec)"
fi
