#!/usr/bin/env python3
"""Import benchmark: HealthBridge against the reference tools, side by side on the same export.zip.

    python3 scripts/import_bench.py [--mb 270] [--runs 3] [--skip-reference]
    python3 scripts/import_bench.py --corpus typical-year [--skip-hk]     # with 1 Hz GPX routes, ECGs, clinical records
    python3 scripts/import_bench.py --corpus heavy-runner --skip-hk       # ten years, a route every day

`--corpus` generates (once) the export with scripts/generate_corpus.py instead of the record-only one, and adds the
route figures of HealthBridge's import report: route points, and points/s of the attachment thread (GPX files read,
inflated and scanned per second of its time).

Generates (once) a realistic export of at least 250 MB with scripts/generate_export.py, builds healthbridge in
release mode, installs `healthkit-to-sqlite` and `apple-health-export-mcp` from PyPI into a venv, then runs each
importer on the same file and prints wall time, records/s, peak RSS and the ratios. HealthBridge runs `--runs` times
into fresh stores (a shared 2-core machine is noisy): its median gives the ratios, its best is printed too. Also times
a re-import of the unchanged file.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import sqlite3
import tempfile
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench-out")


def run(cmd, env=None, output=False):
    """Runs a command under GNU time; returns (seconds, peak RSS in MB), and its stdout when `output`."""
    timer = shutil.which("time") or "/usr/bin/time"
    start = time.monotonic()
    result = subprocess.run([timer, "-f", "%M", *cmd], env=env,
                            stdout=subprocess.PIPE if output else subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    elapsed = time.monotonic() - start
    if result.returncode != 0:
        sys.exit(f"{cmd[0]} failed ({result.returncode}):\n{result.stderr[-2000:]}")
    rss_kb = int(result.stderr.strip().splitlines()[-1])
    if output:
        return elapsed, rss_kb / 1024, result.stdout
    return elapsed, rss_kb / 1024


def count_records(zip_path):
    pattern = re.compile(rb"<Record ")
    count = 0
    with zipfile.ZipFile(zip_path) as z:
        name = next(n for n in z.namelist() if n.endswith("export.xml"))
        with z.open(name) as f:
            tail = b""
            while chunk := f.read(1 << 22):
                data = tail + chunk
                count += len(pattern.findall(data))
                tail = data[-7:] if not data.endswith(b"<Record ") else b""
    return count


def sqlite_floor(store, scratch):
    """What SQLite alone needs to store the rows an import stored: the same rows of `samples`, `workouts`,
    `correlations`, `documents` and `routes`, copied in their insertion order by INSERT … SELECT into a new database
    with the same schema (every table and index, the store's page size, WAL, synchronous=NORMAL, its 64 MiB cache),
    in one transaction, on this machine in this run. No parsing, no binding, no Swift: the cost of the B-trees and the
    WAL, the lower bound of any import into this schema. Returns seconds."""
    path = os.path.join(scratch, "floor.sqlite")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    source = sqlite3.connect(store)
    schema = [sql for (sql,) in source.execute(
        "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' "
        "ORDER BY type = 'index', rowid")]
    tables = [name for (name,) in source.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN "
        "('samples', 'workouts', 'correlations', 'correlation_members', 'documents', 'routes')")]
    source.close()
    floor = sqlite3.connect(path, isolation_level=None)
    floor.execute("PRAGMA page_size = 16384")
    floor.execute("PRAGMA journal_mode = WAL")
    floor.execute("PRAGMA synchronous = NORMAL")
    floor.execute("PRAGMA cache_size = -65536")
    for sql in schema:
        floor.execute(sql)
    floor.execute("ATTACH ? AS src", (store,))
    # The source was just written by the import: its pages are in the page cache, so reading them costs little.
    start = time.monotonic()
    floor.execute("BEGIN")
    for table in tables:
        floor.execute(f"INSERT INTO main.{table} SELECT * FROM src.{table} ORDER BY rowid")
    floor.execute("COMMIT")
    elapsed = time.monotonic() - start
    floor.close()
    return elapsed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=270)
    parser.add_argument("--runs", type=int, default=3, help="healthbridge runs (median and best reported)")
    parser.add_argument("--skip-reference", action="store_true", help="only time healthbridge")
    parser.add_argument("--skip-hk", action="store_true", help="do not run healthkit-to-sqlite")
    parser.add_argument("--corpus", choices=["records", "typical-year", "heavy-runner"], default="records",
                        help="records: the record-only export of --mb; the others: scripts/generate_corpus.py")
    args = parser.parse_args()
    os.makedirs(OUT, exist_ok=True)
    if args.corpus == "records":
        export = os.path.join(OUT, f"export-{int(args.mb)}mb.zip")
        if not os.path.exists(export):
            subprocess.run([sys.executable, os.path.join(ROOT, "scripts/generate_export.py"), "--mb", str(args.mb),
                            "--out", export], check=True)
    else:
        export = os.path.join(OUT, f"{args.corpus}.zip")
        if not os.path.exists(export):
            subprocess.run([sys.executable, os.path.join(ROOT, "scripts/generate_corpus.py"), "--profile", args.corpus,
                            "--out", export], check=True)
    # SCRATCH: the build folder of the release build (default .build), e.g. .build-release beside a debug build.
    scratch = os.environ.get("SCRATCH", ".build")
    subprocess.run(["swift", "build", "-c", "release", "--scratch-path", scratch, "--product", "healthbridge"],
                   cwd=ROOT, check=True)
    healthbridge = os.path.join(ROOT, scratch, "release/healthbridge")
    records = count_records(export)
    print(f"\nexport: {export}: {os.path.getsize(export) / 1e6:.0f} MB zipped, {records:,} <Record> elements\n")

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        runs = []
        reports = []
        for index in range(max(1, args.runs)):
            env = dict(os.environ, HEALTHBRIDGE_HOME=os.path.join(tmp, f"hb{index}"))
            seconds, rss, stdout = run([healthbridge, "import", "--json", export], env=env, output=True)
            runs.append((seconds, rss))
            reports.append(json.loads(stdout))
        again, again_rss = run([healthbridge, "import", export], env=env)
        floor = sqlite_floor(os.path.join(env["HEALTHBRIDGE_HOME"], "health.sqlite"), tmp)
        runs.sort()
        median = runs[len(runs) // 2]
        rows.append((f"healthbridge (median of {len(runs)})", *median))
        if len(runs) > 1:
            rows.append((f"healthbridge (best of {len(runs)})", *runs[0]))

        if not args.skip_reference:
            venv = os.path.join(OUT, ".venv-bench")
            if not os.path.exists(os.path.join(venv, "bin", "python")):
                subprocess.run([sys.executable, "-m", "venv", venv], check=True)
                subprocess.run([os.path.join(venv, "bin", "pip"), "install", "-q", "healthkit-to-sqlite",
                                "apple-health-export-mcp"], check=True)
            bin_dir = os.path.join(venv, "bin")
            seconds, rss = run([os.path.join(bin_dir, "apple-health-export-mcp-ingest"), export, "--db",
                                os.path.join(tmp, "ahem.db")])
            rows.append(("apple-health-export-mcp", seconds, rss))
            if not args.skip_hk:
                seconds, rss = run([os.path.join(bin_dir, "healthkit-to-sqlite"), export, os.path.join(tmp, "hk.db")])
                rows.append(("healthkit-to-sqlite", seconds, rss))

    ours = rows[0][1]
    print(f"{'importer':<28}{'wall s':>9}{'records/s':>12}{'peak RSS MB':>13}{'healthbridge is':>18}")
    for name, seconds, rss in rows:
        ratio = "" if name.startswith("healthbridge") else f"{seconds / ours:.1f}× faster"
        print(f"{name:<28}{seconds:>9.2f}{records / seconds:>12,.0f}{rss:>13.0f}{ratio:>18}")
    if len(runs) > 1:
        print("healthbridge runs: " + ", ".join(f"{seconds:.2f} s" for seconds, _ in runs))
    points = reports[0].get("routePoints", 0)
    if points:
        route_seconds = sorted(r.get("routeSeconds") or 0 for r in reports)
        route_cpu = sorted(r.get("routeCPUSeconds") or 0 for r in reports)
        median_route, median_cpu = route_seconds[len(route_seconds) // 2], route_cpu[len(route_cpu) // 2]
        if median_route > 0 and median_cpu > 0:
            print(f"\nroute points: {points:,} in {reports[0]['elements'].get('GPX file', 0)} GPX files, read + inflated + "
                  f"scanned + columns on the attachment thread (median of {len(route_seconds)}): "
                  f"{median_cpu:.2f} CPU s = {points / median_cpu:,.0f} points per CPU-second; "
                  f"{median_route:.2f} s wall = {points / median_route:,.0f} points/s while yielding to the saver "
                  f"(nice +10), all within the import's {ours:.2f} s")
        else:
            print(f"\nroute points: {points:,}")
    stored = reports[0].get("samplesInserted", 0)
    print(f"\nSQLite floor: the same {stored:,} samples (+ workouts, correlations, documents, routes) copied by INSERT … "
          f"SELECT into the same schema, one transaction: {floor:.2f} s = {records / floor:,.0f} records/s; "
          f"healthbridge's whole import (parse, inflate, routes, save) takes {ours / floor:.2f}× that")
    print(f"\nre-import of the unchanged file: {again:.2f} s (peak RSS {again_rss:.0f} MB)")


if __name__ == "__main__":
    main()
