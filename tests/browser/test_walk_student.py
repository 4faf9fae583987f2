"""A new student's first walk through two lessons, in Chromium against a real JupyterLab (nbgrader's
Assignments panel, the course's exchange), making the mistakes a newcomer makes and reading what comes back.

04_fusion: Run All on the blank notebook (every measurement refused, one line each, no traceback); a
prediction written as a string, as "70%", as a negative number, then right, then run twice; measuring; a
committed prediction edited after measuring; an explanation; ``L.status()``; Submit. 06_fused_kernel: Run All
on the blank notebook; a share written as "70%" and as 70; a kernel with a bug (refused, saying how far off);
a slow kernel (measured, a tiny share of the roofline); Submit.

What is asserted is what the student sees in the page: the text under each cell. A mistake the student can
fix is one line saying what to do, never a traceback.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
import pytest

from tests.browser.conftest import (
    COURSE_ID,
    REPO,
    LabServer,
    Released,
    fetch_and_open,
    open_lab,
    run_all,
    run_cell,
    save,
    shot,
    squash,
    student_config,
    submit,
    write_cell,
)

pytestmark = pytest.mark.slow

STUDENT = "carol"


# --- helpers -----------------------------------------------------------------------------------------------
def shown(cells: Any, i: int) -> str:
    return squash(cells.nth(i).locator(".jp-OutputArea").inner_text())


#: the views README.md shows; `AUTOGRADER_SCREENSHOTS=docs/screenshots python -m pytest tests/browser` copies them
README_SHOTS = {"04-negative.png": "walk-student-mistake.png", "06-buggy-kernel.png": "walk-student-kernel.png"}


def one_line_error(text: str) -> None:
    """A mistake the student can fix: one line starting with ✘, no traceback through the package."""
    assert "Traceback" not in text and "File " not in text and "----" not in text, text
    assert text.startswith("✘ "), text


# --- the classroom: a course, its exchange, one student's JupyterLab ----------------------------------------
@dataclass
class Walk:
    course: Path
    exchange: Path
    student: LabServer
    artifacts: Path


def release(course: Path, exchange: Path, lesson: str) -> None:
    """`nbgrader release_assignment LESSON` in the course folder, into the exchange."""
    proc = subprocess.run([sys.executable, "-m", "nbgrader", "release_assignment", lesson, f"--Exchange.root={exchange}"],
                          cwd=course, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]


@pytest.fixture(scope="module")
def walk(chromium, course_template, tmp_path_factory) -> Iterator[Walk]:
    base = tmp_path_factory.mktemp("walk-student")
    course = base / "course"
    shutil.copytree(course_template, course)
    shutil.copytree(REPO / "release" / "06_fused_kernel", course / "release" / "06_fused_kernel")
    exchange = base / "exchange"
    exchange.mkdir()
    for lesson in ("04_fusion", "06_fused_kernel"):
        release(course, exchange, lesson)
    home = base / "home" / STUDENT
    (home / ".jupyter").mkdir(parents=True)
    (home / ".jupyter" / "nbgrader_config.py").write_text(student_config(exchange, STUDENT, home), encoding="utf-8")
    server = LabServer(STUDENT, home, home)
    artifacts = base / "screenshots"
    artifacts.mkdir()
    try:
        server.start()
        server.wait_ready()
        yield Walk(course, exchange, server, artifacts)
    finally:
        server.stop()


@pytest.fixture(scope="module")
def page(browser, walk: Walk) -> Iterator[Any]:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    ctx.set_default_timeout(60_000)
    p = ctx.new_page()
    yield p
    ctx.close()


@pytest.fixture(autouse=True)
def screenshot_on_failure(request, walk: Walk, page: Any) -> Iterator[None]:
    yield
    if getattr(request.node, "browser_failed", False):
        try:
            page.screenshot(path=str(walk.artifacts / f"FAILED-{request.node.name}.png"))
        except Exception:  # a closed or crashed page: nothing to show
            pass


# --- the walk -----------------------------------------------------------------------------------------------
FUSION = Released("04_fusion")
HEADLINE = 'L.predict(\n    "gpu_speedup@fp16,2^24",\n    {value}, because="fused moves 2·N·s bytes instead of 8·N·s",\n)'
FP32 = 'L.predict(\n    "fp32_vs_fp16@2^24",\n    {value}, because="both are memory-bound",\n)'


def test_04_run_all_first_then_every_wrong_prediction_then_measure_explain_submit(walk: Walk, page: Any) -> None:
    nb = FUSION
    open_lab(page, walk.student)
    cells = fetch_and_open(page, walk.student, nb)
    # Run All on the blank notebook: every prediction says what to write, every measurement is refused
    run_all(page, cells)
    everything = squash(page.locator(".jp-NotebookPanel:visible .jp-Notebook").inner_text())
    assert "Traceback" not in everything and "Error" not in everything
    head, fp32 = nb.index("predict_headline"), nb.index("predict_fp32")
    assert shown(cells, head).startswith(
        "✘ gpu_speedup@fp16,2^24: no prediction yet — replace None with the speedup as a factor")
    for measure in ("measure_headline", "measure_sweep", "measure_largest", "measure_fp32"):
        refused = shown(cells, nb.index(measure))
        assert refused.startswith("✋ not measured yet: this would reveal "), (measure, refused)
        assert "then run this cell again" in refused and "ms" not in refused
    assert "0/4 predictions committed" in shown(cells, nb.index("status"))
    page.screenshot(path=str(walk.artifacts / "04-run-all-blank.png"))

    # a prediction written the ways a newcomer writes it: one line each, saying what to write instead
    said = {}
    for value in ('"3.5"', '"70%"', "-2"):
        write_cell(page, cells, head, HEADLINE.format(value=value))
        said[value] = run_cell(page, cells, head)
        one_line_error(said[value])
    assert said['"3.5"'] == ("✘ not committed: gpu_speedup@fp16,2^24 takes a number, the speedup as a factor "
                             "(got '3.5') — write it as a number, without quotes: 3.5")
    assert "(got '70%') — write 0.7 for 70% (a number, no quotes)" in said['"70%"']
    assert said["-2"] == "✘ not committed: gpu_speedup@fp16,2^24 is a ratio of two times and must be positive (got -2)"
    shot(walk.artifacts, page, "04-negative.png", README_SHOTS)
    write_cell(page, cells, head, HEADLINE.format(value="3.5"))
    assert run_cell(page, cells, head).startswith("✔ committed #1: fused speedup (gpu_time, fp16, 2^24) = 3.5×")
    assert run_cell(page, cells, head).startswith("✔ already committed #1: fused speedup (gpu_time, fp16, 2^24) "
                                                  "= 3.5× (unchanged, nothing new recorded)")
    write_cell(page, cells, fp32, FP32.format(value='"bigger"'))
    wrong = run_cell(page, cells, fp32)
    one_line_error(wrong)
    assert "fp32_vs_fp16@2^24 takes one of higher, lower, same (got 'bigger')" in wrong
    write_cell(page, cells, fp32, FP32.format(value='"same"'))
    assert run_cell(page, cells, fp32).startswith("✔ committed #2: fp32 vs fp16 fused speedup (gpu_time, 2^24) = same")

    # measure: both timing methods, the traffic model, what was sealed
    table = run_cell(page, cells, nb.index("measure_headline"), timeout_s=240)
    assert "wall_per_call" in table and "gpu_time" in table and "✋" not in table, table
    assert "work model: eager 4 launches, 268.4 MB; compiled 1 launch, 67.1 MB" in table
    assert "measured gpu_speedup@fp16,2^24 = " in table
    # a committed prediction edited after measuring it: committed again, and marked
    write_cell(page, cells, head, HEADLINE.format(value="4.0"))
    edited = run_cell(page, cells, head)
    assert "committed #" in edited and "= 4×" in edited
    assert "⚠ you changed it after measuring this quantity: it is marked revised_after_measurement." in edited
    write_cell(page, cells, nb.index("explain_headline"),
               "Eager runs 4 kernels moving 268 MB; fused moves 67 MB in 1 kernel: 4x less traffic.")
    status = run_cell(page, cells, nb.index("status"))
    assert "⚠ gpu_speedup@fp16,2^24 revised 4× changed after you measured it: the course policy applies" in status
    assert "✘ wall_speedup@fp32,2^30 missing" in status and "✔ fp32_vs_fp16@2^24 committed same" in status
    assert "1/4 predictions committed and valid" in status
    page.screenshot(path=str(walk.artifacts / "04-status.png"))
    save(page, walk.student, nb)
    submit(page, nb.lesson)
    inbound = list((walk.exchange / COURSE_ID / "inbound").glob(f"{STUDENT}+04_fusion+*"))
    assert len(inbound) == 1
    sent = nbformat.read(str(inbound[0] / "04_fusion.ipynb"), as_version=4)
    assert "67 MB in 1 kernel" in sent.cells[nb.index("explain_headline")].source


KERNEL = Released("06_fused_kernel")
TRITON = '''import torch
import triton
import triton.language as tl

BLOCK_SIZE = {block}


@triton.jit
def _chain(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = {body}
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def fused_chain(x):
    y = torch.empty_like(x)
    n = x.numel()
    _chain[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, BLOCK_SIZE=BLOCK_SIZE)
    return y'''
RIGHT = "tl.maximum(x * 2.0 + 1.0, 0.0) * 0.5"
BUGGY = "tl.maximum(x * 2.0 + 1.0, 0.0)"  # forgot the * 0.5
SHARE = 'L.predict(\n    "share@fp16,2^26",\n    {value}, because="one read and one write per element",\n)'
SPEEDUP = 'L.predict(\n    "speedup_vs_eager@fp16,2^26",\n    4.0, because="a quarter of eager\'s bytes in one launch",\n)'


def test_06_run_all_first_a_share_as_a_percent_a_buggy_kernel_a_slow_one_then_submit(walk: Walk, page: Any) -> None:
    nb = KERNEL
    cells = fetch_and_open(page, walk.student, nb)
    run_all(page, cells)
    everything = squash(page.locator(".jp-NotebookPanel:visible .jp-Notebook").inner_text())
    assert "Traceback" not in everything
    answer, share, speedup, measure = (nb.index(g) for g in
                                       ("answer_kernel", "predict_share", "predict_speedup", "measure_kernel"))
    assert shown(cells, share).startswith("✘ share@fp16,2^26: no prediction yet — replace None")
    assert shown(cells, measure).startswith(
        "✋ not measured yet: this would reveal share@fp16,2^26, speedup_vs_eager@fp16,2^26, which you have not "
        "predicted.")
    # a share written as a percent, then as a whole number: each one line saying to write 0.7
    write_cell(page, cells, share, SHARE.format(value='"70%"'))
    percent = run_cell(page, cells, share)
    one_line_error(percent)
    assert "a fraction of the copy roofline, e.g. 0.7 for 70% (got '70%')" in percent
    write_cell(page, cells, share, SHARE.format(value="70"))
    seventy = run_cell(page, cells, share)
    one_line_error(seventy)
    assert seventy.endswith("is not a plausible fraction of the peak (expected between 1e-7 and 1.5) — write 0.7 "
                            "for 70%")
    write_cell(page, cells, share, SHARE.format(value="0.7"))
    assert "✔ committed #1: your kernel's share of the copy roofline" in run_cell(page, cells, share)
    write_cell(page, cells, speedup, SPEEDUP)
    assert "✔ committed #2: your kernel's speedup over eager" in run_cell(page, cells, speedup)
    # a kernel with a bug: refused, saying how far off and what to do
    write_cell(page, cells, answer, TRITON.format(block=1024, body=BUGGY))
    run_cell(page, cells, answer)
    wrong = run_cell(page, cells, measure)
    assert wrong.startswith("✘ not measured: fused_chain at float16, n=") and "differs from the reference" in wrong
    assert wrong.endswith("Fix fused_chain and run its cell, then this one again."), wrong
    shot(walk.artifacts, page, "06-buggy-kernel.png", README_SHOTS)
    # a right but slow kernel (tiny blocks): measured, and the table says how far below the roofline it is
    write_cell(page, cells, answer, TRITON.format(block=256, body=RIGHT))
    run_cell(page, cells, answer)
    slow = run_cell(page, cells, measure, timeout_s=240)
    assert "your fused_chain ms" in slow and "eager ms" in slow, slow
    assert "(on a CPU this lesson measures float16, 2^12 instead of float16, 2^26: see lesson.toml)" in slow
    assert re.search(r"of this device's copy roofline", slow) and "measured share@fp16,2^26 = " in slow
    page.screenshot(path=str(walk.artifacts / "06-slow-kernel.png"))
    write_cell(page, cells, nb.index("explain_kernel"),
               "My kernel moves 2·N·s = 268 MB in 1 launch; eager moves 1,074 MB in 4.")
    status = run_cell(page, cells, nb.index("status"))
    assert "2/2 predictions committed and valid" in status, status
    save(page, walk.student, nb)
    submit(page, nb.lesson)
    assert list((walk.exchange / COURSE_ID / "inbound").glob(f"{STUDENT}+06_fused_kernel+*"))
