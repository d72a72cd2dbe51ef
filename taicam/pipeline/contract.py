"""The types that cross the application layer: a ``ScoreRequest`` goes in with the pixels, a
``PhotoScore`` comes out, and ``PhotoScore.to_json`` is the one place its JSON is made.

The JSON is the contract of ``taicam score --json``, ``POST /v1/score`` and ``/v1/live``; its shape
is checked from outside, so ``to_json`` keeps it byte for byte.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from scoring.errors import TaicamError
from scoring.evaluate import ScoreResult
from scoring.hand import Hand, HandError, Meld, WinContext
from vision.detections import Detections
from vision.grouping import Layout
from vision.notices import Notice

from .messages import EN, localise_error, notice_json


class PhotoRequestError(TaicamError):
    """A correction or a named winning tile that does not fit the photo's detections."""


@dataclass(frozen=True)
class ScoreRequest:
    """Everything ``score_photo`` needs besides the pixels: what the photo cannot show, and what a person fixed.

    ``options`` and ``settlement`` are the hand JSON's objects as the caller gave them; the scoring
    core checks them when it reads the hand, so a bad one is answered as a bad hand is, with what
    the photo showed.
    """

    preset: str = "taiwan"
    options: Mapping[str, Any] | None = None  # preset options to change; None: the preset's own
    # How and where the hand was won. None: not known (the server camera): scored as ``WinContext()``
    # and left out of the hand the answer echoes, as that camera has always answered.
    context: WinContext | None = None
    settlement: Mapping[str, Any] | None = None  # base, per_tai and seats; None: no payments
    corrections: Mapping[int, str] = field(default_factory=dict)  # detection id → the code a person chose
    winning_tile: int | str | None = None  # a detection id or a code in the hand row; None: from the layout

    def hand_json(self, tiles: HandTiles) -> dict[str, Any]:
        """The hand JSON the scoring core reads for ``tiles``, and the answer echoes as ``hand``."""
        situation: dict[str, Any] = {"preset": self.preset}
        if self.context is not None:
            values = ((spec.name, getattr(self.context, spec.name)) for spec in fields(WinContext))
            situation |= {name: value for name, value in values if value is not None}
        if self.options is not None:
            situation["options"] = self.options
        if self.settlement is not None:
            situation["settlement"] = self.settlement
        return {**situation, **tiles.to_json()}


@dataclass(frozen=True)
class HandTiles:
    """The hand's tiles as the photo shows them, before the scoring core checks them."""

    concealed: tuple[str, ...]
    melds: tuple[Meld, ...]
    flowers: tuple[str, ...]
    winning_tile: str | None  # None: no tile was set apart and none makes a legal hand

    def to_json(self) -> dict[str, Any]:
        return {
            "concealed": list(self.concealed),
            "melds": [meld.to_json() for meld in self.melds],
            "flowers": list(self.flowers),
            "winning_tile": self.winning_tile,
        }


@dataclass(frozen=True)
class Alternative:
    """Another concealed tile that, taken as the winning tile, also makes a legal hand."""

    winning_tile: str
    detection: int
    total: int

    def to_json(self) -> dict[str, Any]:
        return {"winning_tile": self.winning_tile, "detection": self.detection, "total": self.total}


@dataclass(frozen=True)
class Recognition:
    """What the detector and the grouping read from one picture, and how long it took (ms)."""

    detections: Detections
    layout: Layout
    ms: float


@dataclass(frozen=True)
class PhotoScore:
    """A photo read and scored: the readings, the hand, its ``ScoreResult`` or the reason it has none.

    ``hand`` is the ``Hand`` the scoring core built (None when it refused the tiles); exactly one
    of ``result`` and ``error`` is set.
    """

    request: ScoreRequest
    detections: Detections
    layout: Layout
    tiles: HandTiles
    hand: Hand | None
    result: ScoreResult | None
    error: HandError | None
    warnings: tuple[Notice, ...]
    alternatives: tuple[Alternative, ...]
    ms: float  # reading the picture: detection and grouping

    @property
    def scored(self) -> bool:
        return self.error is None

    def to_json(self, lang: str = EN) -> dict[str, Any]:
        """The contract object: hand, groups, warnings, alternatives and score, its words in ``lang``."""
        if self.result is not None:
            score = self.result.to_json()
        else:
            assert self.error is not None
            problem = self.error.to_json()["error"]
            score = {"error": localise_error(problem, {"tile": self.tiles.winning_tile}, lang)}
        return {
            "hand": self.request.hand_json(self.tiles),
            "groups": [group.to_json() for group in self.layout.groups],
            "warnings": [notice_json(warning, lang) for warning in self.warnings],
            "alternatives": [alternative.to_json() for alternative in self.alternatives],
            "score": score,
        }
