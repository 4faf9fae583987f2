#!/usr/bin/env bash
# The answer key is what the student measures, checked on one GPU lease (device tool calls of <= 10 min).
#   bash benchmarks/gpu_measurement_truth.sh OUTDIR STEP...
# STEP is one of
#   bench:LESSON[:N]   `autograder bench LESSON --processes N` (3), each process kept in runs/LESSON/
#   notebooks:LESSON[:N] the released notebook run N times (2) as a student (benchmarks/notebook_vs_bench.py),
#                      compared with the bench processes in runs/LESSON (this call's, or RUNS=DIR's)
#   steady             benchmarks/gpu_steady_check.py over every lesson's sweep
#   steady:LESSON      the same for one lesson (STEADY_TIMEOUT seconds, default 200): splits it across calls
# The new references land in OUTDIR's tarball under refs/ (stored, or as a candidate when a check fails).
# Everything lands in OUTDIR/gpu-truth.tar.gz. On the device machine, repo root, wheels in .whl/.
# The wheels: pydantic, nbformat, nbclient, ipykernel, nbconvert, nbgrader and their needs (rapidfuzz and
# sqlalchemy included: `import nbgrader`, which nbgrader_config.py does before every merge, imports both);
# jedi and parso can stay behind (IPython imports jedi only to complete), and so can nbgrader's docs/ and
# tests/ folders inside its wheel (9.7 MB): with them the tree overruns the device's 64 MiB.
set -u
out=${1:?OUTDIR}; shift
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1 COLUMNS=200 TORCHINDUCTOR_CACHE_DIR=/tmp/inductor
# WORK=DIR keeps the runs between device calls of one lease (the machine stays warm between calls); the
# stored references are copied in first, so that `autograder bench` checks its drift against them
work=${WORK:-$(mktemp -d)}
mkdir -p "$work/runs"
[ -d "$work/refs" ] || cp -r references "$work/refs"
[ -n "${RUNS:-}" ] && cp -r "$RUNS"/. "$work/runs/"
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.max.mem,power.limit --format=csv
  lscpu | grep -E "Model name|^CPU\(s\)"
  python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__, "cuda", torch.version.cuda)'
  for step in "$@"; do
    echo "=== $step"
    case "$step" in
      bench:*) lesson=${step#bench:}; n=3
        case "$lesson" in *:*) n=${lesson#*:}; lesson=${lesson%%:*} ;; esac
        rm -rf "$work/runs/$lesson"; mkdir -p "$work/runs/$lesson"
        /usr/bin/time -f "$lesson bench: %e s wall ($n processes)" timeout $((120 * n + 60)) python3 -m autograder bench \
          "$lesson" --processes "$n" --out "$work/refs" --keep-runs "$work/runs/$lesson" --plot "$work/sweep-$lesson.png"
        echo "$lesson bench exit: $?" ;;
      notebooks:*) lesson=${step#notebooks:}; n=2
        case "$lesson" in *:*) n=${lesson#*:}; lesson=${lesson%%:*} ;; esac
        timeout $((60 * n + 200)) python3 benchmarks/notebook_vs_bench.py "$work/nvb-$lesson" --runs "$n" \
          --lesson "$lesson" --bench-runs "$work/runs"
        echo "$lesson notebooks exit: $?" ;;
      steady) timeout 520 python3 benchmarks/gpu_steady_check.py "$work/steady"; echo "steady check exit: $?" ;;
      steady:*) lesson=${step#steady:}
        timeout ${STEADY_TIMEOUT:-200} python3 benchmarks/gpu_steady_check.py "$work/steady-$lesson" "$lesson"
        echo "$lesson steady check exit: $?" ;;
      *) echo "unknown step $step" ;;
    esac
    tar -C "$work" -czf "$out/gpu-truth.tar.gz" .  # after every step: a call cut short keeps what it did
  done
  date -u
} 2>&1 | grep --line-buffered -v "Online softmax\|split the reduction\|important use case\|softmax\.$\|warnings.warn\|^$" \
  | tee -a "$work/log.txt"
tar -C "$work" -czf "$out/gpu-truth.tar.gz" .
