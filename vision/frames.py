"""Frame sources behind one small interface: images, videos, USB cameras, network streams,
and frames pushed by a browser. A camera that fails says so and is retried, never hangs."""

from __future__ import annotations

import contextlib
import io
import os
import queue
import threading
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np
from PIL import Image

from scoring.errors import ErrorCode, TaicamError


class FrameError(TaicamError, RuntimeError):
    """A source that cannot give frames: unreadable image, missing camera, dropped stream.

    A ``RuntimeError`` as well, as it was before taicam's errors had one base.
    """

    def __init__(self, message: str, code: ErrorCode | str = ErrorCode.NO_FRAME, details: dict[str, Any] | None = None):
        super().__init__(code, message, details)


class FrameSource(Protocol):
    def read(self) -> np.ndarray | None:
        """The next BGR frame, ``None`` at the end of a finite source; raises ``FrameError``."""

    def close(self) -> None: ...


# A JPEG over the pixel cap (a phone's 48, 50 or 108 MP mode) is decoded at a half, a quarter or an
# eighth of its side instead of refused: libjpeg scales while it decodes, so the full-size pixels are
# never held. A 12 MP photo already gives the tiles more pixels than the readers use.
REDUCED_JPEG_DECODES = {2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4, 8: cv2.IMREAD_REDUCED_COLOR_8}
JPEG_MAGIC = b"\xff\xd8\xff"


def decode_image(data: bytes, max_pixels: int = 50_000_000, reduce_by: int = 1) -> np.ndarray:
    """Decode image bytes to BGR, with a clear error for anything that is not an image.

    ``reduce_by`` (2, 4 or 8, JPEG only) decodes at that fraction of the side. A JPEG over
    ``max_pixels`` is decoded as finely as fits, sized from its header first so that it is decoded
    once (a header Pillow will not size, decoded whole first); any other image is refused.
    """
    if not data:
        raise FrameError("empty upload: no image bytes", ErrorCode.NOT_AN_IMAGE)
    is_jpeg = data.startswith(JPEG_MAGIC)
    if reduce_by == 1 and is_jpeg and (size := _header_size(data)) is not None and size[0] * size[1] > max_pixels:
        factor = jpeg_reduction(*size, max_pixels)
        if factor is None:
            raise FrameError(f"image too large: {size[0]}×{size[1]} pixels", ErrorCode.TOO_LARGE)
        reduce_by = factor
    buffer = np.frombuffer(data, np.uint8)
    image = cv2.imdecode(buffer, REDUCED_JPEG_DECODES[reduce_by] if reduce_by > 1 else cv2.IMREAD_COLOR)
    if image is None:
        raise FrameError("not a decodable image (JPEG, PNG, WebP or BMP expected)", ErrorCode.NOT_AN_IMAGE)
    height, width = image.shape[:2]
    if width * height > max_pixels and reduce_by == 1 and is_jpeg:
        factor = jpeg_reduction(width, height, max_pixels)
        if factor is not None:
            return decode_image(data, max_pixels, factor)
    if width * height > max_pixels:
        raise FrameError(f"image too large: {width}×{height} pixels", ErrorCode.TOO_LARGE)
    return image


class ImageRefused(FrameError):
    """An image refused before decoding: ``code`` is ``too_large`` or ``busy``."""

    def __init__(self, code: ErrorCode, message: str):
        super().__init__(message, code)


def image_header(data: bytes) -> tuple[int, int, str]:
    """(width, height, format) from the header alone; ``FrameError`` when no image format is recognised."""
    if not data:
        raise FrameError("empty upload: no image bytes", ErrorCode.NOT_AN_IMAGE)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                return image.size[0], image.size[1], image.format or ""
    except Image.DecompressionBombError as error:  # Pillow's own cap (about 179 MP) is far above ours
        raise ImageRefused(ErrorCode.TOO_LARGE, f"image too large: {error}") from error
    # Pillow's ways of saying "not an image"; ImportError where ultralytics, imported in the same
    # process, has patched Image.open to fetch a HEIF plugin for anything Pillow cannot identify.
    except (OSError, ValueError, SyntaxError, EOFError, ImportError) as error:
        raise FrameError("not a decodable image (JPEG, PNG, WebP or BMP expected)", ErrorCode.NOT_AN_IMAGE) from error


def _header_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from the header; None when Pillow will not size it (a broken header, or one over
    Pillow's own bomb cap of about 179 MP): the decoder decides those."""
    try:
        width, height, _ = image_header(data)
    except FrameError:
        return None
    return width, height


def jpeg_reduction(width: int, height: int, max_pixels: int) -> int | None:
    """The least reduction (``REDUCED_JPEG_DECODES``) that brings a JPEG within ``max_pixels``; None if none does."""
    for factor in REDUCED_JPEG_DECODES:
        if -(-width // factor) * -(-height // factor) <= max_pixels:
            return factor
    return None


def read_image(path: str | Path) -> np.ndarray:
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise FrameError(f"{path}: cannot read ({error.strerror or error})") from error
    try:
        return decode_image(data)
    except FrameError as error:
        raise FrameError(f"{path}: {error}", error.code, error.details) from error


class ImageSource:
    """One still image, given once."""

    def __init__(self, image: np.ndarray):
        self._image: np.ndarray | None = image

    def read(self) -> np.ndarray | None:
        image, self._image = self._image, None
        return image

    def close(self) -> None:
        self._image = None


class CaptureSource:
    """``cv2.VideoCapture`` over a video file, a camera index or a stream URL.

    Files end with ``None``. Live sources that stop giving frames are reopened up to
    ``retries`` times with a growing pause, then raise ``FrameError``.
    """

    def __init__(self, target: int | str, retries: int = 3, retry_pause_s: float = 0.5, capture_factory=cv2.VideoCapture):
        self.target = target
        self.is_file = isinstance(target, str) and Path(target).exists()
        self.retries = retries
        self.retry_pause_s = retry_pause_s
        self._factory = capture_factory
        self._capture = self._open()

    def _describe(self) -> str:
        return f"camera {self.target}" if isinstance(self.target, int) else str(self.target)

    def _open(self):
        # OpenCV logs every backend it tried and failed, and FFmpeg inside it each dropped stream;
        # the FrameError says it once, plainly. FFmpeg reads its level when it first opens a
        # stream; a level the user set wins.
        os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")
        level = cv2.utils.logging.getLogLevel()
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
        try:
            capture = self._factory(self.target)
        finally:
            cv2.utils.logging.setLogLevel(level)
        if not capture.isOpened():
            capture.release()
            raise FrameError(f"cannot open {self._describe()}")
        return capture

    def read(self) -> np.ndarray | None:
        ok, frame = self._capture.read()
        if ok and frame is not None:
            return frame
        if self.is_file:
            return None
        return self._reopen(lambda: self._capture.read())

    def grab(self) -> bool:
        """Take the next frame off the source without decoding it; False at the end of a file.

        With ``retrieve``, a reader that drops frames decodes only those it keeps."""
        if self._capture.grab():
            return True
        if self.is_file:
            return False
        self._reopen(lambda: (self._capture.grab(), True))
        return True

    def retrieve(self) -> np.ndarray | None:
        """Decode the frame the last ``grab`` took; None if it cannot be decoded."""
        ok, frame = self._capture.retrieve()
        return frame if ok and frame is not None else None

    def _reopen(self, take):
        """Reopen a live source that stopped, up to ``retries`` times; ``take`` reads from it."""
        for attempt in range(1, self.retries + 1):
            time.sleep(self.retry_pause_s * attempt)
            self._capture.release()
            try:
                self._capture = self._open()
            except FrameError:
                continue
            ok, frame = take()
            if ok and frame is not None:
                return frame
        raise FrameError(f"{self._describe()} stopped giving frames (disconnected?) after {self.retries} retries")

    def close(self) -> None:
        self._capture.release()


class NewestFrames:
    """A camera or stream read on a thread of its own, keeping only the newest frame.

    A camera delivers at its own rate. Read more slowly than that and frames wait in OpenCV's
    buffer (seconds of them, for a network stream), so the score would trail the table. Here the
    reader always gets a fresh frame, and never the same one twice. Frames are grabbed as they
    come but decoded only when the reader has taken the last one, so a frame that would be
    dropped costs no decoding; the one handed over is then at most one camera frame older than
    the newest. A drop-out that the source's retries could not mend reaches the reader as its
    ``FrameError``.
    """

    def __init__(self, source: CaptureSource, timeout_s: float = 10.0):
        self._source = source
        self._timeout_s = timeout_s
        self._changed = threading.Condition()
        self._frame: np.ndarray | None = None
        self._error: FrameError | None = None
        self._ended = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="taicam-frames", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                if not self._source.grab():
                    frame = None
                elif self._frame is None:  # the reader took the last one: this one will be read
                    frame = self._source.retrieve()
                    if frame is None:
                        continue  # a frame that does not decode is a dropped frame
                else:
                    continue  # the reader has not taken the last frame yet: skip this one undecoded
                with self._changed:
                    self._frame = frame if frame is not None else self._frame
                    self._ended = frame is None
                    self._changed.notify_all()
                if frame is None:
                    return
        except FrameError as error:
            with self._changed:
                self._error, self._ended = error, True
                self._changed.notify_all()
        finally:
            self._source.close()  # here, not in close(): releasing a capture mid-read can crash OpenCV

    def read(self) -> np.ndarray | None:
        with self._changed:
            if not self._changed.wait_for(lambda: self._frame is not None or self._ended, self._timeout_s):
                raise FrameError(f"no frame for {self._timeout_s:.0f} s")
            frame, self._frame = self._frame, None
            if frame is None and self._error is not None:
                raise self._error
            return frame

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=self._timeout_s)


class PushedFrames:
    """Frames a browser sends: the newest wins, so a slow consumer never lags behind."""

    def __init__(self, timeout_s: float = 5.0):
        self._queue: queue.Queue[np.ndarray | None] = queue.Queue(maxsize=1)
        self._timeout_s = timeout_s
        self._closed = threading.Event()

    def push(self, frame: np.ndarray) -> None:
        with contextlib.suppress(queue.Empty):
            self._queue.get_nowait()  # drop the stale frame
        self._queue.put_nowait(frame)

    def read(self) -> np.ndarray | None:
        if self._closed.is_set():
            return None
        try:
            return self._queue.get(timeout=self._timeout_s)
        except queue.Empty as error:
            raise FrameError(f"no frame pushed for {self._timeout_s:.0f} s") from error

    def close(self) -> None:
        self._closed.set()


def open_source(spec: str) -> FrameSource:
    """``0`` → USB camera 0; ``rtsp://…``/``http://…`` → stream; a video or image path → file.

    Cameras and streams give their newest frame (``NewestFrames``); files give every frame."""
    if spec.isdigit():
        return NewestFrames(CaptureSource(int(spec)))
    if "://" in spec:
        return NewestFrames(CaptureSource(spec))
    path = Path(spec)
    if not path.exists():
        raise FrameError(f"{spec}: no such file, camera index or stream URL")
    if path.suffix.lower() in (".jpg", ".jpeg", ".png", ".webp", ".bmp"):
        return ImageSource(read_image(path))
    return CaptureSource(str(path))


def frames(source: FrameSource) -> Iterator[np.ndarray]:
    """Every frame of ``source`` in order; the source is closed however the caller stops."""
    try:
        while (frame := source.read()) is not None:
            yield frame
    finally:
        source.close()
