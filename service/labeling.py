"""The labeling tool's API (served under /v1/label and the /label page).

The store's ``LabelError``s reach the one error handler as they are: their HTTP status comes from
the code (``service/errors.py``), as every other error's does.

Paths from the browser are never trusted: folders to import from or export to are names
inside the data folder's ``inbox/`` and ``exports/``, resolved and checked to stay there.
"""

from __future__ import annotations

import functools
import random
from pathlib import Path
from typing import Annotated, Any

import cv2
from fastapi import APIRouter, Depends, File, Request, UploadFile
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from taicam_datasets.labels import Box, LabelError, LabelStore

from scoring.errors import ErrorCode, TaicamError
from scoring.tiles import TILE_CODES

from .schemas import RowId


class SaveIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    boxes: list[dict[str, Any]]
    version: int
    checked: bool | None = None


class FolderIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=120, description="a folder name inside the data folder's inbox/ or exports/")


class ExportIn(FolderIn):
    val_fraction: float = Field(default=0.15, ge=0.0, le=0.9)
    checked_only: bool = False


def store_dep(request: Request) -> LabelStore:
    store = getattr(request.app.state, "label_store", None)
    if store is None:
        raise TaicamError(ErrorCode.LABELING_OFF, "start the labeling tool with 'taicam label --data DIR'")
    return store


StoreDep = Annotated[LabelStore, Depends(store_dep)]


def inside(base: Path, name: str) -> Path:
    """``base/name`` if it stays inside ``base``; anything else is refused."""
    if "\x00" in name or name.startswith("."):
        raise TaicamError(ErrorCode.BAD_PATH, "give a plain folder name, not a path")
    target = (base / name).resolve()
    if target.parent != base.resolve():
        raise TaicamError(ErrorCode.BAD_PATH, "give a plain folder name, not a path")
    return target


@functools.lru_cache(maxsize=64)
def _tile_png(code: str) -> bytes:
    from taicam_datasets.faces import FaceStyle, draw_face

    rng = random.Random(7)
    style = FaceStyle(
        face_rgb=(245, 242, 232), back_rgb=(30, 120, 70), font=FaceStyle.random(rng).font, hk_corners=False,
        ink_jitter=0, thickness=0.5, blank_white_dragon=False,
    )  # fmt: skip
    return cv2.imencode(".png", cv2.resize(draw_face(code, style, rng), (45, 60), interpolation=cv2.INTER_AREA))[1].tobytes()


def build_router(max_upload_bytes: int) -> APIRouter:
    # One closure holds every label route, a few lines each, as FastAPI builds routers: over 60
    # lines in all, but each endpoint reads on its own.
    router = APIRouter(prefix="/v1/label", tags=["labeling"])

    @router.get("/images")
    def queue(store: StoreDep) -> list[dict[str, Any]]:
        return store.queue()

    @router.get("/next")
    def next_unchecked(store: StoreDep) -> dict[str, Any]:
        return {"id": store.next_unchecked()}

    @router.get("/images/{image_id}")
    def image(store: StoreDep, image_id: RowId) -> dict[str, Any]:
        return store.image(image_id)

    @router.get("/images/{image_id}/file")
    def image_file(store: StoreDep, image_id: RowId) -> FileResponse:
        return FileResponse(store.path_of(image_id))

    @router.put("/images/{image_id}")
    def save(store: StoreDep, image_id: RowId, body: SaveIn) -> dict[str, Any]:
        return store.save(image_id, body.boxes, body.version, body.checked)

    @router.post("/images/{image_id}/confirm")
    def confirm(store: StoreDep, image_id: RowId) -> dict[str, Any]:
        """The player's "this is right": every box they did not correct becomes confirmed."""
        return store.confirm(image_id)

    @router.post("/upload", status_code=201)
    def upload(store: StoreDep, files: Annotated[list[UploadFile], File()]) -> dict[str, Any]:
        return _add_uploads(store, files, max_upload_bytes)

    @router.post("/import")
    def import_inbox(store: StoreDep, body: FolderIn) -> dict[str, int]:
        folder = inside(store.root / "inbox", body.name)
        if not folder.is_dir():
            raise TaicamError(ErrorCode.NOT_FOUND, f"no folder inbox/{body.name} in the data folder")
        return store.import_folder(folder)

    @router.post("/prelabel")
    async def prelabel(request: Request, store: StoreDep) -> dict[str, int]:
        detector = request.app.state.detector
        if detector is None:
            raise TaicamError(ErrorCode.MODEL_NOT_LOADED, "the detector is not loaded")
        return await run_in_threadpool(prelabel_all, store, detector)

    @router.post("/export")
    def export(store: StoreDep, body: ExportIn) -> dict[str, Any]:
        out = inside(store.root / "exports", body.name)
        result = store.export(out, body.val_fraction, body.checked_only)
        # Paths inside the data folder, never the server's absolute ones.
        return {**result, "out": f"exports/{out.name}", "data_yaml": f"exports/{out.name}/data.yaml"}

    @router.get("/stats")
    def stats(store: StoreDep) -> dict[str, int]:
        return store.stats()

    @router.get("/tiles/{code}.png")
    def tile_picture(code: str) -> Response:
        if code not in TILE_CODES:
            raise TaicamError(ErrorCode.NOT_FOUND, f"no tile {code}")
        try:
            return Response(_tile_png(code), media_type="image/png", headers={"cache-control": "max-age=86400"})
        except RuntimeError as error:  # no CJK font installed (FontsMissingError): the page falls back to text
            raise TaicamError(ErrorCode.NO_FONT, str(error)) from error

    return router


def _add_uploads(store: LabelStore, files: list[UploadFile], max_upload_bytes: int) -> dict[str, Any]:
    """Every upload the store takes; refused as a whole, with the likeliest cause, when none is."""
    added, problems, codes = [], [], set()
    for upload in files:
        data = upload.file.read(max_upload_bytes + 1)
        if len(data) > max_upload_bytes:
            problems.append(f"{upload.filename}: over the upload limit")
            codes.add(ErrorCode.TOO_LARGE)
            continue
        try:
            added.append(store.add_image(data, upload.filename or "upload.jpg"))
        except LabelError as error:
            problems.append(error.message)
            codes.add(error.code)
    if problems and not added:
        if codes == {ErrorCode.TOO_LARGE}:
            raise LabelError(ErrorCode.TOO_LARGE, "; ".join(problems))
        if ErrorCode.STORE_FULL in codes:
            raise LabelError(ErrorCode.STORE_FULL, "; ".join(problems))
        raise LabelError(ErrorCode.NOT_AN_IMAGE, "; ".join(problems))
    return {"added": added, "problems": problems}


def prelabel_all(store: LabelStore, detector) -> dict[str, int]:
    """Run the model on every unchecked image; human boxes stay as they are."""
    from vision.photo import detect_photo

    done = 0
    for entry in store.queue():
        if entry["checked"]:
            continue
        image = store.load(entry["id"])
        if image is None:
            continue
        found = detect_photo(detector, image)
        predictions = [
            Box(code, *(float(v) for v in box), source="model", confidence=float(conf))
            for code, box, conf in zip(found.codes, found.xyxy, found.confidence, strict=True)
        ]
        store.prelabel(entry["id"], predictions)
        done += 1
    return {"prelabeled": done}
