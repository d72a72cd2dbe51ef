"""Warnings and photo errors as data: a stable code, its parameters, and words in zh-TW or English."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from taicam.pipeline.messages import (
    EN,
    ERROR_TEMPLATES_ZH,
    LANGUAGES,
    NOTICE_TEMPLATES,
    ZH,
    localise_error,
    notice_json,
    pick_language,
)
from vision import notices
from vision.notices import Notice

NOTICE_CODES = sorted(v for k, v in vars(notices).items() if k.isupper() and isinstance(v, str))
# Parameters shaped as the pipeline gives them, so every template is filled once.
SAMPLE_PARAMS = {
    "tiles": ["5p", "5p", "7z"],
    "tile": "8s",
    "old": "9s",
    "other": "7s",
    "waits": ["5s", "8s"],
    "count": 6,
    "expected": 17,
    "seen": 16,
    "confidence": 0.31,
    "rank": 3,
    "detections": [3, 4],
}
TILE_CODE = re.compile(r"(?<![0-9A-Za-z])([1-9][mpsz]|[1-8]f|back)(?![0-9A-Za-z])")


def test_every_code_has_both_templates():
    assert NOTICE_CODES and set(NOTICE_CODES) == set(NOTICE_TEMPLATES)
    for templates in NOTICE_TEMPLATES.values():
        assert set(templates) == set(LANGUAGES)


@pytest.mark.parametrize("code", sorted(ERROR_TEMPLATES_ZH))
def test_photo_errors_in_chinese_name_tiles_and_english_keeps_the_core_words(code):
    error = {"code": code.removesuffix("_no_waits"), "message": "core words", "details": {}}
    zh = localise_error(error, SAMPLE_PARAMS, ZH)["message"]
    assert not TILE_CODE.search(zh) and not re.search(r"[A-Za-z]{3,}", zh), zh
    assert localise_error(error, SAMPLE_PARAMS, EN) == error


@pytest.mark.parametrize("code", NOTICE_CODES)
def test_zh_tw_names_tiles_by_name_and_english_by_code(code):
    zh = notice_json(Notice(code, SAMPLE_PARAMS), ZH)
    en = notice_json(Notice(code, SAMPLE_PARAMS), EN)
    assert zh["code"] == en["code"] == code and zh["params"] == SAMPLE_PARAMS
    assert not TILE_CODE.search(zh["message"]), zh["message"]
    assert not re.search(r"[A-Za-z]{3,}", zh["message"]), zh["message"]  # no English words either
    if "{tile" in NOTICE_TEMPLATES[code][EN]:
        assert TILE_CODE.search(en["message"])


def test_language_comes_from_the_header_or_query():
    assert pick_language("zh-TW,zh;q=0.9,en;q=0.8") == ZH
    assert pick_language("en-US,en;q=0.9") == EN
    assert pick_language(None) == EN and pick_language("fr") == EN


def test_score_api_words_warnings_in_the_asked_language(fake_app, jpeg_bytes):
    files = {"image": ("hand.jpg", jpeg_bytes, "image/jpeg")}
    with TestClient(fake_app) as client:
        zh = client.post("/v1/score", files=files, data={"winning_tile": "8s"}, headers={"accept-language": "zh-TW"})
        en = client.post("/v1/score?lang=en", files=files, data={"winning_tile": "8s"}, headers={"accept-language": "zh-TW"})
        plain = client.post("/v1/score", files=files, data={"winning_tile": "8s"})
    expected = {"code": notices.WINNING_SET_BY_CALLER, "params": {"tile": "8s", "detections": [16]}}
    assert zh.json()["warnings"] == [{**expected, "message": "胡的牌由你指定：八條"}]
    assert en.json()["warnings"] == [{**expected, "message": "winning tile set by the caller: 8s"}]
    assert plain.json()["warnings"] == en.json()["warnings"]  # English when no language is asked for


def test_unscorable_photo_error_in_chinese_without_the_image_unless_asked(fake_app, jpeg_bytes):
    files = {"image": ("hand.jpg", jpeg_bytes, "image/jpeg")}
    wrong = {"corrections": json.dumps({"16": "9s"})}  # 9s does not complete the hand: it waits on 5s and 8s
    with TestClient(fake_app) as client:
        lean = client.post("/v1/score", files=files, data=wrong, headers={"accept-language": "zh-TW"})
        drawn = client.post("/v1/score", files=files, data={**wrong, "annotate": "true"})
    assert lean.status_code == drawn.status_code == 422
    error = lean.json()["error"]
    assert error["code"] == "not_winning" and error["message"] == "九條胡不了這手牌；聽的是五條、八條"
    assert "annotated_image" not in error["details"] and len(error["details"]["detections"]) == 17
    assert drawn.json()["error"]["details"]["annotated_image"].startswith("data:image/jpeg;base64,")
    assert len(lean.content) < len(drawn.content) / 2


def test_a_winning_tile_that_is_no_tile_is_called_so(fake_app, jpeg_bytes):
    files = {"image": ("hand.jpg", jpeg_bytes, "image/jpeg")}
    with TestClient(fake_app) as client:
        error = client.post("/v1/score", files=files, data={"winning_tile": "0m"}).json()["error"]
    assert error["code"] == "bad_winning_tile" and "'0m' is not a tile code" in error["message"]


def test_a_photo_without_a_winning_tile_is_worded_in_chinese():
    from taicam.pipeline.messages import localise_error

    error = {"code": "no_winning_tile", "message": "core words", "details": {}}
    assert localise_error(error, {"tile": None}, ZH)["message"] == "不知道胡的是哪張牌：把它放在旁邊或指定它"


ROOT = Path(__file__).resolve().parents[1]
RAISED = re.compile(
    r'(?:ApiError\(\d+, |LedgerError\(|LabelError\(\s*|Refused\(|envelope\(\d+, |worded\(request, \d+, )"([a-z_]+)"'
)


def _codes_raised() -> set[str]:
    from scoring.errors import ErrorCode

    found = {code.value for code in ErrorCode}
    for folder in ("service", "datasets", "vision"):
        for path in (ROOT / folder).rglob("*.py"):
            found |= set(RAISED.findall(path.read_text(encoding="utf-8")))
    return found


def test_every_error_code_has_a_zh_tw_sentence():
    from taicam.pipeline.messages import ERROR_SUMMARIES_ZH

    raised = _codes_raised()
    assert len(raised) >= 30  # the scan finds the service's codes, not nothing
    assert raised <= set(ERROR_SUMMARIES_ZH), sorted(raised - set(ERROR_SUMMARIES_ZH))
    for sentence in ERROR_SUMMARIES_ZH.values():
        assert not re.search(r"[A-Za-z]{3,}", sentence.replace("JSON", "")), sentence


def test_ledger_errors_in_the_asked_language_keep_the_english_detail(fake_app):
    bad = {"name": "t", "players": ["甲", "乙", "丙"]}
    with TestClient(fake_app) as client:
        zh = client.post("/v1/tables", json=bad, headers={"accept-language": "zh-TW"}).json()["error"]
        en = client.post("/v1/tables", json=bad).json()["error"]
    assert zh["code"] == en["code"] and zh["message"] != en["message"]
    assert not re.search(r"[A-Za-z]{3,}", zh["message"]) and zh["details"]["message_en"] == en["message"]
