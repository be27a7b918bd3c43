#!/usr/bin/python3
"""hashtrace live paused with SIGSTOP while the sample system streams to it
(docs/benchmarks.md, "Live"): how long after SIGCONT the view is current
again, what the nodes counted as stream drops, and whether the disk logs are
complete (every sample received or counted).

usage: stopped_collector.py HASHTRACE SAMPLE_BIN_DIR SAMPLES_DIR [--stop-s 10] [--run-s 20]
"""
import argparse
import json
import os
import signal
import subprocess
import tempfile
import time
import urllib.request


def state(http):
    with urllib.request.urlopen(f"http://127.0.0.1:{http}/api/state", timeout=5) as r:
        return json.load(r)


def analyze(hashtrace, spec, folder, out):
    subprocess.run([hashtrace, "analyze", folder, "--spec", spec, "--json", out, "--quiet"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out) as f:
        return json.load(f)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("hashtrace"), p.add_argument("bin_dir"), p.add_argument("samples")
    p.add_argument("--stop-s", type=float, default=10), p.add_argument("--run-s", type=int, default=20)
    a = p.parse_args()
    spec = os.path.join(a.samples, "spec.toml")
    work = tempfile.mkdtemp(prefix="live-stopped-")
    run, saved = os.path.join(work, "run"), os.path.join(work, "saved")
    live = subprocess.Popen([a.hashtrace, "live", "--spec", spec, "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0",
                             "--save", saved], stdout=subprocess.PIPE, text=True)
    streams = live.stdout.readline().split(":")[-1].strip()
    http = live.stdout.readline().rstrip("/\n").split(":")[-1]
    env = dict(os.environ, SAMPLE_BIN_DIR=a.bin_dir, DURATION=str(a.run_s), HASHTRACE_STREAM=f"127.0.0.1:{streams}")
    system = subprocess.Popen([os.path.join(a.samples, "run-system.sh"), "local-router", run], env=env, stdout=subprocess.DEVNULL)
    try:
        time.sleep(3)
        live.send_signal(signal.SIGSTOP)
        time.sleep(a.stop_s)
        live.send_signal(signal.SIGCONT)
        resumed = time.time()
        # Current again: the newest sample the view holds is within 0.5 s of now.
        lag = None
        while time.time() - resumed < 10:
            lag = time.time() - state(http)["time_ns"] * 1e-9
            if lag < 0.5:
                break
            time.sleep(0.05)
        recovered = time.time() - resumed
        assert system.wait(timeout=a.run_s + 60) == 0
        live.send_signal(signal.SIGINT)
        final = json.loads(live.stdout.read().strip().splitlines()[-1])
        live.wait(timeout=20)
        disk = analyze(a.hashtrace, spec, run, os.path.join(work, "disk.json"))
        streamed = analyze(a.hashtrace, spec, saved, os.path.join(work, "saved.json"))
        dropped = sum(n["stream_dropped"] for n in final["nodes"])
        complete = streamed["samples"] + dropped == disk["samples"] and disk["lost_samples"] == 0 and disk["dropped_samples"] == 0
        print(f"collector stopped {a.stop_s:.0f} s of a {a.run_s} s run: view current again {recovered:.2f} s after SIGCONT "
              f"(lag then {lag:.2f} s); disk logs {disk['samples']} samples, streamed {streamed['samples']}, "
              f"stream drops counted {dropped}, counted by the view {sum(n['samples'] for n in final['nodes'])}, shed by the collector "
              f"{final.get('shed_samples', 0)}, late {final['late_samples']}: {'complete' if complete else 'INCOMPLETE'}")
        return 0 if complete and recovered < 1.0 else 1
    finally:
        for process in (system, live):
            if process.poll() is None:
                process.send_signal(signal.SIGCONT)
                process.kill()


if __name__ == "__main__":
    raise SystemExit(main())
