"""API request schemas (kept apart from internal types)."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from fastapi import Path
from pydantic import BaseModel, ConfigDict, Field, field_validator

from .ledger import MAX_AMOUNT, MAX_TAI, SQLITE_MAX_INTEGER

Seat = Literal["E", "S", "W", "N"]
RowId = Annotated[int, Path(ge=1, le=SQLITE_MAX_INTEGER, description="a row id")]
MAX_PATTERNS = 64
MAX_PATTERNS_JSON_CHARS = 16_000


class TableIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=80)
    players: list[Annotated[str, Field(max_length=80)]] = Field(
        min_length=4, max_length=4, description="names in starting seats E, S, W, N"
    )
    base: float = Field(ge=0, le=MAX_AMOUNT, allow_inf_nan=False, description="底")
    per_tai: float = Field(ge=0, le=MAX_AMOUNT, allow_inf_nan=False, description="amount per 台")
    preset: str = Field(default="taiwan", max_length=40)
    options: dict[str, bool] = Field(default_factory=dict, description="la, swap_after_east_round, draw_seats")


class HandRecordIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    winner: Seat
    self_drawn: bool = False
    discarder: Seat | None = None
    tai: int = Field(ge=0, le=MAX_TAI)
    patterns: list[dict[str, Any]] = Field(
        default_factory=list, max_length=MAX_PATTERNS, description="the 台 list, kept with the hand"
    )
    expected_seq: int | None = Field(
        default=None, ge=1, le=SQLITE_MAX_INTEGER, description="hand number the client expects to write (conflict check)"
    )
    idempotency_key: str | None = Field(
        default=None,
        min_length=1,
        max_length=80,
        description="a key the client picks per hand: a retry with the same key records the hand once",
    )

    @field_validator("patterns")
    @classmethod
    def _small_patterns(cls, patterns: list[dict[str, Any]]) -> list[dict[str, Any]]:
        try:
            size = len(json.dumps(patterns, allow_nan=False))
        except ValueError as error:
            raise ValueError("patterns must be plain JSON (no NaN or Infinity)") from error
        if size > MAX_PATTERNS_JSON_CHARS:
            raise ValueError(f"patterns take {size} characters of JSON; at most {MAX_PATTERNS_JSON_CHARS}")
        return patterns


class DrawIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    expected_seq: int | None = Field(default=None, ge=1, le=SQLITE_MAX_INTEGER)
