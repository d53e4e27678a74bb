"""What happens when someone clicks a game button or select, or sends a text form.

A click counts only where its table is: in the table's channel, or on a message only
the clicker can see (their DM hand message, an ephemeral answer), where it can act for
their own seat only. A custom_id is readable by anyone, so a button copied to another
channel is refused there, and nothing changes.

The first answer comes first: a code that opens a text form opens it at once (Discord
takes a form only as the first answer), every other click is acknowledged (a deferred
update) before the table is read, and what it shows the clicker (a refusal, a
follow-up menu, the hand) follows as a private message. Then one call to the service
(:meth:`TableService.choose`) reads the table once, checks the click (an ended table,
a button from an older version, a clicker without a seat or whose turn it is not),
lets the game's UI adapter turn the code into an action or a follow-up menu, and plays
the action with the version the button carries, so two quick clicks can never make
two moves. The move is committed before anything is sent; delivery posts the news
from the outbox alone.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING

import discord

from bot.core.choices import get_ui
from bot.core.choices.adapter import Menu, Resolution
from bot.core.tables import (
    NoTable,
    NotSeated,
    Outbox,
    StaleVersion,
    TableInfo,
    TableService,
    UserError,
)
from bot.messages.delivery import CANNOT_POST
from bot.messages.delivery.hands import REFRESH
from bot.messages.lobby_clicks import LOBBY_PREFIX, LobbyClicks
from bot.messages.replies import UNSAVED, apology, expired, log_fault, private, unsaved
from bot.messages.ui import activity
from bot.messages.ui.forms import TextForm
from bot.messages.ui.items import OTHER_CHANNEL, build_view, from_elsewhere
from bot.messages.ui.texts import quote
from engines.catalog import has_hands
from engines.core import Action, View

if TYPE_CHECKING:
    from bot.core.tables.lobby import TablePlace
    from bot.messages.delivery import Delivery

__all__ = ["ANNOUNCE_FAILED", "STALE_DM", "STALE_PRIVATE", "TurnController"]

log = logging.getLogger(__name__)

ANNOUNCE_FAILED = (
    "It is saved, but I could not announce it in the channel; the game's `board` "
    "command shows the table as it is now."
)

STALE_DM = ("These buttons were from an older moment of the game: your hand message above "
            "now shows the choices of this one.")
STALE_PRIVATE = ("These buttons were from an older moment of the game: your hand message "
                 "(its Refresh button) or `/hand` shows the choices of now.")
TRY_AGAIN = "Something went wrong on my side; nothing was changed. Please try again."
NO_BOARD = ("The board is not open on this bot right now; play with the buttons of the turn "
            "message.")
BOARD_FAILED = ("Discord would not open the board here (Activities may be off for this app "
                "or this channel); play with the buttons of the turn message.")


class _Show:
    """A decision that shows the clicker something instead of playing a move."""

    def __init__(self, resolution: Resolution | None = None, hand: bool = False) -> None:
        self.resolution = resolution
        self.hand = hand


class TurnController:
    """The click and form handler behind every :class:`~bot.messages.ui.items.GameButton`,
    :class:`~bot.messages.ui.items.GameSelect` and :class:`~bot.messages.ui.forms.TextForm`."""

    def __init__(self, service: TableService, delivery: Delivery) -> None:
        self.service = service
        self.delivery = delivery
        self.lobby = LobbyClicks(service, delivery)

    async def handle_click(
        self, interaction: discord.Interaction, table_id: str, version: int, code: str
    ) -> None:
        try:
            await self._handle(interaction, table_id, version, code)
        except StaleVersion as exc:
            if not await self._bring_dm_hand_along(interaction, table_id):
                await self.fail(interaction, exc, f"click {code} on table {table_id}")
        except Exception as exc:
            # Never leave a click unanswered ("This interaction failed").
            await self.fail(interaction, exc, f"click {code} on table {table_id}")

    async def _bring_dm_hand_along(self, interaction: discord.Interaction,
                                   table_id: str) -> bool:
        """A click on a DM hand whose moment has passed (between its player's looks a
        hand is a record, and its buttons can be older than the table): the same
        message shows the hand and choices of now, on the click's own token, so the
        player is never left with dead buttons. False if it was not a DM hand."""
        try:
            if not await self._show_hand_now(interaction, table_id):
                return False
            await private(interaction, STALE_DM)
        except Exception as exc:
            await self.fail(interaction, exc, f"bringing the hand of table {table_id} along")
        return True

    async def _show_hand_now(self, interaction: discord.Interaction, table_id: str) -> bool:
        """The clicked DM message (not an ephemeral menu) shows its player's hand and
        choices as they are now; False if the click was not on a DM message."""
        message = interaction.message
        if interaction.guild_id is not None or message is None or message.flags.ephemeral:
            return False
        if not interaction.response.is_done():
            await interaction.response.defer()
        snapshot = await self.service.seat_snapshot(table_id, interaction.user.id)
        await self.delivery.hands.show_in_place(interaction, snapshot)
        return True

    async def fail(self, interaction: discord.Interaction, exc: BaseException,
                   what: str) -> None:
        if expired(exc):
            log.warning("%s: the interaction expired before it was answered", what)
            return
        if isinstance(exc, NoTable):
            await private(interaction, "This table no longer exists.")
            return
        if unsaved(exc):
            await private(interaction, UNSAVED)
            return
        if isinstance(exc, UserError):
            text = str(exc)
            if interaction.guild_id is None and isinstance(exc, StaleVersion):
                text = STALE_PRIVATE  # no channel message to go back to in a DM
            await private(interaction, text)
            return
        await private(interaction, apology(exc, what))

    async def _handle(
        self, interaction: discord.Interaction, table_id: str, version: int, code: str
    ) -> None:
        if code == activity.OPEN_BOARD:
            await self._open_board(interaction, table_id)
            return
        if code.startswith(LOBBY_PREFIX):
            await self.lobby.handle(interaction, table_id, code)
            return
        # A text form can only be the first answer, so whether a code opens one is
        # known from the code alone; the words are checked when the form comes back.
        # The same look-up says where the table is (the cache; else the one read a
        # click always made here), so a click from another channel is refused at once.
        place = await self.service.place_of(table_id)
        if place is not None and from_elsewhere(interaction, place.channel_id,
                                                private_ok=True):
            await private(interaction, OTHER_CHANNEL)
            return
        if code == REFRESH:
            # The hand as it is now, in the clicked message, whatever the version the
            # button was made at (a hand message is a record between its player's looks).
            await interaction.response.defer()
            snapshot = await self.service.seat_snapshot(table_id, interaction.user.id)
            await self.delivery.hands.show_in_place(interaction, snapshot)
            return
        title = get_ui(place.game_id).form_title(code) if place is not None else None
        if title is not None:
            await interaction.response.send_modal(TextForm(table_id, version, code, title))
            return
        # Everything else is acknowledged now, before the table is read: waiting for a
        # busy table's lock or a store read must never eat Discord's 3 seconds. A
        # refusal, a follow-up menu or the hand then follows privately.
        await interaction.response.defer()
        done: list[str | None] = [None]

        def decide(info: TableInfo, view: View, legal: list[Action]) -> Action | _Show:
            ui = get_ui(info.game_id)
            if code == ui.turn_code and _has_hand(info.game_id):
                return _Show(hand=True)
            resolution = ui.resolve(code, view, legal)
            if resolution.action is not None:
                done[0] = resolution.done_text
                return resolution.action
            return _Show(resolution)

        with _outsider_refused(interaction, place):
            result = await self.service.choose(table_id, interaction.user.id, version,
                                               decide)
        if isinstance(result, _Show):
            await self._show(interaction, table_id, version, result)
            return
        await self._announce(interaction, result, done[0])

    async def _open_board(self, interaction: discord.Interaction, table_id: str) -> None:
        """"Open the board": the Activity opens in the clicked message's channel, where
        it finds the channel's table itself. Answered at once, before anything is read
        (LAUNCH_ACTIVITY can only be the first answer); whatever version the button
        carries, the board shows the table as it is now."""
        if not activity.enabled():
            await private(interaction, NO_BOARD)
            return
        try:
            await interaction.response.launch_activity()
        except discord.HTTPException as exc:
            if expired(exc):
                raise
            log.warning("launching the Activity for table %s failed: %s %s", table_id,
                        exc.status, exc.code)
            await private(interaction, BOARD_FAILED)
            return
        log.info("the Activity was launched for table %s by user %s", table_id,
                 interaction.user.id)

    async def _show(self, interaction: discord.Interaction, table_id: str, version: int,
                    shown: _Show) -> None:
        if shown.hand:
            snapshot = await self.service.seat_snapshot(table_id, interaction.user.id)
            await self.delivery.hands.send_ephemeral(interaction, snapshot)
            return
        resolution = shown.resolution
        assert resolution is not None
        if resolution.form is not None:
            # Reached only when the code did not say so itself (a table not in this
            # process's cache): the form cannot open after the acknowledgement.
            await private(interaction, "Click once more to write your passage.")
            return
        menu: Menu | None = resolution.menu
        assert menu is not None
        components = build_view(menu, table_id, version)
        kwargs = {"view": components} if components is not None else {}
        await private(interaction, menu.prompt or "Your move:", **kwargs)

    async def _announce(self, interaction: discord.Interaction, outbox: Outbox,
                        done_text: str | None) -> None:
        """The move is committed: tidy the clicked message, deliver, and never claim
        otherwise if delivery fails."""
        self.delivery.expect(outbox)
        problem = None
        try:
            await self._settle_clicked_message(interaction, outbox, done_text)
            posted = await self.delivery.deliver(outbox, interaction=interaction)
            problem = None if posted else CANNOT_POST
        except Exception as exc:
            ref = log_fault(exc, f"announcing move {outbox.version} of table {outbox.table_id}")
            problem = f"{ANNOUNCE_FAILED} (Reference {ref}.)"
        if problem is not None:
            await private(interaction, f"{done_text or 'Your move was played.'} {problem}")

    async def _settle_clicked_message(
        self, interaction: discord.Interaction, outbox: Outbox, done_text: str | None
    ) -> None:
        """The clicked message has served: a panel shows the hand and choices at the new
        version, in place; another ephemeral menu becomes a confirmation; a public turn
        message or a DM hand message is edited by the delivery that follows (on this
        click's token)."""
        message = interaction.message
        if message is None or not message.flags.ephemeral:
            return
        hands = self.delivery.hands
        if hands.is_panel(message.id) and await hands.update_panel(interaction, outbox):
            return
        try:
            await interaction.edit_original_response(content=done_text or "Done.",
                                                     view=None, attachments=[])
        except discord.HTTPException:
            log.debug("could not tidy the clicked message")

    # -- text forms ------------------------------------------------------------------

    async def handle_form(self, interaction: discord.Interaction, table_id: str,
                          version: int, code: str, text: str) -> None:
        """A text form came back (perhaps after a restart: nothing of it lives in
        memory). Accepted if still valid, else answered with why, and the words given
        back so nothing written is lost."""
        try:
            if interaction.message is not None:
                # A form opened from a button: acknowledged without a placeholder, so
                # the messages its move leads to can ride on its token.
                await interaction.response.defer()
            else:
                await interaction.response.defer(ephemeral=True, thinking=True)
            text = text.strip()
            if not text:
                raise UserError("Write the passage to tell: it is empty.")

            def decide(info: TableInfo, view: View, legal: list[Action]) -> Action:
                return get_ui(info.game_id).with_text(code, view, legal, text)

            place = await self.service.place_of(table_id)
            pinned = place is None or code not in get_ui(place.game_id).unpinned_forms
            try:
                # A form is checked like the click that opened it: from its table's
                # channel, or from a message only its sender sees.
                if place is not None and from_elsewhere(interaction, place.channel_id,
                                                        private_ok=True):
                    raise UserError(OTHER_CHANNEL)
                with _outsider_refused(interaction, place):
                    outbox = await self.service.choose(table_id, interaction.user.id,
                                                       version if pinned else None, decide,
                                                       out_of_turn=not pinned)
            except UserError as exc:
                # Whatever stopped it, what the player wrote is given back.
                why = str(exc)
                if isinstance(exc, StaleVersion) and interaction.guild_id is None:
                    shown = await self._show_hand_now(interaction, table_id)
                    why = STALE_DM if shown else STALE_PRIVATE
                raise UserError(f"{why} Your words were not lost: {quote(text, 1500)}") from exc
            assert isinstance(outbox, Outbox)
            await self._announce(interaction, outbox, None)
            await private(interaction, "Your passage is in the story.")
        except Exception as exc:
            await self.fail(interaction, exc, f"form {code} on table {table_id}")


def _has_hand(game_id: str) -> bool:
    return has_hands(game_id)


@contextlib.contextmanager
def _outsider_refused(interaction: discord.Interaction, place: TablePlace | None
                      ) -> Iterator[None]:
    """A click from a DM or an ephemeral message outside the table's channel is for a
    seated player's own hand. Anyone else is told only that the button is another
    channel's: the usual refusal names whose turn it is at a table they cannot see."""
    try:
        yield
    except NotSeated as exc:
        if place is not None and interaction.channel_id != place.channel_id:
            raise UserError(OTHER_CHANNEL) from exc
        raise
