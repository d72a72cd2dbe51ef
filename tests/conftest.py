"""Shared fixtures: app settings, an app on a fake detector, a JPEG to post.

This file imports only the standard library and pytest, so the scoring tests run without numpy,
OpenCV, onnxruntime or FastAPI installed (``tests/test_layers.py`` checks it). The fixtures that need
those import them when a test asks for them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from service.settings import Settings

# ../shared beside the checkout, or TAICAM_REAL_HK, as `taicam_datasets.real_scenes.REAL_HK` reads it (which
# this file may not import: it needs numpy).
REAL_VAL = Path(os.environ.get("TAICAM_REAL_HK") or Path(__file__).resolve().parents[2] / "shared" / "datasets" / "real-hk-v4")


@pytest.fixture
def settings(tmp_path) -> Settings:
    from service.settings import Settings

    # The TestClient's requests carry "Host: testserver"; the production check stays as it is.
    return Settings(data_dir=tmp_path / "data", max_upload_mb=2, allowed_hosts=["testserver"])


@pytest.fixture
def fake_app(settings):
    from service.app import create_app
    from tests.fakes import FakeDetector

    return create_app(settings, detector_factory=lambda s: FakeDetector())


@pytest.fixture
def jpeg_bytes() -> bytes:
    import cv2
    import numpy as np

    image = np.full((240, 800, 3), 90, np.uint8)
    ok, data = cv2.imencode(".jpg", image)
    assert ok
    return data.tobytes()
