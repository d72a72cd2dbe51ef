"""INT8 export: which nodes stay float, and what the shipped INT8 files are."""

from __future__ import annotations

from pathlib import Path

import pytest

from models.quantize import DETECTION_HEAD, STEM, float_nodes, int8_path
from vision.detector import BUNDLED_MODEL

onnx = pytest.importorskip("onnx", reason="onnx comes with the 'train' extra")
MODELS = Path(__file__).resolve().parents[1] / "models"


def test_the_stem_and_the_head_stay_float_but_for_the_head_branch_convolutions():
    kept_float = set(float_nodes(MODELS / "taicam-tiles.onnx"))
    graph = onnx.load(str(MODELS / "taicam-tiles.onnx")).graph
    head = {node.name: node.op_type for node in graph.node if node.name.startswith(DETECTION_HEAD)}
    assert "/model.23/dfl/Expectation" in kept_float  # the DFL's sum over its bins, with the DFL
    assert {name for name, op in head.items() if op != "Conv"} <= kept_float
    assert "/model.23/cv3.0/cv3.0.2/Conv" not in kept_float  # class branch: quantized
    assert "/model.0/conv/Conv" in kept_float
    assert "/model.1/conv/Conv" not in kept_float
    assert all(name.startswith((DETECTION_HEAD, STEM)) for name in kept_float)


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
