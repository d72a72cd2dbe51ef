"""The model in service: ``POST /v1/models/reload`` loads a model file again, or another beside it."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field

from scoring.errors import ErrorCode, TaicamError

from ..errors import ApiError
from ..model_version import serve_detector
from ..settings import Settings

log = logging.getLogger("taicam.service")
MODEL_SUFFIX = ".onnx"


class ReloadIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    file: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        description="an .onnx file name beside the model in service; default: the same file, read again",
    )


def build_router(settings: Settings, detector_factory: Callable[[Settings], Any]) -> APIRouter:
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
        return {
            "model": serving.model,
            "classifier": serving.classifier,
            "flower_reader": serving.flower_reader,
            "previous": previous,
        }

    return router
