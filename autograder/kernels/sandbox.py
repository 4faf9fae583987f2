"""How the child of one submission is started: its command line (bubblewrap or not), environment, limits.

The layout is the notebook sandbox's (:func:`autograder.isolation.sandbox_layout`): the system's
libraries and the Python environment read-only, a private tmpfs ``/tmp``, no network, its own PID namespace,
the NVIDIA device nodes only for a CUDA task, an allow-listed environment.  The notebook folder it shows is
an empty one: the workload's source reaches the child over its stdin, so no course file is in the sandbox.
The one writable folder from outside is the submission's scratch (where the outputs are saved), bound at
its own path.  As root the child drops with setpriv to a user of its own, one no other process runs as
(RLIMIT_NPROC never binds root, and it counts a user's threads machine-wide: children of a pool that all ran
as ``nobody`` took each other's room, and on a 16-core GPU host torch's threads ran out of it; a user of its
own also cannot signal another submission's child).
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import resource
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..isolation import bwrap_available, python_roots, sandbox_env, sandbox_layout

__all__ = ["CHILD_PACKAGES", "NOBODY", "UID_BASE", "ChildSpec", "child_spec", "child_sys_path", "fresh_uid",
           "limit_setter", "processes_of"]

NOBODY = 65534
#: the children's users: UID_BASE + 8 · (the spawning process's PID) + a slot (a grader keeps at most two
#: children alive: the one running and the one started ahead), none of them in /etc/passwd
UID_BASE = 1_000_000
_SLOTS = 8
_next_slot = itertools.count()
#: what the child imports beyond torch on CUDA (bench's L2 flush and its records): shown read-only where
#: this process found them, which an install by ``pip --target`` on PYTHONPATH (ignored by ``python -I``)
#: needs
CHILD_PACKAGES = ("autograder", "pydantic", "pydantic_core", "typing_extensions", "annotated_types",
                  "typing_inspection")
#: processes a submission may add to what its user already runs (torch.compile's workers fit)
PROCESS_HEADROOM = 64


@dataclass(frozen=True)
class ChildSpec:
    argv: list[str]
    env: dict[str, str]
    isolated: bool
    uid: int | None  # the user the child runs as when it drops root


def processes_of(uid: int) -> int:
    """How many tasks (threads included) ``uid`` runs now: RLIMIT_NPROC counts them all, machine-wide."""
    n = 0
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                if os.stat(f"/proc/{p}").st_uid == uid:
                    n += len(os.listdir(f"/proc/{p}/task"))
            except OSError:
                continue
    return n


def fresh_uid() -> int:
    """A user for the next child that no process runs as now (:data:`UID_BASE`)."""
    base = UID_BASE + _SLOTS * (os.getpid() % (1 << 22))
    for _ in range(_SLOTS):
        uid = base + next(_next_slot) % _SLOTS
        if processes_of(uid) == 0:
            return uid
    raise RuntimeError(f"no free user among {base}..{base + _SLOTS - 1} for a kernel's sandbox")


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


def _package_paths() -> list[Path]:
    """Where this process imports :data:`CHILD_PACKAGES` from (a package's folder, or a module's file)."""
    out: list[Path] = []
    for name in CHILD_PACKAGES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is None:
            continue
        if spec.submodule_search_locations:
            out += [Path(p).resolve() for p in spec.submodule_search_locations]
        elif spec.origin and os.path.isfile(spec.origin):
            out.append(Path(spec.origin).resolve())
    return out


def child_sys_path() -> list[str]:
    """The folders holding :data:`CHILD_PACKAGES`, for the child's ``sys.path``."""
    return list(dict.fromkeys(str(p.parent) for p in _package_paths()))


def _libcuda_dir() -> str | None:
    """Where libcuda.so.1 lies: Triton otherwise runs /sbin/ldconfig to find it, which the sandbox lacks."""
    for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib/aarch64-linux-gnu", "/usr/lib/wsl/lib",
              "/usr/local/nvidia/lib64", "/usr/lib"):
        if os.path.exists(os.path.join(d, "libcuda.so.1")):
            return d
    return None


def _extra_env(device: str, home: str) -> dict[str, str]:
    env = {"TRITON_CACHE_DIR": f"{home}/triton", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONFAULTHANDLER": "1"}
    if device == "cpu":
        env["TRITON_INTERPRET"] = "1"  # a Triton kernel runs on CPU tensors only through the interpreter
    elif (libcuda := os.environ.get("TRITON_LIBCUDA_PATH") or _libcuda_dir()) is not None:
        env["TRITON_LIBCUDA_PATH"] = libcuda
    return env


def child_spec(child_source: str, fd: int, base: Path, device: str, *, isolate: bool,
               args: Sequence[str] = ()) -> ChildSpec:
    """The child's command and environment; ``base`` holds ``nb/`` (the empty notebook folder shown) and
    ``out/`` (the scratch, writable). ``args`` come before the message descriptor, which is the last one."""
    python_bin = os.path.dirname(sys.executable)
    py = [sys.executable, "-I", "-c", child_source, *args, str(fd)]
    root = os.geteuid() == 0
    if isolate and bwrap_available():
        drop: list[str] = []
        uid: int | None = None
        if root and shutil.which("setpriv"):
            uid = fresh_uid()
            drop = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
            for p in (base, base / "nb"):
                os.chmod(p, 0o755)
            os.chown(base / "out", uid, uid)
        layout = sandbox_layout(base / "nb", base / "out", python_roots(), as_root=bool(drop),
                                scratch_bytes=1 << 30, gpu=device == "cuda", extra_ro=_package_paths())
        env = sandbox_env(dict(os.environ), python_bin) | _extra_env(device, "/tmp")
        env.pop("PYTHONPATH", None)  # python -I ignores it; the task's sys_path says where the framework is
        return ChildSpec(layout.args + drop + py, env, True, uid)
    home = base / "home"
    home.mkdir(exist_ok=True)
    env = sandbox_env(dict(os.environ), python_bin) | _extra_env(device, str(home))
    env.pop("PYTHONPATH", None)
    env.update(HOME=str(home), TMPDIR=str(home), TORCHINDUCTOR_CACHE_DIR=str(home / "torchinductor"),
               MPLCONFIGDIR=str(home / "matplotlib"))
    return ChildSpec(py, env, False, None)
