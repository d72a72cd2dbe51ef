"""Commands that build and measure models: data synth, train, train-classifier and eval."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

from scoring.errors import ErrorCode, TaicamError
from vision.defaults import DEFAULT_CONF

from ..common import (
    add_model_flags,
    amount,
    existing_file,
    fraction,
    load_detector,
    portion,
    positive_amount,
    positive_number,
    whole_number,
    yolo_folder,
)  # fmt: skip


def _cmd_data_synth(args: argparse.Namespace) -> int:
    from taicam_datasets.faces import FontsMissingError
    from taicam_datasets.synth import synthesize

    try:
        data_yaml = synthesize(
            Path(args.out), args.n, seed=args.seed, workers=args.workers, framing=args.framing,
            plant_flowers=args.plant_flowers, varied_suits=args.varied_suits,
        )  # fmt: skip
    except FontsMissingError as error:  # a machine set up by hand, without the Makefile's fonts
        print(f"taicam data synth: {error}", file=sys.stderr)
        return 2
    print(f"wrote {args.n} scenes; train with: taicam train --data {Path(args.out).resolve()}")
    print(data_yaml)
    return 0


class StoreNotReady(TaicamError):
    """A label store with nothing to train or validate on yet."""

    def __init__(self, message: str):
        super().__init__(ErrorCode.BAD_SOURCE, message)


def store_as_yolo(folder: Path, work: Path) -> tuple[Path, dict[str, int]]:
    """A label store (``taicam label --data``) exported to a YOLO folder under ``work``; a YOLO folder as it is.

    Only photos a person vouched for go in (checked in /label, confirmed by the player, or with a
    box a person corrected), each in the split it got when it entered the store, so the val photos
    of one run are the val photos of the next.
    """
    from taicam_datasets.labels import LabelStore

    if not LabelStore.is_store(folder):
        return folder, {}
    target = work / f"store-{folder.resolve().name}"
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)  # a photo that is no longer trainable must not linger from the last run
    export = LabelStore(folder).export(target, trainable_only=True)
    counts = {"train": export["train"], "val": export["val"]}
    print(f"label store {folder}: {counts['train']} train and {counts['val']} val photos (checked, corrected or confirmed)")
    return target, counts


def _cmd_train(args: argparse.Namespace) -> int:
    from models.train import TrainConfig, train

    work = Path(args.out).resolve()
    work.mkdir(parents=True, exist_ok=True)
    try:
        data, val = _training_folders(args, work)
    except StoreNotReady as error:
        print(f"taicam train: {error}", file=sys.stderr)
        return 2
    config = TrainConfig(
        data=data,
        val=val,
        out=Path(args.out),
        epochs=args.epochs,
        imgsz=args.imgsz,
        device=args.device,
        arch=args.arch,
        batch=args.batch,
        workers=args.workers,
        seed=args.seed,
        hours=args.hours,
        cache=args.cache,
        warmup_epochs=args.warmup_epochs,
        lr0=args.lr0,
    )
    onnx_path = train(config)
    print(f"exported {onnx_path}")
    return 0


def _training_folders(args: argparse.Namespace, work: Path) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    exported: dict[str, tuple[Path, dict[str, int]]] = {}
    for folder in {*args.data, *(args.val or [])}:
        exported[folder] = store_as_yolo(Path(folder), work)
    data = tuple(exported[d][0] for d in args.data)
    val = tuple(exported[v][0] for v in (args.val or args.data))
    stores = {folder: counts for folder, (_, counts) in exported.items() if counts}
    for folder in args.data:
        if folder in stores and not stores[folder]["train"]:
            raise StoreNotReady(f"{folder} has no checked, corrected or confirmed photo in its train split yet")
    val_sources = args.val or args.data
    if all(folder in stores and not stores[folder]["val"] for folder in val_sources):
        raise StoreNotReady(
            f"{', '.join(val_sources)} has no checked, corrected or confirmed photo in its val split yet"
            " (about 1 capture session in 7 goes to val); give --val FOLDER to validate elsewhere"
        )
    return data, val


def _cmd_train_classifier(args: argparse.Namespace) -> int:
    from models.classifier_config import TrainingInputError
    from models.train_classifier import train_classifier

    work = Path(args.out).resolve()
    work.mkdir(parents=True, exist_ok=True)
    try:
        data, val = _training_folders(args, work)
        metrics = train_classifier(classifier_config(args, data, val))
    except (StoreNotReady, TrainingInputError) as error:
        print(f"taicam train-classifier: {error}", file=sys.stderr)
        return 2
    print(json.dumps({k: v for k, v in metrics.items() if k != "history"}))
    return 0


def classifier_config(args: argparse.Namespace, data: tuple[Path, ...], val: tuple[Path, ...]):
    """The ``ClassifierConfig`` the flags describe; a flag left out keeps the config's default."""
    from models.classifier_config import CLASSIFIER_OPTIONS, ClassifierConfig

    values = {spec.name: getattr(args, spec.name) for spec in CLASSIFIER_OPTIONS if hasattr(args, spec.name)}
    build = ClassifierConfig.flower_reader if args.flowers else ClassifierConfig
    return build(data=data, val=val, out=Path(args.out), **values)


def _cmd_eval(args: argparse.Namespace) -> int:
    from models.evaluate import evaluate

    if args.compare:
        return _compare(args)
    detector = load_detector(args)
    with tempfile.TemporaryDirectory(prefix="taicam-eval-") as work:
        data, _ = store_as_yolo(Path(args.data), Path(work))
        report = evaluate(detector, data, split=args.split, conf=args.conf)
    result = report.as_dict()
    worst = report.worst_photos(args.worst)
    if args.json:
        if args.worst:
            result["worst_photos"] = [photo.as_dict() for photo in worst]
        print(json.dumps(result, ensure_ascii=False))
        return 0
    print(f"images {result['images']}  tiles {result['tiles']}")
    for key in ("tile_recall", "tile_precision", "class_accuracy", "map50", "hand_exact_match", "ms_per_image"):
        print(f"{key:18s} {result[key]}")
    print("per-class recall:", " ".join(f"{k}={v}" for k, v in result["per_class_recall"].items()))
    if result["top_confusions"]:
        print("top confusions:", ", ".join(f"{c['truth']}→{c['predicted']}×{c['count']}" for c in result["top_confusions"]))
    if args.worst and not worst:
        print("worst photos: none, every labeled tile found and read right")
    elif args.worst:
        print(f"worst photos ({len(worst)}; strays: boxes on no labeled tile):")
        for photo in worst:
            misread = ", ".join(f"{truth}→{read} {conf:.2f}" for truth, read, conf in photo.misread)
            beside = f" ({photo.missed_beside_a_box} beside a box)" if photo.missed_beside_a_box else ""
            print(f"  {photo.name}  missed {len(photo.missed)}{beside}: {' '.join(photo.missed) or '-'}  "
                  f"misread {len(photo.misread)}: {misread or '-'}  strays {photo.strays}")  # fmt: skip
    return 0


def _compare(args: argparse.Namespace) -> int:
    """Both models on the same photos with the same classifier: a row each and their difference.

    ``--data`` may be a label store: its val split (the photos people vouched for) is used.
    """
    from models.evaluate import COMPARED, comparison_table, evaluate

    reports = []
    with tempfile.TemporaryDirectory(prefix="taicam-eval-") as work:
        data, _ = store_as_yolo(Path(args.data), Path(work))
        for path in args.compare:
            detector = load_detector(args, model=path)
            reports.append((Path(path).name, evaluate(detector, data, split=args.split, conf=args.conf, progress=False)))
    if args.json:
        rows = [{"model": name, **report.as_dict()} for name, report in reports]
        difference = {key: round(rows[-1][key] - rows[0][key], 4) for key in COMPARED}
        print(json.dumps({"models": rows, "difference": difference}, ensure_ascii=False))
        return 0
    print("\n".join(comparison_table(reports)))
    return 0


def register(commands: argparse._SubParsersAction) -> None:
    _add_data(commands)
    _add_train(commands)
    _add_train_classifier(commands)
    _add_eval(commands)


def _add_data(commands: argparse._SubParsersAction) -> None:
    data = commands.add_parser("data", help="build training data (synthetic scenes)")
    data_commands = data.add_subparsers(dest="data_command", metavar="ACTION", required=True)
    synth = data_commands.add_parser("synth", help="render synthetic table scenes with YOLO labels")
    synth.add_argument("--out", required=True, help="output folder (YOLO layout)")
    synth.add_argument("--n", type=positive_number, default=1000, help="number of scenes (default 1000)")
    synth.add_argument("--seed", type=int, default=1, help="seed; the same seed gives the same scenes")
    synth.add_argument("--workers", type=positive_number, default=None, help="processes (default: all cores)")
    synth.add_argument(
        "--framing",
        default="hand",
        choices=["random", "hand", "table", "mix"],
        help="camera framing: hand (a player's snap of the finished hand, the default: photos taicam can score), "
        "table (the whole table), random (training views), mix (training views, every third a snap)",
    )
    synth.add_argument(
        "--plant-flowers",
        action="store_true",
        help="draw each flower's own plant (梅蘭菊竹), numeral and character in the corners on HK sets, "
        "as real sets do; the shipped models were trained without it",
    )
    synth.add_argument(
        "--varied-suits",
        action="store_true",
        help="draw each set's circles, sticks and 1s bird its own way (wheels, petals, rings, chains, bent stalks), "
        "so a reader learns to count them whatever their art",
    )
    synth.set_defaults(handler=_cmd_data_synth)


def _add_train(commands: argparse._SubParsersAction) -> None:
    train = commands.add_parser("train", help="train the tile detector and export ONNX (needs the 'train' extra)")
    train.add_argument(
        "--data",
        nargs="+",
        type=yolo_folder,
        required=True,
        help="YOLO-layout folders or label stores (taicam label --data) to train on (their train split)",
    )
    train.add_argument(
        "--val",
        nargs="+",
        type=yolo_folder,
        help="YOLO-layout folders or label stores to validate on (their val split; default --data)",
    )
    train.add_argument("--out", default="runs/train", help="work folder; the ONNX lands here")
    train.add_argument("--epochs", type=positive_number, default=50)
    train.add_argument("--imgsz", type=positive_number, default=640)
    train.add_argument("--device", default="cpu", help="'cpu' or a CUDA index such as 0")
    train.add_argument(
        "--arch",
        default="yolo11n.yaml",
        help="a model definition (.yaml, from scratch), or weights to fine-tune: .pt, or an exported .onnx (the shipped one)",
    )
    train.add_argument("--batch", type=positive_number, default=16)
    train.add_argument("--workers", type=whole_number, default=2)
    train.add_argument("--seed", type=int, default=0)
    train.add_argument("--hours", type=amount, default=None, help="wall-clock budget in hours (overrides --epochs)")
    train.add_argument("--cache", action="store_true", help="cache decoded images in RAM")
    train.add_argument("--warmup-epochs", type=amount, default=3.0, help="learning-rate warm-up (lower to fine-tune)")
    train.add_argument("--lr0", type=amount, default=None, help="AdamW at this learning rate (default: ultralytics chooses)")
    train.set_defaults(handler=_cmd_train)


# The check each kind of ``ClassifierConfig`` option gets on the command line.
OPTION_CHECKS = {
    "count": (positive_number, "N"), "whole": (whole_number, "N"), "seed": (int, "N"), "amount": (positive_amount, "X"),
    "portion": (portion, "SHARE"), "share": (fraction, "SHARE"), "file": (existing_file, "PATH"),
}  # fmt: skip


def _add_train_classifier(commands: argparse._SubParsersAction) -> None:
    from models.classifier_config import CLASSIFIER_OPTIONS, FLOWER_READER_SIDE

    classifier = commands.add_parser(
        "train-classifier",
        help="train the crop classifier that re-reads each tile, or the flower reader (needs the 'train' extra)",
    )
    classifier.add_argument(
        "--data", nargs="+", type=yolo_folder, required=True,
        help="YOLO-layout folders or label stores (taicam label --data) to train on (their train split)",
    )  # fmt: skip
    classifier.add_argument(
        "--val", nargs="+", type=yolo_folder,
        help="YOLO-layout folders or label stores to validate on (their val split; default --data)",
    )  # fmt: skip
    classifier.add_argument("--out", default="runs/classifier", help="work folder; the ONNX lands here")
    classifier.add_argument(
        "--flowers", action="store_true",
        help=f"train the flower reader: the eight flowers only, at {FLOWER_READER_SIDE} px unless --side"
        " (--init the shipped classifier to start from its flower rows)",
    )  # fmt: skip
    for spec in CLASSIFIER_OPTIONS:
        check, metavar = OPTION_CHECKS[spec.metadata["kind"]]
        default = "" if spec.default is None else f" (default {spec.default})"
        classifier.add_argument(
            f"--{spec.name.replace('_', '-')}", dest=spec.name, type=check, metavar=metavar,
            default=argparse.SUPPRESS, help=spec.metadata["help"] + default,
        )  # fmt: skip
    classifier.set_defaults(handler=_cmd_train_classifier)


def _add_eval(commands: argparse._SubParsersAction) -> None:
    evaluate = commands.add_parser("eval", help="measure a detector on a YOLO-layout folder")
    evaluate.add_argument(
        "--data", type=yolo_folder, required=True, help="YOLO-layout folder, or a label store (its val split)"
    )
    evaluate.add_argument("--split", default="val", help="images/<split> to use (default val)")
    add_model_flags(evaluate)
    evaluate.add_argument("--conf", type=fraction, default=DEFAULT_CONF, help=f"confidence threshold (default {DEFAULT_CONF})")
    evaluate.add_argument("--json", action="store_true", help="print one JSON object")
    either = evaluate.add_mutually_exclusive_group()
    either.add_argument(
        "--compare", nargs=2, metavar=("MODEL_A", "MODEL_B"), help="two ONNX detectors on the same data: both rows and B − A"
    )
    either.add_argument(
        "--worst", type=whole_number, default=0, metavar="N",
        help="also list the N photos with the most tiles missed or misread, each tile named: the photos to label "
        "or check first (default 0: none)",
    )  # fmt: skip
    evaluate.set_defaults(handler=_cmd_eval)
