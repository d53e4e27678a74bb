"""A JSON Schema (2020-12) validator for the keywords Discord's OpenAPI description uses.

Small on purpose: it knows exactly the keywords that ``openapi.json`` holds (see
:data:`KEYWORDS`), refuses to load a schema that uses any other (so nothing is ever ignored
silently), and reports one violation with the JSON path Discord would name (``embeds.0.title``).
Its one departure from a generic validator is how it explains a failed ``oneOf``/``anyOf``: the
branches are Discord's tagged unions (a ``type`` property with one value per branch), so the
violation reported is the one inside the branch the value's ``type`` picks, not "matches none".

>>> doc = {"components": {"schemas": {"Row": {"type": "object", "required": ["type"],
...     "properties": {"type": {"const": 1}, "label": {"type": "string", "maxLength": 3}}}}}}
>>> v = Validator(doc)
>>> v.first({"$ref": "#/components/schemas/Row"}, {"type": 1, "label": "four"})
Violation(path=('label',), message='4 characters, more than the 3 allowed', keyword='maxLength')
>>> v.first({"$ref": "#/components/schemas/Row"}, {"type": 1, "label": "ok"}) is None
True
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

# Keywords that change what is valid, and the ones that only describe (never checked).
ASSERTIONS = frozenset(
    {
        "$ref",
        "type",
        "const",
        "enum",
        "format",
        "pattern",
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "properties",
        "required",
        "additionalProperties",
        "minProperties",
        "maxProperties",
        "items",
        "minItems",
        "maxItems",
        "uniqueItems",
        "oneOf",
        "anyOf",
        "allOf",
    }
)
ANNOTATIONS = frozenset({"title", "description", "contentEncoding", "x-discord-union"})
KEYWORDS = ASSERTIONS | ANNOTATIONS

INT32 = (-(2**31), 2**31 - 1)
INT64 = (-(2**63), 2**63 - 1)

JsonPath = tuple[str | int, ...]


class UnknownKeywordError(ValueError):
    """The description uses a JSON Schema keyword this validator does not check."""


class BadReferenceError(ValueError):
    """A ``$ref`` that does not point into the document."""


@dataclass(frozen=True)
class Violation:
    """Where a value breaks its schema (path from the checked root) and why."""

    path: JsonPath
    message: str
    keyword: str = ""  # the keyword that failed ("type", "maxLength"...)

    def dotted(self, root: str = "") -> str:
        """The path as Discord writes it in an error body: ``embeds.0.title``."""
        parts = [root] if root else []
        return ".".join([*parts, *(str(p) for p in self.path)])


def json_type(value: Any) -> str:
    """The JSON type of a decoded value (``integer`` for whole floats, as 2020-12 says)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def _scalar_key(value: Any) -> tuple[str, Any] | None:
    """A hashable key equal for JSON-equal scalars (``1`` and ``1.0``; not ``true``)."""
    kind = json_type(value)
    if kind in ("integer", "number"):
        return ("number", float(value))
    if kind in ("string", "boolean", "null"):
        return (kind, value)
    return None


def json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON means it: ``true`` is not ``1``, ``1`` is ``1.0``."""
    ta, tb = json_type(a), json_type(b)
    if {ta, tb} <= {"integer", "number"}:
        return bool(a == b)
    if ta != tb:
        return False
    if ta == "array":
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if ta == "object":
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return bool(a == b)


def check_keywords(schema: Any, where: str = "#") -> None:
    """Raise :class:`UnknownKeywordError` for any keyword outside :data:`KEYWORDS`."""
    if isinstance(schema, bool):
        return
    if not isinstance(schema, Mapping):
        raise UnknownKeywordError(f"{where}: a schema must be an object or a boolean")
    unknown = set(schema) - KEYWORDS
    if unknown:
        raise UnknownKeywordError(f"{where}: unchecked keyword(s) {sorted(unknown)}")
    for key in ("items", "additionalProperties"):
        if key in schema:
            check_keywords(schema[key], f"{where}/{key}")
    for key in ("oneOf", "anyOf", "allOf"):
        for i, sub in enumerate(schema.get(key, ())):
            check_keywords(sub, f"{where}/{key}/{i}")
    for name, sub in schema.get("properties", {}).items():
        check_keywords(sub, f"{where}/properties/{name}")


def _format_ok(fmt: str, value: Any) -> str | None:
    """None if ``value`` has format ``fmt``, else why not. Formats the description leaves
    to the server (snowflake: the pattern checks it; nonce, double) pass as they are."""
    if fmt in ("int32", "int64") and json_type(value) == "integer":
        lo, hi = INT32 if fmt == "int32" else INT64
        if not lo <= value <= hi:
            return f"{value} is outside the {fmt} range"
    elif fmt == "date-time" and isinstance(value, str):
        try:
            datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return f"{value!r} is not an ISO 8601 date-time"
    elif fmt == "uri" and isinstance(value, str):
        parts = urlsplit(value)
        if not parts.scheme or not (parts.netloc or parts.path):
            return f"{value!r} is not an absolute URI"
    return None


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


class Validator:
    """Checks values against schemas of one document (``$ref`` resolved inside it)."""

    def __init__(self, document: Mapping[str, Any]) -> None:
        self.document = document
        self._refs: dict[str, Any] = {}
        self._tags: dict[int, dict[Any, int] | None] = {}
        self._consts: dict[int, tuple[list[Any], frozenset[tuple[str, Any]]] | None] = {}
        self._patterns: dict[str, re.Pattern[str]] = {}

    # ---- references and tagged unions ----------------------------------------------------

    def resolve(self, ref: str) -> Any:
        """The schema a local ``$ref`` (``#/a/b``, JSON pointer escapes) points at."""
        found = self._refs.get(ref)
        if found is not None:
            return found
        if not ref.startswith("#"):
            raise BadReferenceError(f"only local references are supported: {ref}")
        node: Any = self.document
        for raw in ref[1:].split("/")[1:]:
            part = raw.replace("~1", "/").replace("~0", "~")
            try:
                node = node[int(part)] if isinstance(node, list) else node[part]
            except (KeyError, IndexError, ValueError):
                raise BadReferenceError(f"{ref} points nowhere") from None
        self._refs[ref] = node
        return node

    def _deref(self, schema: Any) -> Any:
        while isinstance(schema, Mapping) and set(schema) - ANNOTATIONS == {"$ref"}:
            schema = self.resolve(schema["$ref"])
        return schema

    def _tag_values(self, branch: Any) -> list[Any] | None:
        """The values of ``type`` that select this branch of a tagged union, if it has one."""
        branch = self._deref(branch)
        if not isinstance(branch, Mapping):
            return None
        tag = self._deref(branch.get("properties", {}).get("type"))
        if not isinstance(tag, Mapping):
            return None
        if "const" in tag:
            return [tag["const"]]
        if "enum" in tag:
            return list(tag["enum"])
        return None

    def _tags_of(self, branches: Sequence[Any]) -> dict[Any, int] | None:
        """``type`` value -> branch index when every non-null branch is tagged by distinct
        values (Discord's unions of components, options and callbacks), else None."""
        key = id(branches)
        if key in self._tags:
            return self._tags[key]
        table: dict[Any, int] | None = {}
        for i, branch in enumerate(branches):
            if self._deref(branch) == {"type": "null"}:
                continue
            values = self._tag_values(branch)
            if values is None or table is None:
                table = None
                break
            for value in values:
                if not isinstance(value, int | str) or isinstance(value, bool) or value in table:
                    table = None
                    break
                table[value] = i
        self._tags[key] = table or None
        return self._tags[key]

    def _consts_of(
        self, branches: Sequence[Any]
    ) -> tuple[list[Any], frozenset[tuple[str, Any]]] | None:
        """The values, and their keys for :func:`_scalar_key`, when every branch is a bare
        ``const`` of a distinct scalar (Discord's enums: a oneOf of titled constants)."""
        key = id(branches)
        if key not in self._consts:
            resolved = [self._deref(b) for b in branches]
            found = None
            if all(isinstance(b, Mapping) and set(b) - ANNOTATIONS == {"const"} for b in resolved):
                values = [b["const"] for b in resolved]
                keys = frozenset(_scalar_key(v) for v in values)
                if None not in keys and len(keys) == len(values):
                    found = (values, keys)
            self._consts[key] = found  # type: ignore[assignment]
        return self._consts[key]

    # ---- checking ------------------------------------------------------------------------

    def first(self, schema: Any, value: Any, path: JsonPath = ()) -> Violation | None:
        """The first violation of ``schema`` by ``value``, or None when it is valid."""
        return next(self.violations(schema, value, path), None)

    def is_valid(self, schema: Any, value: Any) -> bool:
        return self.first(schema, value) is None

    def violations(self, schema: Any, value: Any, path: JsonPath = ()) -> Iterator[Violation]:
        """Every violation, lazily (the first one costs only what it takes to find it)."""
        if schema is True:
            return
        if schema is False:
            yield Violation(path, "no value is allowed here", "false")
            return
        if "$ref" in schema:
            yield from self.violations(self.resolve(schema["$ref"]), value, path)
        kind = json_type(value)
        if "type" in schema:
            allowed = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            if kind not in allowed and not (kind == "integer" and "number" in allowed):
                yield Violation(
                    path, f"{kind} {_describe(value)}, expected {' or '.join(allowed)}", "type"
                )
                return  # the other keywords would only repeat the mismatch
        if "const" in schema and not json_equal(value, schema["const"]):
            yield Violation(path, f"{_describe(value)}, expected {schema['const']!r}", "const")
        if "enum" in schema and not any(json_equal(value, e) for e in schema["enum"]):
            yield Violation(path, f"{_describe(value)} is not one of {schema['enum']!r}", "enum")
        if "format" in schema:
            why = _format_ok(schema["format"], value)
            if why:
                yield Violation(path, why, "format")
        if kind == "string":
            yield from self._string(schema, value, path)
        elif kind in ("integer", "number"):
            yield from self._number(schema, value, path)
        elif kind == "array":
            yield from self._array(schema, value, path)
        elif kind == "object":
            yield from self._object(schema, value, path)
        for sub in schema.get("allOf", ()):
            yield from self.violations(sub, value, path)
        if "oneOf" in schema:
            yield from self._union(schema["oneOf"], value, path, exactly_one=True)
        if "anyOf" in schema:
            yield from self._union(schema["anyOf"], value, path, exactly_one=False)

    def _string(self, schema: Mapping[str, Any], value: str, path: JsonPath) -> Iterator[Violation]:
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            yield Violation(
                path,
                f"{len(value)} characters, more than the {schema['maxLength']} allowed",
                "maxLength",
            )
        if "minLength" in schema and len(value) < schema["minLength"]:
            yield Violation(
                path,
                f"{len(value)} characters, fewer than the {schema['minLength']} required",
                "minLength",
            )
        if "pattern" in schema:
            pattern = self._patterns.get(schema["pattern"])
            if pattern is None:
                pattern = self._patterns[schema["pattern"]] = re.compile(schema["pattern"])
            if not pattern.search(value):
                yield Violation(
                    path, f"{_describe(value)} does not match {schema['pattern']}", "pattern"
                )

    def _number(
        self, schema: Mapping[str, Any], value: float, path: JsonPath
    ) -> Iterator[Violation]:
        if isinstance(value, float) and not math.isfinite(value):
            yield Violation(path, f"{value} is not a JSON number", "type")
        if "minimum" in schema and value < schema["minimum"]:
            yield Violation(path, f"{value} is below the minimum {schema['minimum']}", "minimum")
        if "maximum" in schema and value > schema["maximum"]:
            yield Violation(path, f"{value} is above the maximum {schema['maximum']}", "maximum")

    def _array(
        self, schema: Mapping[str, Any], value: list[Any], path: JsonPath
    ) -> Iterator[Violation]:
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            yield Violation(
                path, f"{len(value)} items, more than the {schema['maxItems']} allowed", "maxItems"
            )
        if "minItems" in schema and len(value) < schema["minItems"]:
            yield Violation(
                path,
                f"{len(value)} items, fewer than the {schema['minItems']} required",
                "minItems",
            )
        if schema.get("uniqueItems"):
            for j in range(len(value)):
                if any(json_equal(value[i], value[j]) for i in range(j)):
                    yield Violation(
                        (*path, j), f"{_describe(value[j])} repeats an earlier item", "uniqueItems"
                    )
                    break
        if "items" in schema:
            for i, item in enumerate(value):
                yield from self.violations(schema["items"], item, (*path, i))

    def _object(
        self, schema: Mapping[str, Any], value: dict[str, Any], path: JsonPath
    ) -> Iterator[Violation]:
        for name in schema.get("required", ()):
            if name not in value:
                yield Violation((*path, name), "this field is required", "required")
        if "maxProperties" in schema and len(value) > schema["maxProperties"]:
            yield Violation(
                path,
                f"{len(value)} properties, more than the {schema['maxProperties']} allowed",
                "maxProperties",
            )
        if "minProperties" in schema and len(value) < schema["minProperties"]:
            yield Violation(
                path,
                f"{len(value)} properties, fewer than the {schema['minProperties']} required",
                "minProperties",
            )
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for name, item in value.items():
            if name in properties:
                yield from self.violations(properties[name], item, (*path, name))
            elif extra is False:
                yield Violation(
                    (*path, name), "this field is not allowed here", "additionalProperties"
                )
            elif extra is not True:
                yield from self.violations(extra, item, (*path, name))

    def _union(
        self, branches: Sequence[Any], value: Any, path: JsonPath, *, exactly_one: bool
    ) -> Iterator[Violation]:
        consts = self._consts_of(branches)
        if consts is not None:
            # Distinct constants: a value equals one of them or none, so a set lookup is the
            # whole union (and "not one of [...]" is what a person needs to read).
            if _scalar_key(value) not in consts[1]:
                yield Violation(
                    path,
                    f"{_describe(value)} is not one of {consts[0]}",
                    "oneOf" if exactly_one else "anyOf",
                )
            return
        tags = self._tags_of(branches)
        if tags is not None and isinstance(value, dict) and "type" in value:
            tag = value["type"]
            index = (
                tags.get(tag) if isinstance(tag, int | str) and not isinstance(tag, bool) else None
            )
            if index is None:
                yield Violation(
                    (*path, "type"),
                    f"{_describe(tag)} is not one of {sorted(tags, key=str)}",
                    "oneOf" if exactly_one else "anyOf",
                )
                return
            # The tags are distinct, so no other branch can match: checking this one is the
            # whole oneOf, and its own violation is the one worth reporting.
            yield from self.violations(branches[index], value, path)
            return
        found = [self.first(b, value, path) for b in branches]
        matched = sum(v is None for v in found)
        if matched == 1 or (matched and not exactly_one):
            return
        if matched > 1:
            yield Violation(
                path, f"matches {matched} of the oneOf branches, not exactly one", "oneOf"
            )
            return
        yield self._explain(found, value, path, "oneOf" if exactly_one else "anyOf")

    def _explain(
        self,
        found: list[Violation | None],
        value: Any,
        path: JsonPath,
        keyword: str,
    ) -> Violation:
        """Why no branch matched: the violation of the one branch whose JSON type fits the
        value (null-or-something), else the deepest violation found, else a plain "none"."""
        failures = [v for v in found if v is not None]
        fitting = [v for v in failures if not (v.path == path and v.keyword == "type")]
        if len(fitting) == 1:
            return fitting[0]
        deepest = max(failures, key=lambda v: len(v.path))
        if len(deepest.path) > len(path):
            return deepest
        return Violation(path, f"{_describe(value)} matches none of the allowed shapes", keyword)
