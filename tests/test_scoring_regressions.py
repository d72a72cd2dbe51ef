"""Hands once scored wrong; each must stay right."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.scoring_helpers import scored

CASES = json.loads((Path(__file__).parent / "data" / "regressions.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", CASES, ids=[c["why"][:40] for c in CASES])
def test_regression(case):
    result = scored(case["hand"])
    assert {p["name"]: p["tai"] for p in result["patterns"]} == case["patterns"]
