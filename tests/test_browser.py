"""Real browser (Debian chromium via Playwright) against a real server on loopback."""

from __future__ import annotations

import re
import shutil
import socket
import threading
import time
from pathlib import Path

import cv2
import pytest
import uvicorn
from taicam_datasets.scenes import render_scene

from scoring.tiles import TILE_CODES
from service.app import create_app
from service.settings import Settings
from tests.conftest import REAL_VAL

TILE_INDEX_OF = {code: i for i, code in enumerate(TILE_CODES)}
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="Debian chromium is not installed (make test installs it)"),
]
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


@pytest.fixture(scope="module")
def server_data_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("data")


@pytest.fixture(scope="module")
def server(server_data_dir):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = Settings(data_dir=server_data_dir)
    config = uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 30
    while not server.started and time.time() < deadline:
        time.sleep(0.1)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def playwright():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as running:
        yield running


@pytest.fixture(scope="module")
def page(playwright):
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    context = browser.new_context(viewport={"width": 420, "height": 900})
    yield context.new_page()
    browser.close()


def test_snap_correct_and_add_to_ledger(server, page, tmp_path):
    # A whole-table photo from the generator with one flower. Correcting that flower to the
    # seat-E flower (梅, 5f) adds 正花; correcting it away from 5f removes it.
    photo = tmp_path / "table.jpg"
    cv2.imwrite(str(photo), render_scene(3, framing="table").image)
    page.goto(f"{server}/ledger")
    page.fill("#name", "Browser table")
    page.click("#create")
    page.wait_for_selector("#players tr")
    page.goto(f"{server}/snap")
    page.set_input_files("#file", str(photo))
    page.wait_for_selector("#tai li", timeout=60_000)
    names_before = page.locator("#tai li span:first-child").all_inner_texts()
    assert page.locator(".box").count() >= 17
    page.screenshot(path=str(tmp_path / "snap.png"))
    had_seat_flower = "正花" in names_before
    page.locator(".box.flower").first.click()
    page.click(f'#palette button[data-code="{"7f" if had_seat_flower else "5f"}"]')
    page.wait_for_function(
        "had => Array.from(document.querySelectorAll('#tai li span:first-child')).some(s => s.textContent === '正花') !== had",
        arg=had_seat_flower,
    )
    total = int(page.inner_text("#total"))
    page.click("#add")
    page.wait_for_selector("#toast", state="visible")
    page.goto(f"{server}/ledger")
    page.wait_for_selector("#history tr")
    history = page.inner_text("#history")
    assert str(total) in history


@pytest.mark.skipif(not REAL_VAL.exists(), reason="real-hk-v4 is read from ../shared or TAICAM_REAL_HK")
def test_real_val_photo_gets_detections_in_the_browser(server, page):
    photo = sorted((REAL_VAL / "images" / "val").glob("*.jpg"))[0]
    page.goto(f"{server}/snap")
    page.set_input_files("#file", str(photo))
    page.wait_for_selector(".box", timeout=60_000)
    assert page.locator(".box").count() >= 5
    # Its tiles are not a winning hand (real-hk-v4 photographs tiles, not finished hands): the page says why.
    page.wait_for_function("() => document.getElementById('score-error').textContent.length > 0")


@pytest.fixture(scope="module")
def label_server(tmp_path_factory):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    root = tmp_path_factory.mktemp("labeling")
    settings = Settings(data_dir=root / "data", label_dir=root / "labels")
    server = uvicorn.Server(uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 30
    while not server.started and time.time() < deadline:
        time.sleep(0.1)
    yield f"http://127.0.0.1:{port}", root / "labels"
    server.should_exit = True
    thread.join(timeout=10)


def _wait_for(check, timeout: float = 10.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("condition not met in time")


def test_label_draw_code_undo_redo_check_export(label_server, page, tmp_path):
    import httpx

    base, label_root = label_server
    photos = []
    for seed in (21, 22):
        path = tmp_path / f"table{seed}_001.jpg"
        cv2.imwrite(str(path), cv2.resize(render_scene(seed).image, (640, 480)))
        photos.append(str(path))
    page.goto(f"{base}/label")
    page.set_input_files("#upload", photos)
    page.wait_for_function("() => document.querySelectorAll('#queue li').length === 2")
    page.wait_for_function("() => document.getElementById('status').textContent.includes('#')")
    image_id = int(page.inner_text("#status").split()[0].lstrip("#"))

    def boxes():
        return httpx.get(f"{base}/v1/label/images/{image_id}").json()["boxes"]

    before = len(boxes())
    box = page.locator("#canvas").bounding_box()
    page.mouse.move(box["x"] + 40, box["y"] + 40)
    page.mouse.down()
    page.mouse.move(box["x"] + 90, box["y"] + 110, steps=5)
    page.mouse.up()
    page.keyboard.press("3")
    page.keyboard.press("m")
    _wait_for(lambda: len(boxes()) == before + 1 and boxes()[-1]["code"] == "3m")
    page.keyboard.press("Control+z")
    _wait_for(lambda: boxes()[-1]["code"] != "3m")
    page.keyboard.press("Control+Shift+z")
    _wait_for(lambda: boxes()[-1]["code"] == "3m")
    page.keyboard.press("Enter")
    _wait_for(lambda: httpx.get(f"{base}/v1/label/images/{image_id}").json()["checked"])
    page.fill("#export-name", "browser")
    page.click("#export")
    page.wait_for_function("() => document.getElementById('export-result').textContent.includes('train')")

    saved = httpx.get(f"{base}/v1/label/images/{image_id}").json()
    width, height = saved["width"], saved["height"]
    exported = [p for p in (label_root / "exports" / "browser" / "labels").rglob("*.txt") if p.read_text().strip()]
    ours = [p for p in exported if len(p.read_text().splitlines()) == len(saved["boxes"])]
    lines = ours[0].read_text().splitlines()
    assert len(lines) == len(saved["boxes"])
    for line, expected in zip(lines, saved["boxes"], strict=True):
        cls, cx, cy, w, h = line.split()
        x1, y1, x2, y2 = expected["box"]
        assert int(cls) == TILE_INDEX_OF[expected["code"]]
        assert float(cx) == pytest.approx((x1 + x2) / 2 / width, abs=1e-3)
        assert float(cy) == pytest.approx((y1 + y2) / 2 / height, abs=1e-3)
        assert float(w) == pytest.approx((x2 - x1) / width, abs=1e-3)
        assert float(h) == pytest.approx((y2 - y1) / height, abs=1e-3)
    assert any(line.startswith("2 ") for line in lines)  # the drawn 3m is class 2


def _photo_with_a_chow_tile_covered(path) -> None:
    """examples/hand1.jpg with the middle tile of its chow covered by cloth: the two tiles left form
    no meld, so the photo cannot be scored and the page must say which tiles it left out.

    The cloth is copied, texture and all, from below the hand, where no tile lies: a patch of one flat
    colour reads as a 白 (a blank face), and a tile copied in, as any other tile, which the whole-hand
    repair then reads again as the 2s that mends the chow."""
    from taicam.pipeline import recognise
    from vision.detector import BUNDLED_MODEL, TileDetector

    image = cv2.imread(str(EXAMPLES / "hand1.jpg"))
    recognition = recognise(TileDetector(BUNDLED_MODEL), image)
    chow = next(g for g in recognition.layout.groups if g.kind == "chow")
    x1, y1, x2, y2 = (int(v) for v in recognition.detections.xyxy[chow.ids[1]])
    height = y2 - y1 + 8
    below_the_hand = y2 + 200
    image[y1 - 4 : y2 + 4, x1 - 2 : x2 + 2] = image[below_the_hand : below_the_hand + height, x1 - 2 : x2 + 2]
    cv2.imwrite(str(path), image)


def test_zh_tw_page_words_an_unscorable_photos_warnings_in_chinese_with_tile_names(server, page, tmp_path):
    photo = tmp_path / "covered.jpg"
    _photo_with_a_chow_tile_covered(photo)
    page.goto(f"{server}/snap")
    page.evaluate("localStorage.setItem('taicam-lang', 'zh-TW')")
    page.goto(f"{server}/snap")
    page.set_input_files("#file", str(photo))
    page.wait_for_selector("#warnings .warning", timeout=60_000)
    page.wait_for_function("() => document.getElementById('score-error').textContent.length > 0")
    warnings = page.locator("#warnings .warning").all_inner_texts()
    shown = " ".join([*warnings, page.inner_text("#score-error")])
    assert "一條" in shown and "三條" in shown, shown
    assert not re.search(r"[A-Za-z]{3,}|(?<![0-9A-Za-z])[1-9][mpsz](?![0-9A-Za-z])", shown), shown
    page.locator("#warnings .warning").first.click()  # a tap shows which tiles the warning is about (the 1s)
    assert page.locator("#photo-wrap .box.highlight").count() >= 1


def test_a_warning_about_one_tile_opens_its_palette_with_the_code_it_names_first(server, page, tmp_path):
    # A whole-table render whose flowers the flower reader finds close to others (seed 7: 8f with 5f
    # at odds 0.49, 3f with 4f at 0.66, against UNSURE_FLOWER_ODDS 0.4): its warning names the other.
    photo = tmp_path / "table7.jpg"
    cv2.imwrite(str(photo), render_scene(7, framing="table").image)
    page.goto(f"{server}/snap")
    page.set_input_files("#file", str(photo))
    page.wait_for_selector("#tai li", timeout=60_000)
    warnings = page.evaluate("() => last.warnings")
    index, named = next(
        (i, w["params"].get("other") or w["params"]["old"])
        for i, w in enumerate(warnings)
        if len(w["params"].get("detections", [])) == 1 and ({"other", "old"} & w["params"].keys())
    )
    tile = warnings[index]["params"]["detections"][0]
    page.locator("#warnings .warning").nth(index).click()
    assert page.is_visible("#palette")
    likely = page.locator("#palette .likely button")
    assert likely.first.get_attribute("data-code") == named
    assert page.evaluate("id => last.detections[id].code", tile) not in likely.evaluate_all("bs => bs.map(b => b.dataset.code)")
    likely.first.click()
    page.wait_for_function("([id, code]) => last && last.detections[id].code === code", arg=[tile, named], timeout=60_000)
    assert page.is_hidden("#palette")


def _write_y4m(path: Path, frame) -> None:
    """``frame`` as a one-frame Y4M video, which Chromium's fake camera plays in a loop."""
    h, w = frame.shape[:2]
    planes = cv2.cvtColor(frame, cv2.COLOR_BGR2YUV_I420)
    path.write_bytes(f"YUV4MPEG2 W{w} H{h} F5:1 Ip A1:1 C420jpeg\n".encode() + b"FRAME\n" + planes.tobytes())


def test_live_page_scores_the_phone_cameras_view_and_shows_its_warnings(server, playwright, tmp_path):
    from models.evaluate import in_frame

    # A whole table (seed 7) in a 1280 × 720 camera frame: its stable hand is scored with a flower
    # another flower nearly matches, which the page now shows beside the total.
    video = tmp_path / "table.y4m"
    _write_y4m(video, in_frame(render_scene(7, framing="table").image))
    camera = [
        "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream", f"--use-file-for-fake-video-capture={video}",
    ]  # fmt: skip
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, *camera])
    try:
        context = browser.new_context(viewport={"width": 420, "height": 900})
        context.grant_permissions(["camera"])
        live = context.new_page()
        live.goto(f"{server}/live")
        live.evaluate("localStorage.setItem('taicam-lang', 'en')")
        live.goto(f"{server}/live")
        live.click("#use-phone")
        live.wait_for_selector("#stable", state="visible", timeout=120_000)
        assert int(live.inner_text("#total")) > 0
        warnings = live.locator("#warnings .warning").all_inner_texts()
        assert any("could also be" in line for line in warnings), warnings
        assert re.match(r"\d+ tiles · [\d.]+ ms", live.inner_text("#status"))
    finally:
        browser.close()


def test_api_docs_render_with_the_network_blocked(server, page):
    outside: list[str] = []

    def only_loopback(route):
        if route.request.url.startswith(server):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", only_loopback)
    try:
        page.goto(f"{server}/docs")
        page.wait_for_selector(".swagger-ui .info .title", timeout=30_000)
        assert "taicam" in page.inner_text(".swagger-ui .info .title")
        assert page.locator(".opblock").count() >= 5
    finally:
        page.unroute("**/*")
    assert outside == []


def test_snap_page_names_the_dealers_streak(server, page):
    page.goto(f"{server}/snap")
    page.set_input_files("#file", str(EXAMPLES / "hand1.jpg"))
    page.wait_for_selector("#tai li", timeout=60_000)
    page.check("#dealer")
    page.fill("#dealer_streak", "2")
    page.dispatch_event("#dealer_streak", "change")
    page.wait_for_function(
        "() => Array.from(document.querySelectorAll('#tai li span:first-child')).some(s => s.textContent === '莊家連2拉2')"
    )
    assert "連N" not in page.inner_text("#tai")


def test_snap_correction_kept_for_training_is_first_in_label_and_in_both_exports(server, server_data_dir, page):
    import json

    import httpx

    page.goto(f"{server}/snap")
    assert not page.is_checked("#keep")  # off until the player turns it on
    page.set_input_files("#file", str(EXAMPLES / "hand1.jpg"))
    page.wait_for_selector("#photo-wrap .box", timeout=60_000)
    codes = page.evaluate("() => last.detections.map(d => d.code)")
    target = next(code for code in ("9s", "1z", "2z") if code != codes[0])
    page.locator("#photo-wrap .box").first.click()
    page.click(f'#palette button[data-code="{target}"]')
    page.wait_for_function("code => last && last.detections[0].code === code", arg=target, timeout=60_000)
    try:
        page.check("#keep")  # ticked after the correction: the photo is kept at once
        page.wait_for_selector("#confirm", state="visible", timeout=60_000)
        image_id = page.evaluate("() => keptId")
        page.click("#confirm")
        page.wait_for_function("() => document.getElementById('confirm').disabled")
        page.reload()
        assert page.is_checked("#keep")  # remembered on this device
    finally:
        page.evaluate("localStorage.removeItem('taicam-keep-for-training')")

    page.goto(f"{server}/label")
    page.wait_for_selector("#queue li")
    first = page.locator("#queue li").first
    assert (first.get_attribute("data-id"), first.get_attribute("data-source")) == (str(image_id), "snap")
    image = httpx.get(f"{server}/v1/label/images/{image_id}").json()
    assert image["confirmed"] and (image["boxes"][0]["code"], image["boxes"][0]["state"]) == (target, "corrected")
    assert {b["state"] for b in image["boxes"][1:]} == {"confirmed"}

    page.fill("#export-name", "loop")
    page.click("#export")
    page.wait_for_function("() => document.getElementById('export-result').textContent.includes('train')")
    export = server_data_dir / "labels" / "exports" / "loop"
    split = image["split"]
    label_files = list((export / "labels" / split).glob("*.txt"))
    assert len(label_files) == 1, "the one kept photo"
    lines = label_files[0].read_text().splitlines()
    assert len(lines) == len(image["boxes"]) and lines[0].split()[0] == str(TILE_INDEX_OF[target])
    coco = json.loads((export / f"coco_{split}.json").read_text())
    assert [i["id"] for i in coco["images"]] == [image_id]
    assert TILE_INDEX_OF[target] in {a["category_id"] for a in coco["annotations"] if a["image_id"] == image_id}
