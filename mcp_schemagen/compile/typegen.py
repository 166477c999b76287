"""Typed views of tool schemas: TypedDicts from datamodel-code-generator.

TypedDicts, not pydantic models: validation is jsonschema-rs's job, so the handler gets
the validated JSON as it is (no copy, no coercion) and the editor still knows every key.
"""

from __future__ import annotations

import ast
import json
import re
import warnings
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from mcp_schemagen.compile.type_cache import Entry, cache_key, entry_path, read_entry, write_entry
from mcp_schemagen.compile.type_checkable import type_checkable
from mcp_schemagen.compile.type_expr import TypeExpr
from mcp_schemagen.compile.typed_module import Import, TypedClass, TypedModule
from mcp_schemagen.naming import docstring_literal, pascal_case, string_literal
from mcp_schemagen.schema.keywords import (
    DEFINITIONS,
    KEYWORDS,
    PROPERTIES,
)
from mcp_schemagen.schema.walk import position

_WRAPPERS = ("NotRequired", "Required", "ReadOnly")


def _options() -> dict[str, Any]:
    from datamodel_code_generator.enums import DataModelType, InputFileType
    from datamodel_code_generator.format import PythonVersion

    # Every option that shapes the output is pinned here, so the bytes depend only on
    # the schema and the pinned datamodel-code-generator version.
    return {
        "input_file_type": InputFileType.JsonSchema,
        "output_model_type": DataModelType.TypingTypedDict,
        "target_python_version": PythonVersion.PY_311,
        "disable_timestamp": True,
        "formatters": [],
        "use_double_quotes": True,
        "enum_field_as_literal": "all",
        "use_union_operator": True,
        "use_standard_collections": True,
        "use_field_description": True,  # descriptions as field docstrings, for editors
        "use_schema_description": False,
        "use_title_as_name": False,
        "allow_remote_refs": False,
    }


def _is_any(schema: Any) -> bool:
    return (
        schema is True
        or schema == {}
        or (isinstance(schema, dict) and set(schema) <= {"$schema", "description", "title"})
    )


def cache_entry(schema: Any, root: str, cache_dir: Path) -> tuple[Path, str]:
    """Where the types of the shielded ``schema`` named ``root`` are cached, and their key."""
    # Key order is kept: it decides the order of TypedDict keys.
    key = cache_key(json.dumps(schema, ensure_ascii=True), root)
    return entry_path(cache_dir, key), key


# The root name the generator is asked for, renamed to the real one afterwards: its output
# depends on the root's name only where that name is printed, so the tools sharing a schema
# (an output schema, a paginated input...) share one run and one cache entry.
ROOT_STAND_IN = "McpcgRootStandIn"


def generation_root(schema: Any, root: str) -> str:
    """The root name the shielded ``schema`` is generated under: the stand-in, unless the
    schema's text could name it (a title, a definition), which would change its output."""
    text = json.dumps(schema, ensure_ascii=True).lower()
    return root if ROOT_STAND_IN.lower() in text else ROOT_STAND_IN


def generated_types(schema: Any, root: str, cache_dir: Path | None) -> Entry:
    """The module's source and the generator's warnings for the shielded ``schema`` (cached
    together, so a warm build reports what a cold one does)."""
    stand_in = generation_root(schema, root)
    if stand_in != root:
        body, notes = _generated_types(schema, stand_in, cache_dir)
        # The generator renames a class whose name is taken (a nested ``Customer`` beside
        # a root ``Customer``): where the real name is already in the text, the swap could
        # differ from its output, so that schema is made under its own name instead.
        if root not in body and not any(root in note for note in notes):
            return body.replace(stand_in, root), tuple(n.replace(stand_in, root) for n in notes)
    return _generated_types(schema, root, cache_dir)


def _generated_types(schema: Any, root: str, cache_dir: Path | None) -> Entry:
    place = cache_entry(schema, root, cache_dir) if cache_dir is not None else None
    found = read_entry(*place) if place is not None else None
    if found is not None:
        return found
    # Imported only on a cache miss: a rebuild after one edit should not pay for it.
    from datamodel_code_generator import generate

    # Its warnings name its own internals; the caller reports them in our words instead.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # A copy through JSON text, as the key reads it: the generator may change its input.
        source = generate(json.loads(json.dumps(schema)), class_name=root, **_options())
    assert isinstance(source, str)
    notes = tuple(dict.fromkeys(str(w.message) for w in caught))
    # Drop its own header (it names a temporary input); ours carries the provenance.
    body = "\n".join(
        line
        for line in source.splitlines()
        if not line.startswith("#   ") and not line.startswith("# generated by")
    )
    if place is not None:
        write_entry(*place, (body, notes))
    return body, notes


def shielded(schema: Any) -> Any | None:
    """The schema as the generator gets it, or None for a schema typed ``Any`` without it
    (the jobs compile/type_prefill.py runs ahead)."""
    return None if _is_any(schema) else _Shield(schema).schema


# Any key not of the dialects is dropped before type generation (see _Shield._walk).
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


class _Shield:
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


def typed_module(schema: Any, root: str, cache_dir: Path | None = None) -> TypedModule:
    if _is_any(schema):
        imports = frozenset({Import("typing", "Any"), Import("typing", "TypeAlias")})
        body = f"{root}: TypeAlias = Any"
        return TypedModule(root, imports, body, {}, (), frozenset({root}))
    shield = _Shield(schema)
    generated, notes = generated_types(shield.schema, root, cache_dir)
    source = type_checkable(shield.restore(generated))
    # The one reading of the generator's text: everything later stages need, as data.
    tree = ast.parse(source)
    segments = _Segments(source)
    imports, body = _split_imports(tree, source)
    return TypedModule(
        root,
        imports,
        body,
        _root_fields(tree, segments, root),
        _classes(tree),
        frozenset(_top_level_names(tree)),
        tuple(shield.restore_text(note) for note in notes),
    )


def _split_imports(tree: ast.Module, source: str) -> tuple[frozenset[Import], str]:
    """The leading imports (``from __future__`` aside, which every module gets) as
    records, and the text after them."""
    imports: set[Import] = set()
    end = 0
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and not node.level:
            if node.module != "__future__":
                imports |= {Import(node.module or "", a.name, a.asname or "") for a in node.names}
        elif isinstance(node, ast.Import):
            imports |= {Import(a.name, "", a.asname or "") for a in node.names}
        else:
            break
        end = node.end_lineno or node.lineno
    lines = re.split(r"(?<=\n)", source)
    return frozenset(imports), "".join(lines[end:]).strip("\n")


def _classes(tree: ast.Module) -> tuple[TypedClass, ...]:
    return tuple(
        TypedClass(
            node.name,
            tuple(
                (item.target.id, not _is_not_required(item.annotation))
                for item in node.body
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
            ),
        )
        for node in tree.body
        if isinstance(node, ast.ClassDef)
    )


def _is_not_required(annotation: ast.expr) -> bool:
    return (
        isinstance(annotation, ast.Subscript)
        and isinstance(annotation.value, ast.Name)
        and annotation.value.id == "NotRequired"
    )


def _top_level_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


class _Segments:
    """Source text of AST nodes, from lines split once.

    ``ast.get_source_segment`` splits the whole module into lines on every call, so
    asking it for each field of a 5,000-property TypedDict was quadratic in schema size.
    """

    def __init__(self, source: str) -> None:
        # The lines as the parser counts them (\n, \r\n or \r), as UTF-8: node columns
        # are byte offsets.
        lines = re.split(r"(?<=\n)|(?<=\r)(?!\n)", source)
        self._lines = [line.encode("utf-8") for line in lines]

    def of(self, node: ast.expr) -> str:
        assert node.end_lineno is not None and node.end_col_offset is not None
        first, last = node.lineno - 1, node.end_lineno - 1
        if first == last:
            return self._lines[first][node.col_offset : node.end_col_offset].decode("utf-8")
        parts = [self._lines[first][node.col_offset :], *self._lines[first + 1 : last]]
        parts.append(self._lines[last][: node.end_col_offset])
        return b"".join(parts).decode("utf-8")


def _unwrap(annotation: ast.expr, segments: _Segments) -> TypeExpr:
    while (
        isinstance(annotation, ast.Subscript)
        and isinstance(annotation.value, ast.Name)
        and annotation.value.id in _WRAPPERS
    ):
        annotation = annotation.slice
    return _type_expr(annotation, segments)


def _type_expr(node: ast.expr, segments: _Segments) -> TypeExpr:
    text = " ".join(segments.of(node).split())
    if isinstance(node, ast.Name):
        return TypeExpr("name", text, node.id)
    if isinstance(node, ast.Constant):
        return TypeExpr("none" if node.value is None else "value", text)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        members: list[ast.expr] = []
        while isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            members.append(node.right)
            node = node.left
        members.append(node)
        args = tuple(_type_expr(m, segments) for m in reversed(members))
        return TypeExpr("union", text, args=args)
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        args = tuple(_type_expr(item, segments) for item in items)
        return TypeExpr("generic", text, node.value.id, args)
    used = frozenset(n.id for n in ast.walk(node) if isinstance(n, ast.Name))
    return TypeExpr("other", text, other_names=used)


def _root_fields(tree: ast.Module, segments: _Segments, root: str) -> dict[str, TypeExpr]:
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == root:
            return {
                item.target.id: _unwrap(item.annotation, segments)
                for item in node.body
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
            }
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == root for t in node.targets)
            and isinstance(node.value, ast.Call)
            and len(node.value.args) == 2
            and isinstance(node.value.args[1], ast.Dict)
        ):
            table = node.value.args[1]
            return {
                key.value: _unwrap(value, segments)
                for key, value in zip(table.keys, table.values, strict=True)
                if isinstance(key, ast.Constant) and isinstance(key.value, str)
            }
    return {}
