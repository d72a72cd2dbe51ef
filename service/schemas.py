"""API request schemas (kept apart from internal types)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Seat = Literal["E", "S", "W", "N"]


class TableIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=80)
    players: list[str] = Field(min_length=4, max_length=4, description="names in starting seats E, S, W, N")
    base: float = Field(ge=0, description="底")
    per_tai: float = Field(ge=0, description="amount per 台")
    preset: str = "taiwan"
    options: dict[str, bool] = Field(default_factory=dict, description="la, swap_after_east_round, draw_seats")


class HandRecordIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    winner: Seat
    self_drawn: bool = False
    discarder: Seat | None = None
    tai: int = Field(ge=0)
    patterns: list[dict] = Field(default_factory=list, description="the 台 list, kept with the hand")
    expected_seq: int | None = Field(default=None, description="hand number the client expects to write (conflict check)")


class DrawIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    expected_seq: int | None = None
