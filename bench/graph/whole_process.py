#!/usr/bin/python3
"""`hashtrace analyze` as a user runs it, timed as a whole process against the
issue's goals (docs/benchmarks.md, "Graph builder and metrics").

usage: whole_process.py HASHTRACE [--against OTHER] [--runs N] [--cases binary,csv,threads1] [--pause S]

Runs each case N times on the 4M-sample datasets (made by generate_dataset,
beside HASHTRACE's build, into $TMPDIR/hashtrace-bench-graph when missing) and
prints every run (wall, CPU = user + sys of all threads, peak RSS) and a
summary per case: median and range, samples a second, bytes a sample at peak,
and how many runs met the wall-time goal. With --against, the OTHER
executable (say, a build of an earlier commit) runs alternately with
HASHTRACE, run for run, so that both see the same host. With --pause, each
run waits S seconds first: on a virtual machine whose host takes freed guest
memory back (virtio-balloon free page reporting, ~2 s after it is freed), a
run then starts on memory the host must fault in again, as a lone run does;
back to back, a run mostly reuses the pages the previous one freed.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

SAMPLES = 4_000_000  # as asked of generate_dataset; the run holds 4,000,011
CASES = {  # name: (dataset format, extra options, wall-time goal in s)
    "binary": ("binary", [], 0.40),    # >= 10 M samples/s
    "csv": ("csv", [], 2.0),           # >= 2 M samples/s
    "threads1": ("binary", ["--threads", "1"], None),
}
PEAK_GOAL_BYTES_PER_SAMPLE = 64


def dataset(hashtrace, fmt):
    d = os.path.join(tempfile.gettempdir(), "hashtrace-bench-graph", f"{fmt}-{SAMPLES}")
    if not os.path.isdir(d):
        build = os.path.dirname(os.path.dirname(os.path.abspath(hashtrace)))
        generator = os.path.join(build, "bench", "graph", "generate_dataset")
        subprocess.run([generator, d, str(SAMPLES), fmt], check=True)
    return d


def timed(hashtrace, d, extra):
    """Runs one analyze: (wall s, cpu s, peak bytes, samples analysed)."""
    cmd = [hashtrace, "analyze", d, "--spec", os.path.join(d, "spec.toml"), "--quiet"] + extra
    with tempfile.TemporaryFile() as out:
        start = time.monotonic()
        child = subprocess.Popen(cmd, stdout=out)
        # wait4 rather than Popen.wait: the rusage of this child alone (the
        # children's total would hold the largest peak of any run so far).
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.monotonic() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            sys.exit(f"{' '.join(cmd)} failed with exit code {child.returncode}")
        out.seek(0)
        samples = int(out.readline().split()[0])  # "N samples from F files ..."
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, samples


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("hashtrace")
    ap.add_argument("--against")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--cases", default="binary,csv,threads1")
    ap.add_argument("--pause", type=float, default=0, help="seconds to wait before each run")
    args = ap.parse_args()
    programs = [("this", args.hashtrace)] + ([("against", args.against)] if args.against else [])
    for case in args.cases.split(","):
        fmt, extra, goal = CASES[case]
        d = dataset(args.hashtrace, fmt)
        runs = {name: [] for name, _ in programs}
        for i in range(args.runs):
            for name, exe in programs if i % 2 == 0 else reversed(programs):
                time.sleep(args.pause)
                wall, cpu, peak, samples = timed(exe, d, extra)
                runs[name].append((wall, cpu, peak, samples))
                print(f"{case:8} {name:7} run {i + 1:2}: wall {wall:.3f} s  cpu {cpu:.3f} s  peak {peak / 1e6:.1f} MB", flush=True)
        for name, _ in programs:
            walls = [r[0] for r in runs[name]]
            cpus = [r[1] for r in runs[name]]
            peaks = [r[2] for r in runs[name]]
            samples = runs[name][0][3]
            med = statistics.median(walls)
            line = (f"{case:8} {name:7} wall median {med:.3f} s ({min(walls):.3f}-{max(walls):.3f}), "
                    f"{samples / med / 1e6:.1f} M samples/s; cpu median {statistics.median(cpus):.3f} s "
                    f"({min(cpus):.3f}-{max(cpus):.3f}); peak at most {max(peaks) / 1e6:.1f} MB "
                    f"({max(peaks) / samples:.1f} B/sample, goal {PEAK_GOAL_BYTES_PER_SAMPLE})")
            if goal is not None:
                line += f"; {sum(w < goal for w in walls)} of {len(walls)} runs under {goal} s"
            print(line)


if __name__ == "__main__":
    main()
