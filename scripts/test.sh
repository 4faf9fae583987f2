#!/usr/bin/env bash
# Set everything up, lint and type-check, then run the whole test suite (CI runs exactly this).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$PWD/.venv/bin:$PATH" TORCHINDUCTOR_CACHE_DIR="${TORCHINDUCTOR_CACHE_DIR:-$PWD/.cache/inductor}"
ruff check autograder tests benchmarks
mypy
exec python -m pytest -p no:cacheprovider "$@"
