"""The no-hidden-information check, reusable by every game with secrets.

It replays each table of the bot's SQLite file (seed, options, action log) to get the true
state at every version, then reads every message the emulator holds, as the people who can
see it would:

* images: a board picture in a channel must be byte-identical to the rendering of the PUBLIC
  view at some version, and that view must not change when the secrets are resampled
  (``determinize``): so the picture carries nothing hidden. A DM or ephemeral picture must be
  a rendering of its recipient's own view, likewise independent of the others' secrets.
* custom_ids: only ``ft:``/``fs:`` ids naming a real table, a real version and a short code;
  no secret fragment.
* text (content, embeds, components, as text and as JSON): no secret fragment.

What counts as a secret fragment is each game's own declaration (``GameSpec.secret_fragments``):
for Fairy Tale Inn, any run of 4 consecutive upcoming bag draws (names or ids), in order.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.e2e.play import TableRow, actions, table_row
from tests.emulator import Emulator, Message

CUSTOM_ID = re.compile(
    r"(ft|fs):(?P<table>[A-Za-z0-9_-]{1,40}):(?P<version>\d{1,9}):"
    r"(?P<code>[A-Za-z0-9_.=+-]{1,40})"
)


def fragment_patterns(game: Any, state: Any) -> list[re.Pattern[str]]:
    """The game's declared secret fragments (``GameSpec.secret_fragments``: runs of words
    that betray hidden information, the next bag draws say) as patterns, the words in
    order with up to four characters of anything between them."""
    from engines.catalog import spec

    make = spec(game.id).secret_fragments
    if make is None:
        return []
    sep = r"\W{0,4}"
    return [re.compile(sep.join(re.escape(w) for w in words), re.IGNORECASE)
            for words in make(game, state)]


def private_picture(game_id: str, view: Any, names: list[str]) -> bytes:
    """The picture a seat is sent privately: its declared private picture (a hand), or
    the board drawn from its own view."""
    import renderers

    if renderers.has_private_picture(game_id):
        return renderers.render_private(game_id, view, names=names)
    return renderers.render(game_id, view, names=names)


@dataclass
class Replay:
    row: TableRow
    game: Any
    states: list[Any] = field(default_factory=list)  # index = version

    @property
    def names(self) -> list[str]:
        return [s["name"] for s in sorted(self.row.seats, key=lambda s: s["index"])]

    def seat_of(self, user_id: int) -> int | None:
        return next((s["index"] for s in self.row.seats if s.get("user_id") == user_id), None)


def replay(db: Path, channel_id: int) -> Replay:
    from engines import get_game

    row = table_row(db, channel_id)
    assert row is not None, f"no table in channel {channel_id}"
    game = get_game(row.game_id)
    state = game.setup(len(row.seats), game.parse_options(row.options), row.seed)
    rep = Replay(row, game, [game.copy_state(state)])
    for version, seat, action in actions(db, row.id):
        assert version == len(rep.states), f"action log gap before version {version}"
        game.apply(state, seat, game.parse_action(action))
        rep.states.append(game.copy_state(state))
    assert len(rep.states) - 1 == row.version, "the action log does not reach the table version"
    if row.state is not None:
        assert game.dump_state(state) == game.dump_state(game.load_state(row.state)), (
            "replaying the action log does not give the stored state"
        )
    return rep


_RENDERED: dict[tuple[str, str, tuple[str, ...]], str] = {}
"""(game, view JSON, names) -> digest of its picture (a seat's view JSON differs from the
public one, so a private picture and a board never share a key): renderers are deterministic, and a
check run twice on one table should not render twice."""


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class LeakCheck:
    """Scan an emulator's messages against the true states of one table."""

    def __init__(self, emu: Emulator, db: Path, channel_id: int) -> None:
        self.emu = emu
        self.rep = replay(db, channel_id)
        self.channel_id = channel_id
        self._renders: dict[tuple[int, int | None], str] = {}
        self.checked_images = 0
        self.checked_messages = 0

    # -- images ----------------------------------------------------------------------------

    def _view_digest(self, version: int, seat: int | None) -> str:
        key = (version, seat)
        if key not in self._renders:
            import renderers
            from engines.core import Rng

            game, state = self.rep.game, self.rep.states[version]
            view = game.view(state, seat)
            for salt in (1, 2):  # the view must not move when the secrets are resampled
                other = game.view(game.determinize(state, seat, Rng.from_seed(salt)), seat)
                assert other == view, (
                    f"the {'public' if seat is None else f'seat {seat}'} "
                    f"view of version {version} depends on hidden state"
                )
            rkey = (game.id, view.model_dump_json(), tuple(self.rep.names))
            if rkey not in _RENDERED:
                _RENDERED[rkey] = _digest(
                    private_picture(game.id, view, self.rep.names) if seat is not None
                    else renderers.render(game.id, view, names=self.rep.names))
            self._renders[key] = _RENDERED[rkey]
        return self._renders[key]

    def _check_image(self, msg: Message, data: bytes, seat: int | None, start: int | None) -> int:
        """The first version >= ``start`` whose view renders to ``data`` (public pictures are
        posted in order, so scanning from the last match keeps this to about one render
        each); ``start=None`` scans from the newest version back (a /hand picture)."""
        digest = _digest(data)
        n = len(self.rep.states)
        versions = (
            list(range(n - 1, -1, -1))
            if start is None
            else list(range(start, n)) + list(range(0, start))
        )
        for version in versions:
            if self._view_digest(version, seat) == digest:
                self.checked_images += 1
                return version
        who = "the public" if seat is None else f"seat {seat}'s"
        raise AssertionError(f"{msg!r}: its picture is not {who} view at any version")

    def _check_animation(self, msg: Message, data: bytes) -> None:
        """A replay: every frame is exactly the public board of the version it names
        (with its caption), and no caption names what was hidden at its version (a
        Recipe is rightly named by the caption of the move that cooks it)."""
        import renderers
        from renderers.animation import frames_of, read_meta, redraw

        meta = read_meta(data)
        assert meta is not None, f"{msg!r}: a GIF that is not a Fabletop replay"
        game, pictures = self.rep.game, []
        for version in meta["steps"]:
            self._view_digest(version, None)  # the public view must not move with secrets
            view = game.view(self.rep.states[version], None)
            pictures.append(renderers.render(game.id, view, names=self.rep.names))
        shown, expected = frames_of(data), redraw(pictures, meta)
        assert len(shown) == len(expected), f"{msg!r}: frames do not match their steps"
        for i, (a, b) in enumerate(zip(shown, expected, strict=True)):
            assert a.tobytes() == b.tobytes(), f"{msg!r}: frame {i} is not a public board"
        for version, caption in zip(meta["steps"], meta["captions"], strict=True):
            for pattern in fragment_patterns(game, self.rep.states[version]):
                hit = pattern.search(caption)
                assert hit is None, f"{msg!r}: a caption reveals {hit.group(0)!r}"
        self.checked_images += len(shown)

    # -- text and ids --------------------------------------------------------------------

    def _fragments(self) -> list[re.Pattern[str]]:
        out: list[re.Pattern[str]] = []
        seen: set[str] = set()
        for state in self.rep.states:
            for pattern in fragment_patterns(self.rep.game, state):
                if pattern.pattern not in seen:
                    seen.add(pattern.pattern)
                    out.append(pattern)
        return out

    def _check_ids(self, msg: Message) -> None:
        for cid in msg.custom_ids:
            m = CUSTOM_ID.fullmatch(cid)
            assert m is not None, f"{msg!r}: custom_id {cid!r} is not a Fabletop id"
            if m["table"] == self.rep.row.id:
                assert int(m["version"]) <= self.rep.row.version, f"{cid}: future version"

    def run(self) -> None:
        """Raise AssertionError at the first leak; counts what was checked."""
        fragments = self._fragments()
        next_public = 0
        for msg in self._messages():
            self.checked_messages += 1
            self._check_ids(msg)
            # Every version of an edited message was seen: its earlier words and pictures
            # are checked like its current ones.
            earlier = [f"{old.get('content') or ''}\n{old.get('components')}"
                       for old in msg.history]
            text = "\n".join([*earlier, msg.text, msg.raw_json()])
            for pattern in fragments:
                hit = pattern.search(text)
                assert hit is None, f"{msg!r} reveals hidden order {hit.group(0)!r}"
            seen: set[int] = set()
            files = [a for old in msg.history for a in old.get("files", [])]
            for attachment in [*files, *msg.attachments]:
                if id(attachment) in seen:
                    continue
                seen.add(id(attachment))
                if not attachment.content_type.startswith("image/"):
                    continue
                seat = self._viewer_seat(msg)
                if attachment.content_type == "image/gif":  # a replay (/table replay)
                    assert seat == "public", f"{msg!r}: an animation sent privately"
                    self._check_animation(msg, attachment.data)
                    continue
                if seat == "public":
                    next_public = self._check_image(msg, attachment.data, None, next_public)
                elif seat is not None:
                    self._check_image(msg, attachment.data, seat, None)

    def _messages(self) -> Iterator[Message]:
        table_channel = self.emu.channels[self.channel_id]
        yield from table_channel.messages  # including deleted ones: they were seen
        seated = {s.get("user_id") for s in self.rep.row.seats}
        for uid in seated:
            user = self.emu.users.get(uid) if uid else None
            if user is None:
                continue
            dm = self.emu.dm_channel(user, create=False)
            if dm is not None:
                yield from dm.messages
        for msgs in self.emu.ephemerals.values():
            yield from (m for m in msgs if m.channel_id == self.channel_id)

    def _viewer_seat(self, msg: Message) -> int | str | None:
        channel = self.emu.channels[msg.channel_id]
        if msg.ephemeral_for is not None:
            return self.rep.seat_of(msg.ephemeral_for)
        if channel.is_dm and channel.recipient is not None:
            return self.rep.seat_of(channel.recipient.id)
        return "public"


def assert_no_hidden_information(emu: Emulator, db: Path, channel_id: int) -> LeakCheck:
    """Run the full check for the table of ``channel_id``; returns it (for its counts)."""
    check = LeakCheck(emu, db, channel_id)
    check.run()
    return check


def assert_web_views_hidden(db: Path, channel_id: int,
                            received: dict[int, list[dict[str, Any]]]) -> int:
    """The same check for everything the web front-end sent, per viewer and per version:
    ``received`` is each user's ``state`` messages (and any others, skipped) as their
    sockets got them. Every state of this table must carry exactly the view of the
    viewer's own seat at its version (the public view for a spectator), a view that
    does not move when the others' secrets are resampled; and what a spectator receives
    besides (menus, news lines) holds no secret fragment of that version. Returns how
    many states were checked."""
    import json

    from engines.core import Rng

    rep = replay(db, channel_id)
    game, checked = rep.game, 0
    for user_id, messages in received.items():
        seat = rep.seat_of(user_id)
        for message in messages:
            if message.get("type") != "state" or message["table"]["id"] != rep.row.id:
                continue
            version = message["version"]
            assert message["seat"] == seat, f"user {user_id} was shown seat {message['seat']}"
            if message["view"] is not None:
                state = rep.states[version]
                view = game.view(state, seat)
                assert message["view"] == view.model_dump(mode="json"), (
                    f"user {user_id} got a view that is not seat {seat}'s at v{version}")
                for salt in (1, 2):
                    other = game.view(game.determinize(state, seat, Rng.from_seed(salt)), seat)
                    assert other == view, f"seat {seat}'s view of v{version} leaks secrets"
            if seat is None:
                rest = json.dumps({k: v for k, v in message.items() if k != "view"})
                for pattern in fragment_patterns(game, rep.states[version]):
                    hit = pattern.search(rest)
                    assert hit is None, f"a spectator's board reveals {hit.group(0)!r}"
            checked += 1
    return checked
