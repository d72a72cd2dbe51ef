"""The DFL rewrite: the same numbers as ultralytics' export, without a softmax over an inner axis."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from models.fast_head import rewrite_dfl

onnx = pytest.importorskip("onnx", reason="onnx comes with the 'train' extra")
ort = pytest.importorskip("onnxruntime")
SHIPPED = Path(__file__).resolve().parents[1] / "models" / "taicam-tiles.onnx"
ANCHORS = 50


def exported_dfl():
    """The DFL as ultralytics exports it: (1, 64, a) → (1, 4, 16, a) → (1, 16, 4, a) → softmax over
    the bins → a 1 × 1 convolution with the bin numbers → (1, 4, a)."""
    from onnx import TensorProto, helper, numpy_helper

    nodes = [
        helper.make_node("Reshape", ["logits", "split_shape"], ["sides"], name="/model.23/dfl/Reshape"),
        helper.make_node("Transpose", ["sides"], ["bins_first"], name="/model.23/dfl/Transpose", perm=[0, 2, 1, 3]),
        helper.make_node("Softmax", ["bins_first"], ["probabilities"], name="/model.23/dfl/Softmax", axis=1),
        helper.make_node("Conv", ["probabilities", "bin_numbers"], ["expected"], name="/model.23/dfl/conv/Conv"),
        helper.make_node("Reshape", ["expected", "out_shape"], ["distances"], name="/model.23/dfl/Reshape_1"),
    ]
    constants = [
        numpy_helper.from_array(np.array([1, 4, 16, ANCHORS], np.int64), "split_shape"),
        numpy_helper.from_array(np.arange(16, dtype=np.float32).reshape(1, 16, 1, 1), "bin_numbers"),
        numpy_helper.from_array(np.array([1, 4, ANCHORS], np.int64), "out_shape"),
    ]
    graph = helper.make_graph(
        nodes,
        "dfl",
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 64, ANCHORS])],
        [helper.make_tensor_value_info("distances", TensorProto.FLOAT, [1, 4, ANCHORS])],
        constants,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def run(model, logits: np.ndarray) -> np.ndarray:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {"logits": logits})[0]


def test_the_rewritten_dfl_gives_the_exported_distances():
    model = exported_dfl()
    logits = np.random.default_rng(0).normal(0, 4, (1, 64, ANCHORS)).astype(np.float32)
    before = run(model, logits)
    assert rewrite_dfl(model)
    onnx.checker.check_model(model)
    ops = [node.op_type for node in model.graph.node]
    assert "Conv" not in ops and "MatMul" in ops
    np.testing.assert_allclose(run(model, logits), before, rtol=1e-6, atol=1e-5)
    assert not rewrite_dfl(model)  # a second pass finds nothing left to do


def test_the_shipped_detector_ships_rewritten():
    softmaxes = [n for n in onnx.load(str(SHIPPED)).graph.node if n.op_type == "Softmax" and "/dfl/" in n.name]
    assert softmaxes and all(a.i == -1 for n in softmaxes for a in n.attribute if a.name == "axis")
