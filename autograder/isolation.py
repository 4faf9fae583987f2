"""The bubblewrap layout a sandboxed Python runs in: what it sees, which environment, and how a failure to
start reads. Shared by the notebook sandbox (:mod:`autograder.preprocessors.sandbox`, the grading kernel
of ``nbgrader autograde``) and the students' kernels (:mod:`autograder.kernels`): pure functions over paths
and the environment, no Jupyter. The layout is described in the notebook sandbox's module docstring.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

import autograder

__all__ = [
    "ENV_ALLOW",
    "NOTEBOOK_MOUNT",
    "SandboxLayout",
    "bwrap_available",
    "python_roots",
    "readable",
    "sandbox_env",
    "sandbox_layout",
    "start_failure_line",
]

NOTEBOOK_MOUNT = "/tmp/.notebook"
#: the system's programs and libraries (read-only, where they exist)
SYSTEM_DIRS = ("/usr/bin", "/usr/lib", "/usr/lib32", "/usr/lib64", "/usr/libexec", "/usr/include",
               "/usr/share/zoneinfo")
TOP_DIRS = ("/bin", "/lib", "/lib32", "/lib64")  # links into /usr on a merged-/usr system, else bound
ETC_FILES = ("/etc/ld.so.cache", "/etc/localtime")
GPU_SYS = ("/sys/devices", "/sys/bus/pci", "/sys/module/nvidia")
#: variables the kernel keeps from the grader's environment; every other one is dropped
ENV_ALLOW = ("LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_NUMERIC", "TZ", "TERM", "NBGRADER_EXECUTION",
             "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "NVIDIA_VISIBLE_DEVICES", "OMP_NUM_THREADS",
             "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
ENV_ALLOW_PREFIXES = ("PYTHON",)


def bwrap_available() -> bool:
    return shutil.which("bwrap") is not None


def python_roots() -> list[Path]:
    """The folders the kernel's Python needs: the environment's prefixes (a venv, its base interpreter, a
    conda env), each also by its real path, any other site-packages on ``sys.path``, and the autograder
    package (an editable install lives in a clone). Wherever they are: ``/tmp``, ``/home``, ``/root``,
    ``/opt``."""
    out: list[Path] = []
    # site-packages on sys.path beyond the prefixes: an environment layered on another (a .pth, PYTHONPATH)
    layered = [p for p in sys.path if p and os.path.basename(p.rstrip("/")) in ("site-packages", "dist-packages")]
    for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
              os.path.dirname(os.path.dirname(sys.executable)), os.path.dirname(autograder.__file__), *layered):
        for q in (Path(os.path.abspath(p)), Path(os.path.realpath(p))):
            if q not in out and q != Path("/") and q.is_dir():
                out.append(q)
    return out


def sandbox_env(source: dict[str, str], python_bin: str) -> dict[str, str]:
    """The kernel's environment: the allow-listed variables of ``source`` (the grader's) and fixed ones."""
    env = {k: v for k, v in source.items() if k in ENV_ALLOW or k.startswith(ENV_ALLOW_PREFIXES)}
    env.pop("PYTHONSTARTUP", None)
    env.update({
        "HOME": "/tmp", "TMPDIR": "/tmp", "USER": "student", "LOGNAME": "student",
        "PATH": os.pathsep.join(dict.fromkeys([python_bin, "/usr/local/bin", "/usr/bin", "/bin"])),
        "TORCHINDUCTOR_CACHE_DIR": "/tmp/torchinductor", "MPLCONFIGDIR": "/tmp/matplotlib",
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
    })
    env.setdefault("LANG", "C.UTF-8")
    return env


@dataclass
class SandboxLayout:
    """The bwrap arguments of one kernel and what its audit hook is told about them."""

    args: list[str]
    visible: list[str] = field(default_factory=list)  # every path the kernel can see (read at least)


def _covered(p: Path, roots: list[Path]) -> bool:
    return any(p == r or p.is_relative_to(r) for r in roots)


def sandbox_layout(
    folder: Path,
    runtime: Path,
    python: list[Path],
    *,
    as_root: bool,
    scratch_bytes: int,
    gpu: bool = False,
    extra_ro: list[Path] | None = None,
) -> SandboxLayout:
    """The bwrap prefix for a kernel whose notebook lies in ``folder`` (see the module docstring).

    ``as_root``: the grader is root and the kernel command drops to another user inside (setpriv), so no
    user namespace is made (it would map only root, and the drop would fail)."""
    namespaces = (
        ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
        if as_root
        else ["--unshare-all"]
    )
    a = [shutil.which("bwrap") or "bwrap", "--die-with-parent", "--new-session", *namespaces]
    made: set[str] = set()

    def parents(p: Path) -> None:  # traversable mount points for a user other than root
        for parent in reversed(p.parents):
            if str(parent) != "/" and str(parent) not in made:
                made.add(str(parent))
                a.extend(["--perms", "0755", "--dir", str(parent)])

    visible: list[str] = []
    bound: list[Path] = []

    def ro(p: Path, dest: Path | None = None, dev: bool = False) -> None:
        d = dest or p
        if _covered(d, bound):
            return
        parents(d)
        a.extend(["--dev-bind" if dev else "--ro-bind", str(p), str(d)])
        bound.append(d)
        visible.append(str(d))

    usr_merged = all(os.path.islink(t) or not os.path.exists(t) for t in TOP_DIRS)
    system = [Path(p) for p in SYSTEM_DIRS if os.path.isdir(p)]
    for p in system:
        ro(p)
    for t in TOP_DIRS:
        if os.path.islink(t) and usr_merged:
            a.extend(["--symlink", os.readlink(t), t])
            visible.append(t)
        elif os.path.isdir(t):
            ro(Path(t))
    for f in ETC_FILES:
        if os.path.exists(f):
            ro(Path(f))
    a.extend(["--dev", "/dev", "--proc", "/proc"])
    visible += ["/dev", "/proc"]
    if os.path.isdir("/sys/devices/system/cpu"):
        ro(Path("/sys/devices/system/cpu"))
    if gpu:
        for node in sorted(Path("/dev").glob("nvidia*")):
            a.extend(["--dev-bind", str(node), str(node)])
            visible.append(str(node))
        for s in GPU_SYS:
            if os.path.isdir(s):
                ro(Path(s))
    # the private /tmp, with the notebook's folder in it: one budget for everything the kernel writes
    a.extend(["--size", str(scratch_bytes), "--perms", "1777", "--tmpfs", "/tmp"])
    made.add("/tmp")
    for p in sorted({*python, *(extra_ro or [])}, key=lambda q: len(q.parts)):
        ro(p)
    a.extend(["--perms", "1777", "--dir", NOTEBOOK_MOUNT])
    made.add(NOTEBOOK_MOUNT)
    for entry in sorted(folder.iterdir()):
        if entry.is_symlink() or not (entry.is_file() or entry.is_dir()):
            continue  # nbgrader copied plain files; a link or a FIFO is not shown
        dest = Path(NOTEBOOK_MOUNT, entry.name)
        a.extend(["--ro-bind", str(entry), str(dest)])
    parents(folder)
    a.extend(["--symlink", NOTEBOOK_MOUNT, str(folder)])
    parents(runtime)
    a.extend(["--bind", str(runtime), str(runtime)])
    visible += ["/tmp", str(folder), str(runtime)]
    # nothing else is writable: the root the mounts sit on is read-only too
    # JPY_PARENT_PID names the grader outside the PID namespace: ipykernel would think its parent died
    a.extend(["--remount-ro", "/", "--unsetenv", "JPY_PARENT_PID", "--chdir", str(folder), "--"])
    return SandboxLayout(a, visible)


def readable(folder: Path) -> None:
    """The notebook folder's files, readable by the kernel's user (nbgrader's copies are the grader's; the
    grading context is written 0600): they are bound read-only into the sandbox."""
    for dirpath, dirs, files in os.walk(folder):
        for name in dirs:
            p = os.path.join(dirpath, name)
            if not os.path.islink(p):
                os.chmod(p, os.stat(p).st_mode | 0o555)
        for name in files:
            p = os.path.join(dirpath, name)
            if not os.path.islink(p):
                os.chmod(p, os.stat(p).st_mode | 0o444)


def start_failure_line(stderr_tail: str, what: str = "the grading kernel") -> str:
    """One line for a kernel that did not start: bwrap's (or Python's) own last message, and what to do."""
    lines = [ln.strip() for ln in stderr_tail.splitlines() if ln.strip()]
    said = next((ln for ln in reversed(lines) if ln.startswith("bwrap:")), lines[-1] if lines else "")
    said = said[:300] or "it wrote nothing on stderr"
    hint = ""
    if "uid map" in said or "user namespace" in said.lower() or "Operation not permitted" in said:
        hint = (" — this machine does not let bwrap make namespaces: run the grader as root, or allow "
                "unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1)")
    elif "No such file" in said or "Can't find source path" in said:
        hint = " — a path the sandbox binds does not exist (c.LimitedExecute.sandbox_paths?)"
    return f"{what} could not start in the sandbox: {said}{hint}"
