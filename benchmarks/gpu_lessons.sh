#!/usr/bin/env bash
# GPU session for the lessons written in issue 9: each lesson's reference as 3 fresh processes, merged and
# fairness-checked (`autograder bench LESSON --processes 3`), each process's run kept, a sweep plot.
# Everything lands in one archive (the device tool returns few files).
# Usage on the device machine (repo root, wheels in .whl/):  bash benchmarks/gpu_lessons.sh "$OUT" 03_roofline 05_softmax
out=${1:?usage: gpu_lessons.sh OUTDIR LESSON...}
shift
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 COLUMNS=200 TORCHINDUCTOR_CACHE_DIR=/tmp/inductor
work=$(mktemp -d)
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.max.mem,power.limit --format=csv
  lscpu | grep -E "Model name|^CPU\(s\)"
  python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__, "cuda", torch.version.cuda)'
  for lesson in "$@"; do
    echo "=== $lesson"
    mkdir -p "$work/runs/$lesson"
    /usr/bin/time -f "$lesson bench: %e s wall (3 processes, imports included)" \
      timeout "${LESSON_TIMEOUT:-290}" python3 -m autograder bench "$lesson" --processes 3 --out "$work/refs" \
        --keep-runs "$work/runs/$lesson" --plot "$work/sweep-$lesson.png"
    echo "$lesson bench exit: $?"
  done
} 2>&1 | tee "$out/log.txt"
tar -C "$work" -czf "$out/gpu_lessons.tar.gz" .
