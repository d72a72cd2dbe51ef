"""The model in service: its version, the dependency that hands it to a request, and its reload.

A version is ``name@sha256:0123456789ab``: the name says which file, the digest which contents. It
goes out in /readyz and in the ``model`` field of every answer that a model made.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Request
from pydantic import BaseModel, ConfigDict, Field

from scoring.errors import ErrorCode, TaicamError
from vision.detector import TileDetector

from .errors import ApiError
from .settings import Settings

log = logging.getLogger("taicam.service")
# Enough of the SHA-256 to tell shipped models apart at a glance, as git shows commits.
VERSION_DIGITS = 12
MODEL_SUFFIX = ".onnx"


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


def serving_dep(request: Request) -> Serving:
    serving = request.app.state.serving
    if serving is None:
        raise TaicamError(ErrorCode.MODEL_NOT_LOADED, f"the detector is not loaded: {request.app.state.model_error}")
    return serving


ServingDep = Annotated[Serving, Depends(serving_dep)]


class ReloadIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    file: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        description="an .onnx file name beside the model in service; default: the same file, read again",
    )


def build_models_router(settings: Settings, detector_factory: Callable[[Settings], Any]) -> APIRouter:
    router = APIRouter(prefix="/v1/models", tags=["models"])
    reload_lock = threading.Lock()  # one load at a time: two would hold two new models in memory

    @router.post("/reload")
    def reload_model(request: Request, body: ReloadIn | None = None) -> dict[str, Any]:
        """Load the model file again (or another .onnx beside it) and serve it; a failed load keeps the old one.

        Requests already running finish on the model they started with.
        """
        path = settings.model_path
        if body is not None and body.file is not None:
            if Path(body.file).name != body.file or body.file.startswith(".") or not body.file.endswith(MODEL_SUFFIX):
                raise TaicamError(ErrorCode.BAD_PATH, f"give a plain {MODEL_SUFFIX} file name beside the model in service")
            path = settings.model_path.parent / body.file
        with reload_lock:
            current = request.app.state.serving
            previous = current.model if current else None
            try:
                detector = detector_factory(settings.model_copy(update={"model_path": path}))
                if detector is None:
                    raise ValueError("no detector came back")
            except Exception as error:
                raise ApiError(  # the caller's file did not load: 422, where "no model at all" is 503
                    422, "model_not_loaded", f"{path.name} did not load ({error}); still serving {previous}",
                    {"model": previous},
                ) from error  # fmt: skip
            serve_detector(request.app, detector)
            settings.model_path = path  # the next plain reload reads this file again
        serving = request.app.state.serving
        log.warning("model reloaded: %s (was %s)", serving.model, previous)
        return {"model": serving.model, "classifier": serving.classifier, "previous": previous}

    return router
