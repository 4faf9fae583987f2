#!/usr/bin/env bash
# Create .venv and install the project with its dev tools. Idempotent: a second run is quick.
# torch is pinned to 2.13.0 first (on this project's CI machines that is a CPU build on local disk;
# override with TORCH_SPEC, e.g. TORCH_SPEC="torch" on a GPU node with its own index).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.installed-$(sha256sum pyproject.toml | cut -c1-16)
if [ ! -f "$stamp" ]; then
  .venv/bin/python -m pip install -q --upgrade pip 2>&1 | grep -v "is ignored" || true
  .venv/bin/python -m pip install -q "${TORCH_SPEC:-torch==2.13.0}" numpy 2>&1 | grep -v "is ignored" || true
  .venv/bin/python -m pip install -q -e ".[dev,slurm]" 2>&1 | grep -v "is ignored" || true
  .venv/bin/python -c "import torch, nbgrader, pydantic, autograder" || { echo "setup failed"; exit 1; }
  touch "$stamp"
fi
# jsonschema (under nbformat: every nbgrader and Jupyter process) imports rfc3987_syntax, when installed, for
# its "iri" string format, and that import compiles a grammar: ~2 s of CPU on every start. No schema in this
# environment uses that format (nbformat's, nbgrader's, Jupyter's events); the autograder CLI already goes
# without it in its own process (autograder/cli/__init__.py). This startup line does the same for the others.
site=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
printf '%s\n' "import sys; sys.modules.setdefault('rfc3987_syntax', None)  # scripts/setup.sh: see there" \
  > "$site/autograder_no_rfc3987.pth"
echo "environment ready: $(.venv/bin/python -c 'import torch, nbgrader; print("torch", torch.__version__, "| nbgrader", nbgrader.__version__)')"
