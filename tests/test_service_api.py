"""The HTTP API through the app factory: a fake detector, then the real bundled model."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from service.app import create_app
from tests.conftest import REAL_VAL
from tests.fakes import FakeDetector
from tests.scoring_helpers import hand


def test_health_and_readiness(fake_app):
    with TestClient(fake_app) as client:
        assert client.get("/healthz").json() == {"status": "ok"}
        assert client.get("/readyz").json()["status"] == "ready"


def test_score_photo_returns_the_hand_its_tai_and_an_annotated_image(fake_app, jpeg_bytes):
    with TestClient(fake_app) as client:
        response = client.post("/v1/score", files={"image": ("hand.jpg", jpeg_bytes, "image/jpeg")}, data={"seat_wind": "S"})
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["hand"]["winning_tile"] == "8s" and len(body["hand"]["concealed"]) == 16
        assert body["score"]["total"] == 3 and {p["name"] for p in body["score"]["patterns"]} == {"門清", "平胡"}
        assert len(body["detections"]) == 17 and body["annotated_image"].startswith("data:image/jpeg;base64,")


def test_context_and_corrections_change_the_score(fake_app, jpeg_bytes):
    with TestClient(fake_app) as client:
        files = {"image": ("hand.jpg", jpeg_bytes, "image/jpeg")}
        drawn = client.post("/v1/score", files=files, data={"self_drawn": "true", "annotate": "false"}).json()
        assert [p["name"] for p in drawn["score"]["patterns"]] == ["不求人"]
        fixed = client.post("/v1/score", files=files, data={"corrections": json.dumps({"12": "1z"}), "annotate": "false"})
        assert fixed.status_code == 422  # 1z replaces a 5p of the pair: no legal hand any more
        error = fixed.json()["error"]
        assert error["code"] == "not_winning" and len(error["details"]["detections"]) == 17


def test_score_hand_is_exactly_score_hand_output(fake_app):
    data = hand("123m 456m 789p 234s 55p 67s", "8s")
    with TestClient(fake_app) as client:
        response = client.post("/v1/score/hand", json=data)
        assert response.status_code == 200
        from scoring.api import score_hand

        assert response.json() == score_hand(data)


def test_detect_rules_and_waits(fake_app, jpeg_bytes):
    with TestClient(fake_app) as client:
        detected = client.post("/v1/detect", files={"image": ("x.jpg", jpeg_bytes, "image/jpeg")}).json()
        assert set(detected) == {"image", "detections", "ms", "model"} and len(detected["detections"]) == 17
        presets = {p["name"] for p in client.get("/v1/rules").json()}
        assert {"taiwan", "app", "hk"} <= presets
        waits = client.post("/v1/waits", json={"concealed": hand("123m 456m 789p 234s 55p 67s", "8s")["concealed"]}).json()
        assert [w["tile"] for w in waits["waits"]] == ["5s", "8s"]


# --- one test per error code -------------------------------------------------------------------


def test_413_upload_too_large(fake_app):
    with TestClient(fake_app) as client:
        big = b"\xff" * (3 * 1024 * 1024)
        response = client.post("/v1/detect", files={"image": ("big.jpg", big, "image/jpeg")})
        assert response.status_code == 413 and response.json()["error"]["code"] == "too_large"


def test_415_not_an_image(fake_app):
    with TestClient(fake_app) as client:
        wrong_type = client.post("/v1/detect", files={"image": ("a.txt", b"hello", "text/plain")})
        assert wrong_type.status_code == 415
        garbage = client.post("/v1/detect", files={"image": ("a.jpg", b"\xff\xd8\xffgarbage", "image/jpeg")})
        assert garbage.status_code == 415 and set(garbage.json()["error"]) == {"code", "message", "details"}


def test_422_unscorable_hand_echoes_detections(fake_app):
    with TestClient(fake_app) as client:
        response = client.post("/v1/score/hand", json=hand("123m 456m 789p 234s 55p 67s", "9s"))
        assert response.status_code == 422 and response.json()["error"]["code"] == "not_winning"


def test_503_model_not_loaded(settings, jpeg_bytes):
    def broken(_settings):
        raise FileNotFoundError("model file not found: nowhere.onnx")

    with TestClient(create_app(settings, detector_factory=broken)) as client:
        assert client.get("/readyz").status_code == 503
        response = client.post("/v1/detect", files={"image": ("x.jpg", jpeg_bytes, "image/jpeg")})
        assert response.status_code == 503 and response.json()["error"]["code"] == "model_not_loaded"
        assert client.get("/v1/rules").status_code == 200  # scoring still works without a model


def test_500_has_a_request_id_and_no_traceback(settings, jpeg_bytes):
    class Exploding(FakeDetector):
        def detect(self, *args, **kwargs):
            raise RuntimeError("secret internal detail")

    with TestClient(create_app(settings, detector_factory=lambda s: Exploding()), raise_server_exceptions=False) as client:
        response = client.post("/v1/detect", files={"image": ("x.jpg", jpeg_bytes, "image/jpeg")})
        assert response.status_code == 500
        error = response.json()["error"]
        assert error["code"] == "internal_error" and error["details"]["request_id"]
        assert "secret" not in response.text and "Traceback" not in response.text


def test_401_lan_mode_needs_the_token(settings):
    settings.token = "s3cret"
    with TestClient(create_app(settings, detector_factory=lambda s: None)) as client:
        assert client.get("/v1/rules").status_code == 401
        assert client.get("/v1/rules?token=s3cret").status_code == 200
        assert client.get("/v1/rules", headers={"authorization": "Bearer s3cret"}).status_code == 200


def test_ledger_over_http(fake_app):
    with TestClient(fake_app) as client:
        table = client.post("/v1/tables", json={"name": "t", "players": ["A", "B", "C", "D"], "base": 30, "per_tai": 10}).json()
        after = client.post(f"/v1/tables/{table['id']}/hands", json={"winner": "S", "self_drawn": True, "tai": 3}).json()
        assert [p["balance"] for p in after["players"]] == [-70, 190, -60, -60]
        stale = client.post(f"/v1/tables/{table['id']}/draws", json={"expected_seq": 1})
        assert stale.status_code == 409 and stale.json()["error"]["code"] == "conflict"
        assert client.get("/v1/tables/999").status_code == 404


@pytest.mark.skipif(not REAL_VAL.exists(), reason="real-hk-v4 is read from ../shared or TAICAM_REAL_HK")
def test_real_model_detects_tiles_in_a_real_photo(settings):
    photo = sorted((REAL_VAL / "images" / "val").glob("*.jpg"))[0]
    with TestClient(create_app(settings)) as client:
        response = client.post("/v1/score", files={"image": (photo.name, photo.read_bytes(), "image/jpeg")})
        body = response.json() if response.status_code == 200 else response.json()["error"]["details"]
        assert len(body["detections"]) >= 5 and body["hand"]["concealed"]


def test_readiness_names_each_bundled_model_by_its_contents(settings, monkeypatch):
    from service.settings import Settings

    with TestClient(create_app(settings)) as client:
        ready = client.get("/readyz").json()
    files = {"model": "tiles", "classifier": "tile-classifier", "flower_reader": "flower-reader"}
    for key, name in files.items():
        assert ready[key].startswith(f"taicam-{name}.onnx@sha256:") and len(ready[key].split(":")[1]) == 12
    monkeypatch.setenv("TAICAM_FLOWER_READER_PATH", "")  # the flower reader alone turned off
    without_reader = Settings(data_dir=settings.data_dir, allowed_hosts=["testserver"])
    with TestClient(create_app(without_reader)) as client:
        ready = client.get("/readyz").json()
    assert ready["classifier"].startswith("taicam-tile-classifier.onnx@") and ready["flower_reader"] is None


def test_live_websocket_reports_a_stable_hand_once(fake_app, jpeg_bytes):
    with TestClient(fake_app) as client, client.websocket_connect("/v1/live?stable=3&seat_wind=E") as socket:
        messages = []
        for _ in range(5):
            socket.send_bytes(jpeg_bytes)
            messages.append(socket.receive_json())
        assert all(len(m["detections"]) == 17 for m in messages)
        stable = [m["stable"] for m in messages if m["stable"]]
        assert len(stable) == 1 and stable[0]["score"]["total"] == 3
        socket.send_bytes(b"not a jpeg")
        assert socket.receive_json()["error"]["code"] == "not_an_image"


def test_score_hand_errors_keep_their_details_as_waits_does(fake_app):
    with TestClient(fake_app) as client:
        error = client.post("/v1/score/hand", json=hand("123m 456m 789p 234s 55p 67s", "9s")).json()["error"]
        assert error["code"] == "not_winning" and error["details"]["waits"] == ["5s", "8s"]


def test_a_broken_house_preset_is_the_bad_preset_code_not_a_bad_winning_tile(fake_app, jpeg_bytes, tmp_path, monkeypatch):
    from scoring.rules import load_presets

    broken = {"name": "house", "unit": "台", "patterns": [{"id": "w", "name": "W", "check": "wait", "tai": 1, "params": {}}]}
    (tmp_path / "house.json").write_text(json.dumps(broken), encoding="utf-8")
    monkeypatch.setenv("TAICAM_PRESETS", str(tmp_path))
    load_presets.cache_clear()
    try:
        with TestClient(fake_app) as client:
            response = client.post(
                "/v1/score", files={"image": ("hand.jpg", jpeg_bytes, "image/jpeg")}, data={"annotate": "false"}
            )
        assert response.status_code == 500 and response.json()["error"]["code"] == "bad_preset"
        assert "missing param 'shapes'" in response.json()["error"]["message"]
    finally:
        load_presets.cache_clear()
