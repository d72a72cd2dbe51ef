"""The table ledger in SQLite: tables, players and hands. State is replayed from the hands.

The append-only ``hands`` rows are the record, so a crash mid-write loses at most the hand in
flight: each hand is one transaction, and its sequence number is unique per table, so two
concurrent writers can never both append hand N. Each write also stores, in the same
transaction, a snapshot of the state after it and the hand's history entry, so a write costs
one hand's work however long the table has run (replaying every hand took a write from 50 ms
to 1 s). A snapshot that is missing or behind the hands is rebuilt by replaying them.
"""

from __future__ import annotations

import json
import math
import os
import random
import sqlite3
import time
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from taicam_datasets.storage import Database

from scoring.errors import ErrorCode, TaicamError
from scoring.payments import LaLedger, settle
from scoring.tiles import WIND_LETTERS

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    players TEXT NOT NULL,          -- JSON list of four names, in starting seat order E, S, W, N
    base REAL NOT NULL,
    per_tai REAL NOT NULL,
    preset TEXT NOT NULL,
    options TEXT NOT NULL,          -- JSON: la, swap_after_east_round, draw_seats
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS hands (
    table_id INTEGER NOT NULL REFERENCES tables(id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,             -- win, draw (流局), seats (抓位)
    data TEXT NOT NULL,             -- JSON
    created REAL NOT NULL,
    PRIMARY KEY (table_id, seq)
);
CREATE TABLE IF NOT EXISTS snapshots (
    table_id INTEGER PRIMARY KEY REFERENCES tables(id),
    seq INTEGER NOT NULL,           -- the last hand folded in
    state TEXT NOT NULL             -- JSON: TableState without history, plus the 拉 ledger
);
"""
# Columns added after the first release: ALTER TABLE on open keeps old ledgers readable.
ADDED_COLUMNS = (("hands", "entry", "TEXT"), ("hands", "idempotency_key", "TEXT"))
INDEXES = """
CREATE UNIQUE INDEX IF NOT EXISTS hands_idempotency ON hands (table_id, idempotency_key)
    WHERE idempotency_key IS NOT NULL;
"""
HISTORY_PAGE = 50  # hands per history page in responses; older ones are fetched with ``before``
MAX_HISTORY_PAGE = 500
MAX_AMOUNT = 1_000_000_000  # 底 and 台 amounts: far above any stake, far below float trouble
MAX_TAI = 10_000
SQLITE_MAX_INTEGER = 2**63 - 1

TABLE_OPTIONS = {"la": False, "swap_after_east_round": False, "draw_seats": False}


class LedgerError(TaicamError):
    """A request the ledger refuses: unknown table, bad seat, a conflicting write."""


@dataclass
class TableState:
    """Replayed state of one table."""

    seats: dict[str, int]  # seat → player index
    dealer: str = "E"
    streak: int = 0
    round_wind: str = "E"
    hands: int = 0
    balances: list[float] = field(default_factory=lambda: [0.0] * 4)
    standing: dict[str, float] = field(default_factory=dict)  # 拉: debts to the current winner, by seat
    history: list[dict[str, Any]] = field(default_factory=list)


def _next_seat(seat: str) -> str:
    return WIND_LETTERS[(WIND_LETTERS.index(seat) + 1) % 4]


def new_state(table: dict[str, Any]) -> tuple[TableState, LaLedger | None]:
    la = LaLedger() if table["options"].get("la") else None
    return TableState(seats={seat: i for i, seat in enumerate(WIND_LETTERS)}), la


def apply_hand(table: dict[str, Any], state: TableState, la: LaLedger | None, hand: dict[str, Any]) -> dict[str, Any]:
    """Fold one hand into the state (dealer rotation, 連莊, 圈風, balances, 拉); returns its history entry."""
    kind, data = hand["kind"], hand["data"]
    entry = {"seq": hand["seq"], "kind": kind, "dealer": state.dealer, "streak": state.streak, "round_wind": state.round_wind}
    if kind == "seats":
        state.seats = {seat: int(i) for seat, i in data["seats"].items()}
        return {**entry, "seats": data["seats"]}
    state.hands += 1
    if kind == "draw":
        state.streak += 1  # 摸和臨庄: the dealer stays on a drawn hand
        return entry
    payments = {seat: float(amount) for seat, amount in data["payments"].items()}
    winner = data["winner"]
    if la is not None:
        for payer, payee, amount in la.record(winner, payments):
            state.balances[state.seats[payer]] -= amount
            state.balances[state.seats[payee]] += amount
        state.standing = la.standing()
    else:
        for payer, amount in payments.items():
            state.balances[state.seats[payer]] -= amount
            state.balances[state.seats[winner]] += amount
    if winner == state.dealer:
        state.streak += 1
        return {**entry, **data}
    state.dealer, state.streak = _next_seat(state.dealer), 0
    if state.dealer == "E":  # the deal went round: next round wind
        state.round_wind = _next_seat(state.round_wind)
        if table["options"].get("swap_after_east_round") and state.round_wind == "S":
            # The Hong Kong rules (台灣麻雀, the `hk` preset's source): after the first four rounds 東南、西北互調.
            s = state.seats
            state.seats = {"E": s["S"], "S": s["E"], "W": s["N"], "N": s["W"]}
    return {**entry, **data}


def replay(table: dict[str, Any], hands: list[dict[str, Any]]) -> tuple[TableState, LaLedger | None]:
    """Fold the hands into the table's state (with the full history) and its 拉 ledger."""
    state, la = new_state(table)
    for hand in hands:
        state.history.append(apply_hand(table, state, la, hand))
    return state, la


def _snapshot_json(state: TableState, la: LaLedger | None) -> str:
    fields = {k: v for k, v in vars(state).items() if k != "history"}
    return json.dumps({**fields, "la": None if la is None else {"winner": la.winner, "debts": la.debts}})


def _snapshot_load(text: str) -> tuple[TableState, LaLedger | None]:
    raw = json.loads(text)
    la_raw = raw.pop("la")
    la = None if la_raw is None else LaLedger(la_raw["winner"], la_raw["debts"])
    return TableState(**raw), la


class Ledger:
    """SQLite-backed (``taicam_datasets.storage.Database``): a connection per thread, WAL mode, full sync."""

    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not self.path.exists():  # a personal money record: readable by its owner only (SQLite's -wal/-shm follow)
            os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))
        self._database = Database(self.path)
        db = self._connection()
        db.executescript(SCHEMA)  # executescript manages its own transaction
        for table, column, kind in ADDED_COLUMNS:
            if column not in {row["name"] for row in db.execute(f"PRAGMA table_info({table})")}:
                db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
        db.executescript(INDEXES)

    def _connection(self) -> sqlite3.Connection:
        return self._database.connection()

    def _connect(self) -> AbstractContextManager[sqlite3.Connection]:
        """One write transaction: writers queue for the lock, never interleave."""
        return self._database.transaction()

    def create_table(
        self, name: str, players: list[str], base: float, per_tai: float, preset: str = "taiwan", options: dict | None = None
    ) -> dict[str, Any]:
        if len(players) != 4 or any(not p.strip() for p in players):
            raise LedgerError(ErrorCode.BAD_TABLE, "a table has exactly four named players")
        if not all(math.isfinite(v) and 0 <= v <= MAX_AMOUNT for v in (base, per_tai)):
            raise LedgerError(ErrorCode.BAD_TABLE, f"底 and 台 amounts must be between 0 and {MAX_AMOUNT:,}")
        merged = {**TABLE_OPTIONS, **(options or {})}
        unknown = set(merged) - set(TABLE_OPTIONS)
        if unknown:
            raise LedgerError(ErrorCode.BAD_TABLE, f"unknown table option(s): {', '.join(sorted(unknown))}")
        with self._connect() as db:
            cursor = db.execute(
                "INSERT INTO tables (name, players, base, per_tai, preset, options, created) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (name, json.dumps(players, ensure_ascii=False), base, per_tai, preset, json.dumps(merged), time.time()),
            )
            table_id = cursor.lastrowid
        return self.table(int(table_id or 0))

    def tables(self) -> list[dict[str, Any]]:
        rows = self._connection().execute("SELECT id FROM tables ORDER BY id").fetchall()
        return [self.table(row["id"], HISTORY_PAGE) for row in rows]

    def _table_row(self, db: sqlite3.Connection, table_id: int) -> dict[str, Any]:
        if not 0 < table_id <= SQLITE_MAX_INTEGER:  # beyond SQLite's integers there is no such table
            raise LedgerError(ErrorCode.NOT_FOUND, f"no table {table_id}")
        row = db.execute("SELECT * FROM tables WHERE id = ?", (table_id,)).fetchone()
        if row is None:
            raise LedgerError(ErrorCode.NOT_FOUND, f"no table {table_id}")
        table = dict(row)
        table["players"] = json.loads(table["players"])
        table["options"] = json.loads(table["options"])
        return table

    def _hands(self, db: sqlite3.Connection, table_id: int) -> list[dict[str, Any]]:
        rows = db.execute("SELECT seq, kind, data FROM hands WHERE table_id = ? ORDER BY seq", (table_id,)).fetchall()
        return [{"seq": r["seq"], "kind": r["kind"], "data": json.loads(r["data"])} for r in rows]

    def _current(self, db: sqlite3.Connection, table: dict[str, Any]) -> tuple[TableState, LaLedger | None, int, bool]:
        """(state, 拉 ledger, last seq, fresh): from the snapshot, or replayed when it is missing or behind."""
        last = db.execute("SELECT COALESCE(MAX(seq), 0) FROM hands WHERE table_id = ?", (table["id"],)).fetchone()[0]
        row = db.execute("SELECT seq, state FROM snapshots WHERE table_id = ?", (table["id"],)).fetchone()
        if row is not None and row["seq"] == last:
            state, la = _snapshot_load(row["state"])
            return state, la, last, True
        state, la = replay(table, self._hands(db, table["id"]))
        return state, la, last, False

    def _store(self, db: sqlite3.Connection, table_id: int, seq: int, state: TableState, la: LaLedger | None) -> None:
        db.execute(
            "INSERT INTO snapshots (table_id, seq, state) VALUES (?, ?, ?)"
            " ON CONFLICT (table_id) DO UPDATE SET seq = excluded.seq, state = excluded.state",
            (table_id, seq, _snapshot_json(state, la)),
        )
        for entry in state.history:  # a rebuilt snapshot also fills in the entries of older hands
            db.execute(
                "UPDATE hands SET entry = ? WHERE table_id = ? AND seq = ? AND entry IS NULL",
                (json.dumps(entry, ensure_ascii=False), table_id, entry["seq"]),
            )

    def history(self, table_id: int, limit: int | None = HISTORY_PAGE, before: int | None = None) -> list[dict[str, Any]]:
        """History entries, oldest first: the last ``limit`` before hand ``before`` (all of them for ``None``)."""
        db = self._connection()
        table = self._table_row(db, table_id)
        rows = db.execute(
            "SELECT seq, entry FROM hands WHERE table_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?",
            (table_id, min(before or SQLITE_MAX_INTEGER, SQLITE_MAX_INTEGER), -1 if limit is None else limit),
        ).fetchall()
        if any(r["entry"] is None for r in rows):  # written before entries were stored
            entries = {e["seq"]: e for e in self._current(db, table)[0].history}
            return [entries[r["seq"]] for r in reversed(rows)]
        return [json.loads(r["entry"]) for r in reversed(rows)]

    def table(self, table_id: int, history_limit: int | None = None, before: int | None = None) -> dict[str, Any]:
        """The table's state; ``history`` holds the last ``history_limit`` hands (all for ``None``)."""
        db = self._connection()
        table = self._table_row(db, table_id)
        state, _, _, _ = self._current(db, table)
        state.history = self.history(table_id, history_limit, before)
        return self._describe(table, state)

    @staticmethod
    def _describe(table: dict[str, Any], state: TableState) -> dict[str, Any]:
        players = table["players"]
        seat_of = {i: seat for seat, i in state.seats.items()}
        return {
            "id": table["id"],
            "name": table["name"],
            "base": table["base"],
            "per_tai": table["per_tai"],
            "preset": table["preset"],
            "options": table["options"],
            "players": [
                {"name": name, "seat": seat_of[i], "balance": round(state.balances[i], 2)} for i, name in enumerate(players)
            ],
            "dealer": state.dealer,
            "dealer_streak": state.streak,
            "round_wind": state.round_wind,
            "hands_played": state.hands,
            "standing": state.standing,
            "history": state.history,
            # the seq to pass as ``before`` for the page of older hands; None when this page starts at hand 1
            "history_before": state.history[0]["seq"] if state.history and state.history[0]["seq"] > 1 else None,
        }

    def _append(
        self,
        table_id: int,
        kind: str,
        make_data,
        expected_seq: int | None = None,
        idempotency_key: str | None = None,
        history_limit: int | None = HISTORY_PAGE,
    ) -> dict[str, Any]:
        with self._connect() as db:
            table = self._table_row(db, table_id)
            if (
                idempotency_key is not None
                and db.execute(
                    "SELECT 1 FROM hands WHERE table_id = ? AND idempotency_key = ?", (table_id, idempotency_key)
                ).fetchone()
            ):
                written = False  # a retry of a hand already recorded: record nothing, answer the state
            else:
                state, la, last, _ = self._current(db, table)
                seq = last + 1
                if expected_seq is not None and expected_seq != seq:
                    raise LedgerError(
                        ErrorCode.CONFLICT, f"the table moved on: hand {seq} is next, not {expected_seq}; reload and retry"
                    )
                data = make_data(table, state)
                entry = apply_hand(table, state, la, {"seq": seq, "kind": kind, "data": data})
                db.execute(
                    "INSERT INTO hands (table_id, seq, kind, data, created, entry, idempotency_key)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (table_id, seq, kind, json.dumps(data, ensure_ascii=False), time.time(),
                     json.dumps(entry, ensure_ascii=False), idempotency_key),
                )  # fmt: skip
                self._store(db, table_id, seq, state, la)
                written = True
        described = self.table(table_id, history_limit)
        return described if written else {**described, "replayed": True}

    def record_win(
        self,
        table_id: int,
        winner: str,
        tai: int,
        self_drawn: bool,
        discarder: str | None = None,
        patterns: list[dict] | None = None,
        expected_seq: int | None = None,
        idempotency_key: str | None = None,
    ) -> dict[str, Any]:
        """Record a win by seat. Payments follow 底 + 台 × 台數 with the dealer's 2N+1.

        A retry with the same ``idempotency_key`` records nothing and answers the current state.
        """
        if winner not in WIND_LETTERS or (discarder is not None and discarder not in WIND_LETTERS):
            raise LedgerError(ErrorCode.BAD_HAND, "seats are E, S, W, N")
        if not self_drawn and (discarder is None or discarder == winner):
            raise LedgerError(ErrorCode.BAD_HAND, "a discard win needs a discarder other than the winner")
        if not 0 <= tai <= MAX_TAI:
            raise LedgerError(ErrorCode.BAD_HAND, f"台 must be between 0 and {MAX_TAI}")

        def make(table: dict[str, Any], state: TableState) -> dict[str, Any]:
            payers = [s for s in WIND_LETTERS if s != winner] if self_drawn else [str(discarder)]
            payments = settle(table["base"], table["per_tai"], tai, payers, state.dealer, state.streak, winner == state.dealer)
            return {
                "winner": winner,
                "discarder": None if self_drawn else discarder,
                "self_drawn": self_drawn,
                "tai": tai,
                "payments": payments,
                "patterns": patterns or [],
            }

        return self._append(table_id, "win", make, expected_seq, idempotency_key)

    def record_draw(self, table_id: int, expected_seq: int | None = None) -> dict[str, Any]:
        return self._append(table_id, "draw", lambda table, state: {}, expected_seq)

    def draw_seats(self, table_id: int, seed: int | None = None, expected_seq: int | None = None) -> dict[str, Any]:
        """抓位: draw seats anew; the seed is stored so the draw can be checked."""
        seed = seed if seed is not None else random.SystemRandom().randrange(2**31)

        def make(table: dict[str, Any], state: TableState) -> dict[str, Any]:
            order = list(range(4))
            random.Random(seed).shuffle(order)
            return {"seats": dict(zip(WIND_LETTERS, order, strict=True)), "seed": seed}

        return self._append(table_id, "seats", make, expected_seq)

    def integrity_ok(self) -> bool:
        return self._connection().execute("PRAGMA integrity_check").fetchone()[0] == "ok"
