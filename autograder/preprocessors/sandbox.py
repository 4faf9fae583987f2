"""The grading kernel inside bubblewrap: a kernel manager for nbclient (LimitedExecute's kernel_manager_class).

Why bubblewrap, not a separate Unix user: it is a small, well-kept Debian package (``bubblewrap``) that
needs no account set up on each grading node, works as root or not, and gives what a user account cannot
-- a private view of the filesystem, no network at all (a new network namespace: not even loopback to other
services), and its own PID namespace, killed with the grader. The kernel talks to nbclient over Unix
sockets (``transport = ipc``) in a private runtime folder bound into the sandbox, since TCP would need the
network.

What the kernel sees is built up from nothing (``/`` is *not* shown), by :func:`sandbox_layout`:

- the system's programs and libraries, read-only: ``/usr/{bin,lib,lib64,libexec,include}`` and the
  ``/bin``, ``/lib``, ``/lib64`` links (a C compiler for torch.compile lives there); of ``/etc`` only
  ``ld.so.cache`` and ``localtime`` -- no ``passwd``, ``hosts`` or anything else of the machine;
- the Python environment(s), read-only, wherever they live (``/tmp``, ``/home``, ``/root``, ``/opt``...):
  ``sys.prefix``, ``sys.base_prefix`` (and their real paths), and the autograder package;
- a private ``/tmp`` (a tmpfs of ``scratch_mb``), which also holds the notebook's folder: the folder's
  files (the lesson files nbgrader copied, the grading context) are bound read-only into
  ``/tmp/.notebook``, the notebook's own path is a link to it, and whatever the kernel writes there or
  in ``/tmp`` shares one budget and is gone when the kernel ends (nothing lands in ``autograded/``);
- a minimal ``/dev`` (null, zero, random, tty, shm), a ``/proc`` of its own PID namespace, the CPU list of
  ``/sys`` (for torch's CPU detection), and, when a lesson runs on CUDA and the node has them, the NVIDIA
  device nodes ``/dev/nvidia*`` (with ``/sys/devices``, ``/sys/bus/pci`` and ``/sys/module/nvidia``);
- an environment reduced to an allow-list (:data:`ENV_ALLOW`): not the grader's.

Time, memory, processes and file size are limited by rlimits (LimitedExecute) that the sandbox inherits.
A root grader also drops to ``nobody`` (util-linux ``setpriv``) inside bwrap: Linux exempts root from
RLIMIT_NPROC, even inside a user namespace, so without that a fork bomb would not be bounded.

The kernel starts through :mod:`.kernel_boot` (``python -c``), which installs an audit hook before any
student code runs: every attempt to open or list a path the sandbox does not show, to write where it is
read-only, or to reach the network is written to a file only the grader can open (the kernel holds a
descriptor to it), so a denial that student code catches is still in the record.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import zmq
from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.connect import channel_socket_types
from jupyter_client.manager import AsyncKernelManager
from traitlets import Bool, DottedObjectName, Integer, List, Unicode

from ..errors import AutograderError
from ..isolation import (
    ENV_ALLOW,
    NOTEBOOK_MOUNT,
    SandboxLayout,
    bwrap_available,
    python_roots,
    readable,
    sandbox_env,
    sandbox_layout,
    start_failure_line,
)

__all__ = [
    "ENV_ALLOW",
    "NOTEBOOK_MOUNT",
    "BoundedKernelClient",
    "SandboxLayout",
    "SandboxedKernelManager",
    "bwrap_available",
    "preflight",
    "python_roots",
    "readable",
    "sandbox_env",
    "sandbox_layout",
    "start_failure_line",
]

#: where the notebook folder's files appear inside the sandbox (the notebook's own path links here)
class _Tail:
    """Reads a pipe in a thread and keeps only its last ``keep`` bytes (the kernel's stdout and stderr:
    never the grader's log, never unbounded)."""

    def __init__(self, keep: int = 8192) -> None:
        self.keep = keep
        self.data = b""
        self.read_fd, self.write_fd = os.pipe()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            try:
                chunk = os.read(self.read_fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.data = (self.data + chunk)[-self.keep:]

    def close_writer(self) -> None:
        try:
            os.close(self.write_fd)
        except OSError:
            pass

    def text(self, wait: float = 0.5) -> str:
        self._thread.join(wait)
        return self.data.decode("utf-8", "replace")


class BoundedKernelClient(AsyncKernelClient):
    """A kernel client whose sockets refuse messages over ``max_message_bytes`` (ZMQ_MAXMSGSIZE): a 1 GiB
    print is dropped by zmq before the grader holds any of it, instead of growing the grader's memory."""

    max_message_bytes = Integer(32 << 20).tag(config=True)

    def _create_connected_socket(self, channel: str, identity: bytes | None = None) -> zmq.Socket[Any]:
        # jupyter_client's own, with the size limit set before connecting (it applies to new connections)
        sock = self.context.socket(channel_socket_types[channel])
        sock.linger = 1000
        if identity:
            sock.identity = identity
        if self.curve_publickey is not None:
            sock.curve_secretkey = self.curve_secretkey
            sock.curve_publickey = self.curve_publickey
            sock.curve_serverkey = self.curve_publickey
        sock.setsockopt(zmq.MAXMSGSIZE, self.max_message_bytes)
        sock.connect(self._make_url(channel))
        return sock


class SandboxedKernelManager(AsyncKernelManager):
    """Starts the kernel command under bwrap, talking over Unix sockets in a private runtime folder."""

    notebook_folder = Unicode("", help="The folder of the notebook being executed.")
    sandbox_uid = Integer(65534, help="When the grader is root, the user the kernel runs as (0: stay root).")
    scratch_mb = Integer(512, help="The kernel's /tmp and notebook folder together (a tmpfs, MiB).")
    gpu = Bool(False, help="Bind the NVIDIA device nodes (/dev/nvidia*) into the sandbox.")
    extra_paths = List(Unicode(), help="More folders shown read-only (e.g. a data set the lessons read).")
    process_limit = Integer(0, help="Told to the audit hook: forks beyond this are noted.")
    max_message_bytes = Integer(32 << 20, help="The kernel client's sockets drop messages over this.")
    client_class = DottedObjectName("autograder.preprocessors.sandbox.BoundedKernelClient")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._runtime = Path(tempfile.mkdtemp(prefix="autograder-kernel-"))
        self._private = Path(tempfile.mkdtemp(prefix="autograder-audit-"))  # never shown to the kernel
        self.audit_path = self._private / "audit.jsonl"
        self.transport = "ipc"
        self.connection_file = str(self._runtime / "kernel.json")
        self.ip = str(self._runtime / "kernel-ipc")
        self.output_tail = _Tail()
        self._audit_fd = -1
        self._layout: SandboxLayout | None = None

    def _drop_root(self, folder: Path) -> list[str]:  # the setpriv prefix, run inside bwrap
        """As root, the kernel runs as ``sandbox_uid`` (RLIMIT_NPROC never binds root, even inside a user
        namespace): the runtime folder is handed to that user first (the notebook's files are only read)."""
        if os.geteuid() != 0 or not self.sandbox_uid or shutil.which("setpriv") is None:
            return []
        uid = self.sandbox_uid
        os.chown(self._runtime, uid, uid)
        for name in os.listdir(self._runtime):
            os.chown(self._runtime / name, uid, uid, follow_symlinks=False)
        readable(folder)
        return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]

    def client(self, **kwargs: Any) -> Any:
        kwargs.setdefault("max_message_bytes", self.max_message_bytes)
        return super().client(**kwargs)

    def lock_runtime(self) -> None:
        """Once the kernel has made its sockets: a root grader takes the runtime folder back, so the kernel
        cannot store files on the grader's disk there (a non-root kernel keeps it: same user)."""
        if os.geteuid() == 0 and self.sandbox_uid:
            os.chown(self._runtime, 0, 0)
            os.chmod(self._runtime, 0o755)

    def layout(self, folder: Path) -> SandboxLayout:
        return sandbox_layout(folder, self._runtime, python_roots(), as_root=os.geteuid() == 0 and bool(
            self.sandbox_uid), scratch_bytes=self.scratch_mb << 20, gpu=self.gpu,
            extra_ro=[Path(p) for p in self.extra_paths])

    def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
        cmd = super().format_kernel_cmd(extra_arguments)
        # SIGINT would reach bwrap, not the kernel: interrupt over the control channel (ipykernel then
        # signals its own process group, which lies inside the sandbox)
        if self.kernel_spec is not None:
            self.kernel_spec.interrupt_mode = "message"
        if not self.notebook_folder:  # never guess which folder the kernel gets
            raise AutograderError("the sandboxed kernel was not told its notebook's folder")
        folder = Path(self.notebook_folder).resolve()
        drop = self._drop_root(folder)
        self._layout = layout = self.layout(folder)
        if self._audit_fd < 0:
            self._audit_fd = os.open(self.audit_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            os.set_inheritable(self._audit_fd, True)
        return layout.args + drop + self._boot(cmd, layout)

    def _boot(self, cmd: list[str], layout: SandboxLayout) -> list[str]:
        """``python -m ipykernel_launcher ...`` becomes ``python -c <kernel_boot> <config> ...``."""
        if len(cmd) < 3 or cmd[1:3] != ["-m", "ipykernel_launcher"]:
            return cmd
        cfg = {"fd": self._audit_fd, "visible": layout.visible, "forks": self.process_limit, "mount": NOTEBOOK_MOUNT}
        boot = Path(__file__).with_name("kernel_boot.py").read_text(encoding="utf-8")
        return [cmd[0], "-c", boot, json.dumps(cfg), *cmd[3:]]

    async def _async_launch_kernel(self, kernel_cmd: list[str], **kw: Any) -> None:
        # the kernel's stdout/stderr go to a bounded tail (bwrap's own message when it fails), not to the
        # grader's log; bwrap itself gets only the allow-listed environment (/proc/1/environ inside shows it)
        kw["env"] = sandbox_env(dict(kw.get("env") or os.environ), os.path.dirname(sys.executable))
        kw["stdout"] = kw["stderr"] = self.output_tail.write_fd
        kw["pass_fds"] = (self._audit_fd,) if self._audit_fd >= 0 else ()
        try:
            await super()._async_launch_kernel(kernel_cmd, **kw)
        finally:
            self.output_tail.close_writer()

    def read_audit(self, limit: int = 65536) -> list[dict[str, str]]:
        """What the kernel's audit hook noted (at most ``limit`` bytes; the lines are the kernel's, so only
        well-formed ones count)."""
        try:
            with open(self.audit_path, "rb") as f:
                data = f.read(limit)
        except OSError:
            return []
        out: list[dict[str, str]] = []
        for line in data.decode("utf-8", "replace").splitlines():
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if not (isinstance(e, dict) and isinstance(e.get("what"), str) and isinstance(e.get("path"), str)):
                continue
            what, path = e["what"][:60], e["path"][:300]
            if what == "missing":  # absent from the kernel's private /tmp: hidden if the machine's /tmp has it
                if not os.path.lexists(path) or Path(path).is_relative_to(self._runtime):
                    continue
                what = "outside the sandbox"
            out.append({"what": what, "path": path})
        return out

    def scratch_used(self) -> int | None:
        """Bytes in use in the kernel's /tmp (which holds its notebook folder), read through the running
        sandbox's root; None when it cannot be read (the kernel has gone, or no access)."""
        pid = getattr(getattr(self, "provisioner", None), "pid", None)
        if not pid:
            return None
        mine = os.stat("/proc/self/ns/mnt").st_ino
        todo, seen = [int(pid)], 0
        while todo and seen < 64:
            p = todo.pop(0)
            seen += 1
            try:
                if os.stat(f"/proc/{p}/ns/mnt").st_ino != mine:
                    st = os.statvfs(f"/proc/{p}/root/tmp")
                    return (st.f_blocks - st.f_bfree) * st.f_frsize
                with open(f"/proc/{p}/task/{p}/children", encoding="ascii") as f:
                    todo += [int(c) for c in f.read().split()]
            except (OSError, ValueError):
                continue
        return None

    def discard(self) -> None:
        """After the kernel has gone: its runtime folder, its audit file, the descriptor to it."""
        if self._audit_fd >= 0:
            os.close(self._audit_fd)
            self._audit_fd = -1
        self.output_tail.close_writer()
        shutil.rmtree(self._private, ignore_errors=True)
        shutil.rmtree(self._runtime, ignore_errors=True)


def preflight(python: list[Path], timeout: float = 120) -> str | None:
    """Start this Python in a sandbox like a kernel's and import ipykernel; None if it works, else one line
    with bwrap's (or Python's) own message. Run once before any student is graded."""
    with tempfile.TemporaryDirectory(prefix="autograder-preflight-") as tmp:
        folder, runtime = Path(tmp, "nb"), Path(tmp, "rt")
        folder.mkdir()
        runtime.mkdir()
        as_root = os.geteuid() == 0 and shutil.which("setpriv") is not None
        os.chmod(tmp, 0o755)
        layout = sandbox_layout(folder, runtime, python, as_root=as_root, scratch_bytes=64 << 20)
        drop = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] if as_root else []
        env = sandbox_env(dict(os.environ), os.path.dirname(sys.executable))
        try:
            proc = subprocess.run([*layout.args, *drop, sys.executable, "-c", "import ipykernel.kernelapp"],
                                  check=False, capture_output=True, text=True, timeout=timeout, env=env)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return start_failure_line(str(exc), "Python")
        return None if proc.returncode == 0 else start_failure_line(proc.stderr, "Python")
