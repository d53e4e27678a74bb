"""The courier's choice of token: which interaction may edit which message, and when."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import discord

from bot.messages.delivery.courier import TOKEN_MARGIN, Budget, Courier, Tokens

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


class _Channel:
    """A channel of a fake client: each edit of one of its messages is a request."""

    def __init__(self, edits: list[dict[str, Any]]) -> None:
        self.edits = edits

    def get_partial_message(self, message_id: int) -> Any:
        async def edit(**kwargs: Any) -> None:
            self.edits.append({"message": message_id, **kwargs})
        return SimpleNamespace(edit=edit)


def courier() -> tuple[Any, list[dict[str, Any]]]:
    edits: list[dict[str, Any]] = []
    client: Any = SimpleNamespace(get_partial_messageable=lambda *a, **k: _Channel(edits))
    return Courier(client, Budget(1000.0, burst=1000.0), Tokens()), edits


async def test_an_edit_identical_to_the_last_is_not_sent() -> None:
    c, edits = courier()
    assert await c.edit(7, 100, content="Ann's turn.", view=None)
    assert await c.edit(7, 100, content="Ann's turn.", view=None)
    assert len(edits) == 1 and c.sent["bot edit"] == 1
    # What the message shows changes: that edit goes out.
    assert await c.edit(7, 100, content="Bob's turn.", view=None)
    assert [e["content"] for e in edits] == ["Ann's turn.", "Bob's turn."]
    # Taking buttons off a message already without them sends nothing either.
    await c.strip_buttons(7, 100)
    assert len(edits) == 2


async def test_an_edit_overtaken_while_it_waited_is_not_sent() -> None:
    c, edits = courier()
    c.budget = Budget(1000.0, burst=1.0)
    await c.budget.take(0)  # the bucket is empty: both edits wait their turn
    first = asyncio.ensure_future(c.edit(7, 100, content="step 1", view=None))
    second = asyncio.ensure_future(c.edit(7, 100, content="step 2", view=None))
    assert await first and await second
    assert [e["content"] for e in edits] == ["step 2"]
