"""One error envelope for every failure: ``{"error": {"code", "message", "details"}}``."""

from __future__ import annotations

import logging
import uuid
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from scoring.errors import ErrorCode, TaicamError

from .messages import error_in, pick_language

log = logging.getLogger("taicam.service")


class ApiError(TaicamError):
    """An error of the HTTP layer itself, with the status it answers with.

    Prefer raising a ``TaicamError`` with a code in ``STATUS_BY_CODE``; ``status`` is for the few
    answers whose status depends on the route (a failed model reload is the caller's 422, a model
    that is not loaded elsewhere the server's 503).
    """

    def __init__(self, status: int, code: str, message: str, details: dict[str, Any] | None = None):
        super().__init__(code, message, details)
        self.status = status


def envelope(status: int, code: str, message: str, details: dict[str, Any] | None = None) -> JSONResponse:
    return JSONResponse(status_code=status, content={"error": {"code": code, "message": message, "details": details or {}}})


def worded(request: Request, status: int, code: str, message: str, details: dict[str, Any] | None = None) -> JSONResponse:
    """The envelope in the language the request asks for (``?lang=`` or ``Accept-Language``)."""
    lang = pick_language(request.query_params.get("lang") or request.headers.get("accept-language"))
    message, details = error_in(code, message, details or {}, lang)
    return envelope(status, code, message, details)


# The one map from error code to HTTP status. A code not listed is the caller's mistake: 422.
STATUS_BY_CODE: dict[str, int] = {
    ErrorCode.BAD_PRESET: 500,  # a broken house preset is the server's
    ErrorCode.BAD_MODEL: 500,
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.LABELING_OFF: 404,
    ErrorCode.NO_FONT: 404,  # the labeling page falls back to text
    "no_camera": 404,
    "bad_host": 400,
    "unauthorized": 401,
    "bad_origin": 403,
    "csrf": 403,
    "method_not_allowed": 405,
    "timeout": 408,
    ErrorCode.CONFLICT: 409,
    ErrorCode.TOO_LARGE: 413,
    ErrorCode.NOT_AN_IMAGE: 415,
    "internal_error": 500,
    ErrorCode.MODEL_NOT_LOADED: 503,
    ErrorCode.BUSY: 503,
    ErrorCode.NO_FRAME: 503,
    ErrorCode.STORE_FULL: 507,
}


def status_for(code: str) -> int:
    return STATUS_BY_CODE.get(code, 422)


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(TaicamError)  # every layer's errors, ApiError too
    async def taicam_error(request: Request, error: TaicamError) -> JSONResponse:
        status = error.status if isinstance(error, ApiError) else status_for(error.code)
        return worded(request, status, error.code, error.message, error.details)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, error: RequestValidationError) -> JSONResponse:
        problems = [{"field": ".".join(str(p) for p in e["loc"]), "problem": e["msg"]} for e in error.errors()]
        return worded(request, 422, "invalid_request", "the request does not match the API", {"problems": problems})

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
        codes = {404: "not_found", 405: "method_not_allowed", 401: "unauthorized", 413: "too_large"}
        return worded(request, error.status_code, codes.get(error.status_code, "http_error"), str(error.detail))

    @app.exception_handler(Exception)
    async def unexpected(request: Request, error: Exception) -> JSONResponse:
        request_id = uuid.uuid4().hex[:12]
        log.exception("request %s failed", request_id)
        return worded(
            request, 500, "internal_error", f"something went wrong; quote request id {request_id}", {"request_id": request_id}
        )
