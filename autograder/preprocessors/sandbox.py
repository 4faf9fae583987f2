"""The grading kernel inside bubblewrap: a kernel manager for nbclient (LimitedExecute's kernel_manager_class).

Why bubblewrap, not a separate Unix user: it is a small, well-kept Debian package (``bubblewrap``) that
needs no account set up on each grading node, works as root or not, and gives what a user account cannot
-- a private view of the filesystem (the course folder replaced by an empty one, then only the notebook's
own folder put back), no network at all (a new network namespace: not even loopback to other services),
and its own PID namespace, killed with the grader. The kernel talks to nbclient over Unix sockets
(``transport = ipc``) in a private runtime folder bound into the sandbox, since TCP would need the network.

What the kernel sees: the whole system read-only (Python, the packages), ``/tmp`` and ``$HOME`` empty and
private, ``/root`` and ``/home`` hidden, the course root hidden except its own notebook folder (read-write:
nbgrader copied the lesson files there) and, read-only, the Python environment and the autograder package
when they live inside the course root. Time, memory, processes and file size are limited by rlimits
(LimitedExecute) that the sandbox inherits. A root grader also drops to ``nobody`` (util-linux ``setpriv``)
inside bwrap: Linux exempts root from RLIMIT_NPROC, even inside a user namespace, so without that a
fork bomb would not be bounded.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from jupyter_client.manager import AsyncKernelManager
from traitlets import Integer, Unicode

from ..errors import AutograderError

__all__ = ["SandboxedKernelManager", "bwrap_available", "bwrap_command"]


def bwrap_available() -> bool:
    return shutil.which("bwrap") is not None


def bwrap_command(folder: Path, runtime: Path, course_root: Path, keep: list[Path], as_root: bool = False) -> list[str]:
    """The bwrap prefix for a kernel whose notebook lies in ``folder`` (see the module docstring).

    ``as_root``: the grader is root and the kernel command drops to another user inside (setpriv), so no
    user namespace is made (it would map only root, and the drop would fail)."""
    namespaces = (
        ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
        if as_root
        else ["--unshare-all"]
    )
    cmd = [
        "bwrap", "--die-with-parent", "--new-session", *namespaces,
        "--ro-bind", "/", "/",
        "--dev", "/dev", "--proc", "/proc", "--perms", "1777", "--tmpfs", "/tmp",
    ]
    hidden = [Path(h) for h in ("/root", "/home", str(course_root)) if os.path.isdir(h)]
    for h in hidden:
        cmd += ["--perms", "0755", "--tmpfs", str(h)]
    covered = [*hidden, Path("/tmp")]  # /tmp too: a venv installed under /tmp must stay visible
    for p in keep:  # read-only again where the hiding above covered them
        if not p.exists() or p.is_relative_to(folder) or not any(p.is_relative_to(h) for h in covered):
            continue
        for parent in reversed(p.parents):  # traversable mount points for a user other than root
            if any(parent.is_relative_to(h) and parent != h for h in covered):
                cmd += ["--perms", "0755", "--dir", str(parent)]
        cmd += ["--ro-bind", str(p), str(p)]
    for p in (folder, runtime):
        for parent in reversed(p.parents):
            if any(parent.is_relative_to(h) and parent != h for h in hidden):
                cmd += ["--perms", "0755", "--dir", str(parent)]
    cmd += ["--bind", str(folder), str(folder), "--bind", str(runtime), str(runtime)]
    if folder != course_root and os.path.isdir(course_root):
        cmd += ["--remount-ro", str(course_root)]  # the empty stand-in for the course: not writable either
    # JPY_PARENT_PID names the grader outside the PID namespace: ipykernel would think its parent died
    cmd += ["--setenv", "HOME", "/tmp", "--unsetenv", "JPY_PARENT_PID", "--chdir", str(folder), "--"]
    return cmd


class SandboxedKernelManager(AsyncKernelManager):
    """Starts the kernel command under bwrap, talking over Unix sockets in a private runtime folder."""

    notebook_folder = Unicode("", help="The folder of the notebook being executed (the only writable one).")
    course_root = Unicode("", help="Hidden from the kernel, except the notebook folder.")
    sandbox_uid = Integer(65534, help="When the grader is root, the user the kernel runs as (0: stay root).")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._runtime = Path(tempfile.mkdtemp(prefix="autograder-kernel-"))
        self.transport = "ipc"
        self.connection_file = str(self._runtime / "kernel.json")
        self.ip = str(self._runtime / "kernel-ipc")

    def _drop_root(self, folder: Path) -> list[str]:  # the setpriv prefix, run inside bwrap
        """As root, the kernel runs as ``sandbox_uid`` (RLIMIT_NPROC never binds root, even inside a user
        namespace): the runtime folder and the notebook's folder are handed to that user first."""
        if os.geteuid() != 0 or not self.sandbox_uid or shutil.which("setpriv") is None:
            return []
        uid = self.sandbox_uid
        for top in (self._runtime, folder):
            os.chown(top, uid, uid)
            for dirpath, dirs, files in os.walk(top):
                for name in dirs + files:
                    os.chown(os.path.join(dirpath, name), uid, uid, follow_symlinks=False)
        return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]

    def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
        cmd = super().format_kernel_cmd(extra_arguments)
        # SIGINT would reach bwrap, not the kernel: interrupt over the control channel (ipykernel then
        # signals its own process group, which lies inside the sandbox)
        if self.kernel_spec is not None:
            self.kernel_spec.interrupt_mode = "message"
        import autograder

        keep = [Path(sys.prefix), Path(sys.base_prefix), Path(autograder.__file__).resolve().parent]
        if not self.notebook_folder:  # never guess: the folder is handed to the sandbox user
            raise AutograderError("the sandboxed kernel was not told its notebook's folder")
        folder = Path(self.notebook_folder).resolve()
        root = Path(self.course_root).resolve() if self.course_root else folder
        drop = self._drop_root(folder)
        return bwrap_command(folder, self._runtime, root, keep, as_root=bool(drop)) + drop + cmd

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        await super()._async_cleanup_resources(restart=restart)
        if not restart:
            shutil.rmtree(self._runtime, ignore_errors=True)
