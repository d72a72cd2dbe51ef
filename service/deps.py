"""What the routes take from the app, as ``Annotated`` dependencies (the model in service, the ledger, the
camera, the language, a JSON body), and the checks of an upload they share."""

from __future__ import annotations

import re
from typing import Annotated, Any

import numpy as np
from fastapi import Depends, Request, UploadFile

from scoring.errors import ErrorCode, TaicamError
from taicam.pipeline.messages import pick_language
from vision.frames import FrameError
from vision.image_guard import ImageDecoder, ImageRefused

from .camera import ServerCamera
from .context import loads_bounded
from .errors import ApiError
from .ledger import Ledger
from .model_version import Serving
from .settings import Settings

IMAGE_TYPES = ("image/jpeg", "image/png", "image/webp", "image/bmp", "application/octet-stream")
DETECTION_ID = re.compile(r"[0-9]{1,6}")  # ASCII only: '²'.isdigit() is true and int('²') fails


def ledger_dep(request: Request) -> Ledger:
    return request.app.state.ledger


def camera_dep(request: Request) -> ServerCamera:
    camera = request.app.state.camera
    if camera is None:
        raise ApiError(404, "no_camera", "no server camera: start with 'taicam serve --camera 0'")
    return camera


def language_dep(request: Request) -> str:
    """``?lang=`` wins over ``Accept-Language``; English when neither names zh-TW or en."""
    return pick_language(request.query_params.get("lang") or request.headers.get("accept-language"))


def serving_dep(request: Request) -> Serving:
    serving = request.app.state.serving
    if serving is None:
        raise TaicamError(ErrorCode.MODEL_NOT_LOADED, f"the detector is not loaded: {request.app.state.model_error}")
    return serving


async def json_body(request: Request) -> Any:
    return loads_bounded(await request.body(), "the body")


ServingDep = Annotated[Serving, Depends(serving_dep)]
LedgerDep = Annotated[Ledger, Depends(ledger_dep)]
CameraDep = Annotated[ServerCamera, Depends(camera_dep)]
LanguageDep = Annotated[str, Depends(language_dep)]
JsonBody = Annotated[Any, Depends(json_body)]


def read_upload(request: Request, upload: UploadFile) -> tuple[bytes, np.ndarray]:
    """The uploaded bytes and the picture they decode to, refused with the envelope when they are not one."""
    settings: Settings = request.app.state.settings
    if upload.content_type and upload.content_type.split(";")[0] not in IMAGE_TYPES:
        raise ApiError(415, "not_an_image", f"expected an image upload, got {upload.content_type}")
    data = upload.file.read(settings.max_upload_bytes + 1)
    if len(data) > settings.max_upload_bytes:
        raise ApiError(413, "too_large", f"upload over the {settings.max_upload_mb:g} MB limit")
    return data, decode(request.app.state.decoder, data)


def decode(decoder: ImageDecoder, data: bytes) -> np.ndarray:
    try:
        return decoder.decode(data)
    except ImageRefused as error:
        raise ApiError(413 if error.code == "too_large" else 503, error.code, str(error)) from error
    except FrameError as error:
        raise ApiError(415, "not_an_image", str(error)) from error


def check_conf(conf: float) -> None:
    if not 0 < conf <= 1:  # also refuses NaN, which would silently detect nothing
        raise ApiError(422, "bad_field", f"'conf' must be a number in (0, 1], got {conf}")


def small_int(text: str, default: int, low: int, high: int) -> int:
    return min(high, max(low, int(text))) if DETECTION_ID.fullmatch(text) else default
