"""The labeling store: images on disk, boxes and review state in SQLite.

Every save is one transaction that also bumps the image's version; a save based on an old
version is refused, so two browser tabs never silently overwrite each other. Image files are
written to a temporary name and renamed, so a crash leaves no half-written file. Paths from
outside are never trusted: files live under the store's own folder, named by id.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import os
import re
import sqlite3
import time
from collections import Counter
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from scoring.errors import ErrorCode, TaicamError
from scoring.tiles import TILE_CODES, is_flower
from vision.detections import box_iou
from vision.frames import FrameError
from vision.image_guard import ImageDecoder, ImageRefused

from .layout import IMAGE_SUFFIXES, list_images, read_labels
from .storage import Database, atomic_write

SCHEMA = """
CREATE TABLE IF NOT EXISTS images (
    id INTEGER PRIMARY KEY,
    file TEXT NOT NULL UNIQUE,      -- name inside images/, chosen by the store
    original TEXT NOT NULL,         -- the name it was imported under (display only)
    session TEXT NOT NULL,          -- capture session: frames of one session share a split
    sha1 TEXT NOT NULL UNIQUE,
    width INTEGER NOT NULL,
    height INTEGER NOT NULL,
    checked INTEGER NOT NULL DEFAULT 0,
    version INTEGER NOT NULL DEFAULT 1,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS boxes (
    image_id INTEGER NOT NULL REFERENCES images(id),
    position INTEGER NOT NULL,
    code TEXT NOT NULL,
    x1 REAL NOT NULL, y1 REAL NOT NULL, x2 REAL NOT NULL, y2 REAL NOT NULL,
    source TEXT NOT NULL,           -- model or human
    confidence REAL,                -- the model's, for predictions
    PRIMARY KEY (image_id, position)
);
CREATE TABLE IF NOT EXISTS revisions (
    image_id INTEGER NOT NULL,
    version INTEGER NOT NULL,
    boxes TEXT NOT NULL,
    saved REAL NOT NULL,
    PRIMARY KEY (image_id, version)
);
"""

# Columns added after the first release: a store made before them gets them on open, with these
# declarations (ALTER TABLE ADD COLUMN), so no one has to re-import their photos.
ADDED_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("images", "source", "TEXT NOT NULL DEFAULT 'import'"),  # snap, live or import: where the photo came from
    ("images", "preset", "TEXT"),  # the rules the player scored it under (captures only)
    ("images", "hand", "TEXT"),  # the final hand JSON the player saw (captures only)
    ("images", "corrections", "TEXT"),  # {"detection id": "code"} the player chose (captures only)
    ("images", "unscorable", "INTEGER NOT NULL DEFAULT 0"),  # its hand could not be scored
    ("images", "confirmed", "INTEGER NOT NULL DEFAULT 0"),  # the player said "this is right"
    ("images", "split", "TEXT"),  # train or val, fixed when the photo enters the store
    ("images", "bytes", "INTEGER NOT NULL DEFAULT 0"),  # the stored file's size, for the cap
    ("boxes", "state", "TEXT NOT NULL DEFAULT 'unchecked'"),  # unchecked, corrected or confirmed
)

MAX_IMAGE_BYTES = 40 * 1024 * 1024
# The store's own split: a capture session's hash puts it in val with this chance, once, when
# its first photo arrives; the split is stored so it never moves afterwards.
STORE_VAL_FRACTION = 0.15
# A store grows from every opted-in photo at the table; these caps keep a forgotten switch from
# filling the disk (about 1 MB a photo). TAICAM_TRAINING_STORE_MAX_* change them for serve.
DEFAULT_MAX_IMAGES = 20_000
DEFAULT_MAX_BYTES = 8 * 1024**3
SOURCES = ("snap", "live", "import")
BOX_STATES = ("unchecked", "corrected", "confirmed")
PRELABEL_SAME_TILE_IOU = 0.5  # a model box overlapping a person's this much is the same tile: the person's stays
CAPTURE_JPEG_QUALITY = 95  # re-encoded (which drops EXIF), close to the camera's own quality


class LabelError(TaicamError):
    """A request the label store refuses: a bad box or label file, an unknown image, a stale save, a full store."""


@dataclass(frozen=True)
class Box:
    code: str
    x1: float
    y1: float
    x2: float
    y2: float
    source: str = "human"
    confidence: float | None = None
    state: str = "unchecked"  # unchecked (a pre-label), corrected (a person chose it), confirmed

    @classmethod
    def from_json(cls, raw: Any, width: int, height: int) -> Box:
        if not isinstance(raw, dict) or raw.get("code") not in TILE_CODES:
            raise LabelError(ErrorCode.BAD_BOX, f"each box needs a tile code (one of the 43), got {raw!r}")
        try:
            x1, y1, x2, y2 = (float(v) for v in raw["box"])
        except (KeyError, TypeError, ValueError) as error:
            raise LabelError(ErrorCode.BAD_BOX, f"'box' must be [x1, y1, x2, y2] in pixels: {error}") from error
        if not all(math.isfinite(v) for v in (x1, y1, x2, y2)):
            raise LabelError(ErrorCode.BAD_BOX, "box coordinates must be finite numbers")
        x1, x2 = sorted((max(0.0, min(x1, width)), max(0.0, min(x2, width))))
        y1, y2 = sorted((max(0.0, min(y1, height)), max(0.0, min(y2, height))))
        if x2 - x1 < 2 or y2 - y1 < 2:
            raise LabelError(ErrorCode.BAD_BOX, "a box must be at least 2 pixels wide and tall inside the image")
        source = raw.get("source", "human")
        if source not in ("human", "model"):
            raise LabelError(ErrorCode.BAD_BOX, "source is 'human' or 'model'")
        confidence = raw.get("confidence")
        if confidence is not None and (
            isinstance(confidence, bool) or not isinstance(confidence, int | float) or not 0 <= confidence <= 1
        ):
            raise LabelError(ErrorCode.BAD_BOX, f"confidence is a number from 0 to 1 or null, got {confidence!r}")
        # A box saved without a state keeps the old meaning: one a person drew or recoded is corrected.
        state = raw.get("state") or ("corrected" if source == "human" else "unchecked")
        if state not in BOX_STATES:
            raise LabelError(ErrorCode.BAD_BOX, f"state is one of {', '.join(BOX_STATES)}, got {state!r}")
        return cls(raw["code"], x1, y1, x2, y2, source, None if confidence is None else float(confidence), state)

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "box": [round(self.x1, 1), round(self.y1, 1), round(self.x2, 1), round(self.y2, 1)],
            "source": self.source,
            "confidence": self.confidence,
            "state": self.state,
        }


def guess_session(name: str) -> str:
    """Frames of one capture share a session: the name without its trailing frame counter."""
    stem = Path(name).stem
    stem = re.sub(r"\.rf\.[0-9a-f]+$", "", stem)  # Roboflow export suffixes
    stem = re.sub(r"[_-]?\d+$", "", stem)
    return stem or "default"


def _read_no_follow(path: Path) -> bytes:
    """A file's bytes, refusing a symbolic link (a link in the data folder may point anywhere)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as handle:
        return handle.read()


def _real_dir(path: Path) -> bool:
    return path.is_dir() and not path.is_symlink()


@dataclass(frozen=True)
class Capture:
    """A photo scored at the table that the player chose to keep for training.

    ``digest`` names the upload (its SHA-1): the same photo posted again, after another
    correction, updates its capture instead of adding a second copy.
    """

    image: np.ndarray  # BGR, as the detector saw it; stored re-encoded, so without EXIF
    digest: str
    source: str  # snap or live
    session: str
    preset: str
    hand: dict[str, Any] | None
    corrections: dict[int, str]
    unscorable: bool
    boxes: tuple[Box, ...]


class LabelStore:
    def __init__(
        self,
        root: Path | str,
        decoder: ImageDecoder | None = None,
        max_images: int = DEFAULT_MAX_IMAGES,
        max_bytes: int = DEFAULT_MAX_BYTES,
    ):
        self.root = Path(root).resolve()
        self.decoder = decoder or ImageDecoder()  # the header is sized before any image is decoded
        self.max_images = max_images
        self.max_bytes = max_bytes
        self.images_dir = self.root / "images"
        self.images_dir.mkdir(parents=True, exist_ok=True)
        (self.root / "inbox").mkdir(exist_ok=True)
        (self.root / "exports").mkdir(exist_ok=True)
        self._database = Database(self.root / "labels.db")
        self._db().executescript(SCHEMA)
        self._migrate()

    @staticmethod
    def is_store(path: Path | str) -> bool:
        return (Path(path) / "labels.db").is_file()

    def _migrate(self) -> None:
        """Add the columns a store made by an older taicam lacks, and fill them from what it has."""
        with self._write() as db:
            for table, column, declaration in ADDED_COLUMNS:
                present = {row["name"] for row in db.execute(f"PRAGMA table_info({table})")}
                if column in present:
                    continue
                db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
                if (table, column) == ("boxes", "state"):  # a box a person drew or recoded was their correction
                    db.execute("UPDATE boxes SET state = 'corrected' WHERE source = 'human'")
            for row in db.execute("SELECT id, session, file FROM images WHERE split IS NULL").fetchall():
                path = self.images_dir / row["file"]
                size = path.stat().st_size if path.is_file() and not path.is_symlink() else 0
                db.execute(
                    "UPDATE images SET split = ?, bytes = ? WHERE id = ?",
                    (split_of(row["session"], STORE_VAL_FRACTION), size, row["id"]),
                )

    def _check_room(self, db: sqlite3.Connection, size: int) -> None:
        count, used = db.execute("SELECT COUNT(*), COALESCE(SUM(bytes), 0) FROM images").fetchone()
        if count + 1 > self.max_images or used + size > self.max_bytes:
            raise LabelError(
                ErrorCode.STORE_FULL,
                f"the label store is full ({count} photos, {used / 1024**2:.0f} MB; limits {self.max_images}"
                f" photos, {self.max_bytes / 1024**2:.0f} MB): export and train on it, move it aside, or raise"
                " TAICAM_TRAINING_STORE_MAX_IMAGES / TAICAM_TRAINING_STORE_MAX_MB",
            )

    # --- storage ----------------------------------------------------------------------------
    def _db(self) -> sqlite3.Connection:
        return self._database.connection()

    def _write(self) -> AbstractContextManager[sqlite3.Connection]:
        """One write transaction; the write lock is taken up front so writers queue."""
        return self._database.transaction()

    def path_of(self, image_id: int) -> Path:
        row = self._db().execute("SELECT file FROM images WHERE id = ?", (image_id,)).fetchone()
        if row is None:
            raise LabelError(ErrorCode.NOT_FOUND, f"no image {image_id}")
        path = (self.images_dir / row["file"]).resolve()
        if path.parent != self.images_dir:  # the name came from us, but check anyway
            raise LabelError(ErrorCode.NOT_FOUND, "image outside the data folder")
        return path

    def _decode(self, data: bytes, name: str) -> np.ndarray:
        try:
            return self.decoder.decode(data)
        except ImageRefused as error:
            raise LabelError(error.code, f"{name}: {error}") from error  # too_large or busy
        except FrameError as error:
            raise LabelError(ErrorCode.NOT_AN_IMAGE, f"{name}: not a decodable image") from error

    def load(self, image_id: int) -> np.ndarray | None:
        """A stored image, decoded under the same pixel cap as uploads; ``None`` if it cannot be read."""
        try:
            return self._decode(_read_no_follow(self.path_of(image_id)), str(image_id))
        except (LabelError, OSError):
            return None

    # --- import -----------------------------------------------------------------------------
    def add_image(
        self, data: bytes, original: str, session: str | None = None, boxes: list[Box] | None = None, source: str = "import"
    ) -> dict[str, Any]:
        """Add one image (bytes are checked to be an image); duplicates return the existing id."""
        if not data:
            raise LabelError(ErrorCode.NOT_AN_IMAGE, f"{original}: empty file")
        if len(data) > MAX_IMAGE_BYTES:
            raise LabelError(ErrorCode.TOO_LARGE, f"{original}: over {MAX_IMAGE_BYTES // (1024 * 1024)} MB")
        image = self._decode(data, original)
        digest = hashlib.sha1(data).hexdigest()
        existing = self._db().execute("SELECT id FROM images WHERE sha1 = ?", (digest,)).fetchone()
        if existing:
            return {"id": existing["id"], "duplicate": True}
        suffix = Path(original).suffix.lower()
        suffix = suffix if suffix in IMAGE_SUFFIXES else ".jpg"
        file = f"{digest[:16]}{suffix}"
        height, width = image.shape[:2]
        session = session or guess_session(original)
        with self._write() as db:
            self._check_room(db, len(data))
            atomic_write(self.images_dir / file, data)
            cursor = db.execute(
                "INSERT INTO images (file, original, session, sha1, width, height, created, source, split, bytes)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (file, Path(original).name, session, digest, width, height, time.time(), source,
                 split_of(session, STORE_VAL_FRACTION), len(data)),
            )  # fmt: skip
            image_id = int(cursor.lastrowid or 0)
            self._insert_boxes(db, image_id, boxes or [])
        return {"id": image_id, "duplicate": False}

    def add_capture(self, capture: Capture) -> int:
        """Keep a photo scored at the table with its detections, corrections and hand; returns its id.

        The photo is re-encoded (no EXIF: no place, time or phone model leaves the table). Posted
        again, the same photo replaces its boxes, hand and corrections and must be confirmed again,
        unless a reviewer has checked it in /label since: then the reviewer's boxes stand.
        """
        if capture.source not in SOURCES:
            raise LabelError(ErrorCode.BAD_SOURCE, f"source is one of {', '.join(SOURCES)}, got {capture.source!r}")
        fields = (
            capture.preset,
            json.dumps(capture.hand, ensure_ascii=False) if capture.hand is not None else None,
            json.dumps({str(k): v for k, v in sorted(capture.corrections.items())}),
            int(capture.unscorable),
        )
        ok, encoded = cv2.imencode(".jpg", capture.image, [cv2.IMWRITE_JPEG_QUALITY, CAPTURE_JPEG_QUALITY])
        if not ok:
            raise LabelError(ErrorCode.NOT_AN_IMAGE, "the photo could not be encoded")
        data = encoded.tobytes()
        file = f"{capture.digest[:16]}.jpg"
        height, width = capture.image.shape[:2]
        with self._write() as db:  # looked up inside the transaction: two posts of one photo make one row
            existing = db.execute("SELECT id, checked FROM images WHERE sha1 = ?", (capture.digest,)).fetchone()
            if existing is not None:
                if not existing["checked"]:
                    self._insert_boxes(db, existing["id"], list(capture.boxes))
                    db.execute(
                        "UPDATE images SET preset = ?, hand = ?, corrections = ?, unscorable = ?, confirmed = 0,"
                        " version = version + 1 WHERE id = ?",
                        (*fields, existing["id"]),
                    )
                    self._record_revision(db, existing["id"], list(capture.boxes))
                return int(existing["id"])
            self._check_room(db, len(data))
            atomic_write(self.images_dir / file, data)
            cursor = db.execute(
                "INSERT INTO images (file, original, session, sha1, width, height, created, source, split, bytes,"
                " preset, hand, corrections, unscorable) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (file, f"{capture.source}-{capture.digest[:8]}.jpg", capture.session, capture.digest, width, height,
                 time.time(), capture.source, split_of(capture.session, STORE_VAL_FRACTION), len(data), *fields),
            )  # fmt: skip
            image_id = int(cursor.lastrowid or 0)
            self._insert_boxes(db, image_id, list(capture.boxes))
        return image_id

    def confirm(self, image_id: int) -> dict[str, Any]:
        """The player said "this is right": every box not corrected becomes confirmed."""
        self.image(image_id)  # not_found first
        with self._write() as db:
            db.execute("UPDATE boxes SET state = 'confirmed' WHERE image_id = ? AND state = 'unchecked'", (image_id,))
            db.execute("UPDATE images SET confirmed = 1, version = version + 1 WHERE id = ?", (image_id,))
            self._record_revision(db, image_id, self._boxes(image_id, db))
        return self.image(image_id)

    def import_folder(self, folder: Path) -> dict[str, int]:
        """Import every image of a folder, or a YOLO layout (images/ + labels/, tile-code classes)."""
        folder = Path(folder)
        if _real_dir(folder / "images"):
            return self.import_yolo(folder)
        added = skipped = 0
        for path in list_images(folder):
            try:
                result = self.add_image(_read_no_follow(path), path.name, guess_session(path.name))
                added += not result["duplicate"]
                skipped += result["duplicate"]
            except (LabelError, OSError):  # not an image, too large, or a symbolic link
                skipped += 1
        return {"added": added, "skipped": skipped}

    def import_yolo(self, root: Path) -> dict[str, int]:
        """A YOLO-layout dataset; classes are mapped by name, so any class order imports right."""
        try:
            names = _class_names(root)
            sessions = _manifest_sessions(root)
        except OSError as error:  # a symbolic link, or unreadable
            raise LabelError(
                ErrorCode.BAD_CLASSES, f"{root}: cannot read the class list or manifest ({error.strerror})"
            ) from error
        splits = [d for d in sorted((root / "images").iterdir()) if _real_dir(d)] or [root / "images"]
        # Every label file is read and checked first, so a bad line refuses the import before
        # anything is added instead of leaving it half done.
        planned: list[tuple[Path, list[tuple[int, float, float, float, float]]]] = []
        for images_dir in splits:
            labels_dir = root / "labels" / images_dir.name if images_dir != root / "images" else root / "labels"
            if (root / "labels").is_symlink() or labels_dir.is_symlink():
                raise LabelError(ErrorCode.BAD_LABELS, f"{labels_dir}: a symbolic link, not a folder of labels")
            for path in list_images(images_dir):
                if path.is_symlink():
                    continue
                planned.append((path, _checked_labels(labels_dir / f"{path.stem}.txt", names)))
        added = skipped = 0
        for path, rows in planned:
            try:
                data = _read_no_follow(path)
                height, width = self._decode(data, path.name).shape[:2]
            except (LabelError, OSError):
                skipped += 1
                continue
            boxes = [
                Box(names[c], (x - w / 2) * width, (y - h / 2) * height, (x + w / 2) * width, (y + h / 2) * height)
                for c, x, y, w, h in rows
            ]
            result = self.add_image(data, path.name, sessions.get(path.name), boxes)
            added += not result["duplicate"]
            skipped += result["duplicate"]
        return {"added": added, "skipped": skipped}

    # --- boxes and review --------------------------------------------------------------------
    @staticmethod
    def _insert_boxes(db: sqlite3.Connection, image_id: int, boxes: list[Box]) -> None:
        db.execute("DELETE FROM boxes WHERE image_id = ?", (image_id,))
        db.executemany(
            "INSERT INTO boxes (image_id, position, code, x1, y1, x2, y2, source, confidence, state)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(image_id, i, b.code, b.x1, b.y1, b.x2, b.y2, b.source, b.confidence, b.state) for i, b in enumerate(boxes)],
        )

    @staticmethod
    def _record_revision(db: sqlite3.Connection, image_id: int, boxes: list[Box]) -> None:
        version = db.execute("SELECT version FROM images WHERE id = ?", (image_id,)).fetchone()["version"]
        db.execute(
            "INSERT INTO revisions (image_id, version, boxes, saved) VALUES (?, ?, ?, ?)",
            (image_id, version, json.dumps([b.to_json() for b in boxes]), time.time()),
        )

    def _boxes(self, image_id: int, db: sqlite3.Connection | None = None) -> list[Box]:
        rows = (db or self._db()).execute("SELECT * FROM boxes WHERE image_id = ? ORDER BY position", (image_id,)).fetchall()
        return [Box(r["code"], r["x1"], r["y1"], r["x2"], r["y2"], r["source"], r["confidence"], r["state"]) for r in rows]

    def image(self, image_id: int) -> dict[str, Any]:
        row = self._db().execute("SELECT * FROM images WHERE id = ?", (image_id,)).fetchone()
        if row is None:
            raise LabelError(ErrorCode.NOT_FOUND, f"no image {image_id}")
        boxes = self._boxes(image_id)
        return {
            "id": row["id"],
            "original": row["original"],
            "session": row["session"],
            "width": row["width"],
            "height": row["height"],
            "checked": bool(row["checked"]),
            "version": row["version"],
            "source": row["source"],
            "split": row["split"],
            "preset": row["preset"],
            "hand": json.loads(row["hand"]) if row["hand"] else None,
            "corrections": json.loads(row["corrections"]) if row["corrections"] else {},
            "unscorable": bool(row["unscorable"]),
            "confirmed": bool(row["confirmed"]),
            "boxes": [b.to_json() for b in boxes],
            "issues": hand_issues([b.code for b in boxes]),
        }

    def save(self, image_id: int, raw_boxes: list[Any], version: int, checked: bool | None = None) -> dict[str, Any]:
        """Replace the boxes, based on ``version``; a stale version is a conflict."""
        meta = self.image(image_id)
        boxes = [Box.from_json(raw, meta["width"], meta["height"]) for raw in raw_boxes]
        if checked:  # the reviewer looked at every box: what they left alone they confirmed
            boxes = [replace(b, state="confirmed") if b.state == "unchecked" else b for b in boxes]
        with self._write() as db:
            current = db.execute("SELECT version FROM images WHERE id = ?", (image_id,)).fetchone()["version"]
            if current != version:
                raise LabelError(
                    ErrorCode.CONFLICT, f"image {image_id} was saved elsewhere (version {current}, yours {version}); reload it"
                )
            self._insert_boxes(db, image_id, boxes)
            new_checked = meta["checked"] if checked is None else checked
            db.execute("UPDATE images SET version = ?, checked = ? WHERE id = ?", (version + 1, int(new_checked), image_id))
            self._record_revision(db, image_id, boxes)
        return self.image(image_id)

    def prelabel(self, image_id: int, predictions: list[Box]) -> dict[str, Any]:
        """Model boxes replace earlier model boxes; a box a person touched is never replaced."""
        meta = self.image(image_id)
        kept = [b for b in self._boxes(image_id) if b.source == "human"]
        inside = [
            p
            for p in predictions
            if min(p.x2, meta["width"]) - max(p.x1, 0) >= 2 and min(p.y2, meta["height"]) - max(p.y1, 0) >= 2
        ]
        overlap = box_iou(_corners(inside), _corners(kept)) if inside and kept else np.zeros((len(inside), 0))
        fresh = [p for p, row in zip(inside, overlap, strict=True) if (row < PRELABEL_SAME_TILE_IOU).all()]
        return self.save(image_id, [b.to_json() for b in kept + fresh], meta["version"])

    def queue(self) -> list[dict[str, Any]]:
        """Unchecked first. Among them: photos a player corrected, then those whose hand could not be
        scored, then the least confident; then images whose tiles form no legal hand."""
        rows = self._db().execute("SELECT id, original, session, checked, source, unscorable, confirmed FROM images").fetchall()
        entries = []
        for row in rows:
            boxes = self._boxes(row["id"])
            confidences = [b.confidence for b in boxes if b.source == "model" and b.confidence is not None]
            issues = hand_issues([b.code for b in boxes])
            entries.append(
                {
                    "id": row["id"],
                    "original": row["original"],
                    "session": row["session"],
                    "source": row["source"],
                    "checked": bool(row["checked"]),
                    "confirmed": bool(row["confirmed"]),
                    "corrected": sum(b.state == "corrected" for b in boxes),
                    "unscorable": bool(row["unscorable"]),
                    "boxes": len(boxes),
                    "min_confidence": round(min(confidences), 3) if confidences else None,
                    "issues": issues,
                }
            )

        def priority(entry: dict[str, Any]) -> tuple:
            confidence = entry["min_confidence"] if entry["min_confidence"] is not None else 1.0
            return (
                entry["checked"], not entry["corrected"], not entry["unscorable"], confidence, not entry["issues"], entry["id"]
            )  # fmt: skip

        return sorted(entries, key=priority)

    def next_unchecked(self) -> int | None:
        return next((e["id"] for e in self.queue() if not e["checked"]), None)

    def stats(self) -> dict[str, int]:
        counts = Counter(r["code"] for r in self._db().execute("SELECT code FROM boxes").fetchall())
        return {code: counts.get(code, 0) for code in TILE_CODES}

    # --- export -------------------------------------------------------------------------------
    def export(
        self, out: Path, val_fraction: float | None = None, checked_only: bool = False, trainable_only: bool = False
    ) -> dict[str, Any]:
        """YOLO layout + data.yaml (absolute paths) + COCO JSON, split by capture session.

        With no ``val_fraction`` each photo keeps the split it got when it entered the store.
        ``trainable_only`` keeps the photos a person vouched for: checked in /label, confirmed by
        the player, or with at least one box a person corrected.
        """
        from .layout import write_data_yaml

        out = Path(out).resolve()
        where = f"WHERE {TRAINABLE}" if trainable_only else ""
        rows = self._db().execute(f"SELECT * FROM images {where} ORDER BY id").fetchall()
        coco: dict[str, dict[str, Any]] = {
            split: {"images": [], "annotations": [], "categories": [{"id": i, "name": c} for i, c in enumerate(TILE_CODES)]}
            for split in ("train", "val")
        }
        counts = Counter()
        for row in rows:
            if checked_only and not row["checked"]:
                continue
            split = row["split"] if val_fraction is None else split_of(row["session"], val_fraction)
            counts[split] += 1
            for sub in ("images", "labels"):
                _safe_mkdir(out, sub, split)
            source = self.images_dir / row["file"]
            stem = Path(row["file"]).stem
            atomic_write(out / "images" / split / row["file"], _read_no_follow(source))
            boxes = self._boxes(row["id"])
            w, h = row["width"], row["height"]
            lines = [_yolo_line(b, w, h) for b in boxes]
            atomic_write(out / "labels" / split / f"{stem}.txt", "".join(line + "\n" for line in lines))
            coco[split]["images"].append({"id": row["id"], "file_name": row["file"], "width": w, "height": h})
            for b in boxes:
                coco[split]["annotations"].append(
                    {
                        "id": len(coco[split]["annotations"]) + 1,
                        "image_id": row["id"],
                        "category_id": TILE_CODES.index(b.code),
                        "bbox": [round(b.x1, 1), round(b.y1, 1), round(b.x2 - b.x1, 1), round(b.y2 - b.y1, 1)],
                        "area": round((b.x2 - b.x1) * (b.y2 - b.y1), 1),
                        "iscrowd": 0,
                    }
                )
        out.mkdir(parents=True, exist_ok=True)
        for split in ("train", "val"):
            _safe_mkdir(out, "images", split)
            _safe_mkdir(out, "labels", split)
            atomic_write(out / f"coco_{split}.json", json.dumps(coco[split], ensure_ascii=False))
        atomic_write(out / "classes.txt", "".join(code + "\n" for code in TILE_CODES))
        data_yaml = write_data_yaml(out)
        return {"out": str(out), "data_yaml": str(data_yaml), "train": counts["train"], "val": counts["val"]}


TRAINABLE = (
    "(checked = 1 OR confirmed = 1 OR EXISTS (SELECT 1 FROM boxes WHERE boxes.image_id = images.id AND state = 'corrected'))"
)


def _safe_mkdir(root: Path, *parts: str) -> Path:
    """``root/parts…`` as real folders: a symbolic link on the way would send the export elsewhere."""
    for depth in range(len(parts) + 1):
        path = root.joinpath(*parts[:depth])
        if path.is_symlink():
            raise LabelError(ErrorCode.BAD_PATH, f"{path.name} is a symbolic link; exports write only into real folders")
        path.mkdir(parents=True, exist_ok=True)
    return path


def _checked_labels(path: Path, names: list[str]) -> list[tuple[int, float, float, float, float]]:
    """A YOLO label file's rows, each with a known class and finite numbers; else ``LabelError``."""
    if path.is_symlink():
        raise LabelError(ErrorCode.BAD_LABELS, f"{path.name}: a symbolic link, not a label file")
    try:
        rows = read_labels(path)
    except (ValueError, OSError) as error:
        raise LabelError(ErrorCode.BAD_LABELS, str(error)) from error
    for row in rows:
        if row[0] >= len(names):
            raise LabelError(ErrorCode.BAD_LABELS, f"{path}: class {row[0]}, but only {len(names)} classes are named")
        if not all(math.isfinite(v) for v in row[1:]):
            raise LabelError(ErrorCode.BAD_LABELS, f"{path}: a box with a number that is not finite")
    return rows


def _yolo_line(box: Box, width: int, height: int) -> str:
    cx, cy = (box.x1 + box.x2) / 2 / width, (box.y1 + box.y2) / 2 / height
    return f"{TILE_CODES.index(box.code)} {cx:.6f} {cy:.6f} {(box.x2 - box.x1) / width:.6f} {(box.y2 - box.y1) / height:.6f}"


def _corners(boxes: list[Box]) -> np.ndarray:
    return np.array([[b.x1, b.y1, b.x2, b.y2] for b in boxes], np.float64)


def split_of(session: str, val_fraction: float) -> str:
    """Deterministic: a session's hash decides, so its frames never straddle the split."""
    bucket = int(hashlib.sha1(session.encode("utf-8")).hexdigest()[:8], 16) / 0xFFFFFFFF
    return "val" if bucket < val_fraction else "train"


def hand_issues(codes: list[str]) -> list[str]:
    """Why the tiles of an image cannot be one legal hand (for the review queue).

    A set holds four of each tile and one of each flower, so more in one photo is a wrong label (in
    real-hk-v4 val, two photos label 4f twice: three 1s birds of a pung, two flowers numbered 1).
    """
    playing = [c for c in codes if c[1] in "mpsz" and c != "back"]
    issues = [f"{n} copies of {c}" for c, n in Counter(playing).items() if n > 4]
    flowers = Counter(filter(is_flower, codes))
    issues += [f"{n} copies of {c}: a set has one of each flower" for c, n in flowers.items() if n > 1]
    if not playing:
        return issues
    if len(playing) not in (16, 17):
        issues.append(f"{len(playing)} tiles: not 16 or 17")
        return issues
    if len(playing) == 17 and not issues:
        legal = any(
            _scores({"concealed": playing[:i] + playing[i + 1 :], "winning_tile": playing[i], "preset": "hk"})
            for i in range(17)
        )
        if not legal:
            issues.append("no decomposition into a legal hand")
    return issues


def _scores(hand: dict[str, Any]) -> bool:
    """Whether a hand JSON is a legal winning hand (any preset would do; ``hk`` knows the most forms)."""
    from scoring.api import score_hand
    from scoring.hand import HandError

    try:
        score_hand(hand)
    except HandError:
        return False
    return True


def _class_names(root: Path) -> list[str]:
    """Class names by index from classes.txt or data.yaml; each must be a tile code."""
    names: list[str] = []
    if (root / "classes.txt").exists():
        names = [line.strip() for line in _read_no_follow(root / "classes.txt").decode("utf-8").splitlines() if line.strip()]
    elif (root / "data.yaml").exists():
        for line in _read_no_follow(root / "data.yaml").decode("utf-8").splitlines():
            match = re.match(r"\s+(\d+):\s*'?([^'\s]+)'?\s*$", line)
            if match:
                names.append(match.group(2))
    else:
        names = list(TILE_CODES)
    unknown = [n for n in names if n not in TILE_CODES]
    if unknown:
        raise LabelError(ErrorCode.BAD_CLASSES, f"{root}: class names {unknown[:5]} are not tile codes")
    return names


def _manifest_sessions(root: Path) -> dict[str, str]:
    manifest = root / "MANIFEST.tsv"
    if not manifest.exists():
        return {}
    text = _read_no_follow(manifest).decode("utf-8")
    return {row["output"]: row["session"] for row in csv.DictReader(io.StringIO(text), delimiter="\t") if "output" in row}
