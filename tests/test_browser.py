"""Real browser (Debian chromium via Playwright) against a real server on loopback."""

from __future__ import annotations

import shutil
import socket
import threading
import time

import cv2
import pytest
import uvicorn
from taicam_datasets.scenes import render_scene

from service.app import create_app
from service.settings import Settings
from tests.conftest import REAL_VAL

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian chromium is not installed (make test installs it)")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = Settings(data_dir=tmp_path_factory.mktemp("data"))
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
def page():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 420, "height": 900})
        yield context.new_page()
        browser.close()


def test_snap_correct_and_add_to_ledger(server, page, tmp_path):
    # A whole-table photo from the generator; the bundled model reads its 7f (菊) as 5f (梅).
    photo = tmp_path / "table.jpg"
    cv2.imwrite(str(photo), render_scene(3, whole_table=True).image)
    page.goto(f"{server}/ledger")
    page.fill("#name", "Browser table")
    page.click("#create")
    page.wait_for_selector("#players tr")
    page.goto(f"{server}/snap")
    page.set_input_files("#file", str(photo))
    page.wait_for_selector("#tai li", timeout=60_000)
    names_before = page.locator("#tai li span:first-child").all_inner_texts()
    assert "正花" in names_before and page.locator(".box").count() >= 17
    page.screenshot(path=str(tmp_path / "snap.png"))
    flower = page.locator(".box.flower").first
    flower.click()
    page.click('#palette button[data-code="7f"]')
    page.wait_for_function(
        "() => !Array.from(document.querySelectorAll('#tai li span:first-child')).some(s => s.textContent === '正花')"
    )
    total = int(page.inner_text("#total"))
    page.click("#add")
    page.wait_for_selector("#toast", state="visible")
    page.goto(f"{server}/ledger")
    page.wait_for_selector("#history tr")
    history = page.inner_text("#history")
    assert str(total) in history


@pytest.mark.skipif(not REAL_VAL.exists(), reason="real-hk-v4 is read from ../shared")
def test_real_val_photo_gets_detections_in_the_browser(server, page):
    photo = sorted((REAL_VAL / "images" / "val").glob("*.jpg"))[0]
    page.goto(f"{server}/snap")
    page.set_input_files("#file", str(photo))
    page.wait_for_selector(".box", timeout=60_000)
    assert page.locator(".box").count() >= 5
    # Its tiles are not a winning hand (real-hk-v4 photographs tiles, not finished hands): the page says why.
    page.wait_for_function("() => document.getElementById('score-error').textContent.length > 0")
