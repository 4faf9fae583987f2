"""The fairness check: each process, graded against the others, must earn full credit; else no storing."""

import json

import pytest
from typer.testing import CliRunner

from autograder.bench.merge import process_values
from autograder.cli import app
from autograder.grading.fairness import fairness_check, fairness_lines
from tests.bench._synthetic import device, run

WALL = "wall_speedup@fp32,2^30"
cli = CliRunner()


def check(spec, runs):
    return fairness_check(process_values(runs), spec, "nvidia-h200", "NVIDIA H200")


def test_agreeing_processes_pass_with_their_margins(spec):
    c = check(spec, [run(spec, {WALL: r}) for r in (1.0, 1.05, 0.97)])
    assert c.passed and c.processes == 3 and not c.failures
    assert len(c.items) == 3 * len(spec.quantities)
    assert all(i.fraction == 1.0 for i in c.items)
    worst = min(i.margin for i in c.items if i.quantity == WALL and i.margin is not None)
    assert 0 < worst < 0.3
    assert "PASSED" in fairness_lines(c)[0]


def test_an_outlying_process_fails_naming_quantity_process_and_margin(spec):
    c = check(spec, [run(spec, {WALL: r}) for r in (1.0, 1.05, 1.6)])
    assert not c.passed
    bad = [i for i in c.items if i.fraction < 1]
    assert {i.quantity for i in bad} == {WALL} and "process 3" in {i.held_out for i in bad}
    # 1.6 against the others' 1.025 (band 1.3 × e^0.049 = 1.36): about 1.56/1.36 = 1.14 short
    assert any("process 3's own 1.600×" in f and "short" not in f and "by 1.14" in f for f in c.failures), c.failures
    assert any("short by" in line for line in fairness_lines(c))


def test_directions_that_flip_between_processes_fail(spec):
    qid = "fp32_vs_fp16@2^24"
    c = check(spec, [run(spec, {qid: r}, spread=0.001) for r in (1.2, 1.0, 1.0)])
    assert not c.passed and any(f.startswith(qid) for f in c.failures)


def test_a_band_wider_than_one_and_a_half_fails_and_says_to_change_the_question(spec):
    """Processes that agree on a noisy quantity still fail: a 1.3x tolerance widened by a 0.2 spread gives
    full credit over 1.6x either way, which no longer tells a right prediction from a wrong one."""
    c = check(spec, [run(spec, {WALL: 3.5}, spread=0.2) for _ in range(3)])
    assert not c.passed
    (why,) = [f for f in c.failures if f.startswith(WALL)]
    assert "wider than 1.5×" in why and "another size, statistic or as a direction" in why
    assert all(i.fraction == 1.0 for i in c.items)  # every process agreed: only the band failed


def test_a_direction_clear_of_a_wide_same_zone_passes_and_a_same_inside_it_fails(spec):
    """A direction's band is its "same" zone: processes that all measure a change far larger than even a wide
    zone (per call at 2^20 about a quarter of 2^28's speedup, each process its own) give an answer that means
    something; a "same" inside a zone wider than 1.5x does not."""
    small = "wall_2^20_vs_2^28@fp16"
    clear = check(spec, [run(spec, {small: r}, spread=0.5) for r in (0.2, 0.3, 0.25)])
    assert not [f for f in clear.failures if f.startswith(small)], clear.failures  # (the others' bands do fail)
    assert all(i.fraction == 1.0 for i in clear.items if i.quantity == small)
    qid = "fp32_vs_fp16@2^24"
    blurred = check(spec, [run(spec, {qid: r}, spread=0.5) for r in (1.0, 1.02, 0.98)])
    assert not blurred.passed
    (why,) = [f for f in blurred.failures if f.startswith(qid)]
    assert "wider than 1.5×" in why


def test_two_runs_minutes_apart_that_disagree_fail_the_second(spec):
    """A stored value measured as something else later means the machine does not measure steadily: the
    check of the new run fails naming both values, even though its own processes agree."""
    stored = run(spec, {WALL: 0.70})
    again = [run(spec, {WALL: r}, minute=4) for r in (5.5, 5.53, 5.6)]
    c = fairness_check(process_values(again), spec, "nvidia-h200", "NVIDIA H200", previous=stored)
    assert not c.passed
    (why,) = [f for f in c.failures if f.startswith(WALL)]
    assert "0.700×" in why and "two runs apart disagree" in why
    steady = [run(spec, {WALL: r}, minute=4) for r in (0.71, 0.69, 0.70)]
    assert fairness_check(process_values(steady), spec, "nvidia-h200", "NVIDIA H200", previous=stored).passed


def test_one_process_is_not_a_check(spec):
    c = check(spec, [run(spec, {})])
    assert not c.passed and "at least 2" in c.note


def _store(tmp_path, spec, ratios, dev=None):
    paths = []
    for i, r in enumerate(ratios):
        p = tmp_path / f"m{i + 1}.json"
        p.write_text(run(spec, {WALL: r}, minute=i, dev=dev).model_dump_json())
        paths.append(str(p))
    return paths


def test_cli_stores_an_unfair_reference_only_as_a_candidate(tmp_path, spec, repo):
    out = tmp_path / "refs"
    paths = _store(tmp_path, spec, (1.0, 1.05, 1.6))
    r = cli.invoke(app, ["bench", "04_fusion", "--course", str(repo), "--out", str(out), "--merge", *paths])
    assert r.exit_code == 2, r.output
    errors = [line for line in r.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and WALL in errors[0] and "--accept-unfair" in errors[0]
    assert "Traceback" not in r.output and "unfair:" in r.output
    assert not (out / "04_fusion" / "nvidia-h200.json").exists()
    cand = json.loads((out / "04_fusion" / "nvidia-h200.candidate.json").read_text())
    assert cand["fairness"]["passed"] is False and len(cand["sources"]) == 3

    r = cli.invoke(app, ["bench", "04_fusion", "--course", str(repo), "--out", str(out), "--merge", *paths,
                         "--accept-unfair"])
    assert r.exit_code == 0, r.output
    stored = json.loads((out / "04_fusion" / "nvidia-h200.json").read_text())
    assert stored["fairness"]["accepted_by_instructor"] is True
    assert not (out / "04_fusion" / "nvidia-h200.candidate.json").exists()


def test_cli_stores_a_fair_merge_of_several_machines(tmp_path, spec, repo):
    out = tmp_path / "refs"
    a = _store(tmp_path, spec, (1.0, 1.1))
    r = cli.invoke(app, ["bench", "04_fusion", "--course", str(repo), "--out", str(out), "--merge", *a])
    assert r.exit_code == 0, r.output
    assert "fairness check (2 processes" in r.output and "PASSED" in r.output
    stored = json.loads((out / "04_fusion" / "nvidia-h200.json").read_text())
    assert stored["quantities"][WALL]["processes"] == 2


def test_cli_checks_a_new_run_against_the_stored_reference(tmp_path, spec, repo):
    out = tmp_path / "refs"
    first = _store(tmp_path / "a", spec, (1.0, 1.02, 1.01)) if (tmp_path / "a").mkdir() is None else []
    r = cli.invoke(app, ["bench", "04_fusion", "--course", str(repo), "--out", str(out), "--merge", *first])
    assert r.exit_code == 0, r.output
    later = _store(tmp_path / "b", spec, (2.0, 2.02, 2.01)) if (tmp_path / "b").mkdir() is None else []
    r = cli.invoke(app, ["bench", "04_fusion", "--course", str(repo), "--out", str(out), "--merge", *later])
    assert r.exit_code == 2 and "two runs apart disagree" in r.output, r.output
    assert json.loads((out / "04_fusion" / "nvidia-h200.json").read_text())["quantities"][WALL]["ratio"] < 1.1


def test_a_reference_no_grading_uses_is_stored_with_a_warning(tmp_path, spec, repo):
    out = tmp_path / "refs"
    paths = _store(tmp_path, spec, (1.0, 1.05, 1.6), dev=device("cpu", "AMD EPYC"))
    r = cli.invoke(app, ["bench", "04_fusion", "--course", str(repo), "--out", str(out), "--merge", *paths])
    assert r.exit_code == 0 and "warning: fairness check" in r.output
    assert (out / "04_fusion" / "cpu.json").exists()


@pytest.mark.parametrize(
    "args, says",
    [
        (["--merge"], "--merge needs"),
        (["--merge", "nope.json"], "no such file"),
        (["extra.json"], "pass --merge"),
        (["--device", "cpu", "--processes", "0"], "--processes 0"),
    ],
)
def test_cli_misuse_is_one_line(args, says, repo, tmp_path):
    r = cli.invoke(app, ["bench", "04_fusion", "--course", str(repo), "--out", str(tmp_path), *args])
    assert r.exit_code == 2 and says in r.output and "Traceback" not in r.output, r.output
