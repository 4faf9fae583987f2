#!/usr/bin/env bash
# Start a throwaway PostgreSQL for tests and benchmarks: initdb into $PG_SCRATCH, then postgres on
# 127.0.0.1:$PG_PORT (and a unix socket in $PG_SCRATCH), trust authentication, no fsync. As root it runs
# as the `postgres` user (PostgreSQL refuses root). Prints the server URL; the pid is the first line of
# $PG_SCRATCH/data/postmaster.pid; stop it with scripts/postgres/stop.sh (by that PID).
# Needs Debian's `postgresql` package (see .ci/run).
set -euo pipefail
S=${PG_SCRATCH:?set PG_SCRATCH to an empty folder}
PORT=${PG_PORT:?set PG_PORT to a free port}
BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$BIN/postgres" ] || { echo "postgres start: no /usr/lib/postgresql/*/bin/postgres (apt-get install postgresql)" >&2; exit 1; }
mkdir -p "$S"
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
if [ "$(id -u)" = 0 ]; then chown postgres "$S"; chmod 700 "$S"; fi
if [ ! -f "$S/data/PG_VERSION" ]; then
  as_pg "$BIN/initdb" -D "$S/data" -A trust -U postgres --no-sync -E UTF8 >"$S/initdb.log" 2>&1 \
    || { cat "$S/initdb.log" >&2; exit 1; }
fi
as_pg setsid "$BIN/postgres" -D "$S/data" -h 127.0.0.1 -p "$PORT" -k "$S" -F -c max_connections=200 \
  >"$S/postgres.log" 2>&1 </dev/null &
for _ in $(seq 300); do
  if as_pg "$BIN/pg_isready" -q -h 127.0.0.1 -p "$PORT"; then
    echo "postgresql://postgres@127.0.0.1:$PORT"
    exit 0
  fi
  sleep 0.1
done
echo "postgres start: not ready after 30 s" >&2
tail -n 30 "$S/postgres.log" >&2
exit 1
