"""The schema strings datamodel-code-generator would print unescaped (descriptions, titles,
enum values, property names), stood in for by plain tokens before it runs and put back,
escaped by mcp_schemagen.naming, in the text it returns; and the keys it must never read
(extension keywords it takes as instructions) dropped. Split from typegen.py, which runs
the generator and reads its text."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import quote, unquote

from mcp_schemagen.naming import docstring_literal, pascal_case, string_literal
from mcp_schemagen.schema.keywords import (
    DEFINITIONS,
    KEYWORDS,
    PROPERTIES,
)
from mcp_schemagen.schema.walk import position

# Any key not of the dialects is dropped before type generation (see Shield._walk).
TYPE_KEYWORDS = KEYWORDS


def beyond_64_bits(value: Any) -> bool:
    """Whether a JSON value holds an integer beyond 64 bits: orjson reads one as a float,
    and mypy refuses one in a Literal, yet what clients receive must be what the file says."""
    if isinstance(value, dict):
        return any(beyond_64_bits(v) for v in value.values())
    if isinstance(value, list):
        return any(beyond_64_bits(v) for v in value)
    return type(value) is int and not -(2**63) < value < 2**63


def _is_plain(text: str) -> bool:
    return all(" " <= c <= "~" and c not in "'\"\\" for c in text)


class _Docstring:
    """Replaces a generated docstring block by one made by mcp_schemagen.naming."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __call__(self, match: re.Match[str]) -> str:
        indent = match.group(1)
        return indent + docstring_literal(self.text, indent)


class Shield:
    """Stands in for schema strings that datamodel-code-generator would print unescaped.

    It writes enum values and property names into string literals as they are, so a
    quote, a newline or a bidi control in a schema would end up raw in our source. Such
    strings go in as plain tokens and come back out as literals made by mcp_schemagen.naming.
    """

    def __init__(self, schema: Any) -> None:
        text = json.dumps(schema).lower()
        salt = 0
        while f"mcpcgtok{salt}" in text.replace("-", ""):
            salt += 1
        # Not an identifier (so it stays a string key of a functional TypedDict) and
        # turned by the generator into a class name we can find again: Mcpcgtok{salt}{n}Z.
        self._salt = salt
        self.originals: dict[str, str] = {}
        self.descriptions: set[str] = set()  # tokens standing for a description
        self._tokens: dict[str, str] = {}
        self.schema = self._walk(schema)

    def _token(self, value: str, *, always: bool = False) -> str:
        if value in self._tokens:
            return self._tokens[value]
        if _is_plain(value) and not always:
            return value
        token = f"mcpcgtok-{self._salt}-{len(self._tokens)}-z"
        self._tokens[value] = token
        self.originals[token] = value
        return token

    def _description(self, value: str) -> str:
        # Always a token: the generator prints descriptions as field docstrings without
        # escaping, and restore() writes them back as docstrings made by mcp_schemagen.naming.
        if value not in self._tokens:
            token = f"mcpcgtok-{self._salt}-{len(self._tokens)}-z"
            self._tokens[value] = token
            self.originals[token] = value
        self.descriptions.add(self._tokens[value])
        return self._tokens[value]

    def _data(self, value: Any) -> Any:
        return self._token(value) if isinstance(value, str) else value

    def _name(self, name: str) -> str:
        # datamodel-code-generator renames a key with a leading underscore (``_id`` becomes
        # ``field_id``), which would type a key the schema does not have: shielded, the
        # key is kept exactly, in a functional TypedDict.
        return self._token(name, always=name.startswith("_"))

    def _definition(self, name: str) -> str:
        # A dot in a definition's name makes the generator write a module per part (and
        # return several modules): such names are shielded like property names.
        return self._token(name, always="." in name)

    def _reference(self, reference: str) -> str:
        """``reference`` pointing at the shielded name of a definition it names."""
        fragment = reference.removeprefix("#")
        parts = fragment.split("/")
        if not reference.startswith("#/") or len(parts) < 3 or parts[1] not in DEFINITIONS:
            return reference
        name = unquote(parts[2]).replace("~1", "/").replace("~0", "~")
        parts[2] = quote(self._definition(name).replace("~", "~0").replace("/", "~1"), safe="")
        return "#" + "/".join(parts)

    def _walk(self, node: Any) -> Any:
        """A copy of the schema ``node`` holding only standard JSON Schema keywords: the
        generator reads extension keywords (customTypePath, x-python-import...) as
        instructions for imports and base classes, and schema text must never choose
        what generated code imports."""
        if not isinstance(node, dict):
            return node  # a boolean schema
        shielded: dict[str, Any] = {}
        for key, value in node.items():
            if key not in TYPE_KEYWORDS:
                continue
            if key in ("enum", "const") and beyond_64_bits(value):
                continue  # type checkers refuse such a Literal; the type widens to int
            if key == "enum" and isinstance(value, list):
                shielded[key] = [self._data(v) for v in value]
            elif key == "const":
                shielded[key] = self._data(value)
            elif key == "required" and isinstance(value, list):
                shielded[key] = [self._name(v) if isinstance(v, str) else v for v in value]
            elif key in ("default", "examples"):
                shielded[key] = value  # data, never a schema
            elif key == "description" and isinstance(value, str):
                shielded[key] = self._description(value)
            elif key == "format":
                # An annotation only (the server does not check it), and JSON carries a
                # formatted value as a string all the same; the generator would type
                # "binary" as bytes, and warn about formats it does not know.
                continue
            elif key == "$ref" and isinstance(value, str):
                shielded[key] = self._reference(value)
            elif (kind := position(key, value)) == "map":
                shielded[key] = {self._map_key(key, k): self._walk(v) for k, v in value.items()}
            elif kind == "list":
                shielded[key] = [self._walk(v) for v in value]
            elif kind == "one":
                shielded[key] = self._walk(value)
            else:
                shielded[key] = value
        return shielded

    def _map_key(self, keyword: str, name: str) -> str:
        """A name in a map of subschemas: property and definition names each shielded
        their own way, the rest (dependentSchemas) kept."""
        if keyword in PROPERTIES:
            return self._name(name)
        return self._definition(name) if keyword in DEFINITIONS else name

    def restore_text(self, text: str) -> str:
        """A message of the generator's with schema text in place of tokens."""
        for token, original in self.originals.items():
            text = text.replace(token, original)
        return text

    def restore(self, source: str) -> str:
        # One pass over the source per kind of token, not one per token: a module of
        # Stripe's has thousands of tokens, and a pass each made restoring quadratic.
        salt = re.escape(str(self._salt))
        docstrings = re.compile(rf'^( *)"""\s*(mcpcgtok-{salt}-\d+-z)\s*"""$', re.MULTILINE)
        source = docstrings.sub(self._docstring, source)
        quoted = re.compile(rf"(['\"])(mcpcgtok-{salt}-\d+-z)\1")
        source = quoted.sub(lambda m: string_literal(self.originals[m.group(2)]), source)
        # Originals never hold a token (the salt sees to it), so the order of the passes
        # does not matter; class names are chosen in token order, clear of the text so far.
        originals = list(self.originals.values())
        classes = sorted({int(n) for n in re.findall(rf"Mcpcgtok{salt}(\d+)Z", source)})
        for index in (n for n in classes if n < len(originals)):
            # A class named after a shielded property gets a name from its readable part.
            readable = pascal_case(originals[index]).lstrip("_") or f"Property{index}"
            while readable in source:
                readable += "_"
            source = source.replace(f"Mcpcgtok{self._salt}{index}Z", readable)
        return source

    def _docstring(self, match: re.Match[str]) -> str:
        token = match.group(2)
        if token not in self.descriptions:
            return match.group(0)
        return _Docstring(self.originals[token])(match)
