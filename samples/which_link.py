#!/usr/bin/env python3
"""Names the link of the physics -> haptics chain that holds a delay.

    which_link.py BASELINE.json SUSPECT.json

Both files are `hashtrace analyze --json` outputs of the sample system
(samples/spec.toml defines the chain's links as the intervals named "L1".."L5").
Prints the chain link by link for both runs, the M5.2/M5.3 asymmetry, and the
link whose mean latency grew the most - case study 1's way of finding the
thread boundary that did not read all its messages.
"""
import json
import sys


def intervals(path):
    with open(path, encoding="utf-8") as f:
        return {i["name"]: i for i in json.load(f)["intervals"]}


def grown_most(baseline, suspect):
    """The link interval whose mean grew the most, and by how much (ms)."""
    links = [n for n in suspect if n.startswith("L") and n in baseline]
    if not links:
        raise SystemExit("which_link.py: no 'L' link intervals in both analyses (wrong spec?)")
    name = max(links, key=lambda n: suspect[n]["mean_ms"] - baseline[n]["mean_ms"])
    return name, suspect[name]["mean_ms"] - baseline[name]["mean_ms"]


def main(argv):
    if len(argv) != 3:
        raise SystemExit(__doc__)
    baseline, suspect = intervals(argv[1]), intervals(argv[2])
    print(f"{'link':42} {'baseline mean':>14} {'p99':>9} {'suspect mean':>14} {'p99':>9}  (ms)")
    for name in sorted(n for n in suspect if n.startswith("L")):
        b, s = baseline.get(name, {}), suspect[name]
        print(f"{name:42} {b.get('mean_ms', float('nan')):14.3f} {b.get('p99_ms', float('nan')):9.3f} "
              f"{s['mean_ms']:14.3f} {s['p99_ms']:9.3f}")
    for label, run in (("baseline", baseline), ("suspect", suspect)):
        h2p = next((v for k, v in run.items() if k.startswith("M5.2")), None)
        p2h = next((v for k, v in run.items() if k.startswith("M5.3")), None)
        if h2p and p2h:
            print(f"{label}: haptics -> physics {h2p['mean_ms']:.2f} ms, physics -> haptics {p2h['mean_ms']:.2f} ms")
    name, growth = grown_most(baseline, suspect)
    print(f"\nThe delay is in link \"{name}\": its mean latency grew by {growth:.1f} ms.")


if __name__ == "__main__":
    main(sys.argv)
