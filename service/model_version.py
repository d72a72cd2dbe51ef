"""The model in service and its version. Requests reach it through ``service.deps.ServingDep``;
``POST /v1/models/reload`` (``service/routes/models.py``) swaps it.

A version is ``name@sha256:0123456789ab``: the name says which file, the digest which contents. It
goes out in /readyz and in the ``model`` field of every answer that a model made.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from fastapi import FastAPI

from vision.detector import TileDetector

# Enough of the SHA-256 to tell shipped models apart at a glance, as git shows commits.
VERSION_DIGITS = 12


def file_version(path: Path | None) -> str | None:
    if path is None:
        return None
    path = Path(path)
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:VERSION_DIGITS]
    except OSError:
        return path.name  # a detector not read from a file (tests' fakes)
    return f"{path.name}@sha256:{digest}"


@dataclass(frozen=True)
class Serving:
    """The detector in service and its versions, swapped as one so an answer names the model that made it."""

    detector: TileDetector
    model: str | None
    classifier: str | None
    flower_reader: str | None


def serve_detector(app: FastAPI, detector: TileDetector) -> None:
    def version_of(part: object) -> str | None:
        return file_version(getattr(part, "path", None)) if part is not None else None

    app.state.serving = Serving(
        detector,
        version_of(detector),
        version_of(getattr(detector, "classifier", None)),
        version_of(getattr(detector, "flower_reader", None)),
    )
    app.state.detector = detector  # for the labeling tool's pre-labels and new live connections
