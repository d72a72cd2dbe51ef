"""One error base for taicam: a stable code, a message that speaks to a player, and details.

Every layer raises a ``TaicamError`` subclass; the edges turn it into the error envelope
``{"error": {"code", "message", "details"}}`` (HTTP) or one line and exit code 2 (the CLI).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class ErrorCode(StrEnum):
    """Stable error codes of every layer. Clients may rely on the values.

    ``service/errors.py`` holds the one map from code to HTTP status; ``service/messages.py`` a
    zh-TW sentence for each.
    """

    # the scoring core

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
    # the application layer: what a person named does not fit what the photo shows
    BAD_CORRECTION = "bad_correction"
    BAD_WINNING_TILE = "bad_winning_tile"
    # vision: model files, frames and uploads
    BAD_MODEL = "bad_model"
    MODEL_NOT_LOADED = "model_not_loaded"
    NO_FRAME = "no_frame"
    NOT_AN_IMAGE = "not_an_image"
    TOO_LARGE = "too_large"
    BUSY = "busy"
    # the ledger and the label store
    NOT_FOUND = "not_found"
    CONFLICT = "conflict"
    BAD_TABLE = "bad_table"
    BAD_HAND = "bad_hand"
    BAD_BOX = "bad_box"
    BAD_SOURCE = "bad_source"
    BAD_LABELS = "bad_labels"
    BAD_CLASSES = "bad_classes"
    BAD_PATH = "bad_path"
    STORE_FULL = "store_full"
    LABELING_OFF = "labeling_off"
    NO_FONT = "no_font"


class TaicamError(ValueError):
    """Base of taicam's own errors. A ``ValueError`` so older callers that catch it still do."""

    def __init__(self, code: ErrorCode | str, message: str, details: dict[str, Any] | None = None):
        super().__init__(message)
        self.code = str(code)
        self.message = message
        self.details = details or {}

    def to_json(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, "details": self.details}}
