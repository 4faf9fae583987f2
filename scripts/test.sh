#!/usr/bin/env bash
# Set everything up, lint, type-check and check the import layers, then run the test suite (CI runs exactly
# this). `bash scripts/test.sh -m "not slow"` (or `--fast`) runs only the fast tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$PWD/.venv/bin:$PATH" TORCHINDUCTOR_CACHE_DIR="${TORCHINDUCTOR_CACHE_DIR:-$PWD/.cache/inductor}"
ruff check autograder tests benchmarks
mypy
lint-imports --no-cache  # the layer contracts in pyproject.toml
if [ "${1:-}" = "--fast" ]; then
  shift
  set -- -m "not slow" "$@"
fi
# two workers, each test file on one of them (module fixtures run once; Slurm and PostgreSQL each live in
# one file): most tests wait on kernels and nbgrader subprocesses, so two cores keep busy. PYTEST_WORKERS=0
# runs everything in this process.
exec python -m pytest -p no:cacheprovider -n "${PYTEST_WORKERS:-4}" --dist loadfile --no-loadscope-reorder "$@"
