"""Play: the one way a move is made, and what it leaves to deliver.

:meth:`PlayPart.play` is the single entry point for a move, for people (through
:meth:`PlayPart.act` and :meth:`PlayPart.choose`), the AI runner and the timers alike.
Under the table's lock it checks the move, applies it to a copy of the state, and
commits the new state, the action, its events and the outbox in ONE transaction before
anything is sent. The outbox is self-contained: the public view, each human seat's own
view and the legal actions of the seats to act, all read at the new version, so
delivery never has to ask the service again.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeVar

from bot.core.store import (
    ActionRecord,
    EventRecord,
    StoreUnwritable,
    TableRecord,
    VersionConflict,
)
from bot.core.tables.errors import (
    AlreadySeated,
    BadSeat,
    NoTable,
    NotPlaying,
    NotSeated,
    NotYourTurn,
    StaleVersion,
    StorageUnavailable,
)
from bot.core.tables.history import result_of
from bot.core.tables.live import (
    ServiceBase,
    Table,
    ai_to_act,
    check_id,
    clean_name,
    seat_dict,
)
from bot.core.tables.lobby import no_such_seat
from bot.core.tables.models import (
    ChannelOrTable,
    Outbox,
    PrivateUpdate,
    PublicUpdate,
    SeatNews,
    TableInfo,
    TableStatus,
)
from bot.core.tables.texts import join_names, said_in
from engines import core
from engines.core import Action, Event, Game, GameState, Seat, View

__all__ = ["STALE", "PlayPart"]

log = logging.getLogger("fabletop.tables")

T = TypeVar("T")

STALE = (
    "This button is from an older turn; the table has moved on. "
    "Use the latest message in the channel."
)

Decide = Callable[[TableInfo, View, list[Action]], "Action | T"]
"""``decide(table, the clicker's view, their legal actions)``: the action to play, or
anything else to show the clicker instead (a follow-up menu)."""


class PlayPart(ServiceBase):
    """Moves, views and seat handovers of :class:`bot.core.tables.TableService`."""

    # -- checks ------------------------------------------------------------------

    def _require_playing(self, t: Table) -> None:
        status = t.status
        if status is TableStatus.PLAYING and t.state is not None:
            return
        if status is TableStatus.LOBBY:
            raise NotPlaying("The game has not started yet: the host starts it with /table start.")
        if status is TableStatus.FINISHED:
            raise NotPlaying("The game at this table is over.")
        raise NotPlaying("This table was closed; there is no game to play here.")

    def _not_your_turn(self, t: Table) -> NotYourTurn:
        names = [t.name(s) for s in t.to_act()]
        if not names:
            return NotYourTurn("It is not your turn.")
        return NotYourTurn(f"It is not your turn: the table is waiting for {join_names(names)}.")

    def _check_move(self, t: Table, seat: Seat, expected_version: int | None) -> None:
        self._require_playing(t)
        assert t.state is not None
        # A button from an older turn is explained as such, even when the turn has
        # since passed to someone else (the losing half of a double click).
        if expected_version is not None and expected_version != t.rec.version:
            raise StaleVersion()
        if seat not in t.to_act() and not t.game.may_act_out_of_turn(t.state, seat):
            raise self._not_your_turn(t)

    # -- the one way to move -------------------------------------------------------

    async def play(
        self,
        table: ChannelOrTable,
        seat: Seat,
        action: Action | dict[str, Any] | str,
        expected_version: int | None = None,
        *,
        user_id: int | None = None,
        by_ai: bool = False,
        note: str | None = None,
    ) -> Outbox:
        """Play ``action`` for ``seat``, under the table's lock.

        Checks, in order: the table exists (NoTable) and is playing (NotPlaying),
        ``expected_version`` (when given) matches (StaleVersion), the seat is to act
        (NotYourTurn), the action parses (IllegalAction) and is legal (the engine's
        GameErrors). Then applies it and commits the new state, the action, its events
        and the outbox with version+1 in one transaction before returning. On any error
        nothing changes. AI seats that must act next play in the background; their
        outboxes go to the listeners. ``by_ai``: the AI runner's move, refused (as
        StaleVersion) if the seat has been handed to a person meanwhile; ``note``: a line
        told before the move's news (a timer's "did not decide in time")."""
        async with self._locked(table) as t:
            if by_ai and not (0 <= seat < len(t.rec.seats) and t.seats[seat].is_ai):
                raise StaleVersion()
            outbox = await self._play(t, seat, user_id, action, expected_version, note=note)
        self._kick_ai(t)
        return outbox

    async def _play(self, t: Table, seat: Seat, user_id: int | None,
                    action: Action | dict[str, Any] | str,
                    expected_version: int | None, *, note: str | None = None) -> Outbox:
        self._check_move(t, seat, expected_version)
        return await self._apply(t, seat, user_id, t.game.parse_action(action), note)

    def _seat_of(self, t: Table, user_id: int) -> int:
        self._require_playing(t)
        seat = t.seat_of(user_id)
        if seat is None:
            raise NotSeated("You do not have a seat at this table.")
        return seat.index

    async def act(
        self,
        channel_or_table: ChannelOrTable,
        user_id: int,
        action: Action | dict[str, Any] | str,
        expected_version: int | None = None,
    ) -> Outbox:
        """:meth:`play` for ``user_id``'s seat (NotSeated if they have none)."""
        async with self._locked(channel_or_table) as t:
            seat = self._seat_of(t, user_id)
            outbox = await self._play(t, seat, user_id, action, expected_version)
        self._kick_ai(t)
        return outbox

    async def choose(self, table: ChannelOrTable, user_id: int, expected_version: int | None,
                     decide: Decide[T], *, out_of_turn: bool = False) -> Outbox | T:
        """A click: under one lock and one read of the table, the clicker's own view and
        legal actions go to ``decide`` (the game's UI adapter). If it returns an action,
        that is played (as :meth:`play`); anything else (a follow-up menu) is returned
        for the clicker. The refusals say why a click cannot count, in button terms.
        ``out_of_turn``: the seat may choose while others are to act, among the actions
        the game allows out of turn (words added to a story)."""
        async with self._locked(table) as t:
            self._check_click(t, user_id, expected_version, out_of_turn)
            assert t.state is not None
            seat = t.seat_of(user_id)
            assert seat is not None
            views = self._views(t)
            view = views.get(seat.index) or t.game.view(t.state, seat.index)
            legal = list(t.game.legal_actions(t.state, seat.index))
            decision = decide(self._info(t), view, legal)
            if not isinstance(decision, Action):
                return decision
            outbox = await self._play(t, seat.index, user_id, decision, expected_version)
        self._kick_ai(t)
        return outbox

    def _check_click(self, t: Table, user_id: int, version: int | None,
                     out_of_turn: bool) -> None:
        status = t.status
        if status is TableStatus.FINISHED:
            raise NotPlaying("This game is over.")
        if status is TableStatus.ABORTED:
            raise NotPlaying("This table was closed.")
        if status is not TableStatus.PLAYING or t.state is None:
            raise NotPlaying("This game has not started yet.")
        if version is not None and version != t.rec.version:
            raise StaleVersion(STALE)
        waiting = join_names([t.name(s) for s in t.to_act()]) or "nobody"
        seat = t.seat_of(user_id)
        if seat is None:
            raise NotSeated("These buttons are for the players at this table; you do not have "
                            f"a seat. It is {waiting}'s turn.")
        if seat.index not in t.to_act() and not (
                out_of_turn and t.game.may_act_out_of_turn(t.state, seat.index)):
            raise NotYourTurn(f"It is not your turn; it is {waiting}'s turn.")

    async def seat_snapshot(self, table: ChannelOrTable, user_id: int) -> Outbox:
        """The user's own view and choices now, as an outbox without news (for ``/hand``
        and a hand message shown on request). One read. Raises NoTable, NotSeated,
        NotPlaying (before the start)."""
        async with self._locked(table) as t:
            seat = t.seat_of(user_id)
            if seat is None:
                raise NotSeated("You do not have a seat at this table.")
            if t.state is None:
                if t.status is TableStatus.LOBBY:
                    raise NotPlaying("The game has not started yet.")
                raise NotPlaying("This table was closed before its game started.")
            return self._snapshot(t, only_user=user_id)

    def _snapshot(self, t: Table, only_user: int | None = None) -> Outbox:
        """The table as it is, views and choices included, with no news."""
        info = self._info(t)
        views = self._views(t)
        return Outbox(table=info, public_view=views.get(None),
                      seats=self._seat_news(t, info, views, {}, only_user))

    async def table_snapshot(self, table: ChannelOrTable) -> Outbox | None:
        """The table as it is now, with every human seat's view and choices and no news
        (a board re-post; catching up after a restart). ``None`` before the start."""
        async with self._locked(table) as t:
            if t.state is None:
                return None
            return self._snapshot(t)

    async def live_table_ids(self) -> list[str]:
        """Every live table this process holds."""
        return list(self._live)

    async def rehydrate(self, outbox: Outbox) -> Outbox:
        """A stored outbox (a restarted bot delivering what was not delivered) with its
        views and choices read again: those of the table now if it is still at the
        outbox's version, else none (the newer outbox brings the board and buttons)."""
        try:
            async with self._locked(outbox.table_id) as t:
                if t.rec.version != outbox.version or t.state is None:
                    return outbox
                now = self._snapshot(t)
                return replace(outbox, public_view=now.public_view, seats=now.seats)
        except NoTable:
            return outbox

    # -- applying and committing ---------------------------------------------------

    def _views(self, t: Table) -> dict[Seat | None, View]:
        """The public view and each human seat's own view (cached per version and seat
        holders)."""
        if t.state is None:
            return {}
        key = (t.rec.version, t.rec.status, tuple(s["user_id"] for s in t.rec.seats))
        if t.views_key != key:
            views: dict[Seat | None, View] = {None: t.game.view(t.state, None)}
            for s in t.seats:
                if s.user_id is not None:
                    views[s.index] = t.game.view(t.state, s.index)
            t.views, t.views_key = views, key
        return t.views

    def _secret_parts(self, t: Table) -> dict[Seat, dict[str, Any]]:
        """Per human seat: the parts of its view that differ from the public view."""
        if not t.game.has_secrets:
            return {}
        views = self._views(t)
        if None not in views:
            return {}
        public = views[None]
        out: dict[Seat, dict[str, Any]] = {}
        for seat, view in views.items():
            if seat is None:
                continue
            # Field by field, and only what differs is dumped: the parts every view
            # shares (a long story) are mostly the very same objects, compared at once.
            differ = {k for k in type(view).model_fields
                      if k != "seat" and getattr(view, k) != getattr(public, k, None)}
            mine = view.model_dump(mode="json", include=differ) if differ else {}
            shared = public.model_dump(mode="json", include=differ) if differ else {}
            out[seat] = {k: v for k, v in mine.items() if shared.get(k) != v}
        return out

    async def _apply(self, t: Table, seat: Seat, user_id: int | None, action: Action,
                     note: str | None = None) -> Outbox:
        """Apply on a copy, commit, then adopt. Caller holds ``t.lock``."""
        game = t.game
        assert t.state is not None
        before = self._secret_parts(t)
        # A step of the mover's own turn; an action taken out of turn (a ruling, the
        # anonymous X-card) names no actor, so nothing ties it to a seat in public.
        in_turn = not game.out_of_turn(t.state, seat, action)
        state = game.copy_state(t.state)
        try:
            events = game.apply(state, seat, action)
        except core.NotYourTurn as exc:
            raise self._not_your_turn(t) from exc
        rec = self._copy_rec(t)
        rec.version = t.rec.version + 1
        rec.state = game.dump_body(state)
        now = self.clock()
        rec.turn_since = now
        rec.reminded_at = None
        if game.outcome(state) is not None:
            rec.status = TableStatus.FINISHED.value
        action_record = ActionRecord(
            table_id=rec.id, version=rec.version, seat=seat, user_id=user_id,
            action=game.dump_action(action), created_at=now,
        )
        return await self._commit(t, rec, state, "move", [note] if note else [],
                                 events=events, before=before, action=action_record,
                                 actor=seat if in_turn else None)

    async def _commit(
        self,
        t: Table,
        rec: TableRecord,
        state: GameState | None,
        kind: str,
        head: list[str],
        *,
        events: list[Event] | tuple[Event, ...] = (),
        before: dict[Seat, dict[str, Any]] | None = None,
        action: ActionRecord | None = None,
        render_board: bool = True,
        actor: Seat | None = None,
    ) -> Outbox:
        """Write ``rec`` (and ``action`` with its ``events``, when a move) together with
        the outbox it leaves, in one transaction; then adopt it. Caller holds the lock."""
        staged = replace(t, rec=rec, state=state, views_key=None, views={})
        outbox = self._make_outbox(staged, kind, head, events=list(events),
                                  before=before or {}, render_board=render_board,
                                  actor=actor)
        rec.updated_at = self.clock()
        rec.ai_to_act = ai_to_act(t.game, rec, state)
        journal = (t.game.journal_changes(t.state if t.journal_stored else None, state)
                   if state is not None else [])
        try:
            if action is None:
                outbox_id = await self.store.save_table(
                    rec, expected_version=t.rec.version, outbox=outbox.to_json(),
                    journal=journal)
            else:
                records = [
                    EventRecord(table_id=rec.id, version=rec.version, idx=i, data=json.dumps({
                        "type": type(e).__name__,
                        "visible_to": list(e.visible_to) if e.visible_to is not None else None,
                        "text": e.text(t.name),
                        "event": e.model_dump(mode="json"),
                    }))
                    for i, e in enumerate(events)
                ]
                outbox_id = await self.store.commit_action(
                    rec, t.rec.version, action, records, outbox=outbox.to_json(),
                    journal=journal)
        except VersionConflict as exc:
            # Someone else (another process) wrote first: catch up and refuse.
            raise await self._lost_race(t) from exc
        except StoreUnwritable as exc:
            raise StorageUnavailable() from exc  # nothing of ``t`` has changed yet
        t.rec, t.state, t.views, t.views_key = rec, state, staged.views, staged.views_key
        t.journal_stored = True
        if not t.status.live:
            self._forget(t)
        committed = replace(outbox, id=outbox_id)
        self._tell_watchers(committed)
        if t.status is TableStatus.FINISHED and state is not None:
            await self._record_result(t, state)
        return committed

    async def _record_result(self, t: Table, state: GameState) -> None:
        """The finished game's line in the history. Best effort after the commit: a
        process stopped before it records it at its next start (``backfill_results``)."""
        outcome = t.game.outcome(state)
        if outcome is None:
            return
        try:
            await self.store.record_result(result_of(t.rec, outcome, t.game.cooperative))
        except StoreUnwritable:
            pass  # the store said why, once; the next start records it (backfill)
        except Exception:
            log.exception("could not record the result of table %s", t.rec.id)

    def _make_outbox(
        self,
        t: Table,
        kind: str,
        head: list[str],
        *,
        events: list[Event],
        before: dict[Seat, dict[str, Any]],
        render_board: bool = True,
        actor: Seat | None = None,
    ) -> Outbox:
        info = self._info(t)
        lines = [*head, *(e.text(t.name) for e in events if e.visible_to is None)]
        finished = info.status is TableStatus.FINISHED
        mentions: tuple[int, ...] = ()
        turn_line = None
        if finished:
            if info.outcome_text:
                # the last event often says why the game ended, and so does the result
                lines = [x for x in lines if not said_in(x, info.outcome_text)]
                lines.append(info.outcome_text)
        elif info.to_act:
            mentions = info.to_act_users
            turn_line = f"It is {join_names([t.name(s) for s in info.to_act])}'s turn."
        public = PublicUpdate(
            table_id=info.id, channel_id=info.channel_id, game_id=info.game_id,
            version=info.version, kind=kind,
            lines=tuple(x for x in lines if x and x != turn_line), mentions=mentions,
            render_board=render_board, to_act=info.to_act, finished=finished,
            outcome_text=info.outcome_text, actor=actor, turn_line=turn_line,
        )
        views = self._views(t)
        after = self._secret_parts(t)
        private: list[PrivateUpdate] = []
        changed: set[Seat] = set()
        for s in info.seats:
            if s.user_id is None:
                continue
            mine = [e.text(t.name) for e in events
                    if e.visible_to is not None and s.index in e.visible_to]
            secret = after.get(s.index) or {}
            # Only a secret worth showing (a non-empty hand, say) triggers an update.
            if secret != before.get(s.index) and any(secret.values()):
                changed.add(s.index)
                if not mine:
                    mine = ["Your secret information has changed: see /hand."]
            if mine:
                changed.add(s.index)
                private.append(PrivateUpdate(
                    table_id=info.id, channel_id=info.channel_id, user_id=s.user_id,
                    seat=s.index, version=info.version, lines=tuple(mine),
                ))
        return Outbox(table=info, public=public, private=tuple(private),
                      public_view=views.get(None),
                      seats=self._seat_news(t, info, views, changed, None))

    def _seat_news(self, t: Table, info: TableInfo, views: dict[Seat | None, View],
                   changed: set[Seat], only_user: int | None) -> tuple[SeatNews, ...]:
        out = []
        playing = info.status is TableStatus.PLAYING and t.state is not None
        for s in info.seats:
            if s.user_id is None or (only_user is not None and s.user_id != only_user):
                continue
            legal: tuple[Action, ...] = ()
            if playing and s.index in info.to_act:
                assert t.state is not None
                legal = tuple(t.game.legal_actions(t.state, s.index))
            out.append(SeatNews(seat=s.index, user_id=s.user_id, view=views.get(s.index),
                                legal=legal, changed=s.index in changed))
        return tuple(out)

    # -- seats during a game ---------------------------------------------------------

    async def replace_seat(
        self,
        channel_id: int,
        user_id: int,
        seat: int,
        *,
        new_user_id: int | None = None,
        new_name: str | None = None,
        ai_level: str | None = None,
        can_manage_channel: bool = False,
    ) -> Outbox:
        """Host (or Manage Channels) hands ``seat`` of a running game to another member
        (``new_user_id`` + ``new_name``) or, with ``new_user_id=None``, to an AI of
        ``ai_level`` (default the strongest). Raises NotHost, NotPlaying, BadSeat,
        AlreadySeated, UnknownAILevel."""
        async with self._locked(channel_id) as t:
            self._require_playing(t)
            self._require_host(t, user_id, bool(can_manage_channel), what="replace")
            if isinstance(seat, bool) or not isinstance(seat, int) or not (
                0 <= seat < len(t.rec.seats)
            ):
                raise BadSeat(no_such_seat(seat, len(t.rec.seats)))
            rec = self._copy_rec(t)
            old = dict(rec.seats[seat])
            if new_user_id is None:
                level = self._pick_level(t.rec.game_id, ai_level)
                new = seat_dict(seat, self._ai_name(t, level, rec.seats), None, level)
            else:
                check_id(new_user_id, "user")
                holder = t.seat_of(new_user_id)
                if holder is not None:
                    raise AlreadySeated(
                        f"{holder.name} already holds seat {holder.index + 1} at this table."
                    )
                new = seat_dict(seat, clean_name(new_name or "", f"Player {new_user_id}"),
                                new_user_id, None)
            rec.seats[seat] = new
            if seat in t.to_act():
                rec.turn_since = self.clock()
                rec.reminded_at = None
            line = f"Seat {seat + 1} ({old['name']}) is now played by {new['name']}."
            outbox = await self._commit(t, rec, t.state, "seat", [line], render_board=False)
        self._kick_ai(t)
        return outbox

    # -- views -----------------------------------------------------------------

    async def _playing_or_finished(self, ref: ChannelOrTable) -> Table:
        async with self._locked(ref) as t:
            pass
        if t.state is None:
            if t.status is TableStatus.LOBBY:
                raise NotPlaying("The game has not started yet.")
            raise NotPlaying("This table was closed before its game started.")
        return t

    async def public_view(self, channel_or_table: ChannelOrTable) -> View:
        """What everyone may see (render the channel board from this)."""
        t = await self._playing_or_finished(channel_or_table)
        return self._views(t)[None]

    async def private_view(self, channel_or_table: ChannelOrTable, user_id: int) -> View:
        """What ``user_id``'s seat may see. Raises NotSeated."""
        t = await self._playing_or_finished(channel_or_table)
        seat = t.seat_of(user_id)
        if seat is None:
            raise NotSeated("You do not have a seat at this table.")
        return self._views(t).get(seat.index) or t.game.view(t.state, seat.index)  # type: ignore[arg-type]

    async def state_for_search(self, channel_or_table: ChannelOrTable
                               ) -> tuple[Game, GameState, int]:
        """The game, a COPY of the whole state and its version, for a search that
        reshuffles what is hidden itself (a hint): the state holds secrets, so whoever
        asks must only show what the search concludes. Raises NotPlaying."""
        async with self._locked(channel_or_table) as t:
            if t.status is not TableStatus.PLAYING or t.state is None:
                raise NotPlaying("This game is over." if t.state is not None
                                 else "The game has not started yet.")
            return t.game, t.game.copy_state(t.state), t.rec.version

    async def legal_actions(
        self, channel_or_table: ChannelOrTable, user_id: int
    ) -> list[Action]:
        """The user's legal actions now (empty if it is not their turn)."""
        async with self._locked(channel_or_table) as t:
            pass
        seat = t.seat_of(user_id)
        if seat is None or t.status is not TableStatus.PLAYING or t.state is None:
            return []
        return list(t.game.legal_actions(t.state, seat.index))

    async def history(self, channel_or_table: ChannelOrTable, user_id: int | None = None
                      ) -> list[str]:
        """The table's event log as text lines, filtered to what ``user_id`` may see
        (public lines only when ``None``)."""
        t, _ = await self._resolve(channel_or_table)
        seat = t.seat_of(user_id) if user_id is not None else None
        lines = []
        for record in await self.store.events(t.rec.id):
            data = json.loads(record.data)
            visible = data.get("visible_to")
            if visible is None or (seat is not None and seat.index in visible):
                lines.append(str(data.get("text", "")))
        return lines

    # -- provided by the other parts -----------------------------------------------

    def _kick_ai(self, t: Table) -> None:  # pragma: no cover - the AI part overrides it
        raise NotImplementedError

    async def take_over_ai(self) -> int:  # pragma: no cover - the AI part overrides it
        raise NotImplementedError

    def _require_host(self, t: Table, user_id: int, can_manage: bool = False,
                      what: str = "do that") -> None:  # pragma: no cover - lobby part
        raise NotImplementedError

    def _pick_level(self, game_id: str, level: str | None) -> str:  # pragma: no cover
        raise NotImplementedError

    def _ai_name(self, t: Table, level: str, seats: list[dict[str, Any]]) -> str:
        raise NotImplementedError  # pragma: no cover - lobby part
