#!/usr/bin/env bash
# The people issue's figures (issue 27) on a private PostgreSQL cluster (scripts/lib.sh's hb_postgres_start), release
# builds, in one run:
#   1. the typical-year export (bench-out/typical-year.zip, generated when missing) imported by `healthbridge import`
#      into the SQLite file store and into PostgreSQL: seconds, records/s and their ratio;
#   2. PeopleBench: PEOPLE people (default 1000) with a year each of iPhone + Apple Watch steps, distance and heart
#      rate on one database, then a year of daily merged steps for one of them: p50/p99; and the same figure for a
#      database holding one person.
#
#   scripts/people-bench.sh                 # 1,000 people (about 30 M samples; needs some 10 GB of disk)
#   PEOPLE=100 scripts/people-bench.sh
. "$(dirname "$0")/lib.sh"

people=${PEOPLE:-1000}
export="${EXPORT:-bench-out/typical-year.zip}"
trap 'hb_postgres_stop; rm -rf "${work:-}"' EXIT
PG_MAX_CONNECTIONS=300 hb_postgres_start
# PostgreSQL's defaults (fsync and synchronous_commit on), as a real server runs; only the shared buffers grow from
# Debian's 128 MB to a size a database server is given.
hb_psql_admin -c "ALTER SYSTEM SET shared_buffers = '512MB'" >/dev/null
hb_pg_owner "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w stop >/dev/null
eval "$PG_START" >/dev/null
echo "people-bench: PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PG_PORT, shared_buffers 512MB"

binary="$(SCRATCH=${SCRATCH:-.build-release} hb_release_binary)"
bench="$(hb_benchmark PeopleBench)"

if [ ! -f "$export" ]; then
  echo "== generating $export (scripts/generate_corpus.py --profile typical-year)" >&2
  mkdir -p "$(dirname "$export")"
  python3 scripts/generate_corpus.py --profile typical-year --out "$export"
fi
work=$(mktemp -d /tmp/people-bench.XXXXXX)
import_once() {  # label, then the store arguments
  local label=$1 started ended
  shift
  started=$(date +%s.%N)
  "$binary" import "$export" --home "$work/home-$label" "$@" --json >"$work/import-$label.json"
  ended=$(date +%s.%N)
  python3 - "$label" "$started" "$ended" "$work/import-$label.json" <<'PY'
import json, sys
label, started, ended, path = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
report = json.load(open(path))
records = report.get("elements", {}).get("Record", 0)
seconds = ended - started
print(f"import {label:10s} {records:9d} records, {report.get('routePoints', 0):8d} route points in {seconds:6.2f} s"
      f" = {records / seconds:9.0f} records/s (process wall time)")
open(path + ".rate", "w").write(str(records / seconds))
PY
}
echo "== 1. import of $export, same run"
import_once sqlite
import_once postgres --store "$PG_URL?schema=import_bench"
python3 -c "import sys; s=float(open('$work/import-sqlite.json.rate').read()); p=float(open('$work/import-postgres.json.rate').read()); print(f'import ratio   PostgreSQL / SQLite = {p / s:.2f}')"

echo "== 2. one person's statistics among $people people"
"$bench" --url "$PG_URL" --people "$people" "$@"
"$bench" --url "$PG_URL" --people 1 --prefix people_bench_alone "$@"
echo "== database size: $(hb_psql_admin -d healthbridge -At -c "SELECT pg_size_pretty(pg_database_size('healthbridge'))")"
