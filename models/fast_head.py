"""Rewrite the detector's DFL so that onnxruntime runs it fast, with the same output to the bit.

Ultralytics exports the DFL (each box side as the expectation of 16 bins) as a Transpose, a
Softmax over axis 1 of (batch, 16, 4, anchors), and a 1 × 1 convolution whose weights are the bin
numbers. onnxruntime runs a softmax over an inner axis by moving that axis last and back, which
took a tenth of the INT8 detector's time. The same sum reads: bins last, Softmax over the last
axis, MatMul with the bin numbers. Every export runs it (``models/train.py``), before the INT8 step:

    python -m models.fast_head models/taicam-tiles.onnx      # in place; prints whether it changed
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

DFL_SCOPE = "/dfl/"  # ultralytics names the DFL's nodes /model.<head>/dfl/...
BINS_LAST = (0, 1, 3, 2)  # (batch, 4 sides, 16 bins, anchors) → (batch, 4, anchors, 16)


def rewrite_dfl(model) -> bool:
    """Rewrite ``model`` (an ``onnx.ModelProto``) in place; False when it has no such DFL (say, already rewritten)."""
    from onnx import helper, numpy_helper

    graph = model.graph
    softmax = next((n for n in graph.node if n.op_type == "Softmax" and DFL_SCOPE in n.name), None)
    if softmax is None:
        return False
    producers = {out: n for n in graph.node for out in n.output}
    consumers = [n for n in graph.node if softmax.output[0] in n.input]
    transpose = producers.get(softmax.input[0])
    if transpose is None or transpose.op_type != "Transpose" or len(consumers) != 1 or consumers[0].op_type != "Conv":
        return False
    conv = consumers[0]
    weights = next(i for i in graph.initializer if i.name == conv.input[1])
    bins = numpy_helper.to_array(weights).reshape(-1, 1).astype(np.float32)  # (16, 1): 0, 1, …, 15
    scope = softmax.name.rsplit(DFL_SCOPE, 1)[0] + DFL_SCOPE
    bins_name, last_name, probabilities = f"{scope}bins", f"{scope}bins_last", f"{scope}bin_probabilities"
    replacement = [
        helper.make_node(
            "Transpose", [transpose.input[0]], [last_name], name=f"{scope}TransposeBinsLast", perm=list(BINS_LAST)
        ),
        helper.make_node("Softmax", [last_name], [probabilities], name=f"{scope}SoftmaxLastAxis", axis=-1),
        # (batch, 4, anchors, 1): the Reshape after the old convolution reads it as (batch, 4, anchors) alike.
        helper.make_node("MatMul", [probabilities, bins_name], [conv.output[0]], name=f"{scope}Expectation"),
    ]
    position = list(graph.node).index(transpose)
    for node in (transpose, softmax, conv):
        graph.node.remove(node)
    for offset, node in enumerate(replacement):
        graph.node.insert(position + offset, node)
    graph.initializer.remove(weights)
    graph.initializer.append(numpy_helper.from_array(bins, bins_name))
    # The old convolution's output shape was recorded as (batch, 1, 4, anchors); let the runtime infer it anew.
    stale = [v for v in graph.value_info if v.name in {conv.output[0], softmax.output[0], transpose.output[0]}]
    for value in stale:
        graph.value_info.remove(value)
    return True


def rewrite_file(source: Path, target: Path | None = None) -> bool:
    """Rewrite the ONNX file ``source`` into ``target`` (default: in place); whether anything changed."""
    import onnx

    model = onnx.load(str(source))
    changed = rewrite_dfl(model)
    if changed:
        onnx.checker.check_model(model)
        onnx.save(model, str(target or source))
    return changed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("--out", type=Path, help="where to write it (default: in place)")
    args = parser.parse_args()
    changed = rewrite_file(args.model, args.out)
    print(f"{args.model}: DFL {'rewritten' if changed else 'left as it was (no inner-axis softmax found)'}")


if __name__ == "__main__":
    main()
