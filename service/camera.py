"""The server-side camera: a background thread reads frames, scores stable hands, and
serves an MJPEG stream with the overlay plus an event stream of stable hands."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import deque
from collections.abc import Iterator

import cv2

from taicam.pipeline import LiveScorer
from vision.annotate import Annotator
from vision.detector import DEFAULT_CONF, TileDetector
from vision.frames import FrameError, open_source

log = logging.getLogger("taicam.camera")
# Stable hands kept for event-stream readers that fall behind; older ones are dropped, so a
# camera left running for days holds a bounded history.
MAX_KEPT_EVENTS = 100


class ServerCamera:
    def __init__(self, spec: str, detector: TileDetector, conf: float = DEFAULT_CONF):
        self.spec = spec
        self.scorer = LiveScorer(detector, conf=conf)  # no situation known: the hand is scored as it lies
        self._jpeg: bytes | None = None
        self._events: deque[dict] = deque(maxlen=MAX_KEPT_EVENTS)
        self._event_count = 0  # events ever produced: readers track their place by it
        self._status = "starting"
        self._stop = threading.Event()
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="taicam-camera", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        annotator = Annotator()
        while not self._stop.is_set():
            try:
                source = open_source(self.spec)
                try:
                    while not self._stop.is_set():
                        frame = source.read()
                        if frame is None:
                            break
                        recognition, scored = self.scorer.process(frame)
                        annotated = annotator.annotate(frame, recognition.detections, recognition.layout)
                        ok, jpeg = cv2.imencode(".jpg", annotated)
                        with self._changed:
                            self._status = "running"
                            if ok:
                                self._jpeg = jpeg.tobytes()
                            if scored is not None:
                                self._events.append(scored.to_json())
                                self._event_count += 1
                            self._changed.notify_all()
                finally:
                    source.close()  # a camera that failed mid-stream is released before it is reopened
            except FrameError as error:
                self._status = f"camera error: {error}; retrying"
                log.warning("%s", self._status)
            self._stop.wait(2.0)

    def mjpeg(self) -> Iterator[bytes]:
        while not self._stop.is_set():
            with self._changed:
                self._changed.wait(timeout=1.0)
                jpeg = self._jpeg
            if jpeg:
                yield b"--frame\r\nContent-Type: image/jpeg\r\n\r\n" + jpeg + b"\r\n"
            time.sleep(0.03)

    def events(self) -> Iterator[str]:
        seen = 0
        while not self._stop.is_set():
            with self._changed:
                self._changed.wait(timeout=15.0)
                missed = min(self._event_count - seen, len(self._events))
                new, seen = list(self._events)[len(self._events) - missed :], self._event_count
                status = self._status
            for event in new:
                yield f"event: hand\ndata: {json.dumps(event, ensure_ascii=False)}\n\n"
            yield f"event: status\ndata: {json.dumps({'status': status})}\n\n"
