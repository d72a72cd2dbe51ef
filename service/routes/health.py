"""Is the service up (``/healthz``), and is its model loaded (``/readyz``)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from ..errors import envelope

router = APIRouter(tags=["health"])


@router.get("/healthz")
def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/readyz")
def readyz(request: Request) -> JSONResponse:
    serving = request.app.state.serving
    if serving is None:
        return envelope(503, "model_not_loaded", f"the detector is not loaded: {request.app.state.model_error}")
    return JSONResponse(
        {"status": "ready", "model": serving.model, "classifier": serving.classifier, "flower_reader": serving.flower_reader}
    )
