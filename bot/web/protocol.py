"""The Activity's HTTP and WebSocket contract: what the browser client sends and gets.

The browser client (``bot/web/client/``, built into ``bot/web/static/``) relies on this
contract exactly; change both together.

HTTP (every response carries the security headers of :mod:`bot.web.security`)::

    GET  /                 bot/web/static/index.html (a page saying the client is not
                           built, while it is not)
    GET  /static/{path}    a file under bot/web/static/ (no path leaves that folder)
    GET  /api/config       {"client_id": "<the application's OAuth2 client id>"}
    POST /api/token        {"code": "<the authorize() code>"}
                           -> {"access_token": "..."}; the server exchanges the code at
                           Discord's OAuth2 token endpoint with the client secret, which
                           never leaves the server. Origin checked.
    POST /api/session      Authorization: Bearer <access_token>
                           {"channel_id": "<snowflake>", "guild_id": "<snowflake>"|null}
                           -> {"session": "<opaque>", "user": {"id": "...", "name": "..."}}
                           The server reads the user from Discord's /users/@me with that
                           token; the session is the server's own (HMAC-signed user id,
                           name, channel and expiry: valid in every process that has the
                           same key), bound to that channel. Origin checked.

Errors of the HTTP API: ``{"error": "<words for a person>"}`` with 400 (a bad request),
401 (no or a bad token), 403 (origin, or a channel the user cannot see), 413 (too large),
429 (too many) or 502 (Discord did not answer as it should).

WebSocket ``GET /api/ws`` (Origin checked), JSON text frames. The client's first message
(the session never goes in a URL, so it never reaches an access log)::

    {"type": "hello", "session": "...", "channel_id": "<snowflake>", "version": <int|null>}

Server -> client::

    {"type": "state", "game": "<game id>",
     "table": {"id": "...", "status": "lobby|playing|finished|aborted",
               "seats": [{"index": 0, "name": "Ann", "ai": false, "you": true}, ...]},
     "version": n, "seat": <your seat index|null>,
     "view": <your seat's own view, or the public view; null before the start>,
     "menus": [{"title": "...", "choices": [{"label": "...", "code": "...",
                "style": "primary|secondary|success|danger", "disabled": false}]}],
     "lines": ["<the public news lines of the commit>", ...]}
    {"type": "no_table", "text": "<how to open one: /table new ...>"}
    {"type": "menu", "id": k, "menu": {...}}       a follow-up step of a guided choice
                                                   (Take back where the adapter has it)
    {"type": "form", "id": k, "code": "...", "title": "..."}
                                                   the choice asks for words: send the
                                                   same choose again with "text"
    {"type": "refused", "id": k, "text": "<the refusal, in the words Discord uses>"}
    {"type": "error", "text": "..."}               a bad message, a limit; nothing done

Client -> server::

    {"type": "choose", "id": k, "version": n, "code": "<a choice's code>"}
    {"type": "choose", "id": k, "version": n, "code": "...", "text": "<words>"}
    {"type": "resync"}

A ``choose`` is played through ``TableService.choose`` exactly as a Discord click (the
same checks, refusals and guided steps); a stale version is refused with the words a
stale button gets. Every commit of the table (a move made here or on Discord, an AI's,
a timer's, a lobby change) reaches every viewer of it in version order with their own
view; a viewer who fell behind gets the latest state instead of the ones it missed.
``menus`` are the viewer's own choices of the moment (empty for a spectator and for a
seat that is not to act). ``lines`` are empty in a state sent on hello or resync.

Closing: a socket refused for its session, its channel or the limit of sockets gets an
``error`` and then close code 4403 (open the Activity again); a server that stops closes
every socket with 1001 (going away: reconnect and say hello again, with the version
shown, to get the latest state).

Limits per session: a message is at most :data:`MAX_MESSAGE_BYTES`; at most
:data:`RATE_PER_SECOND` messages a second (a burst of as many), more are refused with an
``error``; at most :data:`MAX_SOCKETS_PER_USER` sockets per person.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter

from bot.core.choices.adapter import Choice, Menu

__all__ = [
    "MAX_MESSAGE_BYTES",
    "MAX_SOCKETS_PER_USER",
    "MAX_TEXT",
    "RATE_PER_SECOND",
    "ChooseMessage",
    "ClientMessage",
    "HelloMessage",
    "ResyncMessage",
    "SessionRequest",
    "TokenRequest",
    "dumps",
    "error",
    "form",
    "menu_data",
    "menu_message",
    "no_table",
    "parse_client",
    "refused",
]

MAX_MESSAGE_BYTES = 8192
"""A client message's largest size: a passage of :data:`MAX_TEXT` characters (Discord's
form takes as many) in any script, with room to spare; every other message is tiny."""
MAX_TEXT = 1800
RATE_PER_SECOND = 20.0
MAX_SOCKETS_PER_USER = 6
"""Sockets one person may hold at once (tabs, a phone and a computer)."""

Snowflake = Annotated[str, StringConstraints(pattern=r"^[0-9]{1,20}$")]
Code = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_.=+-]{1,40}$")]
"""A choice's code: the same alphabet and length as a Discord custom_id's code."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TokenRequest(_Strict):
    code: Annotated[str, StringConstraints(min_length=1, max_length=512)]


class SessionRequest(_Strict):
    channel_id: Snowflake
    guild_id: Snowflake | None = None


class HelloMessage(_Strict):
    type: Literal["hello"]
    session: Annotated[str, StringConstraints(min_length=1, max_length=1024)]
    channel_id: Snowflake
    version: Annotated[int, Field(ge=0, lt=2**31)] | None = None


class ChooseMessage(_Strict):
    type: Literal["choose"]
    id: Annotated[int, Field(ge=0, lt=2**53)]
    version: Annotated[int, Field(ge=0, lt=2**31)]
    code: Code
    text: Annotated[str, StringConstraints(max_length=MAX_TEXT)] | None = None


class ResyncMessage(_Strict):
    type: Literal["resync"]


ClientMessage = Annotated[HelloMessage | ChooseMessage | ResyncMessage,
                          Field(discriminator="type")]
_CLIENT: TypeAdapter[HelloMessage | ChooseMessage | ResyncMessage] = TypeAdapter(ClientMessage)


class BadMessage(ValueError):
    """A client message that is not one of the shapes above (words for the client)."""


def parse_client(raw: str) -> HelloMessage | ChooseMessage | ResyncMessage:
    """One client message, validated; raises :class:`BadMessage` saying what is wrong
    (never echoing the message, which may hold a session)."""
    try:
        data = json.loads(raw)
    except ValueError:
        raise BadMessage("That message is not JSON; nothing was done.") from None
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise BadMessage("A message is a JSON object with a type; nothing was done.")
    try:
        return _CLIENT.validate_python(data)
    except ValueError as exc:
        fields = sorted({".".join(str(p) for p in err.get("loc", ())[1:]) or "type"
                         for err in getattr(exc, "errors", list)()})
        raise BadMessage(f"That {str(data['type'])[:20]!r} message is not valid "
                         f"({', '.join(fields)[:120]}); nothing was done.") from None


# -- server -> client -------------------------------------------------------------------


def dumps(message: dict[str, Any]) -> str:
    """A message as the one JSON text frame it is sent as."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


def _choice(choice: Choice) -> dict[str, Any]:
    return {"label": choice.label, "code": choice.code, "style": choice.style,
            "disabled": choice.disabled}


def menu_data(menu: Menu) -> dict[str, Any]:
    """A menu of the game's choice adapter as the browser shows it: its title and every
    choice (those a Discord select would hold, then the buttons under it)."""
    return {"title": menu.prompt or menu.placeholder,
            "choices": [_choice(c) for c in (*menu.choices, *menu.buttons)]}


def menu_message(request_id: int, menu: Menu) -> dict[str, Any]:
    return {"type": "menu", "id": request_id, "menu": menu_data(menu)}


def form(request_id: int, code: str, title: str) -> dict[str, Any]:
    return {"type": "form", "id": request_id, "code": code, "title": title}


def refused(request_id: int | None, text: str) -> dict[str, Any]:
    return {"type": "refused", "id": request_id, "text": text}


def error(text: str) -> dict[str, Any]:
    return {"type": "error", "text": text}


def no_table(text: str) -> dict[str, Any]:
    return {"type": "no_table", "text": text}
