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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import zmq
from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.connect import channel_socket_types
from jupyter_client.manager import AsyncKernelManager
from traitlets import Bool, DottedObjectName, Integer, List, Unicode

import autograder

from ..errors import AutograderError

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
