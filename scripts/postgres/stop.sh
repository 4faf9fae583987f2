#!/usr/bin/env bash
# Stop the PostgreSQL that scripts/postgres/start.sh started in $PG_SCRATCH: SIGINT (fast shutdown) to the
# PID in its postmaster.pid, then wait for that PID to exit.
set -euo pipefail
S=${PG_SCRATCH:?set PG_SCRATCH}
pidfile="$S/data/postmaster.pid"
[ -f "$pidfile" ] || exit 0
pid=$(head -n 1 "$pidfile")
kill -INT "$pid" 2>/dev/null || exit 0
for _ in $(seq 300); do
  kill -0 "$pid" 2>/dev/null || exit 0
  sleep 0.1
done
echo "postgres stop: $pid still running after 30 s; sending SIGQUIT" >&2
kill -QUIT "$pid" 2>/dev/null || true
