"""The turn message: one channel message per turn, which reads like a game log.

* **One turn message per turn.** While the same people are to act (the steps of one
  turn), the turn message is edited: its lines grow, its buttons follow the table.
  When the turn passes to someone else, a new message is posted and the old one loses
  its buttons (the turn message is kept in the store, so this holds across restarts).
* **A ping only for a change of player** (and for a reminder): the people who are to
  act now and were not already asked by the previous turn message.
* **A board picture only when the board changed** (the fields the game's declaration
  names, ``GameSpec.board_fields``), and never for an update a newer one is already
  waiting behind. Within one turn, only for a step a person decides on what changed
  (:mod:`.step_pictures`): the other steps' edits keep the picture the message has.

The service speaks plain English (its lines carry seat names and what people typed: a
ruling's note, a passage), so its lines are made :func:`~bot.messages.ui.texts.literal`
here, at the edge, before the bot's own markup (a bold title, the turn's mentions) is put
around them; every message says which mentions it may make.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import discord

from bot.core.choices import get_ui
from bot.core.choices.adapter import GameUI
from bot.core.store import Store, TurnMessage
from bot.core.tables import Outbox, TableStatus
from bot.messages.delivery.courier import ASK, TIDY, Courier, nonce_for
from bot.messages.delivery.overtake import unless
from bot.messages.delivery.pictures import Pictures
from bot.messages.delivery.step_pictures import Board, ShownBoards, step_fields
from bot.messages.ui.activity import with_board_button
from bot.messages.ui.items import build_view
from bot.messages.ui.texts import MAX_CONTENT, clip, clip_start, literal

__all__ = ["ACTIVITY_LOG_SECONDS", "UNREAD", "TurnMessages", "board_key"]

log = logging.getLogger(__name__)

ACTIVITY_LOG_SECONDS = 15.0
"""How often a table whose people are all in the Activity has its channel log edited."""

UNREAD = object()
""":meth:`TurnMessages.post`'s ``prev`` when the caller has not read the turn message."""


def board_key(game_id: str, view: Any) -> str:
    """What the board picture shows (the declared fields of the public view)."""
    return Board.of(game_id, view).key


class TurnMessages:
    """The turn message of every table (one per process, owned by the delivery)."""

    def __init__(self, store: Store, courier: Courier, pictures: Pictures) -> None:
        self.store = store
        self.courier = courier
        self.pictures = pictures
        self._turns: dict[str, TurnMessage] = {}
        """table id -> its current turn message (read from the store after a restart)."""
        self._turn_seats: dict[str, tuple[int, ...]] = {}
        """table id -> the seats to act when its turn message was last posted or edited."""
        self.shown = ShownBoards()
        """table id -> what the picture its turn message shows was drawn from."""
        self._held: dict[str, list[str]] = {}
        """table id -> news lines not yet in its channel (everyone at the table is in
        the Activity, whose channel log is edited at most every
        :data:`ACTIVITY_LOG_SECONDS`)."""
        self._logged_at: dict[str, float] = {}
        self.start_lines: dict[str, Callable[[Any], list[str]]] = {}
        """game id -> extra lines for the start message from the public view (Winter
        Tales: the table's lines and veils)."""

    def forget(self, table_id: str) -> None:
        """The table is over: its bookkeeping goes."""
        self._held.pop(table_id, None)
        self._logged_at.pop(table_id, None)
        self._turns.pop(table_id, None)
        self._turn_seats.pop(table_id, None)
        self.shown.forget(table_id)

    async def current(self, table_id: str) -> TurnMessage | None:
        """The table's turn message as the store has it: another process (a DM click
        arrives on shard 0) may have posted a newer one since this one's last post.
        Deliveries of one table are in order here and each stores its turn message
        before the next begins, so the store is never behind this process."""
        stored = await self.store.turn_message(table_id)
        cached = self._turns.get(table_id)
        if stored is None or (cached is not None and cached.version > stored.version):
            return cached
        self._turns[table_id] = stored
        return stored

    def remember(self, turn: TurnMessage) -> None:
        self._turns[turn.table_id] = turn

    def buttons(self, outbox: Outbox) -> discord.ui.View | None:
        """Buttons for whoever must act now, from the outbox's own view and choices."""
        info = outbox.table
        if info.status is not TableStatus.PLAYING or not info.to_act:
            return None
        humans = info.to_act_users
        if not humans or outbox.public_view is None:
            return None  # an AI is thinking (its move brings fresh buttons), or stale
        ui = get_ui(info.game_id)
        try:
            if len(humans) == 1:
                menu = ui.public_menu(outbox.public_view, list(outbox.legal_of(humans[0])))
            else:
                # Several seats may act (an interrupt window): each opens their own menu.
                menu = ui.turn_button_menu()
        except Exception:
            # A broken adapter must not cost the turn its buttons: everyone can still
            # open their own menu with the generic button.
            log.exception("could not build the turn buttons of table %s", info.id)
            menu = GameUI.turn_button_menu(ui)
        return with_board_button(build_view(menu, info.id, info.version), info.id,
                                 info.version)

    def carrier(self, outbox: Outbox, via: discord.Interaction | None
                ) -> discord.Interaction | None:
        """The click whose token may post this update's new turn message, or ``None``
        (the bot token). A follow-up shows whose click it follows, so the mover's own
        click tells a person's move, anyone's click at the table an AI's move, the click
        on Start the start; news without an actor (a ruling, the anonymous X-card, a
        reminder) never rides a token.

        A move made in the mover's DM (their hand, brought live by Refresh) has a token
        that posts only in that DM: without a fresh click of their own in the channel,
        the table's freshest click carries the news, as for an AI's move. Otherwise
        every move played from a hand would cost the application's shared bot-token
        budget a new message and an edit."""
        update = outbox.public
        assert update is not None
        tokens = self.courier.tokens
        if via is not None:
            tokens.note(via)
        channel = update.channel_id
        if update.kind == "start":
            if via is not None and via.channel_id == channel:
                return tokens.for_channel(channel, via.user.id)
            return None
        if update.kind != "move" or update.actor is None:
            return None
        seat = next((s for s in outbox.table.seats if s.index == update.actor), None)
        if seat is None:
            return None
        own = tokens.for_channel(channel, seat.user_id)  # an AI seat: anyone's click
        if own is None and seat.user_id is not None and via is not None \
                and via.channel_id != channel:
            return tokens.for_channel(channel, None)
        return own

    async def _send(self, channel_id: int, *, content: str, pings: tuple[int, ...],
                    png: bytes | None, view: discord.ui.View | None, nonce: str | None,
                    carrier: discord.Interaction | None) -> discord.Message | None:
        return await self.courier.send(channel_id, content=content, pings=pings, png=png,
                                       view=view, nonce=nonce, carrier=carrier, priority=ASK)

    async def _already_posted(self, channel_id: int, content: str,
                              since: TurnMessage | None) -> discord.Message | None:
        """One of the bot's last messages in the channel, from the table's turn message
        ``since`` on, that says exactly ``content`` (a turn message a killed process
        had posted), or ``None``. Nothing older: an earlier turn may have said the very
        same words (an AI's move repeated in a long game), and taking its message would
        put this turn's buttons above the channel's last lines. Best effort: without
        Read Message History the repeat is posted as before."""
        client = self.courier.client
        me = client.user.id if client.user is not None else None
        channel = client.get_partial_messageable(channel_id)
        try:
            async for message in channel.history(limit=10):
                if since is not None and message.id < since.message_id:
                    return None  # history runs newest first: the rest is older still
                if message.author.id == me and message.content == content:
                    return message
        except discord.HTTPException:
            return None
        return None

    async def _log_quietly(self, outbox: Outbox, prev: TurnMessage, lines: list[str],
                           buttons: discord.ui.View | None, humans: tuple[int, ...]
                           ) -> tuple[bool, TurnMessage | None]:
        """A move while everyone seated has the board open: they see it there, so the
        channel's log (for anyone reading along) is one message edited in place, at most
        every :data:`ACTIVITY_LOG_SECONDS` (a new message and a strip of the old one per
        change of player would spend the application's shared bot-token budget on
        moves nobody needs told twice). The lines in between wait, in order, for the
        next edit or for the first update after someone leaves; nobody is pinged (an
        edit pings nobody, and they are looking at the board)."""
        info = outbox.table
        now = time.monotonic()
        if now - self._logged_at.get(info.id, -ACTIVITY_LOG_SECONDS) < ACTIVITY_LOG_SECONDS:
            self._held[info.id] = lines
            return True, None
        merged = _merge(list(prev.lines), lines, MAX_CONTENT - 200)
        whose = [literal(outbox.public.turn_line)] if (
            outbox.public is not None and outbox.public.turn_line) else []
        content = _content(merged + whose, humans, "it's your turn")
        edited = await self.courier.edit(prev.channel_id, prev.message_id, content=content,
                                         view=buttons, priority=TIDY)
        if not edited:
            self._held[info.id] = lines  # told with the next one
            return True, None
        self._logged_at[info.id] = now
        turn = replace(prev, version=info.version, lines=tuple(merged),
                       pinged=tuple(u for u in prev.pinged if u in humans),
                       has_buttons=buttons is not None)
        self._turns[info.id] = turn
        self._turn_seats[info.id] = tuple(info.to_act)
        return True, turn

    async def strip(self, prev: TurnMessage) -> TurnMessage:
        """Take the buttons off an older turn message; the record it leaves."""
        await self.courier.strip_buttons(prev.channel_id, prev.message_id)
        turn = replace(prev, has_buttons=False)
        self._turns[turn.table_id] = turn
        return turn

    async def post(self, outbox: Outbox, *, head: tuple[str, ...] = (),
                   prev: TurnMessage | object | None = UNREAD,
                   overtaken: asyncio.Event | None = None,
                   via: discord.Interaction | None = None, tokens: bool = True,
                   ) -> tuple[bool, TurnMessage | None]:
        """Post (or edit into the turn message) one public update. Returns whether it
        could be posted and the turn message it leaves (``None``: unchanged). ``head``:
        lines of the bot's own, already Discord text, before the update's (plain) ones;
        ``prev``: the table's turn message if the caller has just read it; ``via``: the
        interaction that made the move, whose token carries the messages when it can;
        ``tokens=False``: a repeat delivery, whose new message goes on the bot token with
        its nonce (a follow-up has none, and a killed process may have posted it)."""
        update = outbox.public
        assert update is not None
        info = outbox.table
        if prev is UNREAD:
            prev = await self.current(info.id)
        assert prev is None or isinstance(prev, TurnMessage)
        lines = [*head, *(literal(x) for x in update.lines)]
        if update.kind == "start" and outbox.public_view is not None:
            extra = self.start_lines.get(info.game_id)
            if extra is not None:
                lines += extra(outbox.public_view)
        buttons = self.buttons(outbox)
        view = outbox.public_view
        board = Board.of(info.game_id, view) if view is not None else None
        key = board.key if board is not None else None
        shown = prev.board_key if prev is not None else None
        changed = (update.render_board and key is not None
                   and (update.kind == "board" or key != shown))
        humans = () if update.finished else info.to_act_users

        if update.kind == "abort":
            # The end of the table: its last turn message loses its buttons.
            sent = await self.courier.send(update.channel_id, content=_content(lines, (), None),
                                           nonce=nonce_for(outbox, "p"))
            if prev is not None and prev.has_buttons:
                return sent is not None, await self.strip(prev)
            return sent is not None, None

        actor = _user_of(info, update.actor)
        # Who is still waiting on an earlier ask: pinged before, not answered since. The
        # mover answered theirs, even when they are to act again (a new draft round asks
        # anew); whoever is no longer to act has nothing left to answer.
        waiting = {u for u in (prev.pinged if prev is not None else ()) if u in humans}
        if update.kind == "move" and actor is not None:
            waiting.discard(actor)
        # The steps of one turn: the player to act moved and is still to act. Anything
        # else (a ruling, words added out of turn, a change of player) is news of its
        # own, in a new message at the bottom of the channel.
        # The seats to act when the turn message was last updated: AI seats too, so an AI's
        # steps gather in one message like a person's. After a restart only the people
        # pinged are known, which is enough for theirs.
        seats_then = self._turn_seats.get(info.id)
        same_seats = (seats_then == tuple(info.to_act) if seats_then is not None
                      else bool(humans) and prev is not None and set(humans) == set(prev.pinged))
        # One decision several seats make at once, in any order (a draft round): each
        # answer narrows the seats still to act, and its news joins the same message.
        narrowed = (seats_then is not None and update.actor is not None
                    and update.actor in seats_then and update.actor not in info.to_act
                    and bool(info.to_act) and set(info.to_act) < set(seats_then))
        same_turn = (prev is not None and update.kind == "move" and not update.finished
                     and update.actor is not None
                     and ((update.actor in info.to_act and same_seats) or narrowed)
                     and prev.version < update.version)
        # Everyone seated follows the table in the Activity: its channel messages go on
        # without pictures (for anyone reading along) until one of them leaves.
        # (Not from the view: an update overtaken by the next move carries none.)
        in_activity = (update.kind in ("move", "start")
                       and not update.finished and await self.pictures.all_watching(
                           info.channel_id, [s.user_id for s in info.seats
                                             if s.user_id is not None]))
        picture = changed and not in_activity
        held = self._held.pop(info.id, [])
        if in_activity and update.kind == "move" and prev is not None:
            return await self._log_quietly(outbox, prev, [*held, *lines], buttons, humans)
        lines = [*held, *lines]  # moves the channel was not told while all were away
        if picture and same_turn:
            # One more step of the same turn: a new picture only for a person who
            # decides on what changed (.step_pictures); the edit keeps the one it has.
            assert board is not None
            picture = bool(humans) and self.shown.changed(
                info.id, shown, board, step_fields(info.game_id, view))
        png = None
        if picture:
            png = await unless(overtaken, self.pictures.render_png(info.game_id, view, info))
        if overtaken is not None and overtaken.is_set():
            # A newer version began while this picture waited to be drawn (a backlog of
            # pictures): that one brings the board and the buttons, right after this.
            png, buttons = None, None
        whose = [literal(update.turn_line)] if update.turn_line else []
        # A move with no public news and nobody new to ask (one AI handing the turn to
        # another) only changes whose turn it is: the turn message says so, in place.
        nobody_new = set(humans) <= waiting
        quiet = (prev is not None and update.kind == "move" and not update.finished
                 and not lines and nobody_new and png is None)
        continued = False
        if same_turn or quiet:
            assert prev is not None
            limit = MAX_CONTENT - 200
            merged = _merge(list(prev.lines), lines, limit)
            if len(merged) < len(prev.lines) + len(lines):
                # The turn's lines no longer fit: its first ones would be cut to "…". A
                # new message goes on with the turn instead (a long solo game).
                continued, lines = True, _merge([], lines, limit)
            else:
                # An edit pings nobody: the mention only says again whose turn it is.
                content = _content(merged + whose, tuple(humans), "it's your turn")
                edited = await self.courier.edit(prev.channel_id, prev.message_id,
                                                 content=content, view=buttons, png=png,
                                                 priority=TIDY)
                if edited:
                    if png is not None:
                        assert board is not None
                        self.shown.remember(info.id, board)
                    turn = replace(prev, version=update.version, lines=tuple(merged),
                                   pinged=tuple(u for u in prev.pinged if u in humans),
                                   has_buttons=buttons is not None,
                                   board_key=key if png is not None else prev.board_key)
                    self._turns[info.id] = turn
                    self._turn_seats[info.id] = tuple(info.to_act)
                    return True, turn
        # A new turn message asks, with a mention, everyone to act who is not still
        # waiting on an earlier ask (a reminder asks again; a board re-post, and the
        # message that goes on with a long turn, ask nobody new).
        if update.kind == "reminder":
            pings = tuple(update.mentions)
        elif update.kind == "board" or continued:
            pings = ()
        else:
            pings = tuple(u for u in humans if u not in waiting)
        verb = "the table is waiting for you" if update.kind == "reminder" else "it's your turn"
        content = _content(lines + whose, pings, verb)
        if (continued and png is None and key is not None and view is not None
                and not in_activity and not (overtaken is not None and overtaken.is_set())):
            # A message of its own shows the board it is about.
            png = await self.pictures.render_png(info.game_id, view, info)
        sent = None
        if not tokens and update.kind != "board":
            # A repeat: the killed process may have posted it as a click's follow-up,
            # which no nonce can find again. The channel's last messages can.
            sent = await self._already_posted(update.channel_id, clip(content), prev)
            if sent is not None and buttons is not None and not sent.components:
                # Posted without its buttons (overtaken then): it asks with them now.
                await self.courier.edit(update.channel_id, sent.id, content=None,
                                        view=buttons, png=png, priority=ASK)
        if sent is None:
            sent = await self._send(update.channel_id, content=content, pings=pings,
                                    png=png, view=buttons, nonce=nonce_for(outbox, "p"),
                                    carrier=self.carrier(outbox, via) if tokens else None)
        if sent is None:
            return False, None
        if png is not None:
            assert board is not None
            self.shown.remember(info.id, board)
        if prev is not None and prev.has_buttons and prev.message_id != sent.id:
            await self.courier.strip_buttons(prev.channel_id, prev.message_id)
        # A repeat of a post that a process killed after sending it had made comes back
        # as that message (its nonce), buttons and all, even when this delivery sends
        # none (overtaken by a click answered meanwhile): what it carries is recorded,
        # so the next turn message takes them off.
        carries_buttons = buttons is not None or bool(sent.components)
        turn = TurnMessage(
            table_id=info.id, channel_id=update.channel_id, message_id=sent.id,
            version=update.version, pinged=tuple(humans), lines=tuple(lines),
            has_buttons=carries_buttons,
            board_key=key if png is not None else (prev.board_key if prev else None))
        self._turns[info.id] = turn
        self._turn_seats[info.id] = tuple(info.to_act)
        return True, turn


def _user_of(info: Any, seat: int | None) -> int | None:
    """The person holding ``seat`` (``None`` for an AI seat or no seat)."""
    if seat is None:
        return None
    for s in info.seats:
        if s.index == seat:
            return s.user_id
    return None


def _collapse(lines: list[str]) -> list[str]:
    """A step taken several times in a row reads once, counted ("... (x2)").

    >>> _collapse(["Bob discards a card.", "Bob discards a card.", "Ann moves."])
    ['Bob discards a card. (x2)', 'Ann moves.']
    """
    out: list[str] = []
    counts: list[int] = []
    for line in lines:
        if out and line == out[-1]:
            counts[-1] += 1
        else:
            out.append(line)
            counts.append(1)
    return [line if n == 1 else f"{line} (x{n})" for line, n in zip(out, counts, strict=True)]


def _content(lines: list[str], pings: tuple[int, ...], verb: str | None) -> str:
    text = "\n".join(_collapse(lines))
    if pings and verb:
        who = ", ".join(f"<@{u}>" for u in dict.fromkeys(pings))
        text = f"{text}\n{who}: {verb}." if text else f"{who}: {verb}."
    return text


def _merge(old: list[str], new: list[str], limit: int) -> list[str]:
    """The news lines of one turn, in order (a step taken twice is told twice), and only
    as many of the newest as fit."""
    return clip_start([*old, *new], limit)
