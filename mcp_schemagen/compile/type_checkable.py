"""The generator's TypedDicts rewritten where the pinned mypy would refuse them, so the
generated code type-checks under ``mypy --strict`` whatever valid schema it came from:

- ``extra_items=T`` (PEP 728: properties beside a schema-valued additionalProperties),
  which mypy does not read yet ("Unexpected keyword argument"): the keyword is dropped
  and said in a comment; the named keys stay typed, the other keys are still validated.
- a class that redefines a key of a base class (an ``allOf`` that makes a base's
  optional field required, or narrows its type), which mypy refuses ("Overwriting
  TypedDict field"): the class no longer inherits; it lists the base's keys itself,
  its own definitions in place of the base's.
"""

from __future__ import annotations

import ast

_DROPPED = "extra_items"


def type_checkable(source: str) -> str:
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    fields: dict[str, list[tuple[str, str]]] = {}
    replacements: list[tuple[int, int, str]] = []  # (first line, last line, new text)
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        preamble, own = _split_body(node, lines)
        bases = [b.id for b in node.bases if isinstance(b, ast.Name) and b.id in fields]
        inherited: dict[str, str] = {}
        for base in bases:
            inherited.update(fields[base])
        clash = any(key in inherited for key in own) or _bases_clash(bases, fields)
        merged = {**inherited, **own} if bases else own
        fields[node.name] = list(merged.items())
        dropped = [k for k in node.keywords if k.arg == _DROPPED]
        if not clash and not dropped:
            continue
        kept_bases = (
            [ast.unparse(b) for b in node.bases if not (isinstance(b, ast.Name) and b.id in bases)]
            if clash
            else [ast.unparse(b) for b in node.bases]
        )
        if clash and "TypedDict" not in kept_bases:
            kept_bases.insert(0, "TypedDict")
        keywords = [f"{k.arg}={ast.unparse(k.value)}" for k in node.keywords if k.arg != _DROPPED]
        header = f"class {node.name}({', '.join(kept_bases + keywords)}):\n"
        notes = "".join(
            f"    # other keys: {ast.unparse(k.value)} (additionalProperties; PEP 728"
            " extra_items, which the pinned mypy does not read)\n"
            for k in dropped
        )
        body = merged if clash else own
        if body:
            preamble = [text for text in preamble if text.strip() != "pass"]
        text = header + notes + "".join(preamble) + "".join(body.values())
        if not text.endswith("\n"):
            text += "\n"
        if text == header + notes:
            text += "    pass\n"
        replacements.append((node.lineno, node.end_lineno or node.lineno, text))
    for first, last, text in reversed(replacements):
        lines[first - 1 : last] = [text]
    return "".join(lines)


def _split_body(node: ast.ClassDef, lines: list[str]) -> tuple[list[str], dict[str, str]]:
    """The statements before the first key (the class docstring), and each key's text:
    its annotation and the docstring under it."""
    preamble: list[str] = []
    own: dict[str, str] = {}
    current: str | None = None
    for statement in node.body:
        text = "".join(lines[statement.lineno - 1 : (statement.end_lineno or statement.lineno)])
        text += "" if text.endswith("\n") else "\n"  # the module's last line has none
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            current = statement.target.id
            own[current] = text
        elif current is None:
            preamble.append(text)
        else:
            own[current] += text
    return preamble, own


def _bases_clash(bases: list[str], fields: dict[str, list[tuple[str, str]]]) -> bool:
    """Two bases defining one key differently: mypy refuses the merge."""
    seen: dict[str, str] = {}
    for base in bases:
        for key, text in fields[base]:
            if key in seen and seen[key] != text:
                return True
            seen[key] = text
    return False
