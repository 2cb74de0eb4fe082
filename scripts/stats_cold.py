#!/usr/bin/env python3
"""Cold statistics: one year of daily merged steps from a new `healthbridge` process, as an agent's tool call or a
script would run it, on the typical-year export (iPhone + Apple Watch + an app, overlapping).

    python3 scripts/stats_cold.py [--runs 21] [--static]

Builds healthbridge in release mode (and, with `--static`, a second binary with the Swift runtime linked in,
`swift build -c release --static-swift-stdlib`, in .build-static; it needs libcurl's development files, because
Foundation's networking module is linked too), imports bench-out/typical-year.zip once into bench-out/stats-home
(generating it with scripts/generate_corpus.py if needed), then alternates, in one run:
- `healthbridge summary --type stepCount --interval day --from 2024-01-01 --to 2025-01-01 --json` (366 buckets);
- `healthbridge --version` (process start: loading, linking, the runtime; no store).
Prints the median and best wall time of each, and what the statistics cost on top of starting the process.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench-out")
SUMMARY = ["summary", "--type", "stepCount", "--interval", "day", "--from", "2024-01-01", "--to", "2025-01-01", "--json"]


def timed(cmd):
    start = time.perf_counter()
    result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({result.returncode}):\n{result.stderr.decode()[-2000:]}")
    return elapsed, result.stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--static", action="store_true", help="also time a --static-swift-stdlib build")
    args = parser.parse_args()
    os.makedirs(OUT, exist_ok=True)
    export = os.path.join(OUT, "typical-year.zip")
    if not os.path.exists(export):
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts/generate_corpus.py"), "--profile", "typical-year",
                        "--out", export], check=True)
    subprocess.run(["swift", "build", "-c", "release", "--product", "healthbridge"], cwd=ROOT, check=True)
    binaries = {"dynamic": os.path.join(ROOT, ".build/release/healthbridge")}
    if args.static:
        subprocess.run(["swift", "build", "-c", "release", "--static-swift-stdlib", "--product", "healthbridge",
                        "--scratch-path", os.path.join(ROOT, ".build-static")], cwd=ROOT, check=True)
        binaries["static"] = os.path.join(ROOT, ".build-static/release/healthbridge")

    home = os.path.join(OUT, "stats-home")
    if not os.path.exists(os.path.join(home, "health.sqlite")):
        subprocess.run([binaries["dynamic"], "import", export, "--home", home, "--json"], check=True,
                       stdout=subprocess.DEVNULL)

    times = {(name, kind): [] for name in binaries for kind in ("summary", "start")}
    answers = {}
    for _ in range(args.runs):
        for name, binary in binaries.items():
            elapsed, stdout = timed([binary, *SUMMARY, "--home", home])
            times[(name, "summary")].append(elapsed)
            answers[name] = stdout
            elapsed, _ = timed([binary, "--version"])
            times[(name, "start")].append(elapsed)

    buckets = json.loads(answers["dynamic"])["buckets"]
    if any(json.loads(answer) != json.loads(answers["dynamic"]) for answer in answers.values()):
        sys.exit("the binaries answered differently")
    total = sum(bucket.get("sum") or 0 for bucket in buckets)
    print(f"\nstore: {home} (typical year); summary: {len(buckets)} daily buckets, {total:,.0f} steps merged\n")
    print(f"{'binary':10} {'summary median':>15} {'best':>7} {'--version median':>17} {'best':>7} {'statistics':>11}")
    for name in binaries:
        summary, start = times[(name, "summary")], times[(name, "start")]
        print(f"{name:10} {statistics.median(summary):14.3f}s {min(summary):6.3f}s "
              f"{statistics.median(start):16.3f}s {min(start):6.3f}s "
              f"{statistics.median(summary) - statistics.median(start):10.3f}s")
    print(f"\n{args.runs} alternating runs of each; statistics = summary median - --version median")


if __name__ == "__main__":
    main()
