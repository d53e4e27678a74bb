"""The one button class and the one select class every game uses.

Both are :class:`discord.ui.DynamicItem` s: discord.py matches a click's custom_id
against their template, rebuilds the item from it and calls its callback, with no
in-memory view needed, so buttons keep working after a restart (the table state is
in the store). The callback hands ``(table id, version, code)`` to the client's
turn controller (:class:`bot.messages.clicks.TurnController`), which does every check.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

import discord

from bot.core.choices.adapter import Choice, Menu
from bot.messages.ui.ids import BUTTON_TEMPLATE, SELECT_TEMPLATE, ButtonId, SelectId

__all__ = [
    "OTHER_CHANNEL",
    "ClickHandler",
    "GameButton",
    "GameSelect",
    "build_panel",
    "build_view",
    "from_elsewhere",
]

_STYLES = {
    "primary": discord.ButtonStyle.primary,
    "secondary": discord.ButtonStyle.secondary,
    "success": discord.ButtonStyle.success,
    "danger": discord.ButtonStyle.danger,
}

NOT_READY = "The bot is still starting up; try again in a few seconds."
OTHER_CHANNEL = "That button belongs to a table in another channel."
"""The refusal of a click (or a form) that does not come from its table's channel. It
names no channel: the table's may be one the clicker cannot see."""


def from_elsewhere(interaction: discord.Interaction, table_channel: int, *,
                   private_ok: bool) -> bool:
    """Whether a click (or a form sent from one) must be refused because it does not
    come from its table's channel. A custom_id is readable by anyone and may be put on
    a message anywhere, so where the click happened is checked, not where the id says.

    ``private_ok``: a message only its recipient can see (a DM, or an ephemeral answer
    such as ``/hand`` used in another channel) may carry the buttons of that person's
    own table; the seat check that follows makes such a click act for the clicker's
    own seat only. Lobby buttons are only ever on the table's channel message."""
    if interaction.channel_id == table_channel:
        return False
    if not private_ok:
        return True
    message = interaction.message
    in_dm = interaction.guild_id is None
    ephemeral = message is not None and message.flags.ephemeral
    return not (in_dm or ephemeral)


class ClickHandler(Protocol):
    async def handle_click(
        self, interaction: discord.Interaction, table_id: str, version: int, code: str
    ) -> None: ...


def _handler(interaction: discord.Interaction) -> ClickHandler | None:
    return getattr(interaction.client, "turns", None)


async def _dispatch(interaction: discord.Interaction, table_id: str, version: int, code: str):
    handler = _handler(interaction)
    if handler is None:
        await interaction.response.send_message(NOT_READY, ephemeral=True)
        return
    await handler.handle_click(interaction, table_id, version, code)


class GameButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=BUTTON_TEMPLATE):
    """A button whose custom_id is ``ft:<table>:<version>:<code>``."""

    def __init__(
        self,
        table_id: str,
        version: int,
        code: str,
        *,
        label: str | None = None,
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        emoji: str | None = None,
        disabled: bool = False,
        row: int | None = None,
    ) -> None:
        self.ident = ButtonId(table_id, version, code)
        super().__init__(
            discord.ui.Button(
                label=label,
                style=style,
                emoji=emoji,
                disabled=disabled,
                row=row,
                custom_id=self.ident.custom_id,
            )
        )

    @classmethod
    def from_choice(cls, choice: Choice, table_id: str, version: int) -> GameButton:
        return cls(
            table_id,
            version,
            choice.code,
            label=choice.label[:80],
            style=_STYLES[choice.style],
            emoji=choice.emoji,
            disabled=choice.disabled,
            row=choice.row,
        )

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Button[Any],
        match: re.Match[str],
        /,
    ) -> GameButton:
        # A select can carry an ft: id too (a forged or mistaken one): it has no label.
        return cls(match["table"], int(match["version"]), match["code"],
                   label=getattr(item, "label", None))

    async def callback(self, interaction: discord.Interaction) -> None:
        await _dispatch(interaction, self.ident.table_id, self.ident.version, self.ident.code)


class GameSelect(discord.ui.DynamicItem[discord.ui.Select[Any]], template=SELECT_TEMPLATE):
    """A select whose custom_id is ``fs:<table>:<version>:<menu code>``; the chosen
    option's value is the action code."""

    def __init__(
        self,
        table_id: str,
        version: int,
        code: str,
        *,
        options: list[discord.SelectOption] | None = None,
        placeholder: str | None = None,
        row: int | None = None,
    ) -> None:
        self.ident = SelectId(table_id, version, code)
        super().__init__(
            discord.ui.Select(
                custom_id=self.ident.custom_id,
                options=options or [discord.SelectOption(label="…", value="none")],
                placeholder=placeholder,
                min_values=1,
                max_values=1,
                row=row,
            )
        )

    @classmethod
    def from_menu(cls, menu: Menu, table_id: str, version: int) -> GameSelect:
        options = [
            discord.SelectOption(
                label=c.label[:100],
                value=c.code,
                emoji=c.emoji,
                description=(c.description or None) and c.description[:100],
            )
            for c in menu.choices
            if not c.disabled
        ]
        return cls(table_id, version, menu.select_code, options=options,
                   placeholder=menu.placeholder[:150])

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Select[Any],
        match: re.Match[str],
        /,
    ) -> GameSelect:
        return cls(match["table"], int(match["version"]), match["code"])

    async def callback(self, interaction: discord.Interaction) -> None:
        values = (interaction.data or {}).get("values") or []  # type: ignore[union-attr]
        if len(values) != 1:
            await interaction.response.send_message("Pick exactly one option.", ephemeral=True)
            return
        await _dispatch(interaction, self.ident.table_id, self.ident.version, str(values[0]))


def build_view(menu: Menu | None, table_id: str, version: int) -> discord.ui.View | None:
    """A persistent view (no timeout) holding the menu's buttons, or its select (and
    the buttons under it)."""
    if menu is None or not menu.choices:
        return None
    view = discord.ui.View(timeout=None)
    if menu.as_select:
        view.add_item(GameSelect.from_menu(menu, table_id, version))
        for index, choice in enumerate(menu.buttons):
            button = GameButton.from_choice(choice, table_id, version)
            button.item.row = 1 + index // 5
            view.add_item(button)
        return view
    for index, choice in enumerate(menu.choices):
        button = GameButton.from_choice(choice, table_id, version)
        if choice.row is None:
            button.item.row = index // 5
        view.add_item(button)
    return view


def build_panel(menus: list[Menu], table_id: str, version: int) -> discord.ui.View | None:
    """Several menus as one message's components: one row each (buttons or a select),
    five rows at most (a hand message's choices)."""
    view = discord.ui.View(timeout=None)
    for row, menu in enumerate(menus[:5]):
        if not menu.choices:
            continue
        if menu.as_select:
            select = GameSelect.from_menu(menu, table_id, version)
            select.item.row = row
            view.add_item(select)
            continue
        for choice in menu.choices[:5]:
            button = GameButton.from_choice(choice, table_id, version)
            button.item.row = row
            view.add_item(button)
    return view if view.children else None
