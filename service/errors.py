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

from .ledger import LedgerError
from .messages import error_in, pick_language

log = logging.getLogger("taicam.service")


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, details: dict[str, Any] | None = None):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details or {}


def envelope(status: int, code: str, message: str, details: dict[str, Any] | None = None) -> JSONResponse:
    return JSONResponse(status_code=status, content={"error": {"code": code, "message": message, "details": details or {}}})


def worded(request: Request, status: int, code: str, message: str, details: dict[str, Any] | None = None) -> JSONResponse:
    """The envelope in the language the request asks for (``?lang=`` or ``Accept-Language``)."""
    lang = pick_language(request.query_params.get("lang") or request.headers.get("accept-language"))
    message, details = error_in(code, message, details or {}, lang)
    return envelope(status, code, message, details)


LEDGER_STATUS = {"not_found": 404, "conflict": 409}
# A scoring error is the caller's (422) unless listed: a broken house preset is the server's.
STATUS_BY_CODE: dict[str, int] = {ErrorCode.BAD_PRESET: 500}


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def api_error(request: Request, error: ApiError) -> JSONResponse:
        return worded(request, error.status, error.code, error.message, error.details)

    @app.exception_handler(TaicamError)
    async def taicam_error(request: Request, error: TaicamError) -> JSONResponse:
        return worded(request, STATUS_BY_CODE.get(error.code, 422), error.code, error.message, error.details)

    @app.exception_handler(LedgerError)
    async def ledger_error(request: Request, error: LedgerError) -> JSONResponse:
        return worded(request, LEDGER_STATUS.get(error.code, 422), error.code, error.message)

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
