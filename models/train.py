"""``taicam train``: ultralytics, fully offline, from a .yaml definition, exported to ONNX.

This is the only module that imports ultralytics (AGPL-3.0, in the ``train`` extra).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from taicam_datasets.layout import write_data_yaml

from scoring.tiles import TILE_CODES

from .fast_head import rewrite_file

MODELS_DIR = Path(__file__).resolve().parent


@dataclass(frozen=True)
class TrainConfig:
    data: tuple[Path, ...]  # YOLO-layout folders; each contributes images/train
    val: tuple[Path, ...]  # YOLO-layout folders whose images/val are used for validation
    out: Path
    epochs: int = 50
    imgsz: int = 640
    device: str = "cpu"
    arch: str = "yolo11n.yaml"
    batch: int = 16
    workers: int = 2
    seed: int = 0
    hours: float | None = None  # wall-clock budget; overrides epochs when set
    cache: bool = False
    patience: int = 100
    warmup_epochs: float = 3.0  # lower it when fine-tuning from trained weights
    lr0: float | None = None  # AdamW at this learning rate; None lets ultralytics choose
    calibration: Path | None = None  # YOLO-layout folder whose train photos calibrate INT8; default data[0]


def offline_ultralytics(config_dir: Path):
    """Import ultralytics with every network path closed; must run before the first import."""
    os.environ["YOLO_OFFLINE"] = "true"  # the string 'true': '1' is ignored
    os.environ["YOLO_AUTOINSTALL"] = "false"
    os.environ.setdefault("YOLO_CONFIG_DIR", str(config_dir))
    import ultralytics
    from ultralytics.engine import trainer

    # The AMP self-check downloads yolo26n.pt; offline it cannot, so trust mixed precision on CUDA.
    trainer.check_amp = lambda model: True
    try:
        import polars  # noqa: F401
    except ImportError:
        # polars (a 54 MB wheel) only reads results.csv into the checkpoint; the csv module will do.
        trainer.BaseTrainer.read_results_csv = _read_results_csv  # type: ignore[method-assign]
    return ultralytics


def _read_results_csv(self) -> dict[str, list]:
    import csv

    try:
        with open(self.csv, newline="") as handle:
            rows = list(csv.DictReader(handle))
    except OSError:
        return {}
    return {key.strip(): [float(row[key]) for row in rows] for key in (rows[0] if rows else {})}


def _data_yaml(config: TrainConfig, work: Path) -> Path:
    train = [folder.resolve() / "images" / "train" for folder in config.data]
    val = [folder.resolve() / "images" / "val" for folder in config.val]
    for images in train + val:
        if not images.is_dir():
            raise FileNotFoundError(f"{images.parent.parent} has no images/{images.name} (expected a YOLO layout)")
    return write_data_yaml(work, train, val)


def train(config: TrainConfig) -> Path:
    """Train, export ONNX with the tile codes as class names, verify it loads; returns the .onnx."""
    config.out.mkdir(parents=True, exist_ok=True)
    work = config.out.resolve()
    data_yaml = _data_yaml(config, work)
    ultralytics = offline_ultralytics(work / "ultralytics-config")
    arch = config.arch
    if arch.endswith(".onnx"):  # fine-tune an exported detector, the shipped one say
        arch = str(trainable_checkpoint(Path(arch), config.data[0], work / "from-onnx.pt", config.imgsz))
    model = ultralytics.YOLO(arch)
    extra: dict[str, object] = {"time": config.hours} if config.hours else {}
    if config.lr0 is not None:
        extra |= {"optimizer": "AdamW", "lr0": config.lr0}
    model.train(
        data=str(data_yaml),
        epochs=config.epochs,
        imgsz=config.imgsz,
        device=config.device,
        batch=config.batch,
        workers=config.workers,
        seed=config.seed,
        deterministic=True,
        pretrained=arch.endswith(".pt"),  # ultralytics drops given weights when this is False
        amp=config.device != "cpu",
        plots=False,
        project=str(work),
        name="run",
        exist_ok=True,
        cache="ram" if config.cache else False,
        patience=config.patience,
        warmup_epochs=config.warmup_epochs,
        verbose=True,
        # Tiles have no left-right symmetry worth learning: a mirrored 萬 is not a real view.
        fliplr=0.0,
        **extra,
    )
    best = work / "run" / "weights" / "best.pt"
    return export(best, config.imgsz, work / "taicam-tiles.onnx", config.calibration or config.data[0])


# Photos whose activations rebuild an exported detector's batch norms (models.reexport.rebuild_trainable).
BATCH_NORM_PHOTOS = 32


def trainable_checkpoint(onnx_path: Path, photos: Path, target: Path, imgsz: int) -> Path:
    """A checkpoint ultralytics can train, rebuilt from ``onnx_path`` with batch norms measured on
    ``photos`` (a YOLO-layout folder's train images, letterboxed as the INT8 calibration reads them)."""
    import cv2
    import torch

    from vision.detector import letterbox

    from .quantize import calibration_photos
    from .reexport import rebuild_trainable

    images = []
    for path in calibration_photos(photos, BATCH_NORM_PHOTOS):
        bgr = cv2.imread(str(path))
        if bgr is None:
            raise ValueError(f"{path}: not a readable image")
        boxed, _, _ = letterbox(bgr, (imgsz, imgsz))
        images.append(cv2.dnn.blobFromImage(boxed, 1 / 255.0, swapRB=True)[0])
    model = rebuild_trainable(onnx_path, images)
    torch.save({"model": model, "train_args": {"imgsz": imgsz, "task": "detect"}}, target)
    return target


def export(weights: Path, imgsz: int, target: Path, calibration: Path | None = None) -> Path:
    """Export ``weights`` to ONNX at ``target`` and check that the runtime accepts it; with
    ``calibration`` (a YOLO-layout folder), also its INT8 copy beside it (``models.quantize``).

    The export is dynamic-shape: 16:9 frames then run at 640×384, and the second pass on a
    large photo reads its region in one rectangular run. Returns the float model's path.
    """
    ultralytics = offline_ultralytics(target.parent / "ultralytics-config")
    model = ultralytics.YOLO(str(weights))
    names = tuple(model.names[i] for i in sorted(model.names))
    if names != TILE_CODES:
        raise ValueError(f"{weights}: class names {names[:5]}… are not the tile codes in order")
    with tempfile.TemporaryDirectory() as tmp:
        staged = Path(tmp) / weights.name
        shutil.copy(weights, staged)
        exported = Path(ultralytics.YOLO(str(staged)).export(format="onnx", imgsz=imgsz, dynamic=True, simplify=True, opset=17))
        shutil.move(str(exported), target)
    rewrite_file(target)  # the same output, faster (models/fast_head.py)
    from vision.detector import TileDetector

    TileDetector(target, classifier_path=None)  # raises if onnxruntime cannot load it or the classes differ
    if calibration is not None:
        from .quantize import quantize_detector

        quantize_detector(target, calibration)
    return target
