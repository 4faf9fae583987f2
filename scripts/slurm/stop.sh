#!/usr/bin/env bash
# Stop what scripts/slurm/start.sh started, each daemon by the PID in its pidfile (never by name).
set -u
S=${SLURM_SCRATCH:-/tmp/gpu-lessons-slurm}
stop_pid() {  # stop_pid PIDFILE
  [ -f "$1" ] || return 0
  local pid; pid=$(cat "$1")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
  fi
  rm -f "$1"
}
stop_pid "$S/run/slurmd.pid"
stop_pid "$S/run/slurmctld.pid"
stop_pid "$S/run/slurmdbd.pid"
stop_pid "$S/run/mariadb.pid"
stop_pid /run/munge/munged.pid
stop_pid "$S/run/munged.pid"
echo "slurm stopped"
