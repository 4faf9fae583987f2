"""One assignment's whole journey through a browser and nbgrader's exchange, for the real lesson 04_fusion.

The instructor releases it from formgrader; alice fetches it in JupyterLab's Assignments panel, opens it,
fills in her predictions and explanations, runs the cells in the order the notebook gives, validates,
saves and submits; bob starts with Run All, is told what to do, predicts and measures again, and submits.
The instructor collects from formgrader, grades with ``nbgrader autograde`` (the documented native path:
formgrader and the feedback render its autograded notebooks), reads the score reasons and the explanation
pre-read in formgrader, gives a manual score and a comment, and generates the feedback, whose HTML must
show all of it.

The steps share one classroom (servers, exchange, course) and run in file order; a step whose predecessor
failed fails at once. Screenshots of the key views are kept under the module's temporary folder
(``screenshots/``); with ``AUTOGRADER_SCREENSHOTS=DIR`` the three the README shows are copied to DIR
(``AUTOGRADER_SCREENSHOTS=docs/screenshots python -m pytest tests/browser``).
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from typing import Any

import nbformat
import pytest

from autograder.config import CourseSettings
from autograder.sample.fill import fill_predictions
from autograder.storage.records_store import RecordStore
from tests.browser.conftest import (
    COURSE_ID,
    Classroom,
    Released,
    fetch_and_open,
    formgrader_action,
    open_lab,
    run_all,
    run_cell,
    run_selected,
    save,
    select_cell,
    shot,
    squash,
    submit,
    write_cell,
)

pytestmark = pytest.mark.slow

FUSION = Released("04_fusion")
# released cell index -> what the student writes there
ALICE_PREDICTIONS = {
    "predict_headline": (
        'L.predict(\n    "gpu_speedup@fp16,2^24",\n'
        '    3.6, because="fused moves 2·N·s bytes instead of 8·N·s and both are memory-bound",\n)'
    ),
    "predict_small": (
        'L.predict(\n    "wall_2^20_vs_2^28@fp16",\n    "lower", because="2 MB is nothing: both are launch overhead",\n)\n'
        'L.predict(\n    "wall_speedup@fp32,2^30",\n'
        '    3.5, because="at 1 GiB per tensor the kernels outlast the dispatch",\n)'
    ),
    "predict_fp32": (
        '# your value is "higher", "lower" or "same"\n'
        'L.predict(\n    "fp32_vs_fp16@2^24",\n    "same", because="both are memory-bound: the same 4x less traffic",\n)'
    ),
}
ALICE_EXPLANATIONS = {
    "explain_headline": "Eager runs four kernels moving 268 MB; fused moves 67 MB in one kernel: 4x less traffic, "
    "so about 3.9x in GPU time near the 4,200 GB/s roofline.",
    "explain_sweep": "At 2^12 both versions are launch overhead: four launches against one.",
}
BOB_ANSWERS = {
    "gpu_speedup@fp16,2^24": (2.0, "half the traffic"),
    "wall_speedup@fp32,2^30": (2.0, "fewer launches"),
    "wall_2^20_vs_2^28@fp16": ("higher", "fewer launches"),
    "fp32_vs_fp16@2^24": ("lower", "fp32 is slower"),
}
MANUAL_SCORE = "2.5"
MANUAL_COMMENT = "Right bytes and launches; now say why the two timing methods disagree."
README_SHOTS = {n: n for n in ("student-notebook.png", "formgrader-grading.png", "feedback.png")}

done: set[str] = set()


def needs(*steps: str) -> None:
    missing = [s for s in steps if s not in done]
    if missing:
        pytest.fail(f"an earlier step did not pass: {', '.join(missing)}")


# --- the browser side ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def pages(browser, classroom: Classroom) -> dict[str, Any]:
    """One page per person (a person's whole session happens in one browser tab)."""
    out = {}
    for who in ("instructor", "alice", "bob"):
        ctx = browser.new_context(viewport={"width": 1280, "height": 860})
        ctx.set_default_timeout(60_000)
        out[who] = ctx.new_page()
    return out


@pytest.fixture(autouse=True)
def screenshots_on_failure(request, classroom, pages):
    """A failed step leaves a screenshot of every person's page beside the others."""
    yield
    if getattr(request.node, "browser_failed", False):
        for who, page in pages.items():
            try:
                page.screenshot(path=str(classroom.artifacts / f"FAILED-{request.node.name}-{who}.png"))
            except Exception:  # a closed or crashed page: nothing to show
                pass


def predict_cell(quantity: str) -> str:
    """The grade_id of the cell where a quantity is predicted."""
    return next(c.metadata["nbgrader"]["grade_id"] for c in FUSION.cells()
                if c.cell_type == "code" and f'"{quantity}"' in c.source and "predict" in c.source)


def outputs(nb: Any, grade_id: str) -> str:
    cell = next(c for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id)
    return "".join(o.get("text", "") or str(o.get("data", {}).get("text/plain", "")) for o in cell.get("outputs", []))


# --- the steps -----------------------------------------------------------------------------------------
def test_instructor_releases_from_formgrader(classroom, pages):
    page = pages["instructor"]
    page.goto(classroom.instructor.at("/formgrader"))
    page.locator("td.name", has_text="04_fusion").wait_for()
    formgrader_action(page, "04_fusion", "release")
    assert (classroom.exchange / COURSE_ID / "outbound" / "04_fusion" / "04_fusion.ipynb").exists()
    done.add("released")


def test_alice_fetches_predicts_runs_in_order_validates_and_submits(classroom, pages):
    needs("released")
    page, server = pages["alice"], classroom.students["alice"]
    open_lab(page, server)
    cells = fetch_and_open(page, server, FUSION)
    for gid, text in ALICE_PREDICTIONS.items():
        write_cell(page, cells, FUSION.index(gid), text)
    for gid, text in ALICE_EXPLANATIONS.items():
        write_cell(page, cells, FUSION.index(gid), text)
    shown = {}
    select_cell(page, cells, 0)
    for i, cell in enumerate(FUSION.cells()):  # the notebook's order: Shift+Enter from the top
        out = run_selected(page, cells.nth(i))
        shown[cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", i)] = squash(out)
    assert "✔ committed #1: fused speedup (gpu_time, fp16, 2^24) = 3.6×" in shown["predict_headline"]
    assert "wall_per_call" in shown["measure_headline"] and "gpu_time" in shown["measure_headline"]
    assert "✋" not in shown["measure_headline"] and "✋" not in shown["measure_sweep"]
    assert "4/4 predictions committed and valid" in shown["status"]
    cells.nth(FUSION.index("predict_headline")).evaluate("e => e.scrollIntoView({block: 'start'})")
    shot(classroom.artifacts, page, "student-notebook.png", README_SHOTS)
    nb = save(page, server, FUSION)
    assert "committed #1" in outputs(nb, "predict_headline")
    assert ALICE_EXPLANATIONS["explain_sweep"] in next(
        c.source for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "explain_sweep")
    # Validate (nbgrader's button): runs the saved notebook in a fresh kernel, which must not touch the ledger
    ledger = (server.root / "04_fusion" / ".04_fusion.ledger.json").read_bytes()
    page.locator(".jp-NotebookPanel:visible .jp-Toolbar").get_by_text("Validate", exact=True).click()
    dialog = page.locator(".jp-Dialog")
    dialog.wait_for(timeout=180_000)
    verdict = squash(dialog.inner_text())
    shot(classroom.artifacts, page, "student-validate.png", README_SHOTS)
    assert "Success" in verdict or "passes" in verdict, verdict
    dialog.get_by_role("button").last.click()
    assert (server.root / "04_fusion" / ".04_fusion.ledger.json").read_bytes() == ledger
    submit(page, "04_fusion")
    inbound = list((classroom.exchange / COURSE_ID / "inbound").glob("alice+04_fusion+*"))
    assert len(inbound) == 1 and (inbound[0] / "04_fusion.ipynb").exists()
    done.add("alice")


def test_bob_runs_all_first_is_told_what_to_do_then_predicts_and_submits(classroom, pages):
    needs("released")
    page, server = pages["bob"], classroom.students["bob"]
    open_lab(page, server)
    cells = fetch_and_open(page, server, FUSION)
    run_all(page, cells)
    measure = cells.nth(FUSION.index("measure_headline"))
    refused = squash(measure.locator(".jp-OutputArea").inner_text())
    named = re.search(r"✋ not measured yet: this would reveal (.+?), which you have not predicted", refused)
    assert named, refused
    quantities = named.group(1).split(", ")
    assert {"gpu_speedup@fp16,2^24", "fp32_vs_fp16@2^24"} <= set(quantities)
    assert "then run this cell again" in refused
    assert "method" not in refused  # no timing shown before a prediction
    status = squash(cells.nth(FUSION.index("status")).locator(".jp-OutputArea").inner_text())
    assert "0/4 predictions committed" in status
    shot(classroom.artifacts, page, "student-run-all-refused.png", README_SHOTS)
    # what the message says: commit the predictions it names, then run the measurement again (until it
    # measures: on a CPU the fp32 question is measured in float16 too, and is named once the others are in)
    committed: list[str] = []
    for _ in range(3):
        for gid in sorted({predict_cell(q) for q in quantities}, key=FUSION.index):
            src = nbformat.v4.new_code_cell(FUSION.cells()[FUSION.index(gid)].source)
            mine = [q for q in BOB_ANSWERS if predict_cell(q) == gid and (q in quantities or q in committed)]
            assert fill_predictions({"cells": [src]}, {q: BOB_ANSWERS[q] for q in mine}) == []
            write_cell(page, cells, FUSION.index(gid), src.source)
            assert "✔ committed" in run_cell(page, cells, FUSION.index(gid))
        committed += quantities
        table = squash(run_cell(page, cells, FUSION.index("measure_headline")))
        named = re.search(r"✋ not measured yet: this would reveal (.+?), which you have not predicted", table)
        if named is None:
            break
        quantities = named.group(1).split(", ")
    assert "wall_per_call" in table and "gpu_time" in table and "✋" not in table, table
    nb = save(page, server, FUSION)
    assert "measured gpu_speedup@fp16,2^24" in outputs(nb, "measure_headline")
    submit(page, "04_fusion")
    assert list((classroom.exchange / COURSE_ID / "inbound").glob("bob+04_fusion+*"))
    done.add("bob")


def test_instructor_collects_and_grades(classroom, pages):
    needs("alice", "bob")
    page = pages["instructor"]
    page.goto(classroom.instructor.at("/formgrader"))
    page.locator("td.name", has_text="04_fusion").wait_for()
    formgrader_action(page, "04_fusion", "collect")
    for student in ("alice", "bob"):
        assert (classroom.course / "submitted" / student / "04_fusion" / "04_fusion.ipynb").exists()
    proc = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", "04_fusion"], cwd=classroom.course,
                          env=classroom.instructor.env(), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    records = {r.student: r for r in RecordStore(classroom.course / "records").all("04_fusion")}
    assert set(records) == {"alice", "bob"}
    alice = records["alice"]
    # the ledger came through the exchange intact: a trusted chain, her four predictions graded
    assert alice.chain.status == "ok", alice.chain
    assert [p.predicted for p in alice.predictions] == [3.6, 3.5, "lower", "same"]
    assert all("reference measured" in p.reason or "H200" in p.reason for p in alice.predictions)
    assert alice.explanations[0].comment.startswith("Autograder pre-read: found")
    bob = records["bob"]
    assert bob.chain.status == "ok" and bob.predictions[0].predicted == 2.0
    assert bob.predictions[3].predicted == "lower"
    for missing in bob.predictions[1:3]:  # the section-3 questions: he never ran that prediction cell
        assert missing.points == 0 and missing.reason.startswith("no committed prediction")
    assert not any("revised_after_measurement" in p.flags for p in bob.predictions)  # Run All first cost nothing
    done.add("graded")


def test_instructor_reads_reasons_and_preread_in_formgrader_and_grades_by_hand(classroom, pages):
    needs("graded")
    from nbgrader.api import Gradebook

    page = pages["instructor"]
    alice = RecordStore(classroom.course / "records").load("04_fusion", "alice")
    db_url = CourseSettings.load(classroom.course).db_url
    page.goto(classroom.instructor.at("/formgrader/gradebook/04_fusion/04_fusion"))
    page.locator("td", has_text="alice").first.wait_for()
    row = page.locator("tr", has=page.locator("td", has_text="alice"))
    row.locator("a", has_text=re.compile("Submission")).first.click()
    page.locator("#explain_headline-comment").wait_for()
    # formgrader's comment models have loaded (it then sets the box's placeholder to the automatic
    # comment): typing earlier is overwritten when they arrive
    page.wait_for_function("""() => {
        const c = document.querySelector('#explain_headline-comment');
        return c && c.placeholder.startsWith('Autograder pre-read');
    }""")
    # every score reason, fully visible: in the page's text, and no output box scrolls sideways
    text = squash(page.locator("body").inner_text())
    for p in alice.predictions:
        assert squash(p.reason) in text, p.quantity
    wide = page.evaluate("""() => [...document.querySelectorAll('.output_subarea')]
        .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.innerText.slice(0, 80))""")
    assert not wide, f"outputs that scroll sideways: {wide}"
    # the pre-read, in full under the answer, and still there once the instructor types a comment
    note = page.locator(".text_cell_render", has_text="Autograder on explain_headline")
    assert note.is_visible()
    assert squash(alice.explanations[0].comment) in squash(note.inner_text())
    page.locator("#explain_headline").fill(MANUAL_SCORE)
    page.locator("#explain_headline").press("Tab")
    page.locator("#explain_headline-comment").fill(MANUAL_COMMENT)
    page.locator("#explain_headline-comment").press("Tab")
    assert note.is_visible() and squash(alice.explanations[0].comment) in squash(note.inner_text())
    deadline = time.monotonic() + 30
    while True:  # formgrader saves on change, over its REST API
        with Gradebook(db_url) as gb:
            grade = gb.find_grade("explain_headline", "04_fusion", "04_fusion", "alice")
            comment = gb.find_comment("explain_headline", "04_fusion", "04_fusion", "alice")
            saved = (grade.manual_score, comment.manual_comment, comment.auto_comment)
        if saved[:2] == (float(MANUAL_SCORE), MANUAL_COMMENT):
            break
        assert time.monotonic() < deadline, f"formgrader did not save the manual grade: {saved}"
        time.sleep(0.3)
    assert saved[2] == alice.explanations[0].comment  # the pre-read is still the automatic comment
    note.scroll_into_view_if_needed()
    page.mouse.wheel(0, -260)
    shot(classroom.artifacts, page, "formgrader-grading.png", README_SHOTS)
    done.add("hand-graded")


def test_feedback_shows_reasons_preread_and_the_instructors_comment(classroom, pages):
    needs("hand-graded")
    page = pages["instructor"]
    alice = RecordStore(classroom.course / "records").load("04_fusion", "alice")
    page.goto(classroom.instructor.at("/formgrader"))
    page.locator("td.name", has_text="04_fusion").wait_for()
    formgrader_action(page, "04_fusion", "generate-feedback")
    html = classroom.course / "feedback" / "alice" / "04_fusion" / "04_fusion.html"
    assert html.exists()
    page.goto(html.as_uri())
    text = squash(page.locator("body").inner_text())
    for p in alice.predictions:
        assert squash(p.reason) in text, p.quantity
    assert MANUAL_COMMENT in text
    preread = squash(alice.explanations[0].comment)
    assert preread in text and text.index(MANUAL_COMMENT) < text.index(preread)
    assert squash(alice.explanations[1].comment) in text  # no manual comment there: the pre-read alone
    footer = page.locator(".panel-footer", has_text=MANUAL_COMMENT)
    assert footer.is_visible() and preread in squash(footer.inner_text())
    wide = page.evaluate("""() => [...document.querySelectorAll('.output_subarea, .panel-footer')]
        .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.innerText.slice(0, 80))""")
    assert not wide, f"feedback boxes that scroll sideways: {wide}"
    footer.scroll_into_view_if_needed()
    page.mouse.wheel(0, -300)
    shot(classroom.artifacts, page, "feedback.png", README_SHOTS)
