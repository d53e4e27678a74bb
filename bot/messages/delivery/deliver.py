"""Getting a table's news to the people at it, from the outbox alone.

An :class:`~bot.core.tables.Outbox` is self-contained (the public view, each seat's view and
the legal actions of the seats to act, all read at commit), so delivery never asks the
service again. It posts in version order per table, and once everything is sent it
marks the durable outbox delivered (with the hand and turn messages it left) in one
store write. A bot killed before that delivers the outbox again at its next start;
Discord's ``enforce_nonce`` makes the repeat of a message already sent return that
message instead of posting it twice.

The channel reads like a game log:

* **One turn message per turn.** While the same people are to act (the steps of one
  turn), the turn message is edited: its lines grow, its picture and buttons follow the
  table. When the turn passes to someone else, a new message is posted and the old one
  loses its buttons (the turn message is kept in the store, so this holds across
  restarts).
* **A ping only for a change of player** (and for a reminder): the people who are to
  act now and were not already asked by the previous turn message.
* **A board picture only when the board changed** (the fields the game's declaration
  names, ``GameSpec.board_fields``), and never for an update a newer one is already
  waiting behind.

Private news: for a game whose seats see more than the public (a hand), every seat has
ONE hand message, kept current (:mod:`bot.messages.hands`); for other games a private update is
a DM. A user whose DMs are closed (Discord error 50007) is told once in the channel to
use the ephemeral ``/hand`` and remembered in the store, so every later private update
becomes a short channel nudge: nothing is ever silently dropped. Nothing private is
ever put in a channel message.

The service speaks plain English (its lines carry seat names and what people typed: a
ruling's note, a passage), so its lines are made :func:`~bot.messages.ui.texts.literal` here, at
the edge, before the bot's own markup (a bold title, the turn's mentions) is put
around them; every message says which mentions it may make.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

import discord

from bot.core.choices import get_ui
from bot.core.choices.adapter import GameUI
from bot.core.loop_turns import LoopTurns
from bot.core.store import Store, TurnMessage
from bot.core.tables import Outbox, PrivateUpdate, PublicUpdate, TableInfo, TableStatus
from bot.messages.delivery.hands import HandMessages, digest
from bot.messages.delivery.overtake import unless
from bot.messages.render_pool import RenderPool, draw_picture
from bot.messages.threads import archive
from bot.messages.ui.items import build_view
from bot.messages.ui.texts import MAX_CONTENT, clip, clip_start, literal
from engines.catalog import has_hands, spec

_UNREAD = object()
"""``post_public``'s ``prev`` when the caller has not read the turn message."""

__all__ = ["CANNOT_DM", "CANNOT_POST", "Delivery", "Renderer", "board_key", "clip"]

log = logging.getLogger(__name__)

CANNOT_DM = 50007
"""Discord's error code for "Cannot send messages to this user" (closed DMs)."""

CANNOT_POST = (
    "I could not post in this channel, so nobody saw that. Please give me View Channel, "
    "Send Messages (in Threads too), Attach Files and Read Message History here, then "
    "use the game's `board` command to bring the board back."
)

Renderer = Callable[..., bytes]
"""``render(game_id, view, names=[...]) -> PNG bytes`` (renderers.render)."""

Finished = Callable[[Outbox], Awaitable[None]]


def _default_renderer() -> Renderer | None:
    try:
        import renderers  # noqa: F401
    except ImportError:  # pragma: no cover - renderers is part of the package
        return None
    return draw_picture


def board_key(game_id: str, view: Any) -> str:
    """What the board picture shows (the declared fields of the public view)."""
    data = view.model_dump(mode="json") if hasattr(view, "model_dump") else dict(view)
    try:
        fields = spec(game_id).board_fields
    except KeyError:
        fields = None
    return digest([data.get(k) for k in fields] if fields else data)


def mentions_allowed(users: tuple[int, ...] | list[int]) -> discord.AllowedMentions:
    return discord.AllowedMentions(everyone=False, roles=False,
                                   users=[discord.Object(u) for u in users])


def _without_choices(outbox: Outbox) -> Outbox:
    """``outbox``'s news alone: a newer version is on its way with the board, the
    buttons and the hands."""
    return replace(outbox, public_view=None, seats=tuple(
        replace(s, view=None, legal=()) for s in outbox.seats))


class _Sequence:
    """Per-table ordering of outboxes by version (within this process).

    An outbox is *in flight* from the moment it is handed to :meth:`Delivery.deliver`
    (synchronously, before any wait) until it is delivered; a later version waits for
    every earlier one in flight."""

    WAIT = 10.0
    """Seconds an update waits before going out anyway (the predecessor may never
    come: its delivery failed, or this process just restarted)."""

    def __init__(self) -> None:
        self.in_flight: set[float] = set()
        self.highest = -1
        """The newest version whose delivery began here (a resync's place aside)."""
        self._changed = asyncio.Condition()
        self._overtaken: dict[float, asyncio.Event] = {}

    def begin(self, version: float) -> None:
        self.in_flight.add(version)
        if version == int(version):
            self.highest = max(self.highest, int(version))
            for older, event in self._overtaken.items():
                if older < version:
                    event.set()

    def overtaken(self, version: float) -> asyncio.Event:
        """Set once a newer version's delivery begins here while ``version``'s is on
        its way (its picture still waiting to be drawn, say): what it was about to show
        is no longer the table, and the newer one is waiting for it."""
        event = self._overtaken.get(version)
        if event is None:
            event = self._overtaken[version] = asyncio.Event()
            if self.newer_waiting(version):
                event.set()
        return event

    def arrives_late(self, version: int) -> bool:
        """A stored outbox of ``version`` reaches this process after a newer version's
        delivery began here without it: an older outbox left by a process that died,
        found by the catch-up while the table had moved on."""
        return version not in self.in_flight and self.highest > version

    def newer_waiting(self, version: float) -> bool:
        """A later delivery is in flight: it brings the board and the buttons. (A
        resync's place, between two versions, brings neither.)"""
        return any(v > version and v == int(v) for v in self.in_flight)

    async def wait_for_turn(self, version: float) -> None:
        async with self._changed:
            try:
                await asyncio.wait_for(
                    self._changed.wait_for(lambda: not any(v < version for v in self.in_flight)),
                    self.WAIT)
            except TimeoutError:
                log.warning("update %s went out before its predecessor", version)
                # whatever it waited for is not coming: do not make the next one wait too
                self.in_flight = {v for v in self.in_flight if v >= version}

    async def done(self, version: float) -> None:
        self._overtaken.pop(version, None)
        async with self._changed:
            self.in_flight.discard(version)
            self._changed.notify_all()


class Delivery:
    """Sends outboxes to Discord. One per bot process."""

    def __init__(
        self,
        client: discord.Client,
        store: Store,
        *,
        renderer: Renderer | None = None,
        pool: RenderPool | None = None,
        turns: LoopTurns | None = None,
    ) -> None:
        self.client = client
        self.store = store
        self.renderer = renderer if renderer is not None else _default_renderer()
        self.pool = pool if renderer is None else None
        """Worker processes for the shipped games' pictures (an injected renderer, a
        test's, is called in a thread instead)."""
        self.turns = turns if turns is not None else LoopTurns()
        """Shared with the table service: a delivery's work (messages built, buttons,
        hands) takes its turn on the event loop like a move's (bot/core/loop_turns.py)."""
        self.hands = HandMessages(self)
        self._sequence: dict[str, _Sequence] = {}
        self._turns: dict[str, TurnMessage] = {}
        """table id -> its current turn message (read from the store after a restart)."""
        self._turn_seats: dict[str, tuple[int, ...]] = {}
        """table id -> the seats to act when its turn message was last posted or edited."""
        self._lobbies: dict[str, tuple[int, int]] = {}
        """table id -> (channel id, message id) of the message carrying its lobby
        buttons (posted by ``/table new``, or learnt from a click on it)."""
        self.finished: list[Finished] = []
        """Called with the outbox that ends a game, once it is delivered (a game's cog
        posts its storybook, say)."""
        self.start_lines: dict[str, Callable[[Any], list[str]]] = {}
        """game id -> extra lines for the start message from the public view (Winter
        Tales: the table's lines and veils)."""

    # -- closed DMs ----------------------------------------------------------------

    async def dm_closed(self, user_id: int) -> bool:
        # Read through every time: another process (shard) may have learnt it.
        return await self.store.dm_closed(user_id)

    async def mark_dm_closed(self, user_id: int) -> None:
        await self.store.set_dm_closed(user_id, True)

    async def retry_dms(self, user_id: int) -> None:
        """Try DMs again for this user (they opened their DMs)."""
        await self.store.set_dm_closed(user_id, False)

    # -- helpers -----------------------------------------------------------------

    @staticmethod
    def ui_for(game_id: str) -> GameUI:
        return get_ui(game_id)

    async def render_png(self, game_id: str, view: Any, info: TableInfo | None = None, *,
                         private: bool = False) -> bytes | None:
        """The picture of ``view`` (the board, or with ``private`` the seat's own
        picture) or ``None`` (no renderer, or it failed: the text still goes out). Drawn
        off the event loop (:meth:`draw`). ``info`` gives the seat names."""
        if self.renderer is None or view is None:
            return None
        try:
            declared = spec(game_id)
        except KeyError:
            return None
        if (declared.private_picture if private else declared.board) is None:
            return None
        options: dict[str, Any] = {}
        if info is not None and info.seats:
            options["names"] = [s.name for s in sorted(info.seats, key=lambda s: s.index)]
        if private:
            options["private"] = True
        try:
            png = await self.draw(game_id, view, **options)
        except Exception:
            log.exception("rendering %s failed; sending text only", game_id)
            return None
        # The message that carries it is built next: that work waits its turn.
        await self.turns.take()
        return png

    async def draw(self, game_id: str, view: Any, **options: Any) -> bytes:
        """The renderer's picture of ``view``, off the event loop: in a worker process
        when the pool serves the game, else in a thread. Raises what the renderer
        raised."""
        if self.pool is not None and self.pool.serves(game_id):
            return await self.pool.render(game_id, view, **options)
        assert self.renderer is not None
        return await asyncio.to_thread(self.renderer, game_id, view, **options)

    def turn_view(self, outbox: Outbox) -> discord.ui.View | None:
        """Buttons for whoever must act now, from the outbox's own view and choices."""
        info = outbox.table
        if info.status is not TableStatus.PLAYING or not info.to_act:
            return None
        humans = info.to_act_users
        if not humans or outbox.public_view is None:
            return None  # an AI is thinking (its move brings fresh buttons), or stale
        ui = self.ui_for(info.game_id)
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
        return build_view(menu, info.id, info.version)

    async def _turn_message(self, table_id: str) -> TurnMessage | None:
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

    # -- delivery ----------------------------------------------------------------

    def expect(self, outbox: Outbox) -> None:
        """Hold the outbox's place in its table's order at once (call it right after
        the commit, before any wait): a later version delivered meanwhile (an AI's
        instant answer) then waits behind it."""
        self._sequence.setdefault(outbox.table_id, _Sequence()).begin(outbox.version)

    async def deliver(self, outbox: Outbox, *,
                      interaction: discord.Interaction | None = None) -> bool:
        """Send everything in ``outbox``, then mark it delivered. ``interaction``
        (already responded to or deferred) lets private news for the clicking user go
        ephemerally when their DMs are closed.

        Returns False when the public update could not be posted (the bot may not
        send messages in that channel): the caller tells the user. Raises when Discord
        itself fails (a 5xx): the outbox is then left undelivered, for the next sweep."""
        seq = self._sequence.setdefault(outbox.table_id, _Sequence())
        if outbox.id is not None and seq.arrives_late(outbox.version):
            # Its table is already further on in the channel (or on its way there):
            # shown now, it would end below the newer turn and take its buttons away.
            log.info("outbox %s of table %s (v%d) came after v%d: not shown",
                     outbox.id, outbox.table_id, outbox.version, seq.highest)
            await self.store.mark_delivered(outbox.id)
            return True
        self.expect(outbox)  # before any wait: a later version queues behind it
        try:
            await seq.wait_for_turn(outbox.version)
            await self.turns.take()
            return await self._deliver(outbox, interaction, seq.overtaken(outbox.version))
        finally:
            await seq.done(outbox.version)
            if not outbox.table.status.live:  # the table is over: forget its bookkeeping
                self._sequence.pop(outbox.table_id, None)
                self._turns.pop(outbox.table_id, None)
                self._turn_seats.pop(outbox.table_id, None)

    async def _deliver(self, outbox: Outbox, interaction: discord.Interaction | None,
                       overtaken: asyncio.Event) -> bool:
        info = outbox.table
        # One read of the turn message serves the check below and the post.
        needed = outbox.id is not None or outbox.public is not None
        shown = await self._turn_message(info.id) if needed else None
        if outbox.id is not None and shown is not None and shown.version > outbox.version:
            # Overtaken: a newer version is already in the channel (delivered before a
            # restart, or by another process, while this one failed). Posting it now
            # would take the buttons and the hands back to an older turn.
            log.info("outbox %s of table %s (v%d) was overtaken by v%d: not shown",
                     outbox.id, info.id, outbox.version, shown.version)
            await self.store.mark_delivered(outbox.id)
            return True
        if overtaken.is_set():
            outbox = _without_choices(outbox)
        posted, turn = True, None
        if outbox.public is not None:
            if info.status is not TableStatus.LOBBY:
                await self.close_lobby(info.id)
            posted, turn = await self.post_public(outbox, prev=shown, overtaken=overtaken)
        if overtaken.is_set():  # while its board was being drawn
            outbox = _without_choices(outbox)
        hands = []
        if has_hands(info.game_id):
            hands = await self.hands.refresh(outbox, interaction, overtaken=overtaken)
        else:
            for private in outbox.private:
                await self.post_private(private, info, interaction=interaction,
                                        nonce=_nonce(outbox, f"d{private.seat}"))
        if outbox.id is not None:
            try:
                await self.store.mark_delivered(outbox.id, hands=hands, turn=turn)
            except Exception:
                log.exception("could not mark outbox %s delivered", outbox.id)
        elif hands or turn is not None:
            if hands:
                await self.store.save_hand_messages(hands)
            if turn is not None:
                await self.store.save_turn_message(turn)
        if outbox.public is not None and outbox.public.finished:
            for listener in self.finished:
                try:
                    await listener(outbox)
                except Exception:
                    log.exception("end-of-game hook failed for table %s", info.id)
        if outbox.public is not None and not info.status.live:
            # The game is over (or closed): a table's own thread is archived, after
            # everything the end posts in it (a channel is left alone).
            await archive(self.client, info.channel_id)
        return posted

    # -- the channel -------------------------------------------------------------

    async def post_public(self, outbox: Outbox, *, head: tuple[str, ...] = (),
                          prev: TurnMessage | object | None = _UNREAD,
                          overtaken: asyncio.Event | None = None,
                          ) -> tuple[bool, TurnMessage | None]:
        """Post (or edit into the turn message) one public update. Returns whether it
        could be posted and the turn message it leaves (``None``: unchanged). ``head``:
        lines of the bot's own, already Discord text, before the update's (plain) ones;
        ``prev``: the table's turn message if the caller has just read it."""
        update = outbox.public
        assert update is not None
        info = outbox.table
        if prev is _UNREAD:
            prev = await self._turn_message(info.id)
        assert prev is None or isinstance(prev, TurnMessage)
        lines = [*head, *(literal(x) for x in update.lines)]
        if update.kind == "start" and outbox.public_view is not None:
            extra = self.start_lines.get(info.game_id)
            if extra is not None:
                lines += extra(outbox.public_view)
        buttons = self.turn_view(outbox)
        key = board_key(info.game_id, outbox.public_view) if outbox.public_view else None
        shown = prev.board_key if prev is not None else None
        picture = (update.render_board and key is not None
                   and (update.kind == "board" or key != shown))
        humans = () if update.finished else info.to_act_users
        channel = self.client.get_partial_messageable(update.channel_id)

        if update.kind == "abort":
            # The end of the table: its last turn message loses its buttons.
            sent = await self._send(channel, content=_content(lines, (), None),
                                    nonce=_nonce(outbox, "p"))
            if prev is not None and prev.has_buttons:
                await self._strip_buttons(prev.channel_id, prev.message_id)
                turn = replace(prev, has_buttons=False)
                self._turns[info.id] = turn
                return sent is not None, turn
            return sent is not None, None

        png = None
        if picture:
            png = await unless(overtaken, self.render_png(info.game_id, outbox.public_view,
                                                           info))
        if overtaken is not None and overtaken.is_set():
            # A newer version began while this picture waited to be drawn (a backlog of
            # pictures): that one brings the board and the buttons, right after this.
            png, buttons = None, None
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
        whose = [literal(update.turn_line)] if update.turn_line else []
        # A move with no public news and nobody new to ask (one AI handing the turn to
        # another) only changes whose turn it is: the turn message says so, in place.
        nobody_new = not humans or (prev is not None and set(humans) <= set(prev.pinged))
        quiet = (prev is not None and update.kind == "move" and not update.finished
                 and not lines and nobody_new and png is None)
        if same_turn or quiet:
            assert prev is not None
            merged = _merge(list(prev.lines), lines, MAX_CONTENT - 200)
            # An edit pings nobody: the mention only says again whose turn it is, so it
            # names whoever is to act now. (It named the people this message first asked:
            # after a draft's last pick that was the other player, and the player to act,
            # asked by the round before, was not named at all.)
            still = tuple(humans)
            content = _content(merged + whose, still, "it's your turn")
            edited = await self._edit(prev, content, buttons, png)
            if edited:
                turn = replace(prev, version=update.version, lines=tuple(merged),
                               has_buttons=buttons is not None,
                               board_key=key if png is not None else prev.board_key)
                self._turns[info.id] = turn
                self._turn_seats[info.id] = tuple(info.to_act)
                return True, turn
        # A new turn message: ping whoever is to act and was not already asked (a
        # reminder asks again; a board re-post asks nobody).
        already = set(prev.pinged) if prev is not None else set()
        if update.kind == "reminder":
            pings = tuple(update.mentions)
        elif update.kind == "board":
            pings = ()
        else:
            pings = tuple(u for u in humans if u not in already)
        verb = "the table is waiting for you" if update.kind == "reminder" else "it's your turn"
        content = _content(lines + whose, pings, verb)
        sent = await self._send(channel, content=content, pings=pings, png=png, view=buttons,
                                nonce=_nonce(outbox, "p"))
        if sent is None:
            return False, None
        if prev is not None and prev.has_buttons and prev.message_id != sent.id:
            await self._strip_buttons(prev.channel_id, prev.message_id)
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

    async def _send(self, channel: Any, *, content: str, pings: tuple[int, ...] = (),
                    png: bytes | None = None, view: discord.ui.View | None = None,
                    nonce: str | None = None) -> discord.Message | None:
        kwargs: dict[str, Any] = {"content": clip(content or "…"),
                                  "allowed_mentions": mentions_allowed(pings)}
        if png is not None:
            kwargs["file"] = discord.File(io.BytesIO(png), filename="board.png")
        if view is not None:
            kwargs["view"] = view
        if nonce is not None:
            kwargs["nonce"] = nonce
        try:
            return await channel.send(**kwargs)  # type: ignore[no-any-return]
        except discord.DiscordServerError:
            # Discord's trouble, not ours: the outbox stays undelivered and goes out at
            # the next sweep or start (its nonce makes a repeat harmless).
            raise
        except discord.HTTPException:
            log.exception("could not post to channel %s", getattr(channel, "id", "?"))
            return None

    async def _edit(self, turn: TurnMessage, content: str, view: discord.ui.View | None,
                    png: bytes | None) -> bool:
        kwargs: dict[str, Any] = {"content": clip(content), "view": view,
                                  "allowed_mentions": discord.AllowedMentions.none()}
        if png is not None:
            kwargs["attachments"] = [discord.File(io.BytesIO(png), filename="board.png")]
        try:
            await self._message(turn.channel_id, turn.message_id).edit(**kwargs)
            return True
        except discord.HTTPException:
            log.info("could not edit turn message %s; posting a new one", turn.message_id)
            return False

    def _message(self, channel_id: int, message_id: int) -> discord.PartialMessage:
        """A message of ours by its ids, to edit without fetching it."""
        return self.client.get_partial_messageable(channel_id).get_partial_message(message_id)

    async def _strip_buttons(self, channel_id: int, message_id: int) -> None:
        # Old buttons would only earn a "that is from an older turn" reply; removing
        # them keeps the channel tidy. Best effort: the version check is the real guard.
        try:
            await self._message(channel_id, message_id).edit(view=None)
        except discord.HTTPException:
            log.debug("could not strip the buttons of message %s", message_id)

    async def post_board(self, outbox: Outbox) -> discord.Message | None:
        """Re-post a playing table's board with fresh turn buttons (when the last turn
        message has scrolled away), from a snapshot outbox. Names whose turn it is
        without pinging them. The re-post becomes the turn message."""
        info = outbox.table
        # The bot's own bold title goes in as it is; the rest is plain text (literal).
        head = [f"**{info.game_name}** — move {info.version}."]
        lines: list[str] = []
        prompt = getattr(outbox.public_view, "prompt", None)
        if prompt:
            lines.append(str(prompt))
        waiting = [s.name for s in info.seats if s.index in info.to_act]
        if waiting:
            lines.append(f"Waiting for {', '.join(waiting)}.")
        update = PublicUpdate(
            table_id=info.id, channel_id=info.channel_id, game_id=info.game_id,
            version=info.version, kind="board", lines=tuple(lines), render_board=True,
            to_act=info.to_act,
        )
        seq = self._sequence.setdefault(info.id, _Sequence())
        seq.begin(info.version)
        try:
            await seq.wait_for_turn(info.version)
            _posted, turn = await self.post_public(replace(outbox, public=update),
                                                   head=tuple(head))
        finally:
            await seq.done(info.version)
        if turn is not None:
            await self.store.save_turn_message(turn)
            return self._message(turn.channel_id, turn.message_id)  # type: ignore[return-value]
        return None

    async def resync(self, outbox: Outbox) -> None:
        """After a restart: a turn message left with buttons of an older version (its
        move was delivered by a process that died) loses them, and the hand messages
        catch up with the table (a snapshot outbox, no news).

        It takes its place in the table's order just after the snapshot's version: a
        delivery of that version still in flight (a click answered during the catch-up)
        ends first, so its freshly posted buttons are never taken for stale ones; a
        later delivery waits for it."""
        info = outbox.table
        seq = self._sequence.setdefault(info.id, _Sequence())
        slot = info.version + 0.5
        seq.begin(slot)
        try:
            await seq.wait_for_turn(slot)
            await self._resync(outbox)
        finally:
            await seq.done(slot)

    async def _resync(self, outbox: Outbox) -> None:
        info = outbox.table
        prev = await self._turn_message(info.id)
        if prev is not None and prev.version > info.version:
            # A move was delivered since the snapshot was taken (a click during the
            # catch-up): it brought the current buttons and hands; nothing is stale.
            return
        if prev is not None and prev.has_buttons and prev.version < info.version:
            await self._strip_buttons(prev.channel_id, prev.message_id)
            prev = replace(prev, has_buttons=False)
            await self.store.save_turn_message(prev)
            self._turns[info.id] = prev
        if has_hands(info.game_id):
            hands = await self.hands.refresh(outbox, None, only_stale=True)
            if hands:
                await self.store.save_hand_messages(hands)

    async def refresh_hands(self, snapshot: Outbox) -> None:
        """Bring every hand message of a table up to date from a snapshot outbox (no
        news), and store them."""
        hands = await self.hands.refresh(snapshot, None)
        if hands:
            await self.store.save_hand_messages(hands)

    # -- lobbies -------------------------------------------------------------------

    async def post_lobby(self, info: TableInfo, content: str,
                         view: discord.ui.View | None) -> discord.Message | None:
        """Post a table's lobby message (its seats and buttons) in its channel, as the
        bot's own message: slash commands answer privately and at once, and a bot's
        message can be edited for as long as it exists. ``None`` if it could not post."""
        channel = self.client.get_partial_messageable(info.channel_id)
        sent = await self._send(channel, content=content, view=view)
        if sent is not None:
            self._lobbies[info.id] = (info.channel_id, sent.id)
        return sent

    def remember_lobby(self, table_id: str, channel_id: int, message_id: int) -> None:
        """The message carrying a table's lobby buttons (a click on it names it)."""
        self._lobbies[table_id] = (channel_id, message_id)

    def forget_lobby(self, table_id: str) -> None:
        self._lobbies.pop(table_id, None)

    async def refresh_lobby(self, info: TableInfo, content: str,
                            view: discord.ui.View | None) -> bool:
        """Bring the lobby message up to date after a slash command changed the seats;
        if it is not known (a restart) or gone, post a new one. False if neither
        could be done."""
        known = self._lobbies.get(info.id)
        if known is not None:
            try:
                await self._message(*known).edit(
                    content=clip(content), view=view,
                    allowed_mentions=discord.AllowedMentions.none())
                return True
            except discord.HTTPException:
                log.info("could not edit the lobby of table %s; posting it again", info.id)
        return await self.post_lobby(info, content, view) is not None

    async def close_lobby(self, table_id: str, content: str | None = None) -> None:
        """Take the Join/Start buttons off the lobby message once the lobby is over
        (with ``content``: and say why). Best effort: after a restart the message is
        not known, and its buttons only say the table has moved on."""
        known = self._lobbies.pop(table_id, None)
        if known is None:
            return
        kwargs: dict[str, Any] = {"view": None}
        if content is not None:
            kwargs.update(content=clip(content), allowed_mentions=discord.AllowedMentions.none())
        try:
            await self._message(*known).edit(**kwargs)
        except discord.HTTPException:
            log.debug("could not take the buttons off the lobby of table %s", table_id)

    # -- private updates (games without a hand message) ------------------------------

    async def private_content(
        self, update: PrivateUpdate, game_id: str, info: TableInfo | None = None,
        view: Any | None = None,
    ) -> dict[str, Any]:
        """The DM (or ephemeral) message of a private update: its text and, when the
        game has a picture, the user's own view."""
        title = info.game_name if info is not None else game_id
        channel = f" (table in <#{update.channel_id}>)"
        text = "\n".join(literal(line) for line in update.lines)
        content = clip(f"**Private — {title}{channel}**\n{text}")
        out: dict[str, Any] = {"content": content}
        if view is not None:
            png = await self.render_png(game_id, view, info)
            if png is not None:
                out["file"] = discord.File(io.BytesIO(png), filename="private.png")
        return out

    async def post_private(
        self,
        update: PrivateUpdate,
        info: TableInfo,
        *,
        interaction: discord.Interaction | None = None,
        view: Any | None = None,
        nonce: str | None = None,
    ) -> str:
        """Deliver one private update; returns how: ``dm``, ``ephemeral`` or ``nudge``."""
        payload = await self.private_content(update, info.game_id, info, view)
        closed = await self.dm_closed(update.user_id)
        if interaction is not None and interaction.user.id == update.user_id and closed:
            try:
                await interaction.followup.send(ephemeral=True, **payload)
                return "ephemeral"
            except discord.HTTPException:
                log.info("ephemeral private update to %s failed", update.user_id)
        if not closed:
            result = await self.send_dm(update.user_id, update.channel_id, payload, nonce=nonce)
            if result is not None:
                return "dm"
            if await self.dm_closed(update.user_id):
                return "nudge"  # the first refusal: told in the channel already
        await self.nudge(update.user_id, update.channel_id, first=False)
        return "nudge"

    async def send_dm(self, user_id: int, channel_id: int, payload: dict[str, Any], *,
                      nonce: str | None = None) -> discord.Message | None:
        """A new DM; on Discord's "closed DMs" refusal the user is remembered and told
        once in the table's channel. ``None`` if it could not be sent."""
        try:
            dm = await self.client.create_dm(discord.Object(user_id))
            # A DM pings nobody: whatever it quotes, it is the reader's own news.
            payload = {"allowed_mentions": discord.AllowedMentions.none(), **payload}
            if nonce is not None:
                payload = {**payload, "nonce": nonce}
            return await dm.send(**payload)  # type: ignore[no-any-return]
        except discord.Forbidden as exc:
            if exc.code != CANNOT_DM:
                log.warning("DM to %s refused (%s); nudging in the channel", user_id, exc.code)
            await self.mark_dm_closed(user_id)
            await self.nudge(user_id, channel_id, first=True)
        except discord.HTTPException:
            log.exception("DM to %s failed", user_id)
        return None

    async def nudge(self, user_id: int, channel_id: int, *, first: bool) -> None:
        if first:
            text = (
                f"<@{user_id}>, I can't send you direct messages (your DMs are "
                "closed for this server). Use **/hand** here to see your private "
                "information: only you will see the answer."
            )
        else:
            text = f"<@{user_id}>, you have private news at this table: use **/hand**."
        channel = self.client.get_partial_messageable(channel_id)
        try:
            await channel.send(text, allowed_mentions=mentions_allowed([user_id]))
        except discord.HTTPException:
            log.exception("could not nudge user %s in channel %s", user_id, channel_id)


def _nonce(outbox: Outbox, part: str) -> str | None:
    """A message's nonce (at most 25 characters): the same for a repeat delivery of the
    same durable outbox, so Discord returns the first message instead of a second."""
    if outbox.id is None:
        return None
    return f"ft{outbox.id}{part}"[:25]


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
