"""The registry of kinds, by name: filled by :mod:`autograder.kinds` (the built-in kinds) and by lesson
workload modules (:func:`register_kind`). Kinds that are made of other kinds (``crossover``) look them up
here, so no kind module imports the package that imports it."""

from __future__ import annotations

import copy
import difflib

from ..errors import LessonSpecError
from ..records import Quantity
from ._base import Kind

__all__ = ["KINDS", "kind_of", "register_kind"]

KINDS: dict[str, Kind] = {}


def register_kind(kind: Kind, *aliases: str, replace: bool = False) -> Kind:
    """Make ``kind`` available to every lesson under its name (and aliases). A name another kind already
    has is refused (:class:`LessonSpecError`) unless ``replace=True``; registering an equal kind again (the
    same class, by module and name: a workload module loaded twice) is allowed and keeps the new one."""
    names = (kind.name, *aliases)
    if not replace:
        for name in names:
            old = KINDS.get(name)
            if old is not None and _class_of(old) != _class_of(kind):
                raise LessonSpecError(
                    f"quantity kind {name!r} is already registered ({type(old).__name__}); "
                    f"register {type(kind).__name__} under another name, or pass replace=True"
                )
    for name in names:
        KINDS[name] = kind
    _WORDED.clear()
    return kind


def _class_of(kind: Kind) -> tuple[str, str]:
    return type(kind).__module__, type(kind).__qualname__


def kind_of(q: Quantity | str) -> Kind:
    """The kind of ``q``; for a quantity whose lesson.toml words it (``prompt``, ``unit``), the kind speaking
    those words (a copy of the registered kind, made once per wording)."""
    name = q if isinstance(q, str) else q.kind
    try:
        kind = KINDS[name]
    except KeyError:
        near = difflib.get_close_matches(name, list(KINDS), n=1)
        hint = f"did you mean {near[0]!r}? " if near else ""
        raise LessonSpecError(f"unknown quantity kind {name!r}; {hint}known: {', '.join(sorted(KINDS))}") from None
    if isinstance(q, str):
        return kind
    words = (q.prompt or kind.default_prompt(q), q.unit or kind.default_unit(q))
    if words == (kind.asks_for, kind.unit):
        return kind
    key = (name, *words)
    worded = _WORDED.get(key)
    if worded is None:
        worded = copy.copy(kind)
        worded.asks_for, worded.unit = words
        _WORDED[key] = worded
    return worded


_WORDED: dict[tuple[str, str, str], Kind] = {}
