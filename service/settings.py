"""Service settings: embedded defaults, overridable by ``TAICAM_*`` environment variables."""

from __future__ import annotations

from pathlib import Path

from pydantic import field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from vision.classifier import BUNDLED_CLASSIFIER
from vision.detector import BUNDLED_MODEL


def default_data_dir() -> Path:
    return Path.home() / ".local" / "share" / "taicam"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="TAICAM_")

    model_path: Path = BUNDLED_MODEL
    classifier_path: Path | None = BUNDLED_CLASSIFIER  # None: keep the detector's own tile codes
    data_dir: Path = default_data_dir()
    max_upload_mb: float = 20.0
    conf: float = 0.25
    token: str | None = None  # required on every request when set (LAN mode)
    camera: str | None = None  # server-side camera: an index, a stream URL or a video file
    inference_threads: int | None = None
    label_dir: Path | None = None  # the labeling tool's data folder; None turns it off

    @field_validator("classifier_path", mode="before")
    @classmethod
    def _empty_means_none(cls, value: object) -> object:
        return None if value == "" else value  # TAICAM_CLASSIFIER_PATH= turns the classifier off

    @property
    def db_path(self) -> Path:
        return self.data_dir / "taicam.db"

    @property
    def max_upload_bytes(self) -> int:
        return int(self.max_upload_mb * 1024 * 1024)
