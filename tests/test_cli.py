import subprocess
import sys

import pytest
from typer.testing import CliRunner

from autograder.cli import app

runner = CliRunner()
COMMANDS = ["bench", "plot", "check", "grade", "report", "sample", "demo", "new", "lint", "quickstart"]


@pytest.mark.parametrize("cmd", COMMANDS)
def test_every_subcommand_has_help(cmd):
    r = runner.invoke(app, [cmd, "--help"])
    assert r.exit_code == 0 and "Usage" in r.output


def test_top_level_help_lists_commands():
    r = subprocess.run([sys.executable, "-m", "autograder", "--help"], capture_output=True, text=True, check=True)
    for cmd in COMMANDS:
        assert cmd in r.stdout


def test_errors_are_one_line_not_a_traceback(tmp_path):
    r = runner.invoke(app, ["grade", "04_fusion", "--course", str(tmp_path)])
    assert r.exit_code == 2 and "no lesson.toml" in r.output and "Traceback" not in r.output
    r = runner.invoke(app, ["check", str(tmp_path / "missing.ipynb")])
    assert r.exit_code == 2 and "no such file" in r.output


def test_check_on_blank_release_and_on_a_sample(course):
    r = runner.invoke(app, ["check", str(course / "release/04_fusion/04_fusion.ipynb")])
    assert r.exit_code == 1 and "0/4 predictions committed" in r.output
    runner.invoke(app, ["sample", "04_fusion", "--course", str(course), "--students", "3"], catch_exceptions=False)
    nb = next((course / "submitted").glob("*careful*/04_fusion/04_fusion.ipynb"), None) or next(
        (course / "submitted").glob("*/04_fusion/04_fusion.ipynb")
    )
    r = runner.invoke(app, ["check", str(nb), "--lesson", str(course / "source/04_fusion")])
    assert "predictions committed" in r.output


def test_grade_and_report(course):
    runner.invoke(app, ["sample", "04_fusion", "--course", str(course), "--students", "8"], catch_exceptions=False)
    r = runner.invoke(app, ["grade", "04_fusion", "--course", str(course), "--workers", "1"], catch_exceptions=False)
    assert r.exit_code == 0 and "graded 8" in r.output
    r = runner.invoke(app, ["report", "04_fusion", "--course", str(course)], catch_exceptions=False)
    assert r.exit_code == 0
    csv_text = (course / "reports/04_fusion/grades.csv").read_text()
    assert csv_text.count("\n") == 9
    assert (course / "reports/04_fusion/calibration.png").stat().st_size > 10_000
    student = csv_text.splitlines()[1].split(",")[0]
    r = runner.invoke(app, ["report", "04_fusion", "--course", str(course), "--student", student])
    out = " ".join(r.output.split())  # rich wraps long reasons to the terminal's width
    assert "reference measured" in out or "no committed prediction" in out
    assert "not graded by hand yet" in out
    # every reason and pre-read in full, with the instructor's score and comment from the gradebook
    from nbgrader.api import Gradebook

    from autograder.config import CourseSettings
    from autograder.storage.records_store import RecordStore

    with Gradebook(CourseSettings.load(course).db_url) as gb:
        gb.find_grade("explain_headline", "04_fusion", "04_fusion", student).manual_score = 2.5
        gb.find_comment("explain_headline", "04_fusion", "04_fusion", student).manual_comment = "[bold]Bytes[/bold], yes."
        gb.db.commit()
    r = runner.invoke(app, ["report", "04_fusion", "--course", str(course), "--student", student])
    out = " ".join(r.output.split())
    rec = RecordStore(course / "records").load("04_fusion", student)
    for p in rec.predictions:
        assert " ".join(p.reason.split()) in out
    for e in rec.explanations:
        assert " ".join(e.comment.split()) in out
    assert "explain_headline (2.50/3 from the instructor)" in out
    assert "instructor's comment: [bold]Bytes[/bold], yes." in out  # printed as written, not read as markup
    # a mistyped student is one line naming who has records, exit 2
    r = runner.invoke(app, ["report", "04_fusion", "--course", str(course), "--student", "nobody"])
    assert r.exit_code == 2 and "Traceback" not in r.output and r.output.count("\n") == 1
    assert "no record of 04_fusion for 'nobody'; students with records:" in r.output


def test_public_api_is_lazy_and_complete():
    code = ("import sys, autograder; assert 'torch' not in sys.modules; "
            "[getattr(autograder, n) for n in autograder.__all__]; print(len(autograder.__all__))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert int(r.stdout) >= 10


@pytest.mark.parametrize(
    "args, says",
    [
        (["--device", "tpu"], "unknown device 'tpu'"),
        (["--device", "cpu", "--sizes", "12,abc"], "'abc' is not a whole number"),
        (["--device", "cpu", "--sizes", "40"], "2^40 is not in 04_fusion's cpu sweep"),
    ]
    + ([] if __import__("torch").cuda.is_available() else [(["--device", "cuda"], "CUDA is not available")]),
)
def test_bench_option_errors_are_one_line_and_store_nothing(args, says, repo, tmp_path):
    r = runner.invoke(app, ["bench", "04_fusion", "--course", str(repo), "--out", str(tmp_path), *args])
    assert r.exit_code == 2 and says in r.output and "Traceback" not in r.output, r.output
    assert len([line for line in r.output.splitlines() if line.strip()]) == 1
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize(
    "line, needle",
    [
        ('c.LessonGrading.revised_penalty = "half"', "revised_penalty = 'half': Input should be a valid number"),
        ("c.LessonGrading.revised_penalty = 1.5", "revised_penalty = 1.5: Input should be less than or equal to 1"),
        ('c.LessonGrading.revised_after_measurement = "harsh"', "Input should be 'flag', 'penalty' or 'zero'"),
        ("c.LessonGrading.revised_penalti = 0.3", "revised_penalti is not a setting; did you mean revised_penalty?"),
        ('c.LessonGrading.started_over_after_measurement = "never"', "Input should be 'flag', 'penalty' or 'zero'"),
        ("c.LessonGrading.started_over_penalty = -1", "started_over_penalty = -1: Input should be greater than or equal to 0"),
        ("c.LessonGrading.started_over_penalti = 0.3", "did you mean started_over_penalty?"),
        ("c.LessonGrading.course_root = '/tmp'", "c.LessonGrading.course_root is now c.CourseDirectory.root"),
        ("c.SlurmGrading.shard_size = 0", "c.SlurmGrading.shard_size = 0: Input should be greater than or equal to 1"),
        ("c.LessonGradng.revised_penalty = 0.3", "c.LessonGradng is not a section; did you mean c.LessonGrading?"),
    ],
)
def test_config_mistakes_are_one_line_and_exit_2(tmp_path, line, needle):
    (tmp_path / "nbgrader_config.py").write_text(f"c = get_config()\n{line}\n")
    r = runner.invoke(app, ["grade", "04_fusion", "--course", str(tmp_path)])
    assert r.exit_code == 2 and needle in " ".join(r.output.split()) and "Traceback" not in r.output


def test_a_typo_in_the_assignment_name_suggests_the_lesson(repo):
    r = runner.invoke(app, ["lint", "04_fusoin", "--course", str(repo)])
    assert r.exit_code == 2 and "04_fusion" in r.output
    r = runner.invoke(app, ["bench", "04_fusoin", "--course", str(repo), "--device", "cpu"])
    out = " ".join(r.output.split())
    assert r.exit_code == 2 and "did you mean 04_fusion?" in out and "Traceback" not in out

