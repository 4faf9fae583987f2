"""A corpus of bad submissions, built here, each with the verdict it must get — graded in one batch
together with clean submissions, which must come out exactly as in a clean batch."""

from __future__ import annotations

import json
import math
import os
import random
import shutil
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

import nbformat
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autograder.batch.fast import grade_class
from autograder.bench.store import ReferenceStore
from autograder.course import Course
from autograder.grading.policy import GradingPolicy
from autograder.grading.reader import read_notebook_bytes
from autograder.ledger import GENESIS_PREV, entry_hash
from autograder.records import LEDGER_MIME, SubmissionGrade
from autograder.sample.generate import PERSONAS, make_submission
from autograder.storage.records_store import RecordStore

START = datetime(2026, 11, 28, tzinfo=timezone.utc)
Q = "gpu_speedup@fp16,2^24"


def _base(release, spec, ref, seed=1):
    return make_submission(release, spec, ref, PERSONAS[0], seed=seed, start=START)


def _ledger_outputs(nb):
    for cell in nb["cells"]:
        for o in cell.get("outputs", []):
            if isinstance(o, dict) and LEDGER_MIME in o.get("data", {}):
                yield o["data"][LEDGER_MIME]


def _edit_chain(nb, edit: Callable[[list[dict]], None], reseal: bool):
    """Apply ``edit`` to every copy of the chain; with ``reseal`` recompute hashes like a determined forger."""
    for payload in _ledger_outputs(nb):
        chain = payload["chain"]
        edit(chain)
        if reseal:
            prev = GENESIS_PREV
            for e in chain:
                e["prev"] = prev
                e["hash"] = entry_hash(e)
                prev = e["hash"]
    return nb


def _set_prediction(value=None, because=None):
    def edit(chain):
        for e in chain:
            if e["kind"] == "prediction" and e["quantity"] == Q:
                if value is not None:
                    e["value"] = value
                if because is not None:
                    e["because"] = because
    return edit


def _started_over(nb, drop_restart=False):
    """The student started over after measuring: a restart entry, then every prediction committed again,
    the gpu speedup with a value nearer the measurement (the cell source says so too)."""
    from datetime import timedelta

    from autograder.ledger import append, committed_predictions, start_over
    from autograder.records import LedgerEntry

    last = max(_ledger_outputs(nb), key=lambda payload: len(payload["chain"]))
    chain = [LedgerEntry.model_validate(e) for e in last["chain"]]
    before = committed_predictions(chain)
    at = chain[-1].at + timedelta(minutes=5)
    chain.append(start_over(chain, at, "I want a clean attempt"))
    for q, p in before.items():
        value = round(p.value * 0.9, 4) if q == Q else p.value
        chain.append(append(chain, "prediction", q, value, at, p.because))
        if q == Q:
            for c in nb["cells"]:
                src = "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
                if c["cell_type"] == "code" and f'"{Q}"' in src and ".predict(" in src:
                    c["source"] = src.replace(f"{p.value!r}, because=", f"{value!r}, because=", 1)
    dumped = [e.model_dump(mode="json") for e in chain]
    if drop_restart:  # removed afterwards, to launder the peek
        dumped = [e for e in dumped if e["kind"] != "restart"]
    last["chain"] = dumped
    return nb


def _deep(n):
    v: object = []
    for _ in range(n):
        v = [v]
    return v


def _gid(cell: dict) -> str:
    return str(cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", ""))


def _bytes(nb) -> bytes:
    return json.dumps(nb, allow_nan=True).encode()


def _cells_without(nb, gid):
    nb["cells"] = [c for c in nb["cells"] if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") != gid]
    return nb


def _rename(nb, old, new):
    for c in nb["cells"]:
        meta = c.get("metadata", {}).get("nbgrader", {})
        if meta.get("grade_id") == old:
            meta["grade_id"] = new
    return nb


def _source_edit(nb):
    for c in nb["cells"]:
        c["source"] = "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
        if c["cell_type"] == "code" and f'"{Q}"' in c["source"] and ".predict(" in c["source"]:
            c["source"] = c["source"].replace(f'"{Q}",\n    ', f'"{Q}",\n    9.5, because="x",  # was: ', 1)
    return nb


def _huge(nb):
    nb["cells"][1]["outputs"].append(nbformat.v4.new_output("stream", name="stdout", text="x" * (55 << 20)))
    return nb


def _junk_outputs(nb):
    rnd = random.Random(0)
    nb["cells"][1]["outputs"].append(nbformat.v4.new_output(
        "display_data", data={"image/png": "".join(chr(rnd.randint(33, 126)) for _ in range(5000)),
                              "text/plain": "\x00\x01\x02 binary \ufffd junk"}))
    return nb


def _garbage_ledger(nb):
    nb["cells"][1]["outputs"].append(nbformat.v4.new_output("display_data", data={LEDGER_MIME: "{not json"}))
    return nb


def _set_device(key, name=None):
    """Every measurement (and the genesis) claims ``key`` (and ``name``) as the device it ran on."""
    def edit(chain):
        for e in chain:
            if e["kind"] in ("measurement", "genesis") and e.get("meta", {}).get("device_key"):
                e["meta"]["device_key"] = key
                if name is not None:
                    e["meta"]["device_name"] = name
    return edit


def _rename_quantity(new):
    def edit(chain):
        for e in chain:
            if e["kind"] == "prediction" and e["quantity"] == Q:
                e["quantity"] = new
    return edit


def _explain(nb, text, gid="explain_headline"):
    for c in nb["cells"]:
        if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == gid:
            c["source"] = text
    return nb


def _grow_prediction_cell(nb, size):
    """The headline prediction cell followed by ``size`` bytes of valid code (not parsed: too long)."""
    for c in nb["cells"]:
        src = "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
        if c["cell_type"] == "code" and f'"{Q}"' in src and ".predict(" in src:
            c["source"] = src + "\n" + "x = 1\n" * (size // 6)
    return nb


def _long_ledger(nb, n=300_000):
    """The last ledger copy grown to ``n`` entries, resealed (each a re-run of the first prediction)."""
    last = max(_ledger_outputs(nb), key=lambda payload: len(payload["chain"]))
    chain = last["chain"]
    pred = next(e for e in chain if e["kind"] == "prediction")
    chain.extend(dict(pred) for _ in range(n - len(chain)))
    prev = GENESIS_PREV
    for i, e in enumerate(chain):
        e["seq"], e["prev"] = i, prev
        e["hash"] = prev = entry_hash(e)
    return nb


WORDS = "The fused kernel reads the input once and writes it once, so it moves far fewer bytes than eager does. "


def _claim(r, flag, *words):
    """The device claim is flagged with ``flag``, graded on the course's device, and every prediction's reason
    says so in words (never 'the reference has no value ... ask your instructor')."""
    return (flag in r.flags and r.device_of_record == "nvidia-h200"
            and all(w in p.reason for p in r.predictions for w in words)
            and not any("ask your instructor" in p.reason for p in r.predictions))


# name -> (builder(nb) -> bytes, check(record, base_record))
CASES: dict[str, tuple[Callable, Callable[[SubmissionGrade, SubmissionGrade], bool]]] = {
    "not_json": (lambda nb: b"print('hello')", lambda r, b: "not valid JSON" in r.errors[0] and r.total == 0
                 and "print" not in r.model_dump_json()),
    "json_not_notebook": (lambda nb: b'{"hello": [1, 2]}', lambda r, b: "not a Jupyter notebook" in r.errors[0]),
    "list_json": (lambda nb: b"[1, 2, 3]", lambda r, b: "not a Jupyter notebook" in r.errors[0]),
    "old_nbformat": (lambda nb: _bytes({**nb, "nbformat": 3}),
                     lambda r, b: "notebook format 3.5 is too old" in r.errors[0] and "unreadable" in r.flags),
    "nbformat3_worksheets": (lambda nb: _bytes({"nbformat": 3, "nbformat_minor": 0, "metadata": {},
                                                "worksheets": [{"cells": []}]}),
                             lambda r, b: "notebook format 3.0 is too old" in r.errors[0] and r.total == 0),
    "nested_too_deep": (lambda nb: b'{"cells": [], "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
                        lambda r, b: "nested too deeply" in r.errors[0] and "unreadable_too_deep" in r.flags),
    "nested_deep_but_parsable": (lambda nb: _bytes({**nb, "metadata": {"x": _deep(200)}}),
                                 lambda r, b: "nested too deeply" in r.errors[0]),
    "invalid_cell_ids": (lambda nb: _bytes({**nb, "cells": [{**c, "id": "bad id!"} for c in nb["cells"]]}),
                         lambda r, b: "cell id(s) are invalid" in r.errors[0] and r.total == b.total),
    "empty": (lambda nb: b"", lambda r, b: "empty" in r.errors[0] and "unreadable" in r.flags),
    "non_utf8": (lambda nb: b"\xff\xfe" + _bytes(nb)[:100], lambda r, b: "not UTF-8" in r.errors[0]),
    "huge_outputs": (lambda nb: _bytes(_huge(nb)), lambda r, b: r.total == b.total and r.chain.status == "ok"),
    "test_cell_deleted": (lambda nb: _bytes(_cells_without(nb, "grade_gpu_speedup")),
                          lambda r, b: "cell_deleted:grade_gpu_speedup" in r.flags and r.predictions[0].points == 0
                          and "was deleted or renamed" in r.predictions[0].reason),
    "cells_reordered": (lambda nb: _bytes({**nb, "cells": nb["cells"][::-1]}),
                        lambda r, b: r.total == b.total and r.chain.status == "ok"
                        and r.unanswered == b.unanswered),
    "cell_duplicated": (lambda nb: _bytes({**nb, "cells": nb["cells"] + [c for c in nb["cells"] if _gid(c) == "grade_gpu_speedup"]}),
                        lambda r, b: any(f.startswith("cell_duplicated:") for f in r.flags)),
    "grade_id_renamed": (lambda nb: _bytes(_rename(nb, "grade_wall_speedup", "grade_wall_speedup_v2")),
                         lambda r, b: "cell_deleted:grade_wall_speedup" in r.flags and r.predictions[1].points == 0),
    "prediction_cell_deleted": (lambda nb: _bytes(_cells_without(nb, "predict_headline")),
                                lambda r, b: r.total == b.total),  # the ledger in later outputs still holds it
    "edited_never_run": (lambda nb: _bytes(_source_edit(nb)), lambda r, b: f"source_not_run:{Q}" in r.flags
                         and r.predictions[0].points == b.predictions[0].points),
    "forged_value": (lambda nb: _bytes(_edit_chain(nb, _set_prediction(value=3.9037), reseal=False)),
                     lambda r, b: r.chain.status == "forged" and r.total == 0 and "untrusted_chain" in r.predictions[0].flags),
    "broken_chain": (lambda nb: _bytes(_edit_chain(nb, lambda c: c.pop(1) if len(c) > 2 else None, reseal=False)),
                     lambda r, b: r.chain.status == "broken" and r.total == 0),
    "nan_resealed": (lambda nb: _bytes(_edit_chain(nb, _set_prediction(value=math.nan), reseal=True)),
                     lambda r, b: "invalid_value" in r.predictions[0].flags and "finite" in r.predictions[0].reason),
    "inf_resealed": (lambda nb: _bytes(_edit_chain(nb, _set_prediction(value=math.inf), reseal=True)),
                     lambda r, b: "invalid_value" in r.predictions[0].flags),
    "negative": (lambda nb: _bytes(_edit_chain(nb, _set_prediction(value=-3.0), reseal=True)),
                 lambda r, b: "positive" in r.predictions[0].reason and r.predictions[0].points == 0),
    "zero": (lambda nb: _bytes(_edit_chain(nb, _set_prediction(value=0.0), reseal=True)),
             lambda r, b: "positive" in r.predictions[0].reason),
    "words": (lambda nb: _bytes(_edit_chain(nb, _set_prediction(value="about 3x"), reseal=True)),
              lambda r, b: "not words" in r.predictions[0].reason),
    "list_value": (lambda nb: _bytes(_edit_chain(nb, _set_prediction(value=[3.0]), reseal=True)),
                   lambda r, b: r.chain.status == "broken" and "malformed" in r.chain.reasons[0]),
    "enormous": (lambda nb: _bytes(_edit_chain(nb, _set_prediction(value=1e300), reseal=True)),
                 lambda r, b: "plausible" in r.predictions[0].reason),
    "null_value": (lambda nb: _bytes(_edit_chain(nb, lambda c: [e.update(value=None) for e in c
                                                                if e["kind"] == "prediction"], reseal=True)),
                   lambda r, b: all(p.points == 0 for p in r.predictions)),
    "empty_because": (lambda nb: _bytes(_edit_chain(nb, _set_prediction(because=""), reseal=True)),
                      lambda r, b: "no_reason" in r.predictions[0].flags),
    "megabyte_because": (lambda nb: _bytes(_edit_chain(nb, _set_prediction(because="y" * (1 << 20)), reseal=True)),
                         lambda r, b: "reason_too_long" in r.predictions[0].flags),
    "control_chars": (lambda nb: _bytes(_edit_chain(nb, _set_prediction(because="\x00\x1b[31m\u202e\x7f"),
                                                    reseal=True)),
                      lambda r, b: r.predictions[0].points == b.predictions[0].points),
    "binary_junk_outputs": (lambda nb: _bytes(_junk_outputs(nb)), lambda r, b: r.total == b.total),
    "missing_kernelspec": (lambda nb: _bytes({**nb, "metadata": {}}), lambda r, b: r.total == b.total),
    "garbage_ledger_output": (lambda nb: _bytes(_garbage_ledger(nb)),
                              lambda r, b: any("not valid JSON" in x for x in r.chain.reasons)),
    "started_over": (lambda nb: _bytes(_started_over(nb)),
                     lambda r, b: r.chain.status == "ok" and r.chain.restarts == 1 and "started_over:1" in r.flags
                     and r.predictions[0].flags == ["started_over_after_measurement"]
                     and "committed after starting over; you had measured this before" in r.predictions[0].reason
                     and r.predictions[0].fraction <= 0.5
                     and [p.points for p in r.predictions[1:]] == [p.points for p in b.predictions[1:]]),
    "restart_removed": (lambda nb: _bytes(_started_over(nb, drop_restart=True)),
                        lambda r, b: r.chain.status == "broken" and r.total == 0),
    "non_dict_cells": (lambda nb: _bytes({**nb, "cells": [*nb["cells"], 5, "x", None]}),
                       lambda r, b: r.total == b.total),
    # hostile kinds (issue 18): a device claim is a value checked against the reference store's listing
    "device_key_path": (lambda nb: _bytes(_edit_chain(nb, _set_device("../../../etc/passwd"), reseal=True)),
                        lambda r, b: _claim(r, "device_claim_invalid", "path separator", "NVIDIA H200")
                        and r.total == b.total),
    "device_key_candidate": (lambda nb: _bytes(_edit_chain(nb, _set_device("nvidia-h200.candidate"), reseal=True)),
                             lambda r, b: _claim(r, "device_claim_invalid", "not a device key") and r.total == b.total),
    "device_key_not_its_name": (lambda nb: _bytes(_edit_chain(nb, _set_device("nvidia-h200", "Tesla T4"), reseal=True)),
                                lambda r, b: _claim(r, "device_claim_mismatch", "'tesla-t4'") and r.total == b.total),
    "device_key_unknown": (lambda nb: _bytes(_edit_chain(nb, _set_device("nvidia-b300", "NVIDIA B300"), reseal=True)),
                           lambda r, b: _claim(r, "device_claim_unknown", "you measured on NVIDIA B300")
                           and r.total == b.total),
    # look-alike quantity ids: 0 points, but the reason says what was found
    "quantity_id_case": (lambda nb: _bytes(_edit_chain(nb, _rename_quantity(Q.upper()), reseal=True)),
                         lambda r, b: f"quantity_id_lookalike:{Q}" in r.flags and r.predictions[0].points == 0
                         and "upper/lower case" in r.predictions[0].reason and ascii(Q.upper()) in r.predictions[0].reason),
    "quantity_id_trailing_space": (lambda nb: _bytes(_edit_chain(nb, _rename_quantity(Q + " "), reseal=True)),
                                   lambda r, b: f"quantity_id_lookalike:{Q}" in r.flags
                                   and "spaces before or after it" in r.predictions[0].reason),
    "quantity_id_cyrillic": (lambda nb: _bytes(_edit_chain(nb, _rename_quantity(Q.replace("p", "\u0440")), reseal=True)),
                             lambda r, b: f"quantity_id_lookalike:{Q}" in r.flags and r.predictions[0].points == 0
                             and "U+0440 cyrillic small letter er" in r.predictions[0].reason
                             and "no committed prediction" in r.predictions[0].reason),
    "quantity_id_zero_width": (lambda nb: _bytes(_edit_chain(nb, _rename_quantity(Q[:3] + "\u200b" + Q[3:]), reseal=True)),
                               lambda r, b: f"quantity_id_lookalike:{Q}" in r.flags
                               and "U+200B zero width space" in r.predictions[0].reason),
    "extra_top_level_keys": (lambda nb: _bytes({**nb, "worksheets": [], "x-grade-me": 8}),
                             lambda r, b: "notebook_extra_keys" in r.flags and r.total == b.total
                             and any("'worksheets'" in e and "'x-grade-me'" in e for e in r.errors)),
    # size budget: text beyond the course's limit is not pre-read; a huge ledger is refused, not verified
    "explanation_20_mb": (lambda nb: _bytes(_explain(nb, (WORDS * 250_000)[: 20 << 20])),
                          lambda r, b: "explanation_truncated:explain_headline" in r.flags and r.total == b.total
                          and "of this answer's 20,971,520 characters were read" in r.explanations[0].comment),
    "code_cell_20_mb": (lambda nb: _bytes(_grow_prediction_cell(nb, 20 << 20)),
                        lambda r, b: r.total == b.total and not r.errors),
    "ledger_300k_entries": (lambda nb: _bytes(_long_ledger(nb)),
                            lambda r, b: r.chain.status == "broken" and "ledger_too_long" in r.flags
                            and "300,000 entries" in r.chain.reasons[0] and r.total == 0),
}


def _symlinked_notebook(nb_path: Path, outside: Path, data: bytes) -> None:
    (outside / "secret.ipynb").write_bytes(data)
    nb_path.symlink_to(outside / "secret.ipynb")


def _symlinked_student(nb_path: Path, outside: Path, data: bytes) -> None:
    student = nb_path.parent.parent
    target = outside / "elsewhere"
    (target / "04_fusion").mkdir(parents=True)
    (target / "04_fusion" / "04_fusion.ipynb").write_bytes(data)
    student.rmdir() if student.exists() and not any(student.iterdir()) else None
    shutil.rmtree(student, ignore_errors=True)
    student.symlink_to(target, target_is_directory=True)


def _own_answer_key(nb_path: Path, outside: Path, data: bytes, fifo: bool = False) -> None:
    """The exploit of issue 18: a resealed device key that walks from the reference store into the
    student's own folder, where a reference made of the student's own predictions (or a FIFO) waits."""
    student = nb_path.parent.parent.name
    key = f"../../submitted/{student}/04_fusion/myref"
    nb = json.loads(data)

    def edit(chain: list[dict]) -> None:
        _set_device(key)(chain)
        _set_prediction(value=11.0)(chain)

    _edit_chain(nb, edit, reseal=True)
    nb_path.write_bytes(_bytes(nb))
    target = nb_path.parent / "myref.json"
    if fifo:
        os.mkfifo(target)
        return
    course = nb_path.parents[3]
    ref = json.loads((course / "references" / "04_fusion" / "nvidia-h200.json").read_text(encoding="utf-8"))
    chain = max((p["chain"] for p in _ledger_outputs(nb)), key=len)
    for e in chain:
        if e["kind"] == "prediction" and e["quantity"] in ref["quantities"]:
            q = ref["quantities"][e["quantity"]]
            q.update(value=e["value"], **({"ratio": e["value"]} if isinstance(e["value"], float) else {}))
    target.write_text(json.dumps(ref), encoding="utf-8")


def _sparse(nb_path: Path, outside: Path, data: bytes) -> None:
    with open(nb_path, "wb") as f:
        f.truncate(201 << 20)


# Files that are not plain files inside the course: name -> (make(notebook path, a folder outside, base bytes),
# check(record, base record)). Each must be refused without being read.
FS_CASES: dict[str, tuple[Callable[[Path, Path, bytes], None], Callable[[SubmissionGrade, SubmissionGrade], bool]]] = {
    "symlinked_notebook": (_symlinked_notebook, lambda r, b: "symbolic link" in r.errors[0]
                           and r.notebook_sha256 is None and "unreadable_refused" in r.flags and r.total == 0),
    "symlinked_student_folder": (_symlinked_student, lambda r, b: "symbolic link" in r.errors[0]
                                 and r.notebook_sha256 is None and r.total == 0),
    "fifo": (lambda p, o, d: os.mkfifo(p), lambda r, b: "named pipe" in r.errors[0] and r.total == 0),
    "folder_as_notebook": (lambda p, o, d: p.mkdir(), lambda r, b: "a folder" in r.errors[0]),
    "sparse_201_mib": (_sparse, lambda r, b: "over the 200 MiB limit" in r.errors[0] and r.notebook_sha256 is None),
    "dev_zero_link": (lambda p, o, d: p.symlink_to("/dev/zero"), lambda r, b: "symbolic link" in r.errors[0]),
    "device_key_own_answer_key": (_own_answer_key, lambda r, b: _claim(r, "device_claim_invalid", "path separator")
                                  and "the NVIDIA H200 reference measured" in r.predictions[0].reason
                                  and r.predictions[0].points < 0.5 * r.predictions[0].max_points),
    "device_key_fifo": (lambda p, o, d: _own_answer_key(p, o, d, fifo=True),
                        lambda r, b: _claim(r, "device_claim_invalid", "path separator")
                        and "the NVIDIA H200 reference measured" in r.predictions[0].reason),
}


def build_corpus(root: Path, outside: Path, base: dict, cases: list[str] | None = None) -> None:
    """Put every bad submission (bytes and filesystem kinds) plus 'base' into the course at ``root``."""
    def folder(student):
        f = root / "submitted" / student / "04_fusion"
        f.mkdir(parents=True, exist_ok=True)
        return f

    (folder("base") / "04_fusion.ipynb").write_bytes(_bytes(base))
    for name, (build, _) in CASES.items():
        if cases is None or name in cases:
            (folder(name) / "04_fusion.ipynb").write_bytes(build(json.loads(json.dumps(base))))
    for name, (make, _) in FS_CASES.items():
        if cases is None or name in cases:
            make(folder(name) / "04_fusion.ipynb", outside, _bytes(base))


#: the tests of the graded corpus: the batch grades 56 hostile submissions once (a minute), so they are slow
SLOW_BATCH = pytest.mark.slow


@pytest.fixture(scope="module")
def corpus_batch(tmp_path_factory, course_template):
    root = tmp_path_factory.mktemp("corpus") / "course"
    shutil.copytree(course_template, root)
    c = Course.at(root)
    spec = c.spec("04_fusion")
    ref = ReferenceStore(c.references).load("04_fusion", "nvidia-h200")
    release = nbformat.read(str(root / "release/04_fusion/04_fusion.ipynb"), as_version=4)
    base = json.loads(nbformat.writes(_base(release, spec, ref)))

    def put(student, data: bytes):
        folder = c.submitted / student / "04_fusion"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "04_fusion.ipynb").write_bytes(data)

    clean = {f"clean_{i}": nbformat.writes(_base(release, spec, ref, seed=100 + i)).encode() for i in range(4)}
    build_corpus(root, tmp_path_factory.mktemp("outside"), base)
    put("copier", _bytes(base))  # a verbatim copy of another student's notebook
    for s, data in clean.items():
        put(s, data)
    result = grade_class(c, "04_fusion", GradingPolicy(), workers=2)
    assert not result.failed

    alone = tmp_path_factory.mktemp("clean") / "course"
    shutil.copytree(course_template, alone)
    ca = Course.at(alone)
    for s, data in clean.items():
        folder = ca.submitted / s / "04_fusion"
        folder.mkdir(parents=True)
        (folder / "04_fusion.ipynb").write_bytes(data)
    grade_class(ca, "04_fusion", GradingPolicy(), workers=1)
    return RecordStore(c.records), RecordStore(ca.records), list(clean)


def test_corpus_has_at_least_25_kinds():
    assert len(CASES) >= 25
    assert len(CASES) + len(FS_CASES) >= 56  # 42 before issue 18's hostile kinds


@SLOW_BATCH
@pytest.mark.parametrize("name", sorted([*CASES, *FS_CASES]))
def test_each_bad_submission_gets_its_verdict(corpus_batch, name):
    store, _, _ = corpus_batch
    record, base = store.load("04_fusion", name), store.load("04_fusion", "base")
    assert record is not None, "every submission gets a record"
    check = CASES[name][1] if name in CASES else FS_CASES[name][1]
    assert check(record, base), record.model_dump_json(exclude={"explanations"})[:1500]


@SLOW_BATCH
def test_unreadable_submissions_say_why_in_every_explanation_comment(corpus_batch):
    store, _, _ = corpus_batch
    for name in ("not_json", "fifo", "symlinked_notebook"):
        record = store.load("04_fusion", name)
        assert record.explanations and all(e.comment.startswith("Not graded: your submitted notebook could not")
                                           for e in record.explanations)
        assert set(record.unanswered) >= {e.grade_id for e in record.explanations}


@SLOW_BATCH
def test_copied_chain_is_detected_across_the_class(corpus_batch):
    store, _, _ = corpus_batch
    assert any(f.startswith("chain_shared_with:") and "copier" in f for f in store.load("04_fusion", "base").flags)
    assert any("base" in f for f in store.load("04_fusion", "copier").flags if f.startswith("chain_shared_with"))


@SLOW_BATCH
def test_clean_submissions_are_graded_as_in_a_clean_batch(corpus_batch):
    store, clean_store, clean = corpus_batch
    for s in clean:
        a, b = store.load("04_fusion", s), clean_store.load("04_fusion", s)
        assert a.model_dump(exclude={"graded_at"}) == b.model_dump(exclude={"graded_at"})


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=2000))
def test_reader_never_raises_on_random_bytes(spec, data):
    r = read_notebook_bytes(data, spec)
    assert r.sha256


_ledger_payload = st.one_of(
    st.text(max_size=20),
    st.fixed_dictionaries({
        "lesson": st.just("04_fusion"),
        "chain": st.lists(st.dictionaries(st.text(max_size=5), st.integers(), max_size=3), max_size=3),
    }),
)
_output = st.fixed_dictionaries({"data": st.dictionaries(st.sampled_from([LEDGER_MIME, "text/plain"]), _ledger_payload,
                                                         max_size=2)})
_nbgrader_meta = st.dictionaries(st.sampled_from(["grade_id", "locked", "checksum", "solution", "points"]),
                                 st.one_of(st.text(max_size=8), st.booleans(), st.integers()), max_size=5)
cell_strategy = st.fixed_dictionaries({
    "cell_type": st.sampled_from(["code", "markdown", "raw", 7]),
    "source": st.one_of(st.text(max_size=50), st.lists(st.text(max_size=10), max_size=3), st.integers()),
    "metadata": st.one_of(st.just({}), st.fixed_dictionaries({"nbgrader": _nbgrader_meta})),
    "outputs": st.one_of(st.lists(_output, max_size=2), st.integers()),
})


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(cell_strategy, max_size=6), st.one_of(st.integers(), st.none(), st.text(max_size=3)))
def test_reader_never_raises_on_notebook_shaped_junk(spec, cells, major):
    nb = {"cells": cells, "nbformat": major, "metadata": {}}
    r = read_notebook_bytes(json.dumps(nb).encode(), spec)
    assert r.verdict.status in {"ok", "missing", "broken", "forged", "inconsistent"}
