"""Opening an ONNX file on the CPU, with the errors a user can act on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import onnxruntime as ort

from scoring.errors import ErrorCode, TaicamError

# The grey the exporter letterboxes with (ultralytics pads with 114): the models saw it around every
# picture they were trained on, so every pad and every empty crop uses it.
PAD_VALUE = 114


class ModelError(TaicamError):
    """The ONNX file is not a taicam model of the expected kind."""

    def __init__(self, message: str, details: dict[str, Any] | None = None):
        super().__init__(ErrorCode.BAD_MODEL, message, details)


def open_session(path: Path, threads: int | None = None, spinning: bool = True) -> ort.InferenceSession:
    """A CPU session for ``path``; a missing or corrupt file is a clear error.

    ``spinning=False`` for a session that runs right after another one: onnxruntime's worker
    threads spin after each run, and two spinning pools on two cores nearly doubled the
    detector's time (79 → 145 ms measured) when the crop classifier ran beside it.
    """
    if not path.is_file():
        raise FileNotFoundError(f"model file not found: {path}")
    options = ort.SessionOptions()
    if threads:
        options.intra_op_num_threads = threads
    if not spinning:
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as error:  # onnxruntime raises its own exception types for corrupt files
        raise ModelError(f"{path}: not a loadable ONNX model ({error})") from error
