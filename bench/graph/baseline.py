#!/usr/bin/python3
"""The benchmark baseline: the linking of docs/spec.md section 4 and one interval
(M4.3 Chai force to send), done the way a user without hashtrace would - a
pandas merge, or an SQLite self-join - on a directory of CSV logs.

usage: /usr/bin/python3 baseline.py pandas|sqlite DIR SPEC.toml   (Debian's python3-pandas)
Prints: engine, samples, edges, interval count and mean (ms), seconds.
"""
import fnmatch
import glob
import os
import subprocess
import sys
import tempfile
import time
import tomllib


def allowed_pairs(spec_path, tracepoints):
    """Expands the spec's [[pair]] globs over the tracepoints seen: (from, to, scope)."""
    with open(spec_path, "rb") as f:
        spec = tomllib.load(f)
    pairs = {}
    for rule in spec.get("pair", []):
        for a in tracepoints:
            if not fnmatch.fnmatchcase(a, rule["from"]):
                continue
            for b in tracepoints:
                if fnmatch.fnmatchcase(b, rule["to"]):
                    scope = rule.get("scope", "any")
                    # Several rules: the most permissive wins, as in hashtrace.
                    if pairs.get((a, b)) != "any":
                        pairs[(a, b)] = scope
    return pairs


def run_pandas(files, spec_path):
    import pandas as pd

    df = pd.concat([pd.read_csv(f, dtype=str, keep_default_na=False) for f in files], ignore_index=True)
    df["t"] = pd.to_numeric(df["sample_time"])
    df["tp"] = df["node_name"] + "/" + df["tracepoint_name"]
    df["inst"] = df["node_name"] + "#" + df["instance"]
    df["id"] = df.index
    pairs = allowed_pairs(spec_path, sorted(df["tp"].unique()))
    allowed = pd.DataFrame([(a, b, s) for (a, b), s in pairs.items()], columns=["tp_a", "tp_b", "scope"])
    prod = df[df["output_hash"] != ""][["output_hash", "t", "tp", "inst", "id"]]
    cons = df[df["input_hash"] != ""][["input_hash", "t", "tp", "inst", "id"]]
    m = cons.merge(prod, left_on="input_hash", right_on="output_hash", suffixes=("_b", "_a"))
    m = m.merge(allowed, on=["tp_a", "tp_b"])
    m = m[(m["t_a"] <= m["t_b"]) & (m["id_a"] != m["id_b"]) & ((m["scope"] == "any") | (m["inst_a"] == m["inst_b"]))]
    # Rule 5: the latest candidate per (consumer, source).
    m = m.loc[m.groupby(["id_b", "inst_a", "tp_a"])["t_a"].idxmax()]
    hop = m[(m["tp_a"] == "Chai/ForceComputed") & (m["tp_b"] == "Chai/MessageSent")]
    latency = (hop["t_b"] - hop["t_a"]) * 1000
    return len(df), len(m), len(latency), float(latency.mean())


def run_sqlite(files, spec_path):
    with tempfile.TemporaryDirectory() as tmp:
        script = [".mode csv", f".import {files[0]} raw"]
        script += [f".import --skip 1 {f} raw" for f in files[1:]]
        script += [
            ".mode list",
            "CREATE TABLE s AS SELECT rowid AS id, node_name || '/' || tracepoint_name AS tp, node_name || '#' || instance AS inst,"
            " CAST(sample_time AS REAL) AS t, input_hash AS ih, output_hash AS oh FROM raw;",
            "CREATE INDEX s_producer ON s(oh, tp, inst, t);",
            "CREATE TABLE allowed(a TEXT, b TEXT, scope TEXT);",
        ]
        # The tracepoints are needed to expand the globs: one cheap pass first.
        tps = set()
        for f in files:
            with open(f) as fh:
                next(fh)
                for line in fh:
                    fields = line.split(",", 3)
                    tps.add(fields[0] + "/" + fields[2])
        for (a, b), scope in allowed_pairs(spec_path, sorted(tps)).items():
            script.append(f"INSERT INTO allowed VALUES('{a}', '{b}', '{scope}');")
        script += [
            "CREATE TABLE edges AS SELECT a.id AS aid, b.id AS bid, a.tp AS atp, b.tp AS btp, a.t AS at, b.t AS bt"
            " FROM s b JOIN s a ON a.oh = b.ih AND a.t <= b.t AND a.id <> b.id"
            " JOIN allowed al ON al.a = a.tp AND al.b = b.tp AND (al.scope = 'any' OR a.inst = b.inst)"
            " WHERE b.ih <> '' AND a.t = (SELECT MAX(a2.t) FROM s a2 WHERE a2.oh = b.ih AND a2.tp = a.tp AND a2.inst = a.inst"
            " AND a2.t <= b.t AND a2.id <> b.id);",
            "SELECT COUNT(*) FROM s;",
            "SELECT COUNT(*) FROM edges;",
            "SELECT COUNT(*), AVG((bt - at) * 1000) FROM edges WHERE atp = 'Chai/ForceComputed' AND btp = 'Chai/MessageSent';",
        ]
        out = subprocess.run(["sqlite3", os.path.join(tmp, "run.db")], input="\n".join(script), capture_output=True, text=True, check=True)
        lines = out.stdout.split()
        count, mean = lines[2].split("|")
        return int(lines[0]), int(lines[1]), int(count), float(mean)


def main():
    engine, directory, spec_path = sys.argv[1:4]
    files = sorted(glob.glob(os.path.join(directory, "*.csv")))
    start = time.perf_counter()
    samples, edges, count, mean = (run_pandas if engine == "pandas" else run_sqlite)(files, spec_path)
    seconds = time.perf_counter() - start
    print(f"{engine} samples={samples} edges={edges} interval_count={count} interval_mean_ms={mean:.6f} seconds={seconds:.3f}")


if __name__ == "__main__":
    main()
