"""Routes that read a photo: its detections (``/v1/detect``) and its score (``/v1/score``)."""

from __future__ import annotations

import base64
import time
from typing import Annotated, Any

import cv2
import numpy as np
from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.responses import JSONResponse

from taicam import pipeline
from vision.annotate import Annotator
from vision.photo import detect_photo

from ..context import SituationIn, parse_json_field, score_request
from ..deps import DETECTION_ID, LanguageDep, ServingDep, check_conf, read_upload
from ..errors import ApiError, envelope
from ..settings import Settings
from ..training_data import keep_for_training

ANNOTATED_JPEG_QUALITY = 80


def build_router(settings: Settings) -> APIRouter:
    """The routes, with the form's default ``conf`` taken from ``settings`` (it shows in the API docs)."""
    router = APIRouter(tags=["vision"])

    @router.post("/v1/detect")
    def detect(
        serving: ServingDep,
        request: Request,
        image: Annotated[UploadFile, File()],
        conf: Annotated[float, Form()] = settings.conf,
    ):
        check_conf(conf)
        _, frame = read_upload(request, image)
        start = time.perf_counter()
        detections = detect_photo(serving.detector, frame, conf=conf)
        ms = round((time.perf_counter() - start) * 1000, 1)
        return {"image": image.filename, "detections": detections.to_json(), "ms": ms, "model": serving.model}

    @router.post("/v1/score")
    def score_photo(
        request: Request,
        serving: ServingDep,
        lang: LanguageDep,
        image: Annotated[UploadFile, File()],
        situation_form: Annotated[SituationIn, Form()],
        preset: Annotated[str, Form()] = "taiwan",
        winning_tile: Annotated[str | None, Form(description="a code in the hand row, or a detection id")] = None,
        corrections: Annotated[str | None, Form(description='JSON: {"detection id": "code"}')] = None,
        annotate: Annotated[
            bool | None, Form(description="the annotated photo: on a scored hand unless false, on a 422 only when true")
        ] = None,
        conf: Annotated[float, Form()] = settings.conf,
        save_for_training: Annotated[
            bool,
            Form(description="keep the photo (EXIF stripped), its detections, corrections and hand in the label store"),
        ] = False,
    ) -> JSONResponse:
        check_conf(conf)
        upload, frame = read_upload(request, image)
        fixes = _corrections(parse_json_field(corrections, "corrections"))
        override = int(winning_tile) if winning_tile and DETECTION_ID.fullmatch(winning_tile) else winning_tile
        asked = score_request(situation_form, preset, fixes, override)
        scored = pipeline.score_photo(serving.detector, frame, asked, conf)  # a PhotoRequestError is a 422
        result = scored.to_json(lang)
        payload = {"detections": scored.detections.to_json(), **result, "ms": round(scored.ms, 1), "model": serving.model}
        if save_for_training:
            payload["saved_for_training"] = keep_for_training(
                request.app.state.label_store, frame, upload, "snap", scored.detections, fixes, result
            )
        if annotate or (annotate is None and scored.scored):
            payload["annotated_image"] = _annotated_jpeg(frame, scored)
        if not scored.scored:
            problem = result["score"]["error"]
            return envelope(422, problem["code"], problem["message"], payload)
        return JSONResponse(payload)

    return router


def _corrections(raw: Any) -> dict[int, str]:
    if raw is None:
        return {}
    if not isinstance(raw, dict) or not all(DETECTION_ID.fullmatch(k) and isinstance(v, str) for k, v in raw.items()):
        raise ApiError(422, "bad_field", 'corrections must be a JSON object {"detection id": "tile code"}')
    return {int(k): v for k, v in raw.items()}


def _annotated_jpeg(frame: np.ndarray, scored: pipeline.PhotoScore) -> str | None:
    drawn = Annotator().annotate(frame, scored.detections, scored.layout)
    ok, jpeg = cv2.imencode(".jpg", drawn, [cv2.IMWRITE_JPEG_QUALITY, ANNOTATED_JPEG_QUALITY])
    return "data:image/jpeg;base64," + base64.b64encode(jpeg.tobytes()).decode() if ok else None
