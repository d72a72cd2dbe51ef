"""The labeling store and API: import, review, conflicts, safety, export, and training on it."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient
from taicam_datasets.labels import Box, LabelError, LabelStore, split_of
from taicam_datasets.layout import read_labels
from taicam_datasets.synth import synthesize

from scoring.tiles import TILE_CODES
from service.app import create_app
from service.settings import Settings
from tests.conftest import REAL_VAL
from tests.fakes import FakeDetector


def jpeg(seed: int, size=(320, 240)) -> bytes:
    image = np.random.default_rng(seed).integers(0, 255, (size[1], size[0], 3), np.uint8)
    return cv2.imencode(".jpg", image)[1].tobytes()


@pytest.fixture
def store(tmp_path) -> LabelStore:
    return LabelStore(tmp_path / "labels")


def test_yolo_import_maps_classes_by_name(tmp_path, store):
    root = tmp_path / "other"
    (root / "images" / "train").mkdir(parents=True)
    (root / "labels" / "train").mkdir(parents=True)
    (root / "images" / "train" / "a.jpg").write_bytes(jpeg(1))
    # Another tool's class order: index 0 is 5p, index 1 is 1m.
    (root / "classes.txt").write_text("5p\n1m\n")
    (root / "labels" / "train" / "a.txt").write_text("0 0.5 0.5 0.2 0.2\n1 0.2 0.2 0.1 0.1\n")
    assert store.import_folder(root) == {"added": 1, "skipped": 0}
    assert [b["code"] for b in store.image(1)["boxes"]] == ["5p", "1m"]
    (root / "classes.txt").write_text("pinzu5\n")
    with pytest.raises(LabelError, match="not tile codes"):
        store.import_folder(root)


@pytest.mark.skipif(not REAL_VAL.exists(), reason="real-hk-v4 is read from ../shared or TAICAM_REAL_HK")
def test_real_hk_v4_imports_cleanly_with_its_sessions(store):
    result = store.import_folder(REAL_VAL)
    assert result == {"added": 1185, "skipped": 0}
    sessions = {e["session"] for e in store.queue()}
    assert "S000" in sessions and len(sessions) > 50


def test_export_split_is_deterministic_grouped_by_session_and_class_order_is_fixed(tmp_path, store):
    for i in range(12):
        store.add_image(jpeg(i), f"session{i % 4}_frame{i:03d}.jpg", boxes=[Box(TILE_CODES[i], 10, 10, 60, 80)])
    first = store.export(tmp_path / "one", val_fraction=0.5)
    second = store.export(tmp_path / "two", val_fraction=0.5)
    assert first["train"] + first["val"] == 12 and (first["train"], first["val"]) == (second["train"], second["val"])
    for split in ("train", "val"):
        names_one = sorted(p.name for p in (tmp_path / "one" / "labels" / split).glob("*.txt"))
        names_two = sorted(p.name for p in (tmp_path / "two" / "labels" / split).glob("*.txt"))
        assert names_one == names_two
    by_session: dict[str, set[str]] = {}
    for entry in store.queue():
        by_session.setdefault(entry["session"], set()).add(split_of(entry["session"], 0.5))
    assert all(len(splits) == 1 for splits in by_session.values())  # a session never straddles
    assert (tmp_path / "one" / "classes.txt").read_text().split() == list(TILE_CODES)
    assert (tmp_path / "one" / "classes.txt").read_text() == (tmp_path / "two" / "classes.txt").read_text()
    coco = json.loads((tmp_path / "one" / "coco_train.json").read_text())
    assert [c["name"] for c in coco["categories"]] == list(TILE_CODES)


def test_conflicting_saves_are_refused(store):
    image_id = store.add_image(jpeg(1), "a.jpg")["id"]
    box = {"code": "3m", "box": [10, 10, 50, 70]}
    store.save(image_id, [box], version=1)
    with pytest.raises(LabelError) as stale:
        store.save(image_id, [], version=1)  # a second tab still holds version 1
    assert stale.value.code == "conflict"
    assert [b["code"] for b in store.image(image_id)["boxes"]] == ["3m"]


def test_prelabel_never_overwrites_a_human_box(store):
    image_id = store.add_image(jpeg(2), "a.jpg")["id"]
    store.save(image_id, [{"code": "7z", "box": [10, 10, 50, 70], "source": "human"}], version=1)
    predictions = [Box("1z", 12, 11, 49, 69, "model", 0.4), Box("2p", 100, 100, 140, 160, "model", 0.9)]
    after = store.prelabel(image_id, predictions)
    assert [(b["code"], b["source"]) for b in after["boxes"]] == [("7z", "human"), ("2p", "model")]


def test_review_queue_least_confident_then_illegal_hands(store):
    a = store.add_image(jpeg(3), "a.jpg", boxes=[Box("1m", 0, 0, 10, 10, "model", 0.9)])["id"]
    b = store.add_image(jpeg(4), "b.jpg", boxes=[Box("1m", 0, 0, 10, 10, "model", 0.3)])["id"]
    c = store.add_image(jpeg(5), "c.jpg", boxes=[Box("1m", i, 0, i + 5, 10) for i in range(5)])["id"]
    order = [e["id"] for e in store.queue()]
    assert order.index(b) < order.index(a)
    assert "5 copies of 1m" in store.image(c)["issues"]
    flowers = [Box("4f", 0, 0, 5, 10), Box("4f", 20, 0, 25, 10), Box("5f", 40, 0, 45, 10)]
    d = store.add_image(jpeg(6), "d.jpg", boxes=flowers)["id"]
    assert store.image(d)["issues"] == ["2 copies of 4f: a set has one of each flower"]
    store.save(b, store.image(b)["boxes"], 1, checked=True)
    assert store.next_unchecked() != b


def test_api_rejects_paths_outside_the_data_folder_and_bad_uploads(tmp_path):
    settings = Settings(
        data_dir=tmp_path / "data", label_dir=tmp_path / "labels", max_upload_mb=1, allowed_hosts=["testserver"]
    )
    csrf = {"x-taicam-csrf": "1"}  # what the page sends with uploads and body-less posts
    with TestClient(create_app(settings, detector_factory=lambda s: FakeDetector())) as client:
        for name in ("../../etc", "/etc", ".hidden", "a/../../b"):
            response = client.post("/v1/label/import", json={"name": name})
            assert response.status_code in (404, 422), name
            assert client.post("/v1/label/export", json={"name": name}).status_code == 422
        upload = client.post("/v1/label/upload", files=[("files", ("x.txt", b"not an image", "text/plain"))], headers=csrf)
        assert upload.status_code == 415
        good = client.post("/v1/label/upload", files=[("files", ("a.jpg", jpeg(9), "image/jpeg"))], headers=csrf).json()
        image_id = good["added"][0]["id"]
        assert client.get(f"/v1/label/images/{image_id}/file").status_code == 200
        saved = client.put(
            f"/v1/label/images/{image_id}", json={"boxes": [{"code": "3m", "box": [1, 1, 40, 40]}], "version": 1}
        )
        assert saved.status_code == 200
        stale = client.put(f"/v1/label/images/{image_id}", json={"boxes": [], "version": 1})
        assert stale.status_code == 409 and stale.json()["error"]["code"] == "conflict"
        assert client.post("/v1/label/prelabel", headers=csrf).json() == {"prelabeled": 1}


@pytest.mark.slow
def test_export_trains_one_epoch(tmp_path, store):
    pytest.importorskip("ultralytics", reason="the 'train' extra is not installed")
    from models.train import TrainConfig, train
    from vision.detector import TileDetector

    synth = tmp_path / "synth"
    synthesize(synth, 8, seed=4, workers=2, progress=False)
    # Give each scene its own capture session (table<k>_frame.jpg), as photos of 8 tables would have.
    for k, image in enumerate(sorted((synth / "images").rglob("*.jpg"))):
        label = synth / "labels" / image.parent.name / f"{image.stem}.txt"
        image.rename(image.with_name(f"table{k}_frame.jpg"))
        label.rename(label.with_name(f"table{k}_frame.txt"))
    assert store.import_folder(synth)["added"] == 8
    export = store.export(tmp_path / "export", val_fraction=0.3)
    assert export["train"] and export["val"]
    config = TrainConfig(
        data=(Path(export["out"]),), val=(Path(export["out"]),), out=tmp_path / "run", epochs=1, imgsz=128, batch=4, workers=0
    )
    assert TileDetector(train(config)).info.names == TILE_CODES
    some_label = next((Path(export["out"]) / "labels" / "train").glob("*.txt"))
    assert all(0 <= row[0] < len(TILE_CODES) for row in read_labels(some_label))


SAVER = """
import sys
from taicam_datasets.labels import LabelStore
store = LabelStore(sys.argv[1])
image_id = int(sys.argv[2])
print("ready", flush=True)
version = store.image(image_id)["version"]
step = 0
while True:
    step += 1
    boxes = [{"code": "3m", "box": [1 + step % 50, 1, 60 + step % 50, 80]}]
    version = store.save(image_id, boxes, version)["version"]
"""


def test_killing_a_save_midway_loses_no_file(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    store = LabelStore(tmp_path / "labels")
    image_id = store.add_image(jpeg(7), "kill_001.jpg")["id"]
    process = subprocess.Popen([sys.executable, "-c", SAVER, str(store.root), str(image_id)], stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "ready"
    time.sleep(1.0)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    reopened = LabelStore(tmp_path / "labels")
    meta = reopened.image(image_id)
    assert meta["version"] > 1 and len(meta["boxes"]) == 1  # the last committed save, whole
    assert cv2.imread(str(reopened.path_of(image_id))) is not None
    assert not list((tmp_path / "labels" / "images").glob(".*.tmp"))
    export = reopened.export(tmp_path / "out")
    assert export["train"] + export["val"] == 1
