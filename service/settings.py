"""Service settings: embedded defaults, overridable by ``TAICAM_*`` environment variables."""

from __future__ import annotations

import secrets
from pathlib import Path

from pydantic import field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from vision.classifier import BUNDLED_CLASSIFIER, BUNDLED_FLOWER_READER
from vision.detector import BUNDLED_MODEL, DEFAULT_CONF

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def default_data_dir() -> Path:
    return Path.home() / ".local" / "share" / "taicam"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="TAICAM_")

    model_path: Path = BUNDLED_MODEL
    classifier_path: Path | None = BUNDLED_CLASSIFIER  # None: keep the detector's own tile codes
    flower_reader_path: Path | None = BUNDLED_FLOWER_READER  # None: the classifier names the flowers too
    data_dir: Path = default_data_dir()
    max_upload_mb: float = 20.0
    # A photo's pixels are counted from its header before it is decoded: 40 MP decodes to 120 MB of
    # BGR. A JPEG above it (a phone's 48 or 108 MP mode) is decoded at a fraction of its side that
    # fits; anything else above it is refused. Decodes run at most this many at once.
    max_image_pixels: int = 40_000_000
    max_concurrent_decodes: int = 2
    conf: float = DEFAULT_CONF
    token: str | None = None  # required on every request when set (LAN mode)
    # Host names the server answers to besides loopback (the LAN address, --allow-host); "*" turns
    # the check off, for a reverse proxy that checks the Host itself.
    allowed_hosts: list[str] = []
    camera: str | None = None  # server-side camera: an index, a stream URL or a video file
    inference_threads: int | None = None
    label_dir: Path | None = None  # the label store; None: data_dir/labels (see label_store_dir)
    labeling_only: bool = False  # taicam label: the labeling API and page, no ledger, scoring or live
    # The label store also keeps the photos players opt in to share (save_for_training); these cap it.
    training_store_max_images: int = 20_000
    training_store_max_mb: float = 8192.0

    @field_validator("classifier_path", "flower_reader_path", mode="before")
    @classmethod
    def _empty_means_none(cls, value: object) -> object:
        return None if value == "" else value  # TAICAM_CLASSIFIER_PATH= turns the classifier (and so the flower reader) off

    @property
    def label_store_dir(self) -> Path:
        """One store for /v1/label and the photos kept from /snap and /live: what taicam label opens."""
        return self.label_dir or self.data_dir / "labels"

    @property
    def training_store_max_bytes(self) -> int:
        return int(self.training_store_max_mb * 1024 * 1024)

    @property
    def db_path(self) -> Path:
        return self.data_dir / "taicam.db"

    @property
    def max_upload_bytes(self) -> int:
        return int(self.max_upload_mb * 1024 * 1024)


def bind(settings: Settings, host: str, token: str | None, allow_hosts: list[str], lan_address: str) -> bool:
    """The network rule shared by ``taicam serve`` and ``taicam label``.

    Bound beyond loopback, every request needs a token (the one given, else a generated one),
    and the server answers to the bind address, the LAN address and ``allow_hosts``. Returns
    whether the server is reachable from the LAN.
    """
    lan = host not in LOOPBACK_HOSTS
    names = [*settings.allowed_hosts, *allow_hosts]
    if lan:
        settings.token = token or settings.token or secrets.token_urlsafe(12)
        names += [host, lan_address] if host not in ("0.0.0.0", "::") else [lan_address]
    settings.allowed_hosts = list(dict.fromkeys(names))
    return lan
