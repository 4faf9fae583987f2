#!/usr/bin/env bash
# The GPU session of issue 10, as run on the lent H200 (see benchmarks/results/h200-2026-11-30-processes/):
# one `autograder bench 04_fusion --processes 3` (three fresh interpreters one after another, merged,
# fairness-checked: the fairness check is the target, its verdict is in the log), each process's own run kept.
# Usage on the device machine (repo root, wheels in .whl/):  bash benchmarks/gpu_reference.sh "$OUT"
out=${1:?usage: gpu_reference.sh OUTDIR}
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 COLUMNS=200
mkdir -p "$out/runs"
{
  nvidia-smi
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.max.mem,power.limit --format=csv
  lscpu | head -20
  python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__, "cuda", torch.version.cuda)'
  /usr/bin/time -f "bench: %e s wall (3 processes, imports included)" \
    python3 -m autograder bench 04_fusion --processes 3 --out "$out/refs" --keep-runs "$out/runs" --plot "$out/sweep.png"
  echo "bench exit: $?"
} > "$out/log.txt" 2>&1
tail -c 7000 "$out/log.txt"
