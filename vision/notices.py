"""What a person should know about how a photo was read, as data: a stable code and its parameters.

The words are made at the edge, in the reader's language (``service/messages.py``), so a notice
never holds English text. Parameters name tiles by code (``tiles``, ``tile``) and detections by id
(``detections``): a page can then name the tiles in its own language and highlight them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Notice:
    code: str
    params: dict[str, Any] = field(default_factory=dict)


# Stable codes of every notice the pipeline raises (each has a zh-TW and an English template).
NO_TILES = "no_tiles"
TWO_WINNING_CANDIDATES = "two_winning_candidates"
NO_MELD = "no_meld"
FACELESS_KONG = "faceless_kong"
FACE_DOWN_IN_HAND = "face_down_in_hand"
TILE_COUNT = "tile_count"
NOTHING_SET_APART = "nothing_set_apart"
OVER_FOUR_COPIES = "over_four_copies"
LOW_CONFIDENCE_TILE = "low_confidence_tile"
UNSURE_FLOWER = "unsure_flower"
UNSURE_TILE = "unsure_tile"
SECOND_READING = "second_reading"
NAMED_BY_HAND = "named_by_hand"
READ_AS_WAITED = "read_as_waited"
READ_AS_FLOWER = "read_as_flower"
READ_AS_LONE_FLOWER = "read_as_lone_flower"
READ_AS_TILE = "read_as_tile"
WINNING_SET_BY_CALLER = "winning_set_by_caller"
WINNING_CHOSEN = "winning_chosen"
