"""Three languages, one graph: a C# process (Mono) sends message ids over a
local socket to a C++ process, which drops every tenth on purpose and
forwards the rest to a Python process. One `hashtrace analyze` of the three
logs must link every message across all three, leaving unlinked only what
the C++ node dropped. Every process runs under a timeout.

    run_e2e.py --cli build/app/hashtrace --relay ... --sender CsSender.exe --mono mono
               --actor py_actor.py --spec spec.toml --work DIR [--messages N] [--format binary|csv]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

TIMEOUT = 60


def first_line(proc, what):
    line = proc.stdout.readline()
    if not line:
        raise SystemExit(f"FAIL: the {what} printed no port (exit code {proc.poll()})")
    return line.strip()


def main():
    p = argparse.ArgumentParser()
    for a in ("--cli", "--relay", "--sender", "--mono", "--actor", "--spec", "--work"):
        p.add_argument(a, required=True)
    p.add_argument("--messages", type=int, default=2000)
    p.add_argument("--format", default="binary", choices=("binary", "csv"))
    args = p.parse_args()

    shutil.rmtree(args.work, ignore_errors=True)
    logs = os.path.join(args.work, "logs")
    os.makedirs(logs)
    env = dict(os.environ, HASHTRACE_LOG_DIR=logs, HASHTRACE_FORMAT=args.format)

    actor = subprocess.Popen([sys.executable, args.actor], stdout=subprocess.PIPE, text=True, env=env)
    relay = subprocess.Popen([args.relay, first_line(actor, "Python actor")], stdout=subprocess.PIPE, text=True, env=env)
    sender = subprocess.run([args.mono, "--debug", args.sender, first_line(relay, "C++ relay"), str(args.messages)],
                            env=env, timeout=TIMEOUT)
    for proc, name in ((relay, "C++ relay"), (actor, "Python actor")):
        if proc.wait(timeout=TIMEOUT) != 0:
            raise SystemExit(f"FAIL: the {name} exited with {proc.returncode}")
    if sender.returncode != 0:
        raise SystemExit(f"FAIL: the C# sender exited with {sender.returncode}")

    files = sorted(os.listdir(logs))
    nodes = sorted(f.split("-")[0] for f in files)
    if nodes != ["CppRelay", "CsSender", "PyActor"]:
        raise SystemExit(f"FAIL: expected one log per node, found {files}")

    # Each log reads in the CLI, whichever language wrote it.
    shown = subprocess.run([args.cli, "log", logs], capture_output=True, text=True, timeout=TIMEOUT)
    if shown.returncode != 0:
        raise SystemExit(f"FAIL: hashtrace log: {shown.stderr}")
    print(shown.stdout)

    report = os.path.join(args.work, "analysis.json")
    analyzed = subprocess.run([args.cli, "analyze", logs, "--spec", args.spec, "--json", report, "--quiet"],
                              capture_output=True, text=True, timeout=TIMEOUT)
    print(analyzed.stdout)
    if analyzed.returncode != 0:
        raise SystemExit(f"FAIL: hashtrace analyze: {analyzed.stderr}")
    with open(report) as f:
        result = json.load(f)

    n = args.messages
    dropped = sum(1 for i in range(n) if i % 10 == 9)
    forwarded = n - dropped
    expected = {
        "samples": n + n + forwarded + forwarded,    # sent, received, forwarded, acted
        "edges": n + forwarded + forwarded,          # C#->C++, C++ received->forwarded, C++->Python
        "message_edges": n + forwarded,              # the two that cross a process
        "unlinked_inputs": 0,                        # every message found its sender
        "unconsumed_outputs": dropped,               # only the messages dropped on purpose
    }
    failures = [f"{key}: expected {want}, analyze says {result.get(key)}" for key, want in expected.items()
                if result.get(key) != want]
    end_to_end = [i for i in result.get("intervals", []) if i.get("name") == "C# send to Python act"]
    if not end_to_end or end_to_end[0].get("count") != forwarded:
        failures.append(f"C# send to Python act: expected {forwarded} latencies, got {end_to_end}")
    if failures:
        raise SystemExit("FAIL: " + "; ".join(failures))
    print(f"PASS: {n} messages from C# through C++ to Python ({args.format} logs) linked in one analysis; "
          f"the {dropped} dropped on purpose are the only leftovers")


if __name__ == "__main__":
    main()
