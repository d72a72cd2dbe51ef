"""One win context at every edge: each WinContext field, options and settlement are accepted alike
by the hand JSON, the /v1/score form, the /v1/live query, ``taicam score`` and ``taicam live``.

The fields are read from the dataclass, so a field added to ``WinContext`` is covered here with
no edit; an edge that drops it fails.
"""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Any
from urllib.parse import urlencode

import numpy as np
import pytest
from fastapi.testclient import TestClient

from scoring.hand import CONTEXT_TYPES, WinContext, parse_hand
from scoring.tiles import TILE_CODES
from service.app import create_app
from taicam import cli
from taicam.commands import photo as photo_commands
from taicam.pipeline import HandTiles
from tests.fakes import FakeDetector
from tests.scoring_helpers import hand
from vision.detections import Detections

OPTIONS = {"zimo_tai": 2}
SETTLEMENT = {"base": 10, "per_tai": 2, "discarder_seat": "S"}


def _unusual(spec) -> Any:
    """A value other than the field's default, of the field's own type."""
    if spec.metadata["choices"]:
        return spec.metadata["choices"][-1]
    return True if CONTEXT_TYPES[spec.name] is bool else 3


UNUSUAL = {spec.name: _unusual(spec) for spec in fields(WinContext)}
# Facts a field cannot stand without (天胡 is the dealer's win).
COMPANIONS = {"heavenly": {"dealer": True}}


def _form_value(value: Any) -> str:
    return json.dumps(value) if isinstance(value, bool) else str(value)


def _cli_flags() -> list[str]:
    flags = []
    for name, value in UNUSUAL.items():
        flag = "--" + name.replace("_", "-")
        flags += [flag] if value is True else [flag, str(value)]
    option = [f"--option={k}={json.dumps(v)}" for k, v in OPTIONS.items()]
    settlement = ["--base", str(SETTLEMENT["base"]), "--per-tai", str(SETTLEMENT["per_tai"]), "--discarder", "S"]
    return ["--preset", "app", *flags, *option, *settlement]


def _assert_carried(situation: dict[str, Any]) -> None:
    for name, value in UNUSUAL.items():
        assert situation.get(name) == value, name
    assert situation["options"] == OPTIONS
    assert {k: situation["settlement"][k] for k in SETTLEMENT} == SETTLEMENT


def _hand_echo(body: dict[str, Any]) -> dict[str, Any]:
    return body["hand"] if "hand" in body else body["error"]["details"]["hand"]


@pytest.mark.parametrize("name", list(UNUSUAL))
def test_the_hand_json_takes_every_field(name):
    data = hand("123m 456m 789p 234s 55p 67s", "8s", preset="app", **{name: UNUSUAL[name]}, **COMPANIONS.get(name, {}))
    parsed = parse_hand({**data, "options": OPTIONS, "settlement": SETTLEMENT})
    assert getattr(parsed.context, name) == UNUSUAL[name]
    assert dict(parsed.options) == OPTIONS and parsed.settlement is not None and parsed.settlement.base == 10


def test_the_score_form_takes_every_field(fake_app, jpeg_bytes):
    form = {name: _form_value(value) for name, value in UNUSUAL.items()}
    form |= {"preset": "app", "options": json.dumps(OPTIONS), "settlement": json.dumps(SETTLEMENT), "annotate": "false"}
    with TestClient(fake_app) as client:
        response = client.post("/v1/score", files={"image": ("hand.jpg", jpeg_bytes, "image/jpeg")}, data=form)
    _assert_carried(_hand_echo(response.json()))


def test_the_live_query_takes_every_field(fake_app, jpeg_bytes):
    query = {name: _form_value(value) for name, value in UNUSUAL.items()}
    query |= {"preset": "app", "stable": "2", "options": json.dumps(OPTIONS), "settlement": json.dumps(SETTLEMENT)}
    with TestClient(fake_app) as client, client.websocket_connect("/v1/live?" + urlencode(query)) as socket:
        stable = None
        for _ in range(3):
            socket.send_bytes(jpeg_bytes)
            stable = socket.receive_json()["stable"] or stable
    assert stable is not None
    _assert_carried(stable["hand"])


def test_the_live_query_refuses_a_bad_value_with_the_envelope(fake_app):
    with TestClient(fake_app) as client, client.websocket_connect("/v1/live?dealer_streak=many") as socket:
        error = socket.receive_json()["error"]
    assert error["code"] == "invalid_request" and error["details"]["problems"][0]["field"] == "dealer_streak"


def test_taicam_score_takes_every_field(tmp_path, jpeg_bytes, monkeypatch, capsys):
    photo = tmp_path / "hand.jpg"
    photo.write_bytes(jpeg_bytes)
    monkeypatch.setattr(photo_commands, "load_detector", lambda args: FakeDetector())
    cli.main(["score", str(photo), *_cli_flags(), "--json"])
    _assert_carried(json.loads(capsys.readouterr().out)["hand"])


def test_taicam_live_takes_every_field(monkeypatch):
    import taicam.pipeline
    import vision.frames

    seen: list[dict] = []

    class Recorder:
        def __init__(self, detector, request, conf, frames_needed):
            seen.append(request.hand_json(HandTiles((), (), (), None)))

    monkeypatch.setattr(photo_commands, "load_detector", lambda args: FakeDetector())
    monkeypatch.setattr(vision.frames, "open_source", lambda source: None)
    monkeypatch.setattr(vision.frames, "frames", lambda source: iter(()))
    monkeypatch.setattr(taicam.pipeline, "LiveScorer", Recorder)
    assert cli.main(["live", "--video", "table.mp4", "--quiet", *_cli_flags()]) == 0
    _assert_carried(seen[0])


def test_every_situational_win_has_a_flag_whose_help_names_the_pattern_in_chinese():
    help_text = cli.subcommands(cli.build_parser())["score"].format_help()
    chinese_names = {"heavenly": "天胡", "earthly": "地胡", "human": "人胡", "heavenly_ready": "天聽", "earthly_ready": "地聽"}
    for name, chinese in chinese_names.items():
        line = next(line for line in help_text.splitlines() if f"--{name.replace('_', '-')} " in line + " ")
        assert chinese in line, line


class MeldDetector(FakeDetector):
    """123m 456m 234s 11z 67s concealed, a called chow 789p apart, the winning 8s apart."""

    CONCEALED = ("1m", "2m", "3m", "4m", "5m", "6m", "2s", "3s", "4s", "1z", "1z", "6s", "7s")
    MELD = ("7p", "8p", "9p")

    def detect(
        self, image: np.ndarray, conf: float = 0.25, iou: float = 0.6, side: int | None = None, covered: float = 0.6
    ) -> Detections:
        boxes, codes = [], []
        x = 20
        for group in (self.CONCEALED, self.MELD, (self.WINNING,)):
            for code in group:
                boxes.append([x, 100, x + 36, 148])
                codes.append(code)
                x += 40
            x += 40
        h, w = image.shape[:2]
        stretched = np.array(boxes, np.float32) * np.array([w / 800, h / 240, w / 800, h / 240], np.float32)
        return Detections(stretched, np.full(len(codes), 0.95, np.float32), np.array([TILE_CODES.index(c) for c in codes]))


def test_zimo_tai_option_adds_exactly_its_tai_on_the_cli(tmp_path, jpeg_bytes, monkeypatch, capsys):
    photo = tmp_path / "hand.jpg"
    photo.write_bytes(jpeg_bytes)
    monkeypatch.setattr(photo_commands, "load_detector", lambda args: MeldDetector())
    totals = []
    for extra in ([], ["--option", "zimo_tai=2"]):
        assert cli.main(["score", str(photo), "--json", "--preset", "app", "--self-drawn", *extra]) == 0
        result = json.loads(capsys.readouterr().out)
        assert result["hand"]["melds"] == [{"kind": "chow", "tiles": ["7p", "8p", "9p"]}]
        totals.append(result["score"]["total"])
    assert totals[1] == totals[0] + 2


def test_zimo_tai_option_as_a_form_field(settings, jpeg_bytes):
    app = create_app(settings, detector_factory=lambda s: MeldDetector())
    files = {"image": ("hand.jpg", jpeg_bytes, "image/jpeg")}
    form = {"preset": "app", "self_drawn": "true", "annotate": "false"}
    with TestClient(app) as client:
        plain = client.post("/v1/score", files=files, data=form).json()["score"]["total"]
        more = client.post("/v1/score", files=files, data={**form, "options": json.dumps(OPTIONS)}).json()
        assert more["score"]["total"] == plain + 2
        unknown = client.post("/v1/score", files=files, data={**form, "options": json.dumps({"zimo": 1})})
        assert unknown.status_code == 422 and unknown.json()["error"]["code"] == "unknown_option"
        broken = client.post("/v1/score", files=files, data={**form, "options": "{zimo"})
        assert broken.status_code == 422 and broken.json()["error"]["code"] == "bad_field"
