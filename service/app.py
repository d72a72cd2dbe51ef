"""The FastAPI app: built by ``create_app(settings)``, no work at import.

``create_app`` only wires: settings, the lifespan that loads the detector once, the security
middleware, the error handlers, and the routers of ``service/routes/`` (one per resource). Inference
runs in plain ``def`` endpoints, which FastAPI runs in its thread pool, so the event loop never blocks.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from taicam_datasets.labels import LabelStore

from vision.detector import TileDetector
from vision.image_guard import ImageDecoder

from .camera import ServerCamera
from .errors import install_error_handlers
from .labeling import build_router as build_labeling_router
from .ledger import Ledger
from .model_version import serve_detector
from .routes import health, ledger, live, models, pages, scoring, vision
from .security import SecurityGate
from .settings import Settings

log = logging.getLogger("taicam.service")
DetectorFactory = Callable[[Settings], Any]
Lifespan = Callable[[FastAPI], Any]
# Of the routes above the label router, the labeling tool keeps only these.
LABELING_PATHS = ("/healthz", "/readyz", "/openapi.json", "/docs")


def _load_detector(settings: Settings) -> TileDetector:
    return TileDetector(
        settings.model_path,
        threads=settings.inference_threads,
        classifier_path=settings.classifier_path,
        flower_reader_path=settings.flower_reader_path,
    )


def create_app(settings: Settings | None = None, detector_factory: DetectorFactory = _load_detector) -> FastAPI:
    settings = settings or Settings()
    app = FastAPI(
        title="taicam",
        version="0.1.0",
        lifespan=_lifespan(settings, detector_factory),
        description="Score Taiwan mahjong hands from photos.",
        docs_url=None,  # /docs is a page of our own (routes/pages.py)
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.decoder = ImageDecoder(settings.max_image_pixels, settings.max_concurrent_decodes)
    install_error_handlers(app)
    app.add_middleware(SecurityGate, settings=settings)

    for router in (health.router, scoring.router, vision.build_router(settings), ledger.router, live.router):
        app.include_router(router)
    app.include_router(models.build_router(settings, detector_factory))
    if settings.labeling_only:  # taicam label: the user's ledger and the scoring API stay out of reach
        app.router.routes = [r for r in app.router.routes if getattr(r, "path", "").startswith(LABELING_PATHS)]
    app.include_router(build_labeling_router(settings.max_upload_bytes))
    pages.install_pages(app, settings)
    return app


def _lifespan(settings: Settings, detector_factory: DetectorFactory) -> Lifespan:
    """Load the detector once; open the ledger, the label store and the server camera; stop the camera at the end."""

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
            settings.label_store_dir, app.state.decoder, settings.training_store_max_images, settings.training_store_max_bytes
        )
        app.state.camera = None
        if settings.camera is not None and app.state.detector is not None:
            app.state.camera = ServerCamera(settings.camera, app.state.detector, settings.conf)
            app.state.camera.start()
        yield
        if app.state.camera is not None:
            app.state.camera.stop()

    return lifespan
