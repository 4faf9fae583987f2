#!/usr/bin/env bash
# The students' kernels on the GPU (issue 22, items 3, 4, 6): the hostile-kernel suite with device=cuda, its
# verdicts, and the grading throughput on the GPU.  For the integrator, on the device machine (repo root):
#     bash benchmarks/gpu_kernels_check.sh OUTDIR
# Knobs: KERNELS_TESTS=0 (throughput only), KERNELS_TESTS_TIMEOUT (s, default 300), KERNELS_N (64; 0: the suite only),
# KERNELS_POOL (2), KERNELS_RUNS (cold,warm,pool).
# Optional: .whl/*.whl (the project's wheels and test tools, installed into /tmp/site as the other GPU
# sessions do) and .debs/*.deb (Debian 12's bubblewrap and libcap2: that machine has no bwrap; they are
# unpacked into /opt/bwrap and its library folder registered with ldconfig, since the sandbox's environment
# is allow-listed and keeps no LD_LIBRARY_PATH).
set -u
out=${1:?usage: gpu_kernels_check.sh OUTDIR}
mkdir -p "$out"
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
  export PYTHONPATH=/tmp/site:$PWD PATH=/tmp/site/bin:$PATH
fi
if ! command -v bwrap >/dev/null 2>&1 && ls .debs/*.deb >/dev/null 2>&1; then
  for d in .debs/*.deb; do dpkg -x "$d" /opt/bwrap; done
  find /opt/bwrap -name 'libcap.so*' -printf '%h\n' | sort -u > /etc/ld.so.conf.d/zz-bwrap.conf && ldconfig
  export PATH=/opt/bwrap/usr/bin:$PATH
fi
export PYTHONUNBUFFERED=1 KERNELS_DEVICE=cuda
{
  echo "bwrap: $(command -v bwrap || echo none); $(nvidia-smi -L 2>/dev/null | head -n 1)"
  python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, 'cuda', torch.cuda.is_available())"
} | tee "$out/kernels_env.txt"
if [ "${KERNELS_TESTS:-1}" != 0 ]; then  # KERNELS_TESTS=0: the throughput only
  timeout "${KERNELS_TESTS_TIMEOUT:-300}" python3 -m pytest -p no:cacheprovider -n 0 -v -s -rs --durations=15 tests/kernels > "$out/kernels_cuda.log" 2>&1
  echo "pytest tests/kernels (cuda) rc=$?" >> "$out/kernels_cuda.log"
fi
if [ "${KERNELS_N:-64}" != 0 ]; then  # KERNELS_N=0: the suite only
  python3 benchmarks/kernel_throughput.py --device cuda -n "${KERNELS_N:-64}" --pool "${KERNELS_POOL:-2}" --runs "${KERNELS_RUNS:-cold,warm,pool}" --out "$out/kernel-throughput-h200.txt" \
    > "$out/kernel_throughput.log" 2>&1
  echo "throughput rc=$?" >> "$out/kernel_throughput.log"
fi
[ -f "$out/kernels_cuda.log" ] && grep -E "^cuda |passed|failed|rc=" "$out/kernels_cuda.log" | tail -n 45
[ -f "$out/kernel_throughput.log" ] && tail -n 22 "$out/kernel_throughput.log"
