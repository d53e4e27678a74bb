"""Which click's token posts a move's new turn message (TurnMessages.carrier)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import discord

from bot.messages.delivery.courier import Tokens
from bot.messages.delivery.turn_message import TurnMessages

R = discord.InteractionResponseType
NOW = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)
CHANNEL, DM = 7, 900
ALICE, BOB = 1, 2


def click(user: int, channel: int) -> Any:
    """A button click by ``user`` in ``channel``, answered with a deferred update."""
    return SimpleNamespace(
        type=discord.InteractionType.component, channel_id=channel,
        user=SimpleNamespace(id=user),
        message=SimpleNamespace(id=100 + user + channel, flags=SimpleNamespace(ephemeral=False)),
        expires_at=NOW + timedelta(minutes=15),
        response=SimpleNamespace(type=R.deferred_message_update, is_done=lambda: True))


def outbox(actor: int, kind: str = "move") -> Any:
    seats = (SimpleNamespace(index=0, user_id=ALICE), SimpleNamespace(index=1, user_id=BOB),
             SimpleNamespace(index=2, user_id=None))
    return SimpleNamespace(public=SimpleNamespace(kind=kind, actor=actor, channel_id=CHANNEL),
                           table=SimpleNamespace(seats=seats))


def turns() -> TurnMessages:
    courier: Any = SimpleNamespace(tokens=Tokens(clock=lambda: NOW.timestamp()))
    return TurnMessages(store=None, courier=courier, pictures=None)  # type: ignore[arg-type]


def test_a_move_clicked_in_the_channel_rides_the_movers_own_click() -> None:
    t = turns()
    bob = click(BOB, CHANNEL)
    t.courier.tokens.note(bob)
    alice = click(ALICE, CHANNEL)
    assert t.carrier(outbox(0), alice) is alice


def test_a_move_clicked_in_a_dm_rides_the_tables_freshest_click() -> None:
    """A DM click's token posts only in the DM: without one, every move played from a
    hand cost the shared bot token a new message and an edit (issue 24)."""
    t = turns()
    bob = click(BOB, CHANNEL)
    t.courier.tokens.note(bob)
    assert t.carrier(outbox(0), click(ALICE, DM)) is bob


def test_a_move_clicked_in_a_dm_prefers_the_movers_own_channel_click() -> None:
    t = turns()
    t.courier.tokens.note(click(BOB, CHANNEL))
    own = click(ALICE, CHANNEL)
    t.courier.tokens.note(own)
    assert t.carrier(outbox(0), click(ALICE, DM)) is own


def test_a_move_clicked_in_a_dm_with_nobody_clicking_in_the_channel_uses_the_bot_token() -> None:
    t = turns()
    assert t.carrier(outbox(0), click(ALICE, DM)) is None


def test_a_persons_move_without_its_click_never_rides_someone_elses() -> None:
    """A move told without its interaction (a repeat delivery, another process) is not
    shown as following another person's click."""
    t = turns()
    t.courier.tokens.note(click(BOB, CHANNEL))
    assert t.carrier(outbox(0), None) is None


def test_an_ai_move_rides_anyones_click_and_news_without_an_actor_none() -> None:
    t = turns()
    bob = click(BOB, CHANNEL)
    t.courier.tokens.note(bob)
    assert t.carrier(outbox(2), None) is bob
    assert t.carrier(outbox(0, kind="ruling"), None) is None
