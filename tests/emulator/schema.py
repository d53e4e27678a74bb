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
from collections.abc import Callable, Mapping, Sequence
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
        self._compiled: dict[int, tuple[Any, Check]] = {}

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
    #
    # Each schema is compiled once into a function value -> first Violation | None, whose
    # path is relative to the value (a parent prefixes its own key only on a failure, so a
    # valid request, the common case, builds no paths). A $ref compiles its target only when
    # first used, which is what lets recursive schemas (components in components) compile.

    def first(self, schema: Any, value: Any, path: JsonPath = ()) -> Violation | None:
        """The first violation of ``schema`` by ``value``, or None when it is valid."""
        found = self.compile(schema)(value)
        return found if found is None or not path else _under(path, found)

    def is_valid(self, schema: Any, value: Any) -> bool:
        return self.compile(schema)(value) is None

    def compile(self, schema: Any) -> Check:
        """The checking function of ``schema`` (memoized; the schema is kept alive with it,
        so its id is never reused for another while the entry exists)."""
        hit = self._compiled.get(id(schema))
        if hit is not None and hit[0] is schema:
            return hit[1]
        built = self._build(schema)
        self._compiled[id(schema)] = (schema, built)
        return built

    def _build(self, schema: Any) -> Check:
        if schema is True:
            return _valid
        if schema is False:
            return lambda value: Violation((), "no value is allowed here", "false")
        before: list[Check] = []
        if "$ref" in schema:
            before.append(self._ref(schema["$ref"]))
        for key in ("const", "enum", "format"):
            if key in schema:
                before.append(_KEYWORD_CHECKS[key](schema[key]))
        by_kind = {
            "string": self._string(schema),
            "integer": self._number(schema),
            "number": self._number(schema),
            "array": self._array(schema),
            "object": self._object(schema),
        }
        after: list[Check] = [self.compile(sub) for sub in schema.get("allOf", ())]
        for key in ("oneOf", "anyOf"):
            if key in schema:
                after.append(self._union(schema[key], exactly_one=key == "oneOf"))
        allowed = schema.get("type")
        types = (
            None if allowed is None else set(allowed if isinstance(allowed, list) else [allowed])
        )
        expected = "" if types is None else " or ".join(sorted(types))

        def check(value: Any) -> Violation | None:
            kind = json_type(value)
            if (
                types is not None
                and kind not in types
                and not (kind == "integer" and "number" in types)
            ):
                # The other keywords would only repeat the mismatch.
                return Violation((), f"{kind} {_describe(value)}, expected {expected}", "type")
            for group in (before, by_kind.get(kind, ()), after):
                for one in group:
                    found = one(value)
                    if found is not None:
                        return found
            return None

        return check

    def _ref(self, ref: str) -> Check:
        target: list[Check] = []

        def check(value: Any) -> Violation | None:
            if not target:
                target.append(self.compile(self.resolve(ref)))
            return target[0](value)

        self.resolve(ref)  # a reference that points nowhere fails when the schema compiles
        return check

    def _string(self, schema: Mapping[str, Any]) -> list[Check]:
        checks: list[Check] = []
        if "maxLength" in schema:
            most = schema["maxLength"]
            checks.append(
                lambda v: (
                    None
                    if len(v) <= most
                    else Violation(
                        (), f"{len(v)} characters, more than the {most} allowed", "maxLength"
                    )
                )
            )
        if "minLength" in schema:
            least = schema["minLength"]
            checks.append(
                lambda v: (
                    None
                    if len(v) >= least
                    else Violation(
                        (), f"{len(v)} characters, fewer than the {least} required", "minLength"
                    )
                )
            )
        if "pattern" in schema:
            text = schema["pattern"]
            pattern = re.compile(text)
            checks.append(
                lambda v: (
                    None
                    if pattern.search(v)
                    else Violation((), f"{_describe(v)} does not match {text}", "pattern")
                )
            )
        return checks

    def _number(self, schema: Mapping[str, Any]) -> list[Check]:
        checks: list[Check] = [
            lambda v: (
                None
                if not isinstance(v, float) or math.isfinite(v)
                else Violation((), f"{v} is not a JSON number", "type")
            )
        ]
        if "minimum" in schema:
            low = schema["minimum"]
            checks.append(
                lambda v: (
                    None
                    if v >= low
                    else Violation((), f"{v} is below the minimum {low}", "minimum")
                )
            )
        if "maximum" in schema:
            high = schema["maximum"]
            checks.append(
                lambda v: (
                    None
                    if v <= high
                    else Violation((), f"{v} is above the maximum {high}", "maximum")
                )
            )
        return checks

    def _array(self, schema: Mapping[str, Any]) -> list[Check]:
        checks: list[Check] = []
        if "maxItems" in schema:
            most = schema["maxItems"]
            checks.append(
                lambda v: (
                    None
                    if len(v) <= most
                    else Violation((), f"{len(v)} items, more than the {most} allowed", "maxItems")
                )
            )
        if "minItems" in schema:
            least = schema["minItems"]
            checks.append(
                lambda v: (
                    None
                    if len(v) >= least
                    else Violation(
                        (), f"{len(v)} items, fewer than the {least} required", "minItems"
                    )
                )
            )
        if schema.get("uniqueItems"):
            checks.append(_unique)
        if "items" in schema:
            item_schema = schema["items"]

            def items(v: list[Any]) -> Violation | None:
                each = self.compile(item_schema)
                for i, item in enumerate(v):
                    found = each(item)
                    if found is not None:
                        return _under((i,), found)
                return None

            checks.append(items)
        return checks

    def _object(self, schema: Mapping[str, Any]) -> list[Check]:
        checks: list[Check] = []
        required = tuple(schema.get("required", ()))
        if required:

            def present(v: dict[str, Any]) -> Violation | None:
                for name in required:
                    if name not in v:
                        return Violation((name,), "this field is required", "required")
                return None

            checks.append(present)
        if "maxProperties" in schema:
            most = schema["maxProperties"]
            checks.append(
                lambda v: (
                    None
                    if len(v) <= most
                    else Violation(
                        (), f"{len(v)} properties, more than the {most} allowed", "maxProperties"
                    )
                )
            )
        if "minProperties" in schema:
            least = schema["minProperties"]
            checks.append(
                lambda v: (
                    None
                    if len(v) >= least
                    else Violation(
                        (), f"{len(v)} properties, fewer than the {least} required", "minProperties"
                    )
                )
            )
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        if properties or extra is not True:

            def members(v: dict[str, Any]) -> Violation | None:
                for name, item in v.items():
                    sub = properties.get(name, extra)
                    if sub is True:
                        continue
                    if sub is False:
                        found = Violation(
                            (), "this field is not allowed here", "additionalProperties"
                        )
                    else:
                        found = self.compile(sub)(item)
                    if found is not None:
                        return _under((name,), found)
                return None

            checks.append(members)
        return checks

    def _union(self, branches: Sequence[Any], *, exactly_one: bool) -> Check:
        keyword = "oneOf" if exactly_one else "anyOf"
        consts = self._consts_of(branches)
        if consts is not None:
            values, keys = consts
            # Distinct constants: a value equals one of them or none, so a set lookup is the
            # whole union (and "not one of [...]" is what a person needs to read).
            return lambda v: (
                None
                if _scalar_key(v) in keys
                else Violation((), f"{_describe(v)} is not one of {values}", keyword)
            )
        tags = self._tags_of(branches)

        def check(value: Any) -> Violation | None:
            if tags is not None and isinstance(value, dict) and "type" in value:
                tag = value["type"]
                index = tags.get(tag) if _scalar_key(tag) is not None else None
                if index is None or isinstance(tag, bool):
                    return Violation(
                        ("type",),
                        f"{_describe(tag)} is not one of {sorted(tags, key=str)}",
                        keyword,
                    )
                # The tags are distinct, so no other branch can match: this branch is the
                # whole union, and its own violation is the one worth reporting.
                return self.compile(branches[index])(value)
            found = [self.compile(b)(value) for b in branches]
            matched = sum(v is None for v in found)
            if matched == 1 or (matched and not exactly_one):
                return None
            if matched > 1:
                return Violation(
                    (), f"matches {matched} of the oneOf branches, not exactly one", keyword
                )
            return _explain(found, value, keyword)

        return check


Check = Callable[[Any], "Violation | None"]


def _valid(value: Any) -> Violation | None:
    return None


def _under(prefix: JsonPath, found: Violation) -> Violation:
    return Violation((*prefix, *found.path), found.message, found.keyword)


def _unique(v: list[Any]) -> Violation | None:
    for j in range(len(v)):
        if any(json_equal(v[i], v[j]) for i in range(j)):
            return Violation((j,), f"{_describe(v[j])} repeats an earlier item", "uniqueItems")
    return None


def _const(expected: Any) -> Check:
    return lambda v: (
        None
        if json_equal(v, expected)
        else Violation((), f"{_describe(v)}, expected {expected!r}", "const")
    )


def _enum(allowed: list[Any]) -> Check:
    return lambda v: (
        None
        if any(json_equal(v, e) for e in allowed)
        else Violation((), f"{_describe(v)} is not one of {allowed!r}", "enum")
    )


def _format(fmt: str) -> Check:
    def check(v: Any) -> Violation | None:
        why = _format_ok(fmt, v)
        return None if why is None else Violation((), why, "format")

    return check


_KEYWORD_CHECKS: dict[str, Callable[[Any], Check]] = {
    "const": _const,
    "enum": _enum,
    "format": _format,
}


def _explain(found: list[Violation | None], value: Any, keyword: str) -> Violation:
    """Why no branch of a union matched: the violation of the one branch whose JSON type
    fits the value (null-or-something), else the deepest violation, else a plain "none"."""
    failures = [v for v in found if v is not None]
    fitting = [v for v in failures if not (v.path == () and v.keyword == "type")]
    if len(fitting) == 1:
        return fitting[0]
    deepest = max(failures, key=lambda v: len(v.path))
    if deepest.path:
        return deepest
    return Violation((), f"{_describe(value)} matches none of the allowed shapes", keyword)
