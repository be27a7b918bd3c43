#!/usr/bin/env python3
"""The project's functions by length in lines, longest first.

    scripts/function_lengths.py [--top N] [--over L] [FOLDER...]

Lists each function, method and constructor defined in the C++ sources
tracked by git under the FOLDERs (default: every part outside tests/, fuzz/
and bench/), with its length from the line of its name to its closing
brace. A lambda counts in the function that holds it. Uses universal-ctags
(apt-get install universal-ctags). Exit status 1 when --over L is given and
some function is longer than L lines.
"""
import argparse
import json
import subprocess
import sys

DEFAULT_FOLDERS = ["app", "cli", "fileio", "graph", "metrics", "critical-path", "report", "live", "collectors", "sensors",
                   "clocksync", "datagen", "text", "samples", "sdk", "clock-analysis", "infer", "shard", "bindings"]
SUFFIXES = (".cpp", ".hpp", ".h", ".cc")


def functions(folders):
    listed = subprocess.run(["git", "ls-files", "--"] + [f + "/" for f in folders], capture_output=True, text=True, check=True).stdout
    files = [f for f in listed.split() if f.endswith(SUFFIXES)]
    if not files:
        return []
    command = ["ctags", "--output-format=json", "--fields=+ne", "--kinds-C++=f", "--language-force=C++", "-f", "-"] + files
    try:
        tags = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    except FileNotFoundError:
        sys.exit("function_lengths.py: ctags not found (apt-get install universal-ctags)")
    except subprocess.CalledProcessError as e:
        sys.exit(f"function_lengths.py: ctags failed (universal-ctags is needed, for its JSON output): {e.stderr.strip()}")
    rows = []
    for line in tags.splitlines():
        tag = json.loads(line)
        if tag.get("_type") != "tag" or "end" not in tag or tag["name"].startswith("__anon"):
            continue  # lambdas (__anon...) are counted in their function
        scope = tag.get("scope", "").split("::")[-1]
        name = f"{scope}::{tag['name']}" if tag.get("scopeKind") in ("class", "struct") else tag["name"]
        rows.append((tag["end"] - tag["line"] + 1, tag["path"], tag["line"], name))
    return sorted(rows, key=lambda r: (-r[0], r[1], r[2]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", default=DEFAULT_FOLDERS)
    parser.add_argument("--top", type=int, default=20, help="how many to list (0: all)")
    parser.add_argument("--over", type=int, help="list only those longer than this, and fail if any")
    args = parser.parse_args()
    rows = functions(args.folders)
    if args.over is not None:
        rows = [r for r in rows if r[0] > args.over]
    for lines, path, line, name in rows[: args.top or None]:
        print(f"{lines:5d}  {path}:{line}  {name}")
    return 1 if args.over is not None and rows else 0


if __name__ == "__main__":
    sys.exit(main())
