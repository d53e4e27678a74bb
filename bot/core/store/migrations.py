"""The numbered schema migrations of the SQLite store, as data.

Each :class:`Migration` is applied once, in its own write transaction, and recorded in
the ``migrations`` table (``version``, ``name``, ``applied_at``). A store refuses a
database whose recorded migrations are newer than :data:`LATEST`. Another driver (the
PostgreSQL store) keeps its own list in its own dialect under the same numbers and
names, so a version means the same schema everywhere.

A step is either plain SQL (one statement) or an :class:`IfTable`: SQL run only when a
given table exists, used to copy the rows of the small tables the cogs used to keep on
their own (they are left in place, never dropped).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LATEST", "MIGRATIONS", "IfTable", "Migration", "Step"]


@dataclass(frozen=True)
class IfTable:
    """``sql`` runs only if the table ``table`` exists (an optional legacy source)."""

    table: str
    sql: str


Step = str | IfTable


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    statements: tuple[Step, ...]


_INITIAL = Migration(
    1,
    "initial",
    (
        # Exactly the schema of the unnumbered store (IF NOT EXISTS: such a database,
        # recognised by its ``schema_version`` table, is adopted as it is).
        """CREATE TABLE IF NOT EXISTS tables (
            id               TEXT PRIMARY KEY,
            channel_id       INTEGER NOT NULL,
            guild_id         INTEGER,
            game_id          TEXT NOT NULL,
            options          TEXT NOT NULL,
            seed             INTEGER NOT NULL,
            status           TEXT NOT NULL
                             CHECK (status IN ('lobby', 'playing', 'finished', 'aborted')),
            host_id          INTEGER NOT NULL,
            seats            TEXT NOT NULL,
            version          INTEGER NOT NULL DEFAULT 0,
            state            TEXT,
            reminder_minutes REAL NOT NULL,
            created_at       TEXT NOT NULL,
            updated_at       TEXT NOT NULL,
            turn_since       TEXT,
            reminded_at      TEXT
        )""",
        # One live table per channel, enforced by the database itself (several processes).
        """CREATE UNIQUE INDEX IF NOT EXISTS tables_live_channel
            ON tables (channel_id) WHERE status IN ('lobby', 'playing')""",
        "CREATE INDEX IF NOT EXISTS tables_status ON tables (status)",
        """CREATE TABLE IF NOT EXISTS actions (
            table_id   TEXT NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
            version    INTEGER NOT NULL,
            seat       INTEGER NOT NULL,
            user_id    INTEGER,
            action     TEXT NOT NULL,
            created_at TEXT NOT NULL,
            UNIQUE (table_id, version)
        )""",
        """CREATE TABLE IF NOT EXISTS events (
            table_id TEXT NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
            version  INTEGER NOT NULL,
            idx      INTEGER NOT NULL,
            data     TEXT NOT NULL,
            UNIQUE (table_id, version, idx)
        )""",
    ),
)

_OUTBOX_AND_MESSAGES = Migration(
    2,
    "settings, outbox, hand and turn messages, closed DMs",
    (
        # Table settings that are not game rules (a JSON object).
        "ALTER TABLE tables ADD COLUMN settings TEXT NOT NULL DEFAULT '{}'",
        IfTable(
            "winter_table_settings",
            """UPDATE tables SET settings = (
                   SELECT json_set(tables.settings, '$.interrupt_timeout', w.interrupt_timeout)
                   FROM winter_table_settings AS w WHERE w.table_id = tables.id)
               WHERE id IN (SELECT table_id FROM winter_table_settings)""",
        ),
        # What a committed change still has to tell Discord: written in the same
        # transaction as the change, marked once delivered.
        """CREATE TABLE outbox (
            id            INTEGER PRIMARY KEY AUTOINCREMENT,
            table_id      TEXT NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
            version       INTEGER NOT NULL,
            payload       TEXT NOT NULL,
            created_at    TEXT NOT NULL,
            delivered_at  TEXT,
            claimed_by    TEXT,
            claimed_until TEXT
        )""",
        "CREATE INDEX outbox_undelivered ON outbox (id) WHERE delivered_at IS NULL",
        # The DM hand message of each (table, user).
        """CREATE TABLE hand_messages (
            table_id      TEXT NOT NULL,
            user_id       INTEGER NOT NULL,
            channel_id    INTEGER NOT NULL,
            message_id    INTEGER NOT NULL,
            signature     TEXT NOT NULL,
            image_sig     TEXT NOT NULL,
            shows_choices INTEGER NOT NULL,
            PRIMARY KEY (table_id, user_id)
        )""",
        # Copied hands count as showing choices, so each is looked at once after the
        # upgrade.
        IfTable(
            "winter_hand_messages",
            """INSERT OR IGNORE INTO hand_messages
                   (table_id, user_id, channel_id, message_id, signature, image_sig,
                    shows_choices)
               SELECT table_id, user_id, channel_id, message_id, signature, image_sig, 1
               FROM winter_hand_messages""",
        ),
        # The current public turn message of each table.
        """CREATE TABLE turn_messages (
            table_id    TEXT PRIMARY KEY,
            channel_id  INTEGER NOT NULL,
            message_id  INTEGER NOT NULL,
            version     INTEGER NOT NULL,
            pinged      TEXT NOT NULL,  -- JSON list of user ids
            lines       TEXT NOT NULL,  -- JSON list of strings
            has_buttons INTEGER NOT NULL,
            board_key   TEXT
        )""",
        # Users whose DMs are closed (shared by every process).
        """CREATE TABLE dm_closed (
            user_id INTEGER PRIMARY KEY,
            since   TEXT NOT NULL
        )""",
        IfTable(
            "delivery_dm_closed",
            """INSERT OR IGNORE INTO dm_closed (user_id, since)
               SELECT user_id, since FROM delivery_dm_closed""",
        ),
    ),
)

_REVISIONS_AND_LEASES = Migration(
    3,
    "write revisions, background-work leases",
    (
        # Every write of a table bumps it and is conditional on it (moves bump the
        # version as well): lobby changes, handovers and aborts cannot overwrite each
        # other across processes.
        "ALTER TABLE tables ADD COLUMN revision INTEGER NOT NULL DEFAULT 0",
        # Which process runs a table's AI turns, until when (a lease, renewed while it
        # plays; an expired one is free for any process).
        """CREATE TABLE table_leases (
            table_id TEXT PRIMARY KEY REFERENCES tables (id) ON DELETE CASCADE,
            owner    TEXT NOT NULL,
            until    TEXT NOT NULL
        )""",
        "CREATE INDEX tables_live_host ON tables (host_id) WHERE status IN ('lobby', 'playing')",
        "CREATE INDEX tables_live_guild ON tables (guild_id) WHERE status IN ('lobby', 'playing')",
    ),
)

_SERVERS_AND_RESULTS = Migration(
    4,
    "server settings, game results",
    (
        # A server's own choices (a JSON object), e.g. whether tables open in threads.
        """CREATE TABLE guild_settings (
            guild_id   INTEGER PRIMARY KEY,
            settings   TEXT NOT NULL,
            updated_at TEXT NOT NULL
        )""",
        # One row per finished game: the history, the statistics and the ratings read
        # these, never the game states.
        """CREATE TABLE results (
            table_id    TEXT PRIMARY KEY REFERENCES tables (id) ON DELETE CASCADE,
            guild_id    INTEGER,
            channel_id  INTEGER NOT NULL,
            game_id     TEXT NOT NULL,
            options     TEXT NOT NULL,
            seats       TEXT NOT NULL,
            winners     TEXT NOT NULL,
            scores      TEXT NOT NULL,
            reason      TEXT,
            cooperative INTEGER NOT NULL,
            moves       INTEGER NOT NULL,
            started_at  TEXT NOT NULL,
            finished_at TEXT NOT NULL
        )""",
        "CREATE INDEX results_guild ON results (guild_id, finished_at)",
        "CREATE INDEX results_channel ON results (channel_id, finished_at)",
    ),
)

_JOURNALS = Migration(
    5,
    "append-only journals",
    (
        # What a game only appends to (Winter Tales' story) lives here, not in the state:
        # a commit inserts the entries its move added or replaced, never the whole story
        # again. Rows are never updated; the newest version of an entry wins.
        """CREATE TABLE journal (
            table_id TEXT NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
            n        INTEGER NOT NULL,
            version  INTEGER NOT NULL,
            data     TEXT NOT NULL,
            PRIMARY KEY (table_id, n, version)
        )""",
    ),
)

_AI_TURNS = Migration(
    6,
    "AI turns findable in the row",
    (
        # Whether an AI seat is to act in the row's state, written with every row, so
        # that any process (one that never loaded the table included) finds the AI turns
        # a dead process left, in one indexed query (Store.unclaimed_ai_turns). Rows
        # written before it read false: every process loads every live table at its
        # start, and its timer pass looks at those in memory too.
        "ALTER TABLE tables ADD COLUMN ai_to_act INTEGER NOT NULL DEFAULT 0",
        "CREATE INDEX tables_ai_to_act ON tables (updated_at)"
        " WHERE status = 'playing' AND ai_to_act != 0",
    ),
)

_ACTIVITY_PRESENCE = Migration(
    7,
    "who has the Activity open",
    (
        # Who has a channel's board open in the Activity, one row per person and serving
        # process (``owner``), stamped by that process's heartbeat: the process that
        # delivers the table's messages (maybe another) skips the pictures nobody outside
        # the Activity would see. A row whose stamp is old belongs to a dead process.
        """CREATE TABLE activity_presence (
            channel_id INTEGER NOT NULL,
            user_id    INTEGER NOT NULL,
            owner      TEXT NOT NULL,
            seen_at    TEXT NOT NULL,
            PRIMARY KEY (channel_id, user_id, owner)
        )""",
        "CREATE INDEX activity_presence_owner ON activity_presence (owner)",
    ),
)

MIGRATIONS: tuple[Migration, ...] = (
    _INITIAL, _OUTBOX_AND_MESSAGES, _REVISIONS_AND_LEASES, _SERVERS_AND_RESULTS, _JOURNALS,
    _AI_TURNS, _ACTIVITY_PRESENCE)
"""Every migration, in version order (versions 1, 2, ... without gaps)."""

LATEST = MIGRATIONS[-1].version

if [m.version for m in MIGRATIONS] != list(range(1, LATEST + 1)):  # pragma: no cover
    raise RuntimeError("migrations must be numbered 1, 2, ... in order")
