"""Load test: uvicorn on loopback, 8 clients posting a 1280×720 photo for 60 s, with a burst
of bad inputs mixed in. Reports requests/s, p50/p99 latency, errors and server memory.

Run: ``python -m bench service`` (``BENCH_SECONDS=10`` for a short run).
"""

from __future__ import annotations

import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import cv2
import httpx
import numpy as np
from taicam_datasets.scenes import render_scene

CLIENTS = 8


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _bad_inputs(photo: bytes) -> list[tuple[str, bytes, str, int]]:
    """(name, bytes, content type, expected status)."""
    rng = random.Random(3)
    return [
        ("empty.jpg", b"", "image/jpeg", 415),
        ("truncated.jpg", photo[: len(photo) // 3], "image/jpeg", 415),
        ("huge.jpg", b"\xff" * (30 * 1024 * 1024), "image/jpeg", 413),
        ("notes.txt", b"hello", "text/plain", 415),
        ("noise.jpg", bytes(rng.getrandbits(8) for _ in range(50_000)), "image/jpeg", 415),
    ]


def run() -> dict:
    seconds = float(os.environ.get("BENCH_SECONDS", "60"))
    frame = cv2.resize(render_scene(7, framing="table").image, (1280, 720))
    photo = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 88])[1].tobytes()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with tempfile.TemporaryDirectory() as data_dir:
        env = {**os.environ, "TAICAM_DATA_DIR": data_dir}
        server = subprocess.Popen(
            [sys.executable, "-m", "taicam", "serve", "--port", str(port)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.time() + 60
            while time.time() < deadline:
                try:
                    if httpx.get(f"{base}/readyz", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.2)
            httpx.post(f"{base}/v1/score", files={"image": ("w.jpg", photo, "image/jpeg")}, timeout=60)  # warm-up
            rss_start = _rss_mb(server.pid)
            latencies: list[float] = []
            errors: list[str] = []
            bad_results: list[tuple[str, int, int]] = []
            stop = time.time() + seconds
            lock = threading.Lock()

            def client(index: int) -> None:
                with httpx.Client(timeout=120) as session:
                    bad = _bad_inputs(photo)
                    count = 0
                    while time.time() < stop:
                        count += 1
                        if index == 0 and count % 2 == 0:  # one client mixes bad inputs into the load
                            name, body, kind, expected = bad[(count // 5) % len(bad)]
                            response = session.post(f"{base}/v1/detect", files={"image": (name, body, kind)})
                            with lock:
                                bad_results.append((name, expected, response.status_code))
                            continue
                        start = time.perf_counter()
                        try:
                            response = session.post(
                                f"{base}/v1/score",
                                files={"image": ("hand.jpg", photo, "image/jpeg")},
                                data={"annotate": "false"},
                            )
                            ok = response.status_code in (200, 422)  # 422: the photo's hand is not legal; still a full answer
                        except httpx.HTTPError as error:
                            ok, response = False, None
                            with lock:
                                errors.append(repr(error))
                        with lock:
                            latencies.append((time.perf_counter() - start) * 1000)
                            if not ok and response is not None:
                                errors.append(f"status {response.status_code}")

            threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
            began = time.time()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            elapsed = time.time() - began
            alive = server.poll() is None and httpx.get(f"{base}/healthz", timeout=5).status_code == 200
            rss_end = _rss_mb(server.pid)
        finally:
            server.terminate()
            server.wait(timeout=10)
    wrong_bad = [r for r in bad_results if r[1] != r[2]]
    return {
        "seconds": round(elapsed, 1),
        "clients": CLIENTS,
        "requests": len(latencies),
        "requests_per_s": round(len(latencies) / elapsed, 2),
        "p50_ms": round(float(np.percentile(latencies, 50)), 1) if latencies else None,
        "p99_ms": round(float(np.percentile(latencies, 99)), 1) if latencies else None,
        "errors": len(errors),
        "bad_inputs_sent": len(bad_results),
        "bad_inputs_wrong_status": wrong_bad[:5],
        "server_alive_after": alive,
        "server_rss_mb_start": round(rss_start, 1),
        "server_rss_mb_end": round(rss_end, 1),
    }


if __name__ == "__main__":
    print(run())
