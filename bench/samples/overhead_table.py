#!/usr/bin/env python3
"""Summarises bench/samples/overhead.sh's runs: traced vs untraced, side by side.

    overhead_table.py DIR   (DIR/<variant>-<round>/stats/<node>.json)

Per node: achieved loop rate, loop period sd and p99; per path (origin ->
node): message latency mean and p99. Each figure is the mean over the rounds.
Also the trace volume of the traced runs (samples per second, log bytes).
"""
import glob
import json
import os
import statistics
import sys


def load(root):
    runs = {}  # variant -> list of {node: stats}
    for run_dir in sorted(glob.glob(os.path.join(root, "*-*"))):
        variant = os.path.basename(run_dir).rsplit("-", 1)[0]
        nodes = {}
        for f in glob.glob(os.path.join(run_dir, "stats", "*.json")):
            with open(f, encoding="utf-8") as fh:
                s = json.load(fh)
            nodes[s["node"]] = s
        logs = glob.glob(os.path.join(run_dir, "*.htlog")) + glob.glob(os.path.join(run_dir, "*.csv"))
        nodes["_log_bytes"] = sum(os.path.getsize(p) for p in logs)
        runs.setdefault(variant, []).append(nodes)
    return runs


def mean_of(rounds, get):
    values = [v for v in (get(r) for r in rounds) if v is not None]
    return statistics.mean(values) if values else float("nan")


def main(argv):
    if len(argv) != 2:
        raise SystemExit(__doc__)
    runs = load(argv[1])
    traced, notrace = runs.get("traced", []), runs.get("notrace", [])
    if not traced or not notrace:
        raise SystemExit("overhead_table.py: need both traced and notrace runs in " + argv[1])
    print(f"rounds: {len(traced)} traced, {len(notrace)} untraced\n")
    print(f"| {'figure':44} | {'traced':>10} | {'untraced':>10} |")
    print(f"|{'-' * 46}|{'-' * 12}|{'-' * 12}|")

    def row(label, get, fmt="{:10.3f}"):
        print(f"| {label:44} | {fmt.format(mean_of(traced, get))} | {fmt.format(mean_of(notrace, get))} |")

    for node in ("Haptics", "Physics", "Render"):
        row(f"{node} loop rate (Hz)", lambda r, n=node: r.get(n, {}).get("rate_hz"), "{:10.1f}")
        row(f"{node} loop period sd (ms)", lambda r, n=node: r.get(n, {}).get("period_ms", {}).get("sd"))
        row(f"{node} loop period p99 (ms)", lambda r, n=node: r.get(n, {}).get("period_ms", {}).get("p99"))
    for origin, node in (("Haptics", "Physics"), ("Haptics", "Render"), ("Physics", "Haptics"), ("Physics", "Render")):
        for stat in ("mean", "p99"):
            row(f"latency {origin} -> {node} {stat} (ms)",
                lambda r, o=origin, n=node, s=stat: r.get(n, {}).get("latency_ms", {}).get(o, {}).get(s))
    seconds = mean_of(traced, lambda r: r.get("Haptics", {}).get("loop_seconds"))
    log_bytes = mean_of(traced, lambda r: r["_log_bytes"])
    print(f"\ntraced runs wrote {log_bytes / 1e6:.1f} MB of binary logs per {seconds:.0f} s run "
          f"({log_bytes / seconds / 1e6:.2f} MB/s)")


if __name__ == "__main__":
    main(sys.argv)
