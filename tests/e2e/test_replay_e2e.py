"""``/table replay`` end to end: a finished game's animation posted in its channel,
within Discord's attachment limit, every frame a public board (the shared leak check
looks at each frame and caption)."""

from __future__ import annotations

import random

import pytest

from tests.e2e.harness import E2E
from tests.e2e.hidden import assert_no_hidden_information
from tests.e2e.play import play_fti, table_row
from tests.emulator import limits

pytestmark = pytest.mark.e2e


async def test_a_finished_game_is_replayed_in_its_channel(e2e: E2E) -> None:
    emu, bot, (alice, bob, carol) = e2e
    # Nothing to replay yet: a private, specific answer.
    await carol.slash("/table replay")
    refusal = carol.ephemerals(emu.channel)[-1]
    assert "no finished game" in refusal.content
    assert not [m for m in emu.channel.messages if m.attachments]
    await alice.slash("/table new", game="fairy-tale-inn")
    await bob.slash("/table join")
    await alice.slash("/table start")
    played = await play_fti(emu, bot.db_path, emu.channel, random.Random(8))
    assert played.prompt is None
    row = table_row(bot.db_path, emu.channel.id)
    assert row is not None and row.status == "finished"
    before = len(emu.channel.messages)
    asked = await carol.slash("/table replay")  # anyone in the channel may ask
    posted = [m for m in emu.channel.messages[before:] if m.attachments]
    assert len(posted) == 1, asked
    [gif] = posted[0].attachments
    assert gif.content_type == "image/gif" and gif.filename.endswith(".gif")
    assert 0 < len(gif.data) <= limits.ATTACHMENT_MAX_BYTES
    assert "Replay of Fairy Tale Inn" in posted[0].content
    # Asked again at once: the cooldown, privately, and nothing posted.
    assert "The replay is posted" in carol.ephemerals(emu.channel)[-1].content, asked
    await carol.slash("/table replay")
    assert "another replay" in carol.ephemerals(emu.channel)[-1].content
    assert len([m for m in emu.channel.messages[before:] if m.attachments]) == 1
    check = assert_no_hidden_information(emu, bot.db_path, emu.channel.id)
    assert check.checked_images > 8  # the boards of the game and every replay frame
