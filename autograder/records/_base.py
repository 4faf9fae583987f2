"""Shared pydantic configuration: records are facts, so they are frozen and reject unknown fields."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Record(BaseModel):
    """Base of every stored record: immutable, strict about field names, JSON round-trippable."""

    model_config = ConfigDict(frozen=True, extra="forbid")
