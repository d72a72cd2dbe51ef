"""INT8 export: which nodes stay float, and what the shipped INT8 files are."""

from __future__ import annotations

from pathlib import Path

import pytest

from models.quantize import DETECTION_HEAD, head_nodes, int8_path
from vision.detector import BUNDLED_MODEL

onnx = pytest.importorskip("onnx", reason="onnx comes with the 'train' extra")
MODELS = Path(__file__).resolve().parents[1] / "models"


def test_the_head_stays_float_but_for_its_branch_convolutions():
    kept_float = set(head_nodes(MODELS / "taicam-tiles.onnx"))
    graph = onnx.load(str(MODELS / "taicam-tiles.onnx")).graph
    head = {node.name: node.op_type for node in graph.node if node.name.startswith(DETECTION_HEAD)}
    assert "/model.23/dfl/conv/Conv" in kept_float  # the DFL's 1 × 1 convolution, with the DFL
    assert {name for name, op in head.items() if op != "Conv"} <= kept_float
    assert "/model.23/cv3.0/cv3.0.2/Conv" not in kept_float  # class branch: quantized
    assert all(name.startswith(DETECTION_HEAD) for name in kept_float)


def test_shipped_int8_models_sit_beside_the_float_ones_and_keep_their_metadata():
    assert int8_path(MODELS / "taicam-tiles.onnx") == MODELS / "taicam-tiles.int8.onnx"
    for name in ("taicam-tiles", "taicam-tile-classifier"):
        quantized, original = MODELS / f"{name}.int8.onnx", MODELS / f"{name}.onnx"
        if not quantized.exists():
            pytest.skip(f"{quantized.name} is not shipped")
        assert quantized.stat().st_size < 25 * 1024 * 1024
        keys = {p.key for p in onnx.load(str(original)).metadata_props}
        assert keys <= {p.key for p in onnx.load(str(quantized)).metadata_props}
    # Quantized convolutions: weights as INT8 initializers behind DequantizeLinear nodes.
    ops = {node.op_type for node in onnx.load(str(BUNDLED_MODEL)).graph.node}
    assert "DequantizeLinear" in ops or BUNDLED_MODEL.name == "taicam-tiles.onnx"
