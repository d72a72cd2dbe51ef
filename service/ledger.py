"""The table ledger in SQLite: tables, players and hands. State is replayed from the hands.

Nothing mutable but the append-only ``hands`` rows is stored, so a crash mid-write loses at
most the hand in flight: each hand is one transaction, and its sequence number is unique per
table, so two concurrent writers can never both append hand N.
"""

from __future__ import annotations

import json
import random
import sqlite3
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
"""

TABLE_OPTIONS = {"la": False, "swap_after_east_round": False, "draw_seats": False}


class LedgerError(ValueError):
    """A request the ledger refuses: unknown table, bad seat, a conflicting write."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


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


def replay(table: dict[str, Any], hands: list[dict[str, Any]]) -> TableState:
    """Fold the hands into the table's state: dealer rotation, 連莊, 圈風, balances, 拉."""
    state = TableState(seats={seat: i for i, seat in enumerate(WIND_LETTERS)})
    options = table["options"]
    la = LaLedger() if options.get("la") else None
    for hand in hands:
        kind, data = hand["kind"], hand["data"]
        entry = {
            "seq": hand["seq"],
            "kind": kind,
            "dealer": state.dealer,
            "streak": state.streak,
            "round_wind": state.round_wind,
        }
        if kind == "seats":
            state.seats = {seat: int(i) for seat, i in data["seats"].items()}
            state.history.append({**entry, "seats": data["seats"]})
            continue
        state.hands += 1
        if kind == "draw":
            state.streak += 1  # 摸和臨庄: the dealer stays on a drawn hand
            state.history.append(entry)
            continue
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
        state.history.append({**entry, **data})
        if winner == state.dealer:
            state.streak += 1
            continue
        state.dealer, state.streak = _next_seat(state.dealer), 0
        if state.dealer == "E":  # the deal went round: next round wind
            state.round_wind = _next_seat(state.round_wind)
            if options.get("swap_after_east_round") and state.round_wind == "S":
                # Seed 003: after the first four rounds 東南、西北互調.
                s = state.seats
                state.seats = {"E": s["S"], "S": s["E"], "W": s["N"], "N": s["W"]}
    return state


class Ledger:
    """SQLite-backed; one connection per thread, WAL mode, full sync."""

    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._connection().executescript(SCHEMA)  # executescript manages its own transaction

    def _connection(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA foreign_keys=ON")
            db.row_factory = sqlite3.Row
            self._local.db = db
        return db

    @contextmanager
    def _connect(self):
        db = self._connection()
        db.execute("BEGIN IMMEDIATE")  # take the write lock up front: writers queue, never interleave
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        else:
            db.execute("COMMIT")

    def create_table(
        self, name: str, players: list[str], base: float, per_tai: float, preset: str = "taiwan", options: dict | None = None
    ) -> dict[str, Any]:
        if len(players) != 4 or any(not p.strip() for p in players):
            raise LedgerError("bad_table", "a table has exactly four named players")
        if base < 0 or per_tai < 0:
            raise LedgerError("bad_table", "底 and 台 amounts must be ≥ 0")
        merged = {**TABLE_OPTIONS, **(options or {})}
        unknown = set(merged) - set(TABLE_OPTIONS)
        if unknown:
            raise LedgerError("bad_table", f"unknown table option(s): {', '.join(sorted(unknown))}")
        with self._connect() as db:
            cursor = db.execute(
                "INSERT INTO tables (name, players, base, per_tai, preset, options, created) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (name, json.dumps(players, ensure_ascii=False), base, per_tai, preset, json.dumps(merged), time.time()),
            )
            table_id = cursor.lastrowid
        return self.table(int(table_id or 0))

    def tables(self) -> list[dict[str, Any]]:
        rows = self._connection().execute("SELECT id FROM tables ORDER BY id").fetchall()
        return [self.table(row["id"]) for row in rows]

    def _table_row(self, db: sqlite3.Connection, table_id: int) -> dict[str, Any]:
        row = db.execute("SELECT * FROM tables WHERE id = ?", (table_id,)).fetchone()
        if row is None:
            raise LedgerError("not_found", f"no table {table_id}")
        table = dict(row)
        table["players"] = json.loads(table["players"])
        table["options"] = json.loads(table["options"])
        return table

    def _hands(self, db: sqlite3.Connection, table_id: int) -> list[dict[str, Any]]:
        rows = db.execute("SELECT seq, kind, data FROM hands WHERE table_id = ? ORDER BY seq", (table_id,)).fetchall()
        return [{"seq": r["seq"], "kind": r["kind"], "data": json.loads(r["data"])} for r in rows]

    def table(self, table_id: int) -> dict[str, Any]:
        db = self._connection()
        table = self._table_row(db, table_id)
        state = replay(table, self._hands(db, table_id))
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
        }

    def _append(self, table_id: int, kind: str, make_data, expected_seq: int | None = None) -> dict[str, Any]:
        with self._connect() as db:
            table = self._table_row(db, table_id)
            hands = self._hands(db, table_id)
            seq = len(hands) + 1
            if expected_seq is not None and expected_seq != seq:
                raise LedgerError("conflict", f"the table moved on: hand {seq} is next, not {expected_seq}; reload and retry")
            state = replay(table, hands)
            data = make_data(table, state)
            db.execute(
                "INSERT INTO hands (table_id, seq, kind, data, created) VALUES (?, ?, ?, ?, ?)",
                (table_id, seq, kind, json.dumps(data, ensure_ascii=False), time.time()),
            )
            return self._describe(table, replay(table, [*hands, {"seq": seq, "kind": kind, "data": data}]))

    def record_win(
        self,
        table_id: int,
        winner: str,
        tai: int,
        self_drawn: bool,
        discarder: str | None = None,
        patterns: list[dict] | None = None,
        expected_seq: int | None = None,
    ) -> dict[str, Any]:
        """Record a win by seat. Payments follow 底 + 台 × 台數 with the dealer's 2N+1."""
        if winner not in WIND_LETTERS or (discarder is not None and discarder not in WIND_LETTERS):
            raise LedgerError("bad_hand", "seats are E, S, W, N")
        if not self_drawn and (discarder is None or discarder == winner):
            raise LedgerError("bad_hand", "a discard win needs a discarder other than the winner")
        if tai < 0:
            raise LedgerError("bad_hand", "台 must be ≥ 0")

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

        return self._append(table_id, "win", make, expected_seq)

    def record_draw(self, table_id: int, expected_seq: int | None = None) -> dict[str, Any]:
        return self._append(table_id, "draw", lambda table, state: {}, expected_seq)

    def draw_seats(self, table_id: int, seed: int | None = None) -> dict[str, Any]:
        """抓位: draw seats anew; the seed is stored so the draw can be checked."""
        seed = seed if seed is not None else random.SystemRandom().randrange(2**31)

        def make(table: dict[str, Any], state: TableState) -> dict[str, Any]:
            order = list(range(4))
            random.Random(seed).shuffle(order)
            return {"seats": dict(zip(WIND_LETTERS, order, strict=True)), "seed": seed}

        return self._append(table_id, "seats", make)

    def integrity_ok(self) -> bool:
        return self._connection().execute("PRAGMA integrity_check").fetchone()[0] == "ok"
