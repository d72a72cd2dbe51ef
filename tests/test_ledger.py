"""The SQLite ledger: rotation, 連莊, 圈風, 流局, 拉, seat changes, restarts, concurrency, crashes."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time

import pytest

from service.ledger import Ledger, LedgerError


@pytest.fixture
def ledger(tmp_path) -> Ledger:
    return Ledger(tmp_path / "taicam.db")


def new_table(ledger: Ledger, **options) -> int:
    return ledger.create_table("Friday", ["A", "B", "C", "D"], base=30, per_tai=10, options=options)["id"]


def test_dealer_keeps_the_deal_on_a_win_and_a_draw_then_passes_it(ledger):
    table = new_table(ledger)
    state = ledger.record_win(table, "E", 2, self_drawn=False, discarder="S")
    assert (state["dealer"], state["dealer_streak"]) == ("E", 1)
    state = ledger.record_draw(table)
    assert (state["dealer"], state["dealer_streak"]) == ("E", 2)
    state = ledger.record_win(table, "W", 1, self_drawn=False, discarder="E")
    assert (state["dealer"], state["dealer_streak"]) == ("S", 0)
    # Hand 1: S paid the dealer 30 + 10 × 2. Hand 3: the dealer, on 連2, paid 30 + 10 × (1 + 5).
    assert {p["name"]: p["balance"] for p in state["players"]} == {"A": 50 - 90, "B": -50, "C": 90, "D": 0}


def test_round_wind_moves_after_the_deal_goes_round_and_seats_swap_when_asked(ledger):
    table = new_table(ledger, swap_after_east_round=True)
    for winner in ("S", "W", "N", "E"):  # each hand won by the next dealer's seat: the deal moves on
        state = ledger.record_win(table, winner, 1, self_drawn=True)
    assert state["round_wind"] == "S" and state["dealer"] == "E"
    assert {p["name"]: p["seat"] for p in state["players"]} == {"A": "S", "B": "E", "C": "N", "D": "W"}


def test_la_settlement_follows_the_hong_kong_variant(ledger):
    """The Hong Kong variant's worked example: a dealer's 16-番 self-draw leaves each loser 26 in front."""
    table = ledger.create_table("HK", ["A", "B", "C", "D"], base=10, per_tai=1, preset="hk", options={"la": True})["id"]
    state = ledger.record_win(table, "E", 16, self_drawn=True)
    assert state["standing"] == {"S": 26, "W": 26, "N": 26} and all(p["balance"] == 0 for p in state["players"])


def test_seat_draw_is_recorded_with_its_seed(ledger):
    table = new_table(ledger)
    state = ledger.draw_seats(table, seed=7)
    assert sorted(p["seat"] for p in state["players"]) == ["E", "N", "S", "W"]
    assert state["history"][-1]["kind"] == "seats"


def test_bad_requests_are_refused(ledger):
    with pytest.raises(LedgerError):
        ledger.create_table("x", ["A", "B", "C"], 1, 1)
    table = new_table(ledger)
    with pytest.raises(LedgerError):
        ledger.record_win(table, "E", 1, self_drawn=False)
    with pytest.raises(LedgerError) as stale:
        ledger.record_draw(table, expected_seq=5)
    assert stale.value.code == "conflict"


def test_restart_loses_nothing(tmp_path):
    first = Ledger(tmp_path / "db.sqlite")
    table = new_table(first)
    first.record_win(table, "S", 4, self_drawn=True)
    again = Ledger(tmp_path / "db.sqlite")
    assert again.table(table)["hands_played"] == 1


def test_concurrent_writers_never_corrupt_a_table(tmp_path):
    path = tmp_path / "db.sqlite"
    table = new_table(Ledger(path))
    errors = []

    def write(n: int) -> None:
        mine = Ledger(path)
        for _ in range(n):
            try:
                mine.record_win(table, "S", 1, self_drawn=True)
            except Exception as error:  # any error is a failure of the test
                errors.append(error)

    threads = [threading.Thread(target=write, args=(15,)) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    state = Ledger(path).table(table)
    assert state["hands_played"] == 90 and sum(p["balance"] for p in state["players"]) == 0
    seqs = [h["seq"] for h in state["history"]]
    assert seqs == list(range(1, 91))


WRITER = """
import sys
from service.ledger import Ledger
ledger = Ledger(sys.argv[1])
table = int(sys.argv[2])
print("ready", flush=True)
while True:
    ledger.record_win(table, "S", 1, self_drawn=True)
"""


def test_ledger_survives_a_kill_in_the_middle_of_writes(tmp_path):
    path = tmp_path / "db.sqlite"
    table = new_table(Ledger(path))
    process = subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(table)], stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "ready"
    time.sleep(1.0)  # hundreds of committed writes, one in flight when the kill lands
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    ledger = Ledger(path)
    assert ledger.integrity_ok()
    state = ledger.table(table)
    assert state["hands_played"] > 0
    assert [h["seq"] for h in state["history"]] == list(range(1, state["hands_played"] + 1))
    assert sum(p["balance"] for p in state["players"]) == 0
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
