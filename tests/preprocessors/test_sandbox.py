"""Student code on the native path runs in bubblewrap: one `nbgrader autograde` call over a class in which
some notebooks try to read another student's submission, the gradebook or the records, write outside their
folder, open a socket, fork without end, read what the machine holds outside the course (the grader's
environment, /etc/passwd, /var/tmp, another repository, an nbgrader exchange) and catch the error, replace
`L.grade`, print 64 MiB, or fill the disk. Each is denied or bounded, gets a verdict in words, is still
graded from its ledger, and shows nothing of the machine; the honest notebook beside them is graded
exactly as the fast batch grades it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import nbformat
import pytest

from autograder.batch.fast import grade_class
from autograder.bench.store import ReferenceStore
from autograder.config import CourseSettings
from autograder.course import Course
from autograder.grading.grade import grade_cell_text
from autograder.grading.policy import GradingPolicy
from autograder.preprocessors.sandbox import bwrap_available, preflight, python_roots, start_failure_line
from autograder.sample.generate import PERSONAS, make_submission
from autograder.storage.gradebook_sync import read_rows
from autograder.storage.records_store import RecordStore

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not bwrap_available(), reason="bubblewrap is not installed")]

SECRET_ENV = "AUTOGRADER_TEST_GRADER_SECRET"
SECRET = "s3cr3t-of-the-grader-7d1f"

HOSTILE = {
    "snoop_student": "print(open('../../../submitted/good/04_fusion/04_fusion.ipynb').read()[:100])",
    "snoop_gradebook": "print(open('../../../gradebook.db', 'rb').read(100))",
    "snoop_records": "import os\nprint(os.listdir('../../../records/04_fusion'))",
    "vandal": "open('../../../records/pwned.txt', 'w').write('x')",
    "vandal_system": "open('/usr/pwned.txt', 'w').write('x')",
    "caller": "import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=5)",
    "forker": "import os, time\nwhile True:\n    if os.fork() == 0:\n        time.sleep(30)\n        os._exit(0)",
}
# the machine outside the course: every path is read and the error caught, so only the sandbox's own
# audit can say it happened
CATCHER = """import os
print(os.environ.get({env!r}))
for p in {paths!r}:
    try:
        print(open(p).read()[:200])
    except OSError as e:
        print('caught', type(e).__name__)
try:
    print(os.listdir({exchange!r}))
except OSError:
    print('caught listing')
"""
CHEATER = "L.grade = lambda q: (print('2.00/2 points — ' + 'full' + ' marks'), 2.0)[1]"  # printed, not in the source
PRINTER = "print('x' * (64 << 20))"
FILLER = """try:
    open('/tmp/a.bin', 'wb').write(b'0' * (100 << 20))
    open('b.bin', 'wb').write(b'0' * (100 << 20))
except OSError as e:
    print('caught', e)
"""
SCRATCH_MB = 150
STUDENTS = ["good", *HOSTILE, "catcher", "cheater", "printer", "filler"]


@pytest.fixture(scope="module")
def outside(tmp_path_factory):
    """What else lives on the machine: a file in /var/tmp, another repository, an nbgrader exchange."""
    base = tmp_path_factory.mktemp("elsewhere")
    repo = base / "other-repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "secret.txt").write_text("OTHER-REPO-SECRET", encoding="utf-8")
    exchange = base / "exchange" / "gpu-lessons" / "inbound"
    exchange.mkdir(parents=True)
    (exchange / "someone+04_fusion+2026").mkdir()
    (exchange / "someone+04_fusion+2026" / "04_fusion.ipynb").write_text("EXCHANGE-SECRET", encoding="utf-8")
    var = Path(f"/var/tmp/autograder-test-{os.getpid()}")
    var.mkdir(exist_ok=True)
    (var / "note.txt").write_text("VAR-TMP-SECRET", encoding="utf-8")
    os.chmod(var / "note.txt", 0o644)
    yield {"passwd": "/etc/passwd", "var": str(var / "note.txt"), "repo": str(repo / "secret.txt"),
           "exchange": str(exchange / "someone+04_fusion+2026" / "04_fusion.ipynb"), "exchange_dir": str(exchange)}
    shutil.rmtree(var, ignore_errors=True)


def _cells(outside):
    paths = [outside[k] for k in ("passwd", "var", "repo", "exchange")] + ["/proc/1/environ"]
    return {**HOSTILE, "catcher": CATCHER.format(env=SECRET_ENV, paths=paths, exchange=outside["exchange_dir"]),
            "cheater": CHEATER, "printer": PRINTER, "filler": FILLER}


def _course(tmp_path_factory, course_template, name, cells):
    root = tmp_path_factory.mktemp(name) / "course"
    shutil.copytree(course_template, root)
    c = Course.at(root)
    spec = c.spec("04_fusion")
    ref = ReferenceStore(c.references).load("04_fusion", "nvidia-h200")
    release = nbformat.read(str(root / "release/04_fusion/04_fusion.ipynb"), as_version=4)
    start = datetime(2026, 11, 28, tzinfo=timezone.utc)
    for i, student in enumerate(STUDENTS):
        persona = PERSONAS[2] if student == "cheater" else PERSONAS[0]  # the cheater's real grade is not 8/8
        nb = make_submission(release, spec, ref, persona, seed=60 + i, start=start)
        if student in cells:
            nb.cells.insert(2, nbformat.v4.new_code_cell(cells[student]))
        folder = c.submitted / student / "04_fusion"
        folder.mkdir(parents=True)
        nbformat.write(nb, str(folder / "04_fusion.ipynb"))
    (c.records / "04_fusion").mkdir(parents=True, exist_ok=True)
    (c.records / "04_fusion" / "someone.json").write_text("{}", encoding="utf-8")
    return c


@pytest.fixture(scope="module")
def sandboxed(tmp_path_factory, course_template, outside):
    cells = _cells(outside)
    c = _course(tmp_path_factory, course_template, "sandbox", cells)
    env = {**os.environ, SECRET_ENV: SECRET}
    proc = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", "04_fusion",
                           "--LimitedExecute.timeout=30", "--LimitedExecute.process_limit=64",
                           f"--LimitedExecute.scratch_mb={SCRATCH_MB}"],
                          cwd=c.root, capture_output=True, text=True, timeout=900, env=env)
    feedback = subprocess.run([sys.executable, "-m", "nbgrader", "generate_feedback", "04_fusion"],
                              cwd=c.root, capture_output=True, text=True, timeout=600, env=env)
    assert feedback.returncode == 0, feedback.stderr[-3000:]
    fast = _course(tmp_path_factory, course_template, "sandbox_fast", cells)
    grade_class(fast, "04_fusion", GradingPolicy(), workers=1)
    return c, fast, proc


def _shown(c, student):
    """Everything of the run the student or a TA reads about this student: the autograded notebook, the
    feedback page, the record."""
    folder = c.root / "autograded" / student / "04_fusion"
    feedback = c.root / "feedback" / student / "04_fusion" / "04_fusion.html"
    record = c.records / "04_fusion" / f"{student}.json"
    return "\n".join(p.read_text(encoding="utf-8") for p in (folder / "04_fusion.ipynb", feedback, record))


def test_every_notebook_is_graded(sandboxed):
    c, _, proc = sandboxed
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert {r.student for r in RecordStore(c.records).all("04_fusion")} >= set(STUDENTS)


@pytest.mark.parametrize("student", sorted(HOSTILE))
def test_each_attempt_is_denied_with_a_verdict(sandboxed, student):
    c, _, _ = sandboxed
    record = RecordStore(c.records).load("04_fusion", student)
    assert "execution_denied" in record.flags, record.flags
    assert any(word in " ".join(record.errors) for word in
               ("No such file", "Read-only file system", "Network is unreachable", "Resource temporarily"))
    assert record.total > 0  # still graded from its ledger


def test_nothing_outside_the_folders_changed_or_leaked(sandboxed):
    c, _, proc = sandboxed
    assert not (c.records / "pwned.txt").exists() and not (c.root / "records" / "pwned.txt").exists()
    assert not Path("/usr/pwned.txt").exists()
    assert not any("execution_wrote_outside_folder" in f for r in RecordStore(c.records).all("04_fusion")
                   for f in r.flags)
    assert "SQLite format" not in proc.stdout + proc.stderr


def test_the_machine_outside_the_course_is_not_shown(sandboxed, outside):
    """The grader's environment, /etc/passwd, /var/tmp, another repository, an nbgrader exchange: none of
    it reaches the autograded notebook, the feedback or the record; the student code saw each read fail."""
    c, _, proc = sandboxed
    shown = _shown(c, "catcher")
    for secret in (SECRET, "root:x:0", "VAR-TMP-SECRET", "OTHER-REPO-SECRET", "EXCHANGE-SECRET"):
        assert secret not in shown, secret
        assert secret not in proc.stdout + proc.stderr, secret
    nb = json.loads((c.root / "autograded/catcher/04_fusion/04_fusion.ipynb").read_text(encoding="utf-8"))
    printed = "".join("".join(o.get("text", "")) for o in nb["cells"][2]["outputs"])
    assert printed.count("caught") == 6 and printed.startswith("None")  # no variable, no file, no listing


def test_caught_denials_are_flagged_with_what_was_tried(sandboxed, outside):
    c, _, _ = sandboxed
    record = RecordStore(c.records).load("04_fusion", "catcher")
    assert "execution_denied" in record.flags
    said = " ".join(record.errors)
    for key in ("passwd", "var", "repo", "exchange"):
        assert f"tried to open {outside[key]}, which the grading sandbox does not show" in said, key
    assert "tried to read /proc/1/environ" in said
    assert "even if the code caught the error" in said
    assert record.total > 0


def test_the_clean_notebook_has_no_execution_flag(sandboxed):
    """The audit hook notes nothing for a notebook that only does what the lesson does."""
    c, _, _ = sandboxed
    good = RecordStore(c.records).load("04_fusion", "good")
    assert not [f for f in good.flags if f.startswith("execution_")], good.errors


def test_test_cells_show_the_record_not_the_students_kernel(sandboxed):
    """A notebook that replaces L.grade prints '2.00/2 points' in its kernel; the autograded notebook and
    the feedback show the record's points and reasons (what the gradebook has)."""
    c, _, _ = sandboxed
    record = RecordStore(c.records).load("04_fusion", "cheater")
    assert record.total < 8  # the lie would be 8/8
    nb = json.loads((c.root / "autograded/cheater/04_fusion/04_fusion.ipynb").read_text(encoding="utf-8"))
    by_id = {c_["metadata"].get("nbgrader", {}).get("grade_id"): c_ for c_ in nb["cells"]}
    html = (c.root / "feedback/cheater/04_fusion/04_fusion.html").read_text(encoding="utf-8")
    assert "full marks" not in json.dumps(nb) and "full marks" not in html
    for p in record.predictions:
        outs = by_id[p.grade_id]["outputs"]
        assert "".join(outs[0]["text"]) == grade_cell_text(p) + "\n"
        assert float("".join(outs[1]["data"]["text/plain"])) == p.points


def test_a_64_mib_print_is_cut_and_flagged(sandboxed):
    c, _, _ = sandboxed
    path = c.root / "autograded/printer/04_fusion/04_fusion.ipynb"
    assert path.stat().st_size < 2 << 20
    assert (c.root / "feedback/printer/04_fusion/04_fusion.html").stat().st_size < 3 << 20
    record = RecordStore(c.records).load("04_fusion", "printer")
    assert "execution_output" in record.flags
    assert any("printed 64.0 MiB of output; the first 1024 KiB are kept" in e for e in record.errors)
    assert record.total > 0


def test_the_scratch_space_is_one_budget_and_nothing_written_is_kept(sandboxed):
    c, _, _ = sandboxed
    record = RecordStore(c.records).load("04_fusion", "filler")
    assert "execution_disk" in record.flags
    assert any(f"filled its {SCRATCH_MB} MiB scratch space (/tmp and its folder together" in e
               for e in record.errors)
    assert not list((c.root / "autograded/filler/04_fusion").glob("*.bin"))
    assert record.total > 0


def test_gradebook_rows_equal_the_fast_batch(sandboxed):
    c, fast, _ = sandboxed
    assert read_rows(CourseSettings.load(c.root).db_url, "04_fusion", "04_fusion") == read_rows(
        CourseSettings.load(fast.root).db_url, "04_fusion", "04_fusion"
    )


def test_python_in_the_sandbox_wherever_it_lives(tmp_path):
    """A venv under /tmp, /home or /opt (layered on this one's packages by a .pth, as a venv over a conda
    or system Python is) starts ipykernel in the sandbox; this interpreter's own base lives under /root."""
    assert preflight(python_roots()) is None
    site = next(p for p in sys.path if p.endswith("site-packages"))
    for top in ("/tmp", "/home", "/opt"):
        venv = Path(top) / f"autograder-test-venv-{os.getpid()}"
        try:
            subprocess.run([sys._base_executable, "-m", "venv", "--without-pip", str(venv)], check=True)  # type: ignore[attr-defined]
            lib = next((venv / "lib").glob("python3*")) / "site-packages"
            (lib / "layered.pth").write_text(f"import site; site.addsitedir({site!r})\n", encoding="utf-8")
            code = "from autograder.preprocessors.sandbox import preflight, python_roots; print(preflight(python_roots()))"
            out = subprocess.run([str(venv / "bin" / "python"), "-c", code], capture_output=True, text=True,
                                 timeout=300, cwd=tmp_path)
            assert out.stdout.strip() == "None", (top, out.stdout, out.stderr[-2000:])
        finally:
            shutil.rmtree(venv, ignore_errors=True)


def test_a_kernel_that_cannot_start_is_one_line_with_bwraps_words(tmp_path):
    line = preflight([*python_roots(), tmp_path / "no-such-folder"])
    assert line is not None and "\n" not in line
    assert line.startswith("Python could not start in the sandbox: bwrap: ")
    assert "no-such-folder" in line and "No such file or directory" in line
    assert start_failure_line("noise\nbwrap: setting up uid map: Permission denied\n").endswith(
        "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1)")
