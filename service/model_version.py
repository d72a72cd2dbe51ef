"""Which model the service is serving: a version every response and /readyz can name."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

# Enough of the SHA-256 to tell shipped models apart at a glance, as git shows commits.
VERSION_DIGITS = 12


def file_version(path: Path | None) -> str | None:
    """``name@sha256:0123456789ab``: the name says which file, the digest which contents."""
    if path is None:
        return None
    path = Path(path)
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:VERSION_DIGITS]
    except OSError:
        return path.name  # a detector not read from a file (tests' fakes)
    return f"{path.name}@sha256:{digest}"


def detector_versions(detector: Any) -> dict[str, str | None]:
    """The detector's version and its tile classifier's (``None`` when it reads codes itself)."""
    classifier = getattr(detector, "classifier", None)
    return {
        "model": file_version(getattr(detector, "path", None)),
        "classifier": file_version(getattr(classifier, "path", None)) if classifier is not None else None,
    }
