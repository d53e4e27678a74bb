"""The Discord emulator, driven by a tiny unmodified discord.py client defined here."""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from collections.abc import AsyncIterator

import discord
import pytest
from discord import app_commands
from PIL import Image

from tests.emulator import (
    CannotDoThat,
    Emulator,
    InteractionFailed,
    discord_pointed_at,
)
from tests.emulator.limits import ALREADY_ACKNOWLEDGED, UNKNOWN_INTERACTION, ApiError

logging.getLogger("discord").setLevel(logging.ERROR)


def png(color: str = "red", size: tuple[int, int] = (8, 4)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, "PNG")
    return buf.getvalue()


class Counter(discord.ui.DynamicItem[discord.ui.Button], template=r"count:(?P<n>\d+)"):
    """A restart-proof button whose custom_id carries the count."""

    def __init__(self, n: int) -> None:
        super().__init__(discord.ui.Button(label=f"Count {n}", custom_id=f"count:{n}"))
        self.n = n

    @classmethod
    async def from_custom_id(cls, interaction, item, match):  # type: ignore[no-untyped-def]
        return cls(int(match["n"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(Counter(self.n + 1))
        await interaction.response.edit_message(content=f"count is {self.n + 1}", view=view)


class Notes(discord.ui.Modal, title="Narrate"):
    text: discord.ui.TextInput = discord.ui.TextInput(
        label="Story", custom_id="story", max_length=200
    )

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"you wrote: {self.text.value}")


class Tiny(discord.AutoShardedClient):
    """A few commands exercising every response kind the emulator must understand."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(intents=discord.Intents.default(), **kwargs)  # type: ignore[arg-type]
        self.tree = app_commands.CommandTree(self)
        self.errors: list[BaseException] = []
        self.events: list[str] = []
        self.dm_failures: list[int] = []
        tree = self.tree

        @tree.command(description="Say hello")
        @app_commands.describe(name="who", times="how often")
        async def hello(interaction: discord.Interaction, name: str, times: int = 1) -> None:
            await interaction.response.send_message(" ".join([f"hello {name}"] * times))

        async def card_names(
            interaction: discord.Interaction, current: str
        ) -> list[app_commands.Choice[str]]:
            cards = ["Princess", "Prince", "Pied Piper", "Wolf"]
            return [
                app_commands.Choice(name=c, value=c.lower())
                for c in cards
                if c.lower().startswith(current.lower())
            ]

        @tree.command(description="Play a card")
        @app_commands.autocomplete(card=card_names)
        async def play(interaction: discord.Interaction, card: str) -> None:
            await interaction.response.send_message(f"played {card}")

        game = app_commands.Group(name="table", description="Tables")

        @game.command(name="new", description="Open a table")
        @app_commands.choices(
            game=[app_commands.Choice(name="Fairy Tale Inn", value="fairy-tale-inn")]
        )
        async def table_new(interaction: discord.Interaction, game: str) -> None:
            view = discord.ui.View(timeout=None)
            view.add_item(Counter(0))
            await interaction.response.send_message(
                f"table for {game}",
                view=view,
                embed=discord.Embed(title="Lobby", description="waiting"),
                file=discord.File(io.BytesIO(png()), "board.png"),
            )

        @game.command(name="secret", description="Ephemeral answer")
        async def table_secret(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("only you", ephemeral=True)

        @game.command(name="slow", description="Deferred answer")
        async def table_slow(interaction: discord.Interaction) -> None:
            await interaction.response.defer(thinking=True)
            await asyncio.sleep(0.05)
            await interaction.followup.send(
                "done thinking", file=discord.File(io.BytesIO(png("blue")), "b.png")
            )
            await interaction.followup.send("and a followup")
            await interaction.edit_original_response(content="edited thinking")

        @game.command(name="twice", description="Answers twice (a bug)")
        async def table_twice(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("one")
            try:
                await interaction.response.send_message("two")
            except discord.InteractionResponded as exc:
                self.errors.append(exc)
            try:
                await interaction.followup.send("x" * 2001)
            except discord.HTTPException as exc:
                self.errors.append(exc)

        @game.command(name="sleepy", description="Answers too late")
        async def table_sleepy(interaction: discord.Interaction) -> None:
            await asyncio.sleep(0.4)
            try:
                await interaction.response.send_message("late")
            except discord.HTTPException as exc:
                self.errors.append(exc)

        @game.command(name="narrate", description="Opens a modal")
        async def table_narrate(interaction: discord.Interaction) -> None:
            await interaction.response.send_modal(Notes())

        @game.command(name="pick", description="A select")
        async def table_pick(interaction: discord.Interaction) -> None:
            view = discord.ui.View(timeout=None)
            select: discord.ui.Select = discord.ui.Select(
                custom_id="pick",
                options=[
                    discord.SelectOption(label=f"Column {i}", value=str(i)) for i in range(1, 8)
                ],
            )

            async def picked(inter: discord.Interaction) -> None:
                await inter.response.send_message(f"picked {select.values}")

            select.callback = picked  # type: ignore[method-assign]
            view.add_item(select)
            await interaction.response.send_message("pick a column", view=view)

        @game.command(name="whisper", description="DM someone")
        async def table_whisper(interaction: discord.Interaction, who: discord.User) -> None:
            await interaction.response.defer(ephemeral=True)
            try:
                await who.send("psst, a secret hand")
            except discord.Forbidden as exc:
                self.dm_failures.append(exc.code)
                await interaction.followup.send(f"{who.mention} has closed DMs", ephemeral=True)
                return
            await interaction.followup.send("sent", ephemeral=True)

        @game.command(name="post", description="Post in the channel")
        async def table_post(interaction: discord.Interaction, text: str) -> None:
            await interaction.response.defer()
            assert interaction.channel is not None
            await interaction.channel.send(text)  # type: ignore[union-attr]
            await interaction.followup.send("posted")

        @game.command(name="bad", description="Sends an invalid payload")
        async def table_bad(interaction: discord.Interaction, what: str) -> None:
            await interaction.response.defer()
            assert interaction.channel is not None
            view = discord.ui.View(timeout=None)
            if what == "rows":
                for i in range(6):  # discord.py refuses >5 rows itself; build raw rows
                    view.add_item(discord.ui.Button(label=str(i), custom_id=f"b{i}", row=i % 5))
            payloads = {
                "content": {"content": "y" * 2001},
                "embed": {"embeds": [{"title": "t" * 257}]},
                "ephemeral": {"content": "hi", "flags": 64},
                "rows": {
                    "content": "hi",
                    "components": [
                        {
                            "type": 1,
                            "components": [
                                {"type": 2, "style": 1, "label": "x", "custom_id": f"r{i}"}
                            ],
                        }
                        for i in range(6)
                    ],
                },
                "dup": {
                    "content": "hi",
                    "components": [
                        {
                            "type": 1,
                            "components": [
                                {"type": 2, "style": 1, "label": "x", "custom_id": "same"},
                                {"type": 2, "style": 1, "label": "y", "custom_id": "same"},
                            ],
                        }
                    ],
                },
                "long_id": {
                    "content": "hi",
                    "components": [
                        {
                            "type": 1,
                            "components": [
                                {"type": 2, "style": 1, "label": "x", "custom_id": "z" * 101}
                            ],
                        }
                    ],
                },
                "six": {
                    "content": "hi",
                    "components": [
                        {
                            "type": 1,
                            "components": [
                                {"type": 2, "style": 1, "label": str(i), "custom_id": f"s{i}"}
                                for i in range(6)
                            ],
                        }
                    ],
                },
                "options": {
                    "content": "hi",
                    "components": [
                        {
                            "type": 1,
                            "components": [
                                {
                                    "type": 3,
                                    "custom_id": "sel",
                                    "options": [
                                        {"label": str(i), "value": str(i)} for i in range(26)
                                    ],
                                }
                            ],
                        }
                    ],
                },
                "empty": {"content": ""},
            }
            route = discord.http.Route(
                "POST", "/channels/{channel_id}/messages", channel_id=interaction.channel.id
            )
            if what == "big":
                big = discord.File(io.BytesIO(b"\0" * (10 * 1024 * 1024 + 1)), "big.bin")
                try:
                    await interaction.channel.send(file=big)  # type: ignore[union-attr]
                except discord.HTTPException as exc:
                    self.errors.append(exc)
            else:
                try:
                    await self.http.request(route, json=payloads[what])
                except discord.HTTPException as exc:
                    self.errors.append(exc)
            await interaction.followup.send("tried")

        tree.add_command(game)

    async def on_connect(self) -> None:
        self.events.append("connect")

    async def on_shard_resumed(self, shard_id: int) -> None:
        self.events.append(f"resumed:{shard_id}")

    async def setup_hook(self) -> None:
        self.add_dynamic_items(Counter)

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """No 5-second pause between shard IDENTIFYs (the emulator has no identify limit)."""


@contextlib.asynccontextmanager
async def running(
    shards: int = 1, guilds: int = 1, **emu_kwargs: object
) -> AsyncIterator[tuple[Emulator, Tiny]]:
    async with Emulator(shard_count=shards, guilds=guilds, **emu_kwargs) as emu:  # type: ignore
        with discord_pointed_at(emu):
            bot = Tiny()
            task = asyncio.create_task(bot.start(emu.token))
            try:
                await emu.wait_ready(timeout=10)
                await bot.tree.sync()
                await emu.wait_for(lambda: emu.global_commands, timeout=5)
                yield emu, bot
            finally:
                await bot.close()
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task


async def test_connect_sync_and_slash_command() -> None:
    async with running() as (emu, bot):
        assert bot.user is not None and bot.user.id == emu.bot.id
        assert {c["name"] for c in emu.global_commands.values()} == {"hello", "play", "table"}
        alice = emu.user("alice")
        inter = await alice.slash("/hello", name="world", times=2)
        assert inter.reply is not None
        assert inter.reply.content == "hello world hello world"
        assert emu.channel.messages[-1] is inter.reply
        assert inter.latency is not None and inter.latency >= 0
        # discord.py heartbeats right after HELLO; its latency comes from our HEARTBEAT_ACK.
        await emu.wait_for(lambda: bot.latency != float("inf"))
        emu.assert_clean()


async def test_autocomplete_suggestions_come_from_the_bot() -> None:
    async with running() as (emu, _bot):
        alice = emu.user("alice")
        choices = await alice.autocomplete("/play", "card", "pri")
        assert choices == [
            {"name": "Princess", "value": "princess"},
            {"name": "Prince", "value": "prince"},
        ]
        inter = await alice.slash("/play", card=choices[0]["value"])
        assert inter.reply is not None and inter.reply.content == "played princess"
        with pytest.raises(CannotDoThat, match="no autocomplete"):
            await alice.autocomplete("/hello", "name", "x")


async def test_people_cannot_invent_commands_or_options() -> None:
    async with running() as (emu, _bot):
        alice = emu.user("alice")
        with pytest.raises(CannotDoThat, match="no /nope"):
            await alice.slash("/nope")
        with pytest.raises(CannotDoThat, match="required"):
            await alice.slash("/hello")
        with pytest.raises(CannotDoThat, match="no option"):
            await alice.slash("/hello", name="x", colour="red")
        with pytest.raises(CannotDoThat, match="not one of"):
            await alice.slash("/table new", game="chess")
        with pytest.raises(CannotDoThat, match="needs a subcommand"):
            await alice.slash("/table")


async def test_buttons_embeds_files_and_dynamic_items() -> None:
    async with running() as (emu, _bot):
        alice = emu.user("alice")
        inter = await alice.slash("/table new", game="Fairy Tale Inn")  # by choice name
        msg = inter.reply
        assert msg is not None and msg.content == "table for fairy-tale-inn"
        assert msg.embeds[0]["title"] == "Lobby"
        assert msg.image is not None and msg.image.size == (8, 4)
        assert msg.image.getpixel((0, 0)) == (255, 0, 0)
        assert [b.label for b in msg.buttons] == ["Count 0"]
        click = await alice.click(msg, label="Count 0")
        assert click.response_type == 7
        assert msg.content == "count is 1" and msg.buttons[0].custom_id == "count:1"
        assert msg.edits == 1 and msg.history[0]["content"] == "table for fairy-tale-inn"
        bob = emu.user("bob")
        await bob.click(msg, custom_id="count:1")
        assert msg.content == "count is 2"
        with pytest.raises(LookupError):
            await bob.click(msg, label="Count 0")  # no longer displayed
        emu.assert_clean()


async def test_ephemeral_replies_are_only_for_their_user() -> None:
    async with running() as (emu, _bot):
        alice, bob = emu.user("alice"), emu.user("bob")
        before = len(emu.channel.messages)
        inter = await alice.slash("/table secret")
        assert inter.reply is not None and inter.reply.ephemeral
        assert [m.content for m in alice.ephemerals()] == ["only you"]
        assert bob.ephemerals() == [] and len(emu.channel.messages) == before
        assert not bob.sees(inter.reply) and alice.sees(inter.reply)


async def test_defer_followup_and_edit_original() -> None:
    async with running() as (emu, _bot):
        alice = emu.user("alice")
        inter = await alice.slash("/table slow")
        assert inter.response_type == 5
        original = inter.original
        assert original is not None and not original.loading
        # The first followup after a defer fills the "thinking" message, as on Discord.
        assert original.content == "edited thinking"
        assert original.image is not None and original.image.getpixel((0, 0)) == (0, 0, 255)
        assert [m.content for m in inter.followups] == ["and a followup"]
        assert [m.content for m in inter.replies] == ["edited thinking", "and a followup"]


async def test_already_acknowledged_and_content_limit() -> None:
    async with running() as (emu, bot):
        alice = emu.user("alice")
        await alice.slash("/table twice")
        await emu.wait_for(lambda: len(bot.errors) == 2)
        assert isinstance(bot.errors[0], discord.InteractionResponded)
        http_error = bot.errors[1]
        assert isinstance(http_error, discord.HTTPException)
        assert (http_error.status, http_error.code) == (400, 50035)
        assert [e.code for e in emu.take_errors()] == [50035]


async def test_channel_messages_with_files_are_edited_like_discord() -> None:
    async with running() as (emu, bot):
        channel = bot.get_partial_messageable(emu.channel.id)
        sent = await channel.send(
            "board",
            file=discord.File(io.BytesIO(png("red")), "a.png"),
            embed=discord.Embed(title="t").set_image(url="attachment://a.png"),
        )
        stored = emu.channel.messages[-1]
        assert stored.id == sent.id and [a.filename for a in stored.attachments] == ["a.png"]
        assert sent.attachments[0].width == 8  # the answer is a complete message object
        # Keep the old attachment and add one; then replace both with a new picture.
        await sent.edit(attachments=[*sent.attachments, discord.File(io.BytesIO(png()), "b.png")])
        assert [a.filename for a in stored.attachments] == ["a.png", "b.png"]
        edited = await sent.edit(
            content="new", attachments=[discord.File(io.BytesIO(png("green")), "c.png")]
        )
        assert [a.filename for a in stored.attachments] == ["c.png"]
        assert stored.image.getpixel((0, 0)) == (0, 128, 0) and stored.content == "new"
        assert edited.edited_at is not None and stored.embeds[0]["title"] == "t"
        fetched = await channel.fetch_message(sent.id)
        assert fetched.content == "new"
        await sent.delete()
        assert stored.deleted and emu.channel.visible == []
        with pytest.raises(discord.NotFound):
            await channel.fetch_message(sent.id)
        assert [e.code for e in emu.take_errors()] == [10008]


async def test_raw_double_callback_gets_40060() -> None:
    async with running() as (emu, bot):
        alice = emu.user("alice")
        inter = await alice.slash("/hello", name="x")
        route = discord.http.Route(
            "POST", "/interactions/{i}/{t}/callback", i=inter.id, t=inter.token
        )
        with pytest.raises(discord.HTTPException) as info:
            await bot.http.request(route, json={"type": 4, "data": {"content": "again"}})
        assert info.value.code == ALREADY_ACKNOWLEDGED
        assert [e.code for e in emu.take_errors()] == [ALREADY_ACKNOWLEDGED]


async def test_late_first_response_is_unknown_interaction() -> None:
    async with running(response_window=0.2) as (emu, bot):
        alice = emu.user("alice")
        with pytest.raises(InteractionFailed):
            await alice.slash("/table sleepy")
        await emu.wait_for(lambda: bot.errors)
        assert isinstance(bot.errors[0], discord.NotFound)
        assert bot.errors[0].code == UNKNOWN_INTERACTION


async def test_token_expires_after_fifteen_minutes() -> None:
    async with running() as (emu, bot):
        alice = emu.user("alice")
        inter = await alice.slash("/hello", name="x")
        emu.advance_time(15 * 60 + 1)
        webhook = discord.Webhook.partial(emu.application_id, inter.token, client=bot)
        with pytest.raises(discord.HTTPException) as info:
            await webhook.send("too late")
        assert (info.value.status, info.value.code) == (401, 50027)
        emu.take_errors()


@pytest.mark.parametrize(
    ("what", "status", "code"),
    [
        ("content", 400, 50035),
        ("embed", 400, 50035),
        ("ephemeral", 400, 50035),
        ("rows", 400, 50035),
        ("dup", 400, 50035),
        ("long_id", 400, 50035),
        ("six", 400, 50035),
        ("options", 400, 50035),
        ("empty", 400, 50006),
        ("big", 413, 40005),
    ],
)
async def test_limits_are_refused_with_discords_codes(what: str, status: int, code: int) -> None:
    async with running() as (emu, bot):
        alice = emu.user("alice")
        before = len(emu.channel.messages)
        await alice.slash("/table bad", what=what)
        await emu.wait_for(lambda: bot.errors)
        exc = bot.errors[0]
        assert isinstance(exc, discord.HTTPException)
        assert (exc.status, exc.code) == (status, code)
        errors = emu.take_errors()
        assert [(e.status, e.code) for e in errors] == [(status, code)]
        with pytest.raises(AssertionError):
            emu.api_errors.append(("POST", "/x", errors[0]))
            emu.assert_clean()
        # Nothing refused reached the channel: only the "thinking" reply, filled in.
        assert len(emu.channel.messages) == before + 1
        assert emu.channel.messages[-1].content == "tried"


async def test_modal_and_select() -> None:
    async with running() as (emu, _bot):
        alice = emu.user("alice")
        inter = await alice.slash("/table narrate")
        assert inter.response_type == 9 and alice.modal is not None
        assert alice.modal["title"] == "Narrate"
        with pytest.raises(CannotDoThat, match="length"):
            await alice.submit_modal(story="x" * 201)
        await alice.slash("/table narrate")
        done = await alice.submit_modal(Story="Once upon a time")  # by label
        assert done.reply is not None and done.reply.content == "you wrote: Once upon a time"
        with pytest.raises(CannotDoThat, match="no modal"):
            await alice.submit_modal(story="again")

        msg = (await alice.slash("/table pick")).reply
        assert msg is not None and msg.selects[0].labels[2] == "Column 3"
        with pytest.raises(CannotDoThat):
            await alice.select(msg, ["9"])
        picked = await alice.select(msg, ["Column 3"], by_label=True)
        assert picked.reply is not None and picked.reply.content == "picked ['3']"


async def test_threads_and_dms() -> None:
    async with running() as (emu, bot):
        alice, bob = emu.user("alice"), emu.user("bob")
        thread = emu.create_thread(emu.channel, "inn table")
        await emu.wait_for(lambda: bot.get_channel(thread.id) is not None)
        inter = await alice.slash("/hello", name="thread", channel=thread)
        assert inter.reply is not None and thread.messages == [inter.reply]
        await alice.slash("/table whisper", who=bob)
        assert [m.content for m in bob.dm_messages()] == ["psst, a secret hand"]
        assert [m.content for m in alice.ephemerals()] == ["sent"]
        assert alice.dm_messages() == []
        # A button on a DM message: the interaction arrives without a guild, on shard 0.
        bob.close_dms()
        await alice.slash("/table whisper", who=bob)
        assert bot.dm_failures == [50007]
        assert alice.ephemerals()[-1].content == f"{bob.mention} has closed DMs"
        assert len(bob.dm_messages()) == 1
        assert [e.code for e in emu.take_errors()] == [50007]


async def test_interactions_from_dms() -> None:
    async with running() as (emu, _bot):
        alice = emu.user("alice")
        dm = emu.dm_channel(alice.user)
        inter = await alice.slash("/hello", name="dm", channel=dm)
        assert inter.reply is not None and inter.reply.content == "hello dm"
        assert alice.dm_messages() == [inter.reply]
        # A button on a DM message: the interaction arrives without a guild, on shard 0.
        table = (await alice.slash("/table new", game="fairy-tale-inn", channel=dm)).reply
        assert table is not None and table.guild_id is None
        await alice.click(table, label="Count 0")
        assert table.content == "count is 1"
        bob = emu.user("bob")
        with pytest.raises(CannotDoThat, match="cannot see"):
            await bob.click(table, label="Count 1")


async def test_shards_route_guilds_and_dms() -> None:
    async with running(shards=2, guilds=2) as (emu, bot):
        g0, g1 = list(emu.guilds.values())
        assert emu.gateway.shard_for(g0.id) == 0 and emu.gateway.shard_for(g1.id) == 1
        assert bot.shard_count == 2
        assert bot.get_guild(g0.id).shard_id == 0  # type: ignore[union-attr]
        assert bot.get_guild(g1.id).shard_id == 1  # type: ignore[union-attr]
        alice = emu.user("alice")
        c1 = emu.channel_named("general", g1)
        inter = await alice.slash("/hello", name="one", channel=c1)
        assert inter.reply is not None and c1.messages == [inter.reply]
        assert emu.gateway.by_shard[1].seq > 2  # READY, GUILD_CREATE, INTERACTION_CREATE
        dm = emu.dm_channel(alice.user)
        await alice.slash("/hello", name="dm", channel=dm)
        assert alice.dm_messages()[-1].content == "hello dm"


async def test_resume_after_dropped_connection_replays_missed_events() -> None:
    async with running() as (emu, bot):
        alice = emu.user("alice")
        session = emu.gateway.by_shard[0]
        await emu.drop_gateway()
        # Sent while the connection is down: must arrive after the RESUME.
        inter = await alice.slash("/hello", name="after the drop")
        assert inter.reply is not None and inter.reply.content == "hello after the drop"
        assert session.resumes == 1 and emu.gateway.by_shard[0] is session
        assert emu.gateway.identifies == 1
        await emu.wait_for(lambda: "resumed:0" in bot.events)


async def test_reconnect_request_is_followed_by_a_resume() -> None:
    async with running() as (emu, _bot):
        session = emu.gateway.by_shard[0]
        await emu.gateway.reconnect_request(0)
        await emu.wait_for(lambda: session.resumes == 1 and emu.ready)
        inter = await emu.user("alice").slash("/hello", name="moved")
        assert inter.reply is not None and emu.gateway.identifies == 1


async def test_unknown_resume_is_invalidated_and_client_reidentifies() -> None:
    async with running() as (emu, _bot):
        emu.gateway.sessions.clear()  # the server forgot the session
        await emu.drop_gateway()
        await emu.wait_for(lambda: emu.gateway.identifies == 2, timeout=10)
        await emu.wait_ready()
        inter = await emu.user("alice").slash("/hello", name="again")
        assert inter.reply is not None


async def test_rate_limits_and_server_errors_are_retried_once() -> None:
    async with running() as (emu, _bot):
        alice = emu.user("alice")
        route = "POST /channels/{channel_id}/messages"
        emu.faults.rate_limit(route, retry_after=0.1)
        emu.faults.rate_limit(None, retry_after=0.1, is_global=True)
        await alice.slash("/table post", text="once")
        await emu.wait_for(
            lambda: (
                [m.content for m in emu.channel.messages][-2:] == ["posted", "once"]
                or [m.content for m in emu.channel.messages][-2:] == ["once", "posted"]
            )
        )
        assert [m.content for m in emu.channel.messages].count("once") == 1
        statuses = [c.status for c in emu.requests if c.template.endswith("/messages")]
        assert statuses.count(429) >= 1 and statuses[-1] == 200
        emu.faults.fail(route, status=502)
        await alice.slash("/table post", text="twice")
        await emu.wait_for(lambda: "twice" in [m.content for m in emu.channel.messages], timeout=6)
        assert [m.content for m in emu.channel.messages].count("twice") == 1
        assert all(f.hits == 1 for f in emu.faults.rules)
        emu.assert_clean()


async def test_lost_answer_after_apply_is_visible_as_a_retry() -> None:
    """A 5xx after the emulator did the work: the client retries and the callback gets 40060."""
    async with running() as (emu, _bot):
        emu.faults.fail(
            "POST /interactions/{interaction_id}/{token}/callback", status=500, after_apply=True
        )
        inter = await emu.user("alice").slash("/hello", name="x", wait=False)
        await emu.wait_for(
            lambda: any(e.code == ALREADY_ACKNOWLEDGED for _, _, e in emu.api_errors), timeout=6
        )
        assert [m.content for m in emu.channel.messages] == ["hello x"]
        assert inter.acknowledged
        emu.take_errors()


async def test_slow_network_still_works() -> None:
    async with running() as (emu, _bot):
        emu.faults.latency = 0.05
        inter = await emu.user("alice").slash("/hello", name="slow")
        assert inter.reply is not None and inter.latency is not None
        assert inter.latency >= 0.05  # the gateway frame was delayed on its way


async def test_unknown_routes_are_404_and_reported() -> None:
    async with running() as (emu, bot):
        route = discord.http.Route("GET", "/stickers/{sticker_id}", sticker_id=1)
        with pytest.raises(discord.NotFound):
            await bot.http.request(route)
        assert emu.unknown_routes == ["GET /stickers/1"]
        with pytest.raises(AssertionError, match="unknown route"):
            emu.assert_clean()
        emu.unknown_routes.clear()


async def test_api_error_bodies_read_like_discord() -> None:
    err = ApiError(400, 50035, "Invalid Form Body", "embeds.0.title", "too long")
    assert err.body()["errors"] == {
        "embeds": {"0": {"title": {"_errors": [{"code": "INVALID", "message": "too long"}]}}}
    }
    assert "embeds.0.title" in str(err)
