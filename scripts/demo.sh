#!/usr/bin/env bash
# Set everything up, then run the main job on built-in defaults: measure every lesson's reference on the
# device present, release them, generate a 40-student sample class, grade each against the best reference
# it has (the device of record's, else the one just measured), report the course.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$PWD/.venv/bin:$PATH" TORCHINDUCTOR_CACHE_DIR="${TORCHINDUCTOR_CACHE_DIR:-$PWD/.cache/inductor}"
exec autograder demo "$@"
