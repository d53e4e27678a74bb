"""Every request the bot makes, checked against Discord's published OpenAPI description.

``openapi.json`` (``../shared/discord-api-spec/`` beside the project, see its README) is loaded
once per process. :meth:`Description.check` maps a request (method + concrete path) to its
operation, then checks its path and query parameters and its body (JSON, or a multipart form
whose ``payload_json`` holds the JSON) against the operation's schemas with
:class:`tests.emulator.schema.Validator`. Where the description and Discord's developer
documentation differ, the documentation is right (the description's README says so): those
places are corrected in one table, :data:`DOCUMENTATION_WINS`, before anything is checked.

A request the description refuses raises :class:`SpecViolation`, an :class:`ApiError` the
emulator answers as Discord would (400 Invalid Form Body, 404 or 405 for a route Discord does
not have) and records, so ``Emulator.assert_clean()`` fails the test naming the operation and
the JSON path.

>>> d = description()
>>> d.check("POST", "/channels/1/messages", {}, "application/json", {"content": "hi"}, []).label
'create_message (POST /channels/{channel_id}/messages)'
>>> try:
...     d.check("POST", "/channels/1/messages", {}, "application/json", {"tts": "no"}, [])
... except SpecViolation as exc:
...     print(exc.path, "-", exc.detail)
tts - string 'no', expected boolean or null
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.emulator.limits import INVALID_FORM_BODY, ApiError
from tests.emulator.schema import Validator, Violation, check_keywords

PROJECT_ROOT = Path(__file__).resolve().parents[2]
DESCRIPTION_IN_SHARED = Path("shared") / "discord-api-spec" / "openapi.json"

SNOWFLAKE_PATTERN = "^(0|[1-9][0-9]*)$"
SCHEMAS = "#/components/schemas/"

# Reference > Boolean Query Strings: "True", "true" or "1" are true; "False", "false", "0" false.
QUERY_TRUE = frozenset({"True", "true", "1"})
QUERY_FALSE = frozenset({"False", "false", "0"})

HTTP_METHODS = ("get", "put", "post", "patch", "delete", "head", "options")


class DescriptionMissingError(FileNotFoundError):
    """openapi.json is not beside the project: the emulator cannot judge requests."""


class CorrectionMismatchError(ValueError):
    """A correction in DOCUMENTATION_WINS no longer matches what the description says."""


@dataclass(frozen=True)
class Correction:
    """One place the documentation wins: at ``pointer``, the keywords ``was`` (checked, so a
    newer description that changed them fails loudly) are replaced by ``now``."""

    pointer: str
    was: Mapping[str, Any]
    now: Mapping[str, Any]
    why: str


def _content_2000(schema: str) -> Correction:
    return Correction(
        f"{SCHEMAS}{schema}/properties/content",
        {"maxLength": 4000},
        {"maxLength": 2000},
        # Message resource > Create Message: content "up to 2000 characters"; 4,000 is the
        # limit of users with Nitro, which a bot never has (the description's README).
        "a bot's message content is at most 2,000 characters",
    )


DOCUMENTATION_WINS: tuple[Correction, ...] = (
    Correction(
        f"{SCHEMAS}SnowflakeType",
        {"type": "string", "pattern": SNOWFLAKE_PATTERN, "format": "snowflake"},
        {
            "oneOf": [
                {"type": "string", "pattern": SNOWFLAKE_PATTERN},
                {"type": "integer", "minimum": 0, "maximum": 2**64 - 1},
            ]
        },
        # Reference > Snowflakes, and the description's README: Discord accepts integers
        # too (discord.py sends an attachment's id as its integer index in the form).
        "a snowflake may be sent as a string or as an integer",
    ),
    _content_2000("MessageCreateRequest"),
    _content_2000("MessageEditRequestPartial"),
    # The first message of a forum or media thread (Start Thread in Forum or Media Channel).
    _content_2000("BaseCreateMessageCreateRequest"),
)


@dataclass
class SpecViolation(ApiError):
    """A request Discord's OpenAPI description (as corrected) refuses."""

    operation: str = ""  # operationId and template: "create_message (POST /channels/...)"
    where: str = "body"  # body | query | path | route

    def __str__(self) -> str:
        field_ = f" {self.path}" if self.path else ""
        return (
            f"{self.status} (code {self.code}) {self.operation}: {self.where}{field_}: "
            f"{self.detail}"
        )


@dataclass(frozen=True)
class Parameter:
    name: str
    location: str  # path | query
    schema: Any
    required: bool


@dataclass
class Operation:
    """One method on one path template of the description."""

    method: str
    template: str
    operation_id: str
    parameters: dict[tuple[str, str], Parameter] = field(default_factory=dict)
    bodies: dict[str, Any] = field(default_factory=dict)  # media type -> schema
    body_required: bool = False

    @property
    def label(self) -> str:
        return f"{self.operation_id} ({self.method} {self.template})"

    @property
    def segments(self) -> list[str]:
        return self.template.strip("/").split("/")


def find_description(root: Path = PROJECT_ROOT) -> Path:
    """``../shared/discord-api-spec/openapi.json`` from the project root, as CI lays it out
    (a clone beside ``shared/``). A git worktree kept in a folder of worktrees sits deeper,
    so each further ancestor is tried in turn; the nearest one wins."""
    tried = []
    for base in root.parents:
        candidate = base / DESCRIPTION_IN_SHARED
        if candidate.is_file():
            return candidate
        tried.append(str(candidate))
    raise DescriptionMissingError(
        "Discord's OpenAPI description is missing; the emulator checks every request "
        "against it. Looked for: " + ", ".join(tried)
    )


def apply_corrections(document: dict[str, Any], corrections: Sequence[Correction]) -> None:
    """Patch ``document`` in place with each correction (after checking what it replaces)."""
    resolver = Validator(document)
    for fix in corrections:
        node = resolver.resolve(fix.pointer)
        for key, value in fix.was.items():
            if key not in node or node[key] != value:
                raise CorrectionMismatchError(
                    f"{fix.pointer}: expected {key}={value!r}, the description has "
                    f"{node.get(key)!r}; review the correction ({fix.why})"
                )
            del node[key]
        node.update(json.loads(json.dumps(fix.now)))


def _operations(document: Mapping[str, Any]) -> list[Operation]:
    operations = []
    for template, item in document["paths"].items():
        shared = {(p["in"], p["name"]): p for p in item.get("parameters", ())}
        for method in HTTP_METHODS:
            if method not in item:
                continue
            raw = item[method]
            params = {**shared, **{(p["in"], p["name"]): p for p in raw.get("parameters", ())}}
            op = Operation(method.upper(), template, raw["operationId"])
            for (location, name), p in params.items():
                if location in ("path", "query"):
                    op.parameters[(location, name)] = Parameter(
                        name, location, p["schema"], bool(p.get("required"))
                    )
            body = raw.get("requestBody")
            if body is not None:
                op.bodies = {ctype: c["schema"] for ctype, c in body["content"].items()}
                op.body_required = bool(body.get("required"))
            operations.append(op)
    return operations


def _string_readings(raw: str) -> list[Any]:
    """What a path or query string may stand for: itself, a number, a boolean."""
    readings: list[Any] = [raw]
    if re.fullmatch(r"-?\d+", raw):
        readings.append(int(raw))
    else:
        try:
            number = float(raw)
        except ValueError:
            pass
        else:
            if math.isfinite(number):
                readings.append(number)
    if raw in QUERY_TRUE:
        readings.append(True)
    elif raw in QUERY_FALSE:
        readings.append(False)
    return readings


class Description:
    """The corrected description: its operations and the validator for their schemas."""

    def __init__(self, document: dict[str, Any]) -> None:
        apply_corrections(document, DOCUMENTATION_WINS)
        for name, schema in document["components"]["schemas"].items():
            check_keywords(schema, f"{SCHEMAS}{name}")
        self.document = document
        self.validator = Validator(document)
        self.operations = _operations(document)
        for op in self.operations:
            for p in op.parameters.values():
                check_keywords(p.schema, f"{op.label} parameter {p.name}")
            for ctype, schema in op.bodies.items():
                check_keywords(schema, f"{op.label} {ctype} body")
        self._by_method: dict[str, list[Operation]] = {}
        for op in self.operations:
            self._by_method.setdefault(op.method, []).append(op)

    # ---- routes --------------------------------------------------------------------------

    @staticmethod
    def _bind(op: Operation, parts: list[str]) -> tuple[int, dict[str, str]] | None:
        """(literal segments matched, path parameters) if ``parts`` fits ``op``'s template."""
        segments = op.segments
        if len(segments) != len(parts):
            return None
        literal, bound = 0, {}
        for segment, part in zip(segments, parts, strict=True):
            if segment.startswith("{") and segment.endswith("}"):
                bound[segment[1:-1]] = part
            elif segment == part:
                literal += 1
            else:
                return None
        return literal, bound

    def _match(self, method: str, parts: list[str]) -> tuple[Operation, dict[str, str]] | None:
        best: tuple[int, Operation, dict[str, str]] | None = None
        for op in self._by_method.get(method, ()):
            bound = self._bind(op, parts)
            if bound is not None and (best is None or bound[0] > best[0]):
                best = (bound[0], op, bound[1])
        return None if best is None else (best[1], best[2])

    def operation(self, method: str, path: str) -> tuple[Operation, dict[str, str]]:
        """The operation for ``METHOD /concrete/path`` (the path below ``/api/v10``) and its
        path parameters; :class:`SpecViolation` 404/405 when Discord has no such route."""
        method = method.upper()
        parts = path.split("?", 1)[0].strip("/").split("/")
        found = self._match(method, parts)
        if found is not None:
            return found
        others = sorted(m for m in self._by_method if m != method and self._match(m, parts))
        if others:
            raise SpecViolation(
                405,
                0,
                "405: Method Not Allowed",
                detail=f"Discord's description has {', '.join(others)} {path}, not {method}",
                operation=f"{method} {path}",
                where="route",
            )
        raise SpecViolation(
            404,
            0,
            "404: Not Found",
            detail="no operation of Discord's OpenAPI description has this route",
            operation=f"{method} {path}",
            where="route",
        )

    # ---- checking ------------------------------------------------------------------------

    def _refuse(self, op: Operation, where: str, found: Violation, root: str = "") -> None:
        raise SpecViolation(
            400,
            INVALID_FORM_BODY,
            "Invalid Form Body",
            path=found.dotted(root),
            detail=found.message,
            operation=op.label,
            where=where,
        )

    def _check_string(self, op: Operation, param: Parameter, raw: str) -> None:
        found: Violation | None = None
        for reading in _string_readings(raw):
            violation = self.validator.first(param.schema, reading)
            if violation is None:
                return
            # Report the reading whose failure is more than "wrong type" (a number that is
            # out of range says more than "a string, expected integer").
            if found is None or (found.keyword == "type" and violation.keyword != "type"):
                found = violation
        assert found is not None
        self._refuse(op, param.location, found, param.name)

    def check(
        self,
        method: str,
        path: str,
        query: Mapping[str, str],
        content_type: str,
        body: Any,
        file_fields: Sequence[str],
    ) -> Operation:
        """Check one request; return its operation, or raise :class:`SpecViolation`.

        ``body`` is the decoded JSON (for a multipart form, its ``payload_json``; None when
        there was none) and ``file_fields`` the names of the form's file parts."""
        op, bound = self.operation(method, path)
        for name, raw in bound.items():
            param = op.parameters.get(("path", name))
            if param is not None:
                self._check_string(op, param, raw)
        for name, raw in query.items():
            param = op.parameters.get(("query", name))
            if param is None:
                self._refuse(op, "query", Violation((), "not a parameter of this operation"), name)
                continue
            self._check_string(op, param, raw)
        for (location, name), param in op.parameters.items():
            if location == "query" and param.required and name not in query:
                self._refuse(op, "query", Violation((), "this parameter is required"), name)
        self._check_body(op, content_type.split(";", 1)[0].strip().lower(), body, file_fields)
        return op

    def _check_body(self, op: Operation, media: str, body: Any, file_fields: Sequence[str]) -> None:
        sent = body is not None or bool(file_fields)
        if not op.bodies:
            if sent and body not in ({}, None):
                self._refuse(op, "body", Violation((), "this operation takes no body"))
            return
        if not sent:
            if op.body_required:
                self._refuse(op, "body", Violation((), "this operation needs a body"))
            return
        if media not in op.bodies:
            why = f"content type {media or '(none)'!r}; expected one of {sorted(op.bodies)}"
            self._refuse(op, "body", Violation((), why))
        instance = body
        if media == "multipart/form-data":
            # The form's fields are the properties: payload_json's members and each file.
            instance = {
                **(body if isinstance(body, dict) else {}),
                **dict.fromkeys(file_fields, ""),
            }
        found = self.validator.first(op.bodies[media], instance)
        if found is not None:
            self._refuse(op, "body", found)


@functools.cache
def description() -> Description:
    """Discord's OpenAPI description, loaded and corrected once per process."""
    with find_description().open(encoding="utf-8") as f:
        return Description(json.load(f))
