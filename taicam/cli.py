"""The ``taicam`` command: the parser, the server commands (serve, label) and ``main``.

The other commands live in ``taicam/commands/``, one module per kind of work, and what they share
in ``taicam/common.py``. Each subcommand imports its layer lazily, so ``taicam score-hand`` never
pays for onnxruntime and ``taicam serve`` never imports ultralytics."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .commands import photo, scoring, training
from .common import Parser, port, print_json
from .common import add_model_flags as _add_model_flags  # the names serve and label have always used
from .common import fraction as _fraction
from .common import model_settings as _model_settings


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

    from scoring.rules import load_presets
    from service.app import create_app
    from service.settings import Settings, bind

    load_presets()  # a broken house preset stops the start in one line, not every request later
    overrides = {k: v for k, v in {"camera": args.camera, "data_dir": args.data_dir, "label_dir": args.data}.items() if v}
    settings = Settings(**overrides, **_model_settings(args))
    lan = bind(settings, args.host, args.token, args.allow_host, _lan_address())
    scheme = "https" if args.https else "http"
    shown_host = _lan_address() if args.host == "0.0.0.0" else args.host
    url = f"{scheme}://{shown_host}:{args.port}/snap" + (f"?token={settings.token}" if settings.token else "")
    print(f"taicam serving on {url}")
    print(f"label store (/label, photos kept for training): {settings.label_store_dir}")
    if lan:
        import qrcode

        code = qrcode.QRCode(border=1)
        code.add_data(url)
        code.print_ascii(invert=True)
        print("Open the link or scan the code on a phone on the same network. Nothing works without the token.")
    else:
        print(f"For phones on this network ({_lan_address()}): taicam serve --host 0.0.0.0 (prints a QR code and a token)")
    ssl: dict[str, Any] = {}
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


EPILOG = """examples:
  taicam serve                                   web app on http://127.0.0.1:8000/snap
  taicam score hand.jpg --self-drawn --seat S    score a photo
  taicam waits --tiles '123m 456m 789p 234s 55p 67s'
  echo '{...hand JSON...}' | taicam score-hand -
  taicam label --data labels --import photos/    grow the dataset

'taicam COMMAND --help' explains each command."""


def build_parser() -> argparse.ArgumentParser:
    """The commands in the order ``taicam --help`` lists them: each kind of work registers its own."""
    parser = Parser(
        prog="taicam",
        description="Score Taiwan 16-tile mahjong hands from photos, cameras or hand descriptions.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=EPILOG,
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    scoring.register(commands)
    _add_serve(commands)
    _add_label(commands)
    photo.register(commands)
    training.register(commands)
    return parser


def _add_serve(commands: argparse._SubParsersAction) -> None:
    serve = commands.add_parser("serve", help="serve the web app and HTTP API (the main job)")
    serve.add_argument("--host", default="127.0.0.1", help="bind address; 0.0.0.0 opens the LAN and requires a token")
    serve.add_argument("--port", type=port, default=8000)
    serve.add_argument("--camera", help="server camera for live view: an index, a stream URL or a video file")
    serve.add_argument("--https", action="store_true", help="serve HTTPS with a self-signed certificate (phone camera)")
    serve.add_argument("--token", help="access token for LAN mode (default: generated)")
    serve.add_argument("--allow-host", action="append", default=[], help="another Host name to answer to (repeatable)")
    _add_model_flags(serve)
    serve.add_argument("--data-dir", help="where the ledger lives (default ~/.local/share/taicam)")
    serve.add_argument(
        "--data",
        help="the label store shared with 'taicam label --data DIR': /label and the photos kept with"
        " save_for_training (default DATA_DIR/labels)",
    )
    serve.set_defaults(handler=_cmd_serve)


def _add_label(commands: argparse._SubParsersAction) -> None:
    label = commands.add_parser("label", help="the labeling tool: import photos, fix boxes, export a training set")
    label.add_argument("--data", required=True, help="the labeling data folder (created if missing)")
    label.add_argument("--import", dest="import_from", nargs="*", help="folders of photos or YOLO datasets to import first")
    label.add_argument("--export", metavar="OUT", help="export a YOLO + COCO dataset to OUT and exit")
    label.add_argument("--val-fraction", type=_fraction, default=0.15, help="share of capture sessions for val (default 0.15)")
    label.add_argument("--checked-only", action="store_true", help="export only images marked checked")
    label.add_argument("--no-serve", action="store_true", help="import and exit")
    label.add_argument("--host", default="127.0.0.1", help="bind address; beyond loopback a token is required")
    label.add_argument("--token", help="access token when bound beyond loopback (default: generated)")
    label.add_argument("--allow-host", action="append", default=[], help="another Host name to answer to (repeatable)")
    label.add_argument("--port", type=int, default=8001)
    _add_model_flags(label, "ONNX detector for pre-labeling (default: the bundled one)")
    label.set_defaults(handler=_cmd_label)


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
            print_json(error.to_json())
        else:
            print(f"taicam {args.command}: {error.message}", file=sys.stderr)
        return 2
    except OSError as error:  # a path given that cannot be read or written
        print(f"taicam {args.command}: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
