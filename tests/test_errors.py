"""One error base: every layer's errors are TaicamErrors with a code, and one map gives each its HTTP status."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from taicam_datasets.faces import FontsMissingError
from taicam_datasets.labels import LabelError

from scoring.errors import ErrorCode, TaicamError
from scoring.hand import HandError
from scoring.rules import RulesError
from service.errors import STATUS_BY_CODE, ApiError, install_error_handlers, status_for
from service.ledger import LedgerError
from vision.frames import FrameError
from vision.image_guard import ImageRefused
from vision.onnx_session import ModelError

ROOT = Path(__file__).resolve().parents[1]

CASES = [
    (LedgerError(ErrorCode.NOT_FOUND, "no table 9"), "not_found", 404),
    (LedgerError(ErrorCode.CONFLICT, "the table moved on"), "conflict", 409),
    (LedgerError(ErrorCode.BAD_HAND, "seats are E, S, W, N"), "bad_hand", 422),
    (LabelError(ErrorCode.CONFLICT, "saved elsewhere"), "conflict", 409),
    (LabelError(ErrorCode.STORE_FULL, "full"), "store_full", 507),
    (LabelError(ErrorCode.BAD_BOX, "bad box"), "bad_box", 422),
    (ModelError("not a loadable ONNX model"), "bad_model", 500),
    (FrameError("camera 0 stopped giving frames"), "no_frame", 503),
    (FrameError("not a decodable image", ErrorCode.NOT_AN_IMAGE), "not_an_image", 415),
    (ImageRefused(ErrorCode.TOO_LARGE, "image too large"), "too_large", 413),
    (ImageRefused(ErrorCode.BUSY, "too many images"), "busy", 503),
    (FontsMissingError("no CJK font"), "no_font", 404),
    (HandError(ErrorCode.TILE_COUNT, "17 tiles", {"count": 16}), "tile_count", 422),
    (RulesError("house.json: unknown param"), "bad_preset", 500),
    (ApiError(422, "model_not_loaded", "x.onnx did not load"), "model_not_loaded", 422),
]


@pytest.mark.parametrize(("error", "code", "status"), CASES, ids=[type(c[0]).__name__ + "-" + c[1] for c in CASES])
def test_each_error_is_a_taicam_error_answered_with_its_status_in_the_one_envelope(error, code, status):
    assert isinstance(error, TaicamError) and error.code == code and isinstance(error.details, dict)
    assert code in set(ErrorCode) or isinstance(error, ApiError)
    app = FastAPI()
    install_error_handlers(app)

    @app.get("/fail")
    def fail() -> None:
        raise error

    with TestClient(app) as client:
        response = client.get("/fail")
    assert response.status_code == status
    assert response.json() == {"error": {"code": code, "message": error.message, "details": error.details}}


def test_errors_that_were_runtime_errors_still_are():
    assert isinstance(FrameError("x"), RuntimeError) and isinstance(ImageRefused(ErrorCode.BUSY, "x"), RuntimeError)
    assert isinstance(FontsMissingError("x"), RuntimeError)


# Route-specific statuses an ApiError may give instead of its code's: a failed model reload is the
# caller's file (422), where "no model loaded" elsewhere is the server's state (503).
ROUTE_STATUS = {("model_not_loaded", 422)}
LITERAL = re.compile(r'(?:ApiError|envelope|worded)\((?:request, )?(\d+)(?: if [^,]+ else (\d+))?,\s*"([a-z_]+)"', re.S)


def test_every_status_written_in_the_service_agrees_with_the_one_map():
    found = []
    for path in (ROOT / "service").rglob("*.py"):
        for match in LITERAL.finditer(path.read_text(encoding="utf-8")):
            status, code = int(match.group(1)), match.group(3)
            found.append((path.name, code, status))
    assert len(found) >= 10  # the scan finds the service's answers, not nothing
    wrong = [f for f in found if f[2] != status_for(f[1]) and (f[1], f[2]) not in ROUTE_STATUS]
    assert wrong == []


def test_the_map_gives_422_to_what_it_does_not_list():
    assert status_for("bad_tile") == 422 and "bad_tile" not in STATUS_BY_CODE
