"""The emulator checks every request against Discord's OpenAPI description (issue 24).

The checks run on the description as shipped in ``../shared/discord-api-spec/`` with the
documentation's corrections applied; the last tests send real HTTP requests to a running
emulator (a channel message, an interaction callback, a follow-up) and see the refusal
answered as Discord answers it and reported by ``assert_clean``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.emulator import Emulator
from tests.emulator.limits import INVALID_FORM_BODY
from tests.emulator.models import APPLICATION_COMMAND
from tests.emulator.schema import UnknownKeywordError, Validator, check_keywords
from tests.emulator.spec import (
    DOCUMENTATION_WINS,
    Correction,
    CorrectionMismatchError,
    Description,
    DescriptionMissingError,
    SpecViolation,
    apply_corrections,
    description,
    find_description,
)

JSON = "application/json"
MESSAGES = "/channels/111/messages"


def button(label: str = "Go", custom_id: str = "go", **extra: Any) -> dict[str, Any]:
    return {"type": 2, "style": 1, "label": label, "custom_id": custom_id, **extra}


def row(*children: dict[str, Any]) -> dict[str, Any]:
    return {"type": 1, "components": list(children)}


def refusal(
    method: str,
    path: str,
    body: Any = None,
    *,
    query: dict[str, str] | None = None,
    ctype: str = JSON,
    files: tuple[str, ...] = (),
) -> SpecViolation:
    with pytest.raises(SpecViolation) as info:
        description().check(method, path, query or {}, ctype, body, list(files))
    return info.value


def passes(
    method: str,
    path: str,
    body: Any = None,
    *,
    query: dict[str, str] | None = None,
    ctype: str = JSON,
    files: tuple[str, ...] = (),
) -> str:
    return description().check(method, path, query or {}, ctype, body, list(files)).operation_id


# ---- valid requests pass ---------------------------------------------------------------------


def test_valid_requests_of_each_kind_pass() -> None:
    message = {
        "content": "Your turn, @alice",
        "embeds": [
            {
                "title": "Fairy Tale Inn",
                "description": "Round 2",
                "color": 0x3366CC,
                "fields": [{"name": "Gold", "value": "3", "inline": True}],
                "footer": {"text": "seed 7"},
                "image": {"url": "attachment://board.png"},
                "timestamp": "2026-12-06T18:00:00+00:00",
            }
        ],
        "components": [row(button(), button("Pass", "pass", style=2, disabled=True))],
        # discord.py sends an attachment's id as its integer index (the documentation wins).
        "attachments": [{"id": 0, "filename": "board.png", "description": "the board"}],
        "allowed_mentions": {"parse": [], "users": ["222"]},
        "nonce": "12345",
        "enforce_nonce": True,
    }
    assert passes("POST", MESSAGES, message) == "create_message"
    assert passes("POST", MESSAGES, message, ctype="multipart/form-data", files=("files[0]",))
    assert passes("PATCH", f"{MESSAGES}/333", {"content": None, "components": []})
    assert passes("GET", MESSAGES, query={"limit": "50", "before": "999"}) == "list_messages"
    token = "/interactions/444/tok.abc/callback"
    assert passes("POST", token, {"type": 4, "data": {"content": "hi", "flags": 64}})
    assert passes("POST", token, {"type": 5, "data": {"flags": 64}}, query={"with_response": "1"})
    assert passes("POST", token, {"type": 6})
    assert passes("POST", token, {"type": 7, "data": {"components": [row(button())]}})
    assert passes(
        "POST",
        token,
        {
            "type": 9,
            "data": {
                "custom_id": "notes",
                "title": "Narrate",
                "components": [
                    row({"type": 4, "custom_id": "story", "style": 2, "label": "Story"})
                ],
            },
        },
    )
    assert passes("POST", token, {"type": 8, "data": {"choices": [{"name": "a", "value": "a"}]}})
    hook = "/webhooks/555/tok.abc"
    assert passes("POST", hook, {"content": "next turn"}, query={"wait": "1"}) == "execute_webhook"
    assert passes("PATCH", f"{hook}/messages/@original", {"content": "x"}) == (
        "update_original_webhook_message"
    )
    assert passes("PATCH", f"{hook}/messages/666", {"components": []})
    assert passes("DELETE", f"{hook}/messages/666") == "delete_webhook_message"
    commands = [{"name": "table", "description": "Tables", "contexts": [0, 1], "type": 1}]
    assert passes("PUT", "/applications/555/commands", commands)
    assert passes("PUT", "/channels/111/messages/333/reactions/%F0%9F%8E%B2/@me")


# ---- each kind of violation, with its path ---------------------------------------------------


@pytest.mark.parametrize(
    ("body", "path", "why"),
    [
        ({"tts": "no"}, "tts", "expected boolean"),  # type
        ({"embeds": [{"fields": [{"name": "a"}]}]}, "embeds.0.fields.0.value", "required"),
        ({"components": [row(button("x" * 81))]}, "components.0.components.0.label", "81 char"),
        ({"components": [row(button(custom_id=""))]}, "components.0.components.0.custom_id", ""),
        ({"embeds": [{"title": "t"}] * 11}, "embeds", "11 items, more than the 10"),  # maxItems
        ({"components": [row()]}, "components.0.components", "fewer than the 1"),  # minItems
        ({"components": [{"type": 99}]}, "components.0.type", "99 is not one of"),  # union tag
        ({"components": [row(button(style=9))]}, "components.0.components.0.style", "9 is not"),
        ({"embeds": [{"color": -1}]}, "embeds.0.color", "below the minimum 0"),
        ({"embeds": [{"color": 2**24}]}, "embeds.0.color", "above the maximum"),
        ({"message_reference": {"message_id": "abc"}}, "message_reference.message_id", ""),
        ({"embeds": [{"timestamp": "yesterday"}]}, "embeds.0.timestamp", "ISO 8601"),  # format
        ({"nonce": "n" * 26}, "nonce", "26 characters"),  # a oneOf of string or integer
        ({"allowed_mentions": {"parse": ["everyone", "everyone"]}}, "allowed_mentions.parse.1", ""),
    ],
)
def test_a_message_body_violation_is_refused_at_its_path(body: Any, path: str, why: str) -> None:
    exc = refusal("POST", MESSAGES, body)
    assert (exc.status, exc.code, exc.where, exc.path) == (400, INVALID_FORM_BODY, "body", path)
    assert why in exc.detail
    assert exc.operation == "create_message (POST /channels/{channel_id}/messages)"
    assert "create_message" in str(exc) and path in str(exc)
    # The error body nests the path the way Discord does, so discord.py prints it.
    node = exc.body()["errors"]
    for part in path.split("."):
        node = node[part]
    assert node["_errors"][0]["message"] == exc.detail


def test_a_multipart_payload_json_is_checked_like_a_json_body() -> None:
    exc = refusal(
        "POST",
        MESSAGES,
        {"content": "board", "attachments": [{"id": 0, "filename": ""}]},
        ctype="multipart/form-data; boundary=x",
        files=("files[0]",),
    )
    assert (exc.where, exc.path) == ("body", "attachments.0.filename")


def test_interaction_callbacks_are_checked_inside_the_branch_their_type_picks() -> None:
    token = "/interactions/444/tok.abc/callback"
    exc = refusal("POST", token, {"type": 4, "data": {"content": "x" * 2001}})
    assert exc.path == "data.content" and "create_interaction_response" in exc.operation
    assert refusal("POST", token, {"type": 3}).path == "type"  # 3 is no callback type
    assert refusal("POST", token, {"data": {}}).where == "body"  # no type at all
    exc = refusal("POST", token, {"type": 9, "data": {"custom_id": "m", "components": []}})
    assert exc.path == "data.title"
    choices = [{"name": str(i), "value": str(i)} for i in range(26)]
    assert refusal("POST", token, {"type": 8, "data": {"choices": choices}}).path == "data.choices"


def test_follow_ups_and_webhook_edits_are_checked() -> None:
    hook = "/webhooks/555/tok.abc"
    exc = refusal(
        "POST", hook, {"components": [row(*[button(custom_id=str(i)) for i in range(6)])]}
    )
    assert exc.path == "components.0.components" and "execute_webhook" in exc.operation
    exc = refusal("PATCH", f"{hook}/messages/@original", {"embeds": [{"title": "t" * 257}]})
    assert exc.path == "embeds.0.title" and "update_original_webhook_message" in exc.operation


def test_commands_are_checked_with_their_localizations_and_unique_contexts() -> None:
    exc = refusal("PUT", "/applications/555/commands", [{"name": "t", "contexts": [0, 0]}])
    assert exc.path == "0.contexts.1" and "repeats" in exc.detail  # uniqueItems
    localized = [{"name": "t", "name_localizations": {"fr": ""}}]
    exc = refusal("PUT", "/applications/555/commands", localized)
    assert exc.path == "0.name_localizations.fr"  # additionalProperties as a schema


def test_query_and_path_parameters_are_checked() -> None:
    exc = refusal("GET", MESSAGES, query={"limit": "500"})
    assert (exc.where, exc.path) == ("query", "limit") and "maximum 100" in exc.detail
    exc = refusal("GET", MESSAGES, query={"newest": "1"})
    assert (exc.where, exc.path) == ("query", "newest")  # not a parameter of list_messages
    # Boolean query strings are True/true/1 and False/false/0 (Reference), nothing else.
    assert passes("POST", "/webhooks/555/tok", {"content": "x"}, query={"wait": "true"})
    exc = refusal("POST", "/webhooks/555/tok", {"content": "x"}, query={"wait": "yes"})
    assert (exc.where, exc.path) == ("query", "wait")
    exc = refusal("GET", "/channels/general/messages")
    assert (exc.where, exc.path) == ("path", "channel_id")


def test_a_body_where_none_is_taken_or_none_where_one_is_needed() -> None:
    assert "takes no body" in refusal("POST", "/channels/111/typing", {"x": 1}).detail
    assert "needs a body" in refusal("POST", MESSAGES).detail
    assert "content type" in refusal("POST", MESSAGES, {"content": "x"}, ctype="text/plain").detail


def test_an_unknown_route_is_refused() -> None:
    exc = refusal("GET", "/channels/111/no-such-thing")
    assert (exc.status, exc.where) == (404, "route")
    assert exc.operation == "GET /channels/111/no-such-thing"
    # A reaction is added only as @me; another user's reaction can only be removed.
    exc = refusal("PUT", "/channels/1/messages/2/reactions/x/333")
    assert exc.status == 405 and "DELETE" in exc.detail
    exc = refusal("PUT", MESSAGES, {"content": "x"})
    assert exc.status == 405 and "GET, POST" in exc.detail


# ---- where the documentation wins ------------------------------------------------------------


def test_the_documentation_wins_where_the_readme_says() -> None:
    # The description allows 4,000 characters; a bot gets 2,000 (the documentation).
    assert passes("POST", MESSAGES, {"content": "x" * 2000})
    assert refusal("POST", MESSAGES, {"content": "x" * 2001}).path == "content"
    assert refusal("PATCH", f"{MESSAGES}/333", {"content": "x" * 2001}).path == "content"
    # Snowflakes may be integers; negative or fractional ones are still refused.
    assert passes("POST", MESSAGES, {"content": "x", "message_reference": {"message_id": 333}})
    bad = {"content": "x", "message_reference": {"message_id": -1}}
    assert refusal("POST", MESSAGES, bad).path == "message_reference.message_id"
    assert all(fix.why for fix in DOCUMENTATION_WINS)


def test_a_correction_that_no_longer_matches_the_description_fails_loudly() -> None:
    doc = {"components": {"schemas": {"M": {"properties": {"content": {"maxLength": 2000}}}}}}
    fix = Correction(
        "#/components/schemas/M/properties/content", {"maxLength": 4000}, {"maxLength": 2000}, "x"
    )
    with pytest.raises(CorrectionMismatchError, match="maxLength"):
        apply_corrections(doc, [fix])


# ---- loading -----------------------------------------------------------------------------------


def test_the_description_is_found_beside_the_project_and_loaded_once() -> None:
    found = find_description()
    assert found.name == "openapi.json" and found.parent.name == "discord-api-spec"
    assert description() is description()
    assert Emulator().spec is description()


def test_a_missing_description_is_an_error_not_a_skip(tmp_path: Path) -> None:
    with pytest.raises(DescriptionMissingError, match=r"discord-api-spec.openapi\.json"):
        find_description(tmp_path / "project")


def test_a_keyword_the_validator_does_not_check_refuses_to_load() -> None:
    with pytest.raises(UnknownKeywordError, match="contains"):
        check_keywords({"type": "array", "items": {"contains": {"const": 1}}})
    doc = json.loads(find_description().read_text(encoding="utf-8"))
    doc["components"]["schemas"]["Extra"] = {"type": "string", "dependentRequired": {}}
    with pytest.raises(UnknownKeywordError, match="Extra"):
        Description(doc)


def test_additional_properties_false_refuses_an_unknown_field() -> None:
    # No request schema of the description says so today; the validator still must.
    schema = {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "additionalProperties": False,
    }
    found = Validator({}).first(schema, {"a": 1, "b": 2})
    assert found is not None and (found.path, found.keyword) == (("b",), "additionalProperties")
    assert Validator({}).first(schema, {"a": 1}) is None


def test_true_is_not_one_and_one_is_one_point_zero() -> None:
    v = Validator({})
    assert v.first({"enum": [1]}, True) is not None
    assert v.first({"const": 1}, 1.0) is None
    assert v.first({"type": "integer"}, True) is not None


# ---- through the running emulator ------------------------------------------------------------


async def _post(emu: Emulator, path: str, body: Any, auth: bool = True) -> tuple[int, Any]:
    headers = {"Authorization": f"Bot {emu.token}"} if auth else {}
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"{emu.api_base}{path}", json=body, headers=headers) as resp,
    ):
        return resp.status, await resp.json()


async def test_the_emulator_refuses_and_reports_each_route_kind() -> None:
    async with Emulator() as emu:
        channel = emu.channel
        status, answer = await _post(emu, f"/channels/{channel.id}/messages", {"tts": "no"})
        assert (status, answer["code"]) == (400, INVALID_FORM_BODY)
        assert "tts" in answer["errors"]
        assert channel.messages == []  # refused before anything was posted
        alice = emu.user("alice").user
        inter = emu.start_interaction(
            alice, channel, APPLICATION_COMMAND, {"id": "1", "name": "hello", "type": 1}
        )
        callback = f"/interactions/{inter.id}/{inter.token}/callback"
        status, _ = await _post(emu, callback, {"type": 4, "data": {"content": "x" * 2001}}, False)
        assert status == 400 and not inter.acknowledged
        status, _ = await _post(emu, callback, {"type": 5}, False)
        assert status == 200
        hook = f"/webhooks/{emu.application_id}/{inter.token}"
        status, answer = await _post(emu, hook, {"embeds": [{"color": -5}]}, False)
        assert status == 400 and "embeds" in answer["errors"]
        with pytest.raises(AssertionError) as info:
            emu.assert_clean()
        report = str(info.value)
        assert "create_message (POST /channels/{channel_id}/messages): body tts" in report
        assert "create_interaction_response" in report and "data.content" in report
        assert "execute_webhook" in report and "embeds.0.color" in report
        assert len(emu.take_errors()) == 3
        emu.assert_clean()
