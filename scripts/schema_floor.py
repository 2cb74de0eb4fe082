#!/usr/bin/env python3
"""The SQLite floor of the import under other schemas (issue 24, "lower the floor").

Copies the samples a real import stored (a store of the typical year, or any store) into fresh databases, each with
one schema alternative, by one `INSERT ... SELECT` in one transaction: no parsing, no Swift, only SQLite's B-trees
and the WAL, as `import_bench.py`'s "SQLite floor" does for today's schema. Each alternative keeps what HealthKit's
semantics need unless its name says it measures a bound:

  today           the store's schema and page size (16 KB): rowid table, UNIQUE(uuid) for idempotent re-imports,
                  the covering scan index, the partial sync-id index
  sorted          today's schema, rows inserted in scan order (type, start) instead of import order
  indexes-after   today's schema, the indexes built after the rows are in (a first import into an empty store)
  without-rowid   a WITHOUT ROWID table clustered on the scan key (type, start, seq) in place of the covering index,
                  plus an index on seq for the change feed and UNIQUE(uuid)
  page-4k/8k/32k  today's schema with 4 KB (SQLite's default) / 8 KB / 32 KB pages
  no-uuid-index   BOUND: today's schema without UNIQUE(uuid), i.e. UUIDs derived on read; idempotent re-imports would
                  then need another unique key of the same size, so this is what the index costs, not an option
  table-only      BOUND: the table alone, no index at all

For each: seconds (best of --runs), rows/s, the ratio to today's, the file size, and the time of the statistics scan
(a year of one type's samples read in scan order through its index, as the engine reads them), which must not get
slower.

  python3 scripts/schema_floor.py --store /path/to/health.sqlite [--runs 3] [--type stepCount]
"""
import argparse
import os
import shutil
import sqlite3
import tempfile
import time

COLUMNS = 'seq, uuid, type_id, source_id, start, "end", value, unit_id, created, tz_offset, tz_name, ' \
          'source_version, sync_id, sync_version, metadata'
TABLE = """CREATE TABLE samples (
    seq INTEGER PRIMARY KEY, uuid BLOB NOT NULL, type_id INTEGER NOT NULL, source_id INTEGER NOT NULL,
    start REAL NOT NULL, "end" REAL NOT NULL, value REAL, unit_id INTEGER, created REAL, tz_offset INTEGER,
    tz_name TEXT, source_version TEXT, sync_id TEXT, sync_version INTEGER, metadata TEXT)"""
UUID = "CREATE UNIQUE INDEX samples_uuid ON samples(uuid)"
SCAN = 'CREATE INDEX samples_scan ON samples(type_id, start, seq, "end", value, source_id, unit_id)'
SYNC = "CREATE INDEX samples_sync ON samples(sync_id, source_id) WHERE sync_id IS NOT NULL"
CLUSTERED = """CREATE TABLE samples (
    seq INTEGER NOT NULL, uuid BLOB NOT NULL, type_id INTEGER NOT NULL, source_id INTEGER NOT NULL,
    start REAL NOT NULL, "end" REAL NOT NULL, value REAL, unit_id INTEGER, created REAL, tz_offset INTEGER,
    tz_name TEXT, source_version TEXT, sync_id TEXT, sync_version INTEGER, metadata TEXT,
    PRIMARY KEY (type_id, start, seq)) WITHOUT ROWID"""
SEQ = "CREATE UNIQUE INDEX samples_seq ON samples(seq)"

# name: (page size, statements before the copy, statements after it, ORDER BY of the copy)
VARIANTS = {
    "today": (16384, [TABLE, UUID, SCAN, SYNC], [], "seq"),
    "page-4k": (4096, [TABLE, UUID, SCAN, SYNC], [], "seq"),
    "page-8k": (8192, [TABLE, UUID, SCAN, SYNC], [], "seq"),
    "page-32k": (32768, [TABLE, UUID, SCAN, SYNC], [], "seq"),
    "sorted": (16384, [TABLE, UUID, SCAN, SYNC], [], "type_id, start, seq"),
    "indexes-after": (16384, [TABLE], [UUID, SCAN, SYNC], "seq"),
    "without-rowid": (16384, [CLUSTERED, SEQ, UUID, SYNC], [], "seq"),
    "no-uuid-index": (16384, [TABLE, SCAN, SYNC], [], "seq"),
    "table-only": (16384, [TABLE], [], "seq"),
}


def copy(source, directory, name, spec):
    page_size, before, after, order = spec
    path = os.path.join(directory, name + ".sqlite")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA page_size = %d" % page_size)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")
    db.execute("PRAGMA cache_size = -65536")
    for statement in before:
        db.execute(statement)
    db.execute("ATTACH DATABASE ? AS src", ("file:%s?mode=ro" % source,))
    # Warm the source's pages so every variant reads it from memory.
    db.execute("SELECT count(*), sum(length(metadata)) FROM src.samples").fetchone()
    started = time.perf_counter()
    db.execute("BEGIN")
    db.execute("INSERT INTO main.samples (%s) SELECT %s FROM src.samples ORDER BY %s" % (COLUMNS, COLUMNS, order))
    for statement in after:
        db.execute(statement)
    db.execute("COMMIT")
    elapsed = time.perf_counter() - started
    db.execute("DETACH DATABASE src")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = os.path.getsize(path)
    db.close()
    return path, elapsed, size


def scan_time(path, type_id, runs):
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    low, high = db.execute("SELECT min(start), max(start) FROM samples WHERE type_id = ?", (type_id,)).fetchone()
    query = 'SELECT start, "end", value, source_id FROM samples WHERE type_id = ? AND start >= ? AND start < ? ' \
            'ORDER BY start'
    best = None
    rows = 0
    for _ in range(runs + 1):
        started = time.perf_counter()
        rows = len(db.execute(query, (type_id, low, high + 1)).fetchall())
        elapsed = time.perf_counter() - started
        best = elapsed if best is None else min(best, elapsed)
    db.close()
    return best, rows


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", required=True, help="a HealthBridge SQLite store (health.sqlite) holding an import")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--type", default="stepCount", help="the type of the statistics scan")
    parser.add_argument("--only", nargs="*", help="variants to run (default: all)")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="hb-schema-floor-")
    try:
        source = os.path.join(work, "source.sqlite")
        # A consistent copy of the store (it may be in WAL mode with a server running).
        src = sqlite3.connect("file:%s?mode=ro" % args.store, uri=True)
        dst = sqlite3.connect(source)
        src.backup(dst)
        src.close()
        dst.close()
        db = sqlite3.connect(source)
        count = db.execute("SELECT count(*) FROM samples").fetchone()[0]
        row = db.execute("SELECT id FROM types WHERE identifier = ? OR identifier LIKE ?",
                         (args.type, "%" + args.type)).fetchone()
        db.close()
        if row is None:
            raise SystemExit("no type %s in the store" % args.type)
        type_id = row[0]
        print("source: %s, %d samples; SQLite %s; best of %d runs" % (args.store, count, sqlite3.sqlite_version,
                                                                      args.runs))
        print()
        print("| schema | seconds | samples/s | vs today | file MB | scan of a year of %s |" % args.type)
        print("|---|---|---|---|---|---|")
        baseline = None
        for name, spec in VARIANTS.items():
            if args.only and name not in args.only:
                continue
            best = None
            path = None
            size = 0
            for _ in range(args.runs):
                path, elapsed, size = copy(source, work, name, spec)
                best = elapsed if best is None else min(best, elapsed)
            scan, rows = scan_time(path, type_id, args.runs)
            if name == "today":
                baseline = best
            ratio = "%.2f×" % (baseline / best) if baseline else "–"
            print("| %s | %.2f | %s | %s | %.0f | %.1f ms (%d samples) |" % (
                name, best, "{:,.0f}".format(count / best), ratio, size / 1e6, scan * 1000, rows), flush=True)
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(path + suffix):
                    os.remove(path + suffix)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
