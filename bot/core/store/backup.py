"""A consistent copy of the SQLite database, safe while the bot runs.

Copying ``fabletop.db`` with ``cp`` while the bot writes can give a torn file, and
misses whatever is still in the ``-wal`` file beside it. SQLite's online backup API
(:meth:`sqlite3.Connection.backup`) reads the database through SQLite itself, in one
read transaction: the copy is the database as of one commit, WAL content included,
and in WAL mode the bot's writers are not held up while it runs.

>>> default_backup_path(datetime(2026, 3, 1, 9, 30, 5))
PosixPath('backups/fabletop-20260301-093005.db')
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from bot.core.store.interface import StoreError
from bot.core.store.transfer import redact_password

__all__ = ["BackupResult", "backup_sqlite", "backup_sqlite_sync", "default_backup_path",
           "pg_dump_command"]

_BUSY_MS = 5000


@dataclass(frozen=True)
class BackupResult:
    path: Path
    size: int
    """Bytes of the backup file."""
    tables: int
    """Fabletop tables (games) in it."""


def default_backup_path(now: datetime | None = None, directory: str | Path = "backups") -> Path:
    """``backups/fabletop-YYYYmmdd-HHMMSS.db`` (local time: what the operator reads)."""
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    return Path(directory) / f"fabletop-{stamp}.db"


def backup_sqlite_sync(source: str | Path, target: str | Path) -> BackupResult:
    """Copy the SQLite database ``source`` to the new file ``target`` (its folder is
    created), then check the copy (``PRAGMA quick_check``). Blocking: see
    :func:`backup_sqlite`. Raises :class:`StoreError` with a one-line reason."""
    source, target = Path(source), Path(target)
    if not source.is_file():
        raise StoreError(f"no SQLite database at {source}")
    if target.exists():
        raise StoreError(f"{target} already exists: choose another file name")
    target.parent.mkdir(parents=True, exist_ok=True)
    # Written beside the target and renamed at the end: a failed backup never leaves a
    # file that looks like a good one.
    partial = target.with_name(target.name + ".part")
    partial.unlink(missing_ok=True)
    src = dst = None
    try:
        # Read-only: a backup must never change (or, for a mistyped path, create) the
        # live database.
        src = sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True)
        src.execute(f"PRAGMA busy_timeout={_BUSY_MS}")
        dst = sqlite3.connect(partial)
        # pages=-1: the whole database in one step, so one read transaction and one
        # snapshot. (Stepping would let the bot's commits in between restart the copy.)
        src.backup(dst, pages=-1)
        # One self-contained file: no -wal beside it to forget when it is moved.
        dst.execute("PRAGMA journal_mode=DELETE")
        check = dst.execute("PRAGMA quick_check").fetchone()
        if not check or check[0] != "ok":
            raise StoreError(f"the backup of {source} does not pass SQLite's check: {check}")
        has_tables = dst.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'tables'").fetchone()
        tables = dst.execute("SELECT COUNT(*) FROM tables").fetchone()[0] if has_tables else 0
        dst.close()
        dst = None
        os.replace(partial, target)
    except sqlite3.Error as exc:
        raise StoreError(f"backup of {source} failed: {exc}") from exc
    finally:
        for conn in (src, dst):
            if conn is not None:
                conn.close()
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
    return BackupResult(path=target, size=target.stat().st_size, tables=int(tables))


async def backup_sqlite(source: str | Path, target: str | Path) -> BackupResult:
    """:func:`backup_sqlite_sync` in a worker thread (it blocks for as long as the
    copy takes), so a running event loop keeps serving meanwhile."""
    return await asyncio.to_thread(backup_sqlite_sync, source, target)


def pg_dump_command(url: str, target: str | Path) -> str:
    """The ``pg_dump`` command that backs up the PostgreSQL database at ``url`` to
    ``target`` (custom format, for ``pg_restore``). A password in the URL is left out
    (pg_dump takes it from ``PGPASSWORD`` or ``~/.pgpass``), so the command can be
    shown and logged.

    >>> pg_dump_command("postgresql://bot:secret@db:5432/fabletop", "f.dump")
    'pg_dump --format=custom --file=f.dump postgresql://bot@db:5432/fabletop'
    """
    return (f"pg_dump --format=custom --file={shlex.quote(str(target))}"
            f" {shlex.quote(redact_password(url))}")
