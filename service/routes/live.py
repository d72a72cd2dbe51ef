"""Live scoring: frames from the browser over ``/v1/live``, and the server's own camera."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, WebSocket
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import StreamingResponse
from pydantic import ValidationError
from taicam_datasets.labels import LabelStore

from taicam.pipeline import LiveScorer
from taicam.pipeline.messages import pick_language
from vision.frames import FrameError
from vision.image_guard import ImageDecoder, ImageRefused

from ..context import SituationIn, score_request
from ..deps import CameraDep, small_int
from ..errors import ApiError
from ..training_data import keep_for_training

MAX_STABLE_FRAMES = 60
DEFAULT_STABLE_FRAMES = 4  # still frames before one is read in full, when the query names no "stable"

router = APIRouter()


@router.websocket("/v1/live")
async def live(websocket: WebSocket) -> None:
    # Host, Origin and token were checked by the SecurityGate before the handshake got here.
    await websocket.accept()
    serving = websocket.app.state.serving  # this connection keeps the model it started with
    if serving is None:
        await _refuse(websocket, "model_not_loaded", "the detector is not loaded", {})
        return
    params = dict(websocket.query_params)
    try:
        asked = score_request(SituationIn.model_validate(params), params.get("preset", "taiwan"))
    except ValidationError as error:
        problems = [{"field": ".".join(str(p) for p in e["loc"]), "problem": e["msg"]} for e in error.errors()]
        await _refuse(websocket, "invalid_request", "the query does not match the API", {"problems": problems})
        return
    except ApiError as error:
        await _refuse(websocket, error.code, error.message, error.details)
        return
    settings = websocket.app.state.settings
    stable = small_int(params.get("stable", ""), DEFAULT_STABLE_FRAMES, 1, MAX_STABLE_FRAMES)
    scorer = LiveScorer(serving.detector, asked, settings.conf, stable)
    lang = pick_language(params.get("lang") or websocket.headers.get("accept-language"))
    store = websocket.app.state.label_store if params.get("save_for_training") == "true" else None
    while True:
        received = await websocket.receive()
        if received["type"] == "websocket.disconnect":
            return
        data = received.get("bytes")
        if data is None:
            message = _error("binary_only", "send frames as binary JPEG messages")
        elif len(data) > settings.max_upload_bytes:
            message = _error("too_large", "frame too large")
        else:
            try:
                message = await run_in_threadpool(_live_frame, scorer, websocket.app.state.decoder, data, store, lang)
                message["model"] = serving.model
            except ImageRefused as error:
                message = _error(error.code, str(error))
            except FrameError as error:
                message = _error("not_an_image", str(error))
        await websocket.send_json(message)


@router.get("/v1/camera.mjpeg", tags=["live"])
def camera_stream(camera: CameraDep) -> StreamingResponse:
    return StreamingResponse(camera.mjpeg(), media_type="multipart/x-mixed-replace; boundary=frame")


@router.get("/v1/camera/events", tags=["live"])
def camera_events(camera: CameraDep) -> StreamingResponse:
    return StreamingResponse(camera.events(), media_type="text/event-stream")


def _error(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "details": {}}}


async def _refuse(websocket: WebSocket, code: str, message: str, details: dict[str, Any]) -> None:
    await websocket.send_json({"error": {"code": code, "message": message, "details": details}})
    await websocket.close()


def _live_frame(scorer: LiveScorer, decoder: ImageDecoder, data: bytes, store: LabelStore | None, lang: str) -> dict[str, Any]:
    """One frame; with a store (the player opted in), the frame a hand became stable on is kept."""
    frame = decoder.decode(data)
    recognition, scored = scorer.process(frame)
    stable = scored.to_json(lang) if scored is not None else None
    message = {"detections": recognition.detections.to_json(), "ms": round(recognition.ms, 1), "stable": stable}
    if stable is not None and store is not None:
        stable["saved_for_training"] = keep_for_training(store, frame, data, "live", recognition.detections, {}, stable)
    return message
