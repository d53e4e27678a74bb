"""Fixtures shared by the tests: the two store backends.

* ``pg_schema``: a fresh private schema of the test PostgreSQL database (a random name,
  dropped after the test, on a thread of its own), as a :class:`PgSchema` that makes
  stores on it. The server is
  ``$FABLETOP_TEST_PG`` (default ``postgresql://postgres@127.0.0.1:5432/test``). When it
  cannot be reached the test is skipped, unless ``FABLETOP_REQUIRE_PG=1`` (CI sets it):
  then it fails, so a test that needs PostgreSQL never passes by not running.
* ``backend``: parametrized over ``sqlite`` (a file in ``tmp_path``) and ``postgres``
  (a ``pg_schema``), as a :class:`Backend` whose :meth:`Backend.store` makes a new,
  unopened store on that test's one database: two of them are two processes, and a new
  one after closing the first is a restart.
* ``store``: an opened store of ``backend``, closed after the test.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import secrets
import sys
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from bot.core.store import SqliteStore, Store

PG_URL = os.environ.get("FABLETOP_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
REQUIRE_PG = os.environ.get("FABLETOP_REQUIRE_PG") == "1"
BACKENDS = ("sqlite", "postgres")

_pg_checked: dict[str, str | None] = {}
"""The answer of the one reachability check of this session: ``None`` if PostgreSQL is
there, else why not."""


async def _pg_problem() -> str | None:
    if PG_URL not in _pg_checked:
        try:
            import asyncpg

            conn = await asyncpg.connect(PG_URL, timeout=5)
            await conn.close()
            _pg_checked[PG_URL] = None
        except Exception as exc:  # whatever it is, the test cannot use PostgreSQL
            _pg_checked[PG_URL] = f"{type(exc).__name__}: {exc}"
    return _pg_checked[PG_URL]


async def require_pg() -> None:
    """Skip the test when PostgreSQL is unreachable (fail instead if it is required)."""
    problem = await _pg_problem()
    if problem is None:
        return
    where = f"PostgreSQL at {PG_URL} (FABLETOP_TEST_PG) is unreachable: {problem}"
    if REQUIRE_PG:
        pytest.fail(f"{where}; FABLETOP_REQUIRE_PG=1, so this is an error", pytrace=False)
    pytest.skip(f"{where} (set FABLETOP_REQUIRE_PG=1 to fail instead)")


@dataclass(frozen=True)
class PgSchema:
    """A private schema of the test database."""

    url: str
    schema: str

    def store(self, **kwargs: Any) -> Store:
        """A new, unopened :class:`PostgresStore` on this schema."""
        from bot.core.store.postgres import PostgresStore

        return PostgresStore(self.url, schema=self.schema, **kwargs)

    async def execute(self, sql: str, *args: Any) -> str:
        """Run ``sql`` on its own connection with the schema on the search path (to set
        up what no store would write, e.g. a migration from the future)."""
        import asyncpg

        conn = await asyncpg.connect(self.url, server_settings={"search_path": self.schema})
        try:
            return await conn.execute(sql, *args)
        finally:
            await conn.close()


class _Dropper:
    """Drops the test schemas on a thread of its own, each as soon as its test is over,
    so that the next test does not wait for it (dropping nine tables takes longer than
    most tests). :meth:`finish` waits for every drop at the end of the session."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock: asyncio.Lock | None = None
        self._conn: Any = None
        self._pending: list[concurrent.futures.Future[None]] = []

    def drop(self, url: str, schema: str) -> None:
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
            self._thread = threading.Thread(target=self._loop.run_forever,
                                            name="pg-schema-dropper", daemon=True)
            self._thread.start()
        self._pending.append(
            asyncio.run_coroutine_threadsafe(self._drop(url, schema), self._loop))

    async def _drop(self, url: str, schema: str) -> None:
        import asyncpg

        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:  # one connection, one statement at a time
            if self._conn is None:
                self._conn = await asyncpg.connect(url)
            await self._conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')

    def finish(self) -> list[str]:
        """Wait for every drop; stop the thread. Returns what went wrong."""
        problems = []
        for future in self._pending:
            try:
                future.result(timeout=120)
            except Exception as exc:
                problems.append(f"{type(exc).__name__}: {exc}")
        self._pending.clear()
        if self._loop is not None and self._thread is not None:
            if self._conn is not None:
                asyncio.run_coroutine_threadsafe(self._conn.close(), self._loop).result(30)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._loop.close()
        self._loop = self._thread = self._lock = self._conn = None
        return problems


_dropper = _Dropper()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    problems = _dropper.finish()
    if problems:  # a leftover schema is litter, not a failed test: say so loudly
        print(f"\nWARNING: {len(problems)} test schema(s) of {PG_URL} were not dropped: "
              + "; ".join(problems[:3]), file=sys.stderr)


@pytest.fixture
async def pg_schema() -> AsyncIterator[PgSchema]:
    await require_pg()
    pg = PgSchema(PG_URL, f"fabletop_test_{secrets.token_hex(6)}")
    try:
        yield pg
    finally:
        _dropper.drop(pg.url, pg.schema)


@dataclass(frozen=True)
class Backend:
    """One test's database on one backend."""

    name: str
    make: Callable[..., Store]

    def store(self, **kwargs: Any) -> Store:
        """A new, unopened store on this test's database (``kwargs``: ``clock``...)."""
        return self.make(**kwargs)

    @staticmethod
    async def rows(store: Store, sql: str) -> list[tuple[Any, ...]]:
        """The rows of a plain ``SELECT`` read straight from ``store``'s database, for
        checks the interface has no reader for (claims, stored dates)."""
        from bot.core.store.postgres import PostgresStore

        if isinstance(store, SqliteStore):
            async with store.db.execute(sql) as cur:
                return [tuple(r) for r in await cur.fetchall()]
        assert isinstance(store, PostgresStore)
        return [tuple(r) for r in await store.pool.fetch(sql)]

    @staticmethod
    def when(value: Any) -> datetime:
        """A stored date as a datetime (SQLite keeps ISO text, PostgreSQL timestamps)."""
        return datetime.fromisoformat(value) if isinstance(value, str) else value


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    if request.param == "sqlite":
        path = tmp_path / "store.db"
        return Backend("sqlite", lambda **kwargs: SqliteStore(path, **kwargs))
    pg: PgSchema = request.getfixturevalue("pg_schema")
    return Backend("postgres", pg.store)


@pytest.fixture
async def store(backend: Backend) -> AsyncIterator[Store]:
    s = backend.store()
    await s.open()
    yield s
    await s.close()
