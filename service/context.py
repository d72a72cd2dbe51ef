"""The win context as the HTTP form and the WebSocket query take it, generated from ``WinContext``.

One pydantic model serves both, so a field added to ``scoring.hand.WinContext`` reaches
``POST /v1/score`` and ``/v1/live`` with no edit here. ``options`` and ``settlement`` travel as
JSON text, exactly the objects the hand JSON takes. ``score_request`` turns what they carry into the
application layer's ``ScoreRequest``.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, create_model

from scoring.hand import CONTEXT_FIELDS, CONTEXT_TYPES, WinContext
from taicam.pipeline import ScoreRequest

from .errors import ApiError

JSON_FIELDS = ("options", "settlement")
# Hand JSON holds tiles, flags and small counts: deeper nesting or numbers past these bounds
# are refused before they reach the scorer (where a 1e308 amount would overflow to infinity).
MAX_JSON_DEPTH = 32
MAX_JSON_NUMBER = 1e12


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


def _bounded_number(text: str) -> float | int:
    value = float(text) if any(c in text for c in ".eE") else int(text)
    if not math.isfinite(value) or abs(value) > MAX_JSON_NUMBER:
        raise ValueError(f"number {text[:20]} is out of range (at most {MAX_JSON_NUMBER:g})")
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _json_depth_ok(value: Any) -> bool:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            return False
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        stack.extend((child, depth + 1) for child in children)
    return True


def loads_bounded(text: bytes | str, what: str, code: str = "bad_json") -> Any:
    """JSON with the bounds above: never a RecursionError, an infinity or a 5000-digit integer."""
    try:
        value = json.loads(text, parse_float=_bounded_number, parse_int=_bounded_number, parse_constant=_no_constant)
    except RecursionError:
        value = None
        deep = True
    except (ValueError, UnicodeDecodeError) as error:  # JSONDecodeError is a ValueError
        raise ApiError(422, code, f"{what} is not JSON: {error}") from error
    else:
        deep = not _json_depth_ok(value)
    if deep:
        raise ApiError(422, code, f"{what} nests deeper than {MAX_JSON_DEPTH} levels")
    return value


def parse_json_field(value: str | None, name: str) -> Any:
    return loads_bounded(value, f"'{name}'", "bad_field") if value else None


def score_request(
    model: SituationIn,
    preset: str = "taiwan",
    corrections: dict[int, str] | None = None,
    winning_tile: int | str | None = None,
) -> ScoreRequest:
    """The request the form or query describes: its context fields, and options/settlement when given."""
    values = model.model_dump(exclude=set(JSON_FIELDS), exclude_none=True)
    options, settlement = (parse_json_field(getattr(model, name), name) for name in JSON_FIELDS)
    return ScoreRequest(preset, options, WinContext(**values), settlement, corrections or {}, winning_tile)
