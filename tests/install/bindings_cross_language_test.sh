#!/usr/bin/env bash
# C and Python installed the way docs/sdk.md says, then traced together:
#   1. the C library: cmake --install (component sdk) into a fresh prefix; a C
#      program built with `pkg-config --cflags --libs hashtrace` and run as
#      built (no LD_LIBRARY_PATH, no ldconfig);
#   2. the Python package: `pip install bindings/python` (no index) into a
#      fresh venv: it must bring the C accelerator and its libhashtrace;
#   3. the C program sends message ids over UDP on 127.0.0.1 to the Python
#      program, each tracing its side; `hashtrace analyze` of the two logs must
#      link every message (C "Sent" -> Python "Received");
#   4. the failure path: the receiver hashing the ids at the wrong width must
#      link none, so the check in 3 is one that can fail.
# Usage: bindings_cross_language_test.sh BUILD_DIR SOURCE_DIR PYTHON HASHTRACE_CLI
set -euo pipefail
build_dir=$1
source_dir=$2
python=$3
cli=$4
count=200
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
here=$source_dir/tests/install
unset LD_LIBRARY_PATH HASHTRACE_LIBRARY PYTHONPATH HASHTRACE_PURE_PYTHON

# 1. The C library into a fresh prefix, a C program against it with pkg-config.
prefix=$work/prefix
cmake --install "$build_dir" --prefix "$prefix" --component sdk >/dev/null
cc -std=c99 -Wall -Wextra -Werror -o "$work/sender" "$here/bindings_udp_sender.c" \
  $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs hashtrace)

# 2. The Python package into a fresh venv, as the docs say (Debian: PEP 668 keeps
# pip out of the system's Python).
"$python" -m venv "$work/venv"
"$work/venv/bin/pip" install --no-index --disable-pip-version-check --quiet "$source_dir/bindings/python" \
  >"$work/pip.log" 2>&1 || { tail -30 "$work/pip.log"; fail "pip install bindings/python into a venv"; }

# 3./4. One sender, one receiver, one analysis: analyze's JSON summary into $work/NAME.summary.
run_pair() {
  local name=$1
  shift
  local logs=$work/logs-$name
  mkdir -p "$logs"
  "$work/venv/bin/python" "$here/bindings_udp_receiver.py" "$logs" "$count" "$@" >"$work/$name.receiver" 2>&1 &
  local receiver=$!
  local port=""
  for _ in $(seq 200); do
    port=$(head -n1 "$work/$name.receiver" 2>/dev/null || true)
    [[ $port =~ ^[0-9]+$ ]] && break
    kill -0 "$receiver" 2>/dev/null || break
    sleep 0.05
  done
  [[ $port =~ ^[0-9]+$ ]] || { cat "$work/$name.receiver"; fail "$name: the Python receiver did not start"; }
  (cd "$work" && HASHTRACE_LOG_DIR="$logs" "$work/sender" "$port" "$count") >"$work/$name.sender" 2>&1 ||
    { cat "$work/$name.sender"; fail "$name: the C sender (built with pkg-config) did not run by itself"; }
  wait "$receiver" || { cat "$work/$name.receiver"; fail "$name: the Python receiver failed"; }
  grep -q "^received $count recorded $count accelerated True module $work/venv/" "$work/$name.receiver" ||
    fail "$name: the receiver (expected $count messages, the venv's accelerated package): $(tail -n1 "$work/$name.receiver")"
  cat > "$work/spec.toml" <<'SPEC'
[[pair]]
from = "CSender/Sent"
to = "PyReceiver/Received"
SPEC
  "$cli" analyze "$logs" --spec "$work/spec.toml" --json "$work/$name.json" --quiet >"$work/$name.analyze" 2>&1 ||
    { cat "$work/$name.analyze"; fail "$name: hashtrace analyze"; }
  "$work/venv/bin/python" -c "
import json, sys
r = json.load(open(sys.argv[1]))
print(r['samples'], r['message_edges'], r['unlinked_inputs'])" "$work/$name.json" >"$work/$name.summary"
}

run_pair linked
read -r samples linked unlinked <"$work/linked.summary"
echo "C -> Python: $samples samples, $linked message links, $unlinked unlinked inputs"
[ "$samples" -eq $((2 * count)) ] || fail "expected $((2 * count)) samples in the two logs, analyze read $samples"
[ "$linked" -eq "$count" ] || fail "expected all $count messages linked C -> Python, analyze linked $linked"
[ "$unlinked" -eq 0 ] || fail "expected no unlinked Python inputs, analyze found $unlinked"

run_pair wrong-width --width u32
read -r samples linked unlinked <"$work/wrong-width.summary"
echo "C -> Python at the wrong width: $samples samples, $linked message links, $unlinked unlinked inputs"
[ "$linked" -eq 0 ] && [ "$unlinked" -eq "$count" ] ||
  fail "ids hashed at the wrong width must not link: analyze linked $linked, $unlinked unlinked"

echo "PASS: C (cmake --install, pkg-config, no ldconfig) and Python (pip into a venv, accelerated) traced $count UDP messages that analyze linked; the wrong width linked none"
