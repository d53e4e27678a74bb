"""The courier's choice of token: which interaction may edit which message, and when."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import discord

from bot.messages.delivery.courier import TOKEN_MARGIN, Tokens

R = discord.InteractionResponseType
NOW = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)


def click(message_id: int, answer: R | None, *, age: float = 0.0) -> Any:
    """A button click on message ``message_id`` of channel 7, answered with ``answer``."""
    response = SimpleNamespace(type=answer, is_done=lambda: answer is not None)
    return SimpleNamespace(
        type=discord.InteractionType.component, channel_id=7, user=SimpleNamespace(id=1),
        message=SimpleNamespace(id=message_id, flags=SimpleNamespace(ephemeral=False)),
        expires_at=NOW + timedelta(minutes=15) - timedelta(seconds=age), response=response)


def tokens() -> Tokens:
    return Tokens(clock=lambda: NOW.timestamp())


def test_a_click_answered_by_updating_its_message_may_edit_that_message() -> None:
    for answer in (R.deferred_message_update, R.message_update):
        t = tokens()
        inter = click(100, answer)
        t.note(inter)
        assert t.for_message(100) == (inter, True)


def test_a_click_answered_with_a_message_of_its_own_does_not_edit_the_clicked_one() -> None:
    """After a type-4 answer (a menu, a refusal) the click's @original is that answer: an
    edit "of the clicked message" on its token would overwrite the menu instead."""
    for answer in (R.channel_message, R.deferred_channel_message, R.modal):
        t = tokens()
        t.note(click(100, answer))
        assert t.for_message(100) is None, answer


def test_an_unanswered_click_edits_nothing_yet() -> None:
    t = tokens()
    t.note(click(100, None))
    assert t.for_message(100) is None


def test_a_token_near_its_fifteen_minutes_is_not_started_on() -> None:
    t = tokens()
    t.note(click(100, R.deferred_message_update, age=15 * 60 - TOKEN_MARGIN + 1))
    assert t.for_message(100) is None
    assert t.for_channel(7) is None
