"""The table ledger: tables, the hands and draws recorded at each, and the seats drawn."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from scoring.rules import load_presets

from ..deps import LedgerDep
from ..errors import ApiError
from ..ledger import HISTORY_PAGE, MAX_HISTORY_PAGE, SQLITE_MAX_INTEGER
from ..schemas import DrawIn, HandRecordIn, RowId, TableIn

router = APIRouter(tags=["ledger"])


@router.get("/v1/tables")
def list_tables(ledger: LedgerDep) -> list[dict[str, Any]]:
    return ledger.tables()


@router.post("/v1/tables", status_code=201)
def create_table(ledger: LedgerDep, table: TableIn) -> dict[str, Any]:
    if table.preset not in load_presets():
        raise ApiError(422, "unknown_preset", f"unknown preset '{table.preset}'")
    return ledger.create_table(table.name, table.players, table.base, table.per_tai, table.preset, table.options)


@router.get("/v1/tables/{table_id}")
def get_table(
    ledger: LedgerDep,
    table_id: RowId,
    history_limit: Annotated[int, Query(ge=0, le=MAX_HISTORY_PAGE)] = HISTORY_PAGE,
    before: Annotated[int | None, Query(ge=1, le=SQLITE_MAX_INTEGER, description="history_before of a page")] = None,
) -> dict[str, Any]:
    return ledger.table(table_id, history_limit, before)


@router.post("/v1/tables/{table_id}/hands", status_code=201)
def record_hand(ledger: LedgerDep, table_id: RowId, hand: HandRecordIn) -> dict[str, Any]:
    return ledger.record_win(
        table_id, hand.winner, hand.tai, hand.self_drawn, hand.discarder, hand.patterns, hand.expected_seq,
        hand.idempotency_key,
    )  # fmt: skip


@router.post("/v1/tables/{table_id}/draws", status_code=201)
def record_draw(ledger: LedgerDep, table_id: RowId, draw: DrawIn) -> dict[str, Any]:
    return ledger.record_draw(table_id, draw.expected_seq)


@router.post("/v1/tables/{table_id}/seats", status_code=201)
def draw_seats(ledger: LedgerDep, table_id: RowId, body: DrawIn | None = None) -> dict[str, Any]:
    return ledger.draw_seats(table_id, expected_seq=body.expected_seq if body else None)
