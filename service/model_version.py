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


def serve_detector(app: FastAPI, detector: TileDetector) -> None:
    classifier = getattr(detector, "classifier", None)
    classifier_version = file_version(getattr(classifier, "path", None)) if classifier is not None else None
    app.state.serving = Serving(detector, file_version(getattr(detector, "path", None)), classifier_version)
    app.state.detector = detector  # for the labeling tool's pre-labels and new live connections
