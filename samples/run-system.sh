#!/usr/bin/env bash
# Runs the sample system once in one interconnection and collects its logs.
#
#   samples/run-system.sh CONFIG RUNDIR
#     CONFIG   mesh | local-router | remote-router
#     RUNDIR   gets one trace log per process (so `hashtrace analyze RUNDIR` and
#              `hashtrace compare RUNDIR...` take it as it is), stats/ (each
#              node's own loop-rate and latency figures, JSON) and stderr/
#
# Environment:
#   SAMPLE_BIN_DIR   folder with hashtrace-sample[-notrace] (default: build-demo/samples/node)
#   SAMPLE_VARIANT   traced | notrace (notrace: -DHASHTRACE_DISABLE build, writes no logs)
#   DURATION         seconds to run (default 10)
#   BUG=1            plant case study 1's bug (haptics reads one message per iteration)
#   PORT_BASE        first of 4 TCP ports (default: derived from this script's pid)
#   NETEM_DELAY      remote-router only: added one-way delay on the veth link (default 1ms)
#   NETNS_TAG        remote-router only: names its namespace htsample-TAG and veth pair htvTAGa/b
#                    (a number; default: this script's pid), so a caller can check its own are gone
#   HASHTRACE_FORMAT binary | csv (default binary)
#   HAPTICS_ARGS, PHYSICS_ARGS, RENDER_ARGS  more options for that node, e.g.
#                    RENDER_ARGS="--extra-work apply=0.2" (bench/critical-path)
#
# Every process is started here and stopped here with SIGINT (the way an
# operator stops them), so the shutdown path is exercised on every run. On
# exit - normal, error, Ctrl-C or SIGTERM - whatever is still running is
# stopped by pid and the network namespace and veth pair are removed.
set -euo pipefail

config=${1:?usage: run-system.sh mesh|local-router|remote-router OUTDIR}
out=${2:?usage: run-system.sh CONFIG RUNDIR}
here=$(cd "$(dirname "$0")" && pwd)
bin_dir=${SAMPLE_BIN_DIR:-$here/../build-demo/samples/node}
variant=${SAMPLE_VARIANT:-traced}
duration=${DURATION:-10}
port_base=${PORT_BASE:-$((20000 + ($$ % 2000) * 4))}

case "$variant" in
  traced) bin=$bin_dir/hashtrace-sample ;;
  notrace) bin=$bin_dir/hashtrace-sample-notrace ;;
  *) echo "run-system.sh: SAMPLE_VARIANT must be traced or notrace, not '$variant'" >&2; exit 2 ;;
esac
[ -x "$bin" ] || { echo "run-system.sh: $bin not built" >&2; exit 2; }
case "$config" in
  mesh | local-router | remote-router) ;;
  *) echo "run-system.sh: unknown configuration '$config' (mesh, local-router, remote-router)" >&2; exit 2 ;;
esac

mkdir -p "$out/stats" "$out/stderr"
rm -f "$out"/*.htlog "$out"/*.csv "$out"/stats/* "$out"/stderr/*
export HASHTRACE_LOG_DIR=$out
unset HASHTRACE_NODE  # each process names itself (Haptics, Physics, ...); a global override would merge them
export HASHTRACE_FORMAT=${HASHTRACE_FORMAT:-binary}

pids=()
names=()
sleeper=""
netns=""
veth=""

cleanup() {
  local pid
  # Background jobs of a script ignore SIGINT, so Ctrl-C does not end the timer.
  if [ -n "$sleeper" ]; then kill "$sleeper" 2>/dev/null || true; sleeper=""; fi
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  pids=()
  if [ -n "$veth" ]; then ip link del "$veth" 2>/dev/null || true; veth=""; fi
  if [ -n "$netns" ]; then ip netns del "$netns" 2>/dev/null || true; netns=""; fi
}
on_signal() {
  echo "run-system.sh: interrupted, stopping $config" >&2
  cleanup
  exit 130
}
trap cleanup EXIT
trap on_signal INT TERM

start() {  # start NAME ARGS... : one process, its stderr kept, its pid remembered
  local name=$1
  shift
  "$@" --stats "$out/stats/$name.json" 2>"$out/stderr/$name.txt" &
  pids+=($!)
  names+=("$name")
}
start_router() {  # router: no --stats
  "$@" 2>"$out/stderr/router.txt" &
  pids+=($!)
  names+=(router)
}

bug=()
[ "${BUG:-0}" = 1 ] && bug=(--bug)
read -r -a haptics_args <<<"${HAPTICS_ARGS:-}"
read -r -a physics_args <<<"${PHYSICS_ARGS:-}"
read -r -a render_args <<<"${RENDER_ARGS:-}"
p_haptics=$((port_base)) p_physics=$((port_base + 1)) p_render=$((port_base + 2)) p_router=$((port_base + 3))

case "$config" in
  mesh)
    # Every node talks to every other directly; a sender duplicates its messages.
    start render "$bin" render --listen 127.0.0.1:$p_render --accept 2 "${render_args[@]}"
    start physics "$bin" physics --listen 127.0.0.1:$p_physics --accept 1 --connect 127.0.0.1:$p_render "${physics_args[@]}"
    start haptics "$bin" haptics --connect 127.0.0.1:$p_physics --connect 127.0.0.1:$p_render "${bug[@]}" "${haptics_args[@]}"
    ;;
  local-router | remote-router)
    router_host=127.0.0.1
    router_cmd=()
    if [ "$config" = remote-router ]; then
      # "Another host": a network namespace with its own stack, reached over a
      # veth link with (when the kernel has sch_netem) an added delay.
      tag=${NETNS_TAG:-$$}
      [[ "$tag" =~ ^[0-9]{1,9}$ ]] || { echo "run-system.sh: NETNS_TAG must be a number of at most 9 digits, not '$tag'" >&2; exit 2; }
      netns=htsample-$tag
      veth=htv${tag}a
      subnet=$(((tag % 250) + 1))
      ip netns add "$netns"
      ip link add "$veth" type veth peer name "htv${tag}b"
      ip link set "htv${tag}b" netns "$netns"
      ip addr add "10.213.$subnet.1/30" dev "$veth"
      ip link set "$veth" up
      ip netns exec "$netns" ip addr add "10.213.$subnet.2/30" dev "htv${tag}b"
      ip netns exec "$netns" ip link set "htv${tag}b" up
      ip netns exec "$netns" ip link set lo up
      delay=${NETEM_DELAY:-1ms}
      if tc qdisc add dev "$veth" root netem delay "$delay" 2>/dev/null &&
        ip netns exec "$netns" tc qdisc add dev "htv${tag}b" root netem delay "$delay" 2>/dev/null; then
        echo "run-system.sh: remote router link: veth with netem delay $delay each way" >&2
      else
        echo "run-system.sh: remote router link: veth without added delay (tc netem not available here)" >&2
      fi
      router_host=10.213.$subnet.2
      router_cmd=(ip netns exec "$netns")
    fi
    start_router "${router_cmd[@]}" "$bin" router --listen $router_host:$p_router --accept 3
    start render "$bin" render --connect $router_host:$p_router --wait-start "${render_args[@]}"
    start physics "$bin" physics --connect $router_host:$p_router --wait-start "${physics_args[@]}"
    start haptics "$bin" haptics --connect $router_host:$p_router --wait-start "${bug[@]}" "${haptics_args[@]}"
    ;;
esac

sleep "$duration" &
sleeper=$!
wait $sleeper || true
sleeper=""

# Stop like an operator would: SIGINT to every process at once. Each stops its
# loop, flushes what it still has to send, waits for its peers' goodbyes and
# exits with its log complete.
for pid in "${pids[@]}"; do kill -INT "$pid" 2>/dev/null || true; done
failed=0
for i in "${!pids[@]}"; do
  if ! wait "${pids[$i]}"; then
    echo "run-system.sh: ${names[$i]} failed; its stderr:" >&2
    sed 's/^/  /' "$out/stderr/${names[$i]}.txt" >&2
    failed=1
  fi
done
pids=()
exit $failed
