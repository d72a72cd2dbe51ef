"""Durable storage, said once: SQLite databases and files written whole or not at all.

The table ledger (``service/ledger.py``) and the label store (``labels.py``) both keep their
records in SQLite through ``Database``; every file taicam writes for keeps (label files, images
in the store, exports, ``data.yaml``) goes through ``atomic_write``. The standard library only,
so any layer above the scoring core may use it; it lives here, beside its first user, because
``service`` already imports ``taicam_datasets`` and the arrows must not point back.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

BUSY_TIMEOUT_S = 30  # a writer waits this long for another's transaction before SQLite gives up


class Database:
    """One SQLite file: a connection per thread, WAL mode, full sync, foreign keys enforced.

    A connection is never shared between threads (``sqlite3`` objects are not thread-safe), and a
    thread's connection is kept for the next call: opening one costs more than most queries.
    """

    def __init__(self, path: Path | str):
        self.path = Path(path)
        self._local = threading.local()

    def connection(self) -> sqlite3.Connection:
        """This thread's connection, in autocommit mode: reads see the last committed state."""
        db = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")  # readers never wait for the writer
            db.execute("PRAGMA synchronous=FULL")  # a committed write survives a power cut
            db.execute("PRAGMA foreign_keys=ON")  # SQLite leaves them off unless asked, per connection
            db.row_factory = sqlite3.Row
            self._local.db = db
        return db

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, committed when the block ends and rolled back when it raises.

        ``BEGIN IMMEDIATE`` takes the write lock up front, so two writers queue instead of both
        reading, then one failing to upgrade its lock half way through.
        """
        db = self.connection()
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")


PRIVATE = 0o600  # photos and labels of the store: the owner's only
SHARED = 0o644  # generated training sets, read by whoever trains on them


def atomic_write(path: Path | str, data: bytes | str, mode: int = PRIVATE) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` whole or not at all, and durably, with ``mode``.

    The bytes go to a fresh hidden name beside ``path`` (``mkstemp``: O_EXCL, so never through a
    link planted there), are flushed to the disk, and the name is swapped in with ``os.replace``
    (a link at ``path`` is replaced, not followed). The folder is synced too, so the new name
    survives a power cut. On any failure the old file stays as it was and the temporary one goes.
    """
    path = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            if mode != PRIVATE:  # mkstemp makes the file the owner's only
                os.fchmod(handle.fileno(), mode)
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _sync_folder(path.parent)


def _sync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:  # a system that cannot open folders (Windows) orders renames itself
        return
    try:
        with contextlib.suppress(OSError):  # some file systems refuse fsync on a folder; the file itself is synced
            os.fsync(fd)
    finally:
        os.close(fd)
