#!/usr/bin/env bash
# Issue 27's load figure: PHONES simulated phones (default 1000) each push an hour of Health Auto Export data over
# HTTPS to two `serve` app servers on one PostgreSQL database (a private cluster, scripts/lib.sh's hb_postgres_start)
# while 50 readers ask for statistics; server 1 is killed mid-load (scripts/phones_load.py says what is checked).
# Release build in .build-release.
#
#   scripts/phones-load-bench.sh
#   PHONES=200 scripts/phones-load-bench.sh --workers 16
. "$(dirname "$0")/lib.sh"

trap 'hb_postgres_stop' EXIT
PG_MAX_CONNECTIONS=300 hb_postgres_start
binary="$(SCRATCH=${SCRATCH:-.build-release} hb_release_binary)"
python3 scripts/phones_load.py --binary "$binary" --url "$PG_URL" --psql "$PG_BIN/psql" --phones "${PHONES:-1000}" "$@"
