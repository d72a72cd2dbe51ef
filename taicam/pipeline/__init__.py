"""The application layer: photo or frame in, typed score out, shared by the CLI and the HTTP service.

``score_photo(detector, image, ScoreRequest) -> PhotoScore`` reads a photo and scores its hand;
``LiveScorer`` does the same for a stream of frames once a hand holds still. ``PhotoScore.to_json``
is the JSON both edges answer with, worded by ``messages``. This package imports only ``scoring``
and ``vision``; only ``service`` and the CLI (``taicam.cli``, ``taicam.commands``) import it
(``lint-imports`` checks both).
"""

from .contract import (
    Alternative,
    HandTiles,
    PhotoRequestError,
    PhotoScore,
    Recognition,
    ScoreRequest,
)
from .live import LiveScorer, hand_signature
from .photo import DEFAULT_CONF, REPAIRABLE, recognise, repair, score_photo, score_recognition

__all__ = [
    "DEFAULT_CONF", "REPAIRABLE", "Alternative", "HandTiles", "LiveScorer",
    "PhotoRequestError", "PhotoScore", "Recognition", "ScoreRequest", "hand_signature", "recognise", "repair",
    "score_photo", "score_recognition",
]  # fmt: skip
