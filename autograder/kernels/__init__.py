"""Students' own kernels, run and measured so that they cannot be gamed (issue 22, items 3 and 4).

A lesson can ask the student to write a variant (PyTorch ops or a Triton kernel).  :func:`run_submission`
runs one submission in a child process of its own (in bubblewrap where available: the Python environment
read-only, a private tmpfs, no network, its own PID namespace, the NVIDIA device nodes only for a CUDA
task; rlimits; a wall deadline the parent enforces by killing the process group), talks to it over a pipe
in JSON lines, and checks what it produced in the parent, which never imports student code: the parent
regenerates the inputs from the hidden seed, runs the lesson's reference, compares per dtype, and times
each case's loop with a clock the submission cannot reach.  Whatever the code does -- crash, hang, run out
of memory, patch the timers, replay a cache, return a lazy tensor, hide work in a thread or on another
stream, special-case the benchmark shape, reach for the reference, lower the precision -- is that
submission's verdict (:class:`KernelResult`), never an exception in the caller.

:func:`measure_function` runs the same timing code in this process, for the notebook.

The contract with the lessons (names fixed; ``KernelResult.phases`` is an addition for the benchmark)::

    Limits, KernelTask, CaseResult, KernelResult, run_submission(task, *, isolate=True), measure_function(fn, task)

:class:`WarmStart` runs submissions one after another as :func:`run_submission` does (a fresh child each),
with each next child started ahead, while the current one runs: a class's grading hides the child's start.
:func:`on_turn_wait` tells a grader when a submission waits for its device turn (its deadline stops then).
"""

from .inprocess import measure_function
from .models import VERDICTS, CaseResult, KernelResult, KernelTask, Limits, Verdict
from .runner import WarmStart, on_turn_wait, run_submission

__all__ = ["VERDICTS", "CaseResult", "KernelResult", "KernelTask", "Limits", "Verdict", "WarmStart",
           "measure_function", "on_turn_wait", "run_submission"]
