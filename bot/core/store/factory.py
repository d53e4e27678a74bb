"""One way to a store: a ``postgresql://`` URL is PostgreSQL, anything else a SQLite file.

>>> store_for("fabletop.db")
<SqliteStore 'fabletop.db'>
>>> is_postgres("postgresql://fabletop@db:5432/fabletop"), is_postgres("games.db")
(True, False)
"""

from __future__ import annotations

from pathlib import Path

from bot.core.store.interface import Store

__all__ = ["is_postgres", "store_for"]


def is_postgres(target: str | Path) -> bool:
    return str(target).startswith(("postgresql://", "postgres://"))


def store_for(target: str | Path, **kwargs: object) -> Store:
    """An unopened store on ``target`` (``kwargs`` go to the store's constructor)."""
    if is_postgres(target):
        from bot.core.store.postgres import PostgresStore  # asyncpg only when asked for

        return PostgresStore(str(target), **kwargs)  # type: ignore[arg-type]
    from bot.core.store.sqlite import SqliteStore

    return SqliteStore(target, **kwargs)  # type: ignore[arg-type]
