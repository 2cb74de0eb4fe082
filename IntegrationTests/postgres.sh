#!/usr/bin/env bash
# The store conformance suite on PostgreSQL (issue 27): a private PostgreSQL cluster in a temporary directory, on
# 127.0.0.1 at a free port, then the store tests (every protocol test on SQLite and PostgreSQL), the PostgreSQL
# store's own tests and the service tests on both stores, with PostgreSQL required (a missing cluster fails them,
# never skips them). The cluster is stopped and removed on exit, whatever happens; a cluster already running on this
# machine (another port, another directory) is never touched.
#
# Installs Debian's `postgresql` when no /usr/lib/postgresql/*/bin/initdb is there. As root, the cluster belongs to
# the `postgres` user (initdb refuses root); otherwise to the caller.
#
# Usage: IntegrationTests/postgres.sh [FILTER]
#   FILTER: a `swift test --filter` pattern (default "HealthStoreTests|HealthStorePostgresTests|ServiceOnBothStores").
# Runs the tests without building (`--skip-build`, as CI after its `swift test` tier); by hand, outside CI, it first
# runs `swift build --build-tests`.
. "$(dirname "$0")/../scripts/lib.sh"

filter=${1:-"HealthStoreTests|HealthStorePostgresTests|ServiceOnBothStores"}

find_initdb() { ls -d /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -1; }
initdb=$(find_initdb)
if [ -z "$initdb" ]; then
  echo "postgres.sh: installing Debian's postgresql"
  hb_apt postgresql
  initdb=$(find_initdb)
  [ -n "$initdb" ] || { echo "postgres.sh: no initdb after installing postgresql" >&2; exit 1; }
fi
bin=$(dirname "$initdb")

# Run PostgreSQL's programs as the cluster's owner: `postgres` when we are root, else ourselves.
if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || { echo "postgres.sh: no postgres user (is the postgresql package installed?)" >&2; exit 1; }
  as_owner() { runuser -u postgres -- "$@"; }
else
  as_owner() { "$@"; }
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/hb-postgres.XXXXXX")
[ "$(id -u)" = 0 ] && chown postgres: "$dir"
chmod 700 "$dir"
cleanup() {
  local status=$?
  set +e
  if [ -f "$dir/data/postmaster.pid" ]; then
    as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1
  fi
  if [ $status -ne 0 ] && [ -f "$dir/server.log" ]; then
    echo "--- PostgreSQL's log (last 40 lines)"
    tail -40 "$dir/server.log"
  fi
  rm -rf "$dir"
  exit $status
}
trap cleanup EXIT INT TERM

port=$(hb_free_port)
start=$SECONDS
as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C --no-sync >/dev/null
# Loopback only, the socket in the cluster's own directory (not /var/run/postgresql, which may belong to another
# cluster), the server's log beside it.
as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=200" start >/dev/null
psql_admin() { "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d postgres "$@"; }
psql_admin -c "CREATE ROLE healthbridge LOGIN SUPERUSER" -c "CREATE DATABASE healthbridge OWNER healthbridge"
echo "postgres.sh: PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port ($((SECONDS - start)) s)"

export HEALTHBRIDGE_POSTGRES_URL="postgres://healthbridge@127.0.0.1:$port/healthbridge"
export HEALTHBRIDGE_REQUIRE_POSTGRES=1
# The cluster, for tests that stop and start it (the database going away): its data directory and pg_ctl.
export HEALTHBRIDGE_POSTGRES_DATA="$dir/data"
export HEALTHBRIDGE_POSTGRES_BIN="$bin"

if [ -z "${CI:-}" ]; then swift build --build-tests; fi
swift test --skip-build --filter "$filter"

# Every test dropped the schema it made: only `public` (and PostgreSQL's own) remain.
left=$(psql_admin -d healthbridge -At -c \
  "SELECT string_agg(nspname, ' ') FROM pg_namespace WHERE nspname LIKE 't\\_%'")
if [ -n "$left" ]; then
  echo "postgres.sh: tests left schemas behind: $left" >&2
  exit 1
fi

# Two app servers on this database (IntegrationTests/postgres_scaleout.py): a write through one reaches a long-poll
# on the other, one killed mid-load loses no acknowledged write, and PostgreSQL stopped and started under load
# answers HEALTH_STORE_UNAVAILABLE promptly and comes back by itself. Skipped with a filter of one's own.
if [ -z "${1:-}" ]; then
  binary="$(hb_binary)"
  start_cluster="$bin/pg_ctl -D $dir/data -l $dir/server.log -w -t 60 -o '-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=200' start"
  stop_cluster="$bin/pg_ctl -D $dir/data -m fast -w stop"
  if [ "$(id -u)" = 0 ]; then
    start_cluster="runuser -u postgres -- $start_cluster"
    stop_cluster="runuser -u postgres -- $stop_cluster"
  fi
  python3 IntegrationTests/postgres_scaleout.py --binary "$binary" --url "$HEALTHBRIDGE_POSTGRES_URL" \
    --pg-stop "$stop_cluster" --pg-start "$start_cluster"
fi
