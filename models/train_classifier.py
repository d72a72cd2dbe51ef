"""``taicam train-classifier``: the crop classifier, trained with torch on CPU, exported to ONNX;
with ``--flowers``, the flower reader (the same network on the eight flowers, at 96 px).

Crops come from YOLO-layout folders (synthetic scenes and real photos): each labeled box is cut
from the full-resolution image with the margin the runtime uses, jittered as detector boxes are.
"""

from __future__ import annotations

import ast
import json
import random
import time
from pathlib import Path

import cv2
import numpy as np
from taicam_datasets.layout import list_images, read_labels

from scoring.tiles import FLOWERS, TILE_CODES
from vision.classifier import CROP_MARGIN, crop_tiles

from .classifier_config import SIDE, ClassifierConfig, TrainingInputError

BOX_JITTER = 0.06  # of the box size, per side: how far detector boxes stray from the labels
FLOWER_EXTRA_COPIES = 2
# A real tile's face often reaches the classifier from few pixels (a far camera, a small crop blown
# up), so with ``--coarsen`` that share of the training crops is shrunk to a random share of its
# side in this range and blown up again, a few sizes a batch.
COARSE_SIDE_SHARE = (0.25, 0.7)
COARSE_SIZES_A_BATCH = 4
COARSEST_SIDE = 4  # px: never fewer
# Real sets and rooms differ in colour more than the light changes of ``_augment``: with
# ``--recolour`` that share of the crops has its saturation, gamma and each channel's gain moved
# within these ranges, and sensor noise of up to ``RECOLOUR_NOISE`` added.
RECOLOUR_SATURATION = (0.5, 1.5)
RECOLOUR_GAMMA = (0.7, 1.4)
RECOLOUR_CHANNEL_GAIN = 0.15
RECOLOUR_NOISE = 0.03
# Real photos reach us mirrored (real-hk-v4 holds Roboflow's flipped copies; a front camera saves
# mirror images): with ``--mirror`` that share of the crops is flipped left to right.
# Tiles lie at every angle, and a real photo's axis-aligned box around a turned tile, squashed square,
# shows its face turned inside the crop: with ``--turn`` that share of the crops is also turned by up to
# this many degrees either way (the quarter turns of ``_augment`` give the rest), edges stretched.
TURN_MOST_DEGREES = 45.0
# A real crop's numeral or character is often cut off by the photo's edge or hidden under the tile in
# front: with ``--occlude`` that share of the crops has a band at one edge, of a share of its side in
# this range, replaced by the same band of another crop of the batch.
OCCLUDED_SIDE_SHARE = (0.1, 0.35)
# A real box often stops short of the tile's edge (a tight label, a tile half behind another), and the
# crop holds the rest of the face stretched to a whole one: with ``--truncate`` that share of the crops
# loses a band at one edge, of a share of its side in this range, and the rest is stretched back.
TRUNCATED_SIDE_SHARE = (0.1, 0.3)
# ``_edge_band`` numbers the edges left, bottom, top, right: edge and OPPOSITE_EDGE - edge face each other.
OPPOSITE_EDGE = 3
EXPORT_NAMES = {TILE_CODES: "taicam-tile-classifier.onnx", FLOWERS: "taicam-flower-reader.onnx"}
# Seeds of the real-tile scenes: training ones far from the benchmark's (0–59, 1000–1059); the
# held-out ones use val crops, as the benchmark does, with seeds of their own.
REAL_TRAINING_SEEDS = 5_000_000
REAL_HELD_OUT_SEEDS = range(2_000_000, 2_000_060)
BASE_CHANNELS = (32, 64, 64, 128, 128)  # at width 1: the shipped network until 2026-12-01 (1.1 MB)
BASE_STRIDES = (2, 2, 1, 2, 1)  # a 48-px crop: 24, 12, 12, 6, 6 px
# Widening a trained network copies its channels (``load_exported``); each copy's weights are moved
# by this share of the layer's spread, or the copies would learn the same thing forever.
WIDEN_NOISE = 0.02


def _only(codes: tuple[str, ...], crops: np.ndarray, classes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The crops of ``codes``' tiles, their classes renumbered in ``codes``' order."""
    wanted = np.array([TILE_CODES.index(code) for code in codes])
    keep = np.isin(classes, wanted)
    renumber = np.full(len(TILE_CODES), -1, np.int64)
    renumber[wanted] = np.arange(len(codes))
    return crops[keep], renumber[classes[keep]]


def collect_crops(folder: Path, split: str, copies: int, rng: random.Random, side: int = SIDE) -> tuple[np.ndarray, np.ndarray]:
    """Crops and class ids for every labeled box in ``folder/images/split``."""
    images_dir = folder / "images" / split
    if not images_dir.is_dir():
        return np.zeros((0, side, side, 3), np.uint8), np.zeros(0, np.int64)
    crops, classes = [], []
    for path in list_images(images_dir):
        labels = read_labels(folder / "labels" / split / f"{path.stem}.txt")
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None or not labels:
            continue
        h, w = image.shape[:2]
        rows = np.array(labels, np.float64)
        boxes = np.stack(
            [
                (rows[:, 1] - rows[:, 3] / 2) * w,
                (rows[:, 2] - rows[:, 4] / 2) * h,
                (rows[:, 1] + rows[:, 3] / 2) * w,
                (rows[:, 2] + rows[:, 4] / 2) * h,
            ],
            axis=1,
        )
        flowers = np.array([TILE_CODES[int(c)].endswith("f") for c in rows[:, 0]])
        for copy in range(copies + (FLOWER_EXTRA_COPIES if split == "train" else 0)):
            if copy >= copies:  # flowers are two a hand at most, and their faces differ only in small glyphs
                boxes, rows = boxes[flowers], rows[flowers]
                flowers = flowers[flowers]
            if len(boxes) == 0:
                break
            shaken = boxes.copy()
            if split == "train":  # held-out crops use the labeled boxes as they are
                size = np.concatenate([boxes[:, 2:] - boxes[:, :2]] * 2, axis=1)
                noise = np.array([[rng.uniform(-BOX_JITTER, BOX_JITTER) for _ in range(4)] for _ in boxes])
                shaken += noise * size
            crops.append(crop_tiles(image, shaken, side))
            classes.append(rows[:, 0].astype(np.int64))
    if not crops:
        return np.zeros((0, side, side, 3), np.uint8), np.zeros(0, np.int64)
    return np.concatenate(crops), np.concatenate(classes)


def real_scene_crops(split: str, seeds: range, rng: random.Random | None, side: int = SIDE) -> tuple[np.ndarray, np.ndarray]:
    """Upright crops of every face in real-tile scenes laid out from the ``split``'s crops.

    Training crops (``rng`` given) are jittered, and flowers cut ``FLOWER_EXTRA_COPIES`` more times.
    Only 1280 × 720 and 1920 × 1080 frames: the 12 MP ones take longest and give the same 48 px crops.
    """
    from taicam_datasets.real_scenes import FRAMES, REAL_HK, CropBank, face_crops, real_scene

    bank = CropBank.from_dataset(REAL_HK, split)
    crops, classes = [], []
    for seed in seeds:
        scene = real_scene(bank, seed, frame=FRAMES[seed % 2])
        codes = np.array([label[0] for label in scene.scene.labels], np.int64)
        flowers = np.array([TILE_CODES[c].endswith("f") for c in codes], bool)
        for copy in range(1 + (FLOWER_EXTRA_COPIES if rng is not None else 0)):
            chosen = np.ones(len(codes), bool) if copy == 0 else flowers
            crops.append(face_crops(scene, side, CROP_MARGIN, rng, BOX_JITTER if rng is not None else 0.0)[chosen])
            classes.append(codes[chosen])
    return np.concatenate(crops), np.concatenate(classes)


def build_network(classes: int = len(TILE_CODES), width: float = 1.0):
    """A plain five-conv network: cheap enough for 60 crops a frame on two cores; ``width`` scales its channels."""
    from torch import nn

    channels = [round(c * width) for c in BASE_CHANNELS]
    layers: list = []
    for cin, cout, stride in zip([3, *channels[:-1]], channels, BASE_STRIDES, strict=True):
        layers += [nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]
    return nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(channels[-1], classes))


def _augment(batch, generator):
    """Light photometric changes and quarter turns: tiles lie at every angle on a table."""
    import torch

    n = batch.shape[0]
    gain = 1 + (torch.rand(n, 1, 1, 1, generator=generator) - 0.5) * 0.5
    shift = (torch.rand(n, 1, 1, 1, generator=generator) - 0.5) * 0.2
    tint = 1 + (torch.rand(n, 3, 1, 1, generator=generator) - 0.5) * 0.15
    batch = (batch * gain * tint + shift).clamp(0, 1)
    turns = torch.randint(0, 4, (n,), generator=generator)
    for k in (1, 2, 3):
        chosen = turns == k
        if chosen.any():
            batch[chosen] = torch.rot90(batch[chosen], k, dims=(2, 3))
    return batch


def _coarsen(batch, share: float, generator):
    """``share`` of the crops shrunk to fewer pixels and blown up again, as a far camera sees them."""
    import torch
    from torch.nn import functional

    side = batch.shape[-1]
    chosen = torch.nonzero(torch.rand(batch.shape[0], generator=generator) < share).flatten()
    low, high = COARSE_SIDE_SHARE
    for group in chosen.chunk(COARSE_SIZES_A_BATCH):
        if len(group) == 0:
            continue
        small = max(COARSEST_SIDE, round(side * (low + (high - low) * float(torch.rand(1, generator=generator)))))
        shrunk = functional.interpolate(batch[group], size=(small, small), mode="area")
        batch[group] = functional.interpolate(shrunk, size=(side, side), mode="bilinear", align_corners=False)
    return batch


def _recolour(batch, share: float, generator):
    """``share`` of the crops in another set's colours and another camera's noise."""
    import torch

    n = batch.shape[0]
    chosen = torch.rand(n, 1, 1, 1, generator=generator) < share

    def spread(low: float, high: float, channels: int = 1):
        return low + (high - low) * torch.rand(n, channels, 1, 1, generator=generator)

    grey = batch.mean(dim=1, keepdim=True)
    moved = grey + (batch - grey) * spread(*RECOLOUR_SATURATION)
    moved = moved.clamp(0, 1) ** spread(*RECOLOUR_GAMMA)
    moved = moved * spread(1 - RECOLOUR_CHANNEL_GAIN, 1 + RECOLOUR_CHANNEL_GAIN, 3)
    noise = torch.randn(batch.shape, generator=generator) * spread(0, RECOLOUR_NOISE)
    return torch.where(chosen, (moved + noise).clamp(0, 1), batch)


def _mirror(batch, share: float, generator):
    """``share`` of the crops flipped left to right."""
    import torch

    chosen = torch.rand(batch.shape[0], 1, 1, 1, generator=generator) < share
    return torch.where(chosen, batch.flip(3), batch)


def _turn(batch, share: float, generator):
    """``share`` of the crops turned by an angle of up to ``TURN_MOST_DEGREES`` either way."""
    import torch
    from torch.nn import functional

    chosen = torch.rand(batch.shape[0], generator=generator) < share
    if not chosen.any():
        return batch
    angle = (torch.rand(int(chosen.sum()), generator=generator) * 2 - 1) * float(np.radians(TURN_MOST_DEGREES))
    cos, sin, zero = torch.cos(angle), torch.sin(angle), torch.zeros_like(angle)
    theta = torch.stack([torch.stack([cos, -sin, zero], dim=1), torch.stack([sin, cos, zero], dim=1)], dim=1)
    grid = functional.affine_grid(theta, list(batch[chosen].shape), align_corners=False)
    batch[chosen] = functional.grid_sample(batch[chosen], grid, padding_mode="border", align_corners=False)
    return batch


def _occlude(batch, share: float, generator):
    """``share`` of the crops with a band at one edge (``OCCLUDED_SIDE_SHARE`` of the side) taken from
    another crop of the batch: a neighbour's face, or cloth, where the tile's own was."""
    import torch

    n, side = batch.shape[0], batch.shape[-1]
    chosen = torch.nonzero(torch.rand(n, generator=generator) < share).flatten()
    if n < 2 or not len(chosen):
        return batch
    donors = (chosen + torch.randint(1, n, (len(chosen),), generator=generator)) % n  # never the crop itself
    source = batch.clone()
    for index, donor in zip(chosen.tolist(), donors.tolist(), strict=True):
        edge, depth = _drawn_edge(side, OCCLUDED_SIDE_SHARE, generator)
        rows, columns = _edge_band(edge, depth, side)
        batch[index, :, rows, columns] = source[donor, :, rows, columns]
    return batch


def _truncate(batch, share: float, generator):
    """``share`` of the crops with a band at one edge (``TRUNCATED_SIDE_SHARE`` of the side) cut away and
    the rest stretched back to the whole crop: a box that stops short of the tile's numeral."""
    import torch
    from torch.nn import functional

    side = batch.shape[-1]
    for index in torch.nonzero(torch.rand(batch.shape[0], generator=generator) < share).flatten().tolist():
        edge, depth = _drawn_edge(side, TRUNCATED_SIDE_SHARE, generator)
        # What the band leaves is the band along the opposite edge (left and right, bottom and top), as deep as the rest.
        rows, columns = _edge_band(OPPOSITE_EDGE - edge, side - depth, side)
        rest = batch[index : index + 1, :, rows, columns]
        batch[index] = functional.interpolate(rest, size=(side, side), mode="bilinear", align_corners=False)[0]
    return batch


def _drawn_edge(side: int, depth_share: tuple[float, float], generator) -> tuple[int, int]:
    """A random edge (as ``_edge_band`` numbers them) and a band depth in px, a share of ``side`` in ``depth_share``."""
    import torch

    low, high = depth_share
    depth = max(1, round(side * (low + (high - low) * float(torch.rand(1, generator=generator)))))
    return int(torch.randint(0, 4, (1,), generator=generator)), depth


def _edge_band(edge: int, depth: int, side: int) -> tuple[slice, slice]:
    """(rows, columns) of the band ``depth`` px deep along ``edge`` of a square crop: left, bottom, top,
    right (the order the shipped flower reader was trained with)."""
    near, far, whole = slice(0, depth), slice(side - depth, side), slice(None)
    return ((whole, near), (far, whole), (near, whole), (whole, far))[edge]


def _accuracy(network, crops: np.ndarray, classes: np.ndarray) -> float:
    import torch

    from vision.classifier import to_blob

    if len(crops) == 0:
        return float("nan")
    network.eval()
    right = 0
    with torch.no_grad():
        for start in range(0, len(crops), 1024):
            logits = network(torch.from_numpy(to_blob(crops[start : start + 1024])))
            right += int((logits.argmax(1).numpy() == classes[start : start + 1024]).sum())
    return right / len(crops)


def train_classifier(config: ClassifierConfig, log=print) -> dict:
    """Train, keep the best epoch on held-out crops, export ONNX with metadata; returns the metrics."""
    import torch

    from vision.classifier import to_blob

    torch.manual_seed(config.seed)
    torch.set_num_threads(config.threads)
    rng = random.Random(config.seed)
    side = config.side
    parts = [collect_crops(folder, "train", config.copies, rng, side) for folder in config.data]
    held_out = {folder.name: collect_crops(folder, "val", 1, rng, side) for folder in config.val}
    if config.real_scenes:
        from taicam_datasets.real_scenes import REAL_HK

        if not REAL_HK.is_dir():
            raise TrainingInputError(f"real-tile scenes are laid out from {REAL_HK}, which is absent (set TAICAM_REAL_HK)")
        seeds = range(REAL_TRAINING_SEEDS, REAL_TRAINING_SEEDS + config.real_scenes)
        parts.append(real_scene_crops("train", seeds, rng, side))
        held_out["real_scenes_val_crops"] = real_scene_crops("val", REAL_HELD_OUT_SEEDS, None, side)
    if config.codes != TILE_CODES:
        parts = [_only(config.codes, *part) for part in parts]
        held_out = {name: _only(config.codes, *data) for name, data in held_out.items()}
    crops = np.concatenate([p[0] for p in parts])
    classes = np.concatenate([p[1] for p in parts])
    log(f"{len(crops)} training crops; held out: " + ", ".join(f"{k} {len(v[1])}" for k, v in held_out.items()))
    if len(crops) == 0:
        raise TrainingInputError("no labeled boxes under images/train in the given folders")

    network = build_network(len(config.codes), config.width)
    if config.init is not None:
        load_exported(network, config.init, config.codes, config.seed)
    steps_per_epoch = int(np.ceil(len(crops) * config.epoch_share / config.batch))
    optimiser = torch.optim.AdamW(network.parameters(), lr=config.lr, weight_decay=5e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, config.lr, total_steps=config.epochs * steps_per_epoch)
    # Rare classes (flowers, backs) weigh more, so that 梅 is not simply guessed as the common 菊.
    counts = np.bincount(classes, minlength=len(config.codes)).astype(np.float64)
    weights = torch.tensor(
        np.where(counts > 0, (counts.sum() / np.maximum(counts, 1) / len(config.codes)) ** 0.5, 0), dtype=torch.float32
    )
    generator = torch.Generator().manual_seed(config.seed)
    config.out.mkdir(parents=True, exist_ok=True)
    best_path = config.out / "best.pt"
    history, best = [], -1.0
    for epoch in range(config.epochs):
        network.train()
        if config.init is not None:  # the exported batch norms are folded into the convolutions: keep them fixed
            for module in network.modules():
                if isinstance(module, torch.nn.BatchNorm2d):
                    module.eval()
        start = time.perf_counter()
        order = torch.randperm(len(crops), generator=generator).numpy()
        total = 0.0
        for step in range(steps_per_epoch):
            chosen = order[step * config.batch : (step + 1) * config.batch]
            batch = _augment(torch.from_numpy(to_blob(crops[chosen])), generator)
            if config.turn:
                batch = _turn(batch, config.turn, generator)
            if config.coarsen:
                batch = _coarsen(batch, config.coarsen, generator)
            if config.recolour:
                batch = _recolour(batch, config.recolour, generator)
            if config.mirror:
                batch = _mirror(batch, config.mirror, generator)
            if config.occlude:
                batch = _occlude(batch, config.occlude, generator)
            if config.truncate:
                batch = _truncate(batch, config.truncate, generator)
            loss = torch.nn.functional.cross_entropy(
                network(batch), torch.from_numpy(classes[chosen]), weight=weights, label_smoothing=0.05
            )
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss.detach())
        scores = {name: _accuracy(network, *data) for name, data in held_out.items()}
        held_out_scores = [value for value in scores.values() if not np.isnan(value)]
        mean = float(np.mean(held_out_scores)) if held_out_scores else 0.0
        history.append(
            {"epoch": epoch + 1, "loss": round(total / steps_per_epoch, 4), **{k: round(v, 4) for k, v in scores.items()}}
        )
        log(f"epoch {epoch + 1}/{config.epochs} {time.perf_counter() - start:.0f}s " + json.dumps(history[-1]))
        if mean > best or not held_out_scores:  # none of these codes held out: the last epoch is kept
            best = mean
            torch.save(network.state_dict(), best_path)
    network.load_state_dict(torch.load(best_path))
    onnx_path = export_onnx(network, config.out / EXPORT_NAMES[config.codes], config.codes, side)
    metrics = {"history": history, "best_mean_val_accuracy": round(best, 4), "training_crops": len(crops)}
    (config.out / "metrics.json").write_text(json.dumps(metrics, indent=1))
    log(f"exported {onnx_path}")
    return metrics


def load_exported(network, path: Path, codes: tuple[str, ...] = TILE_CODES, seed: int = 0) -> None:
    """Start from an exported classifier: the export folded each batch norm into its convolution,
    so the convolutions take the folded weights and the batch norms become a bias each.

    A network reading fewer ``codes`` (a flower reader) takes those codes' rows of the last layer.
    A wider network (``width`` above the export's) starts as the same function (Net2WiderNet, Chen
    et al. 2016): each extra channel copies one of the layer's channels, and the next layer splits
    that channel's weight among its copies; ``WIDEN_NOISE`` lets the copies part.
    """
    import onnx
    import torch
    from onnx import numpy_helper

    try:
        model = onnx.load(str(path))
        names = ast.literal_eval({entry.key: entry.value for entry in model.metadata_props}["names"])
    except Exception as error:  # protobuf's DecodeError, no names entry, an unreadable one
        raise TrainingInputError(f"{path}: not an exported classifier ({error!r})") from error
    missing = [code for code in codes if code not in names]
    if missing:
        raise TrainingInputError(f"{path} does not read {', '.join(missing)}")
    graph = model.graph
    rows = [names.index(code) for code in codes]
    values = {item.name: numpy_helper.to_array(item) for item in graph.initializer}
    convs = [node for node in graph.node if node.op_type == "Conv"]
    gemm = next(node for node in graph.node if node.op_type == "Gemm")
    modules = list(network)
    pairs = [(m, modules[i + 1]) for i, m in enumerate(modules) if isinstance(m, torch.nn.Conv2d)]
    if len(pairs) != len(convs):
        raise TrainingInputError(f"{path}: {len(convs)} convolutions, the network has {len(pairs)}")
    rng = np.random.default_rng(seed)
    source = np.arange(3)  # the channel of the export each input channel copies: RGB as they are
    with torch.no_grad():
        for (conv, norm), node in zip(pairs, convs, strict=True):
            weight, bias = values[node.input[1]], values[node.input[2]]
            exported = len(weight)
            wider = _copied_channels(exported, conv.out_channels, rng)  # the copies come after the originals
            # Each input channel's weight shared among the copies of the channel it copies.
            weight = weight[wider][:, source] / np.bincount(source)[source][None, :, None, None]
            weight[exported:] += rng.normal(0, WIDEN_NOISE * weight.std(), weight[exported:].shape)
            conv.weight.copy_(torch.from_numpy(weight.astype(np.float32)))
            norm.weight.fill_(1.0)
            norm.bias.copy_(torch.from_numpy(bias[wider]))
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
            source = wider
        linear = modules[-1]
        features = values[gemm.input[1]][rows][:, source] / np.bincount(source)[source]
        linear.weight.copy_(torch.from_numpy(features.astype(np.float32)))
        linear.bias.copy_(torch.from_numpy(values[gemm.input[2]][rows]))


def _copied_channels(have: int, want: int, rng: np.random.Generator) -> np.ndarray:
    """Which of ``have`` channels each of ``want`` copies: the first ``have`` themselves, the rest at random."""
    if want < have:
        raise TrainingInputError(f"a network of {want} channels cannot start from one of {have}: --width is below the export's")
    return np.concatenate([np.arange(have), rng.integers(0, have, want - have)])


def export_onnx(network, path: Path, codes: tuple[str, ...] = TILE_CODES, side: int = SIDE) -> Path:
    """ONNX with a dynamic batch, and the class list and crop side in its metadata."""
    import onnx
    import torch

    network.eval()
    dummy = torch.zeros(1, 3, side, side)
    torch.onnx.export(
        network, (dummy,), str(path), input_names=["crops"], output_names=["logits"],
        dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}}, opset_version=17, dynamo=False,
    )  # fmt: skip
    model = onnx.load(str(path))
    for key, value in {"names": repr(list(codes)), "side": str(side), "margin": str(CROP_MARGIN)}.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.save(model, str(path))
    return path
