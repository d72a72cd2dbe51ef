"""The synthetic generator and the training command, at tiny sizes on the CPU."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from taicam_datasets.faces import FACE_H, FACE_W, FaceStyle, draw_face
from taicam_datasets.layout import read_labels
from taicam_datasets.scenes import render_scene
from taicam_datasets.synth import synthesize

from scoring.tiles import TILE_CODES


def test_every_class_has_a_face():
    import random

    rng = random.Random(0)
    style = FaceStyle.random(rng)
    faces = {code: draw_face(code, style, rng) for code in TILE_CODES}
    assert all(face.shape == (FACE_H, FACE_W, 3) for face in faces.values())
    # Distinct tiles look distinct: no two faces are pixel-identical.
    flat = {code: face.tobytes() for code, face in faces.items()}
    assert len(set(flat.values())) == len(TILE_CODES)


def test_every_tile_of_the_hand_lies_on_the_cloth():
    """The longest rows at the largest tiles and widest gaps: five chows, eight flowers beside them, and a
    sixteen-tile concealed row. Laid as drawn, such rows ran past the cloth's right edge, and a tile off
    the canvas is in no photo (57 of 1,380 real-tile benchmark scenes lost one)."""
    import random

    from taicam_datasets.scenes import CANVAS_W, _Canvas, _lay_hand

    chows = [
        {"kind": "chow", "tiles": [f"{n}{suit}", f"{n + 1}{suit}", f"{n + 2}{suit}"]}
        for n, suit in zip((1, 2, 3, 4, 5), "mpsmp", strict=True)
    ]
    layouts = [
        {"concealed": ["5z"], "winning_tile": "5z", "melds": chows, "flowers": [f"{n}f" for n in range(1, 9)]},
        {
            "concealed": [f"{n}m" for n in range(1, 10)] + [f"{n}p" for n in range(1, 8)],
            "winning_tile": "8p",
            "melds": [],
            "flowers": ["1f"],
        },
    ]
    for seed in range(40):
        for layout in layouts:
            rng = random.Random(seed)
            canvas = _Canvas(rng)
            _lay_hand(canvas, layout, FaceStyle.random(rng), rng, tile_w=84.0)
            corners = np.concatenate([tile.quad for tile in canvas.tiles])
            assert len(canvas.tiles) == len(layout["concealed"]) + 1 + 15 * bool(layout["melds"]) + len(layout["flowers"])
            # A tile laid at the edge and tilted a degree puts a corner a few px past it.
            assert corners[:, 0].min() >= -4 and corners[:, 0].max() <= CANVAS_W + 4 and corners[:, 1].min() >= 0, (
                seed,
                layout["concealed"],
            )


def test_scenes_are_reproducible_and_labels_lie_inside_the_image():
    first, again = render_scene(11), render_scene(11)
    assert np.array_equal(first.image, again.image) and first.labels == again.labels
    assert first.labels
    for cls, x, y, w, h in first.labels:
        assert 0 <= cls < len(TILE_CODES)
        assert x - w / 2 >= 0 and x + w / 2 <= 1.0001 and y - h / 2 >= 0 and y + h / 2 <= 1.0001


def test_synth_writes_a_yolo_layout(tmp_path):
    data_yaml = synthesize(tmp_path / "synth", 12, seed=2, workers=2, progress=False)
    text = data_yaml.read_text()
    assert str((tmp_path / "synth" / "images" / "train").resolve()) in text
    assert "42: 'back'" in text
    images = sorted((tmp_path / "synth" / "images" / "train").glob("*.jpg"))
    assert len(images) + len(list((tmp_path / "synth" / "images" / "val").glob("*.jpg"))) == 12
    assert read_labels(tmp_path / "synth" / "labels" / "train" / f"{images[0].stem}.txt")


@pytest.mark.slow
def test_one_epoch_train_and_export_loads_in_onnxruntime(tmp_path):
    pytest.importorskip("ultralytics", reason="the 'train' extra is not installed")
    from models.train import TrainConfig, train
    from vision.detector import TileDetector

    data = tmp_path / "synth"
    synthesize(data, 10, seed=3, workers=2, progress=False)
    config = TrainConfig(data=(data,), val=(data,), out=tmp_path / "run", epochs=1, imgsz=128, batch=4, workers=0)
    onnx_path = train(config)
    detector = TileDetector(onnx_path)
    assert detector.info.names == TILE_CODES and detector.info.imgsz == (128, 128)
    image = np.zeros((200, 300, 3), np.uint8)
    assert len(detector.detect(image, conf=0.5)) >= 0
    assert Path(onnx_path).stat().st_size < 25 * 1024 * 1024
    # Every export ships an INT8 copy beside the float model (models/quantize.py).
    int8 = TileDetector(Path(onnx_path).with_name("taicam-tiles.int8.onnx"), classifier_path=None)
    assert int8.info.names == TILE_CODES and len(int8.detect(image, conf=0.5)) >= 0


@pytest.mark.slow
def test_the_gpu_recipe_trains_its_runs_side_by_side_on_a_tiny_set(tmp_path):
    """models/gpu_recipe.sh as a GPU session runs it, on CPU: the scarce GPU minutes must not be the
    first place the script is tried. Renders stand in for the real photos (a YOLO layout with both splits)."""
    pytest.importorskip("ultralytics", reason="the 'train' extra is not installed")
    from vision.detector import TileDetector

    real, out, work = tmp_path / "real", tmp_path / "out", tmp_path / "work"
    synthesize(real, 6, seed=5, workers=2, progress=False)
    tiny = {"DEVICE": "cpu", "N_SYNTH": "4", "N_REAL": "20", "PROCS": "2", "HOURS": "0.0003", "IMGSZ": "128", "BATCH": "4"}
    env = os.environ | tiny | {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",  # this venv's python3
        "WORKERS": "2", "REAL_DIR": str(real), "RUNS": "0.0002:2 0.0004:1", "OUT_DIR": str(out), "WORK": str(work),
    }  # fmt: skip
    repo = Path(__file__).resolve().parents[1]
    done = subprocess.run(["bash", "models/gpu_recipe.sh"], cwd=repo, env=env, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    for name, real_listed in (("lr0.0002-real2", 2), ("lr0.0004-real1", 1)):
        kept = {path.name for path in (out / name).iterdir()}
        assert kept == {"taicam-tiles.onnx", "taicam-tiles.int8.onnx", "taicam-tiles.pt", "results.csv"}
        assert TileDetector(out / name / "taicam-tiles.onnx", classifier_path=None).info.names == TILE_CODES
        # Each run trains on its own copy of the data, with the real photos listed as often as asked.
        own_photos = f"- {work / f'{name}-data' / 'realhk' / 'images' / 'train'}\n"
        assert (work / name / "data.yaml").read_text().count(own_photos) == real_listed


@pytest.mark.slow
def test_the_shipped_detector_rebuilt_for_fine_tuning_gives_its_own_output(tmp_path):
    pytest.importorskip("ultralytics", reason="the 'train' extra is not installed")
    import cv2
    import onnxruntime as ort
    import torch

    from models.reexport import rebuild_trainable
    from models.train import TrainConfig, train
    from vision.detector import BUNDLED_MODEL, TileDetector

    size = 320
    images = [
        np.ascontiguousarray(
            cv2.resize(render_scene(seed, "hand").image[:, :, ::-1], (size, size)).transpose(2, 0, 1), dtype=np.float32
        )
        / 255
        for seed in range(4)
    ]
    batch = np.stack(images)
    model = rebuild_trainable(BUNDLED_MODEL, images)
    shipped = ort.InferenceSession(str(BUNDLED_MODEL), providers=["CPUExecutionProvider"]).run(None, {"images": batch})[0]
    with torch.no_grad():
        rebuilt = model(torch.from_numpy(batch))[0].numpy()
        model.train()  # batch statistics of the measuring batch are the rebuilt norms' own
        training = model(torch.from_numpy(batch))
        decoded = model.model[-1]._inference(training).numpy()  # the head's raw training output, decoded
    boxes_and_scores = np.abs(shipped - rebuilt).max()
    assert boxes_and_scores < 0.01, f"eval mode differs from the shipped model by {boxes_and_scores}"
    scores = np.abs(decoded[:, 4:] - shipped[:, 4:]).max()
    assert scores < 0.05, f"train mode should start at the shipped model; class scores differ by {scores}"

    data = tmp_path / "synth"
    synthesize(data, 10, seed=3, workers=2, progress=False)
    config = TrainConfig(
        data=(data,),
        val=(data,),
        out=tmp_path / "tune",
        epochs=1,
        imgsz=128,
        batch=4,
        workers=0,
        arch=str(BUNDLED_MODEL),
        lr0=0.0005,
        warmup_epochs=0,
    )
    assert TileDetector(train(config), classifier_path=None).info.names == TILE_CODES


def test_plant_flowers_give_each_plant_its_own_drawing_and_leave_other_faces_alone():
    import random
    from dataclasses import replace

    style = replace(FaceStyle.random(random.Random(0)), hk_corners=True)
    plants = replace(style, plant_flowers=True)
    art = slice(48, FACE_H)  # below the corners' numeral and character

    def face(code: str, drawn_as: FaceStyle) -> np.ndarray:
        return draw_face(code, drawn_as, random.Random(1)).astype(np.int16)

    drawings = [face(code, plants)[art] for code in ("5f", "6f", "7f", "8f")]
    for i, first in enumerate(drawings):
        for second in drawings[i + 1 :]:
            assert np.abs(first - second).mean() > 10  # measured 22–30: 梅, 蘭, 菊 and 竹 each drawn apart
    assert np.array_equal(face("5m", plants), face("5m", style))
    assert not np.array_equal(face("5f", plants), face("5f", style))


def test_synth_draws_plant_flowers_on_request(tmp_path):
    synthesize(tmp_path / "plants", 2, seed=2, workers=1, progress=False, plant_flowers=True)
    assert (
        len(list((tmp_path / "plants" / "labels" / "train").glob("*.txt")))
        + len(list((tmp_path / "plants" / "labels" / "val").glob("*.txt")))
        == 2
    )


def _outlines(face: np.ndarray, face_rgb: tuple[int, int, int]) -> int:
    """Separate marks drawn on ``face`` (a ring and the disc inside it count once), inside its rim."""
    import cv2

    ink = (np.abs(face.astype(np.int16) - np.array(face_rgb[::-1])).max(axis=2) > 40).astype(np.uint8)
    inner = np.zeros_like(ink)
    inner[8:-8, 8:-8] = ink[8:-8, 8:-8]
    # A stick's joints are lines of the face colour across it: closing them up keeps a stick one mark.
    inner = cv2.morphologyEx(inner, cv2.MORPH_CLOSE, np.ones((3, 1), np.uint8))
    return len(cv2.findContours(inner, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0])


def test_varied_suits_draw_every_circle_and_stick_apart_in_every_art():
    import itertools
    import random
    from dataclasses import replace

    from taicam_datasets.faces import BIRD_KINDS, LAYOUT_JITTER, PIP_KINDS, STICK_KINDS, SUIT_ART_SIZES, SUIT_INKS, SuitArt

    # Pips pushed towards each other by the most jitter, at the largest size: the tightest a set draws.
    closest = tuple((LAYOUT_JITTER * (-1) ** k, -LAYOUT_JITTER * (-1) ** (k // 2)) for k in range(9))
    base = replace(FaceStyle.random(random.Random(0)), hk_corners=False)
    for pip, stick, inks, spokes in itertools.product(PIP_KINDS, STICK_KINDS, sorted(SUIT_INKS), (4, 5, 6, 8, 12)):
        art = SuitArt(pip, spokes, stick, inks, SUIT_ART_SIZES[1], closest)
        style = replace(base, suit_art=art)
        for suit, n in itertools.product("ps", range(2, 10)):
            face = draw_face(f"{n}{suit}", style, random.Random(n))
            assert _outlines(face, style.face_rgb) == n, (art, f"{n}{suit}")
    # The default drawing is untouched: the shipped models and the render benchmarks rely on it.
    assert _outlines(draw_face("4p", base, random.Random(1)), base.face_rgb) == 4
    birds = {
        (bird, facing): draw_face("1s", replace(base, suit_art=replace(art, bird=bird, facing=facing)), random.Random(1))
        for bird, facing in itertools.product(BIRD_KINDS, (-1, 1))
    }
    drawn = [face.astype(np.int16) for face in birds.values()]
    for i, first in enumerate(drawn):
        for second in drawn[i + 1 :]:
            assert np.abs(first - second).mean() > 8  # measured 16–28: each bird its own, and turned either way


def test_synth_varies_suits_on_request(tmp_path):
    assert not np.array_equal(render_scene(11, "hand").image, render_scene(11, "hand", varied_suits=True).image)
    synthesize(tmp_path / "varied", 2, seed=2, workers=1, progress=False, varied_suits=True)
    assert len(list((tmp_path / "varied").glob("labels/*/*.txt"))) == 2
