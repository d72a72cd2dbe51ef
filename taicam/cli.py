"""The ``taicam`` command. Each subcommand imports its layer lazily, so ``taicam score-hand``
never pays for onnxruntime and ``taicam serve`` never imports ultralytics."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


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
    from scoring.rules import load_presets

    presets = load_presets()
    chosen = [presets[args.preset]] if args.preset else list(presets.values())
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
    context = {
        "self_drawn": args.self_drawn,
        "seat_wind": args.seat,
        "round_wind": args.round,
        "dealer": args.dealer,
        "dealer_streak": args.streak,
    }
    for flag in ("last_tile", "kong_replacement", "flower_replacement", "robbing_kong", "declared_ready"):
        if getattr(args, flag):
            context[flag] = True
    if args.base is not None:
        context["settlement"] = {"base": args.base, "per_tai": args.per_tai, "discarder_seat": args.discarder}
    return context


def _cmd_score(args: argparse.Namespace) -> int:
    from service.pipeline import recognise, repair, score_layout
    from vision.annotate import Annotator
    from vision.detector import ModelError
    from vision.frames import FrameError, read_image

    try:
        detector = _detector(args)
        image = read_image(args.photo)
        corrections = {}
        for fix in args.fix or []:
            index, _, code = fix.partition("=")
            corrections[int(index)] = code
        context = _context_from_args(args)
        recognition = recognise(detector, image, conf=args.conf, corrections=corrections)
        recognition = repair(recognition, context, args.preset, frozenset(corrections))
        winning = args.winning
        override = int(winning) if winning and winning.isdigit() else winning
        result = score_layout(recognition.layout, context, args.preset, override)
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
    from vision.frames import FrameError, frames, open_source

    try:
        detector = _detector(args)
        source = open_source(args.camera if args.camera is not None else (args.url or args.video))
    except (FileNotFoundError, FrameError, ValueError) as error:
        print(f"taicam live: {error}", file=sys.stderr)
        return 2
    scorer = LiveScorer(detector, _context_from_args(args), args.preset, args.conf, args.stable)
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
    import uvicorn

    from service.app import create_app
    from service.settings import Settings, bind

    overrides = {k: v for k, v in {"camera": args.camera, "data_dir": args.data_dir}.items() if v}
    settings = Settings(**overrides, **_model_settings(args))
    lan = bind(settings, args.host, args.token, args.allow_host, _lan_address())
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
    from service.settings import Settings, bind

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
    settings = Settings(label_dir=Path(args.data), labeling_only=True, **_model_settings(args))
    lan = bind(settings, args.host, args.token, args.allow_host, _lan_address())
    shown_host = _lan_address() if args.host in ("0.0.0.0", "::") else args.host
    token = f"?token={settings.token}" if lan else ""
    print(f"taicam labeling on http://{shown_host}:{args.port}/label{token}  (data: {store.root})")
    uvicorn.run(create_app(settings), host=args.host, port=args.port, log_level="warning")
    return 0


def _add_context_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--preset", default="taiwan", help="rule preset: taiwan, app, hk or a house preset")
    parser.add_argument("--self-drawn", action="store_true", help="won by self-draw (自摸)")
    parser.add_argument("--seat", default="E", choices="ESWN", help="seat wind (門風), default E")
    parser.add_argument("--round", default="E", choices="ESWN", help="round wind (圈風), default E")
    parser.add_argument("--dealer", action="store_true", help="the winner is the dealer (莊)")
    parser.add_argument("--streak", type=int, default=0, help="dealer streak N (連N)")
    parser.add_argument("--last-tile", action="store_true", help="won on the last tile (海底)")
    parser.add_argument("--kong-replacement", action="store_true", help="won on a kong replacement draw")
    parser.add_argument("--flower-replacement", action="store_true", help="won on a flower replacement draw")
    parser.add_argument("--robbing-kong", action="store_true", help="won by robbing a kong (搶槓)")
    parser.add_argument("--declared-ready", action="store_true", help="had declared ready (報聽)")
    parser.add_argument("--base", type=float, help="底: enables payments")
    parser.add_argument("--per-tai", type=float, default=0, help="amount per 台")
    parser.add_argument("--discarder", choices="ESWN", help="seat that discarded the winning tile")
    parser.add_argument("--conf", type=float, default=0.25, help="detection confidence threshold")
    _add_model_flags(parser)


def _add_model_flags(parser: argparse.ArgumentParser, model_help: str = "ONNX detector (default: the bundled one)") -> None:
    parser.add_argument("--model", help=model_help)
    parser.add_argument("--classifier", help="ONNX crop classifier that re-reads each tile (default: the bundled one)")
    parser.add_argument("--no-classifier", action="store_true", help="keep the detector's own tile codes")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
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
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--camera", help="server camera for live view: an index, a stream URL or a video file")
    serve.add_argument("--https", action="store_true", help="serve HTTPS with a self-signed certificate (phone camera)")
    serve.add_argument("--token", help="access token for LAN mode (default: generated)")
    serve.add_argument("--allow-host", action="append", default=[], help="another Host name to answer to (repeatable)")
    _add_model_flags(serve)
    serve.add_argument("--data-dir", help="where the ledger lives (default ~/.local/share/taicam)")
    serve.set_defaults(handler=_cmd_serve)

    label = commands.add_parser("label", help="the labeling tool: import photos, fix boxes, export a training set")
    label.add_argument("--data", required=True, help="the labeling data folder (created if missing)")
    label.add_argument("--import", dest="import_from", nargs="*", help="folders of photos or YOLO datasets to import first")
    label.add_argument("--export", metavar="OUT", help="export a YOLO + COCO dataset to OUT and exit")
    label.add_argument("--val-fraction", type=float, default=0.15, help="share of capture sessions for val (default 0.15)")
    label.add_argument("--checked-only", action="store_true", help="export only images marked checked")
    label.add_argument("--no-serve", action="store_true", help="import and exit")
    label.add_argument("--host", default="127.0.0.1", help="bind address; beyond loopback a token is required")
    label.add_argument("--token", help="access token when bound beyond loopback (default: generated)")
    label.add_argument("--allow-host", action="append", default=[], help="another Host name to answer to (repeatable)")
    label.add_argument("--port", type=int, default=8001)
    _add_model_flags(label, "ONNX detector for pre-labeling (default: the bundled one)")
    label.set_defaults(handler=_cmd_label)

    detect = commands.add_parser("detect", help="detect tiles in images")
    detect.add_argument("images", nargs="+", help="image files")
    detect.add_argument("--json", action="store_true", help="one JSON object per image per line")
    detect.add_argument("--conf", type=float, default=0.25, help="confidence threshold (default 0.25)")
    _add_model_flags(detect)
    detect.set_defaults(handler=_cmd_detect)

    score = commands.add_parser("score", help="score a photo of a winning hand")
    score.add_argument("photo", help="photo of the table")
    _add_context_flags(score)
    score.add_argument("--winning", help="the winning tile: a code in the hand row or a detection id")
    score.add_argument("--fix", nargs="*", metavar="ID=CODE", help="correct detections, e.g. 3=5p")
    score.add_argument("--annotate", metavar="OUT.jpg", help="write the photo with boxes and groups")
    score.add_argument("--json", action="store_true", help="print the contract JSON")
    score.set_defaults(handler=_cmd_score)

    live = commands.add_parser("live", help="score hands live from a camera, stream or video")
    source = live.add_mutually_exclusive_group(required=True)
    source.add_argument("--camera", help="USB camera index, e.g. 0")
    source.add_argument("--url", help="RTSP or HTTP MJPEG stream URL")
    source.add_argument("--video", help="video file")
    _add_context_flags(live)
    live.add_argument("--stable", type=int, default=5, help="frames a hand must hold still (default 5)")
    live.add_argument("--max-frames", type=int, default=0, help="stop after this many frames")
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
    synth.add_argument("--n", type=int, default=1000, help="number of scenes (default 1000)")
    synth.add_argument("--seed", type=int, default=1, help="seed; the same seed gives the same scenes")
    synth.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    synth.add_argument(
        "--framing", default="random", choices=["random", "hand", "table", "mix"], help="camera framing (default random)"
    )
    synth.set_defaults(handler=_cmd_data_synth)

    train = commands.add_parser("train", help="train the tile detector and export ONNX (needs the 'train' extra)")
    train.add_argument("--data", nargs="+", required=True, help="YOLO-layout folders to train on (images/train)")
    train.add_argument("--val", nargs="+", help="YOLO-layout folders to validate on (images/val; default --data)")
    train.add_argument("--out", default="runs/train", help="work folder; the ONNX lands here")
    train.add_argument("--epochs", type=int, default=50)
    train.add_argument("--imgsz", type=int, default=640)
    train.add_argument("--device", default="cpu", help="'cpu' or a CUDA index such as 0")
    train.add_argument(
        "--arch", default="yolo11n.yaml", help="model definition (.yaml, from scratch) or weights (.pt) to fine-tune"
    )
    train.add_argument("--batch", type=int, default=16)
    train.add_argument("--workers", type=int, default=2)
    train.add_argument("--seed", type=int, default=0)
    train.add_argument("--hours", type=float, default=None, help="wall-clock budget in hours (overrides --epochs)")
    train.add_argument("--cache", action="store_true", help="cache decoded images in RAM")
    train.add_argument("--warmup-epochs", type=float, default=3.0, help="learning-rate warm-up (lower to fine-tune)")
    train.set_defaults(handler=_cmd_train)

    classifier = commands.add_parser(
        "train-classifier", help="train the crop classifier that re-reads each tile (needs the 'train' extra)"
    )
    classifier.add_argument("--data", nargs="+", required=True, help="YOLO-layout folders to train on (images/train)")
    classifier.add_argument("--val", nargs="+", help="YOLO-layout folders to validate on (images/val; default --data)")
    classifier.add_argument("--out", default="runs/classifier", help="work folder; the ONNX lands here")
    classifier.add_argument("--epochs", type=int, default=24)
    classifier.add_argument("--copies", type=int, default=1, help="jittered crops per labeled box (default 1)")
    classifier.add_argument("--seed", type=int, default=0)
    classifier.set_defaults(handler=_cmd_train_classifier)

    evaluate = commands.add_parser("eval", help="measure a detector on a YOLO-layout folder")
    evaluate.add_argument("--data", required=True, help="YOLO-layout folder")
    evaluate.add_argument("--split", default="val", help="images/<split> to use (default val)")
    _add_model_flags(evaluate)
    evaluate.add_argument("--conf", type=float, default=0.25, help="confidence threshold for recall/precision")
    evaluate.add_argument("--json", action="store_true", help="print one JSON object")
    evaluate.set_defaults(handler=_cmd_eval)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.handler(args))


if __name__ == "__main__":
    sys.exit(main())
