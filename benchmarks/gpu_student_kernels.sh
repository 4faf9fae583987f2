#!/usr/bin/env bash
# Students' own kernels on the GPU node (issue 22): a class of lesson 06 graded under a real Slurm whose
# node's GPU is a gres, next to a local run; then the hostile-kernel suite on CUDA and the throughput.
#   [REFERENCE=FILE] [KERNELS_N=16] [KERNELS_RUNS=cold,warm,pool] [SKIP_KERNELS=1] [SHARD_SIZE=4] [COPIES=0] [ALL_HOSTILE=1] \
#     bash benchmarks/gpu_student_kernels.sh OUTDIR [STUDENTS]
# On the device machine, repo root, with .whl/ (the Python wheels, scripts of ../device) and .debs/
# (scripts/slurm/fetch_debs.sh: Slurm, munge, bubblewrap). Everything lands in OUTDIR/student-kernels.tar.gz.
set -u
out=${1:?OUTDIR}; students=${2:-28}
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1 COLUMNS=160 TORCHINDUCTOR_CACHE_DIR=/tmp/inductor
# the Slurm executor needs submitit (the project's `slurm` extra): say so before a device minute is spent
python3 -c 'import submitit' 2>/dev/null || { echo "no submitit among the wheels in .whl/: add it (pip download --no-deps submitit cloudpickle -d .whl)"; exit 1; }
work=$(mktemp -d)
save() { tar -C "$work" -czf "$out/student-kernels.tar.gz" .; }
{
  date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
  lscpu | grep -E "Model name|^CPU\(s\)"
  # bubblewrap for the kernels' sandbox (the image has none)
  if ! command -v bwrap >/dev/null 2>&1; then
    for d in .debs/bubblewrap_*.deb .debs/libcap2_*.deb; do dpkg -x "$d" /opt/bwrap; done
    find /opt/bwrap -name 'libcap.so*' -printf '%h\n' | sort -u > /etc/ld.so.conf.d/zz-bwrap.conf && ldconfig
    export PATH=/opt/bwrap/usr/bin:$PATH
  fi
  echo "bwrap: $(command -v bwrap)"
  echo "=== slurm"
  SLURM_SCRATCH=$work/slurm bash scripts/slurm/start_gpu_node.sh .debs && source "$work/slurm/env.sh"
  srun --gres=gpu:1 nvidia-smi -L
  echo "=== hostile suite (cuda) and throughput"
  if [ -z "${SKIP_KERNELS:-}" ]; then  # SKIP_KERNELS=1: the class only
    KERNELS_N=${KERNELS_N:-16} KERNELS_RUNS=${KERNELS_RUNS:-cold,warm,pool} timeout ${KERNELS_TIMEOUT:-240} bash benchmarks/gpu_kernels_check.sh "$work/kernels"
    echo "kernels exit: $?"
  fi
  save
  echo "=== class of $students under slurm vs local"
  /usr/bin/time -f "class: %e s" timeout ${CLASS_TIMEOUT:-330} python3 benchmarks/kernel_class.py "$work/class" --students "$students" \
    --device cuda --executor slurm --shard-size ${SHARD_SIZE:-4} --copies ${COPIES:-0} ${ALL_HOSTILE:+--all-hostile} ${REFERENCE:+--reference "$REFERENCE"} 2>&1 | grep -v "sacct\|accounting storage"
  echo "class exit: ${PIPESTATUS[0]}"
  cp -r "$work/class/course/references/06_fused_kernel" "$work/references-06" 2>/dev/null
  save
  SLURM_SCRATCH=$work/slurm bash scripts/slurm/stop.sh
  date -u
} 2>&1 | tee "$work/log.txt"
rm -rf "$work/class/course-local/submitted" "$work/class/course/submitted"  # the class is regenerated from its seed
save
