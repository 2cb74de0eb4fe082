# Shared by every script in scripts/ and IntegrationTests/: source it (`. "$(dirname "$0")/../scripts/lib.sh"`). It
# changes to the repository root, and gives:
#
#   hb_apt PACKAGE…           installs the Debian packages not yet installed (`apt-get update` only when a package
#                             is missing and the first try fails, or the lists are empty; at most once per run)
#   hb_need COMMAND PACKAGE   installs PACKAGE when COMMAND is not on PATH
#   hb_venv DIR PACKAGE…      a Python venv in DIR (created once, python3-venv installed if missing) with the PyPI
#                             packages; prints nothing, sets $venv to DIR
#   hb_binary                 prints the path of the debug `healthbridge` binary, building it once: $HEALTHBRIDGE_BINARY
#                             when set (CI builds once and exports it), else `swift build --product healthbridge`
#                             (in $SWIFT_SCRATCH_PATH when set); the build's output goes to stderr
#   hb_release_binary         the same for a release build (in $SCRATCH, default .build)
#   hb_benchmark NAME         builds a benchmark of Benchmarks/ (release, .build-bench) and prints its path
#   hb_free_port              a free TCP port on 127.0.0.1
set -euo pipefail
HB_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$HB_ROOT"

hb_apt_updated=${hb_apt_updated:-0}
hb_apt() {
  local missing=() package
  for package in "$@"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" != 0 ]; then
    echo "lib.sh: needs the Debian packages ${missing[*]} (run as root to install them)" >&2
    return 1
  fi
  local lists
  lists=$(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages*' 2>/dev/null | head -1)
  if [ -n "$lists" ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1; then
    return 0
  fi
  if [ "$hb_apt_updated" != 1 ]; then
    apt-get update -qq
    hb_apt_updated=1
    export hb_apt_updated
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
}

hb_need() {
  command -v "$1" >/dev/null 2>&1 || hb_apt "$2"
}

hb_venv() {
  venv=$1
  shift
  if [ ! -x "$venv/bin/python" ]; then
    python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || hb_apt python3-venv
    python3 -m venv "$venv"
  fi
  # Only what is missing: pip's own check is offline when every requirement is already met.
  # (`pip show a b` succeeds when any one is there, so each is asked on its own.)
  local package
  for package in "$@"; do
    if ! "$venv/bin/python" -m pip show --quiet "$package" >/dev/null 2>&1; then
      "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$@"
      return
    fi
  done
}

hb_binary() {
  if [ -n "${HEALTHBRIDGE_BINARY:-}" ]; then
    readlink -f "$HEALTHBRIDGE_BINARY"
    return
  fi
  local scratch=()
  if [ -n "${SWIFT_SCRATCH_PATH:-}" ]; then scratch=(--scratch-path "$SWIFT_SCRATCH_PATH"); fi
  swift build "${scratch[@]}" --product healthbridge >&2
  readlink -f "$(swift build "${scratch[@]}" --show-bin-path)/healthbridge"
}

hb_release_binary() {
  local scratch=${SCRATCH:-.build}
  swift build -c release --scratch-path "$scratch" --product healthbridge >&2
  readlink -f "$scratch/release/healthbridge"
}

hb_free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Prints the path of a benchmark executable of Benchmarks/ (HealthBench, IngestBench, WriteBench), built in release
# mode in $BENCH_SCRATCH (default .build-bench): the benchmarks are a package of their own, never built by the root's
# `swift build`.
hb_benchmark() {
  local scratch=${BENCH_SCRATCH:-.build-bench}
  swift build -c release --package-path Benchmarks --scratch-path "$scratch" --product "$1" >&2
  readlink -f "$scratch/release/$1"
}

# A work directory with a server home and a client home (0700), removed on exit after stopping $SERVER_PID.
# Sets WORK, SERVER_HOME, CLIENT_HOME and SERVER_PID (empty until hb_start_server). $1 names the directory.
hb_server_workspace() {
  WORK=$(mktemp -d "/tmp/$1.XXXXXX")
  SERVER_HOME="$WORK/server"
  CLIENT_HOME="$WORK/client"
  mkdir -p -m 700 "$SERVER_HOME" "$CLIENT_HOME"
  SERVER_PID=
  trap hb_server_cleanup EXIT
}

hb_server_cleanup() {
  if [ -n "$SERVER_PID" ]; then kill -INT "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}

# Starts `$HB serve --home $SERVER_HOME "$@"` in the background (log in $WORK/serve.log) and waits until its paired
# API identity exists; exits with the log when the server dies or does not start in 60 s.
hb_start_server() {
  "$HB" serve --home "$SERVER_HOME" "$@" >"$WORK/serve.log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 600); do
    [ -f "$SERVER_HOME/export-server.json" ] && return 0
    kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/serve.log" >&2; exit 1; }
    sleep 0.1
  done
  echo "the server did not start" >&2
  cat "$WORK/serve.log" >&2
  exit 1
}

# A private PostgreSQL cluster in a temporary directory, on 127.0.0.1 at a free port, with a superuser role
# `healthbridge` owning the database `healthbridge`. Installs Debian's `postgresql` when no
# /usr/lib/postgresql/*/bin/initdb is there. As root the cluster belongs to the `postgres` user (initdb refuses root).
# Sets PG_DIR (its data is $PG_DIR/data, its log $PG_DIR/server.log), PG_BIN, PG_PORT, PG_URL and PG_START (the
# command that starts it again); `hb_pg_owner CMD…` runs a command as the cluster's owner, `hb_psql_admin ARGS…` is
# psql as the `postgres` superuser, `hb_postgres_stop` stops and removes it (call it from your EXIT trap). A cluster
# already running on this machine (another port, another directory) is never touched.
hb_postgres_start() {
  local initdb
  initdb=$(ls -d /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -1)
  if [ -z "$initdb" ]; then
    echo "lib.sh: installing Debian's postgresql" >&2
    hb_apt postgresql
    initdb=$(ls -d /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -1)
    [ -n "$initdb" ] || { echo "lib.sh: no initdb after installing postgresql" >&2; return 1; }
  fi
  PG_BIN=$(dirname "$initdb")
  if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || { echo "lib.sh: no postgres user (is the postgresql package installed?)" >&2; return 1; }
  fi
  PG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/hb-postgres.XXXXXX")
  [ "$(id -u)" = 0 ] && chown postgres: "$PG_DIR"
  chmod 700 "$PG_DIR"
  PG_PORT=$(hb_free_port)
  # Loopback only, the socket in the cluster's own directory (not /var/run/postgresql, which may belong to another
  # cluster), the server's log beside it.
  PG_START="$PG_BIN/pg_ctl -D $PG_DIR/data -l $PG_DIR/server.log -w -t 60 -o '-c listen_addresses=127.0.0.1 -p $PG_PORT -k $PG_DIR -c max_connections=${PG_MAX_CONNECTIONS:-200}' start"
  [ "$(id -u)" = 0 ] && PG_START="runuser -u postgres -- $PG_START"
  # Connections over TCP authenticate with SCRAM-SHA-256, as a production server's do: the store's own
  # connections sign in as each person's role with the password it derives (docs/stores.md), and a wrong one is
  # refused. The administrator's socket (hb_psql_admin) is trusted.
  hb_pg_owner "$PG_BIN/initdb" -D "$PG_DIR/data" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
    -E UTF8 --locale=C --no-sync >/dev/null
  eval "$PG_START" >/dev/null
  PG_PASSWORD=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
  hb_psql_admin -c "CREATE ROLE healthbridge LOGIN SUPERUSER PASSWORD '$PG_PASSWORD'" \
    -c "CREATE DATABASE healthbridge OWNER healthbridge"
  PG_URL="postgres://healthbridge:$PG_PASSWORD@127.0.0.1:$PG_PORT/healthbridge"
}

hb_pg_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

hb_psql_admin() {
  "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$PG_DIR" -p "$PG_PORT" -U postgres -d postgres "$@"
}

hb_postgres_stop() {
  [ -n "${PG_DIR:-}" ] || return 0
  if [ -f "$PG_DIR/data/postmaster.pid" ]; then
    hb_pg_owner "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$PG_DIR"
}
