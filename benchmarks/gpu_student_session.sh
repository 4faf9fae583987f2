#!/usr/bin/env bash
# The second GPU session (see benchmarks/results/h200-2026-11-29/README.md): the student notebook executed
# on the GPU through a real kernel, then `autograder demo` (bench on the GPU, sample class, grade, report).
# Usage on the device machine (repo root, wheels in .whl/):  bash benchmarks/gpu_student_session.sh "$OUT"
out=${1:?usage: gpu_student_session.sh OUTDIR}
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1 COLUMNS=160
python3 benchmarks/gpu_student_run.py "$out" > "$out/student_run.log" 2>&1; echo "student run rc=$?" >> "$out/student_run.log"
python3 -m autograder demo --out /tmp/demo > "$out/demo.log" 2>&1; echo "demo rc=$?" >> "$out/demo.log"
cp /tmp/demo/reports/04_fusion/calibration.png "$out/" 2>/dev/null
cp /tmp/demo/references/04_fusion/nvidia-h200.json "$out/demo_reference.json" 2>/dev/null
grep -v "^\[" "$out/student_run.log" | tail -n 60; tail -n 40 "$out/demo.log"
