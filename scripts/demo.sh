#!/usr/bin/env bash
# Set everything up, then run the main job on built-in defaults: measure the 04_fusion reference on the
# device present, release the assignment, generate a 40-student sample class, grade it, report.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$PWD/.venv/bin:$PATH" TORCHINDUCTOR_CACHE_DIR="${TORCHINDUCTOR_CACHE_DIR:-$PWD/.cache/inductor}"
exec autograder demo "$@"
