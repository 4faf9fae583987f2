#!/usr/bin/env bash
# The GPU session of issue 3, as run on the lent H200 (see benchmarks/results/README.md):
# three back-to-back full reference runs, the sweep plot, the anchors comparison, the targets check.
# Usage on the device machine (repo root, wheels in .whl/):  bash benchmarks/gpu_reference.sh "$OUT"
out=${1:?usage: gpu_reference.sh OUTDIR}
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi; python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__, "cuda", torch.version.cuda)'
  for i in 1 2 3; do
    extra=""; [ "$i" = 1 ] && extra="--plot $out/sweep.png"
    /usr/bin/time -f "run $i: %e s wall (process, imports included)" python3 -m autograder bench 04_fusion --out "$out/run$i" $extra
  done
  python3 benchmarks/compare_anchors.py "$out/run1/04_fusion/"*.json --out "$out/anchors.json"
} > "$out/log.txt" 2>&1
python3 benchmarks/check_targets.py "$out"/run*/04_fusion/*.json > "$out/targets.txt" 2>&1
tail -c 6000 "$out/log.txt"; cat "$out/targets.txt"
