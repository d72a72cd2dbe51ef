"""taicam's scoring core: pure Python, standard library only, no I/O beyond its preset data."""

from .evaluate import ScoreItem, ScoreResult, score, wait_set
from .hand import Hand, HandError, Meld, WinContext, parse_hand
from .rules import Preset, get_preset, load_presets

__all__ = [
    "Hand", "HandError", "Meld", "Preset", "ScoreItem", "ScoreResult", "WinContext",
    "get_preset", "load_presets", "parse_hand", "score", "wait_set",
]  # fmt: skip
