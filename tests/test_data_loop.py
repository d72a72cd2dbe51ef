"""Issue 18, the data loop: photos kept at the table become labels, a store trains, models swap live."""

from __future__ import annotations

import hashlib
import json
import sqlite3

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient
from taicam_datasets.labels import Box, LabelError, LabelStore

from service.app import create_app
from service.settings import Settings
from tests.fakes import FakeDetector

CSRF = {"x-taicam-csrf": "1"}
# FakeDetector's hand: 1m-6m, 7p 8p 9p, 2s 3s 4s, the pair 5p 5p (detections 12, 13), 6s 7s, winning 8s.
PAIR_TO_9S = {"12": "9s", "13": "9s"}  # still a legal hand, with a pair of 9s
BREAKS_THE_HAND = {"0": "9p"}  # 9p 2m 3m is no meld: the hand cannot be scored


def photo(seed: int = 0, exif: bool = False) -> bytes:
    image = np.random.default_rng(seed).integers(60, 200, (240, 800, 3), np.uint8)
    data = cv2.imencode(".jpg", image)[1].tobytes()
    if exif:  # an APP1 Exif segment right after SOI, as a phone writes (here an empty IFD and a maker tag)
        tiff = b"II*\x00\x08\x00\x00\x00\x00\x00\x00\x00\x00\x00" + b"PHONE-MAKER-SECRET"
        body = b"Exif\x00\x00" + tiff
        data = data[:2] + b"\xff\xe1" + (len(body) + 2).to_bytes(2, "big") + body + data[2:]
    return data


def score(client: TestClient, data: bytes, corrections: dict[str, str] | None = None, **fields: str):
    form = {"save_for_training": "true", **fields}
    if corrections is not None:
        form["corrections"] = json.dumps(corrections)
    return client.post("/v1/score", files={"image": ("hand.jpg", data, "image/jpeg")}, data=form)


@pytest.fixture
def client(settings):
    with TestClient(create_app(settings, detector_factory=lambda s: FakeDetector())) as client:
        yield client


def test_a_kept_photo_is_listed_first_with_its_corrected_box_on_the_same_server(client, settings):
    other = score(client, photo(1))  # kept without corrections: a pre-label only
    assert other.status_code == 200
    answer = score(client, photo(2, exif=True), PAIR_TO_9S)
    assert answer.status_code == 200, answer.text
    image_id = answer.json()["saved_for_training"]["image_id"]
    assert isinstance(image_id, int) and image_id != other.json()["saved_for_training"]["image_id"]
    assert answer.json()["model"] == "fake.onnx"

    queue = client.get("/v1/label/images").json()
    assert queue[0]["id"] == image_id and queue[0]["source"] == "snap"
    image = client.get(f"/v1/label/images/{image_id}").json()
    states = [(b["code"], b["state"]) for b in image["boxes"]]
    assert states[12] == states[13] == ("9s", "corrected")
    assert {state for i, (_, state) in enumerate(states) if i not in (12, 13)} == {"unchecked"}
    assert image["hand"]["concealed"].count("9s") == 2 and image["preset"] == "taiwan" and not image["unscorable"]
    assert image["corrections"] == PAIR_TO_9S
    stored = (settings.data_dir / "labels" / "images").glob("*.jpg")
    assert all(b"Exif" not in path.read_bytes() and b"SECRET" not in path.read_bytes() for path in stored)

    confirmed = client.post(f"/v1/label/images/{image_id}/confirm", headers=CSRF).json()
    assert confirmed["confirmed"] and {b["state"] for b in confirmed["boxes"]} == {"corrected", "confirmed"}
    assert [b["state"] for b in confirmed["boxes"]][12] == "corrected"


def test_a_422_carries_the_kept_photo_inside_the_error_details_and_is_marked_unscorable(client):
    answer = score(client, photo(3), BREAKS_THE_HAND)
    assert answer.status_code == 422
    image_id = answer.json()["error"]["details"]["saved_for_training"]["image_id"]
    image = client.get(f"/v1/label/images/{image_id}").json()
    assert image["unscorable"] and image["boxes"][0] == {**image["boxes"][0], "code": "9p", "state": "corrected"}


def test_posting_the_same_photo_again_updates_its_capture_and_without_the_switch_nothing_is_kept(client):
    first = score(client, photo(4)).json()["saved_for_training"]["image_id"]
    again = score(client, photo(4), PAIR_TO_9S).json()["saved_for_training"]["image_id"]
    assert again == first and len(client.get("/v1/label/images").json()) == 1
    assert client.get(f"/v1/label/images/{first}").json()["boxes"][12]["state"] == "corrected"
    plain = client.post("/v1/score", files={"image": ("hand.jpg", photo(5), "image/jpeg")})
    assert plain.status_code == 200 and "saved_for_training" not in plain.json()
    assert len(client.get("/v1/label/images").json()) == 1


def test_a_full_store_says_so_and_the_score_still_comes_back(tmp_path):
    settings = Settings(data_dir=tmp_path / "data", allowed_hosts=["testserver"], training_store_max_images=1)
    with TestClient(create_app(settings, detector_factory=lambda s: FakeDetector())) as client:
        assert score(client, photo(6)).json()["saved_for_training"]["image_id"] == 1
        full = score(client, photo(7))
        assert full.status_code == 200 and full.json()["score"]["total"] > 0
        refused = full.json()["saved_for_training"]
        assert refused["image_id"] is None and refused["error"]["code"] == "store_full"
        assert "TAICAM_TRAINING_STORE_MAX_IMAGES" in refused["error"]["message"]
        assert str(tmp_path) not in full.text  # the server's own paths stay on the server


def test_serve_gives_the_label_api_a_store_under_the_data_dir_by_default(tmp_path, monkeypatch):
    monkeypatch.setenv("TAICAM_DATA_DIR", str(tmp_path / "home"))
    settings = Settings(allowed_hosts=["testserver"])
    with TestClient(create_app(settings, detector_factory=lambda s: FakeDetector())) as client:
        assert client.get("/v1/label/images").status_code == 200  # was 404 labeling_off
        image_id = score(client, photo(8)).json()["saved_for_training"]["image_id"]
    assert LabelStore(tmp_path / "home" / "labels").image(image_id)["source"] == "snap"


def test_live_keeps_the_frame_a_hand_became_stable_on_when_asked(client):
    with client.websocket_connect("/v1/live?stable=1&save_for_training=true") as socket:
        socket.send_bytes(photo(9))
        message = socket.receive_json()
    assert message["model"] == "fake.onnx"
    image_id = message["stable"]["saved_for_training"]["image_id"]
    first = client.get("/v1/label/images").json()[0]
    assert (first["id"], first["source"]) == (image_id, "live")


OLD_SCHEMA = """
CREATE TABLE images (id INTEGER PRIMARY KEY, file TEXT NOT NULL UNIQUE, original TEXT NOT NULL, session TEXT NOT NULL,
    sha1 TEXT NOT NULL UNIQUE, width INTEGER NOT NULL, height INTEGER NOT NULL, checked INTEGER NOT NULL DEFAULT 0,
    version INTEGER NOT NULL DEFAULT 1, created REAL NOT NULL);
CREATE TABLE boxes (image_id INTEGER NOT NULL REFERENCES images(id), position INTEGER NOT NULL, code TEXT NOT NULL,
    x1 REAL NOT NULL, y1 REAL NOT NULL, x2 REAL NOT NULL, y2 REAL NOT NULL, source TEXT NOT NULL, confidence REAL,
    PRIMARY KEY (image_id, position));
CREATE TABLE revisions (image_id INTEGER NOT NULL, version INTEGER NOT NULL, boxes TEXT NOT NULL, saved REAL NOT NULL,
    PRIMARY KEY (image_id, version));
INSERT INTO images VALUES (1, 'a.jpg', 'a.jpg', 'tableA', 'x', 800, 240, 0, 3, 0);
INSERT INTO boxes VALUES (1, 0, '3m', 1, 1, 40, 60, 'human', NULL), (1, 1, '4m', 50, 1, 90, 60, 'model', 0.5);
"""


def test_a_store_from_before_the_loop_gains_its_columns_and_keeps_its_labels(tmp_path):
    root = tmp_path / "labels"
    (root / "images").mkdir(parents=True)
    (root / "images" / "a.jpg").write_bytes(photo(10))
    with sqlite3.connect(root / "labels.db") as db:
        db.executescript(OLD_SCHEMA)
    image = LabelStore(root).image(1)
    assert image["source"] == "import" and image["split"] in ("train", "val") and image["version"] == 3
    assert [(b["code"], b["state"]) for b in image["boxes"]] == [("3m", "corrected"), ("4m", "unchecked")]
    assert LabelStore(root).image(1) == image  # opening it again changes nothing


def test_review_queue_corrected_then_unscorable_then_least_confident(tmp_path):
    from taicam_datasets.labels import Capture

    store = LabelStore(tmp_path / "labels")

    def keep(seed: int, state: str, unscorable: bool, confidence: float) -> int:
        boxes = (Box("1m", 0, 0, 10, 10, "model", confidence, "unchecked"), Box("2m", 20, 0, 30, 10, "human", None, state))
        image = np.full((60, 80, 3), seed, np.uint8)
        digest = hashlib.sha1(bytes([seed])).hexdigest()
        return store.add_capture(Capture(image, digest, "snap", "s", "taiwan", None, {}, unscorable, boxes))

    sure = keep(1, "unchecked", False, 0.9)
    unsure = keep(2, "unchecked", False, 0.2)
    unscorable = keep(3, "unchecked", True, 0.95)
    corrected = keep(4, "corrected", False, 0.99)
    assert [e["id"] for e in store.queue()] == [corrected, unscorable, unsure, sure]


def test_the_store_refuses_past_its_byte_cap(tmp_path):
    store = LabelStore(tmp_path / "labels", max_bytes=len(photo(11)) + 10)
    store.add_image(photo(11), "a.jpg")
    with pytest.raises(LabelError) as full:
        store.add_image(photo(12), "b.jpg")
    assert full.value.code == "store_full"


def test_a_photos_split_is_fixed_when_it_enters_the_store(tmp_path):
    store = LabelStore(tmp_path / "labels")
    image_id = store.add_image(photo(13), "tableB_001.jpg")["id"]
    split = store.image(image_id)["split"]
    with sqlite3.connect(store.root / "labels.db") as db:  # a later taicam could hash sessions differently
        db.execute("UPDATE images SET session = 'renamed' WHERE id = ?", (image_id,))
    export = store.export(tmp_path / "out", trainable_only=False)
    assert export[split] == 1


def test_reload_serves_a_newer_file_and_a_failed_load_keeps_the_old_one(tmp_path):
    import hashlib as digests
    import shutil

    onnx = pytest.importorskip("onnx", reason="onnx writes the second model file")
    from vision.detector import BUNDLED_MODEL

    models = tmp_path / "models"
    models.mkdir()
    shutil.copy(BUNDLED_MODEL, models / "current.onnx")
    newer = onnx.load(str(BUNDLED_MODEL))
    newer.doc_string = "retrained at the table"
    onnx.save(newer, str(models / "newer.onnx"))
    (models / "broken.onnx").write_bytes(b"not a model")
    settings = Settings(
        data_dir=tmp_path / "data", model_path=models / "current.onnx", classifier_path=None, allowed_hosts=["testserver"],
        token="t0ken",
    )  # fmt: skip
    auth = {"authorization": "Bearer t0ken"}

    def version(name: str) -> str:
        return f"{name}@sha256:{digests.sha256((models / name).read_bytes()).hexdigest()[:12]}"

    with TestClient(create_app(settings)) as client:
        assert client.get("/readyz", headers=auth).json()["model"] == version("current.onnx")
        assert client.post("/v1/models/reload", json={}).status_code == 401  # the token, as everywhere on the LAN
        assert client.post("/v1/models/reload", headers=auth).status_code == 403  # no JSON body, no CSRF header
        for bad in ("../current.onnx", ".hidden.onnx", "model.txt"):
            assert client.post("/v1/models/reload", json={"file": bad}, headers=auth).json()["error"]["code"] == "bad_path"
        failed = client.post("/v1/models/reload", json={"file": "broken.onnx"}, headers=auth)
        assert failed.status_code == 422 and failed.json()["error"]["details"]["model"] == version("current.onnx")
        assert client.get("/readyz", headers=auth).json()["model"] == version("current.onnx")
        detected = client.post("/v1/detect", files={"image": ("x.jpg", photo(14), "image/jpeg")}, headers=auth)
        assert detected.status_code == 200 and detected.json()["model"] == version("current.onnx")
        swapped = client.post("/v1/models/reload", json={"file": "newer.onnx"}, headers=auth).json()
        assert swapped == {
            "model": version("newer.onnx"),
            "classifier": None,
            "flower_reader": None,
            "previous": version("current.onnx"),
        }
        assert version("newer.onnx") != version("current.onnx")
        assert client.get("/readyz", headers=auth).json()["model"] == version("newer.onnx")
        scored = client.post("/v1/score", files={"image": ("x.jpg", photo(15), "image/jpeg")}, headers=auth)
        assert scored.json()["error"]["details"]["model"] == version("newer.onnx")  # a random picture: no hand
        again = client.post("/v1/models/reload", headers={**auth, **CSRF})  # the same file, read again
        assert again.json()["model"] == version("newer.onnx")


def test_checking_an_image_in_label_confirms_the_boxes_left_alone_and_keeps_corrections(tmp_path):
    store = LabelStore(tmp_path / "labels")
    image_id = store.add_image(photo(16), "a.jpg", boxes=[Box("1m", 0, 0, 10, 10, "model", 0.5)])["id"]
    drawn = {"code": "2m", "box": [20, 0, 30, 10], "source": "human"}  # drawn in /label, sent without a state
    saved = store.save(image_id, [*store.image(image_id)["boxes"], drawn], 1, checked=True)
    assert [b["state"] for b in saved["boxes"]] == ["confirmed", "corrected"]
    with pytest.raises(LabelError, match="state is one of"):
        store.save(image_id, [{**drawn, "state": "maybe"}], saved["version"])


# --- taicam train and taicam eval on a store ------------------------------------------------------
def _sessions(split: str, count: int) -> list[str]:
    from taicam_datasets.labels import STORE_VAL_FRACTION, split_of

    return [name for name in (f"table{i}" for i in range(10_000)) if split_of(name, STORE_VAL_FRACTION) == split][:count]


def _store_of_kept_photos(tmp_path, trainable: int = 5) -> LabelStore:
    """Synthetic scenes kept as snaps: two in a val session, the rest in train sessions; each has one
    corrected box, and one more photo has none (an unchecked pre-label only, never trained on)."""
    from dataclasses import replace

    from taicam_datasets.labels import Capture
    from taicam_datasets.layout import read_labels
    from taicam_datasets.synth import synthesize

    from scoring.tiles import TILE_CODES

    synth = tmp_path / "synth"
    synthesize(synth, trainable + 1, seed=5, workers=1, progress=False)
    sessions = _sessions("val", 1) * 2 + _sessions("train", trainable - 1)
    store = LabelStore(tmp_path / "store")
    for k, path in enumerate(sorted((synth / "images").rglob("*.jpg"))):
        image = cv2.imread(str(path))
        height, width = image.shape[:2]
        boxes = [
            Box(TILE_CODES[c], (x - w / 2) * width, (y - h / 2) * height, (x + w / 2) * width, (y + h / 2) * height,
                "model", 0.6, "unchecked")
            for c, x, y, w, h in read_labels(synth / "labels" / path.parent.name / f"{path.stem}.txt")
        ]  # fmt: skip
        corrections = {0: boxes[0].code} if k < trainable else {}
        if corrections:
            boxes[0] = replace(boxes[0], source="human", confidence=None, state="corrected")
        session = sessions[k] if k < trainable else sessions[-1]
        digest = hashlib.sha1(path.name.encode()).hexdigest()
        store.add_capture(Capture(image, digest, "snap", session, "taiwan", None, corrections, False, tuple(boxes)))
    return store


def test_train_on_a_store_with_no_vouched_photo_is_one_line_and_exit_2(tmp_path, capsys):
    from taicam.cli import main

    store = LabelStore(tmp_path / "store")
    store.add_image(photo(17), "table_001.jpg", boxes=[Box("1m", 0, 0, 30, 40, "model", 0.5)])
    assert main(["train", "--data", str(store.root), "--out", str(tmp_path / "run")]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("taicam train:") and "no checked, corrected or confirmed photo" in error and "\n" not in error


@pytest.mark.slow
def test_train_takes_the_store_directly_and_runs_one_epoch_on_cpu(tmp_path, capsys):
    pytest.importorskip("ultralytics", reason="the 'train' extra is not installed")
    from taicam.cli import main
    from vision.detector import TileDetector

    store = _store_of_kept_photos(tmp_path)
    splits = {entry["id"]: store.image(entry["id"])["split"] for entry in store.queue()}
    run = tmp_path / "run"
    argv = ["train", "--data", str(store.root), "--out", str(run), "--epochs", "1", "--imgsz", "128", "--batch", "4"]
    assert main([*argv, "--workers", "0"]) == 0
    assert "3 train and 2 val photos" in capsys.readouterr().out  # the unchecked sixth photo stays out
    exported = run / "store-store"
    assert len(list((exported / "labels" / "train").glob("*.txt"))) == 3
    assert len(list((exported / "labels" / "val").glob("*.txt"))) == 2
    assert TileDetector(run / "taicam-tiles.onnx", classifier_path=None).info.imgsz == (128, 128)
    assert {entry["id"]: store.image(entry["id"])["split"] for entry in store.queue()} == splits  # never moved


@pytest.mark.slow
def test_train_classifier_takes_the_store_directly_and_runs_one_epoch_on_cpu(tmp_path, capsys):
    pytest.importorskip("torch", reason="the 'train' extra is not installed")
    from taicam.cli import main
    from vision.classifier import TileClassifier

    store = _store_of_kept_photos(tmp_path)
    run = tmp_path / "run"
    argv = ["train-classifier", "--data", str(store.root), "--out", str(run), "--epochs", "1", "--threads", "1"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "3 train and 2 val photos" in out  # the unchecked sixth photo stays out
    metrics = json.loads(out.strip().splitlines()[-1])
    assert metrics["training_crops"] > 20 and 0 <= metrics["best_mean_val_accuracy"] <= 1
    assert "held out: store-store " in out  # the store's val photos are the held-out crops
    assert TileClassifier(run / "taicam-tile-classifier.onnx").side == 48


def test_train_classifier_with_no_labeled_box_is_one_line_and_exit_2(tmp_path, capsys):
    pytest.importorskip("torch", reason="the 'train' extra is not installed")
    from taicam.cli import main

    (tmp_path / "empty" / "images" / "train").mkdir(parents=True)
    assert main(["train-classifier", "--data", str(tmp_path / "empty"), "--out", str(tmp_path / "run")]) == 2
    error = capsys.readouterr().err.strip()
    assert error == "taicam train-classifier: no labeled boxes under images/train in the given folders"


def test_train_classifier_on_a_store_with_no_vouched_photo_is_one_line_and_exit_2(tmp_path, capsys):
    from taicam.cli import main

    store = LabelStore(tmp_path / "store")
    store.add_image(photo(17), "table_001.jpg", boxes=[Box("1m", 0, 0, 30, 40, "model", 0.5)])
    assert main(["train-classifier", "--data", str(store.root), "--out", str(tmp_path / "run")]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("taicam train-classifier:") and "no checked, corrected or confirmed photo" in error
    assert "\n" not in error


@pytest.mark.slow
def test_eval_compare_prints_a_row_per_model_and_their_difference(tmp_path, capsys):
    from taicam_datasets.synth import synthesize

    from taicam.cli import main
    from vision.detector import BUNDLED_MODEL

    # The two shipped detectors: the float network and its INT8 quantization, served by default.
    bundled_float, smaller = BUNDLED_MODEL, BUNDLED_MODEL.with_name("taicam-tiles.int8.onnx")
    data = tmp_path / "synth"
    synthesize(data, 12, seed=8, workers=1, progress=False, framing="hand")
    assert list((data / "images" / "val").glob("*.jpg")), "the synthesizer puts some scenes in val"
    assert main(["eval", "--compare", str(bundled_float), str(smaller), "--data", str(data), "--no-classifier"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [line.split() for line in lines]
    assert rows[0][0] == "model" and rows[1][0] == bundled_float.name and rows[2][0] == smaller.name
    assert rows[3][0] == "difference" and len(rows[3]) == len(rows[0])
    first, second = (list(map(float, row[1:])) for row in rows[1:3])
    assert [float(v) for v in rows[3][1:]] == pytest.approx([b - a for a, b in zip(first, second, strict=True)], abs=2e-4)
    assert lines[4].startswith("per-class recall change:")


def _labeled_folder(root, seeds: list[int]) -> list[list[list[float]]]:
    """Rendered hand snaps as a YOLO folder's val split; returns each photo's label rows, for a test to change."""
    from taicam_datasets.scenes import render_scene

    for folder in ("images/val", "labels/val"):
        (root / folder).mkdir(parents=True)
    rows = []
    for seed in seeds:
        scene = render_scene(seed, framing="hand")
        cv2.imwrite(str(root / "images" / "val" / f"snap{seed}.jpg"), scene.image)
        rows.append([list(label) for label in scene.labels])
    return rows


def _write_labels(root, seeds: list[int], rows: list[list[list[float]]]) -> None:
    for seed, labels in zip(seeds, rows, strict=True):
        lines = [f"{int(c)} {x:.6f} {y:.6f} {w:.6f} {h:.6f}" for c, x, y, w, h in labels]
        (root / "labels" / "val" / f"snap{seed}.txt").write_text("\n".join(lines) + "\n")


def test_eval_lists_the_photos_read_worst_with_each_tile_they_got_wrong(tmp_path, capsys):
    """`taicam eval --worst N` names each photo's missed and misread tiles against its labels: here a
    label given another code, a label moved off its tile by 0.4 of its width (a loose label, beside the
    box found there) and a label on bare cloth. Over every photo the lists add up to the report's totals."""
    from scoring.tiles import TILE_CODES
    from taicam.cli import main

    seeds = [3, 4, 5]
    rows = _labeled_folder(tmp_path, seeds)
    relabeled, moved = rows[0][2], rows[1][3]
    absent = next(k for k, code in enumerate(TILE_CODES[:27]) if all(label[0] != k for label in rows[0]))
    truth_code, relabeled[0] = TILE_CODES[int(relabeled[0])], absent
    moved[1] += 0.4 * moved[3]
    rows[1].append([TILE_CODES.index("7z"), 0.02, 0.02, 0.01, 0.01])  # a label on the photo's corner
    _write_labels(tmp_path, seeds, rows)

    assert main(["eval", "--data", str(tmp_path), "--worst", "100", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    worst = report["worst_photos"]
    by_photo = {photo["photo"]: photo for photo in worst}
    assert any(m["truth"] == TILE_CODES[absent] and m["read"] == truth_code for m in by_photo["snap3.jpg"]["misread"])
    shifted = by_photo["snap4.jpg"]
    assert "7z" in shifted["missed"] and shifted["missed_beside_a_box"] >= 1 and shifted["strays"] >= 1
    errors = [len(photo["missed"]) + len(photo["misread"]) for photo in worst]
    assert errors == sorted(errors, reverse=True) and min(errors) > 0
    # Every error of the report is in one photo's list.
    found = round(report["tile_recall"] * report["tiles"])
    assert sum(len(photo["missed"]) for photo in worst) == report["tiles"] - found
    assert sum(len(photo["misread"]) for photo in worst) == found - round(report["class_accuracy"] * found)

    assert main(["eval", "--data", str(tmp_path), "--worst", "1"]) == 0
    listed = capsys.readouterr().out.split("worst photos")[1].splitlines()[1:]
    assert len(listed) == 1 and listed[0].split()[0] == worst[0]["photo"]


def test_every_shipped_model_has_its_registry_entry():
    from service.model_version import file_version
    from vision.classifier import BUNDLED_CLASSIFIER, BUNDLED_FLOWER_READER
    from vision.detector import BUNDLED_MODEL
    from vision.pips import BUNDLED_PIP_COUNTS

    registry = json.loads((BUNDLED_MODEL.parent / "registry.json").read_text())["models"]
    for shipped in (BUNDLED_MODEL, BUNDLED_CLASSIFIER, BUNDLED_FLOWER_READER, BUNDLED_PIP_COUNTS):
        entry = next((e for e in registry if e["file"] == shipped.name), None)
        assert entry is not None, f"models/registry.json has no entry for {shipped.name}"
        assert file_version(shipped) == f"{shipped.name}@sha256:{entry['sha256'][:12]}", "a new file ships with a new entry"
        assert entry["shipped"] and entry["data"] and entry["figures"]["command"].startswith("taicam eval")


KEEPER = """
import hashlib, sys
import numpy as np
from taicam_datasets.labels import Box, Capture, LabelStore
store = LabelStore(sys.argv[1])
print("ready", flush=True)
k = 0
while True:
    k += 1
    image = np.full((480, 640, 3), k % 250, np.uint8)
    box = (Box("3m", 10, 10, 60, 80, "human", None, "corrected"),)
    digest = hashlib.sha1(str(k).encode()).hexdigest()
    store.add_capture(Capture(image, digest, "snap", "snap-kill", "taiwan", {"concealed": []}, {0: "3m"}, False, box))
"""


def test_killing_the_server_while_it_keeps_photos_leaves_every_kept_photo_whole(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    root = tmp_path / "labels"
    LabelStore(root)
    process = subprocess.Popen([sys.executable, "-c", KEEPER, str(root)], stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "ready"
    time.sleep(1.5)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    store = LabelStore(root)
    kept = store.queue()
    assert len(kept) > 3
    for entry in kept:  # every committed photo has its whole file and its boxes
        assert store.load(entry["id"]) is not None and store.image(entry["id"])["boxes"][0]["state"] == "corrected"
    # A file under its final name is whole (a kill mid-write leaves at most a hidden .tmp beside it).
    assert all(cv2.imread(str(path)) is not None for path in (root / "images").glob("[!.]*.jpg"))
