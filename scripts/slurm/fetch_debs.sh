#!/usr/bin/env bash
# Download (not install) Debian 12's Slurm, munge and bubblewrap packages and the libraries they need into
# .debs/ (git-ignored), for scripts/slurm/start_gpu_node.sh on a GPU node that has no package index.
# About 5.4 MB. Run where apt works (this project's CI machine, any Debian 12).
set -euo pipefail
cd "$(dirname "$0")/../.."
grep -qxF '/.debs/' .git/info/exclude 2>/dev/null || echo '/.debs/' >> .git/info/exclude
mkdir -p .debs && cd .debs
apt-get download slurmctld slurmd slurm-client slurm-wlm-basic-plugins munge libmunge2 libslurm38 libjson-c5 \
  liblua5.1-0 libyaml-0-2 libbz2-1.0 libdbus-1-3 libhwloc15 libnuma1 libpmix2 libevent-core-2.1-7 \
  libevent-pthreads-2.1-7 bubblewrap libcap2 2>/dev/null
ls *.deb | wc -l | xargs echo "packages in .debs:"
