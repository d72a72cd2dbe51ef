"""Scoring without a photo: the presets, hands described in JSON, and what a hand waits for."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from scoring.api import score_each, waits_json
from scoring.api import score_hand as score_one_hand
from scoring.hand import HandError
from scoring.rules import load_presets

from ..deps import JsonBody
from ..errors import ApiError

# 145,000 hands in one request took 26 s of CPU and 1.4 GB; 100 hands take about 20 ms.
MAX_HANDS_PER_REQUEST = 100

router = APIRouter(tags=["scoring"])


@router.get("/v1/rules")
def rules() -> list[dict[str, Any]]:
    return [preset.to_json() for preset in load_presets().values()]


@router.post("/v1/score/hand", description=f"One hand object, or an array of ≤ {MAX_HANDS_PER_REQUEST}.")
def score_hand(body: JsonBody) -> JSONResponse:
    if isinstance(body, list):
        if len(body) > MAX_HANDS_PER_REQUEST:
            raise ApiError(422, "too_many_hands", f"{len(body)} hands: at most {MAX_HANDS_PER_REQUEST} per request")
        outcomes = score_each(body)
        # A refused hand of an array carries its details, as a single hand's envelope does.
        results = [o.to_json() if isinstance(o, HandError) else o for o in outcomes]
        return JSONResponse(results, status_code=422 if any(isinstance(o, HandError) for o in outcomes) else 200)
    return JSONResponse(score_one_hand(body))  # a HandError reaches the envelope with its details


@router.post("/v1/waits")
def waits(body: JsonBody) -> dict[str, Any]:
    return waits_json(body)
