"""One error base for taicam: a stable code, a message that speaks to a player, and details.

Every layer raises a ``TaicamError`` subclass; the edges turn it into the error envelope
``{"error": {"code", "message", "details"}}`` (HTTP) or one line and exit code 2 (the CLI).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class ErrorCode(StrEnum):
    """Stable error codes of the scoring core. Clients may rely on the values."""

    BAD_TILE = "bad_tile"
    BAD_FIELD = "bad_field"
    BAD_MELD = "bad_meld"
    BAD_CONTEXT = "bad_context"
    NO_WINNING_TILE = "no_winning_tile"
    DUPLICATE_FLOWER = "duplicate_flower"
    TILE_COUNT = "tile_count"
    TOO_MANY_COPIES = "too_many_copies"
    NOT_WINNING = "not_winning"
    UNKNOWN_PRESET = "unknown_preset"
    UNKNOWN_OPTION = "unknown_option"
    BAD_OPTION = "bad_option"
    BAD_PRESET = "bad_preset"


class TaicamError(ValueError):
    """Base of taicam's own errors. A ``ValueError`` so older callers that catch it still do."""

    def __init__(self, code: ErrorCode | str, message: str, details: dict[str, Any] | None = None):
        super().__init__(message)
        self.code = str(code)
        self.message = message
        self.details = details or {}

    def to_json(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, "details": self.details}}
