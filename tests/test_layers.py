"""The tests are layered as the code is: the scoring tests need the standard library and pytest only."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# What a machine with only the scoring layer lacks; hypothesis is allowed for the property tests.
HEAVY = ("numpy", "cv2", "onnxruntime", "PIL", "fastapi", "starlette", "pydantic", "torch", "ultralytics")

# Runs pytest with every HEAVY module made impossible to import, as on a machine without them.
BLOCKED_PYTEST = f"""
import importlib.abc, sys
import pytest

class Blocked(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {HEAVY!r}:
            raise ImportError(f"{{name}} is blocked: the scoring tests must not need it")
        return None

sys.meta_path.insert(0, Blocked())
sys.exit(pytest.main(sys.argv[1:]))
"""


def _pytest_without_heavy_modules(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", BLOCKED_PYTEST, *args, "-p", "no:cacheprovider"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    return done.stdout


def test_the_scoring_tests_run_without_numpy_opencv_onnxruntime_or_fastapi():
    scoring_tests = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("test_scoring_*.py"))
    plain = [t for t in scoring_tests if not t.endswith("test_scoring_properties.py")]
    assert " passed" in _pytest_without_heavy_modules(*plain, "tests/test_cli_scoring.py", "-o", "addopts=")
    # The property tests take 15 s; collecting them all and running the fixed hands shows the same.
    out = _pytest_without_heavy_modules("tests/test_scoring_properties.py", "-k", "special_form", "-o", "addopts=")
    assert " passed" in out and " deselected" in out
