"""Commands that read tiles from pictures: detect, score (a photo) and live (a camera or video)."""

from __future__ import annotations

import argparse
import sys

from vision.defaults import DEFAULT_CONF

from ..common import (
    add_context_flags,
    add_language_flags,
    add_model_flags,
    add_photo_flags,
    correction,
    fraction,
    language,
    load_detector,
    positive_number,
    print_json,
    score_request,
    whole_number,
)

SEAT_NAMES = {"E": "東", "S": "南", "W": "西", "N": "北"}


def _cmd_detect(args: argparse.Namespace) -> int:
    import time

    from vision.detector import ModelError
    from vision.frames import FrameError, read_image
    from vision.photo import detect_photo

    try:
        detector = load_detector(args)
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
                print_json({"image": path, "error": {"code": "bad_image", "message": str(error)}})
            else:
                print(f"{path}: {error}", file=sys.stderr)
            continue
        start = time.perf_counter()
        detections = detect_photo(detector, image, conf=args.conf)
        ms = round((time.perf_counter() - start) * 1000, 1)
        if args.json:
            print_json({"image": path, "detections": detections.to_json(), "ms": ms})
        else:
            print(f"{path}: {len(detections)} tiles in {ms} ms: {' '.join(detections.codes)}")
    return 2 if failed else 0


def _cmd_score(args: argparse.Namespace) -> int:
    from taicam.pipeline import PhotoRequestError, score_photo
    from vision.annotate import Annotator
    from vision.detector import ModelError
    from vision.frames import FrameError, read_image

    winning = int(args.winning) if args.winning and args.winning.isdigit() else args.winning
    request = score_request(args, dict(args.fix or []), winning)
    try:
        detector = load_detector(args)
        image = read_image(args.photo)
        scored = score_photo(detector, image, request, args.conf)
    # A PhotoRequestError is a --fix or --winning that does not fit the detections.
    except (FileNotFoundError, ModelError, FrameError, PhotoRequestError) as error:
        if args.json:
            print_json({"error": {"code": "bad_input", "message": str(error)}})
        else:
            print(f"taicam score: {error}", file=sys.stderr)
        return 2
    if args.annotate:
        import cv2

        cv2.imwrite(args.annotate, Annotator().annotate(image, scored.detections, scored.layout))
    result = scored.to_json(language(args))
    if args.json:
        print_json(result)
    else:
        _print_score(result, chinese=language(args) == "zh-TW" and not args.codes)
    return 0 if scored.scored else 2


def _print_score(result: dict, chinese: bool) -> None:
    from scoring.tiles import chinese_name

    from ..display import hand_line

    print(hand_line(result["hand"], chinese))
    for warning in result["warnings"]:
        print(f"{'注意' if chinese else 'warning'}: {warning['message']}{_fix_hint(warning['params'])}")
    for alternative in result["alternatives"]:
        tile = chinese_name(alternative["winning_tile"]) if chinese else alternative["winning_tile"]
        label = "也可能胡" if chinese else "alternative: winning tile"
        print(f"{label} {tile} → {alternative['total']} (--winning {alternative['detection']})")
    score = result["score"]
    if "error" in score:
        print(f"{'不能算台' if chinese else 'cannot score'}: {score['error']['message']}")
        return
    for pattern in score["patterns"]:
        print(f"  {pattern['name']} {pattern['tai']}  ({pattern['why']})")
    print(f"合計 {score['total']} {score.get('unit', '台')}" if chinese else f"total {score['total']}")
    if "payments" in score:
        payments = score["payments"].items()
        if chinese:
            print("付款：" + "，".join(f"{SEAT_NAMES[seat]}家付{amount}" for seat, amount in payments))
        else:
            print("payments: " + ", ".join(f"{seat} pays {amount}" for seat, amount in payments))


def _fix_hint(params: dict) -> str:
    """The flag that takes the other code a warning about one tile names (the flower it could also
    be, the reading the whole-hand repair replaced), so the player can run it as it stands."""
    named = params.get("other") or params.get("old")
    ids = params.get("detections", [])
    return f" (--fix {ids[0]}={named})" if named and len(ids) == 1 else ""


def _cmd_live(args: argparse.Namespace) -> int:
    from taicam.pipeline import LiveScorer
    from vision.detector import ModelError
    from vision.frames import FrameError, frames, open_source

    request = score_request(args)
    try:
        detector = load_detector(args)
        source = open_source(args.camera if args.camera is not None else (args.url or args.video))
    except (FileNotFoundError, ModelError, FrameError) as error:
        print(f"taicam live: {error}", file=sys.stderr)
        return 2
    scorer = LiveScorer(detector, request, args.conf, args.stable)
    window = _window_available()
    count = 0
    try:
        for frame in frames(source):
            count += 1
            recognition, scored = scorer.process(frame)
            if not args.quiet:
                print(
                    f"\rframe {count}: {len(recognition.detections)} tiles, {recognition.ms:.0f} ms   ", end="", file=sys.stderr
                )
            if scored is not None:
                print(file=sys.stderr)
                if args.json:
                    print_json(scored.to_json(language(args)))
                else:
                    _print_score(scored.to_json(language(args)), chinese=language(args) == "zh-TW" and not args.codes)
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


def register(commands: argparse._SubParsersAction) -> None:
    detect = commands.add_parser("detect", help="detect tiles in images")
    detect.add_argument("images", nargs="+", help="image files")
    detect.add_argument("--json", action="store_true", help="one JSON object per image per line")
    detect.add_argument("--conf", type=fraction, default=DEFAULT_CONF, help=f"confidence threshold (default {DEFAULT_CONF})")
    add_model_flags(detect)
    detect.set_defaults(handler=_cmd_detect)

    score = commands.add_parser("score", help="score a photo of a winning hand")
    score.add_argument("photo", help="photo of the table")
    add_context_flags(score)
    add_photo_flags(score)
    score.add_argument("--winning", help="the winning tile: a code in the hand row or a detection id")
    score.add_argument("--fix", nargs="*", type=correction, metavar="ID=CODE", help="correct detections, e.g. 3=5p")
    score.add_argument("--annotate", metavar="OUT.jpg", help="write the photo with boxes and groups")
    score.add_argument("--json", action="store_true", help="print the contract JSON")
    add_language_flags(score)
    score.set_defaults(handler=_cmd_score)

    live = commands.add_parser("live", help="score hands live from a camera, stream or video")
    source = live.add_mutually_exclusive_group(required=True)
    source.add_argument("--camera", help="USB camera index, e.g. 0")
    source.add_argument("--url", help="RTSP or HTTP MJPEG stream URL")
    source.add_argument("--video", help="video file")
    add_context_flags(live)
    add_photo_flags(live)
    live.add_argument(
        "--stable", type=positive_number, default=5, help="still frames before a frame is read in full and scored (default 5)"
    )
    live.add_argument("--max-frames", type=whole_number, default=0, help="stop after this many frames")
    live.add_argument("--json", action="store_true", help="print stable hands as JSON")
    live.add_argument("--quiet", action="store_true", help="no running status line")
    add_language_flags(live)
    live.set_defaults(handler=_cmd_live)
