"""The one SQLite helper and the one atomic write, shared by the ledger and the label store."""

from __future__ import annotations

import os
import sqlite3
import stat
import threading

import pytest
from taicam_datasets.labels import LabelStore
from taicam_datasets.storage import SHARED, Database, atomic_write

from service.ledger import Ledger


def test_writers_in_many_threads_keep_every_row(tmp_path):
    database = Database(tmp_path / "rows.db")
    database.connection().execute("CREATE TABLE rows (writer INTEGER, n INTEGER, PRIMARY KEY (writer, n))")
    errors: list[BaseException] = []

    def write(writer: int) -> None:
        try:
            for _ in range(40):
                with database.transaction() as db:  # read then write: racy without the lock taken up front
                    count = db.execute("SELECT COUNT(*) FROM rows WHERE writer = ?", (writer,)).fetchone()[0]
                    db.execute("INSERT INTO rows VALUES (?, ?)", (writer, count))
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=write, args=(w,)) for w in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    counts = database.connection().execute("SELECT writer, COUNT(*) FROM rows GROUP BY writer").fetchall()
    assert sorted(tuple(row) for row in counts) == [(w, 40) for w in range(6)]


def test_each_thread_gets_its_own_connection(tmp_path):
    database = Database(tmp_path / "one.db")
    seen: list[sqlite3.Connection] = []
    thread = threading.Thread(target=lambda: seen.append(database.connection()))
    thread.start()
    thread.join()
    assert database.connection() is database.connection()
    assert seen[0] is not database.connection()


def test_a_failed_transaction_leaves_nothing(tmp_path):
    database = Database(tmp_path / "undo.db")
    database.connection().execute("CREATE TABLE t (v INTEGER)")
    with pytest.raises(RuntimeError), database.transaction() as db:
        db.execute("INSERT INTO t VALUES (1)")
        raise RuntimeError("midway")
    assert database.connection().execute("SELECT COUNT(*) FROM t").fetchone()[0] == 0


def test_foreign_keys_are_enforced_in_the_ledger_and_the_label_store(tmp_path):
    ledger = Ledger(tmp_path / "taicam.db")
    store = LabelStore(tmp_path / "store")
    for db in (ledger._connection(), store._db()):
        assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    with pytest.raises(sqlite3.IntegrityError):
        ledger._connection().execute("INSERT INTO hands (table_id, seq, kind, data, created) VALUES (99, 1, 'draw', '{}', 0)")
    with pytest.raises(sqlite3.IntegrityError):
        store._db().execute(
            "INSERT INTO boxes (image_id, position, code, x1, y1, x2, y2, source) VALUES (99, 0, '1m', 0, 0, 9, 9, 'human')"
        )


def test_atomic_write_replaces_the_file_whole(tmp_path):
    target = tmp_path / "labels.txt"
    target.write_text("old\n")
    atomic_write(target, "new 東\n")
    assert target.read_text(encoding="utf-8") == "new 東\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    atomic_write(target, b"\x00\x01", SHARED)
    assert target.read_bytes() == b"\x00\x01" and stat.S_IMODE(target.stat().st_mode) == SHARED
    assert sorted(p.name for p in tmp_path.iterdir()) == ["labels.txt"]  # no temporary file left


def test_a_failed_atomic_write_keeps_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "data.yaml"
    target.write_text("old\n")

    def no_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", no_disk)
    with pytest.raises(OSError):
        atomic_write(target, "new\n")
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.yaml"]


def test_atomic_write_replaces_a_planted_link_instead_of_writing_through_it(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("keep\n")
    target = tmp_path / "classes.txt"
    target.symlink_to(outside)
    atomic_write(target, "1m\n")
    assert outside.read_text() == "keep\n"
    assert not target.is_symlink() and target.read_text() == "1m\n"
