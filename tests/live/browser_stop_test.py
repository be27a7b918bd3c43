#!/usr/bin/python3
"""End to end in a real browser: `hashtrace live` stopped with SIGSTOP while
SDK nodes stream to it, then resumed (issue 31: "the view recovers within
1 s of SIGCONT"). Three nodes of the SDK (bench/live/stream_node.cpp): a
link A -> B at a slow rate, whose stream the kernel's socket buffers and the
node's backlog hold through the stop, and a node E at a rate they cannot
hold, which drops from its stream and counts. The page's DOM is recorded at
every update it draws, and must say:
- nothing new while the collector is stopped;
- within 1 s of SIGCONT, an update whose newest sample was recorded after
  the SIGCONT, and the newest sample time advancing from update to update;
- within 2 s, the samples A and B recorded during the stop counted;
- E's stream drops (and none for A and B);
and after the run, every sample each node wrote counted by the collector or
as a stream drop, none late, the drops as many as each node counted.

usage: browser_stop_test.py HASHTRACE STREAM_NODE
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from browser_page import READ_ROW, chromium, free_port, wait_for

HASHTRACE, STREAM_NODE = sys.argv[1], sys.argv[2]
SECONDS = 11            # each node's run
STOP_AT, STOP_S = 3, 4  # the collector stopped this long after the nodes start, for this long
RECOVERY_S = 1.0        # the goal: the view current again within a second of SIGCONT
COUNTED_S = 2.0         # and the samples recorded during the stop counted, once linked
# Samples a second. A node's stream holds about 8 MB (its 4 MiB backlog and the
# kernel's buffers), 400 000 samples: E records 1 000 000 in the stop.
SLOW, FAST = 2000, 250_000
SPEC = '[[pair]]\nfrom = "A/Send"\nto = "B/Receive"\n'

# Each update the page draws (it sets the status line's data-time-ns last):
# when, its newest sample's time, and each node's row.
RECORD_DRAWS = """window.stopTestDraws = [];
new MutationObserver(() => {
  const nodes = {};
  for (const row of document.querySelectorAll('#nodes tbody tr'))
    nodes[row.cells[0].textContent] = {samples: Number(row.querySelector('.samples').textContent),
                               stream_dropped: Number(row.querySelector('.stream-dropped').textContent)};
  window.stopTestDraws.push({drawn_ms: Date.now(), time_ns: Number(document.getElementById('status').dataset.timeNs), nodes});
}).observe(document.getElementById('status'), {attributes: true, attributeFilter: ['data-time-ns']});"""


def start_nodes(work, streams):
    env = dict(os.environ, HASHTRACE_STREAM=f"127.0.0.1:{streams}", HASHTRACE_LOG_DIR=work)
    start = time.time_ns() + 300_000_000
    counters = {name: os.path.join(work, f"{name}.count") for name in ("AB", "E")}
    for path in counters.values():
        with open(path, "wb") as f:
            f.write(b"\0" * 64)
    run = lambda role, node, rate, counter, pair: subprocess.Popen(  # noqa: E731
        [STREAM_NODE, role, node, str(rate), str(SECONDS), str(start), counters[counter], str(pair)], env=env,
        stdout=subprocess.PIPE, text=True)
    nodes = {"A": run("send", "A", SLOW, "AB", 0), "B": run("receive", "B", SLOW, "AB", 0), "E": run("send", "E", FAST, "E", 1)}
    return nodes, start / 1e9


def seconds_after(draws, resumed, test):
    """How long after SIGCONT the page first drew an update passing test, and that update."""
    for d in draws:
        if d["drawn_ms"] / 1e3 >= resumed and test(d):
            return d["drawn_ms"] / 1e3 - resumed, d
    return None, None


def check_stop_and_recovery(draws, stopped, resumed):
    """Nothing new drawn while stopped; within RECOVERY_S of SIGCONT, an update
    whose newest sample was recorded after the SIGCONT, and the newest sample
    time advancing from update to update after it; within COUNTED_S, the
    stop's samples counted (the settled part: linked a margin later)."""
    before = [d for d in draws if d["drawn_ms"] / 1e3 < stopped]
    assert before, f"no update drawn before the stop: {draws[:3]}"
    during = [d for d in draws if stopped + 0.5 < d["drawn_ms"] / 1e3 < resumed]
    assert not during, f"updates drawn while the collector was stopped ({stopped:.3f} to {resumed:.3f}): {during[:3]}"
    recovered, first = seconds_after(draws, resumed, lambda d: d["time_ns"] / 1e9 >= resumed)
    assert first, f"no update after SIGCONT with a sample recorded after it; the last before the stop {before[-1]}"
    print(f"page: current again {recovered:.2f} s after SIGCONT, newest sample {first['time_ns'] / 1e9 - resumed:+.3f} s from it")
    assert recovered <= RECOVERY_S, f"the view recovered {recovered:.2f} s after SIGCONT, over {RECOVERY_S} s"
    after = [d["time_ns"] for d in draws if first["drawn_ms"] <= d["drawn_ms"] <= first["drawn_ms"] + 1000]
    assert len(after) >= 3 and all(b > a for a, b in zip(after, after[1:])), f"newest sample times after recovering: {after}"
    # The stop's backlog linked: A and B counted past what they recorded while the collector was stopped (their
    # streams held it all), E further than before (its stream kept what fit).
    last = before[-1]["nodes"]
    wanted = {n: last[n]["samples"] + (0.9 * SLOW * STOP_S if n in "AB" else 1) for n in "ABE"}
    counted, d = seconds_after(draws, resumed, lambda d: all(d["nodes"].get(n, {}).get("samples", 0) >= wanted[n] for n in "ABE"))
    assert d, f"no update after SIGCONT counts the stop's samples: wanted {wanted}, the last update {draws[-1]}"
    print(f"page: the stop's samples counted {counted:.2f} s after SIGCONT: {json.dumps(d['nodes'])}")
    assert counted <= COUNTED_S, f"the stop's samples counted {counted:.2f} s after SIGCONT, over {COUNTED_S} s"


def node_rows(driver):
    """Each node's row by its name (an SDK node's instance is its own random id)."""
    return {n: driver.execute_script(READ_ROW, f'#nodes tr[data-node^="{n}/"]') for n in "ABE"}


def drops_shown(driver):
    rows = node_rows(driver)
    ok = all(rows.values()) and int(rows["E"]["stream-dropped"]) > 0 and all(int(rows[n]["stream-dropped"]) == 0 for n in "AB")
    return ok, rows


def check_final(final, counted):
    """Every sample each node wrote is counted by the collector or as a stream drop; none late."""
    assert final["late_samples"] == 0, f"late samples: {final['late_samples']}"
    seen = {n["node"]: n for n in final["nodes"]}
    for name, own in counted.items():
        n = seen[name]
        print(f"{name}: recorded {own['recorded']}, written {own['written']}, collector counted {n['samples']}, stream drops "
              f"{n['stream_dropped']} (the node counted {own['stream_dropped']}), shed {n['shed']}, dropped in the node {n['dropped']}")
        assert n["stream_dropped"] == own["stream_dropped"] and n["dropped"] == own["dropped"], (name, n, own)
        # Written: what the node's own queue did not drop (a busy machine may make it); the stream copies those.
        assert n["samples"] + n["stream_dropped"] + n["shed"] == own["written"], (name, n, own)
    assert seen["E"]["stream_dropped"] > 0 and seen["A"]["stream_dropped"] == seen["B"]["stream_dropped"] == 0, seen


def main():
    work = tempfile.mkdtemp(prefix="live-browser-stop-")
    spec = os.path.join(work, "live.toml")
    with open(spec, "w") as f:
        f.write(SPEC)
    streams, http = free_port(), free_port()
    live = subprocess.Popen([HASHTRACE, "live", "--spec", spec, "--listen", f"127.0.0.1:{streams}", "--http", f"127.0.0.1:{http}"],
                            stdout=subprocess.PIPE, text=True)
    nodes, driver = {}, None
    try:
        assert live.stdout.readline().startswith("streams:")
        assert live.stdout.readline().startswith("page:")
        nodes, started = start_nodes(work, streams)
        driver = chromium()
        driver.get(f"http://127.0.0.1:{http}/")
        driver.execute_script(RECORD_DRAWS)
        # And an update recorded: the page may draw before the recorder is in,
        # and on a loaded machine this wait may end just before the stop.
        wait_for("the three nodes connected and counted, an update recorded", lambda: (
            (lambda rows: (all(r and r["state"] == "connected" and int(r["samples"]) > 0 for r in rows.values())
                           and driver.execute_script("return window.stopTestDraws.length;") > 0, rows))(
                node_rows(driver))), STOP_AT + 15)
        time.sleep(max(0.0, started + STOP_AT - time.time()))

        live.send_signal(signal.SIGSTOP)
        stopped = time.time()
        time.sleep(STOP_S)
        # Read before the signal: once sent, the collector and the page may run before this script does.
        resumed = time.time()
        live.send_signal(signal.SIGCONT)
        time.sleep(COUNTED_S + 1)
        check_stop_and_recovery(driver.execute_script("return window.stopTestDraws;"), stopped, resumed)
        rows = wait_for("E's stream drops shown, none for A and B", lambda: drops_shown(driver), 5)
        print("page, nodes after the stop:", json.dumps(rows))

        counted = {}
        for name, process in nodes.items():
            out, _ = process.communicate(timeout=SECONDS + 20)
            assert process.returncode == 0, (name, process.returncode)
            counted[name] = json.loads(out.strip().splitlines()[-1])
        live.send_signal(signal.SIGINT)
        final = json.loads(live.stdout.read().strip().splitlines()[-1])
        assert live.wait(timeout=10) == 0
        check_final(final, counted)
        print("ok")
    finally:
        if driver:
            driver.quit()
        for process in [*nodes.values(), live]:
            if process.poll() is None:
                process.send_signal(signal.SIGCONT)
                process.kill()
        shutil.rmtree(work, ignore_errors=True)  # the nodes' disk logs: E's are about 55 MB


if __name__ == "__main__":
    main()
