"""The FastAPI app: built by ``create_app(settings)``, no work at import.

The detector loads once in the lifespan. Inference runs in plain ``def`` endpoints, which
FastAPI runs in its thread pool, so the event loop never blocks.
"""

from __future__ import annotations

import base64
import logging
import re
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

import cv2
from fastapi import Depends, FastAPI, File, Form, Query, Request, UploadFile, WebSocket
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse, JSONResponse, RedirectResponse, StreamingResponse
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError
from swagger_ui_bundle import swagger_ui_path
from taicam_datasets.labels import LabelStore

from scoring.api import score_hand as score_one_hand
from scoring.api import waits_json
from scoring.errors import TaicamError
from scoring.hand import HandError
from scoring.rules import load_presets
from vision.annotate import Annotator
from vision.detector import TileDetector
from vision.frames import FrameError
from vision.image_guard import ImageDecoder, ImageRefused

from .camera import ServerCamera
from .context import SituationIn, loads_bounded, parse_json_field, situation
from .errors import ApiError, envelope, install_error_handlers
from .labeling import build_router
from .ledger import HISTORY_PAGE, MAX_HISTORY_PAGE, SQLITE_MAX_INTEGER, Ledger
from .live import LiveScorer
from .messages import pick_language
from .model_version import ServingDep, build_models_router, serve_detector
from .pipeline import recognise, repair, score_layout
from .schemas import DrawIn, HandRecordIn, RowId, TableIn
from .security import SecurityGate
from .settings import Settings
from .training_data import keep_for_training

log = logging.getLogger("taicam.service")
STATIC = Path(__file__).resolve().parent / "static"
IMAGE_TYPES = ("image/jpeg", "image/png", "image/webp", "image/bmp", "application/octet-stream")
DetectorFactory = Callable[[Settings], Any]
# 145,000 hands in one request took 26 s of CPU and 1.4 GB; 100 hands take about 20 ms.
MAX_HANDS_PER_REQUEST = 100
MAX_STABLE_FRAMES = 60
# Of the routes above the label router, the labeling tool keeps only these.
LABELING_PATHS = ("/healthz", "/readyz", "/openapi.json", "/docs")


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


LanguageDep = Annotated[str, Depends(language_dep)]
CameraDep = Annotated[ServerCamera, Depends(camera_dep)]
LedgerDep = Annotated[Ledger, Depends(ledger_dep)]


def _load_detector(settings: Settings) -> TileDetector:
    return TileDetector(settings.model_path, threads=settings.inference_threads, classifier_path=settings.classifier_path)


def create_app(settings: Settings | None = None, detector_factory: DetectorFactory = _load_detector) -> FastAPI:
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.detector = app.state.serving = None
        app.state.model_error = None
        try:
            detector = detector_factory(settings)
            if detector is not None:
                serve_detector(app, detector)
        except Exception as error:  # the service still serves rules, hands and the ledger
            app.state.model_error = str(error)
            log.error("model not loaded: %s", error)
        app.state.ledger = None if settings.labeling_only else Ledger(settings.db_path)
        app.state.label_store = LabelStore(
            settings.label_store_dir, decoder, settings.training_store_max_images, settings.training_store_max_bytes
        )
        app.state.camera = None
        if settings.camera is not None and app.state.detector is not None:
            app.state.camera = ServerCamera(settings.camera, app.state.detector, settings.conf)
            app.state.camera.start()
        yield
        if app.state.camera is not None:
            app.state.camera.stop()

    # /docs is our own page over Swagger UI 5 files from the swagger-ui-bundle-v2 package: a table-side
    # LAN has no internet, and FastAPI's default page loads them from a CDN.
    app = FastAPI(
        title="taicam",
        version="0.1.0",
        lifespan=lifespan,
        description="Score Taiwan mahjong hands from photos.",
        docs_url=None,
        redoc_url=None,
    )
    app.state.settings = settings
    decoder = ImageDecoder(settings.max_image_pixels, settings.max_concurrent_decodes)
    app.state.decoder = decoder
    install_error_handlers(app)
    app.add_middleware(SecurityGate, settings=settings)

    def read_upload(upload: UploadFile) -> tuple[bytes, Any]:
        if upload.content_type and upload.content_type.split(";")[0] not in IMAGE_TYPES:
            raise ApiError(415, "not_an_image", f"expected an image upload, got {upload.content_type}")
        data = upload.file.read(settings.max_upload_bytes + 1)
        if len(data) > settings.max_upload_bytes:
            raise ApiError(413, "too_large", f"upload over the {settings.max_upload_mb:g} MB limit")
        return data, _decode(decoder, data)

    # --- health --------------------------------------------------------------------------
    @app.get("/healthz", tags=["health"])
    def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/readyz", tags=["health"])
    def readyz(request: Request) -> JSONResponse:
        serving = request.app.state.serving
        if serving is None:
            return envelope(503, "model_not_loaded", f"the detector is not loaded: {request.app.state.model_error}")
        return JSONResponse({"status": "ready", "model": serving.model, "classifier": serving.classifier})

    # --- scoring ---------------------------------------------------------------------------
    @app.get("/v1/rules", tags=["scoring"])
    def rules() -> list[dict[str, Any]]:
        return [preset.to_json() for preset in load_presets().values()]

    @app.post("/v1/score/hand", tags=["scoring"], description=f"One hand object, or an array of ≤ {MAX_HANDS_PER_REQUEST}.")
    def score_hand(body: Annotated[Any, Depends(_json_body)]) -> JSONResponse:
        if isinstance(body, list):
            if len(body) > MAX_HANDS_PER_REQUEST:
                raise ApiError(422, "too_many_hands", f"{len(body)} hands: at most {MAX_HANDS_PER_REQUEST} per request")
            results, ok = _score_each(body)
            return JSONResponse(results, status_code=200 if ok else 422)
        return JSONResponse(score_one_hand(body))  # a HandError reaches the envelope with its details

    @app.post("/v1/waits", tags=["scoring"])
    def waits(body: Annotated[Any, Depends(_json_body)]) -> dict[str, Any]:
        return waits_json(body)

    @app.post("/v1/detect", tags=["vision"])
    def detect(serving: ServingDep, image: Annotated[UploadFile, File()], conf: Annotated[float, Form()] = settings.conf):
        _check_conf(conf)
        _, frame = read_upload(image)
        start = time.perf_counter()
        from vision.photo import detect_photo

        detections = detect_photo(serving.detector, frame, conf=conf)
        ms = round((time.perf_counter() - start) * 1000, 1)
        return {"image": image.filename, "detections": detections.to_json(), "ms": ms, "model": serving.model}

    @app.post("/v1/score", tags=["vision"])
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
        _check_conf(conf)
        upload, frame = read_upload(image)
        fixes = _corrections(parse_json_field(corrections, "corrections"))
        context = situation(situation_form)
        try:
            recognition = recognise(serving.detector, frame, conf, fixes)
        except TaicamError:
            raise  # the error handlers map it with its own code
        except ValueError as error:  # recognise refuses a correction it cannot apply
            raise ApiError(422, "bad_correction", str(error)) from error
        recognition = repair(recognition, context, preset, frozenset(fixes))
        override = int(winning_tile) if winning_tile and _DETECTION_ID.fullmatch(winning_tile) else winning_tile
        try:
            result = score_layout(recognition.layout, context, preset, override, lang)
        except TaicamError:
            raise
        except ValueError as error:  # the winning tile named is not in the hand row
            raise ApiError(422, "bad_winning_tile", str(error)) from error
        payload = {
            "detections": recognition.detections.to_json(), **result, "ms": round(recognition.ms, 1), "model": serving.model
        }  # fmt: skip
        if save_for_training:
            payload["saved_for_training"] = keep_for_training(
                request.app.state.label_store, frame, upload, "snap", recognition.detections, fixes, result
            )
        scored = "error" not in result["score"]
        if annotate or (annotate is None and scored):
            drawn = Annotator().annotate(frame, recognition.detections, recognition.layout)
            ok, jpeg = cv2.imencode(".jpg", drawn, [cv2.IMWRITE_JPEG_QUALITY, 80])
            payload["annotated_image"] = "data:image/jpeg;base64," + base64.b64encode(jpeg.tobytes()).decode() if ok else None
        if not scored:
            problem = result["score"]["error"]
            return envelope(422, problem["code"], problem["message"], payload)
        return JSONResponse(payload)

    # --- ledger ------------------------------------------------------------------------------
    @app.get("/v1/tables", tags=["ledger"])
    def list_tables(ledger: LedgerDep) -> list[dict[str, Any]]:
        return ledger.tables()

    @app.post("/v1/tables", tags=["ledger"], status_code=201)
    def create_table(ledger: LedgerDep, table: TableIn) -> dict[str, Any]:
        if table.preset not in load_presets():
            raise ApiError(422, "unknown_preset", f"unknown preset '{table.preset}'")
        return ledger.create_table(table.name, table.players, table.base, table.per_tai, table.preset, table.options)

    @app.get("/v1/tables/{table_id}", tags=["ledger"])
    def get_table(
        ledger: LedgerDep,
        table_id: RowId,
        history_limit: Annotated[int, Query(ge=0, le=MAX_HISTORY_PAGE)] = HISTORY_PAGE,
        before: Annotated[int | None, Query(ge=1, le=SQLITE_MAX_INTEGER, description="history_before of a page")] = None,
    ) -> dict[str, Any]:
        return ledger.table(table_id, history_limit, before)

    @app.post("/v1/tables/{table_id}/hands", tags=["ledger"], status_code=201)
    def record_hand(ledger: LedgerDep, table_id: RowId, hand: HandRecordIn) -> dict[str, Any]:
        return ledger.record_win(
            table_id, hand.winner, hand.tai, hand.self_drawn, hand.discarder, hand.patterns, hand.expected_seq,
            hand.idempotency_key,
        )  # fmt: skip

    @app.post("/v1/tables/{table_id}/draws", tags=["ledger"], status_code=201)
    def record_draw(ledger: LedgerDep, table_id: RowId, draw: DrawIn) -> dict[str, Any]:
        return ledger.record_draw(table_id, draw.expected_seq)

    @app.post("/v1/tables/{table_id}/seats", tags=["ledger"], status_code=201)
    def draw_seats(ledger: LedgerDep, table_id: RowId, body: DrawIn | None = None) -> dict[str, Any]:
        return ledger.draw_seats(table_id, expected_seq=body.expected_seq if body else None)

    # --- live --------------------------------------------------------------------------------
    @app.websocket("/v1/live")
    async def live(websocket: WebSocket) -> None:
        # Host, Origin and token were checked by the SecurityGate before the handshake got here.
        await websocket.accept()
        serving = websocket.app.state.serving  # this connection keeps the model it started with
        if serving is None:
            await websocket.send_json(
                {"error": {"code": "model_not_loaded", "message": "the detector is not loaded", "details": {}}}
            )
            await websocket.close()
            return
        params = dict(websocket.query_params)
        try:
            context = situation(SituationIn.model_validate(params))
        except ValidationError as error:
            problems = [{"field": ".".join(str(p) for p in e["loc"]), "problem": e["msg"]} for e in error.errors()]
            await _refuse(websocket, "invalid_request", "the query does not match the API", {"problems": problems})
            return
        except ApiError as error:
            await _refuse(websocket, error.code, error.message, error.details)
            return
        keep = params.get("save_for_training") == "true"
        scorer = LiveScorer(
            serving.detector,
            context,
            params.get("preset", "taiwan"),
            settings.conf,
            _small_int(params.get("stable", ""), 4, 1, MAX_STABLE_FRAMES),
            pick_language(params.get("lang") or websocket.headers.get("accept-language")),
        )
        while True:
            received = await websocket.receive()
            if received["type"] == "websocket.disconnect":
                return
            data = received.get("bytes")
            if data is None:
                message = {"error": {"code": "binary_only", "message": "send frames as binary JPEG messages", "details": {}}}
            elif len(data) > settings.max_upload_bytes:
                message = {"error": {"code": "too_large", "message": "frame too large", "details": {}}}
            else:
                try:
                    store = websocket.app.state.label_store if keep else None
                    message = await run_in_threadpool(_live_frame, scorer, decoder, data, store)
                    message["model"] = serving.model
                except ImageRefused as error:
                    message = {"error": {"code": error.code, "message": str(error), "details": {}}}
                except FrameError as error:
                    message = {"error": {"code": "not_an_image", "message": str(error), "details": {}}}
            await websocket.send_json(message)

    @app.get("/v1/camera.mjpeg", tags=["live"])
    def camera_stream(camera: CameraDep) -> StreamingResponse:
        return StreamingResponse(camera.mjpeg(), media_type="multipart/x-mixed-replace; boundary=frame")

    @app.get("/v1/camera/events", tags=["live"])
    def camera_events(camera: CameraDep) -> StreamingResponse:
        return StreamingResponse(camera.events(), media_type="text/event-stream")

    app.include_router(build_models_router(settings, detector_factory))
    if settings.labeling_only:  # taicam label: the user's ledger and the scoring API stay out of reach
        app.router.routes = [r for r in app.router.routes if getattr(r, "path", "").startswith(LABELING_PATHS)]
    app.include_router(build_router(settings.max_upload_bytes))

    # --- pages -------------------------------------------------------------------------------
    app.mount("/static/swagger", StaticFiles(directory=swagger_ui_path), name="swagger")
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/", include_in_schema=False)
    def index() -> RedirectResponse:
        return RedirectResponse("/label" if settings.labeling_only else "/snap")

    for page in ("label",) if settings.labeling_only else ("snap", "live", "ledger", "label", "docs"):
        app.add_api_route(f"/{page}", _page(page), include_in_schema=False, methods=["GET"])
    return app


def _page(name: str):
    def serve() -> FileResponse:
        return FileResponse(STATIC / f"{name}.html")

    return serve


async def _json_body(request: Request) -> Any:
    return loads_bounded(await request.body(), "the body")


def _score_each(hands: list[Any]) -> tuple[list[dict[str, Any]], bool]:
    """Every hand of an array; a failed one carries its details, as a single hand's envelope does."""
    results, ok = [], True
    for hand in hands:
        try:
            results.append(score_one_hand(hand))
        except HandError as error:
            results.append(error.to_json())
            ok = False
    return results, ok


async def _refuse(websocket: WebSocket, code: str, message: str, details: dict[str, Any]) -> None:
    await websocket.send_json({"error": {"code": code, "message": message, "details": details}})
    await websocket.close()


_DETECTION_ID = re.compile(r"[0-9]{1,6}")  # ASCII only: '²'.isdigit() is true and int('²') fails


def _small_int(text: str, default: int, low: int, high: int) -> int:
    return min(high, max(low, int(text))) if _DETECTION_ID.fullmatch(text) else default


def _check_conf(conf: float) -> None:
    if not 0 < conf <= 1:  # also refuses NaN, which would silently detect nothing
        raise ApiError(422, "bad_field", f"'conf' must be a number in (0, 1], got {conf}")


def _corrections(raw: Any) -> dict[int, str]:
    if raw is None:
        return {}
    if not isinstance(raw, dict) or not all(_DETECTION_ID.fullmatch(k) and isinstance(v, str) for k, v in raw.items()):
        raise ApiError(422, "bad_field", 'corrections must be a JSON object {"detection id": "tile code"}')
    return {int(k): v for k, v in raw.items()}


def _decode(decoder: ImageDecoder, data: bytes) -> Any:
    try:
        return decoder.decode(data)
    except ImageRefused as error:
        raise ApiError(413 if error.code == "too_large" else 503, error.code, str(error)) from error
    except FrameError as error:
        raise ApiError(415, "not_an_image", str(error)) from error


def _live_frame(scorer: LiveScorer, decoder: ImageDecoder, data: bytes, store: LabelStore | None) -> dict[str, Any]:
    """One frame; with a store (the player opted in), the frame a hand became stable on is kept."""
    frame = decoder.decode(data)
    recognition, stable = scorer.process(frame)
    message = {"detections": recognition.detections.to_json(), "ms": round(recognition.ms, 1), "stable": stable}
    if stable is not None and store is not None:
        stable["saved_for_training"] = keep_for_training(store, frame, data, "live", recognition.detections, {}, stable)
    return message
