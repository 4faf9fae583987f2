"""nbgrader's Execute with the kernel in a sandbox, under limits, and a verdict for everything it overran.

Whatever a notebook does when executed, nbgrader never fails the student for it and the record says what
happened, in words a TA can act on: a kernel that could not start (one line, with bwrap's own message), a
cell or the whole notebook over its time budget (cells after the deadline are not run), a memory bomb,
a scratch space (/tmp and the notebook's folder, one tmpfs) filled up, output over its budget (cut at the
grader, before it is kept in memory: a 1 GiB print costs the grader nothing), a denial the sandbox's audit
hook saw even where the student's code caught it, a write into the course.
"""

from __future__ import annotations

import functools
import os
import time
from typing import Any

from jupyter_core.utils import run_sync
from nbconvert.exporters.exporter import ResourcesDict
from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors import Execute
from traitlets import Bool, Enum, Integer, List, Unicode

from ..config import CourseSettings
from ..errors import AutograderError, LessonSpecError
from ..grading.execution import (
    apply_limits,
    audit_problems,
    changed_paths,
    snapshot,
    verdict_from_outputs,
)
from .read_ledger import META_KEY
from .sandbox import SandboxedKernelManager, bwrap_available, start_failure_line

__all__ = ["KernelNotStarted", "LimitedExecute"]


class KernelNotStarted(AutograderError):
    """The sandboxed kernel did not start; the message is one line with bwrap's (or Python's) own words."""


def _mib(n: int) -> str:
    return f"{n / (1 << 20):.1f} MiB"


def _size(out: dict[str, Any]) -> int:
    """Bytes an output will take in the notebook (its text and data; near enough to bound it)."""
    n = len(str(out.get("text", ""))) + len(str(out.get("evalue", ""))) + sum(len(t) for t in out.get("traceback", []))
    for v in (out.get("data") or {}).values():
        n += len(v) if isinstance(v, str) else len(str(v))
    return n


class LimitedExecute(Execute):
    """Execute, with the kernel in bubblewrap under rlimits, bounded output and a verdict in nb.metadata."""

    memory_limit_mb = Integer(
        8192, help="Kernel memory limit (MiB, address space; data segment on GPU nodes); 0 = none."
    ).tag(config=True)
    cpu_limit_s = Integer(1800, help="Kernel CPU-time limit (s); 0 = none.").tag(config=True)
    file_limit_mb = Integer(1024, help="Largest file the kernel may write (MiB); 0 = none.").tag(config=True)
    process_limit = Integer(256, help="Processes the kernel may add (RLIMIT_NPROC headroom); 0 = none.").tag(
        config=True
    )
    sandbox = Enum(
        ["bwrap", "none"],
        default_value="bwrap",
        help="bwrap: the kernel runs in bubblewrap (see preprocessors/sandbox.py).",
    ).tag(config=True)
    notebook_timeout = Integer(900, help="Wall-clock budget of the whole notebook (s); 0 = none.").tag(config=True)
    scratch_mb = Integer(
        512, help="Everything the kernel may write, /tmp and its notebook folder together (a tmpfs, MiB)."
    ).tag(config=True)
    output_limit_kb = Integer(
        1024, help="Output kept per notebook (KiB; test cells show the record's grade either way); 0 = none."
    ).tag(config=True)
    max_message_mb = Integer(32, help="A kernel message over this is dropped unread by the grader (MiB).").tag(
        config=True
    )
    gpu_devices = Enum(
        ["auto", "always", "never"],
        default_value="auto",
        help="auto: /dev/nvidia* are shown to the kernel when the node has them and the lesson runs on CUDA.",
    ).tag(config=True)
    sandbox_paths = List(Unicode(), help="More folders shown read-only to the kernel (e.g. a data set).").tag(
        config=True
    )
    # an IOPub message dropped for its size must not fail the student: nbclient warns and goes on
    raise_on_iopub_timeout = Bool(False).tag(config=True)

    _deadline: float | None = None
    _folder: str = ""
    _km: SandboxedKernelManager | None = None
    _kept = 0
    _dropped = 0
    _marked = False
    _skipped: list[int]
    _scratch_used: int | None = None
    _gpu = False

    def cell_timeout(self, cell: Any = None) -> int | None:
        """nbclient's per-cell timeout: the cell limit, or what remains of the notebook's budget if less."""
        if not self.notebook_timeout or self._deadline is None:
            return self.timeout
        remaining = max(1, int(self._deadline - time.monotonic()))
        return remaining if self.timeout is None else min(self.timeout, remaining)

    def _limited(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        kwargs.setdefault(
            "preexec_fn",
            functools.partial(
                apply_limits, self.memory_limit_mb << 20, self.cpu_limit_s, self.file_limit_mb << 20, self.process_limit
            ),
        )
        return kwargs

    def create_kernel_manager(self) -> Any:
        if self.sandbox == "none":
            return super().create_kernel_manager()
        if not bwrap_available():
            raise AutograderError(
                "bubblewrap (bwrap) is not installed: apt-get install bubblewrap "
                "(or set LimitedExecute.sandbox = 'none')"
            )
        self.kernel_manager_class = SandboxedKernelManager
        km = super().create_kernel_manager()
        km.notebook_folder = self._folder
        km.scratch_mb = self.scratch_mb
        km.gpu = self._gpu
        km.extra_paths = list(self.sandbox_paths)
        km.process_limit = self.process_limit
        km.max_message_bytes = self.max_message_mb << 20
        self._km = km
        return km

    # nbclient's setup_kernel calls the sync wrapper, bound to the base coroutine: override both entries
    def start_new_kernel(self, **kwargs: Any) -> None:
        super().start_new_kernel(**self._limited(kwargs))

    async def async_start_new_kernel(self, **kwargs: Any) -> None:
        await super().async_start_new_kernel(**self._limited(kwargs))

    async def async_start_new_kernel_client(self) -> Any:
        km = self._km
        try:
            kc = await super().async_start_new_kernel_client()
        except Exception as exc:
            if km is None:
                raise
            raise KernelNotStarted(start_failure_line(km.output_tail.text() or str(exc))) from None
        if km is not None:
            km.lock_runtime()
        return kc

    start_new_kernel_client = run_sync(async_start_new_kernel_client)

    async def _async_cleanup_kernel(self) -> None:
        if self._km is not None and self._scratch_used is None:
            self._scratch_used = self._km.scratch_used()  # while the sandbox still exists
        await super()._async_cleanup_kernel()

    _cleanup_kernel = run_sync(_async_cleanup_kernel)

    async def async_execute_cell(
        self, cell: NotebookNode, cell_index: int, execution_count: int | None = None, store_history: bool = True
    ) -> NotebookNode:
        if (
            self._deadline is not None
            and time.monotonic() >= self._deadline
            and cell.cell_type == "code"
            and cell.source.strip()
        ):
            self._skipped.append(cell_index)  # past the notebook's deadline: not run at all
            cell.outputs = []
            return cell
        return await super().async_execute_cell(cell, cell_index, execution_count, store_history)

    execute_cell = run_sync(async_execute_cell)

    def output(self, outs: list[NotebookNode], msg: dict[str, Any], display_id: str | None, cell_index: int) -> Any:
        """Each output counts against the notebook's budget; past it, outputs are dropped (one marker)."""
        budget = self.output_limit_kb << 10
        out = super().output(outs, msg, display_id, cell_index)
        if not budget or out is None:
            return out
        n = _size(out)
        if self._kept + n <= budget:
            self._kept += n
            return out
        self._dropped += n
        outs.remove(out)
        if not self._marked:
            self._marked = True
            outs.append(NotebookNode(output_type="stream", name="stdout", text=(
                f"[output cut by the grader: a notebook's outputs are kept up to {self.output_limit_kb} KiB]\n"
            )))
        return None

    def _lesson_gpu(self, assignment: str) -> bool:
        if self.gpu_devices == "never" or not os.path.exists("/dev/nvidiactl"):
            return False
        if self.gpu_devices == "always":
            return True
        try:
            return "cuda" in CourseSettings.from_config(self.config).course.spec(assignment).devices
        except LessonSpecError:
            return False

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict, km: Any = None) -> Any:
        course = CourseSettings.from_config(self.config).course
        protected = [
            p
            for p in (
                course.root / n
                for n in (
                    "nbgrader_config.py",
                    "gradebook.db",
                    "source",
                    "release",
                    "references",
                    "records",
                    "submitted",
                )
            )
            if p.exists()
        ]
        info = resources.get("nbgrader", {})
        self._folder = str(resources.get("metadata", {}).get("path", "") or "")
        self._gpu = self._lesson_gpu(str(info.get("assignment", "")))
        self._kept, self._dropped, self._skipped, self._scratch_used, self._km = 0, 0, [], None, None
        self._marked = False
        before = snapshot(protected)
        self._deadline = time.monotonic() + self.notebook_timeout if self.notebook_timeout else None
        self.timeout_func = self.cell_timeout
        noted: list[tuple[str, str]] = []
        try:
            nb, resources = super().preprocess(nb, resources, km=km)
        except KernelNotStarted as exc:
            noted.append(("not_started", f"{exc}; nothing was executed, the notebook is graded from its ledger"))
            self.log.error("%s/%s: %s", info.get("student"), info.get("notebook"), exc)
        finally:
            noted += self._noted()
            written = changed_paths(before, snapshot(protected))
            verdict = verdict_from_outputs(nb.cells, written, noted)
            meta = dict(nb.metadata.get(META_KEY, {}))
            meta["execution"] = verdict.model_dump(mode="json")
            nb.metadata[META_KEY] = meta
            if verdict.status != "ok":
                self.log.warning("%s/%s: %s", info.get("student"), info.get("notebook"), "; ".join(verdict.problems))
            if self._km is not None:
                self._km.discard()
        return nb, resources

    def _noted(self) -> list[tuple[str, str]]:
        """What this executor saw itself, as (kind, sentence)."""
        noted: list[tuple[str, str]] = []
        if self._skipped:
            noted.append(("deadline", (
                f"the notebook ran past its {self.notebook_timeout} s budget (c.LimitedExecute.notebook_timeout): "
                f"{len(self._skipped)} code cell(s) from cell {self._skipped[0]} on were not run; "
                "the notebook is graded from its ledger"
            )))
        scratch = self.scratch_mb << 20
        if self._scratch_used is not None and self._scratch_used >= scratch - (1 << 20):
            noted.append(("disk", (
                f"the notebook filled its {self.scratch_mb} MiB scratch space (/tmp and its folder together, "
                f"c.LimitedExecute.scratch_mb): writes beyond it failed, and nothing it wrote was kept"
            )))
        if self._dropped:
            noted.append(("output", (
                f"the notebook printed {_mib(self._kept + self._dropped)} of output; the first "
                f"{self.output_limit_kb} KiB are kept in the autograded notebook and the feedback "
                "(c.LimitedExecute.output_limit_kb)"
            )))
        if self._km is not None:
            noted += [("denied", p) for p in audit_problems(self._km.read_audit())]
        return noted
