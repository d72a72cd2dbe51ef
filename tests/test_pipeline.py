"""The application layer: ``score_photo`` returns typed values, and ``PhotoScore.to_json`` is the
JSON both edges answer with."""

from __future__ import annotations

import itertools
import json
import re

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient
from taicam_datasets.scenes import Scene, render_scene

from models.evaluate import same_hand
from scoring.errors import ErrorCode
from scoring.evaluate import ScoreResult
from scoring.hand import Hand, HandError, WinContext
from scoring.tiles import TILE_CODES
from service.app import create_app
from taicam import cli
from taicam.commands import photo as photo_commands
from taicam.pipeline import (
    REPAIRABLE,
    HandTiles,
    LiveScorer,
    PhotoRequestError,
    ScoreRequest,
    score_photo,
)
from tests.fakes import FakeDetector
from vision import notices
from vision.detections import Detections
from vision.detector import BUNDLED_MODEL, TileDetector

PICTURE = np.full((240, 800, 3), 90, np.uint8)


class RowDetector(FakeDetector):
    """The same 17 tiles in one evenly spaced row: no tile is set apart as the winning tile."""

    def detect(
        self, image: np.ndarray, conf: float = 0.25, iou: float = 0.6, side: int | None = None, covered: float = 0.6
    ) -> Detections:
        codes = [*self.HAND, self.WINNING]
        boxes = np.array([[20 + 40 * i, 100, 56 + 40 * i, 148] for i in range(len(codes))], np.float32)
        h, w = image.shape[:2]
        boxes *= np.array([w / 800, h / 240, w / 800, h / 240], np.float32)
        return Detections(boxes, np.full(len(codes), 0.95, np.float32), np.array([TILE_CODES.index(c) for c in codes]))


def test_score_photo_gives_the_typed_hand_and_result():
    scored = score_photo(FakeDetector(), PICTURE, ScoreRequest(context=WinContext(self_drawn=True)))
    assert scored.scored and scored.error is None and isinstance(scored.result, ScoreResult)
    assert isinstance(scored.hand, Hand) and scored.hand.winning_tile == "8s" and scored.hand.context.self_drawn
    assert scored.tiles.concealed == FakeDetector.HAND and scored.tiles.winning_tile == "8s"
    assert len(scored.detections) == 17 and [g.role for g in scored.layout.groups] == ["winning", "concealed"]
    # Self-drawn and concealed: 不求人 (3 台 under taiwan), and no 平胡, which needs a discard.
    assert [(item.name, item.tai) for item in scored.result.items] == [("不求人", 3)] and scored.result.total == 3
    assert scored.alternatives == () and scored.warnings == ()


def test_a_refused_hand_is_a_value_with_its_error_not_an_exception():
    scored = score_photo(FakeDetector(), PICTURE, ScoreRequest(corrections={16: "9s"}))
    assert not scored.scored and scored.result is None and isinstance(scored.error, HandError)
    assert scored.error.code == ErrorCode.NOT_WINNING and scored.hand is not None  # read, then refused
    zh = scored.to_json("zh-TW")["score"]["error"]
    assert zh["code"] == "not_winning" and zh["message"].startswith("九條胡不了這手牌")
    assert scored.to_json()["score"]["error"]["details"]["waits"] == ["5s", "8s"]


class UnsureDetector(FakeDetector):
    """The fixed hand with its fourth tile read unsure, 5m nearly as likely as its 4m."""

    def detect(
        self, image: np.ndarray, conf: float = 0.25, iou: float = 0.6, side: int | None = None, covered: float = 0.6
    ) -> Detections:
        found = super().detect(image, conf, iou, side)
        confidence = found.confidence.copy()
        confidence[3] = 0.3
        others = np.full((len(found), 1), TILE_CODES.index("5m"), np.int64)
        return Detections(found.xyxy, confidence, found.class_id, others, np.full((len(found), 1), 0.25, np.float32))


def test_a_tile_a_person_corrected_is_sure_and_no_longer_warned_of():
    unsure = score_photo(UnsureDetector(), PICTURE, ScoreRequest())
    assert [(w.code, w.params["detections"], w.params["other"]) for w in unsure.warnings] == [(notices.UNSURE_TILE, [3], "5m")]
    confirmed = score_photo(UnsureDetector(), PICTURE, ScoreRequest(corrections={3: "4m"}))
    assert confirmed.warnings == () and confirmed.tiles == unsure.tiles
    assert confirmed.detections.confidence[3] == 1.0 and confirmed.detections.other_confidences[3].max() == 0.0


def test_the_repairable_errors_are_the_error_code_enum():
    assert REPAIRABLE and all(isinstance(code, ErrorCode) for code in REPAIRABLE)
    assert ErrorCode.NOT_WINNING in REPAIRABLE and ErrorCode.UNKNOWN_OPTION not in REPAIRABLE


@pytest.mark.parametrize(
    ("request_", "code", "words"),
    [
        (ScoreRequest(corrections={99: "1m"}), ErrorCode.BAD_CORRECTION, "only 17 were found"),
        (ScoreRequest(corrections={3: "xx"}), ErrorCode.BAD_CORRECTION, "not a tile code"),
        (ScoreRequest(winning_tile=99), ErrorCode.BAD_WINNING_TILE, "detection 99 is not in the hand row"),
        (ScoreRequest(winning_tile="9z"), ErrorCode.BAD_WINNING_TILE, "not a tile code"),
        (ScoreRequest(winning_tile="1p"), ErrorCode.BAD_WINNING_TILE, "no 1p in the hand row"),
    ],
)
def test_what_does_not_fit_the_photo_is_a_photo_request_error(request_, code, words):
    with pytest.raises(PhotoRequestError) as raised:
        score_photo(FakeDetector(), PICTURE, request_)
    assert raised.value.code == code and words in raised.value.message


def test_with_nothing_set_apart_the_best_winning_tile_is_chosen_and_the_rest_offered():
    scored = score_photo(RowDetector(), PICTURE, ScoreRequest())
    assert scored.scored and scored.tiles.winning_tile is not None
    chosen = next(w for w in scored.warnings if w.code == notices.WINNING_CHOSEN)
    assert chosen.params["tile"] == scored.tiles.winning_tile
    totals = [a.total for a in scored.alternatives]
    assert totals and totals == sorted(totals, reverse=True) and scored.result is not None and scored.result.total >= totals[0]
    assert scored.tiles.winning_tile not in {a.winning_tile for a in scored.alternatives}


def test_the_echoed_hand_names_the_context_only_when_one_was_given():
    tiles = HandTiles(("1m",), (), (), "2m")
    assert ScoreRequest().hand_json(tiles) == {"preset": "taiwan", **tiles.to_json()}  # the server camera's
    given = ScoreRequest("app", {"zimo_tai": 2}, WinContext(seat_wind="S"), {"base": 1, "per_tai": 1}).hand_json(tiles)
    context_keys = [k for k in given if k not in ("preset", "options", "settlement", *tiles.to_json())]
    assert context_keys == [name for name, value in vars(WinContext()).items() if value is not None]
    assert list(given)[-6:-4] == ["options", "settlement"] and given["seat_wind"] == "S"


def test_photo_score_json_is_what_the_service_answers(settings, jpeg_bytes):
    """The same photo and form through /v1/score and through score_photo + to_json: the same JSON."""
    form = {"annotate": "false", "preset": "app", "self_drawn": "true", "seat_wind": "S", "options": '{"zimo_tai": 2}'}
    frame = cv2.imdecode(np.frombuffer(jpeg_bytes, np.uint8), cv2.IMREAD_COLOR)
    with TestClient(create_app(settings, detector_factory=lambda s: FakeDetector())) as client:
        for lang in ("en", "zh-TW"):
            for extra in ({}, {"corrections": '{"16": "9s"}'}):
                answer = client.post(
                    "/v1/score", files={"image": ("h.jpg", jpeg_bytes, "image/jpeg")}, data={**form, **extra},
                    headers={"Accept-Language": lang},
                ).json()  # fmt: skip
                body = answer["error"]["details"] if "error" in answer else answer
                context = WinContext(self_drawn=True, seat_wind="S")
                request = ScoreRequest("app", {"zimo_tai": 2}, context, corrections={16: "9s"} if extra else {})
                scored = score_photo(FakeDetector(), frame, request)
                expected = {"detections": scored.detections.to_json(), **scored.to_json(lang)}
                assert json.dumps({k: body[k] for k in expected}, ensure_ascii=False) == json.dumps(
                    expected, ensure_ascii=False
                )


def test_photo_score_json_is_what_taicam_score_prints(tmp_path, jpeg_bytes, monkeypatch, capsys):
    photo = tmp_path / "hand.jpg"
    photo.write_bytes(jpeg_bytes)
    monkeypatch.setattr(photo_commands, "load_detector", lambda args: RowDetector())
    assert cli.main(["score", str(photo), "--json", "--seat", "W", "--lang", "zh-TW"]) == 0
    printed = capsys.readouterr().out
    frame = cv2.imdecode(np.frombuffer(jpeg_bytes, np.uint8), cv2.IMREAD_COLOR)
    scored = score_photo(RowDetector(), frame, ScoreRequest(context=WinContext(seat_wind="W")))
    assert printed == json.dumps(scored.to_json("zh-TW"), ensure_ascii=False) + "\n"


class FlowerDetector(FakeDetector):
    """The fixed hand and, past the winning tile, a flower read 1f with 2f at odds 0.6."""

    def detect(
        self, image: np.ndarray, conf: float = 0.25, iou: float = 0.6, side: int | None = None, covered: float = 0.6
    ) -> Detections:
        found = super().detect(image, conf, iou, side)
        h, w = image.shape[:2]
        flower = np.array([[780, 100, 816, 148]], np.float32) * np.array([w / 800, h / 240, w / 800, h / 240], np.float32)
        classes = np.append(found.class_id, TILE_CODES.index("1f"))
        others = np.full((len(classes), 1), TILE_CODES.index("2f"), np.int64)
        scores = np.zeros((len(classes), 1), np.float32)
        scores[-1] = 0.3
        confidence = np.append(found.confidence, np.float32(0.5))
        return Detections(np.vstack([found.xyxy, flower]), confidence, classes, others, scores)


def test_taicam_score_prints_the_flag_that_takes_the_code_a_warning_names(tmp_path, monkeypatch, capsys):
    photo = tmp_path / "hand.jpg"
    cv2.imwrite(str(photo), np.full((240, 960, 3), 90, np.uint8))
    monkeypatch.setattr(photo_commands, "load_detector", lambda args: FlowerDetector())
    assert cli.main(["score", str(photo), "--lang", "en"]) == 0
    printed = capsys.readouterr().out
    assert "warning: flower 1f could also be 2f; correct it if that is wrong (--fix 17=2f)" in printed.splitlines()
    assert cli.main(["score", str(photo), "--lang", "en", "--fix", "17=2f"]) == 0
    fixed = capsys.readouterr().out
    assert "flowers 2f" in fixed and "warning" not in fixed  # a tile a person named is not doubted again
    monkeypatch.setattr(photo_commands, "load_detector", lambda args: RowDetector())
    assert cli.main(["score", str(photo), "--lang", "en"]) == 0
    alternatives = [line for line in capsys.readouterr().out.splitlines() if line.startswith("alternative:")]
    assert alternatives and all(re.search(r"→ \d+ \(--winning \d+\)$", line) for line in alternatives)


def test_the_live_scorer_gives_one_photo_score_when_the_hand_holds_still():
    scorer = LiveScorer(FakeDetector(), ScoreRequest(context=WinContext(dealer=True)), frames_needed=3)
    reports = [scorer.process(PICTURE)[1] for _ in range(5)]
    scored = [r for r in reports if r is not None]
    assert len(scored) == 1 and scored[0].scored and scored[0].hand is not None and scored[0].hand.context.dealer


def test_score_photo_reads_a_rendered_snap_with_the_bundled_model():
    scene = next(s for s in (render_scene(seed, "hand") for seed in itertools.count()) if Scene.shows_whole_hand(s))
    scored = score_photo(TileDetector(BUNDLED_MODEL), scene.image, ScoreRequest())
    assert same_hand(scored.tiles.to_json(), scene.layout) and scored.scored
