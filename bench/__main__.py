"""Run benchmarks and print their figures: ``python -m bench [NAME ...]``.

Benchmarks are never tests: these machines are shared and noisy, so each one measures
taicam against a peer in the same run where a peer exists and reports the ratio.
"""

from __future__ import annotations

import importlib
import json
import sys
import time

BENCHMARKS = {
    "scoring": "bench.scoring_speed",
    "detector": "bench.detector_speed",
    "pipeline": "bench.pipeline_speed",
    "accuracy": "bench.pipeline_accuracy",
    "real": "bench.real_scenes",
    "service": "bench.service_load",
}


def main(argv: list[str]) -> int:
    names = argv or list(BENCHMARKS)
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        print(f"unknown benchmark(s) {unknown}; choose from {sorted(BENCHMARKS)}", file=sys.stderr)
        return 2
    for name in names:
        start = time.perf_counter()
        figures = importlib.import_module(BENCHMARKS[name]).run()
        figures["wall_s"] = round(time.perf_counter() - start, 1)
        print(json.dumps({"benchmark": name, **figures}, ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
