"""Discord's documented payload limits and JSON error codes, enforced by the emulator.

Every check raises :class:`ApiError` with the HTTP status and the JSON error code Discord
answers with, so a payload that Discord would refuse fails in the emulator the same way
(and discord.py raises the same ``HTTPException`` subclass with the same ``code``).

>>> try:
...     validate_message({"content": "x" * 2001}, [], where="channel")
... except ApiError as exc:
...     (exc.status, exc.code)
(400, 50035)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Error codes (https://discord.com/developers/docs/topics/opcodes-and-status-codes).
UNKNOWN_CHANNEL = 10003
UNKNOWN_MESSAGE = 10008
UNKNOWN_USER = 10013
UNKNOWN_WEBHOOK = 10015
UNKNOWN_APPLICATION_COMMAND = 10063
UNKNOWN_INTERACTION = 10062
MISSING_ACCESS = 50001
CANNOT_SEND_EMPTY_MESSAGE = 50006
CANNOT_SEND_TO_USER = 50007
CANNOT_EDIT_OTHERS_MESSAGE = 50005
MISSING_PERMISSIONS = 50013
INVALID_WEBHOOK_TOKEN = 50027
INVALID_FORM_BODY = 50035
REQUEST_ENTITY_TOO_LARGE = 40005
ALREADY_ACKNOWLEDGED = 40060

# Limits (https://discord.com/developers/docs/resources/message, .../interactions).
CONTENT_MAX = 2000
EMBEDS_MAX = 10
EMBED_TITLE_MAX = 256
EMBED_DESCRIPTION_MAX = 4096
EMBED_FIELDS_MAX = 25
EMBED_FIELD_NAME_MAX = 256
EMBED_FIELD_VALUE_MAX = 1024
EMBED_FOOTER_MAX = 2048
EMBED_AUTHOR_MAX = 256
EMBED_TOTAL_MAX = 6000
ACTION_ROWS_MAX = 5
BUTTONS_PER_ROW_MAX = 5
SELECT_OPTIONS_MAX = 25
CUSTOM_ID_MAX = 100
BUTTON_LABEL_MAX = 80
SELECT_PLACEHOLDER_MAX = 150
SELECT_OPTION_TEXT_MAX = 100
V2_COMPONENTS_MAX = 40
ATTACHMENT_MAX_BYTES = 10 * 1024 * 1024
ATTACHMENTS_MAX = 10
MODAL_TITLE_MAX = 45
MODAL_COMPONENTS_MAX = 5
TEXT_INPUT_LABEL_MAX = 45
TEXT_INPUT_VALUE_MAX = 4000
AUTOCOMPLETE_CHOICES_MAX = 25

FLAG_SUPPRESS_EMBEDS = 1 << 2
FLAG_EPHEMERAL = 1 << 6
FLAG_LOADING = 1 << 7
FLAG_SUPPRESS_NOTIFICATIONS = 1 << 12
FLAG_COMPONENTS_V2 = 1 << 15
CHANNEL_FLAGS_ALLOWED = FLAG_SUPPRESS_EMBEDS | FLAG_SUPPRESS_NOTIFICATIONS | FLAG_COMPONENTS_V2
INTERACTION_FLAGS_ALLOWED = CHANNEL_FLAGS_ALLOWED | FLAG_EPHEMERAL

BUTTON = 2
SELECT_TYPES = {3, 5, 6, 7, 8}
TEXT_INPUT = 4


@dataclass
class ApiError(Exception):
    """An error answer: HTTP status, Discord JSON code, message and the offending field."""

    status: int
    code: int
    message: str
    path: str = ""
    detail: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        where = f" at {self.path}" if self.path else ""
        why = f": {self.detail}" if self.detail else ""
        return f"{self.status} (code {self.code}) {self.message}{where}{why}"

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"code": self.code, "message": self.message, **self.extra}
        if self.path:
            # Discord nests field errors by path; discord.py flattens them into its message.
            node: dict[str, Any] = {"_errors": [{"code": "INVALID", "message": self.detail}]}
            for part in reversed(self.path.split(".")):
                node = {part: node}
            body["errors"] = node
        return body


def form_error(path: str, detail: str) -> ApiError:
    """The 400 / 50035 "Invalid Form Body" answer for one field."""
    return ApiError(400, INVALID_FORM_BODY, "Invalid Form Body", path, detail)


def _length(value: Any, path: str, maximum: int, minimum: int = 0) -> None:
    if value is None:
        if minimum:
            raise form_error(path, "This field is required")
        return
    if not isinstance(value, str):
        raise form_error(path, "Must be a string")
    if not minimum <= len(value) <= maximum:
        raise form_error(path, f"Must be between {minimum} and {maximum} in length.")


def validate_embeds(embeds: Any) -> None:
    """Embed limits, including the 6000-character total across all embeds of a message."""
    if embeds is None:
        return
    if not isinstance(embeds, list):
        raise form_error("embeds", "Must be an array")
    if len(embeds) > EMBEDS_MAX:
        raise form_error("embeds", f"Must be {EMBEDS_MAX} or fewer in length.")
    total = 0
    for i, embed in enumerate(embeds):
        p = f"embeds.{i}"
        _length(embed.get("title"), f"{p}.title", EMBED_TITLE_MAX)
        _length(embed.get("description"), f"{p}.description", EMBED_DESCRIPTION_MAX)
        total += len(embed.get("title") or "") + len(embed.get("description") or "")
        fields = embed.get("fields") or []
        if len(fields) > EMBED_FIELDS_MAX:
            raise form_error(f"{p}.fields", f"Must be {EMBED_FIELDS_MAX} or fewer in length.")
        for j, fld in enumerate(fields):
            _length(fld.get("name"), f"{p}.fields.{j}.name", EMBED_FIELD_NAME_MAX, 1)
            _length(fld.get("value"), f"{p}.fields.{j}.value", EMBED_FIELD_VALUE_MAX, 1)
            total += len(fld["name"]) + len(fld["value"])
        footer = embed.get("footer")
        if footer:
            _length(footer.get("text"), f"{p}.footer.text", EMBED_FOOTER_MAX, 1)
            total += len(footer["text"])
        author = embed.get("author")
        if author:
            _length(author.get("name"), f"{p}.author.name", EMBED_AUTHOR_MAX, 1)
            total += len(author["name"])
    if total > EMBED_TOTAL_MAX:
        raise form_error("embeds", f"Embed size exceeds maximum size of {EMBED_TOTAL_MAX}")


def _custom_id(value: Any, path: str, seen: set[str]) -> None:
    _length(value, path, CUSTOM_ID_MAX, 1)
    if value in seen:
        raise form_error(path, "Component custom id cannot be duplicated")
    seen.add(value)


def _button(button: dict[str, Any], path: str, seen: set[str]) -> None:
    style = button.get("style")
    if style not in (1, 2, 3, 4, 5, 6):
        raise form_error(f"{path}.style", "Value must be one of (1, 2, 3, 4, 5, 6).")
    _length(button.get("label"), f"{path}.label", BUTTON_LABEL_MAX)
    if not button.get("label") and not button.get("emoji"):
        raise form_error(path, "A button needs a label or an emoji")
    if style == 5:
        if not button.get("url") or "custom_id" in button:
            raise form_error(path, "A link button has a url and no custom_id")
    elif style == 6:
        if not button.get("sku_id"):
            raise form_error(f"{path}.sku_id", "This field is required")
    else:
        if button.get("url"):
            raise form_error(f"{path}.url", "Only link buttons have a url")
        _custom_id(button.get("custom_id"), f"{path}.custom_id", seen)


def _select(select: dict[str, Any], path: str, seen: set[str]) -> None:
    _custom_id(select.get("custom_id"), f"{path}.custom_id", seen)
    _length(select.get("placeholder"), f"{path}.placeholder", SELECT_PLACEHOLDER_MAX)
    lo, hi = select.get("min_values", 1), select.get("max_values", 1)
    if not (0 <= lo <= 25 and 1 <= hi <= 25 and lo <= hi):
        raise form_error(f"{path}.max_values", "min_values/max_values out of range")
    if select.get("type") == 3:
        options = select.get("options") or []
        if not 1 <= len(options) <= SELECT_OPTIONS_MAX:
            raise form_error(
                f"{path}.options", f"Must be between 1 and {SELECT_OPTIONS_MAX} in length."
            )
        if hi > len(options):
            raise form_error(f"{path}.max_values", "max_values exceeds the number of options")
        values: set[str] = set()
        for k, opt in enumerate(options):
            _length(opt.get("label"), f"{path}.options.{k}.label", SELECT_OPTION_TEXT_MAX, 1)
            _length(opt.get("value"), f"{path}.options.{k}.value", SELECT_OPTION_TEXT_MAX, 1)
            _length(
                opt.get("description"), f"{path}.options.{k}.description", SELECT_OPTION_TEXT_MAX
            )
            if opt["value"] in values:
                raise form_error(f"{path}.options.{k}.value", "Select option values must be unique")
            values.add(opt["value"])


def _v2(components: list[dict[str, Any]], path: str, seen: set[str], count: list[int]) -> None:
    """Components v2 layouts: check the interactive leaves and the 40-component total."""
    for i, comp in enumerate(components):
        p = f"{path}.{i}"
        count[0] += 1
        t = comp.get("type")
        if t == BUTTON:
            _button(comp, p, seen)
        elif t in SELECT_TYPES:
            _select(comp, p, seen)
        for key in ("components", "items"):
            if isinstance(comp.get(key), list):
                _v2(comp[key], f"{p}.{key}", seen, count)
        if isinstance(comp.get("accessory"), dict):
            _v2([comp["accessory"]], f"{p}.accessory", seen, count)
    if count[0] > V2_COMPONENTS_MAX:
        raise form_error("components", f"Must be {V2_COMPONENTS_MAX} or fewer in total.")


def validate_components(components: Any, flags: int) -> None:
    """Action rows (<=5), buttons (<=5 per row) or one select (<=25 options), custom_ids."""
    if components is None:
        return
    if not isinstance(components, list):
        raise form_error("components", "Must be an array")
    seen: set[str] = set()
    if flags & FLAG_COMPONENTS_V2:
        _v2(components, "components", seen, [0])
        return
    if len(components) > ACTION_ROWS_MAX:
        raise form_error("components", f"Must be {ACTION_ROWS_MAX} or fewer in length.")
    for i, row in enumerate(components):
        p = f"components.{i}"
        if row.get("type") != 1:
            raise form_error(f"{p}.type", "Top-level components must be action rows")
        children = row.get("components") or []
        if not 1 <= len(children) <= BUTTONS_PER_ROW_MAX:
            raise form_error(f"{p}.components", "Must be between 1 and 5 in length.")
        selects = [c for c in children if c.get("type") in SELECT_TYPES]
        if selects and len(children) != 1:
            raise form_error(f"{p}.components", "A select menu must be alone in its action row")
        for j, child in enumerate(children):
            cp = f"{p}.components.{j}"
            if child.get("type") == BUTTON:
                _button(child, cp, seen)
            elif child.get("type") in SELECT_TYPES:
                _select(child, cp, seen)
            else:
                raise form_error(f"{cp}.type", "Action rows hold buttons or one select menu")


def validate_flags(flags: Any, where: str) -> int:
    """Message flags a sender may set; EPHEMERAL only on interaction responses and followups."""
    flags = int(flags or 0)
    allowed = CHANNEL_FLAGS_ALLOWED if where == "channel" else INTERACTION_FLAGS_ALLOWED
    if flags & ~allowed:
        raise form_error("flags", f"Invalid flags {flags} for a {where} message")
    return flags


def validate_files(files: list[tuple[str, bytes]]) -> None:
    if len(files) > ATTACHMENTS_MAX:
        raise form_error("files", f"Must be {ATTACHMENTS_MAX} or fewer in length.")
    for _name, data in files:
        if len(data) > ATTACHMENT_MAX_BYTES:
            raise ApiError(413, REQUEST_ENTITY_TOO_LARGE, "Request entity too large")


def validate_message(
    payload: dict[str, Any], files: list[tuple[str, bytes]], *, where: str, edit: bool = False
) -> int:
    """Check a message create/edit payload; returns its flags. ``where``: channel|interaction."""
    content = payload.get("content")
    if content is not None:
        if not isinstance(content, str):
            raise form_error("content", "Must be a string")
        if len(content) > CONTENT_MAX:
            raise form_error("content", f"Must be {CONTENT_MAX} or fewer in length.")
    flags = validate_flags(payload.get("flags"), where)
    validate_embeds(payload.get("embeds"))
    validate_components(payload.get("components"), flags)
    validate_files(files)
    if not edit and not (
        content
        or payload.get("embeds")
        or payload.get("components")
        or files
        or payload.get("sticker_ids")
        or payload.get("poll")
    ):
        raise ApiError(400, CANNOT_SEND_EMPTY_MESSAGE, "Cannot send an empty message")
    return flags


def _text_input(comp: dict[str, Any], path: str, seen: set[str], labelled: bool) -> None:
    _custom_id(comp.get("custom_id"), f"{path}.custom_id", seen)
    if comp.get("style") not in (1, 2):
        raise form_error(f"{path}.style", "Value must be one of (1, 2).")
    if not labelled:
        _length(comp.get("label"), f"{path}.label", TEXT_INPUT_LABEL_MAX, 1)
    _length(comp.get("value"), f"{path}.value", TEXT_INPUT_VALUE_MAX)
    _length(comp.get("placeholder"), f"{path}.placeholder", 100)
    lo, hi = comp.get("min_length", 0), comp.get("max_length", TEXT_INPUT_VALUE_MAX)
    if not (0 <= lo <= TEXT_INPUT_VALUE_MAX and 1 <= hi <= TEXT_INPUT_VALUE_MAX and lo <= hi):
        raise form_error(f"{path}.max_length", "min_length/max_length out of range")


def validate_modal(data: dict[str, Any]) -> None:
    """Modal: title <= 45, custom_id 1-100, 1-5 rows/labels each holding one input."""
    _length(data.get("title"), "data.title", MODAL_TITLE_MAX, 1)
    _length(data.get("custom_id"), "data.custom_id", CUSTOM_ID_MAX, 1)
    comps = data.get("components") or []
    if not 1 <= len(comps) <= MODAL_COMPONENTS_MAX:
        raise form_error("data.components", "Must be between 1 and 5 in length.")
    seen: set[str] = set()
    for i, comp in enumerate(comps):
        p = f"data.components.{i}"
        if comp.get("type") == 1:
            kids = comp.get("components") or []
            if len(kids) != 1 or kids[0].get("type") != TEXT_INPUT:
                raise form_error(p, "A modal action row holds exactly one text input")
            _text_input(kids[0], f"{p}.components.0", seen, labelled=False)
        elif comp.get("type") == 18:
            _length(comp.get("label"), f"{p}.label", TEXT_INPUT_LABEL_MAX, 1)
            inner = comp.get("component") or {}
            if inner.get("type") == TEXT_INPUT:
                _text_input(inner, f"{p}.component", seen, labelled=True)
            elif inner.get("type") in SELECT_TYPES:
                _select(inner, f"{p}.component", seen)
            else:
                _custom_id(inner.get("custom_id"), f"{p}.component.custom_id", seen)
        elif comp.get("type") != 10:  # 10 = text display, allowed as is
            raise form_error(f"{p}.type", "Modals hold action rows, labels or text displays")


def validate_choices(data: dict[str, Any]) -> None:
    choices = data.get("choices")
    if not isinstance(choices, list):
        raise form_error("data.choices", "This field is required")
    if len(choices) > AUTOCOMPLETE_CHOICES_MAX:
        raise form_error("data.choices", f"Must be {AUTOCOMPLETE_CHOICES_MAX} or fewer in length.")
    for i, choice in enumerate(choices):
        _length(choice.get("name"), f"data.choices.{i}.name", 100, 1)
        value = choice.get("value")
        if isinstance(value, str):
            _length(value, f"data.choices.{i}.value", 100)
        elif not isinstance(value, int | float):
            raise form_error(f"data.choices.{i}.value", "Must be a string or a number")
