"""The ``taicam`` command. Each subcommand imports its layer lazily, so ``taicam score-hand``
never pays for onnxruntime and ``taicam serve`` never imports ultralytics."""

from __future__ import annotations

import argparse
import json
import sys
import typing
from pathlib import Path
from typing import Any

MAX_PORT = 65535


def _cmd_data_synth(args: argparse.Namespace) -> int:
    from taicam_datasets.synth import synthesize

    data_yaml = synthesize(Path(args.out), args.n, seed=args.seed, workers=args.workers, framing=args.framing)
    print(f"wrote {args.n} scenes; train with: taicam train --data {Path(args.out).resolve()}")
    print(data_yaml)
    return 0


def _cmd_train(args: argparse.Namespace) -> int:
    from models.train import TrainConfig, train

    data = tuple(Path(d) for d in args.data)
    val = tuple(Path(v) for v in (args.val or args.data))
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
    )
    onnx_path = train(config)
    print(f"exported {onnx_path}")
    return 0


def _cmd_train_classifier(args: argparse.Namespace) -> int:
    from models.train_classifier import ClassifierConfig, train_classifier

    data = tuple(Path(d) for d in args.data)
    config = ClassifierConfig(
        data=data, val=tuple(Path(v) for v in (args.val or args.data)), out=Path(args.out),
        epochs=args.epochs, copies=args.copies, seed=args.seed,
    )  # fmt: skip
    metrics = train_classifier(config)
    print(json.dumps({k: v for k, v in metrics.items() if k != "history"}))
    return 0


def _cmd_eval(args: argparse.Namespace) -> int:
    from models.evaluate import evaluate
    from vision.detector import BUNDLED_MODEL, TileDetector

    detector = TileDetector(args.model or BUNDLED_MODEL, classifier_path=_classifier_path(args))
    report = evaluate(detector, Path(args.data), split=args.split, conf=args.conf)
    result = report.as_dict()
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
        return 0
    print(f"images {result['images']}  tiles {result['tiles']}")
    for key in ("tile_recall", "tile_precision", "class_accuracy", "map50", "hand_exact_match", "ms_per_image"):
        print(f"{key:18s} {result[key]}")
    print("per-class recall:", " ".join(f"{k}={v}" for k, v in result["per_class_recall"].items()))
    if result["top_confusions"]:
        print("top confusions:", ", ".join(f"{c['truth']}→{c['predicted']}×{c['count']}" for c in result["top_confusions"]))
    return 0


def _read_json(source: str):
    text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    return json.loads(text)


def _print_json(value) -> None:
    print(json.dumps(value, ensure_ascii=False))


def _cmd_score_hand(args: argparse.Namespace) -> int:
    from scoring.api import score_many_json

    try:
        data = _read_json(args.file)
    except (OSError, json.JSONDecodeError) as error:
        _print_json({"error": {"code": "bad_json", "message": f"cannot read a hand from {args.file}: {error}"}})
        return 2
    result, ok = score_many_json(data)
    _print_json(result)
    return 0 if ok else 2


def _cmd_waits(args: argparse.Namespace) -> int:
    from scoring.api import waits_json
    from scoring.hand import HandError
    from scoring.tiles import TileError, parse_tiles

    try:
        if args.tiles:
            data = {"concealed": parse_tiles(args.tiles), "preset": args.preset}
            if args.melds:
                data["melds"] = [_parse_meld_text(text) for text in args.melds]
            if args.seat:
                data["seat_wind"] = args.seat
            if args.round:
                data["round_wind"] = args.round
        else:
            data = _read_json(args.file)
        result = waits_json(data)
    except (OSError, json.JSONDecodeError) as error:
        _print_json({"error": {"code": "bad_json", "message": str(error)}})
        return 2
    except TileError as error:
        _print_json({"error": {"code": "bad_tile", "message": str(error)}})
        return 2
    except HandError as error:
        _print_json(error.to_json())
        return 2
    if args.json:
        _print_json(result)
        return 0
    if not result["ready"]:
        print("not ready: no tile completes this hand")
        return 0
    unit = result["unit"]
    for wait in result["waits"]:
        line = [f"{wait['tile']:>3} {wait['name']}"]
        for label in ("discard", "self_draw"):
            entry = wait[label]
            if "total" in entry:
                names = " ".join(f"{p['name']}{p['tai']}" for p in entry["patterns"])
                line.append(f"{label}: {entry['total']}{unit} ({names})")
        print("  ".join(line))
    return 0


def _parse_meld_text(text: str) -> dict:
    """``pung:5z5z5z`` or ``chow:123m`` or ``concealed_kong:1111p``."""
    from scoring.tiles import parse_tiles

    kind, _, tiles = text.partition(":")
    return {"kind": kind, "tiles": parse_tiles(tiles)}


def _cmd_rules(args: argparse.Namespace) -> int:
    from scoring.rules import get_preset, load_presets

    chosen = [get_preset(args.preset)] if args.preset else list(load_presets().values())
    if args.json:
        _print_json([p.to_json() for p in chosen])
        return 0
    for preset in chosen:
        print(f"{preset.name} ({preset.unit}) — seed {preset.seed}")
        for p in preset.patterns:
            gate = f" [option {p.when_option}]" if p.when_option else ""
            excludes = f"  不計 {', '.join(e.pattern for e in p.excludes)}" if p.excludes else ""
            print(f"  {p.name:<14} {p.tai!s:>4}{gate}{excludes}")
        if preset.options:
            print("  options:")
            for (name, default), (_, meaning) in zip(preset.options, preset.option_meanings, strict=True):
                print(f"    {name} = {json.dumps(default)}  {meaning}")
        print()
    return 0


def _classifier_path(args: argparse.Namespace) -> Path | None:
    from vision.classifier import BUNDLED_CLASSIFIER

    if args.no_classifier:
        return None
    return Path(args.classifier) if args.classifier else BUNDLED_CLASSIFIER


def _model_settings(args: argparse.Namespace) -> dict:
    """Settings overrides from --model, --classifier and --no-classifier (environment otherwise)."""
    chosen: dict = {"model_path": args.model} if args.model else {}
    if args.no_classifier or args.classifier:
        chosen["classifier_path"] = _classifier_path(args)
    return chosen


def _detector(args: argparse.Namespace):
    from vision.detector import BUNDLED_MODEL, TileDetector

    return TileDetector(args.model or BUNDLED_MODEL, classifier_path=_classifier_path(args))


def _cmd_detect(args: argparse.Namespace) -> int:
    import time

    from vision.detector import ModelError
    from vision.frames import FrameError, read_image
    from vision.photo import detect_photo

    try:
        detector = _detector(args)
    except (FileNotFoundError, ModelError) as error:
        print(f"taicam detect: {error}", file=sys.stderr)
        return 2
    failed = False
    for path in args.images:
        try:
            image = read_image(path)
        except FrameError as error:
            failed = True
            if args.json:
                _print_json({"image": path, "error": {"code": "bad_image", "message": str(error)}})
            else:
                print(f"{path}: {error}", file=sys.stderr)
            continue
        start = time.perf_counter()
        detections = detect_photo(detector, image, conf=args.conf)
        ms = round((time.perf_counter() - start) * 1000, 1)
        if args.json:
            _print_json({"image": path, "detections": detections.to_json(), "ms": ms})
        else:
            print(f"{path}: {len(detections)} tiles in {ms} ms: {' '.join(detections.codes)}")
    return 2 if failed else 0


def _context_from_args(args: argparse.Namespace) -> dict:
    """The hand-JSON keys the flags of ``add_context_flags`` give, checked against the preset now,
    so a bad option or preset is one line before any model loads."""
    from scoring.hand import CONTEXT_FIELDS
    from scoring.rules import get_preset

    context: dict[str, Any] = {}
    for spec in CONTEXT_FIELDS:
        value = getattr(args, spec.name)
        if value is not None:
            context[spec.name] = value
    options = dict(args.option or [])
    if options:
        context["options"] = options
    get_preset(args.preset).resolve_options(options)
    if args.base is not None:
        context["settlement"] = {"base": args.base, "per_tai": args.per_tai, "discarder_seat": args.discarder}
    return context


def _cmd_score(args: argparse.Namespace) -> int:
    from scoring.errors import TaicamError
    from service.pipeline import recognise, repair, score_layout
    from vision.annotate import Annotator
    from vision.detector import ModelError
    from vision.frames import FrameError, read_image

    context = _context_from_args(args)
    corrections = dict(args.fix or [])
    try:
        detector = _detector(args)
        image = read_image(args.photo)
        recognition = recognise(detector, image, conf=args.conf, corrections=corrections)
        recognition = repair(recognition, context, args.preset, frozenset(corrections))
        winning = args.winning
        override = int(winning) if winning and winning.isdigit() else winning
        result = score_layout(recognition.layout, context, args.preset, override)
    except TaicamError:
        raise  # main() reports it with its own code
    # ValueError here is a --fix or --winning that does not fit the detections.
    except (FileNotFoundError, ModelError, FrameError, ValueError) as error:
        if args.json:
            _print_json({"error": {"code": "bad_input", "message": str(error)}})
        else:
            print(f"taicam score: {error}", file=sys.stderr)
        return 2
    if args.annotate:
        import cv2

        cv2.imwrite(args.annotate, Annotator().annotate(image, recognition.detections, recognition.layout))
    if args.json:
        _print_json(result)
        return 0 if "error" not in result["score"] else 2
    _print_score(result)
    return 0 if "error" not in result["score"] else 2


def _print_score(result: dict) -> None:
    from scoring.tiles import format_tiles

    for group in result["groups"]:
        if group["role"] != "background":
            kind = f" {group['kind']}" if group["kind"] else ""
            print(f"{group['role']}{kind}: {format_tiles(group['tiles'])}")
    for warning in result["warnings"]:
        print(f"warning: {warning}")
    for alternative in result["alternatives"]:
        print(f"alternative: winning tile {alternative['winning_tile']} → {alternative['total']}")
    score = result["score"]
    if "error" in score:
        print(f"cannot score: {score['error']['message']}")
        return
    for pattern in score["patterns"]:
        print(f"  {pattern['name']} {pattern['tai']}  ({pattern['why']})")
    print(f"total {score['total']}")
    if "payments" in score:
        print("payments: " + ", ".join(f"{seat} pays {amount}" for seat, amount in score["payments"].items()))


def _cmd_live(args: argparse.Namespace) -> int:
    from service.live import LiveScorer
    from vision.detector import ModelError
    from vision.frames import FrameError, frames, open_source

    context = _context_from_args(args)
    try:
        detector = _detector(args)
        source = open_source(args.camera if args.camera is not None else (args.url or args.video))
    except (FileNotFoundError, ModelError, FrameError) as error:
        print(f"taicam live: {error}", file=sys.stderr)
        return 2
    scorer = LiveScorer(detector, context, args.preset, args.conf, args.stable)
    window = _window_available()
    count = 0
    try:
        for frame in frames(source):
            count += 1
            recognition, result = scorer.process(frame)
            if not args.quiet:
                print(
                    f"\rframe {count}: {len(recognition.detections)} tiles, {recognition.ms:.0f} ms   ", end="", file=sys.stderr
                )
            if result is not None:
                print(file=sys.stderr)
                if args.json:
                    _print_json(result)
                else:
                    _print_score(result)
            if window:
                _show(frame, recognition)
            if args.max_frames and count >= args.max_frames:
                break
    except FrameError as error:
        print(f"\ntaicam live: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        pass
    return 0


def _window_available() -> bool:
    import os

    if not os.environ.get("DISPLAY"):
        return False
    import cv2

    try:  # headless OpenCV builds have no GUI
        cv2.namedWindow("taicam")
        return True
    except cv2.error:
        return False


def _show(frame, recognition) -> None:
    import cv2

    from vision.annotate import Annotator

    cv2.imshow("taicam", Annotator().annotate(frame, recognition.detections, recognition.layout))
    cv2.waitKey(1)


def _lan_address() -> str:
    import socket

    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.255.255.255", 1))  # no packet is sent; this picks the LAN interface
        return probe.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        probe.close()


def _self_signed_certificate(folder: Path, host: str) -> tuple[Path, Path]:
    import shutil
    import subprocess

    cert, key = folder / "taicam-cert.pem", folder / "taicam-key.pem"
    if cert.exists() and key.exists():
        return cert, key
    if not shutil.which("openssl"):
        raise SystemExit("taicam serve --https needs the 'openssl' command to make a self-signed certificate")
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "825", "-subj", "/CN=taicam",
         "-addext", f"subjectAltName=IP:{host},DNS:localhost", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


def _cmd_serve(args: argparse.Namespace) -> int:
    import secrets

    import uvicorn

    from service.app import create_app
    from service.settings import Settings

    overrides = {k: v for k, v in {"camera": args.camera, "data_dir": args.data_dir}.items() if v}
    settings = Settings(**overrides, **_model_settings(args))
    lan = args.host not in ("127.0.0.1", "localhost")
    if lan and not settings.token:
        settings.token = args.token or secrets.token_urlsafe(12)
    scheme = "https" if args.https else "http"
    shown_host = _lan_address() if args.host == "0.0.0.0" else args.host
    url = f"{scheme}://{shown_host}:{args.port}/snap" + (f"?token={settings.token}" if settings.token else "")
    print(f"taicam serving on {url}")
    if lan:
        import qrcode

        code = qrcode.QRCode(border=1)
        code.add_data(url)
        code.print_ascii(invert=True)
        print("Open the link or scan the code on a phone on the same network. Nothing works without the token.")
    else:
        print(f"For phones on this network ({_lan_address()}): taicam serve --host 0.0.0.0 (prints a QR code and a token)")
    ssl = {}
    if args.https:
        cert, key = _self_signed_certificate(settings.data_dir, shown_host)
        ssl = {"ssl_certfile": str(cert), "ssl_keyfile": str(key)}
        print("HTTPS uses a self-signed certificate: accept the browser's warning once to use the phone camera.")
    uvicorn.run(create_app(settings), host=args.host, port=args.port, log_level="warning", **ssl)
    return 0


def _cmd_label(args: argparse.Namespace) -> int:
    import uvicorn
    from taicam_datasets.labels import LabelError, LabelStore

    from service.app import create_app
    from service.settings import Settings

    store = LabelStore(Path(args.data))
    try:
        for source in args.import_from or []:
            print(f"imported {source}: {store.import_folder(Path(source))}")
        if args.export:
            print(json.dumps(store.export(Path(args.export), args.val_fraction, args.checked_only), ensure_ascii=False))
            return 0
    except (LabelError, OSError) as error:
        print(f"taicam label: {error}", file=sys.stderr)
        return 2
    if args.no_serve:
        return 0
    settings = Settings(label_dir=Path(args.data), **_model_settings(args))
    print(f"taicam labeling on http://{args.host}:{args.port}/label  (data: {store.root})")
    uvicorn.run(create_app(settings), host=args.host, port=args.port, log_level="warning")
    return 0


def add_context_flags(parser: argparse.ArgumentParser) -> None:
    """One flag per ``WinContext`` field, generated from the dataclass, plus preset, options and payments."""
    from scoring.hand import CONTEXT_FIELDS, CONTEXT_TYPES

    parser.add_argument("--preset", default="taiwan", help="rule preset: taiwan, app, hk or a house preset")
    for spec in CONTEXT_FIELDS:
        names = [f"--{spec.name.replace('_', '-')}", *([spec.metadata["flag"]] if spec.metadata["flag"] else [])]
        common: dict[str, Any] = {"dest": spec.name, "help": spec.metadata["help"]}
        if CONTEXT_TYPES[spec.name] is bool:
            parser.add_argument(*names, action="store_true", **common)
        elif spec.metadata["choices"]:
            parser.add_argument(*names, choices=spec.metadata["choices"], default=spec.default, **common)
        else:
            parser.add_argument(*names, type=_whole_number, default=spec.default, metavar="N", **common)
    parser.add_argument(
        "--option", action="append", type=_option, metavar="NAME=VALUE",
        help="change a preset option for this hand, e.g. zimo_tai=1 (repeatable; 'taicam rules' lists them)",
    )  # fmt: skip
    parser.add_argument("--base", type=_amount, help="底: enables payments")
    parser.add_argument("--per-tai", type=_amount, default=0, help="amount per 台")
    parser.add_argument("--discarder", choices="ESWN", help="seat that discarded the winning tile")


def _add_photo_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--conf", type=_fraction, default=0.25, help="detection confidence threshold")
    _add_model_flags(parser)


def _add_model_flags(parser: argparse.ArgumentParser, model_help: str = "ONNX detector (default: the bundled one)") -> None:
    parser.add_argument("--model", help=model_help)
    parser.add_argument("--classifier", help="ONNX crop classifier that re-reads each tile (default: the bundled one)")
    parser.add_argument("--no-classifier", action="store_true", help="keep the detector's own tile codes")


class _Parser(argparse.ArgumentParser):
    """Bad arguments get one line (and exit code 2), not the usage block."""

    def error(self, message: str) -> typing.NoReturn:
        self.exit(2, f"{self.prog}: {message} (see '{self.prog} --help')\n")


def _number(text: str, low: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"{text!r} is below {low}")
    return value


def _whole_number(text: str) -> int:
    return _number(text, 0)


def _positive_number(text: str) -> int:
    return _number(text, 1)


def _port(text: str) -> int:
    value = _positive_number(text)
    if value > MAX_PORT:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (1–{MAX_PORT})")
    return value


def _amount(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value >= 0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"{text!r} is below 0")
    return value


def _fraction(text: str) -> float:
    value = _amount(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not between 0 and 1")
    return value


def _option(text: str) -> tuple[str, Any]:
    """``NAME=VALUE``; the value is read as JSON (true, 2), else kept as text."""
    name, equals, raw = text.partition("=")
    if not name or not equals:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=VALUE, e.g. zimo_tai=1")
    try:
        return name, json.loads(raw)
    except json.JSONDecodeError:
        return name, raw


def _yolo_folder(text: str) -> str:
    if not (Path(text) / "images").is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is not a YOLO-layout folder (no images/ in it)")
    return text


def _correction(text: str) -> tuple[int, str]:
    from scoring.tiles import TILE_CODES

    index, equals, code = text.partition("=")
    if not equals or not index.isdigit() or code not in TILE_CODES:
        raise argparse.ArgumentTypeError(f"{text!r} is not DETECTION_ID=TILE_CODE, e.g. 3=5p")
    return int(index), code


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="taicam",
        description="Score Taiwan 16-tile mahjong hands from photos, cameras or hand descriptions.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=(
            "examples:\n"
            "  taicam serve                                   web app on http://127.0.0.1:8000/snap\n"
            "  taicam score hand.jpg --self-drawn --seat S    score a photo\n"
            "  taicam waits --tiles '123m 456m 789p 234s 55p 67s'\n"
            "  echo '{...hand JSON...}' | taicam score-hand -\n"
            "  taicam label --data labels --import photos/    grow the dataset\n"
            "\n'taicam COMMAND --help' explains each command."
        ),
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    score_hand = commands.add_parser("score-hand", help="score a hand described in JSON (the hand contract)")
    score_hand.add_argument("file", help="hand JSON file, or - for stdin; an array scores several hands")
    score_hand.set_defaults(handler=_cmd_score_hand)

    waits = commands.add_parser("waits", help="what a 16-tile hand is waiting for, and what each tile scores")
    waits.add_argument("file", nargs="?", default="-", help="hand JSON without winning_tile (default stdin)")
    waits.add_argument("--tiles", help="concealed tiles in notation, e.g. '123m 456p 789s 11z 23s'")
    waits.add_argument("--melds", nargs="*", help="melds such as pung:5z5z5z chow:123m concealed_kong:1111p")
    waits.add_argument("--preset", default="taiwan", help="rule preset (default taiwan)")
    waits.add_argument("--seat", choices="ESWN", help="seat wind")
    waits.add_argument("--round", choices="ESWN", help="round wind")
    waits.add_argument("--json", action="store_true", help="print JSON")
    waits.set_defaults(handler=_cmd_waits)

    serve = commands.add_parser("serve", help="serve the web app and HTTP API (the main job)")
    serve.add_argument("--host", default="127.0.0.1", help="bind address; 0.0.0.0 opens the LAN and requires a token")
    serve.add_argument("--port", type=_port, default=8000)
    serve.add_argument("--camera", help="server camera for live view: an index, a stream URL or a video file")
    serve.add_argument("--https", action="store_true", help="serve HTTPS with a self-signed certificate (phone camera)")
    serve.add_argument("--token", help="access token for LAN mode (default: generated)")
    _add_model_flags(serve)
    serve.add_argument("--data-dir", help="where the ledger lives (default ~/.local/share/taicam)")
    serve.set_defaults(handler=_cmd_serve)

    label = commands.add_parser("label", help="the labeling tool: import photos, fix boxes, export a training set")
    label.add_argument("--data", required=True, help="the labeling data folder (created if missing)")
    label.add_argument("--import", dest="import_from", nargs="*", help="folders of photos or YOLO datasets to import first")
    label.add_argument("--export", metavar="OUT", help="export a YOLO + COCO dataset to OUT and exit")
    label.add_argument("--val-fraction", type=_fraction, default=0.15, help="share of capture sessions for val (default 0.15)")
    label.add_argument("--checked-only", action="store_true", help="export only images marked checked")
    label.add_argument("--no-serve", action="store_true", help="import and exit")
    label.add_argument("--host", default="127.0.0.1")
    label.add_argument("--port", type=int, default=8001)
    _add_model_flags(label, "ONNX detector for pre-labeling (default: the bundled one)")
    label.set_defaults(handler=_cmd_label)

    detect = commands.add_parser("detect", help="detect tiles in images")
    detect.add_argument("images", nargs="+", help="image files")
    detect.add_argument("--json", action="store_true", help="one JSON object per image per line")
    detect.add_argument("--conf", type=_fraction, default=0.25, help="confidence threshold (default 0.25)")
    _add_model_flags(detect)
    detect.set_defaults(handler=_cmd_detect)

    score = commands.add_parser("score", help="score a photo of a winning hand")
    score.add_argument("photo", help="photo of the table")
    add_context_flags(score)
    _add_photo_flags(score)
    score.add_argument("--winning", help="the winning tile: a code in the hand row or a detection id")
    score.add_argument("--fix", nargs="*", type=_correction, metavar="ID=CODE", help="correct detections, e.g. 3=5p")
    score.add_argument("--annotate", metavar="OUT.jpg", help="write the photo with boxes and groups")
    score.add_argument("--json", action="store_true", help="print the contract JSON")
    score.set_defaults(handler=_cmd_score)

    live = commands.add_parser("live", help="score hands live from a camera, stream or video")
    source = live.add_mutually_exclusive_group(required=True)
    source.add_argument("--camera", help="USB camera index, e.g. 0")
    source.add_argument("--url", help="RTSP or HTTP MJPEG stream URL")
    source.add_argument("--video", help="video file")
    add_context_flags(live)
    _add_photo_flags(live)
    live.add_argument("--stable", type=_positive_number, default=5, help="frames a hand must hold still (default 5)")
    live.add_argument("--max-frames", type=_whole_number, default=0, help="stop after this many frames")
    live.add_argument("--json", action="store_true", help="print stable hands as JSON")
    live.add_argument("--quiet", action="store_true", help="no running status line")
    live.set_defaults(handler=_cmd_live)

    rules = commands.add_parser("rules", help="list presets, their patterns, values and options")
    rules.add_argument("--preset", help="only this preset")
    rules.add_argument("--json", action="store_true", help="print JSON")
    rules.set_defaults(handler=_cmd_rules)

    data = commands.add_parser("data", help="build training data (synthetic scenes)")
    data_commands = data.add_subparsers(dest="data_command", metavar="ACTION", required=True)
    synth = data_commands.add_parser("synth", help="render synthetic table scenes with YOLO labels")
    synth.add_argument("--out", required=True, help="output folder (YOLO layout)")
    synth.add_argument("--n", type=_positive_number, default=1000, help="number of scenes (default 1000)")
    synth.add_argument("--seed", type=int, default=1, help="seed; the same seed gives the same scenes")
    synth.add_argument("--workers", type=_positive_number, default=None, help="processes (default: all cores)")
    synth.add_argument(
        "--framing", default="random", choices=["random", "hand", "table", "mix"], help="camera framing (default random)"
    )
    synth.set_defaults(handler=_cmd_data_synth)

    train = commands.add_parser("train", help="train the tile detector and export ONNX (needs the 'train' extra)")
    train.add_argument(
        "--data", nargs="+", type=_yolo_folder, required=True, help="YOLO-layout folders to train on (images/train)"
    )
    train.add_argument(
        "--val", nargs="+", type=_yolo_folder, help="YOLO-layout folders to validate on (images/val; default --data)"
    )
    train.add_argument("--out", default="runs/train", help="work folder; the ONNX lands here")
    train.add_argument("--epochs", type=_positive_number, default=50)
    train.add_argument("--imgsz", type=_positive_number, default=640)
    train.add_argument("--device", default="cpu", help="'cpu' or a CUDA index such as 0")
    train.add_argument(
        "--arch", default="yolo11n.yaml", help="model definition (.yaml, from scratch) or weights (.pt) to fine-tune"
    )
    train.add_argument("--batch", type=_positive_number, default=16)
    train.add_argument("--workers", type=_whole_number, default=2)
    train.add_argument("--seed", type=int, default=0)
    train.add_argument("--hours", type=_amount, default=None, help="wall-clock budget in hours (overrides --epochs)")
    train.add_argument("--cache", action="store_true", help="cache decoded images in RAM")
    train.add_argument("--warmup-epochs", type=_amount, default=3.0, help="learning-rate warm-up (lower to fine-tune)")
    train.set_defaults(handler=_cmd_train)

    classifier = commands.add_parser(
        "train-classifier", help="train the crop classifier that re-reads each tile (needs the 'train' extra)"
    )
    classifier.add_argument(
        "--data", nargs="+", type=_yolo_folder, required=True, help="YOLO-layout folders to train on (images/train)"
    )
    classifier.add_argument(
        "--val", nargs="+", type=_yolo_folder, help="YOLO-layout folders to validate on (images/val; default --data)"
    )
    classifier.add_argument("--out", default="runs/classifier", help="work folder; the ONNX lands here")
    classifier.add_argument("--epochs", type=_positive_number, default=24)
    classifier.add_argument("--copies", type=_positive_number, default=1, help="jittered crops per labeled box (default 1)")
    classifier.add_argument("--seed", type=int, default=0)
    classifier.set_defaults(handler=_cmd_train_classifier)

    evaluate = commands.add_parser("eval", help="measure a detector on a YOLO-layout folder")
    evaluate.add_argument("--data", type=_yolo_folder, required=True, help="YOLO-layout folder")
    evaluate.add_argument("--split", default="val", help="images/<split> to use (default val)")
    _add_model_flags(evaluate)
    evaluate.add_argument("--conf", type=_fraction, default=0.25, help="confidence threshold for recall/precision")
    evaluate.add_argument("--json", action="store_true", help="print one JSON object")
    evaluate.set_defaults(handler=_cmd_eval)
    return parser


def subcommands(parser: argparse.ArgumentParser, prefix: str = "") -> dict[str, argparse.ArgumentParser]:
    """Every leaf command by its full name ('score', 'data synth'), for help and tests."""
    found: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found |= subcommands(sub, f"{prefix}{name} ") or {f"{prefix}{name}": sub}
    return found


def main(argv: list[str] | None = None) -> int:
    from scoring.errors import TaicamError

    args = build_parser().parse_args(argv)
    try:
        return int(args.handler(args))
    except TaicamError as error:  # a bad preset, option or hand named on the command line
        if getattr(args, "json", False):
            _print_json(error.to_json())
        else:
            print(f"taicam {args.command}: {error.message}", file=sys.stderr)
        return 2
    except OSError as error:  # a path given that cannot be read or written
        print(f"taicam {args.command}: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
