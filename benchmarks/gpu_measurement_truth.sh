#!/usr/bin/env bash
# Issue "the answer key is what the student measures", on one GPU lease, in two calls of the device tool:
#   bash benchmarks/gpu_measurement_truth.sh bench OUTDIR        every lesson's reference, 3 fresh processes
#   bash benchmarks/gpu_measurement_truth.sh notebooks OUTDIR RUNS_DIR
#        each released notebook run twice as a student, compared with the bench processes kept in RUNS_DIR
#        (benchmarks/notebook_vs_bench.py), then the steady-clock check (benchmarks/gpu_steady_check.py)
# On the device machine, repo root, wheels in .whl/ (pydantic, nbformat, nbclient, ipykernel, nbgrader).
set -u
phase=${1:?bench|notebooks}; out=${2:?OUTDIR}
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1 COLUMNS=200 TORCHINDUCTOR_CACHE_DIR=/tmp/inductor
work=$(mktemp -d)
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.max.mem,power.limit --format=csv
  lscpu | grep -E "Model name|^CPU\(s\)"
  python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__, "cuda", torch.version.cuda)'
  if [ "$phase" = bench ]; then
    for lesson in 03_roofline 04_fusion 05_softmax; do
      echo "=== $lesson"
      mkdir -p "$work/runs/$lesson"
      /usr/bin/time -f "$lesson bench: %e s wall (3 processes)" timeout 200 python3 -m autograder bench "$lesson" \
        --processes 3 --out "$work/refs" --keep-runs "$work/runs/$lesson" --plot "$work/sweep-$lesson.png"
      echo "$lesson bench exit: $?"
    done
  else
    runs=${3:?RUNS_DIR}
    timeout 420 python3 benchmarks/notebook_vs_bench.py "$work/nvb" --runs 2 --bench-runs "$runs"
    echo "notebook_vs_bench exit: $?"
    timeout 150 python3 benchmarks/gpu_steady_check.py "$work/steady"
    echo "steady check exit: $?"
  fi
} 2>&1 | tee "$work/log-$phase.txt"
tar -C "$work" -czf "$out/gpu-$phase.tar.gz" .
