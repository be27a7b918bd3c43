#!/usr/bin/env python3
"""Clocks from causality on the sample system: known clock errors, estimated back.

Runs the sample system (samples/run-system.sh) a few times, then for each run
warps one or two nodes' logs by a known offset, drift and optional step
(`hashtrace convert --warp-...`, a testing aid), estimates every clock from
the messages (`hashtrace clock estimate`) and compares with the truth. The
processes share the host's clock, so before warping every offset is 0.

    bench/clock-analysis/warp_trials.py --build-dir build [--runs mesh:2,local-router:2]
        [--duration 10] [--warps 13] [--seed 1] [--out DIR] [--step-trials 5]

Prints one row per trial and per warped instance, then the summary: worst
offset and drift error, the share of trials whose true offset lies inside the
reported bounds (every placed instance, warped or not), and the bound widths.
Exit status 1 when the truth falls outside the bounds in any trial.
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def run_system(config, out, build_dir, duration):
    env = dict(os.environ, SAMPLE_BIN_DIR=os.path.join(build_dir, "samples", "node"), DURATION=str(duration),
               HASHTRACE_FORMAT="binary")
    subprocess.run([os.path.join(ROOT, "samples", "run-system.sh"), config, out], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def node_logs(run_dir):
    """{node name: log path} from the file names the sample nodes write (Node-pid.htlog)."""
    logs = {}
    for name in sorted(os.listdir(run_dir)):
        if name.endswith(".htlog"):
            logs[name.split("-")[0].split("_")[0]] = os.path.join(run_dir, name)
    return logs


def warp_log(hashtrace, src, dst, offset_ms, drift_ppm, step_ms=0.0, step_at_s=None):
    cmd = [hashtrace, "convert", src, dst, "--warp-offset-ms", repr(offset_ms), "--warp-drift-ppm", repr(drift_ppm)]
    if step_ms:
        cmd += ["--warp-step-ms", repr(step_ms), "--warp-step-at-s", repr(step_at_s)]
    err = subprocess.run(cmd, check=True, capture_output=True, text=True).stderr
    return int(re.search(r"t0 = (-?\d+)", err).group(1))


def truth_ns(warp, t):
    """The warp's shift at (unwarped) time t, ns."""
    if warp is None:
        return 0.0
    since = t - warp["t0"]
    shift = warp["offset_ms"] * 1e6 + warp["drift_ppm"] * 1e-6 * since
    if warp.get("step_ms") and since >= warp["step_at_s"] * 1e9:
        shift += warp["step_ms"] * 1e6
    return shift


def estimate(hashtrace, run_dir, reference, json_path):
    proc = subprocess.run([hashtrace, "clock", "estimate", run_dir, "--spec", os.path.join(ROOT, "samples", "spec.toml"),
                           "--reference", reference, "--json", json_path, "--quiet"], capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        raise RuntimeError(proc.stderr)
    with open(json_path) as f:
        return json.load(f)


def trial(hashtrace, run_dir, logs, warps, reference, work):
    """Warps the logs in `warps` ({node: warp}), estimates, returns rows."""
    trial_dir = tempfile.mkdtemp(dir=work)
    for node, path in logs.items():
        dst = os.path.join(trial_dir, os.path.basename(path))
        if node in warps:
            w = warps[node]
            w["t0"] = warp_log(hashtrace, path, dst, w["offset_ms"], w["drift_ppm"], w.get("step_ms", 0.0), w.get("step_at_s"))
        else:
            os.symlink(path, dst)
    result = estimate(hashtrace, trial_dir, reference, os.path.join(trial_dir, "estimate.json"))
    origin = result["origin_ns"]  # the reference is not warped: its clock is true time
    rows = []
    for e in result["clock_estimates"]:
        node = e["node"]
        w = warps.get(node)
        rows.append({
            "node": node, "warped": w is not None, "placed": e["offset_ns"] is not None,
            "true_offset": truth_ns(w, origin), "true_drift": w["drift_ppm"] if w else 0.0,
            "offset": e["offset_ns"], "drift": e["drift_ppm"], "lo": e["offset_lo_ns"], "hi": e["offset_hi_ns"],
            "pieces": e["pieces"], "warp": w,
        })
    shutil.rmtree(trial_dir)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", default="mesh:2,local-router:2", help="CONFIG:COUNT,... (remote-router needs root)")
    ap.add_argument("--duration", type=float, default=10)
    ap.add_argument("--warps", type=int, default=13, help="random warps per run")
    ap.add_argument("--step-trials", type=int, default=0, help="trials with a 1 ms step mid-run, per run")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", help="keep the runs here (default: a temporary folder)")
    ap.add_argument("--reuse", action="store_true", help="reuse the runs already in --out")
    args = ap.parse_args()
    hashtrace = os.path.join(args.build_dir, "app", "hashtrace")
    rng = random.Random(args.seed)
    work = args.out or tempfile.mkdtemp(prefix="clock-trials-")
    os.makedirs(work, exist_ok=True)

    rows = []
    trials = inside_trials = 0
    print(f"{'run':<18} {'node':<8} {'warp offset':>12} {'drift':>9} {'step':>8} {'est. offset':>14} {'error':>9} "
          f"{'drift err':>9} {'bounds width':>12} {'inside':>6}")
    for spec in args.runs.split(","):
        config, count = spec.split(":")
        for k in range(int(count)):
            run_dir = os.path.join(work, f"{config}-{k}")
            if not (args.reuse and os.path.isdir(run_dir)):
                run_system(config, run_dir, args.build_dir, args.duration)
            logs = node_logs(run_dir)
            # Nodes bounded both ways: render only receives, so its clock has one side.
            candidates = [n for n in ("Haptics", "Physics", "Router") if n in logs]
            plans = []
            # First the case: 50 ms and 200 ppm on one node.
            plans.append({candidates[0]: {"offset_ms": 50.0, "drift_ppm": 200.0}})
            for _ in range(args.warps - 1):
                chosen = rng.sample(candidates, rng.choice([1, 2]) if len(candidates) > 2 else 1)
                plans.append({n: {"offset_ms": rng.choice([-1, 1]) * rng.uniform(1, 100),
                                  "drift_ppm": rng.uniform(-300, 300)} for n in chosen})
            for _ in range(args.step_trials):
                n = rng.choice(candidates)
                plans.append({n: {"offset_ms": rng.choice([-1, 1]) * rng.uniform(1, 100), "drift_ppm": rng.uniform(-300, 300),
                                  "step_ms": 1.0, "step_at_s": args.duration / 2}})
            for warps in plans:
                reference = next(n for n in candidates if n not in warps)
                if "Router" in candidates and "Router" not in warps:
                    reference = "Router"
                result = trial(hashtrace, run_dir, logs, warps, reference, work)
                trials += 1
                ok = True
                for r in result:
                    if not r["placed"]:
                        continue
                    inside = r["lo"] <= r["true_offset"] <= r["hi"]
                    ok = ok and inside
                    r["run"] = f"{config}-{k}"
                    rows.append(r)
                    if r["warped"]:
                        w = r["warp"]
                        print(f"{r['run']:<18} {r['node']:<8} {w['offset_ms']:>9.3f} ms {w['drift_ppm']:>9.2f} "
                              f"{(str(w.get('step_ms', 0)) + ' ms') if w.get('step_ms') else '-':>8} "
                              f"{r['offset'] / 1e6:>11.6f} ms {(r['offset'] - r['true_offset']) / 1e3:>6.2f} us "
                              f"{r['drift'] - r['true_drift']:>9.3f} {(r['hi'] - r['lo']) / 1e3:>9.1f} us {'yes' if inside else 'NO':>6}")
                inside_trials += ok

    warped = [r for r in rows if r["warped"]]
    plain = [r for r in warped if not (r["warp"] or {}).get("step_ms")]
    stepped = [r for r in warped if (r["warp"] or {}).get("step_ms")]
    widths = sorted((r["hi"] - r["lo"]) / 1e3 for r in rows)
    print()
    print(f"trials: {trials}; truth inside the bounds of every placed instance: {inside_trials} of {trials} "
          f"({100.0 * inside_trials / max(trials, 1):.1f} %)")
    if plain:
        print(f"warped instances without a step: {len(plain)}; offset error max {max(abs(r['offset'] - r['true_offset']) for r in plain) / 1e3:.2f} us, "
              f"drift error max {max(abs(r['drift'] - r['true_drift']) for r in plain):.3f} ppm")
    if stepped:
        good = sum(1 for r in stepped if len(r["pieces"]) == 2)
        print(f"with a 1 ms step mid-run: {len(stepped)}; two pieces found in {good}; offset error max "
              f"{max(abs(r['offset'] - r['true_offset']) for r in stepped) / 1e3:.2f} us")
    if widths:
        print(f"bound width (placed instances): median {widths[len(widths) // 2]:.1f} us, max {widths[-1]:.1f} us")
    if not args.out:
        shutil.rmtree(work)
    return 0 if inside_trials == trials else 1


if __name__ == "__main__":
    sys.exit(main())
