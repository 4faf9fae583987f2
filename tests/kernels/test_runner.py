"""run_submission without bubblewrap, measure_function in this process, the child's command line."""

from __future__ import annotations

import importlib.util
import os
import time
from pathlib import Path

import pytest

from autograder.errors import AutograderError
from autograder.isolation import bwrap_available
from autograder.kernels import measure_function, run_submission
from autograder.kernels.runner import Shape, spawn
from autograder.kernels.sandbox import UID_BASE, child_spec, fresh_uid, processes_of

from .conftest import HOSTILE, graded, make_task, source_of


def _load(name: str, tmp_path: Path):
    path = tmp_path / f"{name}.py"
    path.write_text(source_of(name), encoding="utf-8")
    spec = importlib.util.spec_from_file_location(f"student_{name}", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.fused_chain


def test_without_the_sandbox_a_crash_is_still_its_own_verdict_and_the_next_one_runs() -> None:
    crash = graded("segfault", isolate=False)
    assert (crash.verdict, crash.family) == ("crashed", "segfault"), crash.reason
    ok = graded("correct_torch", isolate=False)
    assert ok.verdict == "ok", ok.reason
    assert ok.cases[0].measurement is not None and ok.cases[0].external_ms is not None
    for phase in ("child_start", "torch_import", "inputs", "baseline", "import", "compile", "check", "timing",
                  "verify"):
        assert phase in ok.phases


def test_without_the_sandbox_a_timer_patch_is_caught() -> None:
    r = graded("timer_patched", isolate=False)
    assert (r.verdict, r.family) == ("gamed", "timer_patched"), r.reason


def test_measure_function_torch_and_triton(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    task = make_task(source_of("correct_torch"), device="cpu")
    fast = measure_function(_load("correct_torch", tmp_path), task)
    assert len(fast) == 1 and fast[0].max_error == 0.0 and fast[0].external_ms is None
    assert fast[0].measurement is not None and fast[0].measurement.method == "wall_per_call"
    assert fast[0].measurement.bytes_moved == 2 * 4 * 2**14
    tri = measure_function(_load("correct_triton", tmp_path), task)
    assert tri[0].max_error == 0.0
    wrong = measure_function(_load("wrong", tmp_path), task)
    assert wrong[0].max_error is not None and wrong[0].max_error > 0.1


def test_a_missing_workload_is_the_course_s_error() -> None:
    with pytest.raises(AutograderError, match="does not exist"):
        run_submission(make_task("", workload=HOSTILE / "no_such_workload.py"))


def test_a_broken_workload_is_the_course_s_error(tmp_path: Path) -> None:
    bad = tmp_path / "workload.py"
    bad.write_text("raise SystemExit('the workload itself is broken')\n", encoding="utf-8")
    with pytest.raises(AutograderError, match="cannot make its inputs: the workload itself is broken"):
        run_submission(make_task(source_of("correct_torch"), workload=bad), isolate=False)


def test_a_child_that_cannot_start_is_sandbox_failed(tmp_path: Path) -> None:
    """The workload loads in the parent but fails in the child (there it sees only the framework): the
    harness broke before any student code ran."""
    odd = tmp_path / "workload.py"
    odd.write_text((HOSTILE.parent / "fixtures" / "workload.py").read_text(encoding="utf-8")
                   + "\nimport os\nif os.environ.get('HOME', '').startswith('/tmp/autograder-kernel-') or "
                   "os.environ.get('HOME') == '/tmp':\n    raise RuntimeError('only in the child')\n",
                   encoding="utf-8")
    r = run_submission(make_task(source_of("correct_torch"), workload=odd), isolate=False)
    assert r.verdict == "sandbox_failed" and "only in the child" in r.reason, r.reason


@pytest.mark.skipif(not bwrap_available(), reason="bubblewrap is not installed")
def test_the_child_command_line(tmp_path: Path) -> None:
    for d in ("nb", "out"):
        (tmp_path / d).mkdir()
    cpu = child_spec("pass", 7, tmp_path, "cpu", isolate=True)
    assert cpu.isolated and "--unshare-pid" in cpu.argv and ("--unshare-net" in cpu.argv or "--unshare-all" in cpu.argv)
    assert cpu.env["TRITON_INTERPRET"] == "1" and "PYTHONPATH" not in cpu.env
    assert not any(a.startswith("/dev/nvidia") for a in cpu.argv)
    assert str(tmp_path / "out") in cpu.argv  # the scratch, bound writable
    import pydantic

    bound = [cpu.argv[i + 2] for i, a in enumerate(cpu.argv) if a == "--ro-bind"]
    pyd = str(Path(pydantic.__file__).resolve().parent)  # what the child imports, wherever it is, is shown
    assert any(pyd == b or pyd.startswith(b + "/") for b in bound)
    gpu = child_spec("pass", 7, tmp_path, "cuda", isolate=True)
    assert "TRITON_INTERPRET" not in gpu.env
    nodes = sorted(str(p) for p in Path("/dev").glob("nvidia*"))
    assert all(n in gpu.argv for n in nodes)
    if os.geteuid() == 0:  # each child a user of its own: RLIMIT_NPROC counts a user's threads machine-wide
        assert "setpriv" in cpu.argv and cpu.uid is not None and cpu.uid >= UID_BASE
        assert f"--reuid={cpu.uid}" in cpu.argv and gpu.uid != cpu.uid
    plain = child_spec("pass", 7, tmp_path, "cpu", isolate=False)
    assert (not plain.isolated and plain.argv[0].endswith("python")) or "python" in plain.argv[0]
    assert plain.env["HOME"].startswith(str(tmp_path))


@pytest.mark.skipif(not bwrap_available(), reason="bubblewrap is not installed")
def test_in_the_sandbox_the_child_finds_bench_s_flush_helper_and_no_course_file(tmp_path: Path) -> None:
    """The CUDA child imports autograder.bench.timing (the L2 flush) in the sandbox under python -I; the
    lesson's folder is not there."""
    import subprocess

    from autograder.kernels.sandbox import child_sys_path

    from .conftest import FIXTURES

    for d in ("nb", "out"):
        (tmp_path / d).mkdir()
    probe = (f"import sys, os; sys.path += {child_sys_path()!r}; from autograder.bench.timing import L2Flusher; "
             f"print('flusher', L2Flusher.__name__, os.path.exists({str(FIXTURES / 'workload.py')!r}))")
    spec = child_spec(probe, 0, tmp_path, "cpu", isolate=True)
    proc = subprocess.run(spec.argv[:-1], env=spec.env, cwd=tmp_path / "nb", capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-800:]
    assert proc.stdout.split() == ["flusher", "L2Flusher", "False"]


def test_a_device_turn_is_exclusive_and_given_back(tmp_path, monkeypatch):
    from autograder.kernels.runner import DeviceTurn

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    first, second = DeviceTurn("cuda"), DeviceTurn("cuda")
    assert first.take(timeout_s=1.0) < 1.0
    with pytest.raises(TimeoutError):
        second.take(timeout_s=0.1)
    first.give()
    assert second.take(timeout_s=1.0) < 1.0
    second.give()
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1")
    assert DeviceTurn("cuda").path != first.path  # another GPU: another turn


def test_a_pool_on_one_device_takes_turns_and_waiting_costs_no_wall_time():
    """Two submissions at once with an exclusive device (as on a GPU): both start side by side, one waits
    for the other's device work, and the wait is reported, not charged to its wall-time limit."""
    from concurrent.futures import ThreadPoolExecutor

    from autograder.kernels import Limits

    sleepy = "import time\nimport torch\n\n\ndef fused_chain(x):\n    time.sleep(0.05)\n    return torch.relu(x * 2 + 1) * 0.5\n"
    task = make_task(sleepy, limits=Limits(wall_s=60.0, exclusive_device=True))
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda _: run_submission(task, isolate=False), range(2)))
    assert [r.verdict for r in results] == ["ok", "ok"], [r.reason for r in results]
    waits = sorted(r.phases.get("turn_wait", 0.0) for r in results)
    busy = min(r.phases["check"] + r.phases["timing"] for r in results)  # each one's device work: > 1 s
    assert busy > 1.0 and waits[0] < 0.5 < waits[1]  # one went first, the other waited for it


def test_the_device_turn_covers_the_parent_s_verification_and_is_given_back(monkeypatch):
    """The parent makes its references on the device (a GPU's generator): another child's timed loop must
    not share the device with them, so the turn is held until the verification ends, then given back."""
    from autograder.kernels import Limits, runner
    from autograder.kernels.runner import DeviceTurn

    real = runner.check_outputs
    held_during: list[bool] = []

    def probing(task, run, folder, plan):  # the real verification, with a look at the turn first
        try:
            DeviceTurn(task.device).take(timeout_s=0.05)
        except TimeoutError:
            held_during.append(True)
        else:
            held_during.append(False)
        return real(task, run, folder, plan)

    monkeypatch.setattr(runner, "check_outputs", probing)
    task = make_task(source_of("correct_torch"), limits=Limits(wall_s=60.0, exclusive_device=True))
    r = run_submission(task, isolate=False)
    assert r.verdict == "ok", r.reason
    assert held_during == [True]
    after = DeviceTurn(task.device)
    assert after.take(timeout_s=1.0) < 1.0  # given back
    after.give()


@pytest.mark.skipif(os.geteuid() != 0 or not bwrap_available(), reason="as root with bubblewrap: the child drops root")
def test_children_alive_at_once_each_run_as_a_user_of_their_own() -> None:
    """RLIMIT_NPROC counts a user's threads machine-wide: under a pool on a GPU host, children that all ran
    as ``nobody`` exhausted each other's limit ("setpriv: failed to execute python3: Resource temporarily
    unavailable"). Two children started together run as two users no other process has, each with the
    room a submission is given."""
    shape = Shape.of(make_task(""), isolate=True)
    a, b = spawn(shape), spawn(shape)
    try:
        assert a.uid is not None and b.uid is not None and a.uid != b.uid and min(a.uid, b.uid) >= UID_BASE
        assert a.proc is not None and b.proc is not None and a.proc.poll() is None and b.proc.poll() is None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (processes_of(a.uid) and processes_of(b.uid)):
            time.sleep(0.05)  # bwrap drops root once its namespaces are set up
        assert processes_of(a.uid) > 0 and processes_of(b.uid) > 0
        assert fresh_uid() not in (a.uid, b.uid)
    finally:
        a.discard()
        b.discard()
