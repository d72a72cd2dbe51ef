"""What a run of ``taicam train-classifier`` is given: ``ClassifierConfig``, declared once.

Its fields carry their command-line help and the kind of value they take, and the command's flags
are generated from them (``taicam.commands.training``). This module imports nothing heavy, so
building the CLI's parser costs no torch, OpenCV or numpy.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path

from scoring.tiles import FLOWERS, TILE_CODES

SIDE = 48
FLOWER_READER_SIDE = 96  # px: a flower's numeral and character, a sixth of the face: 64 read better than 48, 96 than 64


class TrainingInputError(ValueError):
    """What a run was given cannot be trained on: no labeled boxes, an --init that does not fit, no real-hk-v4."""


def _flag(kind: str, help: str) -> dict[str, str]:
    """The metadata of a field that is also a flag. ``kind`` names the check its value gets: count (1 or
    more), whole (0 or more), seed, amount (above 0), portion (above 0, at most 1), share (0 to 1), file."""
    return {"kind": kind, "help": help}


@dataclass(frozen=True)
class ClassifierConfig:
    data: tuple[Path, ...]  # YOLO-layout folders; their images/train give training crops
    val: tuple[Path, ...]  # folders whose images/val give the held-out crops
    out: Path
    epochs: int = field(
        default=24, metadata=_flag("count", "passes over the training crops; the best one on the held-out crops is kept")
    )
    batch: int = field(default=256, metadata=_flag("count", "crops a step"))
    copies: int = field(default=1, metadata=_flag("count", "jittered crops of each labeled box, flowers 2 more"))
    seed: int = field(default=0, metadata=_flag("seed", "seed of the crops' jitter, the order and the augmentation"))
    threads: int = field(default=2, metadata=_flag("count", "torch threads"))
    real_scenes: int = field(
        default=0,
        metadata=_flag("whole", "real-tile scenes to add, laid out from the train crops of ../shared/datasets/real-hk-v4"),
    )
    init: Path | None = field(
        default=None,
        metadata=_flag("file", "an exported classifier or flower reader (ONNX) to fine-tune, not train from scratch"),
    )
    lr: float = field(
        default=3e-3, metadata=_flag("amount", "peak of the one-cycle learning rate; a fine-tune wants less (1e-3–2e-3)")
    )
    epoch_share: float = field(
        default=1.0, metadata=_flag("portion", "share of the crops each epoch draws: short epochs keep the best one close")
    )
    # The classes it reads: every tile, or the flowers only (a flower reader; the flag is --flowers).
    codes: tuple[str, ...] = TILE_CODES
    side: int = field(default=SIDE, metadata=_flag("count", f"crop side in px; {FLOWER_READER_SIDE} with --flowers"))
    coarsen: float = field(default=0.0, metadata=_flag("share", "share of the training crops shrunk and blown up again"))
    recolour: float = field(
        default=0.0, metadata=_flag("share", "share of the training crops seen in other colours and with camera noise")
    )
    mirror: float = field(
        default=0.0, metadata=_flag("share", "share of the training crops seen mirrored, as flipped photos show them")
    )
    turn: float = field(
        default=0.0, metadata=_flag("share", "share of the training crops also turned by up to 45° either way, as tiles lie")
    )
    occlude: float = field(
        default=0.0,
        metadata=_flag("share", "share of the training crops with one edge hidden under another crop, as by a neighbour"),
    )
    truncate: float = field(
        default=0.0,
        metadata=_flag("share", "share of the training crops with one edge cut away and the rest stretched, as a short box"),
    )
    width: float = field(
        default=1.0,
        metadata=_flag("amount", "channels as a multiple of the base network's; wider than --init: its channels copied"),
    )

    @classmethod
    def flower_reader(cls, **values) -> ClassifierConfig:
        """The flower reader's run: the eight flowers only, at its own side unless ``values`` name one."""
        return cls(**{"codes": FLOWERS, "side": FLOWER_READER_SIDE, **values})


# The fields a flag sets, in declaration order.
CLASSIFIER_OPTIONS = tuple(spec for spec in fields(ClassifierConfig) if "kind" in spec.metadata)
