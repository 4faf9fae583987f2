"""nbgrader's Execute with resource limits on the kernel and a check for writes outside the notebook's folder."""

from __future__ import annotations

import functools
import time
from typing import Any

from nbconvert.exporters.exporter import ResourcesDict
from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors import Execute
from traitlets import Enum, Integer

from ..config import LessonGrading
from ..errors import AutograderError
from ..grading.execution import apply_limits, changed_paths, snapshot, verdict_from_outputs
from .read_ledger import META_KEY
from .sandbox import SandboxedKernelManager, bwrap_available


class LimitedExecute(Execute):
    """Execute, with the kernel under RLIMIT_DATA / RLIMIT_CPU / RLIMIT_FSIZE, and the verdict in nb.metadata.

    An infinite loop ends at the cell timeout (or the CPU limit), a memory bomb with MemoryError, a runaway
    writer at the file-size limit; each such notebook is graded on what it has and its record says why.
    Writes outside the notebook's folder are detected (course files are snapshotted around the run) and
    flagged — detected, not prevented: the kernel runs as the grading user.
    """

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
        help="bwrap: the kernel runs in bubblewrap (own folder only, no network; see preprocessors/sandbox.py).",
    ).tag(config=True)
    notebook_timeout = Integer(900, help="Wall-clock budget of the whole notebook (s); 0 = none.").tag(config=True)

    def cell_timeout(self, cell: Any = None) -> int | None:
        """nbclient's per-cell timeout: the cell limit, or what remains of the notebook's budget if less."""
        if not self.notebook_timeout or self._deadline is None:
            return self.timeout
        remaining = max(1, int(self._deadline - time.monotonic()))
        return remaining if self.timeout is None else min(self.timeout, remaining)

    _deadline: float | None = None

    def _limited(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        kwargs.setdefault(
            "preexec_fn",
            functools.partial(
                apply_limits, self.memory_limit_mb << 20, self.cpu_limit_s, self.file_limit_mb << 20, self.process_limit
            ),
        )
        return kwargs

    _folder: str = ""

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
        km.course_root = str(LessonGrading(config=self.config).course().root)
        return km

    # nbclient's setup_kernel calls the sync wrapper, bound to the base coroutine: override both entries
    def start_new_kernel(self, **kwargs: Any) -> None:
        super().start_new_kernel(**self._limited(kwargs))

    async def async_start_new_kernel(self, **kwargs: Any) -> None:
        await super().async_start_new_kernel(**self._limited(kwargs))

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict, km: Any = None) -> Any:
        course = LessonGrading(config=self.config).course()
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
        self._folder = str(resources.get("metadata", {}).get("path", "") or "")
        before = snapshot(protected)
        self._deadline = time.monotonic() + self.notebook_timeout if self.notebook_timeout else None
        self.timeout_func = self.cell_timeout
        try:
            nb, resources = super().preprocess(nb, resources, km=km)
        finally:
            written = changed_paths(before, snapshot(protected))
            verdict = verdict_from_outputs(nb.cells, written)
            meta = dict(nb.metadata.get(META_KEY, {}))
            meta["execution"] = verdict.model_dump(mode="json")
            nb.metadata[META_KEY] = meta
            if verdict.status != "ok":
                self.log.warning(
                    "%s/%s: %s",
                    resources["nbgrader"]["student"],
                    resources["nbgrader"]["notebook"],
                    "; ".join(verdict.problems),
                )
        return nb, resources


__all__ = ["LimitedExecute"]
