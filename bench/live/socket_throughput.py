#!/usr/bin/python3
"""The collector's throughput through real sockets (docs/benchmarks.md,
"Live"): 8 producer/consumer pairs of real SDK nodes (16 processes,
live_stream_node) stream over TCP on loopback to a real `hashtrace live`; the
rate is raised step by step until the collector falls behind. Each step
starts a fresh collector and reports, over the steady part of the run:

  offered     samples/s the nodes recorded (16 x the rate per node)
  counted     samples/s the collector settled and counted (/api/state: the
              nodes' samples since the start, over time)
  cpu         the collector's CPU (cores) over the step, all threads, and
              its linking thread alone (the ticker: load, link, summarise)
  capacity    samples per CPU-second of the whole collector: what it links
              on one core of its own (the nodes share the machine's cores)
  lag         wall clock minus the settled time, at the step's end (the
              margin is 0.2 s of it)
  losses      stream drops the nodes counted, samples the collector shed,
              late samples; links counted against the links recorded

  memory      the collector's peak resident memory (VmHWM)

A step keeps up when every recorded sample was counted (no stream drop, no
shed, no late sample), every link was counted, and the lag stayed bounded
(under 2 s: the margin, an update's period, the linking and the nodes'
flushes, on a machine the nodes share).

With --page, the page is open in headless Chromium (Debian's chromium and
chromedriver) through each step, and the step's end reads what it says of
the collector's shedding (the words beside the status line, and the nodes'
"shed by the collector" column), to compare with /api/state.

usage: socket_throughput.py HASHTRACE STREAM_NODE [--rates 62500,125000,...]
       [--seconds 10] [--pairs 8] [--no-stop] [--page]
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request

TICK = os.sysconf("SC_CLK_TCK")


def state(http):
    with urllib.request.urlopen(f"http://127.0.0.1:{http}/api/state", timeout=10) as r:
        return json.load(r)


def cpu_seconds(pid, tid=None):
    """utime + stime of a process (or one of its threads), in seconds."""
    path = f"/proc/{pid}/task/{tid}/stat" if tid else f"/proc/{pid}/stat"
    with open(path) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def counted(s):
    return sum(n["samples"] for n in s["nodes"])


def spec_text(pairs):
    return "".join(f'[[pair]]\nfrom = "P{p}/Send"\nto = "C{p}/Receive"\n' for p in range(pairs))


def start_collector(hashtrace, spec, extra):
    live = subprocess.Popen([hashtrace, "live", "--spec", spec, "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0"] + extra,
                            stdout=subprocess.PIPE, text=True)
    streams = live.stdout.readline().split(":")[-1].strip()
    http = live.stdout.readline().rstrip("/\n").split(":")[-1]
    return live, streams, http


def start_nodes(node, work, pairs, rate, seconds, streams):
    start = time.time_ns() + 1_000_000_000  # every node's first sample a second from now
    env = dict(os.environ, HASHTRACE_STREAM=f"127.0.0.1:{streams}", HASHTRACE_LOG_DIR=os.path.join(work, "logs"),
               HASHTRACE_QUEUE_CAPACITY="65536", HASHTRACE_FLUSH_MS="20")
    nodes = []
    for p in range(pairs):
        counter = os.path.join(work, f"pair{p}.count")
        for role, name in (("send", f"P{p}"), ("receive", f"C{p}")):
            nodes.append(subprocess.Popen([node, role, name, str(rate), str(seconds), str(start), counter, str(p)],
                                          env=env, stdout=subprocess.PIPE, text=True))
    return nodes, start


def watch(live, http, nodes):
    """Samples of (wall, counted, collector CPU, ticker CPU) every half second while the nodes run."""
    seen = []
    while any(n.poll() is None for n in nodes):
        time.sleep(0.5)
        try:
            s = state(http)
            seen.append((time.time(), counted(s), cpu_seconds(live.pid), cpu_seconds(live.pid, live.pid),
                         time.time() - s["settled_ns"] * 1e-9 if s["settled_ns"] else None))
        except OSError:
            pass
    return seen


def peak_memory_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) / 1024


def children_cpu():
    """CPU of the children that exited and were waited for (the nodes, read per step by difference)."""
    t = os.times()
    return t.children_user + t.children_system


def open_page(http):
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.get(f"http://127.0.0.1:{http}/")
    return driver


READ_SHEDDING = """const shed = [...document.querySelectorAll('#nodes td.shed')].reduce((n, td) => n + Number(td.textContent), 0);
return {words: document.getElementById('shedding').textContent, nodes_shed: shed};"""


def run_step(a, rate, spec):
    work = tempfile.mkdtemp(prefix="live-sockets-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    live, streams, http = start_collector(a.hashtrace, spec, [])
    try:
        nodes_cpu_before = children_cpu()
        driver = open_page(http) if a.page else None
        nodes, start_ns = start_nodes(a.stream_node, work, a.pairs, rate, a.seconds, streams)
        seen = watch(live, http, nodes)
        if driver:
            page = driver.execute_script(READ_SHEDDING)
            page["api_shed"] = state(http)["shed_samples"]
            driver.quit()
        reports = [json.loads(n.stdout.read().strip().splitlines()[-1]) for n in nodes]
        assert all(n.wait() == 0 for n in nodes)
        nodes_cpu = children_cpu() - nodes_cpu_before
        end_lag = seen[-1][4] if seen else None
        peak_mib = peak_memory_mib(live.pid)
        live.send_signal(signal.SIGINT)
        final = json.loads(live.stdout.read().strip().splitlines()[-1])
        live.wait(timeout=60)
    finally:
        if live.poll() is None:
            live.kill()
        shutil.rmtree(work, ignore_errors=True)
    # The steady part: from 2 s after the first sample to the last look while the nodes ran.
    steady = [x for x in seen if x[0] >= start_ns * 1e-9 + 2]
    first, last = (steady[0], steady[-1]) if len(steady) >= 2 else (seen[0], seen[-1])
    span = last[0] - first[0]
    rate_counted = (last[1] - first[1]) / span
    cores, ticker = (last[2] - first[2]) / span, (last[3] - first[3]) / span
    recorded = sum(r["recorded"] for r in reports)
    sent_links = sum(r["recorded"] for r in reports if r["node"].startswith("C"))
    links = sum(l["count"] for l in final["links"])
    stream_dropped = sum(n["stream_dropped"] for n in final["nodes"])
    shed = final.get("shed_samples", 0)
    lags = [x[4] for x in steady if x[4] is not None]
    keeps_up = (stream_dropped == 0 and shed == 0 and final["late_samples"] == 0 and links == sent_links
                and counted(final) == recorded and max(lags, default=99) < 2.0)
    return {"offered": len(reports) * rate, "counted": rate_counted, "cores": cores, "ticker_cores": ticker,
            "capacity": rate_counted / cores if cores > 0 else 0, "lag_max": max(lags, default=None), "lag_end": end_lag,
            "recorded": recorded, "counted_total": counted(final), "stream_dropped": stream_dropped, "shed": shed,
            "late": final["late_samples"], "links": links, "links_expected": sent_links,
            "node_queue_drops": sum(r["dropped"] for r in reports), "nodes_cores": nodes_cpu / (a.seconds + 1),
            "peak_mib": peak_mib, "keeps_up": keeps_up, "page": page if a.page else None}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("hashtrace"), p.add_argument("stream_node")
    p.add_argument("--rates", default="31250,62500,93750,125000,156250,187500", help="samples/s per node, one step each")
    p.add_argument("--seconds", type=float, default=10), p.add_argument("--pairs", type=int, default=8)
    p.add_argument("--no-stop", action="store_true", help="run every step, even after the collector fell behind")
    p.add_argument("--page", action="store_true", help="the page open in headless Chromium; what it says of the shedding")
    a = p.parse_args()
    work = tempfile.mkdtemp(prefix="live-sockets-spec-")
    spec = os.path.join(work, "spec.toml")
    with open(spec, "w") as f:
        f.write(spec_text(a.pairs))
    print(f"{2 * a.pairs} nodes, {a.seconds:.0f} s a step, {os.cpu_count()} cores shared by the nodes and the collector")
    for rate in (int(r) for r in a.rates.split(",")):
        r = run_step(a, rate, spec)
        print(f"offered {r['offered'] / 1e6:.2f} M/s: counted {r['counted'] / 1e6:.2f} M/s; collector {r['cores']:.2f} cores "
              f"(linking thread {r['ticker_cores']:.2f}), {r['capacity'] / 1e6:.2f} M samples per CPU-second; nodes {r['nodes_cores']:.2f} cores; "
              f"lag max {r['lag_max']:.2f} s; peak memory {r['peak_mib']:.0f} MiB; recorded {r['recorded']}, counted {r['counted_total']}, stream drops {r['stream_dropped']}, "
              f"node queue drops {r['node_queue_drops']}, shed {r['shed']}, late {r['late']}; links {r['links']} of {r['links_expected']}: "
              f"{'keeps up' if r['keeps_up'] else 'FALLS BEHIND'}", flush=True)
        if r["page"]:
            print(f"  page at the end: \"{r['page']['words']}\", nodes' shed column {r['page']['nodes_shed']} "
                  f"(/api/state then: {r['page']['api_shed']})", flush=True)
        if not r["keeps_up"] and not a.no_stop:
            break
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
