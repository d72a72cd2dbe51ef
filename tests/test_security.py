"""Issue #19: no script injection, no unauthenticated LAN access, no memory blow-ups, no 500s.

Most checks go through the TestClient (its requests say "Host: testserver", allowed here by
settings). The WebSocket handshake, the upload limits and the decompression bomb go through a
real uvicorn server on loopback, because the TestClient hides exactly what they are about.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import queue
import socket
import struct
import subprocess
import sys
import threading
import time
import tomllib
import urllib.error
import urllib.request
import zlib
from collections.abc import Iterator
from pathlib import Path

import cv2
import hypothesis
import numpy as np
import pytest
import uvicorn
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from taicam_datasets.labels import LabelError, LabelStore

from service import security
from service.app import create_app
from service.ledger import Ledger
from service.routes.scoring import MAX_HANDS_PER_REQUEST
from service.settings import Settings, bind
from tests.fakes import FakeDetector
from tests.scoring_helpers import hand
from vision.image_guard import ImageDecoder, ImageRefused

ROOT = Path(__file__).resolve().parents[1]
CSRF = {"x-taicam-csrf": "1"}
XSS = '<img src=x onerror="window.__xss = (window.__xss || 0) + 1">'


def bomb_png(width: int = 20_000, height: int = 20_000) -> bytes:
    """A valid 1-bit PNG of width × height black pixels: a few hundred kB that decode to gigabytes."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    row = b"\x00" * (1 + (width + 7) // 8)  # filter byte + packed bits
    packer = zlib.compressobj(9)
    idat = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def jpeg(width: int = 800, height: int = 240, seed: int = 1) -> bytes:
    image = np.random.default_rng(seed).integers(0, 255, (height, width, 3), dtype=np.uint8)
    return cv2.imencode(".jpg", image)[1].tobytes()


@pytest.fixture
def client(tmp_path) -> Iterator[TestClient]:
    settings = Settings(
        data_dir=tmp_path / "data", label_dir=tmp_path / "labels", max_upload_mb=2, allowed_hosts=["testserver"]
    )
    with TestClient(create_app(settings, detector_factory=lambda s: FakeDetector())) as test_client:
        yield test_client


def new_table(client: TestClient, name: str = "Friday", **extra) -> dict:
    body = {"name": name, "players": ["A", "B", "C", "D"], "base": 30, "per_tai": 10, **extra}
    response = client.post("/v1/tables", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def assert_envelope(response, status: int, code: str | None = None) -> None:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert set(error) == {"code", "message", "details"}
    if code:
        assert error["code"] == code


# --- 1. headers that stop injected script from running or framing ---------------------------
def test_pages_and_api_carry_csp_nosniff_and_frame_deny(client):
    for path in ("/ledger", "/snap", "/label", "/docs", "/v1/tables", "/static/common.js"):
        headers = client.get(path).headers
        policy = headers["content-security-policy"]
        assert "script-src 'self'" in policy and "unsafe-inline" not in policy.split("script-src")[1].split(";")[0]
        assert "frame-ancestors 'none'" in policy
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["x-frame-options"] == "DENY"


def test_static_pages_have_no_inline_script():
    for page in (ROOT / "service" / "static").glob("*.html"):
        text = page.read_text()
        assert "<script>" not in text and " on" + "error=" not in text, page.name
    for script in (ROOT / "service" / "static").glob("*.js"):
        assert 'onerror="' not in script.read_text(), script.name  # inline handlers are inline script


# --- 2. taicam label --host -------------------------------------------------------------------
def test_bind_beyond_loopback_requires_a_token_and_names_the_hosts():
    settings = Settings(label_dir=Path("/nonexistent"))
    assert bind(settings, "0.0.0.0", None, ["taicam.home"], "192.168.1.5") is True
    assert settings.token and len(settings.token) >= 16
    assert {"192.168.1.5", "taicam.home"} <= set(settings.allowed_hosts)
    local = Settings()
    assert bind(local, "127.0.0.1", None, [], "192.168.1.5") is False
    assert local.token is None and "192.168.1.5" not in local.allowed_hosts


def test_labeling_tool_mounts_no_ledger_and_no_scoring(tmp_path):
    settings = Settings(
        data_dir=tmp_path / "data", label_dir=tmp_path / "labels", labeling_only=True, allowed_hosts=["testserver"]
    )
    with TestClient(create_app(settings, detector_factory=lambda s: FakeDetector())) as labeling:
        assert labeling.get("/v1/label/images").status_code == 200
        assert labeling.get("/label").status_code == 200
        for path in ("/v1/tables", "/v1/rules", "/ledger"):
            assert labeling.get(path).status_code == 404, path
        assert labeling.post("/v1/tables", json={"name": "x"}).status_code == 404
        paths = labeling.get("/openapi.json").json()["paths"]
        assert paths and all(p.startswith("/v1/label") or p in ("/healthz", "/readyz") for p in paths)
    assert not (tmp_path / "data" / "taicam.db").exists()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


SERVER_START_S = 20  # a server process's import and model load, on a busy machine


def wait_until_answering(url: str) -> None:
    """Poll ``url`` until the server behind it answers, for up to ``SERVER_START_S``."""
    deadline = time.monotonic() + SERVER_START_S
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            urllib.request.urlopen(url, timeout=2)
            return
        time.sleep(0.1)


def test_taicam_label_on_all_interfaces_refuses_requests_without_the_token(tmp_path):
    port = free_port()
    command = [sys.executable, "-m", "taicam.cli", "label", "--data", str(tmp_path / "labels"), "--host", "0.0.0.0"]
    process = subprocess.Popen(
        [*command, "--port", str(port), "--model", "none.onnx"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in process.stdout], daemon=True).start()
    try:
        line = ""
        while "token=" not in line:  # the link with the token is printed before serving starts
            try:
                line = lines.get(timeout=60)
            except queue.Empty:
                pytest.fail(f"taicam label printed no link with a token; last line: {line!r}")
        token = line.split("token=")[1].split()[0]
        base = f"http://127.0.0.1:{port}"
        wait_until_answering(f"{base}/healthz?token={token}")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{base}/v1/label/images", timeout=5)
        assert refused.value.code == 401
        with urllib.request.urlopen(f"{base}/v1/label/images?token={token}", timeout=5) as answer:
            assert json.load(answer) == []
        with pytest.raises(urllib.error.HTTPError) as no_ledger:
            urllib.request.urlopen(f"{base}/v1/tables?token={token}", timeout=5)
        assert no_ledger.value.code == 404
    finally:
        process.terminate()
        process.wait(timeout=10)


# --- 3. Host, Origin, CSRF ----------------------------------------------------------------------
def test_a_foreign_host_is_refused(client):
    assert_envelope(client.get("/v1/tables", headers={"host": "attacker.example"}), 400, "bad_host")
    assert_envelope(client.get("/ledger", headers={"host": "attacker.example:8000"}), 400, "bad_host")
    assert client.get("/v1/tables").status_code == 200
    with pytest.raises(WebSocketDisconnect), client.websocket_connect("/v1/live", headers={"host": "attacker.example"}):
        pass


def test_loopback_names_are_allowed_without_settings(tmp_path):
    app = create_app(Settings(data_dir=tmp_path / "data"), detector_factory=lambda s: FakeDetector())
    with TestClient(app, base_url="http://127.0.0.1:8000") as local:
        assert local.get("/healthz").status_code == 200
        assert local.get("/healthz", headers={"host": "localhost:8000"}).status_code == 200
        assert local.get("/healthz", headers={"host": "[::1]:8000"}).status_code == 200
        assert local.get("/healthz", headers={"host": "testserver"}).status_code == 400


def test_a_cross_origin_write_is_refused(client):
    body = {"name": "t", "players": ["A", "B", "C", "D"], "base": 30, "per_tai": 10}
    for origin in ("http://attacker.example", "null", "http://testserver:9999"):
        assert_envelope(client.post("/v1/tables", json=body, headers={"origin": origin}), 403, "bad_origin")
    assert client.post("/v1/tables", json=body, headers={"origin": "http://testserver"}).status_code == 201
    assert_envelope(client.post("/v1/score/hand", json={}, headers={"origin": "http://attacker.example"}), 403, "bad_origin")
    with (
        pytest.raises(WebSocketDisconnect),
        client.websocket_connect("/v1/live", headers={"origin": "http://attacker.example"}),
    ):
        pass


def test_no_state_change_without_a_json_body_or_the_csrf_header(client):
    table = new_table(client)
    assert_envelope(client.post(f"/v1/tables/{table['id']}/seats"), 403, "csrf")
    assert client.post(f"/v1/tables/{table['id']}/seats", headers=CSRF).status_code == 201
    files = [("files", ("a.jpg", jpeg(), "image/jpeg"))]
    assert_envelope(client.post("/v1/label/upload", files=files), 403, "csrf")
    assert client.post("/v1/label/upload", files=files, headers=CSRF).status_code == 201
    assert_envelope(client.post("/v1/label/prelabel"), 403, "csrf")
    text = json.dumps({"name": "t", "players": ["A", "B", "C", "D"], "base": 1, "per_tai": 1})
    assert_envelope(client.post("/v1/tables", content=text, headers={"content-type": "text/plain"}), 403, "csrf")
    assert_envelope(client.post("/v1/tables", content=text), 403, "csrf")  # a typeless Blob sends no content-type
    assert client.get("/v1/tables/1").json()["hands_played"] == 0


# --- 9. tokens ------------------------------------------------------------------------------------
def test_any_offered_token_is_compared_as_bytes_and_answered_401(tmp_path):
    settings = Settings(data_dir=tmp_path / "data", token="s3cret", allowed_hosts=["testserver"])
    with TestClient(create_app(settings, detector_factory=lambda s: None)) as lan:
        for token in ("ü", "s3cre\u0000", "s3cret" * 100):
            assert_envelope(lan.get("/v1/rules", params={"token": token}), 401, "unauthorized")
        assert_envelope(lan.get("/v1/rules?token=%ED%A0%80"), 401)  # not even UTF-8
        assert_envelope(lan.get("/v1/rules", headers={"authorization": "Bearer s3crét".encode()}), 401)
        assert lan.get("/v1/rules", params={"token": "s3cret"}).status_code == 200
        with pytest.raises(WebSocketDisconnect), lan.websocket_connect("/v1/live?token=%C3%BC"):
            pass
        with lan.websocket_connect("/v1/live?token=s3cret") as socket_:
            assert socket_.receive_json()["error"]["code"] == "model_not_loaded"


def test_the_token_cookie_is_secure_under_https(tmp_path):
    settings = Settings(data_dir=tmp_path / "data", token="s3cret", allowed_hosts=["testserver"])
    app = create_app(settings, detector_factory=lambda s: None)
    with TestClient(app, base_url="https://testserver") as secure:
        cookie = secure.get("/snap?token=s3cret").headers["set-cookie"]
        assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    with TestClient(app) as plain:
        assert "Secure" not in plain.get("/snap?token=s3cret").headers["set-cookie"]


# --- 4. decompression bombs ------------------------------------------------------------------------
def test_the_pixel_cap_is_read_from_the_header_before_decoding():
    bomb = bomb_png()
    assert len(bomb) < 400_000
    decoder = ImageDecoder(max_pixels=40_000_000)
    with pytest.raises(ImageRefused) as refused:
        decoder.check(bomb)
    assert refused.value.code == "too_large" and "too large" in str(refused.value)
    with pytest.raises(ImageRefused, match="6000×7000"):  # below Pillow's own bomb check: our cap, from the header
        decoder.check(bomb_png(6000, 7000))
    assert decoder.decode(jpeg()).shape == (240, 800, 3)


def test_a_jpeg_over_the_pixel_cap_is_decoded_at_a_fraction_of_its_side_and_a_png_is_refused():
    from vision.frames import FrameError, decode_image

    decoder = ImageDecoder(max_pixels=1_000_000)
    big = jpeg(2000, 1000)  # 2 MP: a half of its side fits the cap
    assert decoder.check(big) == 2 and decoder.decode(big).shape == (500, 1000, 3)
    assert decode_image(big, max_pixels=1_000_000).shape == (500, 1000, 3)  # the CLI's path
    assert ImageDecoder(max_pixels=40_000).decode(big).shape == (125, 250, 3)  # an eighth
    with pytest.raises(ImageRefused, match="2000×1000"):
        ImageDecoder(max_pixels=30_000).check(big)  # not even an eighth fits
    png = cv2.imencode(".png", np.zeros((1000, 2000, 3), np.uint8))[1].tobytes()
    with pytest.raises(ImageRefused, match="2000×1000"):
        decoder.check(png)  # other formats decode whole: refused before decoding
    with pytest.raises(FrameError, match="too large"):
        decode_image(png, max_pixels=1_000_000)


def test_the_cli_sizes_a_large_jpeg_from_its_header_and_decodes_it_once(monkeypatch, tmp_path):
    from vision import frames

    decodes = []
    imdecode = cv2.imdecode
    monkeypatch.setattr(frames.cv2, "imdecode", lambda buffer, flags: decodes.append(flags) or imdecode(buffer, flags))
    path = tmp_path / "phone.jpg"
    path.write_bytes(jpeg(2000, 1000))
    assert frames.decode_image(path.read_bytes(), max_pixels=1_000_000).shape == (500, 1000, 3)
    assert decodes == [cv2.IMREAD_REDUCED_COLOR_2]  # never the 2 MP whole first
    with pytest.raises(frames.FrameError, match="2000×1000"):
        frames.decode_image(path.read_bytes(), max_pixels=30_000)  # not even an eighth fits: refused unread
    assert len(decodes) == 1
    broken = b"\xff\xd8\xff\xe0 truncated jpeg"
    with pytest.raises(frames.FrameError, match="not a decodable image"):
        frames.decode_image(broken)  # a header Pillow cannot size still gets the decoder's verdict


def test_decodes_run_at_most_the_configured_number_at_once(monkeypatch):
    from vision import image_guard

    running, peak, lock = [0], [0], threading.Lock()

    def slow_decode(data, max_pixels, reduce_by):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        return np.zeros((2, 2, 3), np.uint8)

    monkeypatch.setattr(image_guard, "decode_image", slow_decode)
    decoder = ImageDecoder(max_concurrent=2)
    threads = [threading.Thread(target=decoder.decode, args=(jpeg(),)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert peak[0] == 2


def test_every_decoding_path_refuses_the_bomb(client, tmp_path):
    bomb = bomb_png()
    files = {"image": ("bomb.png", bomb, "image/png")}
    assert_envelope(client.post("/v1/score", files=files), 413, "too_large")
    assert_envelope(client.post("/v1/detect", files=files), 413, "too_large")
    upload = client.post("/v1/label/upload", files=[("files", ("bomb.png", bomb, "image/png"))], headers=CSRF)
    assert_envelope(upload, 413, "too_large")
    assert client.get("/v1/label/images").json() == []
    inbox = tmp_path / "labels" / "inbox" / "drop"
    inbox.mkdir(parents=True)
    (inbox / "bomb.png").write_bytes(bomb)
    assert client.post("/v1/label/import", json={"name": "drop"}).json() == {"added": 0, "skipped": 1}
    yolo = tmp_path / "labels" / "inbox" / "yolo"
    (yolo / "images").mkdir(parents=True)
    (yolo / "images" / "bomb.png").write_bytes(bomb)
    assert client.post("/v1/label/import", json={"name": "yolo"}).json() == {"added": 0, "skipped": 1}
    with client.websocket_connect("/v1/live") as live:
        live.send_bytes(bomb)
        assert live.receive_json()["error"]["code"] == "too_large"


SERVER = """
import sys, uvicorn
from service.app import create_app
from service.settings import Settings
from tests.fakes import FakeDetector
settings = Settings(data_dir=sys.argv[2], label_dir=sys.argv[3])
uvicorn.run(create_app(settings, detector_factory=lambda s: FakeDetector()), host="127.0.0.1", port=int(sys.argv[1]),
            log_level="warning")
"""


def peak_rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("VmHWM:")).split()[1]) / 1024


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads peak RSS from /proc")
def test_three_bombs_at_once_raise_the_server_peak_rss_by_less_than_100_mb(tmp_path):
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(port), str(tmp_path / "data"), str(tmp_path / "labels")], cwd=ROOT
    )
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until_answering(f"{base}/healthz")
        # Warm up every path with a small image, so the baseline holds what normal use allocates.
        for path in ("/v1/score", "/v1/detect"):
            post_multipart(base + path, "image", "ok.jpg", jpeg())
        post_multipart(base + "/v1/label/upload", "files", "ok.jpg", jpeg(seed=2))
        before = peak_rss_mb(process.pid)
        bomb = bomb_png()
        statuses = []

        def send(path: str, field: str) -> None:
            statuses.append(post_multipart(base + path, field, "bomb.png", bomb)[0])

        threads = [
            threading.Thread(target=send, args=args)
            for args in (("/v1/score", "image"), ("/v1/detect", "image"), ("/v1/label/upload", "files"))
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        rise = peak_rss_mb(process.pid) - before
        assert rise < 100, f"peak RSS rose {rise:.0f} MB"
        assert statuses == [413, 413, 413], statuses
    finally:
        process.terminate()
        process.wait(timeout=10)


def post_multipart(url: str, field: str, filename: str, data: bytes) -> tuple[int, dict]:
    boundary = "taicamboundary"
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"; filename="{filename}"\r\n'
            f"Content-Type: image/png\r\n\r\n"
        ).encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    request = urllib.request.Request(
        url, body, {"content-type": f"multipart/form-data; boundary={boundary}", **CSRF}, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


# --- 5 and 6. a real server: the WebSocket and the upload limits -------------------------------------
@contextlib.contextmanager
def serving(settings: Settings) -> Iterator[str]:
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(settings, detector_factory=lambda s: FakeDetector()), host="127.0.0.1", port=port, log_level="warning"
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 30
    while not server.started and time.time() < deadline:
        time.sleep(0.05)
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def real_server(tmp_path_factory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("real")
    with serving(Settings(data_dir=root / "data", label_dir=root / "labels", max_upload_mb=2)) as address:
        yield address


def test_a_stock_install_can_serve_websockets():
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert any(d.startswith(("uvicorn[standard]", "websockets")) for d in dependencies)
    import websockets  # the protocol library uvicorn needs for /v1/live

    assert websockets


def test_live_websocket_handshake_and_a_scored_hand_over_a_real_server(real_server):
    from websockets.sync.client import connect

    with connect(f"ws://{real_server}/v1/live?stable=2") as live:
        messages = []
        for _ in range(3):
            live.send(jpeg())
            messages.append(json.loads(live.recv(timeout=30)))
        stable = [m["stable"] for m in messages if m.get("stable")]
        assert len(stable) == 1 and stable[0]["score"]["total"] > 0
        live.send("a text frame")
        assert json.loads(live.recv(timeout=30))["error"]["code"] == "binary_only"
        live.send(jpeg())  # the connection survives a bad frame
        assert len(json.loads(live.recv(timeout=30))["detections"]) == 17


def test_live_query_with_odd_digits_does_not_break_the_socket(client):
    with client.websocket_connect("/v1/live?stable=%C2%B2") as live:  # '²'.isdigit(): the default stands
        live.send_bytes(jpeg())
        assert len(live.receive_json()["detections"]) == 17
    with client.websocket_connect("/v1/live?dealer_streak=%C2%B2") as live:  # a context field is validated
        refused = live.receive_json()["error"]
        assert refused["code"] == "invalid_request" and refused["details"]["problems"][0]["field"] == "dealer_streak"


def test_over_limit_content_length_is_answered_413_to_urllib(real_server):
    request = urllib.request.Request(
        f"http://{real_server}/v1/score/hand",
        b"[" + b" " * (5 * 1024 * 1024) + b"]",
        {"content-type": "application/json"},
        method="POST",
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=60)
    assert refused.value.code == 413
    assert json.load(refused.value)["error"]["code"] == "too_large"


def test_a_chunked_body_is_counted_as_it_arrives_and_stopped_at_the_limit(real_server):
    sent = [0]

    def chunks() -> Iterator[bytes]:
        yield b"["
        for _ in range(40):  # 40 MB, twenty times the limit
            sent[0] += 1024 * 1024
            yield b" " * (1024 * 1024)
        yield b"]"

    host, port = real_server.split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=60)
    connection.request(
        "POST", "/v1/score/hand", body=chunks(), headers={"content-type": "application/json"}, encode_chunked=True
    )
    response = connection.getresponse()
    assert response.status == 413
    assert json.loads(response.read())["error"]["code"] == "too_large"
    connection.close()
    # The same for a chunked multipart upload to the labeling tool.
    connection = http.client.HTTPConnection(host, int(port), timeout=60)

    def multipart() -> Iterator[bytes]:
        yield b'--b\r\nContent-Disposition: form-data; name="files"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n'
        for _ in range(10):
            yield b"\xff" * (1024 * 1024)
        yield b"\r\n--b--\r\n"

    headers = {"content-type": "multipart/form-data; boundary=b", **CSRF}
    connection.request("POST", "/v1/label/upload", body=multipart(), headers=headers, encode_chunked=True)
    response = connection.getresponse()
    assert response.status == 413 and json.loads(response.read())["error"]["code"] == "too_large"
    connection.close()


def test_a_stalled_body_gets_408(real_server, monkeypatch):
    monkeypatch.setattr(security, "BODY_CHUNK_TIMEOUT_S", 0.5)
    host, port = real_server.split(":")
    with socket.create_connection((host, int(port)), timeout=10) as raw:
        raw.sendall(
            b"POST /v1/score/hand HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100\r\n\r\n[1,"
        )
        answer = raw.recv(4096)
    assert answer.startswith(b"HTTP/1.1 408"), answer[:80]


# --- 8. hands per request --------------------------------------------------------------------------
def test_hands_per_request_are_capped(client):
    one = hand("123m 456m 789p 234s 55p 67s", "8s")
    assert client.post("/v1/score/hand", json=[one] * MAX_HANDS_PER_REQUEST).status_code == 200
    assert_envelope(client.post("/v1/score/hand", json=[one] * (MAX_HANDS_PER_REQUEST + 1)), 422, "too_many_hands")


# --- Low: malformed input is a 4xx with the envelope ---------------------------------------------------
@pytest.mark.parametrize(
    "body",
    [
        b"[" * 100_000 + b"]" * 100_000,
        b"[" * 40 + b"]" * 40,
        b'{"concealed": [' + b"9" * 5000 + b"]}",
        b'{"concealed": [NaN]}',
        b'{"concealed": [Infinity]}',
        b'{"concealed": [-Infinity]}',
        b'{"concealed": [1e400]}',
    ],
)
def test_deep_huge_or_non_finite_json_is_422(client, body):
    for path in ("/v1/score/hand", "/v1/waits"):
        response = client.post(path, content=body, headers={"content-type": "application/json"})
        assert_envelope(response, 422)


def test_a_1e308_settlement_is_refused_not_overflowed(client):
    data = {**hand("123m 456m 789p 234s 55p 67s", "8s"), "self_drawn": True, "settlement": {"base": 1e308, "per_tai": 1e308}}
    assert_envelope(client.post("/v1/score/hand", json=data), 422, "bad_json")


@pytest.mark.parametrize(
    "body",
    [
        {"concealed": ["1m"] * 16, "melds": 5},
        {"concealed": ["1m"] * 13, "melds": [{"kind": "pung", "tiles": 5}]},
        {"concealed": [f"{n}{s}" for n in range(1, 10) for s in "mps" for _ in range(4)] + [f"{n}z" for n in range(1, 8)] * 4},
    ],
)
def test_malformed_waits_bodies_are_422(client, body):
    assert_envelope(client.post("/v1/waits", json=body), 422)


@pytest.mark.parametrize(
    "fields",
    [
        {"winning_tile": "²"},
        {"winning_tile": "9" * 5000},
        {"corrections": "[1]"},
        {"conf": "0"},
        {"conf": "-1"},
        {"conf": "nan"},
        {"conf": "2"},
        {"settlement": "NaN"},
        {"settlement": "[" * 5000},
    ],
)
def test_malformed_score_fields_are_422(client, fields):
    response = client.post("/v1/score", files={"image": ("h.jpg", jpeg(), "image/jpeg")}, data=fields)
    assert_envelope(response, 422)


def test_detect_conf_is_checked(client):
    for conf in ("0", "-1", "nan"):
        response = client.post("/v1/detect", files={"image": ("h.jpg", jpeg(), "image/jpeg")}, data={"conf": conf})
        assert_envelope(response, 422)


def test_ids_beyond_sqlite_are_422_not_500(client):
    for path in ("/v1/tables/99999999999999999999999", "/v1/label/images/99999999999999999999999"):
        assert_envelope(client.get(path), 422)
    assert_envelope(client.post("/v1/tables/99999999999999999999999/draws", json={}), 422)
    assert_envelope(client.get("/v1/tables/9223372036854775807"), 404)


@pytest.mark.parametrize(
    "box",
    [b'{"code": "1m", "box": [1, 1, 10, 10], "confidence": "x"}', b'{"code": "1m", "box": [NaN, 1, 10, 10]}',
     b'{"code": "1m", "box": [1, 1, 10, 10], "confidence": Infinity}', b'{"code": "1m", "box": [1, 1, 1e400, 10]}'],
)  # fmt: skip
def test_odd_label_boxes_are_422(client, box):
    client.post("/v1/label/upload", files=[("files", ("a.jpg", jpeg(), "image/jpeg"))], headers=CSRF)
    body = b'{"boxes": [' + box + b'], "version": 1}'
    response = client.put("/v1/label/images/1", content=body, headers={"content-type": "application/json"})
    assert_envelope(response, 422, "bad_box")
    assert client.get("/v1/label/images/1").json()["version"] == 1


def test_nul_bytes_in_folder_names_are_422(client):
    for path in ("/v1/label/import", "/v1/label/export"):
        assert_envelope(client.post(path, json={"name": "a\u0000b"}), 422, "bad_path")


def test_export_answers_paths_inside_the_data_folder(client):
    client.post("/v1/label/upload", files=[("files", ("a.jpg", jpeg(), "image/jpeg"))], headers=CSRF)
    result = client.post("/v1/label/export", json={"name": "out"}).json()
    assert result["out"] == "exports/out" and result["data_yaml"] == "exports/out/data.yaml"
    assert result["train"] + result["val"] == 1


def yolo_folder(root: Path, label_text: str) -> Path:
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    for i in range(3):
        (root / "images" / f"a{i}.jpg").write_bytes(jpeg(seed=10 + i))
        (root / "labels" / f"a{i}.txt").write_text("0 0.5 0.5 0.1 0.1\n")
    (root / "labels" / "a2.txt").write_text(label_text)
    return root


@pytest.mark.parametrize("line", ["0 0.5 0.5 0.1\n", "99 0.5 0.5 0.1 0.1\n", "0 nan 0.5 0.1 0.1\n", "x 1 1 1 1\n"])
def test_a_bad_yolo_line_refuses_the_import_before_anything_is_added(tmp_path, line):
    store = LabelStore(tmp_path / "store")
    with pytest.raises(LabelError) as refused:
        store.import_folder(yolo_folder(tmp_path / "yolo", line))
    assert refused.value.code == "bad_labels"
    assert store.queue() == []


def test_a_class_beyond_classes_txt_refuses_the_import(tmp_path):
    folder = yolo_folder(tmp_path / "yolo", "5 0.5 0.5 0.1 0.1\n")
    (folder / "classes.txt").write_text("1m\n2m\n")
    store = LabelStore(tmp_path / "store")
    with pytest.raises(LabelError):
        store.import_folder(folder)
    assert store.queue() == []


def test_import_skips_symbolic_links_inside_the_data_folder(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.jpg").write_bytes(jpeg(seed=30))
    store = LabelStore(tmp_path / "store")
    inbox = store.root / "inbox" / "drop"
    inbox.mkdir()
    (inbox / "own.jpg").write_bytes(jpeg(seed=31))
    (inbox / "link.jpg").symlink_to(outside / "secret.jpg")
    assert store.import_folder(inbox) == {"added": 1, "skipped": 1}
    yolo = yolo_folder(store.root / "inbox" / "yolo", "0 0.5 0.5 0.1 0.1\n")
    (yolo / "classes.txt").symlink_to(outside / "secret.jpg")
    with pytest.raises(LabelError):
        store.import_folder(yolo)


def test_export_never_writes_through_a_planted_link(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    store = LabelStore(tmp_path / "store")
    store.add_image(jpeg(seed=40), "a.jpg")
    out = store.root / "exports" / "set"
    out.mkdir()
    for name in (".classes.txt.tmp", "data.yaml.tmp", ".data.yaml.tmp", "classes.txt"):
        (out / name).symlink_to(outside / name)
    store.export(out)
    assert list(outside.iterdir()) == []
    assert not (out / "classes.txt").is_symlink() and (out / "classes.txt").read_text().startswith("1m")
    (out / "labels").rename(out / "labels-old")
    (out / "labels").symlink_to(outside, target_is_directory=True)
    with pytest.raises(LabelError):
        store.export(out)
    assert list(outside.iterdir()) == []


# --- Low: the ledger ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "extra",
    [{"base": 1e308}, {"per_tai": 1e308}, {"base": 1e10}],
)
def test_absurd_table_amounts_are_refused(client, extra):
    body = {"name": "t", "players": ["A", "B", "C", "D"], "base": 30, "per_tai": 10, **extra}
    assert_envelope(client.post("/v1/tables", json=body), 422)


def test_non_finite_table_amounts_are_refused(client):
    body = b'{"name": "t", "players": ["A", "B", "C", "D"], "base": Infinity, "per_tai": NaN}'
    assert_envelope(client.post("/v1/tables", content=body, headers={"content-type": "application/json"}), 422)
    ledger = Ledger(client.app.state.settings.db_path)
    with pytest.raises(ValueError):
        ledger.create_table("t", ["A", "B", "C", "D"], float("inf"), 1)


@pytest.mark.parametrize("tai", [10**20, 10**400])
def test_absurd_tai_is_refused(client, tai):
    table = new_table(client)
    body = f'{{"winner": "S", "self_drawn": true, "tai": {tai}}}'.encode()
    response = client.post(f"/v1/tables/{table['id']}/hands", content=body, headers={"content-type": "application/json"})
    assert_envelope(response, 422)


def test_patterns_are_limited(client):
    table = new_table(client)
    many = [{"name": "x", "tai": 1}] * 65
    big = [{"name": "x" * 20_000, "tai": 1}]
    for patterns in (many, big):
        body = {"winner": "S", "self_drawn": True, "tai": 1, "patterns": patterns}
        assert_envelope(client.post(f"/v1/tables/{table['id']}/hands", json=body), 422)


def test_history_is_paginated(client):
    table = new_table(client)
    for _ in range(60):
        state = client.post(f"/v1/tables/{table['id']}/draws", json={}).json()
    assert len(state["history"]) == 50 and state["history"][-1]["seq"] == 60
    page = client.get(f"/v1/tables/{table['id']}").json()
    assert [h["seq"] for h in page["history"]] == list(range(11, 61)) and page["history_before"] == 11
    older = client.get(f"/v1/tables/{table['id']}", params={"before": 11}).json()
    assert [h["seq"] for h in older["history"]] == list(range(1, 11)) and older["history_before"] is None


def test_seats_honour_expected_seq(client):
    table = new_table(client)
    client.post(f"/v1/tables/{table['id']}/draws", json={})
    stale = client.post(f"/v1/tables/{table['id']}/seats", json={"expected_seq": 1})
    assert_envelope(stale, 409, "conflict")
    assert client.post(f"/v1/tables/{table['id']}/seats", json={"expected_seq": 2}).status_code == 201


def test_a_retried_hand_with_the_same_idempotency_key_is_recorded_once(client):
    table = new_table(client)
    body = {"winner": "S", "self_drawn": True, "tai": 3, "expected_seq": 1, "idempotency_key": "phone-7f3a"}
    first = client.post(f"/v1/tables/{table['id']}/hands", json=body)
    again = client.post(f"/v1/tables/{table['id']}/hands", json=body)  # the answer to the first was lost
    assert first.status_code == again.status_code == 201
    assert again.json()["hands_played"] == 1 and again.json()["replayed"] is True
    assert [p["balance"] for p in again.json()["players"]] == [p["balance"] for p in first.json()["players"]]


def test_a_write_costs_one_hand_not_the_whole_history(tmp_path, monkeypatch):
    from service import ledger as ledger_module

    ledger = Ledger(tmp_path / "db.sqlite")
    table = ledger.create_table("t", ["A", "B", "C", "D"], 30, 10)["id"]
    for _ in range(30):
        ledger.record_win(table, "S", 1, self_drawn=True)
    applied = []
    original = ledger_module.apply_hand
    monkeypatch.setattr(ledger_module, "apply_hand", lambda *a: applied.append(1) or original(*a))
    ledger.record_win(table, "W", 1, self_drawn=True)
    assert len(applied) == 1
    assert Ledger(tmp_path / "db.sqlite").table(table)["hands_played"] == 31


def test_the_ledger_file_is_private(tmp_path):
    Ledger(tmp_path / "new.db")
    assert (tmp_path / "new.db").stat().st_mode & 0o077 == 0


def test_server_camera_keeps_a_bounded_number_of_events():
    from service.camera import MAX_KEPT_EVENTS, ServerCamera

    camera = ServerCamera("0", FakeDetector())
    for i in range(MAX_KEPT_EVENTS * 3):
        camera._events.append({"n": i})
        camera._event_count += 1
    assert len(camera._events) == MAX_KEPT_EVENTS
    camera._stop.set()


# --- schemathesis: no 5xx anywhere in the OpenAPI ------------------------------------------------------
# Examples per operation and generation mode: 26 operations × 2 modes × at most 60 examples ran in
# 28.5 s on two shared cores (pytest -k no_operation tests/test_security.py).
FUZZ_EXAMPLES = 60


@pytest.mark.slow
def test_no_operation_answers_5xx(tmp_path):
    """Bounded, derandomized schemathesis over every operation of the OpenAPI, valid and invalid data."""
    # Inside the test: at module level a missing schemathesis skipped every test of this file.
    schemathesis = pytest.importorskip("schemathesis")
    settings = Settings(
        data_dir=tmp_path / "data", label_dir=tmp_path / "labels", max_upload_mb=1, allowed_hosts=["testserver"]
    )
    app = create_app(settings, detector_factory=lambda s: FakeDetector())
    failures: list[str] = []
    with TestClient(app):  # runs the lifespan: the ledger, label store and detector are in place
        schema = schemathesis.openapi.from_asgi("/openapi.json", app)
        operations = [result.ok() for result in schema.get_all_operations()]
        assert len(operations) > 20
        for operation in operations:
            for mode in (schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE):

                @hypothesis.settings(
                    max_examples=FUZZ_EXAMPLES,
                    derandomize=True,
                    deadline=None,
                    database=None,
                    suppress_health_check=list(hypothesis.HealthCheck),
                    phases=[hypothesis.Phase.explicit, hypothesis.Phase.generate],
                )
                @hypothesis.given(case=operation.as_strategy(generation_mode=mode))
                def call(case) -> None:
                    response = case.call(headers=CSRF)
                    if response.status_code >= 500:
                        failures.append(f"{case.method} {case.formatted_path}: {response.status_code} {response.text[:200]}")

                # An operation with no parameters has no invalid form: hypothesis says so, and that is fine.
                with contextlib.suppress(hypothesis.errors.Unsatisfiable):
                    call()
    assert not failures, "\n".join(failures[:10])


# --- 1 and 5 in a real browser: names render as text; the phone camera gets a scored hand ---------------
def _browser(extra_args: tuple[str, ...] = ()):
    from playwright.sync_api import sync_playwright

    from tests.test_browser import CHROMIUM, CHROMIUM_ARGS

    if CHROMIUM is None:
        pytest.skip("Debian chromium is not installed (make test installs it)")
    playwright = sync_playwright().start()
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, *extra_args])
    return playwright, browser


def _post_json(url: str, body: dict) -> dict:
    request = urllib.request.Request(url, json.dumps(body).encode(), {"content-type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)


def test_xss_names_render_as_text_in_chromium(real_server):
    base = f"http://{real_server}"
    table = _post_json(f"{base}/v1/tables", {"name": XSS, "players": [XSS, "B", "C", "D"], "base": 30, "per_tai": 10})
    _post_json(f"{base}/v1/tables/{table['id']}/hands", {"winner": "S", "self_drawn": True, "tai": 2})
    status, _ = post_multipart(f"{base}/v1/label/upload", "files", f"{XSS}.jpg", jpeg(seed=50))
    assert status == 201
    playwright, browser = _browser()
    try:
        page = browser.new_page()
        blocked: list[str] = []
        page.on("console", lambda message: blocked.append(message.text) if "Content Security Policy" in message.text else None)
        page.goto(f"{base}/ledger")
        page.wait_for_selector("#players tr")
        assert XSS in page.inner_text("#players") and XSS in page.eval_on_selector("#tables", "s => s.options[0].text")
        page.goto(f"{base}/snap")
        page.wait_for_function("() => document.querySelectorAll('#table option').length > 0")
        assert page.eval_on_selector("#table", "s => s.options[0].text") == XSS
        page.goto(f"{base}/label")
        page.wait_for_selector("#queue li")
        assert XSS in page.inner_text("#queue")
        page.wait_for_timeout(300)  # time for a broken image's error event, were the markup live
        assert page.evaluate("() => window.__xss") is None
        assert page.locator("#queue img, #players img, #tables img").count() == 0
        assert not blocked, blocked  # the pages work under the policy: nothing of theirs was blocked
    finally:
        browser.close()
        playwright.stop()


def test_live_page_scores_a_hand_from_the_phone_camera_over_a_real_websocket(real_server):
    playwright, browser = _browser(("--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"))
    try:
        context = browser.new_context()
        context.grant_permissions(["camera"])
        page = context.new_page()
        page.goto(f"http://{real_server}/live")
        page.click("#use-phone")
        page.wait_for_function("() => /^[0-9]+$/.test(document.getElementById('total').textContent)", timeout=60_000)
        assert int(page.inner_text("#total")) > 0
        assert page.locator("#tai li").count() >= 1
    finally:
        browser.close()
        playwright.stop()
