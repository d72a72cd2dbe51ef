"""Image bytes from outside are sized from their header before any pixel is decoded.

A 389 kB PNG can declare 20000 × 20000 pixels; decoding it takes 1.2 GB of BGR. Pillow reads
only the header on ``Image.open``, so the size is known for the price of a few bytes, and an
image over the pixel cap is refused before the decoder allocates anything, unless it is a JPEG
that libjpeg can decode at a half, a quarter or an eighth of its side within the cap (a phone's
48 or 108 MP mode). Decodes also run a few at a time, so several large photos at once cannot add up.
"""

from __future__ import annotations

import threading

import numpy as np

from scoring.errors import ErrorCode

from .frames import ImageRefused, decode_image, image_header, jpeg_reduction

DECODE_WAIT_S = 30.0  # a decode slot not free by then: the server is busy, say so


class ImageDecoder:
    """Checks the pixel count from the header, then decodes, at most ``max_concurrent`` at once.

    A JPEG over the cap is decoded at the fraction of its side that fits (``jpeg_reduction``), its
    full-size pixels never held; any other image over the cap is refused before decoding.
    """

    def __init__(self, max_pixels: int = 40_000_000, max_concurrent: int = 2):
        self.max_pixels = max_pixels
        self._slots = threading.BoundedSemaphore(max(1, max_concurrent))

    def check(self, data: bytes) -> int:
        """The reduction ``decode`` will decode ``data`` at (1: whole); ``ImageRefused`` when none fits."""
        width, height, kind = image_header(data)
        if width * height <= self.max_pixels:
            return 1
        factor = jpeg_reduction(width, height, self.max_pixels) if kind == "JPEG" else None
        if factor is None:
            raise ImageRefused(
                ErrorCode.TOO_LARGE, f"image too large: {width}×{height} pixels, over the {self.max_pixels / 1e6:g} MP limit"
            )
        return factor

    def decode(self, data: bytes) -> np.ndarray:
        factor = self.check(data)
        if not self._slots.acquire(timeout=DECODE_WAIT_S):
            raise ImageRefused(ErrorCode.BUSY, "too many images being decoded at once; try again")
        try:
            return decode_image(data, max_pixels=self.max_pixels, reduce_by=factor)
        finally:
            self._slots.release()
