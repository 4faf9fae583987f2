"""What happened when a student's notebook was executed: pure functions over the executed notebook and
a before/after snapshot of the files the kernel must not touch."""

from __future__ import annotations

import os
import resource
from pathlib import Path
from typing import Any

from pydantic import Field

from ..records._base import Record

__all__ = [
    "ExecutionVerdict",
    "apply_limits",
    "audit_problems",
    "changed_paths",
    "memory_rlimit",
    "snapshot",
    "verdict_from_outputs",
]

_KINDS = {
    "CellTimeoutError": "timeout",
    "MemoryError": "memory",
    "DeadKernelError": "kernel_died",
    "RecursionError": "recursion",
    # what the sandbox answers to reading or writing outside the notebook's folder, a socket, a fork bomb
    "PermissionError": "denied",
    "FileNotFoundError": "denied",
    "OSError": "denied",
    "BlockingIOError": "denied",
    "ConnectionRefusedError": "denied",
    "gaierror": "denied",
}


# what each kind means for the TA reading the record (after the cell's own error)
_MEANING = {
    "timeout": "the cell ran past its time limit (c.LimitedExecute.timeout) and was interrupted",
    "memory": "the kernel hit its memory limit (c.LimitedExecute.memory_limit_mb)",
    "kernel_died": "the kernel died (a crash or the memory limit); later cells did not run in it",
    "recursion": "unbounded recursion",
    "denied": "denied by the grading sandbox (only the notebook's own files, no network, bounded processes)",
}


class ExecutionVerdict(Record):
    status: str = Field(
        description="ok | not_started | deadline | timeout | memory | kernel_died | recursion | denied | disk | "
        "output | wrote_outside_folder"
    )
    kinds: list[str] = Field(default_factory=list, description="every kind of problem seen, in order")
    problems: list[str] = Field(default_factory=list)


def memory_rlimit() -> int:
    """RLIMIT_AS where there is no GPU (it bounds every allocation); RLIMIT_DATA on a CUDA node, where the
    driver reserves far more address space than it uses (there RLIMIT_DATA is weaker: some kernels do not
    count large anonymous mappings)."""
    return resource.RLIMIT_DATA if os.path.exists("/dev/nvidiactl") else resource.RLIMIT_AS


def apply_limits(memory_bytes: int, cpu_seconds: int, file_bytes: int, processes: int = 0) -> None:
    """Run in the kernel's process before exec (Popen preexec_fn): limits it and everything it starts.

    ``processes`` more processes than the machine runs now (RLIMIT_NPROC counts per user; it binds the
    kernel inside the sandbox's user namespace even when the grader is root)."""
    if processes > 0:
        running = sum(1 for p in os.listdir("/proc") if p.isdigit())
        resource.setrlimit(resource.RLIMIT_NPROC, (running + processes, running + processes))
    for what, value in (
        (memory_rlimit(), memory_bytes),
        (resource.RLIMIT_CPU, cpu_seconds),
        (resource.RLIMIT_FSIZE, file_bytes),
    ):
        if value > 0:
            resource.setrlimit(what, (value, value))


def snapshot(paths: list[Path]) -> dict[str, tuple[int, int]]:
    """(mtime_ns, size) of every file under the protected paths."""
    out: dict[str, tuple[int, int]] = {}
    for root in paths:
        if root.is_file():
            st = root.stat()
            out[str(root)] = (st.st_mtime_ns, st.st_size)
            continue
        for dirpath, _, files in os.walk(root):
            for f in files:
                p = os.path.join(dirpath, f)
                try:
                    st = os.stat(p)
                except OSError:
                    continue
                out[p] = (st.st_mtime_ns, st.st_size)
    return out


def changed_paths(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> list[str]:
    return sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))


_AUDIT_WORDS = {
    "outside the sandbox": "tried to open {path}, which the grading sandbox does not show",
    "write where it is read-only": "tried to write {path}, where the grading sandbox is read-only",
    "not readable": "tried to read {path}, which the grading sandbox does not let it read",
    "network": "tried to reach the network ({path}); the grading sandbox has none",
    "process limit": "started processes until the limit ({path})",
}


def audit_problems(entries: list[dict[str, str]], limit: int = 8) -> list[str]:
    """The kernel audit hook's notes (sandbox.SandboxedKernelManager.read_audit), one sentence each for the
    first ``limit`` distinct ones: attempts the sandbox denied, whether or not the student's code caught
    the error."""
    seen: list[str] = []
    for e in entries:
        words = _AUDIT_WORDS.get(e.get("what", ""))
        line = words.format(path=e.get("path", "?")) if words else None
        if line and line not in seen:
            seen.append(line)
    out = [f"the notebook's code {s} (denied, even if the code caught the error)" for s in seen[:limit]]
    if len(seen) > limit:
        out.append(f"... and {len(seen) - limit} more such attempts")
    return out


def verdict_from_outputs(
    cells: list[Any], written: list[str], noted: list[tuple[str, str]] | None = None
) -> ExecutionVerdict:
    """The verdict of one executed notebook: ``noted`` are (kind, sentence) pairs the executor saw itself
    (the kernel did not start, the deadline passed, the scratch space filled, output was cut, the sandbox
    audit hook's notes); they come first, then each error output of a kind in ``_KINDS``."""
    problems: list[str] = []
    kinds: list[str] = []
    for noted_kind, sentence in noted or []:
        if noted_kind not in kinds:
            kinds.append(noted_kind)
        problems.append(sentence)
    for i, cell in enumerate(cells):
        for o in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            if o.get("output_type") != "error":
                continue
            kind = _KINDS.get(o.get("ename", ""))
            if kind:
                if kind not in kinds:
                    kinds.append(kind)
                said = f"cell {i}: {o.get('ename')} {str(o.get('evalue', ''))[:120]}".strip()
                problems.append(f"{said} — {_MEANING[kind]}")
    if written:
        kinds.insert(0, "wrote_outside_folder")
        problems.append("the notebook wrote outside its folder: " + ", ".join(written[:5]))
    return ExecutionVerdict(status=kinds[0] if kinds else "ok", kinds=kinds, problems=problems)
