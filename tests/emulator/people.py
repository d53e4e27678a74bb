"""Simulated people: what a Discord user can do and see, and nothing more.

A :class:`Person` types slash commands (built from the command schema the bot synced, so a
command or option the bot never registered fails the test), clicks buttons that are on a
message they can see, picks from selects, fills in the modal the bot opened for them, and
reads their DMs and the ephemeral replies only they can see.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tests.emulator.models import (
    APPLICATION_COMMAND,
    AUTOCOMPLETE,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
    Channel,
    Interaction,
    Message,
    User,
    walk_components,
)

if TYPE_CHECKING:
    from tests.emulator.server import Emulator

STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE, MENTIONABLE, NUMBER = 3, 4, 5, 6, 7, 8, 9, 10


class CannotDoThat(AssertionError):
    """The Discord client would not let a person do this (no such command, disabled button,
    a message they cannot see, a value outside the choices...)."""


class Person:
    def __init__(self, emu: Emulator, user: User) -> None:
        self.emu = emu
        self.user = user

    def __repr__(self) -> str:
        return f"<Person {self.user.name} {self.user.id}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Person) and other.user is self.user

    def __hash__(self) -> int:
        return hash(self.user.id)

    @property
    def id(self) -> int:
        return self.user.id

    @property
    def name(self) -> str:
        return self.user.name

    @property
    def mention(self) -> str:
        return f"<@{self.user.id}>"

    # ---- what they see ---------------------------------------------------------------------

    @property
    def dm(self) -> Channel | None:
        return self.emu.dm_channel(self.user, create=False)

    def dm_messages(self) -> list[Message]:
        """Messages the bot sent this person by DM, oldest first."""
        return self.dm.visible if self.dm is not None else []

    def ephemerals(self, channel: Channel | None = None) -> list[Message]:
        """Ephemeral replies only this person sees (optionally in one channel), oldest first."""
        return [
            m
            for m in self.emu.ephemerals.get(self.user.id, [])
            if not m.deleted and (channel is None or m.channel_id == channel.id)
        ]

    def sees(self, message: Message) -> bool:
        if message.deleted:
            return False
        if message.ephemeral_for is not None:
            return message.ephemeral_for == self.user.id
        channel = self.emu.channels[message.channel_id]
        if channel.is_dm:
            return channel.recipient is self.user
        return True

    def close_dms(self) -> None:
        """Privacy setting "allow DMs from server members" off: the bot gets 403 / 50007."""
        self.user.dms_open = False

    def open_dms(self) -> None:
        self.user.dms_open = True

    @property
    def modal(self) -> dict[str, Any] | None:
        """The modal the bot has open on this person's screen, if any."""
        inter = self.emu.open_modals.get(self.user.id)
        return inter.modal if inter is not None else None

    # ---- slash commands --------------------------------------------------------------------

    def _channel(self, channel: Channel | None) -> Channel:
        return channel if channel is not None else self.emu.channel

    def _find_command(self, parts: list[str], channel: Channel) -> dict[str, Any]:
        guild = self.emu.guilds.get(channel.guild_id) if channel.guild_id else None
        candidates = [
            c for c in self.emu.commands(guild) if c.get("type", 1) == 1 and c["name"] == parts[0]
        ]
        if guild is not None:  # a guild command shadows the global one of the same name
            candidates.sort(key=lambda c: "guild_id" not in c)
        if not candidates:
            known = sorted({c["name"] for c in self.emu.commands(guild)})
            raise CannotDoThat(f"no /{parts[0]} command is synced here (synced: {known})")
        cmd = candidates[0]
        if channel.is_dm:
            contexts = cmd.get("contexts")
            if (contexts is not None and 1 not in contexts) or cmd.get("dm_permission") is False:
                raise CannotDoThat(f"/{parts[0]} is not available in DMs")
        perms = cmd.get("default_member_permissions")
        if guild is not None and perms not in (None, "0"):
            owner = guild.owner_id == self.user.id
            if not owner and (int(perms) & self.user.permissions) != int(perms):
                raise CannotDoThat(f"{self.name} lacks the permissions /{parts[0]} requires")
        return cmd

    def _command_data(
        self, command: str, channel: Channel, given: dict[str, Any], focus: str | None = None
    ) -> tuple[dict[str, Any], str]:
        parts = command.lstrip("/").split()
        if not parts:
            raise CannotDoThat("empty command")
        cmd = self._find_command(parts, channel)
        data: dict[str, Any] = {"id": cmd["id"], "name": cmd["name"], "type": 1}
        if "guild_id" in cmd:
            data["guild_id"] = cmd["guild_id"]
        node, container = cmd, data
        for part in parts[1:]:
            sub = next(
                (o for o in node.get("options") or [] if o["name"] == part and o["type"] in (1, 2)),
                None,
            )
            if sub is None:
                raise CannotDoThat(f"/{' '.join(parts)}: no subcommand {part!r}")
            entry: dict[str, Any] = {"name": part, "type": sub["type"], "options": []}
            container.setdefault("options", []).append(entry)
            node, container = sub, entry
        schema = node.get("options") or []
        if any(o["type"] in (1, 2) for o in schema):
            subs = [o["name"] for o in schema]
            raise CannotDoThat(f"/{' '.join(parts)} needs a subcommand: {subs}")
        by_name = {o["name"]: o for o in schema}
        resolved: dict[str, dict[str, Any]] = {}
        options = []
        for name, value in given.items():
            opt = by_name.get(name)
            if opt is None:
                raise CannotDoThat(
                    f"/{' '.join(parts)} has no option {name!r} (has {list(by_name)})"
                )
            if name == focus:
                options.append(
                    {"name": name, "type": opt["type"], "value": str(value), "focused": True}
                )
            else:
                options.append(
                    {
                        "name": name,
                        "type": opt["type"],
                        "value": self._convert(opt, value, resolved, channel),
                    }
                )
        if focus is None:
            missing = [o["name"] for o in schema if o.get("required") and o["name"] not in given]
            if missing:
                raise CannotDoThat(f"/{' '.join(parts)}: required options missing: {missing}")
        elif focus not in by_name or not by_name[focus].get("autocomplete"):
            raise CannotDoThat(f"option {focus!r} of /{' '.join(parts)} has no autocomplete")
        container["options"] = options
        if resolved:
            data["resolved"] = resolved
        return data, " ".join(parts)

    def _convert(
        self, opt: dict[str, Any], value: Any, resolved: dict[str, dict[str, Any]], channel: Channel
    ) -> Any:
        t, name = opt["type"], opt["name"]
        if isinstance(value, Person):
            value = value.user
        if t == STRING:
            value = str(value)
            if not opt.get("min_length", 0) <= len(value) <= opt.get("max_length", 6000):
                raise CannotDoThat(f"{name}: length out of range")
        elif t == INTEGER:
            value = int(value)
        elif t == NUMBER:
            value = float(value)
        elif t == BOOLEAN:
            value = bool(value)
        elif t in (USER, MENTIONABLE):
            if not isinstance(value, User):
                raise CannotDoThat(f"{name}: pick a member (a Person)")
            resolved.setdefault("users", {})[str(value.id)] = value.to_api()
            guild = self.emu.guilds.get(channel.guild_id) if channel.guild_id else None
            if guild is not None:
                member = value.member_api(guild)
                member.pop("user")
                resolved.setdefault("members", {})[str(value.id)] = member
            return str(value.id)
        elif t == CHANNEL:
            if not isinstance(value, Channel):
                raise CannotDoThat(f"{name}: pick a channel")
            resolved.setdefault("channels", {})[str(value.id)] = {
                **value.to_api(),
                "permissions": str((1 << 41) - 1),
            }
            return str(value.id)
        elif t == ROLE:
            return str(value)
        if t in (INTEGER, NUMBER):
            lo, hi = opt.get("min_value"), opt.get("max_value")
            if (lo is not None and value < lo) or (hi is not None and value > hi):
                raise CannotDoThat(f"{name}: {value} is outside [{lo}, {hi}]")
        choices = opt.get("choices")
        if choices:
            for c in choices:
                if value == c["value"] or value == c["name"]:
                    return c["value"]
            raise CannotDoThat(f"{name}: {value!r} is not one of {[c['value'] for c in choices]}")
        return value

    async def slash(
        self,
        command: str,
        *,
        channel: Channel | None = None,
        wait: bool = True,
        expect_response: bool = True,
        settle: bool = True,
        options: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> Interaction:
        """Run ``/command sub`` with options (kwargs, or ``options=`` for hyphenated names).
        Waits for the bot's answer and for it to go quiet; returns the interaction."""
        channel = self._channel(channel)
        data, name = self._command_data(command, channel, {**(options or {}), **kwargs})
        inter = self.emu.start_interaction(self.user, channel, APPLICATION_COMMAND, data, name=name)
        return await self.emu.finish(
            inter, wait=wait, expect_response=expect_response, settle=settle
        )

    async def autocomplete(
        self,
        command: str,
        focus: str,
        typed: str = "",
        *,
        channel: Channel | None = None,
        **others: Any,
    ) -> list[dict[str, Any]]:
        """Type ``typed`` into option ``focus``; returns the choices the bot suggests."""
        channel = self._channel(channel)
        given = {**others, focus: typed}
        data, name = self._command_data(command, channel, given, focus=focus)
        inter = self.emu.start_interaction(self.user, channel, AUTOCOMPLETE, data, name=name)
        await self.emu.finish(inter)
        return inter.choices or []

    # ---- components ------------------------------------------------------------------------

    def _visible(self, message: Message) -> Message:
        if not self.sees(message):
            raise CannotDoThat(f"{self.name} cannot see {message!r}")
        return message

    async def click(
        self,
        message: Message,
        label: str | None = None,
        *,
        custom_id: str | None = None,
        index: int | None = None,
        force: bool = False,
        wait: bool = True,
        expect_response: bool = True,
        settle: bool = True,
    ) -> Interaction:
        """Click a button (by label, emoji, custom_id or position) on a visible message.
        ``force`` sends a custom_id that is no longer displayed (an outdated client)."""
        self._visible(message)
        if force:
            if custom_id is None:
                raise CannotDoThat("force=True needs a custom_id")
        else:
            buttons = message.buttons
            if index is not None:
                button = buttons[index]
            else:
                button = message.button(label, custom_id=custom_id)
            if button.disabled:
                raise CannotDoThat(f"{button!r} is disabled")
            if button.custom_id is None:
                raise CannotDoThat(f"{button!r} is a link, not an interaction")
            custom_id = button.custom_id
        data = {"custom_id": custom_id, "component_type": 2}
        channel = self.emu.channels[message.channel_id]
        inter = self.emu.start_interaction(
            self.user, channel, MESSAGE_COMPONENT, data, message=message, name=custom_id
        )
        return await self.emu.finish(
            inter, wait=wait, expect_response=expect_response, settle=settle
        )

    async def select(
        self,
        message: Message,
        values: list[str] | str,
        *,
        custom_id: str | None = None,
        by_label: bool = False,
        wait: bool = True,
        expect_response: bool = True,
        settle: bool = True,
    ) -> Interaction:
        """Pick option values (or labels, with ``by_label``) in a select menu."""
        self._visible(message)
        values = [values] if isinstance(values, str) else list(values)
        selects = [s for s in message.selects if custom_id is None or s.custom_id == custom_id]
        if not selects:
            raise CannotDoThat(f"no select {custom_id!r} on {message!r}")
        sel = selects[0]
        if sel.disabled:
            raise CannotDoThat(f"select {sel.custom_id!r} is disabled")
        if sel.type == 3:
            if by_label:
                mapping = {o["label"]: o["value"] for o in sel.options}
                if any(v not in mapping for v in values):
                    raise CannotDoThat(f"{values} not all in {list(mapping)}")
                values = [mapping[v] for v in values]
            elif any(v not in sel.values for v in values):
                raise CannotDoThat(f"{values} not all in {sel.values}")
        if not sel.min_values <= len(values) <= sel.max_values:
            raise CannotDoThat(f"pick {sel.min_values}..{sel.max_values} values")
        data = {"custom_id": sel.custom_id, "component_type": sel.type, "values": values}
        channel = self.emu.channels[message.channel_id]
        inter = self.emu.start_interaction(
            self.user, channel, MESSAGE_COMPONENT, data, message=message, name=sel.custom_id
        )
        return await self.emu.finish(
            inter, wait=wait, expect_response=expect_response, settle=settle
        )

    async def submit_modal(
        self,
        values: dict[str, str] | None = None,
        *,
        wait: bool = True,
        expect_response: bool = True,
        settle: bool = True,
        **kwargs: str,
    ) -> Interaction:
        """Fill in the open modal (fields by custom_id or label) and press Submit."""
        opener = self.emu.open_modals.pop(self.user.id, None)
        if opener is None or opener.modal is None:
            raise CannotDoThat(f"{self.name} has no modal open")
        given = {**(values or {}), **kwargs}
        used: set[str] = set()
        components = []
        for comp in opener.modal.get("components") or []:
            if comp.get("type") == 1:
                field, label = comp["components"][0], comp["components"][0].get("label")
            elif comp.get("type") == 18:
                field, label = comp["component"], comp.get("label")
            else:
                continue
            cid = field["custom_id"]
            key = cid if cid in given else label if label in given else None
            if field.get("type") == 4:
                value = str(given[key]) if key is not None else field.get("value") or ""
                if key is not None:
                    used.add(key)
                lo = field.get("min_length", 0)
                hi = field.get("max_length", 4000)
                if field.get("required", True) and not value:
                    raise CannotDoThat(f"modal field {label or cid!r} is required")
                if value and not lo <= len(value) <= hi:
                    raise CannotDoThat(
                        f"modal field {label or cid!r}: length {len(value)} outside {lo}..{hi}"
                    )
                components.append(_wrap(comp, {"type": 4, "custom_id": cid, "value": value}))
            else:
                picked = given.get(key, []) if key is not None else []
                if key is not None:
                    used.add(key)
                picked = [picked] if isinstance(picked, str) else list(picked)
                answer = {"type": field["type"], "custom_id": cid, "values": picked}
                components.append(_wrap(comp, answer))
        unknown = set(given) - used
        if unknown:
            raise CannotDoThat(f"the modal has no fields {sorted(unknown)}")
        data = {"custom_id": opener.modal["custom_id"], "components": components}
        message = opener.message if opener.type == MESSAGE_COMPONENT else None
        inter = self.emu.start_interaction(
            self.user,
            opener.channel,
            MODAL_SUBMIT,
            data,
            message=message,
            name=opener.modal["custom_id"],
        )
        return await self.emu.finish(
            inter, wait=wait, expect_response=expect_response, settle=settle
        )

    def dismiss_modal(self) -> None:
        """Close the modal without submitting (Discord tells the bot nothing)."""
        self.emu.open_modals.pop(self.user.id, None)


def _wrap(layout: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
    """A modal-submit answer in the same layout as the modal's component (row or label)."""
    if layout.get("type") == 1:
        return {"type": 1, "components": [answer]}
    return {"type": 18, "id": layout.get("id", 0), "component": answer}


def modal_fields(modal: dict[str, Any]) -> list[dict[str, Any]]:
    """The input fields of a modal payload, whatever its layout."""
    return [
        c
        for c in walk_components(modal.get("components") or [])
        if c.get("type") == 4 or ("custom_id" in c and c.get("type") != 18)
    ]
