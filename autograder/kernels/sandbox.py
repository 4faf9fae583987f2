"""How the child of one submission is started: its command line (bubblewrap or not), environment, limits.

The layout is the notebook sandbox's (:func:`autograder.preprocessors.sandbox.sandbox_layout`): the system's
libraries and the Python environment read-only, a private tmpfs ``/tmp``, no network, its own PID namespace,
the NVIDIA device nodes only for a CUDA task, an allow-listed environment.  The notebook folder it shows is
an empty one: the workload's source reaches the child over its stdin, so no course file is in the sandbox.
The one writable folder from outside is the submission's scratch (where the outputs are saved), bound at
its own path.  As root the child drops to ``nobody`` with setpriv (RLIMIT_NPROC never binds root).
"""

from __future__ import annotations

import os
import resource
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..preprocessors.sandbox import bwrap_available, python_roots, sandbox_env, sandbox_layout

__all__ = ["NOBODY", "ChildSpec", "child_spec", "limit_setter", "processes_of"]

NOBODY = 65534
#: processes a submission may add to what its user already runs (torch.compile's workers fit)
PROCESS_HEADROOM = 64


@dataclass(frozen=True)
class ChildSpec:
    argv: list[str]
    env: dict[str, str]
    isolated: bool
    uid: int | None  # the user the child runs as when it drops root


def processes_of(uid: int) -> int:
    """How many processes ``uid`` runs now (RLIMIT_NPROC counts them all, machine-wide)."""
    n = 0
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                if os.stat(f"/proc/{p}").st_uid == uid:
                    n += 1
            except OSError:
                continue
    return n


def limit_setter(memory_mb: int, cpu_s: int, file_mb: int, uid: int, cuda: bool) -> Callable[[], None]:
    """The Popen ``preexec_fn``: rlimits inherited by bwrap and everything inside. Memory is RLIMIT_AS on
    a CPU (it bounds every allocation) and RLIMIT_DATA with CUDA (the driver reserves address space far
    beyond what it uses, so RLIMIT_AS would stop CUDA itself)."""
    nproc = processes_of(uid) + PROCESS_HEADROOM

    def apply() -> None:
        mem = memory_mb << 20
        resource.setrlimit(resource.RLIMIT_DATA if cuda else resource.RLIMIT_AS, (mem, mem))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 5))
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_mb << 20, file_mb << 20))
        resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


def _extra_env(device: str, home: str) -> dict[str, str]:
    env = {"TRITON_CACHE_DIR": f"{home}/triton", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONFAULTHANDLER": "1"}
    if device == "cpu":
        env["TRITON_INTERPRET"] = "1"  # a Triton kernel runs on CPU tensors only through the interpreter
    return env


def child_spec(child_source: str, fd: int, base: Path, device: str, *, isolate: bool) -> ChildSpec:
    """The child's command and environment; ``base`` holds ``nb/`` (the empty notebook folder shown) and
    ``out/`` (the scratch, writable)."""
    python_bin = os.path.dirname(sys.executable)
    py = [sys.executable, "-I", "-c", child_source, str(fd)]
    root = os.geteuid() == 0
    if isolate and bwrap_available():
        drop: list[str] = []
        uid: int | None = None
        if root and shutil.which("setpriv"):
            uid = NOBODY
            drop = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
            for p in (base, base / "nb"):
                os.chmod(p, 0o755)
            os.chown(base / "out", uid, uid)
        layout = sandbox_layout(base / "nb", base / "out", python_roots(), as_root=bool(drop),
                                scratch_bytes=1 << 30, gpu=device == "cuda")
        env = sandbox_env(dict(os.environ), python_bin) | _extra_env(device, "/tmp")
        return ChildSpec(layout.args + drop + py, env, True, uid)
    home = base / "home"
    home.mkdir(exist_ok=True)
    env = sandbox_env(dict(os.environ), python_bin) | _extra_env(device, str(home))
    env.update(HOME=str(home), TMPDIR=str(home), TORCHINDUCTOR_CACHE_DIR=str(home / "torchinductor"),
               MPLCONFIGDIR=str(home / "matplotlib"))
    return ChildSpec(py, env, False, None)
