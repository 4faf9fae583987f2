#!/usr/bin/env bash
# Set everything up, lint, type-check and check the import layers, then run the test suite (CI runs exactly
# this). `bash scripts/test.sh -m "not slow"` (or `--fast`) runs only the fast tests.
set -euo pipefail
cd "$(dirname "$0")/.."
# each step's wall time on stderr (what CI time goes to before the tests)
step() { local t=$SECONDS; "$@"; echo "test.sh: $* took $((SECONDS - t)) s" >&2; }
step bash scripts/setup.sh
export PATH="$PWD/.venv/bin:$PATH" TORCHINDUCTOR_CACHE_DIR="${TORCHINDUCTOR_CACHE_DIR:-$PWD/.cache/inductor}"
step ruff check autograder tests benchmarks
step mypy
step lint-imports --no-cache  # the layer contracts in pyproject.toml
if [ "${1:-}" = "--fast" ]; then
  shift
  set -- -m "not slow" "$@"
fi
# four workers, each test file on one of them (module fixtures run once; Slurm and PostgreSQL each live in
# one file), on the 2-core CI machine: the long files mostly wait (a kernel past its deadline, a sandbox's
# time bound, Slurm's queue, a browser; tests/preprocessors/test_limited_execute.py alone: 146 s wall for
# 22 s of CPU), so two workers left the cores half idle. Files go out in collection order, which
# tests/conftest.py (LONG_FILES) starts with the longest ones. PYTEST_WORKERS=0 runs everything in this process.
exec python -m pytest -p no:cacheprovider -n "${PYTEST_WORKERS:-4}" --dist loadfile --no-loadscope-reorder "$@"
