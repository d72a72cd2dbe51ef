"""The example photos the README starts with score, through the command a new user types first."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.mark.parametrize(("photo", "total"), [("hand1.jpg", 7), ("table1.jpg", 6)])
def test_example_photo_scores(photo, total):
    run = subprocess.run(
        [sys.executable, "-m", "taicam.cli", "score", str(EXAMPLES / photo), "--json"], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["score"]["total"] == total
