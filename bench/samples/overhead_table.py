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


def values_of(rounds, get):
    return [v for v in (get(r) for r in rounds) if v is not None]


def mean_of(rounds, get):
    values = values_of(rounds, get)
    return statistics.mean(values) if values else float("nan")


def cell(rounds, get, digits):
    """Mean over the rounds, with the rounds' range: the noise is part of the result."""
    values = values_of(rounds, get)
    if not values:
        return "n/a"
    return f"{statistics.mean(values):.{digits}f} [{min(values):.{digits}f}-{max(values):.{digits}f}]"


def main(argv):
    if len(argv) != 2:
        raise SystemExit(__doc__)
    runs = load(argv[1])
    traced, notrace = runs.get("traced", []), runs.get("notrace", [])
    if not traced or not notrace:
        raise SystemExit("overhead_table.py: need both traced and notrace runs in " + argv[1])
    print(f"rounds: {len(traced)} traced, {len(notrace)} untraced\n")
    print("each cell: mean over the rounds [lowest-highest round]\n")
    print(f"| {'figure':40} | {'traced':>24} | {'untraced':>24} |")
    print(f"|{'-' * 42}|{'-' * 26}|{'-' * 26}|")

    def row(label, get, digits=3):
        print(f"| {label:40} | {cell(traced, get, digits):>24} | {cell(notrace, get, digits):>24} |")

    for node in ("Haptics", "Physics", "Render"):
        row(f"{node} loop rate (Hz)", lambda r, n=node: r.get(n, {}).get("rate_hz"), 1)
        row(f"{node} loop period sd (ms)", lambda r, n=node: r.get(n, {}).get("period_ms", {}).get("sd"))
        row(f"{node} loop period p99 (ms)", lambda r, n=node: r.get(n, {}).get("period_ms", {}).get("p99"))
        row(f"{node} CPU (% of one core)",
            lambda r, n=node: 100 * r[n]["cpu_seconds"] / r[n]["loop_seconds"] if n in r and "cpu_seconds" in r[n] else None, 1)
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
