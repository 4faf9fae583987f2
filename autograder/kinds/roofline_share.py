"""``roofline_share``: performance credit for a kernel the student wrote — the share of the device's measured
copy roofline its achieved bandwidth (work-model bytes ÷ the grader's time of it) reaches, turned into
points: full credit from ``full_share`` up, none at or below ``zero_share``, between growing with the
logarithm of the share (a share spans orders of magnitude: a block too small to keep HBM busy reaches 5%).

Nothing is predicted: the value is the grader's measurement of the student's own kernel on the device of
record. The bands may differ per kind of device (``devices = { cpu = { full_share = ..., zero_share = ...
} }``): on a CPU a Triton kernel runs in its interpreter, far from any roofline.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..records import Quantity, QuantityValue
from ._base import Score
from .peak_fraction import PeakFractionArgs, PeakFractionKind

__all__ = ["RooflineShareKind", "ShareBand"]


class ShareBand(BaseModel):
    """Full credit from ``full_share`` of the roofline up, none at or below ``zero_share``."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    full_share: float = Field(gt=0, le=1.5)
    zero_share: float = Field(gt=0, lt=1.5)

    @model_validator(mode="after")
    def _ordered(self) -> ShareBand:
        if self.zero_share >= self.full_share:
            raise ValueError(f"zero_share ({self.zero_share}) must be below full_share ({self.full_share})")
        return self


class RooflineShareArgs(PeakFractionArgs):
    """``peak_fraction``'s arguments (bytes against the copy roofline only) and the credit's band."""

    full_share: float = Field(gt=0, le=1.5)
    zero_share: float = Field(gt=0, lt=1.5)
    #: other bands for a kind of device ("cpu", "cuda"), e.g. a CPU running Triton's interpreter
    devices: dict[Literal["cpu", "cuda"], ShareBand] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _ordered(self) -> RooflineShareArgs:
        if self.rate != "bytes" or self.peak != "copy_gbps":
            raise ValueError('a roofline share is bytes against the copy roofline: rate = "bytes", peak = "copy_gbps"')
        ShareBand(full_share=self.full_share, zero_share=self.zero_share)
        return self


class RooflineShareKind(PeakFractionKind):
    """Derives like ``peak_fraction`` (bytes against the copy roofline); scores the measured share itself."""

    name = "roofline_share"
    # its arguments are peak_fraction's and two required bands: a constructor of its own (hence the ignore)
    Args = RooflineShareArgs  # type: ignore[assignment]
    asks_for = "nothing: the grader measures your kernel"
    #: not a prediction: a lesson grades it from a measurement (its ``credit``), never from a student's value
    predicted = False

    def band_for(self, q: Quantity, device_kind: str) -> ShareBand:
        a = self.args(q)
        return a.devices.get(device_kind) or ShareBand(full_share=a.full_share, zero_share=a.zero_share)

    def credit(self, q: Quantity, share: QuantityValue, device_kind: str, roofline_gbps: float | None) -> Score:
        """The credit of a measured share, with the sentence that says the share and the roofline."""
        band = self.band_for(q, device_kind)
        s = float(share.ratio)
        frac = share_fraction(s, band)
        rate = f" ({_gbps(s * roofline_gbps)} of {_gbps(roofline_gbps)} GB/s)" if roofline_gbps else ""
        verdict = (
            f"your kernel reached {_pct(s)} of the copy roofline{rate} {self.where(q)}; full credit from "
            f"{_pct(band.full_share)}, none at or below {_pct(band.zero_share)} → {100 * frac:.0f}%"
        )
        return Score(frac, verdict, s)

    def score(self, q: Quantity, value: float | str, ref: QuantityValue) -> Score:
        """As :meth:`credit` on the reference's kind of device (``ref.device`` names it): ``value`` is not used."""
        return self.credit(q, ref, "cpu" if ref.device == "cpu" else "cuda", None)


def share_fraction(share: float, band: ShareBand) -> float:
    """0 at or below ``zero_share``, 1 from ``full_share`` up, linear in log(share) between."""
    if share >= band.full_share:
        return 1.0
    if share <= band.zero_share:
        return 0.0
    return math.log(share / band.zero_share) / math.log(band.full_share / band.zero_share)


def _pct(share: float) -> str:
    return f"{100 * share:.3g}%"


def _gbps(rate: float) -> str:
    return f"{rate:,.0f}" if rate >= 10 else f"{rate:.3g}"
