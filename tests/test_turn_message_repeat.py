"""A repeat delivery looks for the turn message a killed process may have posted: only
among the messages from the table's current turn message on (an earlier turn may have
said the very same words)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from bot.core.store import TurnMessage
from bot.messages.delivery.turn_message import TurnMessages

BOT = 1
TEXT = "AI (careful) goes back to the Well.\nIt is Ann's turn."


@dataclass
class _Message:
    id: int
    content: str
    author: Any


class _Channel:
    def __init__(self, messages: list[_Message]) -> None:
        self.messages = messages

    async def history(self, limit: int) -> AsyncIterator[_Message]:
        for message in sorted(self.messages, key=lambda m: m.id, reverse=True)[:limit]:
            yield message


def _turns(messages: list[_Message]) -> TurnMessages:
    channel = _Channel(messages)
    client = SimpleNamespace(user=SimpleNamespace(id=BOT),
                             get_partial_messageable=lambda _id: channel)
    courier: Any = SimpleNamespace(client=client)
    return TurnMessages(store=None, courier=courier, pictures=None)  # type: ignore[arg-type]


def _turn(message_id: int) -> TurnMessage:
    return TurnMessage(table_id="t", channel_id=9, message_id=message_id, version=15,
                       pinged=(), lines=(), has_buttons=False, board_key=None)


def _said(id_: int, text: str, author: int = BOT) -> _Message:
    return _Message(id_, text, SimpleNamespace(id=author))


async def test_the_same_words_from_an_earlier_turn_are_not_taken_for_the_repeat() -> None:
    # Message 10 told an earlier turn in the same words; 12 is the table's turn message.
    turns = _turns([_said(10, TEXT), _said(11, "Ann explores."), _said(12, "It is AI's turn.")])
    assert await turns._already_posted(9, TEXT, _turn(12)) is None


async def test_the_repeat_posted_after_the_turn_message_is_found() -> None:
    turns = _turns([_said(10, TEXT), _said(12, "It is AI's turn."), _said(13, "chat", 7),
                    _said(14, TEXT)])
    found = await turns._already_posted(9, TEXT, _turn(12))
    assert found is not None and found.id == 14


async def test_without_a_turn_message_the_last_messages_are_searched() -> None:
    turns = _turns([_said(10, TEXT), _said(11, TEXT, author=7)])
    found = await turns._already_posted(9, TEXT, None)
    assert found is not None and found.id == 10
