#!/usr/bin/env bash
# Start a real single-node Slurm on a GPU machine that has neither Slurm nor a package index (the lent
# H200s): Debian 12's packages, fetched beforehand on a machine that has apt (scripts/slurm/fetch_debs.sh,
# into .debs/), are unpacked into a prefix (never into /), munged, slurmctld and slurmd start by hand, and
# every /dev/nvidiaN of the node is a gres (Gres=gpu:N, one File= each), so `--gres=gpu:1` gives each task
# its own GPU. bubblewrap is unpacked too (the grading sandbox). No accounting (no MariaDB on such a node).
#
#   bash scripts/slurm/start_gpu_node.sh [DEBS_DIR]     # as root; then: source "$SLURM_SCRATCH/env.sh"
#   SLURM_SCRATCH=... bash scripts/slurm/stop.sh        # stop by PID
#
# Pitfalls it handles: the daemons must run under the names slurmctld/slurmd/slurmstepd (Debian ships
# *-wlm; under those names the node registers Gres=(null)); libslurmfull looks for /usr/sbin/slurmstepd;
# sonames the image lacks are linked into one folder put first on LD_LIBRARY_PATH; cgroup v2 without
# delegated controllers or dbus needs IgnoreSystemd and no Constrain*.
set -euo pipefail
debs=$(realpath "${1:-.debs}")
P=${SLURM_PREFIX:-/opt/slurm}
S=${SLURM_SCRATCH:-/tmp/gpu-lessons-slurm}
host=$(hostname -s)
mkdir -p "$P" "$S"/{state,spool,log,run,lib,etc}
ls "$debs"/*.deb >/dev/null 2>&1 || { echo "start_gpu_node: no .deb files in $debs (run scripts/slurm/fetch_debs.sh where apt works)" >&2; exit 2; }
for d in "$debs"/*.deb; do dpkg -x "$d" "$P"; done

# link only the shared objects the system does not have
known=$(ldconfig -p | awk '{print $1}')
for f in $(find "$P/usr/lib" "$P/lib" -maxdepth 2 -name '*.so.*' 2>/dev/null); do
  so=$(basename "$f")
  soname=$(echo "$so" | sed -E 's/(\.so\.[0-9]+).*/\1/')
  grep -qxF "$soname" <<<"$known" || ln -sf "$f" "$S/lib/$soname"
done
plugins="$P/usr/lib/x86_64-linux-gnu/slurm-wlm"
export LD_LIBRARY_PATH="$S/lib:$plugins${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
for d in slurmctld slurmd slurmstepd; do ln -sf "$P/usr/sbin/$d-wlm" "$P/usr/sbin/$d"; done
[ -e /usr/sbin/slurmstepd ] || ln -s "$P/usr/sbin/slurmstepd" /usr/sbin/slurmstepd
export PATH="$P/usr/bin:$P/usr/sbin:$PATH"

# munge with a fresh key
install -d /run/munge "$S/munge"
[ -f "$S/munge/munge.key" ] || { dd if=/dev/urandom bs=1 count=1024 of="$S/munge/munge.key" 2>/dev/null; chmod 400 "$S/munge/munge.key"; }
if ! (munge -n -S /run/munge/munge.socket.2 | unmunge -S /run/munge/munge.socket.2) >/dev/null 2>&1; then
  munged --force --key-file="$S/munge/munge.key" --socket=/run/munge/munge.socket.2 \
    --pid-file="$S/run/munged.pid" --log-file="$S/log/munged.log" --seed-file="$S/munge/seed"
fi

gpus=$(ls /dev/nvidia[0-9]* 2>/dev/null | sort -V || true)
n=$(echo "$gpus" | grep -c . || true)
cpus=$(nproc)
mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 * 9 / 10 ))
mkdir -p /etc/slurm /sys/fs/cgroup/system.slice 2>/dev/null || true
if [ -f /sys/fs/cgroup/cgroup.controllers ]; then  # pure cgroup v2 (the GPU VMs); hybrid hosts: Slurm's default
  cat > /etc/slurm/cgroup.conf <<CONF
CgroupPlugin=cgroup/v2
IgnoreSystemd=yes
ConstrainDevices=no
ConstrainCores=no
ConstrainRAMSpace=no
CONF
else
  rm -f /etc/slurm/cgroup.conf
fi
: > /etc/slurm/gres.conf
for g in $gpus; do echo "NodeName=$host Name=gpu File=$g" >> /etc/slurm/gres.conf; done
cat > /etc/slurm/slurm.conf <<CONF
ClusterName=gpu
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmctldPort=${SLURMCTLD_PORT:-6817}
SlurmdPort=${SLURMD_PORT:-6818}
AuthType=auth/munge
CredType=cred/munge
PluginDir=$plugins
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/run/slurmctld.pid
SlurmdPidFile=$S/run/slurmd.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1,sched_min_interval=0,batch_sched_delay=0
ReturnToService=2
MailProg=/bin/true
MpiDefault=none
GresTypes=gpu
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem $([ "$n" -gt 0 ] && echo "Gres=gpu:$n") State=UNKNOWN
PartitionName=gpu Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF

[ -f "$S/run/slurmctld.pid" ] && kill -0 "$(cat "$S/run/slurmctld.pid")" 2>/dev/null || "$P/usr/sbin/slurmctld"
[ -f "$S/run/slurmd.pid" ] && kill -0 "$(cat "$S/run/slurmd.pid")" 2>/dev/null || "$P/usr/sbin/slurmd"
for _ in $(seq 300); do
  [ "$(sinfo -h -o %T 2>/dev/null | head -1)" = idle ] && break
  sleep 0.1
done
state=$(sinfo -h -o "%T %G" 2>/dev/null | head -1)
cat > "$S/env.sh" <<ENV
export PATH="$P/usr/bin:$P/usr/sbin:\$PATH"
export LD_LIBRARY_PATH="$S/lib:$plugins\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
export SLURM_SCRATCH="$S"
ENV
echo "slurm on $host: $state ($n GPU(s) as gres; env: source $S/env.sh)"
case "$state" in idle*) ;; *) tail -n 20 "$S"/log/*.log >&2; exit 1 ;; esac
