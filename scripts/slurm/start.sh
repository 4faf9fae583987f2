#!/usr/bin/env bash
# Start a real single-node Slurm for tests and demos: munge, MariaDB + slurmdbd (accounting, which
# submitit needs to see a killed job), slurmctld and slurmd, with 2 fake GPUs for --gres tests.
# Needs root and Debian's slurmctld slurmd slurm-client munge slurmdbd mariadb-server (see .ci/run).
# State, logs and pidfiles live under $SLURM_SCRATCH; stop with scripts/slurm/stop.sh (by PID).
set -euo pipefail
S=${SLURM_SCRATCH:-/tmp/gpu-lessons-slurm}
host=$(hostname -s)
mkdir -p "$S"/{state,spool,log,run,db,fakegpu}

wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...
  local secs=$1 what=$2; shift 2
  for _ in $(seq $((secs * 10))); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "slurm start: timed out waiting for $what" >&2
  tail -n 20 "$S"/log/*.log >&2 2>/dev/null || true
  return 1
}

# munge
install -d -o munge -g munge /run/munge
if ! (munge -n | unmunge) >/dev/null 2>&1; then
  runuser -u munge -- /usr/sbin/munged
fi
wait_for 10 munge bash -c 'munge -n | unmunge'

# fake GPU devices (char devices, like /dev/null) for gres
for i in 0 1; do [ -e "$S/fakegpu/fakegpu$i" ] || mknod "$S/fakegpu/fakegpu$i" c 1 3; done

# MariaDB for accounting
sock="$S/run/mysqld.sock"
if [ ! -d "$S/db/mysql" ]; then
  mariadb-install-db --no-defaults --user=root --datadir="$S/db" --auth-root-authentication-method=normal >"$S/log/mariadb-install.log" 2>&1
fi
if ! mariadb --no-defaults -uroot --socket="$sock" -e 'select 1' >/dev/null 2>&1; then
  setsid mariadbd --no-defaults --user=root --datadir="$S/db" --bind-address=127.0.0.1 --port=3307 \
    --socket="$sock" --pid-file="$S/run/mariadb.pid" >"$S/log/mariadb.log" 2>&1 < /dev/null &
fi
wait_for 60 mariadb mariadb --no-defaults -uroot --socket="$sock" -e 'select 1'
mariadb --no-defaults -uroot --socket="$sock" <<'SQL'
CREATE DATABASE IF NOT EXISTS slurm_acct_db;
CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY 'slurm-ci';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';
FLUSH PRIVILEGES;
SQL

mkdir -p /etc/slurm
cat > /etc/slurm/slurmdbd.conf <<CONF
AuthType=auth/munge
DbdAddr=127.0.0.1
DbdHost=localhost
SlurmUser=root
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=3307
StorageUser=slurm
StoragePass=slurm-ci
StorageLoc=slurm_acct_db
PidFile=$S/run/slurmdbd.pid
LogFile=$S/log/slurmdbd.log
CONF
chmod 600 /etc/slurm/slurmdbd.conf

mem=$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
cat > /etc/slurm/slurm.conf <<CONF
ClusterName=ci
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/run/slurmctld.pid
SlurmdPidFile=$S/run/slurmd.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1,sched_min_interval=0,batch_sched_delay=0
ReturnToService=2
MailProg=/bin/true
MpiDefault=none
GresTypes=gpu
SlurmdParameters=config_overrides
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStorageTRES=gres/gpu
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=8 RealMemory=$mem Gres=gpu:fake:2 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
cat > /etc/slurm/gres.conf <<CONF
NodeName=$host Name=gpu Type=fake File=$S/fakegpu/fakegpu[0-1]
CONF

[ -f "$S/run/slurmdbd.pid" ] && kill -0 "$(cat "$S/run/slurmdbd.pid")" 2>/dev/null || slurmdbd
wait_for 30 slurmdbd sacctmgr -n list cluster
sacctmgr -i -n list cluster format=cluster | grep -qw ci || sacctmgr -i add cluster ci >/dev/null
[ -f "$S/run/slurmctld.pid" ] && kill -0 "$(cat "$S/run/slurmctld.pid")" 2>/dev/null || slurmctld
[ -f "$S/run/slurmd.pid" ] && kill -0 "$(cat "$S/run/slurmd.pid")" 2>/dev/null || slurmd
wait_for 60 "node idle" bash -c '[ "$(sinfo -h -o %T | head -1)" = idle ]'
echo "slurm ready on $host: $(sinfo -h -o '%P %D %T %G')"
