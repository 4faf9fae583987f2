"""What `L.measure` prints: a quantity that divides the fastest calls has that row in the table, so the
number a student reads is the number graded (lesson 04's float32 2^28 wall speedup as it was asked until
2026-12-04: ``fastest_call_spec``)."""

from __future__ import annotations

import re

from autograder.lesson.tables import measure_table
from autograder.records import Case, Measurement, summarize
from autograder.spec import load_spec


def _m(variant, params, method, samples):
    return Measurement(
        case=Case(variant=variant, params=params),
        method=method,
        samples_ms=samples,
        stats=summarize(samples),
        bytes_moved=1 << 30,
        flops=1 << 28,
        launches=1,
        launches_source="profiler",
    )


def _point(params):
    return [
        _m("eager", params, "wall_per_call", [2.05, 2.07, 2.09]),
        _m("compiled", params, "wall_per_call", [0.55, 0.66, 0.68]),
        _m("eager", params, "gpu_time", [2.03, 2.03, 2.04]),
        _m("compiled", params, "gpu_time", [0.51, 0.51, 0.51]),
    ]


def test_the_point_of_a_fastest_call_quantity_shows_the_fastest_calls_and_their_ratio(fastest_call_spec):
    spec = fastest_call_spec
    point = {"dtype": "float32", "log2_n": 28}
    text = "\n".join(measure_table(spec, point, point, "cuda", "GPU", _point(point)))
    row = next(line for line in text.splitlines() if line.strip().startswith("fastest"))
    assert "wall_speedup@fp32,2^28" in row
    assert re.search(r"2\.0500\s+0\.5500\s+3\.73×", row), row  # 2.05 / 0.55, not the medians' 3.17
    assert re.search(r"wall_per_call\s+2\.0700\s+0\.6600\s+3\.14×", text)


def test_other_points_show_medians_only(repo):
    spec = load_spec(repo / "source" / "04_fusion" / "lesson.toml")
    for point in ({"dtype": "float16", "log2_n": 24}, {"dtype": "float32", "log2_n": 30}):  # 2^30: the median call
        text = "\n".join(measure_table(spec, point, point, "cuda", "GPU", _point(point)))
        assert "fastest" not in text and "wall_per_call" in text
