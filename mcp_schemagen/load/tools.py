"""Read tool files: JSON or YAML holding one tool, a list of tools, or a tools/list result."""

from __future__ import annotations

import json
import math
import re
import sys
import unicodedata
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import yaml

from mcp_schemagen.diagnostics import Diagnostic, error, pointer_join
from mcp_schemagen.load.containment import outside_message
from mcp_schemagen.source import Source


class _DuplicateKey(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # json.loads would silently keep the last of two equal keys; a schema author
    # almost never means that, and the published definition would differ from the file.
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKey(key)
        result[key] = value
    return result


class _StrictYamlLoader(yaml.SafeLoader):
    """SafeLoader (constructs plain data only, never objects) that refuses duplicate keys."""


def _construct_mapping(loader: _StrictYamlLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    mapping: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in mapping:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        mapping[key] = loader.construct_object(value_node, deep=True)
    return mapping


_StrictYamlLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
    _construct_mapping,
)


# Bounds on what a tool file may hold, checked before anything is built from it: a few
# hundred bytes of YAML aliases expand to billions of nodes, and nesting beyond what the
# later stages (Python's recursion limit) handle would end in a traceback, not a message.
MAX_FILE_BYTES = 16 * 1024 * 1024
MAX_NODES = 200_000
MAX_DEPTH = 64


class _TooLarge(ValueError):
    pass


class _Recursive(ValueError):
    pass


def _bounded_yaml(node: yaml.Node) -> None:
    """Raise _TooLarge when ``node``, with every alias expanded, holds more than MAX_NODES
    nodes or nests deeper than MAX_DEPTH. Each node is measured once (aliases share their
    node), so a bomb is measured in time linear in its size, never expanded."""
    sizes: dict[int, tuple[int, int]] = {}  # id(node) -> (expanded node count, depth)
    active: set[int] = set()

    def measure(current: yaml.Node) -> tuple[int, int]:
        key = id(current)
        if key in sizes:
            return sizes[key]
        if key in active:
            raise _Recursive()
        active.add(key)
        count, depth = 1, 1
        children: list[yaml.Node] = []
        if isinstance(current, yaml.SequenceNode):
            children = list(current.value)
        elif isinstance(current, yaml.MappingNode):
            children = [child for pair in current.value for child in pair]
        for child in children:
            child_count, child_depth = measure(child)
            count, depth = count + child_count, max(depth, child_depth + 1)
            if count > MAX_NODES:
                raise _TooLarge(f"more than {MAX_NODES:,} values once aliases are expanded")
            if depth > MAX_DEPTH:
                raise _TooLarge(f"nested more than {MAX_DEPTH} levels deep")
        active.discard(key)
        sizes[key] = (count, depth)
        return count, depth

    measure(node)


def _bounded(document: Any) -> None:
    """The same bounds for a parsed JSON document (no aliases), walked without recursion."""
    count, pending = 0, [(document, 1)]
    while pending:
        value, depth = pending.pop()
        count += 1
        if count > MAX_NODES:
            raise _TooLarge(f"more than {MAX_NODES:,} values")
        if depth > MAX_DEPTH:
            raise _TooLarge(f"nested more than {MAX_DEPTH} levels deep")
        if isinstance(value, dict):
            pending.extend((item, depth + 1) for item in value.values())
        elif isinstance(value, list):
            pending.extend((item, depth + 1) for item in value)


def _load_yaml(text: str) -> Any:
    loader = _StrictYamlLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _bounded_yaml(node)
        return loader.construct_document(node)
    finally:
        loader.dispose()


_LIMIT_HINT = "split the tool into smaller files or flatten the schema with $defs and $ref"


def parse_file(path: Path, label: str) -> tuple[Any, list[Diagnostic]]:
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            return None, [
                error(
                    label,
                    "",
                    f"file is {size:,} bytes; tool files may be at most {MAX_FILE_BYTES:,}",
                )
            ]
        data = path.read_bytes()
    except OSError as exc:
        return None, [error(label, "", f"cannot be read: {exc.strerror or exc}")]
    return parse_bytes(data, label, as_json=path.suffix == ".json")


def parse_bytes(data: bytes, label: str, *, as_json: bool) -> tuple[Any, list[Diagnostic]]:
    """A definition file's content (JSON, or YAML unless ``as_json``), parsed under the same
    bounds and checks as a file on disk: for content read from elsewhere (a git revision)."""
    if len(data) > MAX_FILE_BYTES:
        return None, [
            error(
                label,
                "",
                f"file is {len(data):,} bytes; tool files may be at most {MAX_FILE_BYTES:,}",
            )
        ]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, [error(label, "", f"not UTF-8 text: {exc}")]
    try:
        if as_json:
            document = json.loads(text, object_pairs_hook=_no_duplicates)
            _bounded(document)
            return document, []
        return _load_yaml(text), []
    except _DuplicateKey as exc:
        return None, [error(label, "", f"duplicate key {exc.args[0]!r}; JSON keys must be unique")]
    except json.JSONDecodeError as exc:
        return None, [
            error(label, "", f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}")
        ]
    except yaml.YAMLError as exc:
        return None, [error(label, "", f"not valid YAML: {exc}".replace("\n", " "))]
    except _TooLarge as exc:
        return None, [error(label, "", f"too large to build: {exc}; {_LIMIT_HINT}")]
    except _Recursive:
        return None, [
            error(
                label,
                "",
                "a YAML alias refers to a node that contains it; JSON has no recursive values, "
                'so describe recursion with "$ref"',
            )
        ]
    except RecursionError:
        return None, [
            error(
                label,
                "",
                f"too large to build: nested more than {MAX_DEPTH} levels deep; {_LIMIT_HINT}",
            )
        ]
    except ValueError as exc:
        if "digits" not in str(exc):
            raise
        # int() refuses integers of more than sys.get_int_max_str_digits() digits.
        return None, [
            error(
                label,
                "",
                f"an integer has more than {sys.get_int_max_str_digits()} digits, more than "
                "can be read safely; write a shorter number",
            )
        ]


_NOT_UNICODE = (
    "is not valid Unicode: it holds a lone surrogate (an unpaired \\ud800-\\udfff escape), "
    "which no client can decode; write the character itself or a valid surrogate pair"
)


# One search in C per string: every string of every tool file is looked at (a character
# at a time in Python, this was 8 s of a build of Stripe's import).
_SURROGATE = re.compile("[\ud800-\udfff]")


def _lone_surrogate(text: str) -> bool:
    # JSON "\ud800" escapes and YAML "\ud800" both decode to a lone surrogate; such text
    # cannot be encoded as UTF-8, so the server would die sending it.
    return _SURROGATE.search(text) is not None


def not_json(value: Any, label: str, pointer: str) -> list[Diagnostic]:
    """YAML has values JSON has not (dates, non-string keys) and JSON parsers accept
    1e999 as infinity; a tool definition must be plain JSON to be published as written."""
    if isinstance(value, dict):
        found = []
        for key, item in value.items():
            if not isinstance(key, str):
                found.append(error(label, pointer, f"key {key!r} is not a string; quote it"))
            elif _lone_surrogate(key):
                found.append(error(label, pointer_join(pointer, key), f"this key {_NOT_UNICODE}"))
            else:
                found.extend(not_json(item, label, pointer_join(pointer, key)))
        return found
    if isinstance(value, list):
        return [
            d
            for i, item in enumerate(value)
            for d in not_json(item, label, pointer_join(pointer, i))
        ]
    if isinstance(value, float) and not math.isfinite(value):
        return [error(label, pointer, f"{value} is not a JSON number; use a finite number")]
    if isinstance(value, str) and _lone_surrogate(value):
        return [error(label, pointer, f"this text {_NOT_UNICODE}")]
    if value is None or isinstance(value, str | int | float | bool):
        return []
    return [
        error(label, pointer, f"a {type(value).__name__} value is not JSON; quote it as a string")
    ]


def tools_in(document: Any, label: str) -> tuple[list[Source], list[Diagnostic]]:
    """The tools a parsed file holds, by shape: a tool, a list, or a tools/list result."""
    found, problems = definitions_in(
        document, label, "tools", "a tool (an object with name and inputSchema)"
    )
    return [Source("tool", label, pointer, item) for pointer, item in found], problems


def definitions_in(
    document: Any, label: str, plural: str, one: str
) -> tuple[list[tuple[str, dict[str, Any]]], list[Diagnostic]]:
    """(pointer, definition) of each definition a parsed file holds, by shape: one, a list,
    or a saved ``<plural>/list`` result (``{"result": {plural: [...]}}`` or ``{plural: [...]}``).
    ``one`` describes a single definition in the error a file of no such shape gets."""
    if isinstance(document, dict) and isinstance(document.get("result"), dict):
        return _list_at(document["result"].get(plural), label, f"/result/{plural}", plural)
    if isinstance(document, dict) and plural in document and "name" not in document:
        return _list_at(document[plural], label, f"/{plural}", plural)
    if isinstance(document, list):
        return _list_at(document, label, "", plural)
    if isinstance(document, dict):
        return [("", document)], []
    shape = f'expected {one}, a list of {plural}, or a {plural}/list result ({{"{plural}": [...]}})'
    return [], [error(label, "", shape)]


def _list_at(
    items: Any, label: str, pointer: str, plural: str
) -> tuple[list[tuple[str, dict[str, Any]]], list[Diagnostic]]:
    if not isinstance(items, list):
        return [], [error(label, pointer, f"expected a list of {plural}")]
    found: list[tuple[str, dict[str, Any]]] = []
    problems: list[Diagnostic] = []
    for index, item in enumerate(items):
        where = pointer_join(pointer, index)
        if isinstance(item, dict):
            found.append((where, item))
        else:
            problems.append(error(label, where, f"expected a {plural.removesuffix('s')} object"))
    return found, problems


def tool_label(root: Path, path: Path) -> str:
    """How a tool file is named in diagnostics, headers and the manifest: its path
    relative to the project, with forward slashes on every platform."""
    resolved_root = root.resolve()
    return (
        path.relative_to(resolved_root).as_posix()
        if path.is_relative_to(resolved_root)
        else path.as_posix()
    )


def file_name_problem(label: str) -> str | None:
    """Why a tool file's name cannot be used, if it cannot: the name is printed in
    diagnostics and recorded in the headers of generated modules and in the manifest."""
    if _lone_surrogate(label):  # how Python names bytes that are not UTF-8
        return "the file name is not valid UTF-8; rename the file"
    if any(unicodedata.category(c) in _UNPRINTABLE for c in label):
        return (
            "the file name holds control, line-break or bidi characters, which would "
            "disguise what diagnostics and generated headers say; rename the file"
        )
    return None


_UNPRINTABLE = frozenset({"Cc", "Cf", "Zl", "Zp"})


def find_tool_files(root: Path, globs: Iterable[str], *, allow_outside: bool = False) -> list[Path]:
    """Every tool file the globs match; unless ``allow_outside``, only those inside the
    project once links are followed (outside_tool_files names the others)."""
    # Sorted by label so the order never depends on the file system.
    matches = {p.resolve() for pattern in globs for p in root.glob(pattern) if p.is_file()}
    if not allow_outside:
        matches = {p for p in matches if p.is_relative_to(root.resolve())}
    return sorted(matches, key=lambda p: tool_label(root, p))


def outside_tool_files(root: Path, globs: Iterable[str]) -> list[str]:
    """The matches of ``globs`` that lead outside the project, by the name they have in it."""
    resolved_root = root.resolve()
    return sorted(
        {
            p.relative_to(root).as_posix() if p.is_relative_to(root) else p.as_posix()
            for pattern in globs
            for p in root.glob(pattern)
            if p.is_file() and not p.resolve().is_relative_to(resolved_root)
        }
    )


Found = TypeVar("Found")


def load_tools(
    root: Path, globs: Iterable[str], *, allow_outside: bool = False
) -> tuple[list[Source], list[Diagnostic], list[Path]]:
    """Every tool of the project, its problems, and the files read (for provenance).
    A match that leads outside the project is reported, never read (unless allowed)."""
    return read_definition_files(root, globs, "tool", tools_in, allow_outside=allow_outside)


def read_definition_files(
    root: Path,
    globs: Iterable[str],
    kind: str,
    shape: Callable[[Any, str], tuple[list[Found], list[Diagnostic]]],
    *,
    allow_outside: bool = False,
) -> tuple[list[Found], list[Diagnostic], list[Path]]:
    """The definitions of one kind (tools, prompts) in the files ``globs`` match, read by
    ``shape``; their problems; the files read. The same checks for every kind: file names,
    links leading outside the project (reported, never read unless allowed), YAML/JSON."""
    globs = tuple(globs)
    sources: list[Found] = []
    problems: list[Diagnostic] = []
    files = find_tool_files(root, globs, allow_outside=allow_outside)
    if not allow_outside:
        problems.extend(
            error(name, "", outside_message(f"this {kind} file (a symbolic link)"))
            for name in outside_tool_files(root, globs)
        )
    for path in files:
        label = tool_label(root, path)
        name_problem = file_name_problem(label)
        if name_problem:
            problems.append(error(label, "", name_problem))
            continue
        found, file_problems = definitions_of(parse_file(path, label), label, shape)
        sources.extend(found)
        problems.extend(file_problems)
    return sources, problems, files


def definitions_of(
    parsed: tuple[Any, list[Diagnostic]],
    label: str,
    shape: Callable[[Any, str], tuple[list[Found], list[Diagnostic]]],
) -> tuple[list[Found], list[Diagnostic]]:
    """The definitions in one parsed file (parse_file or parse_bytes), once its content is
    plain JSON data, read by ``shape``; or the problems that stop it being read."""
    document, problems = parsed
    if problems:
        return [], problems
    json_problems = not_json(document, label, "")
    if json_problems:
        return [], json_problems
    return shape(document, label)
