"""The pages (snap, live, ledger, label, docs) and their static files, served from the package."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from swagger_ui_bundle import swagger_ui_path

from ..settings import Settings

STATIC = Path(__file__).resolve().parents[1] / "static"
PAGES = ("snap", "live", "ledger", "label", "docs")
LABELING_PAGES = ("label",)


def install_pages(app: FastAPI, settings: Settings) -> None:
    """Mount the static files and add each page; the labeling tool (``taicam label``) has only its own.

    /docs is our own page over Swagger UI 5 files from the swagger-ui-bundle-v2 package: a table-side
    LAN has no internet, and FastAPI's default page loads them from a CDN.
    """
    app.mount("/static/swagger", StaticFiles(directory=swagger_ui_path), name="swagger")
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/", include_in_schema=False)
    def index() -> RedirectResponse:
        return RedirectResponse("/label" if settings.labeling_only else "/snap")

    for page in LABELING_PAGES if settings.labeling_only else PAGES:
        app.add_api_route(f"/{page}", _page(page), include_in_schema=False, methods=["GET"])


def _page(name: str) -> Callable[[], FileResponse]:
    def serve() -> FileResponse:
        return FileResponse(STATIC / f"{name}.html")

    return serve
