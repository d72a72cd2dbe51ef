"""The win context as the HTTP form and the WebSocket query take it, generated from ``WinContext``.

One pydantic model serves both, so a field added to ``scoring.hand.WinContext`` reaches
``POST /v1/score`` and ``/v1/live`` with no edit here. ``options`` and ``settlement`` travel as
JSON text, exactly the objects the hand JSON takes.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, create_model

from scoring.hand import CONTEXT_FIELDS, CONTEXT_TYPES

from .errors import ApiError

JSON_FIELDS = ("options", "settlement")


class _SituationBase(BaseModel):
    options: str | None = Field(None, description='JSON: the preset options to change, e.g. {"zimo_tai": 1}')
    settlement: str | None = Field(None, description='JSON: {"base", "per_tai", "discarder_seat", "dealer_seat"}')


if TYPE_CHECKING:
    SituationIn = _SituationBase
else:
    SituationIn = create_model(
        "SituationIn",
        __base__=_SituationBase,
        __doc__="How and where the hand was won: every WinContext field, plus options and settlement.",
        **{
            spec.name: (CONTEXT_TYPES[spec.name], Field(spec.default, description=spec.metadata["help"]))
            for spec in CONTEXT_FIELDS
        },
    )


def parse_json_field(value: str | None, name: str) -> Any:
    if not value:
        return None
    try:
        return json.loads(value)
    except json.JSONDecodeError as error:
        raise ApiError(422, "bad_field", f"'{name}' is not valid JSON: {error}") from error


def situation(model: SituationIn) -> dict[str, Any]:
    """The hand-JSON keys the model carries: context fields, and options/settlement when given."""
    values = model.model_dump(exclude=set(JSON_FIELDS), exclude_none=True)
    for name in JSON_FIELDS:
        parsed = parse_json_field(getattr(model, name), name)
        if parsed is not None:
            values[name] = parsed
    return values
