"""One finding of the lesson checks: an error (the lesson cannot be released) or a warning."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["Finding"]


@dataclass(frozen=True)
class Finding:
    level: Literal["error", "warning"]
    text: str

    def __str__(self) -> str:
        return f"{self.level}: {self.text}"
