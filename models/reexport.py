"""Export the shipped detector again with other export options, from the weights inside its ONNX.

The shipped ONNX came from a GPU run whose ``.pt`` was not kept. Ultralytics names the ONNX
initializers after the fused network's parameters, so the network can be rebuilt from the
same ``.yaml``, loaded with those weights, checked against the original output and exported
again, for instance with a dynamic input shape:

    python -m models.reexport models/taicam-tiles.onnx --dynamic --out models/taicam-tiles.onnx
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

import numpy as np

from scoring.tiles import TILE_CODES

from .fast_head import rewrite_file
from .train import offline_ultralytics

DFL_BINS = "dfl.conv.weight"


def rebuild(onnx_path: Path, arch: str = "yolo11n.yaml"):
    """A fused ultralytics DetectionModel carrying the ONNX file's weights."""
    import onnx
    import torch
    from onnx import numpy_helper

    offline_ultralytics(Path(tempfile.gettempdir()) / "taicam-ultralytics-config")
    from ultralytics.nn.tasks import DetectionModel

    # A dynamic-shape export adds graph constants (onnx::Split_…) beside the parameters (model.…).
    weights = {
        i.name: torch.from_numpy(numpy_helper.to_array(i).copy())
        for i in onnx.load(str(onnx_path)).graph.initializer
        if i.name.startswith("model.")
    }
    model = DetectionModel(arch, nc=len(TILE_CODES), verbose=False).fuse(verbose=False)
    missing, unexpected = model.load_state_dict(weights, strict=False)
    # The DFL's fixed bin numbers: a rewritten head (models/fast_head.py) holds them as a MatMul
    # constant under another name, and the network built here has them already.
    missing = [key for key in missing if not key.endswith(DFL_BINS)]
    if missing or unexpected:
        raise ValueError(f"{onnx_path}: weights do not fit {arch} (missing {missing[:3]}, unexpected {unexpected[:3]})")
    model.names = dict(enumerate(TILE_CODES))
    return model.eval()


def rebuild_trainable(onnx_path: Path, images: list[np.ndarray], arch: str = "yolo11n.yaml"):
    """An unfused DetectionModel that gives the ONNX file's output and can be trained further.

    The export folded each batch norm into its convolution. Here every convolution takes the folded
    weight and its batch norm is rebuilt from the statistics of that convolution's output on
    ``images`` (RGB float CHW arrays of one size): mean μ and variance σ² become the running
    statistics, √(σ² + ε) the scale and bias + μ the shift. In eval mode that is exactly the folded
    network; in train mode, batch statistics near μ and σ² keep it close, so fine-tuning starts from
    the shipped detector instead of from a network whose every layer is rescaled by its first batch.
    """
    import torch

    offline_ultralytics(Path(tempfile.gettempdir()) / "taicam-ultralytics-config")
    from ultralytics.nn.modules import Conv
    from ultralytics.nn.tasks import DetectionModel

    fused = rebuild(onnx_path, arch)
    moments: dict[str, tuple[torch.Tensor, torch.Tensor]] = {}

    def record(name: str, conv: torch.nn.Conv2d):
        def hook(_module, _inputs, output):
            before_bias = output - conv.bias.view(1, -1, 1, 1)
            moments[name] = (before_bias.mean(dim=(0, 2, 3)), before_bias.var(dim=(0, 2, 3), unbiased=False))

        return hook

    handles = [
        module.conv.register_forward_hook(record(name, module.conv))
        for name, module in fused.named_modules()
        if isinstance(module, Conv)
    ]
    with torch.no_grad():
        fused(torch.from_numpy(np.stack(images)))
    for handle in handles:
        handle.remove()
    model = DetectionModel(arch, nc=len(TILE_CODES), verbose=False)
    folded = fused.state_dict()
    with torch.no_grad():
        for name, module in model.named_modules():
            if not isinstance(module, Conv):
                continue
            mean, var = moments[name]
            module.conv.weight.copy_(folded[f"{name}.conv.weight"])
            module.bn.running_mean.copy_(mean)
            module.bn.running_var.copy_(var)
            module.bn.weight.copy_(torch.sqrt(var + module.bn.eps))
            module.bn.bias.copy_(folded[f"{name}.conv.bias"] + mean)
        rebuilt = tuple(f"{name}.{part}." for name in moments for part in ("conv", "bn"))
        rest = {key: value for key, value in folded.items() if not key.startswith(rebuilt)}
        missing, unexpected = model.load_state_dict(rest, strict=False)
    if unexpected or [key for key in missing if not key.startswith(rebuilt)]:
        raise ValueError(f"{onnx_path}: weights do not fit {arch} (missing {missing[:3]}, unexpected {unexpected[:3]})")
    model.names = dict(enumerate(TILE_CODES))
    return model.eval()


def reexport(onnx_path: Path, out: Path, imgsz: int = 640, dynamic: bool = True, arch: str = "yolo11n.yaml") -> Path:
    """Rebuild, export with the given options, and check it gives the original's output at ``imgsz``."""
    import onnxruntime as ort
    import torch

    ultralytics = offline_ultralytics(Path(tempfile.gettempdir()) / "taicam-ultralytics-config")
    model = rebuild(onnx_path, arch)
    with tempfile.TemporaryDirectory() as tmp:
        checkpoint = Path(tmp) / "taicam-tiles.pt"
        torch.save({"model": model, "train_args": {"imgsz": imgsz, "task": "detect"}}, checkpoint)
        exported = Path(
            ultralytics.YOLO(str(checkpoint)).export(format="onnx", imgsz=imgsz, dynamic=dynamic, simplify=True, opset=17)
        )
        probe = np.random.default_rng(0).random((1, 3, imgsz, imgsz), dtype=np.float32)
        before = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"]).run(None, {"images": probe})[0]
        after = ort.InferenceSession(str(exported), providers=["CPUExecutionProvider"]).run(None, {"images": probe})[0]
        if before.shape != after.shape or not np.allclose(before, after, atol=1e-2):
            raise ValueError(f"re-exported model differs from {onnx_path}: max |Δ| {np.abs(before - after).max():.4f}")
        shutil.move(str(exported), out)
    rewrite_file(out)
    from vision.detector import TileDetector

    TileDetector(out, classifier_path=None)  # raises if onnxruntime cannot load it or the classes differ
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("onnx", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--imgsz", type=int, default=640)
    parser.add_argument("--dynamic", action="store_true", help="any input height and width (multiples of 32)")
    args = parser.parse_args()
    print(reexport(args.onnx, args.out, args.imgsz, args.dynamic))


if __name__ == "__main__":
    main()
