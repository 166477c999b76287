"""Protocol models: one pydantic module per pinned revision, made from its schema.json.

The schema is prepared in memory (a deep copy: the loaded document, which validators
use, is never changed), handed to datamodel-code-generator (DMCG) through its Python API
with every option that shapes the output pinned here, and the result is formatted once
with our pinned ruff.

The preparation pass settles three things DMCG would not settle well on its own:

* Names. DMCG names an inline schema after its property (``Error``) and breaks ties with
  counters (``Error1``, ``Error2``), so a class's name depends on what else the schema
  holds and changes when an unrelated definition is added. Every inline node that would
  become a class is hoisted into the definitions under a name made from its JSON path
  (``/$defs/UnsupportedProtocolVersionError/properties/error`` ->
  ``UnsupportedProtocolVersionErrorError``) and replaced by a ``$ref``; DMCG names a
  definition by its key, so every class name is either a schema definition name or a
  path name chosen here.
* Numbers. pydantic turns a JSON ``50`` in a ``float`` field into ``50.0``, so a message
  would not dump back as it came. Every ``"type": "number"`` is widened to the same set
  of instances spelled ``["integer", "number"]``, which DMCG renders ``int | float``,
  and pydantic keeps whichever of the two it was given.
* Discriminated unions. The schemas write content blocks (and similar unions) as a plain
  ``anyOf`` of ``$ref``s whose members each require a ``type`` with its own constant.
  pydantic would try every member in turn ("smart" mode) and report one error per member;
  a union discriminated on ``type`` picks the member from the tag, is faster and names the
  bad tag. JSON Schema has no discriminator keyword, so the OpenAPI-style ``discriminator``
  hint (which DMCG reads) is added only where every member provably carries a distinct
  required tag, i.e. where it cannot change which instances are accepted.

Rendering takes about 0.4 s per revision (mostly DMCG), and ``check`` renders every
revision on each run, so finished modules are cached by a key over everything that
shapes their bytes.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from importlib import metadata
from pathlib import Path
from typing import Any, Final
from urllib.parse import unquote

import datamodel_code_generator as dmcg
from datamodel_code_generator import CustomFileHeaderMode, InputFileType, LiteralType, PythonVersion
from datamodel_code_generator.enums import DataModelType

from mcp_schemagen import __version__
from mcp_schemagen.caches import folder, store
from mcp_schemagen.load.specs import LoadedSpec, patches
from mcp_schemagen.render import formatting
from mcp_schemagen.render.formatting import format_python
from mcp_schemagen.render.provenance import header, sha256_text
from mcp_schemagen.runtime import protocol
from mcp_schemagen.schema.walk import subschemas

PACKAGE_DOCSTRING: Final = "Typed models of the MCP protocol, one module per pinned revision."

# The property unions are discriminated on (see the module docstring).
DISCRIMINATOR_PROPERTY: Final = "type"

# Every DMCG option that shapes the output, pinned, so that a DMCG default changing
# between releases cannot change our bytes unnoticed. Options not listed only concern
# other inputs (OpenAPI, GraphQL ...) or other output targets.
GENERATOR_OPTIONS: Final[Mapping[str, Any]] = {
    "input_file_type": InputFileType.JsonSchema,
    "output_model_type": DataModelType.PydanticV2BaseModel,
    "target_python_version": PythonVersion.PY_311,
    # No timestamp and no DMCG header: our provenance header replaces it.
    "disable_timestamp": True,
    "enable_version_header": False,
    "enable_command_header": False,
    "custom_file_header_mode": CustomFileHeaderMode.Replace,
    # DMCG's own formatters off; ruff runs once over the final text (format_python).
    "formatters": [],
    # The document root holds only definitions; DMCG would emit ``Model(RootModel[Any])``.
    "skip_root_model": True,
    # Names are definition keys (path names are made keys by the preparation pass).
    "use_title_as_name": False,
    "parent_scoped_naming": False,
    "snake_case_field": False,
    "capitalise_enum_members": False,
    # JSON Schema allows properties a schema does not list unless it says
    # ``additionalProperties: false`` (no published revision does). The models keep them,
    # so ``model_dump(by_alias=True, exclude_unset=True)`` gives back the message received,
    # a newer peer's fields and ``_meta`` keys included.
    "extra_fields": "allow",
    "allow_population_by_field_name": False,
    # Enums as ``Literal``: protocol enums are small closed sets of strings, a
    # discriminator field must be a Literal, and no enum class needs inventing a name.
    "enum_field_as_literal": LiteralType.All,
    "use_one_literal_as_default": False,
    # Constraints as ``Field(ge=..)`` arguments, not ``confloat(..)`` (invalid for mypy).
    # ``Annotated`` stays off: 2024-11-05 has a definition named ``Annotated``.
    "field_constraints": True,
    "use_annotated": False,
    # Wire values stay as they are: ``AnyUrl`` normalises (adds a trailing slash) and
    # ``Base64Str`` decodes, both of which break round-trips. Validity is decided by
    # jsonschema-rs against the schema, never by pydantic (DESIGN.md).
    "type_mappings": ["string+uri=string", "string+byte=string", "string+uri-template=string"],
    "strict_nullable": False,
    "use_standard_collections": True,
    "use_union_operator": True,
    "use_schema_description": True,
    "use_field_description": False,
    "use_default_kwarg": False,
    "use_double_quotes": True,
    "keep_model_order": False,
    "collapse_root_models": False,
    "reuse_model": False,
    "use_exact_imports": False,
    "disable_future_imports": False,
    "allow_remote_refs": False,
}

# Bump when rendering changes in a way the cache key below does not see.
_CACHE_FORMAT: Final = 1
_DEFINITION_KEYS: Final = ("$defs", "definitions")
_UNIONS: Final = ("anyOf", "oneOf")


def module_name(revision: str) -> str:
    """The module of a revision in the generated ``protocol`` package: ``v2024_11_05``."""
    return "v" + revision.replace("-", "_")


def render_protocol_module(spec: LoadedSpec, *, use_cache: bool = True) -> str:
    """The final text of the models module of one revision."""
    prepared = prepare_schema(spec.document)
    file_header = _module_header(spec)
    cached = _cache_path(file_header, prepared) if use_cache else None
    if cached is not None and cached.is_file():
        return cached.read_text(encoding="utf-8")
    text = dmcg.generate(prepared, custom_file_header=file_header, **GENERATOR_OPTIONS)
    if not isinstance(text, str):  # one input document gives one module
        raise TypeError(f"datamodel-code-generator returned {type(text).__name__}, not a module")
    formatted = format_python(text)
    if cached is not None:
        store(cached, formatted.encode("utf-8"))
    return formatted


def render_protocol_init(revisions: Sequence[str]) -> str:
    """``protocol/__init__.py``: says what the package holds; importing it imports no model."""
    modules = ", ".join(module_name(revision.name) for revision in protocol.ordered(revisions))
    text = header([], note=f"revision modules: {modules}") + f'"""{PACKAGE_DOCSTRING}"""\n'
    return format_python(text)


def _module_header(spec: LoadedSpec) -> str:
    name = spec.revision.name
    note = (
        f"MCP protocol revision {name}, by datamodel-code-generator "
        f"{metadata.version('datamodel-code-generator')} and ruff {metadata.version('ruff')}"
    )
    inputs = [(f"{name}/schema.json", spec.revision.sha256)]
    # The models are made from the patched document: the patches are an input too.
    applied = [asdict(patch) for patch in patches() if patch.revision == name]
    if applied:
        digest = sha256_text(json.dumps(applied, sort_keys=True))
        inputs.append((f"specs/patches.toml [{name}]", digest))
    comments = header(inputs, note=note)
    docstring = f'"""Models of MCP protocol revision {name}, generated from its schema.json."""'
    return comments + "\n" + docstring


def _cache_path(file_header: str, prepared: Mapping[str, Any]) -> Path:
    """Where the module rendered from exactly these inputs is cached.

    The header names the mcp-codegen, DMCG and ruff versions and the schema's and
    patches' sha256; the prepared document, this file's source (every option and step)
    and the formatting module's (ruff's options) cover the rest.
    """
    digest = hashlib.sha256()
    for part in (
        str(_CACHE_FORMAT),
        __version__,
        file_header,
        json.dumps(prepared, sort_keys=True, ensure_ascii=False),
        Path(__file__).read_text(encoding="utf-8"),
        Path(formatting.__file__).read_text(encoding="utf-8"),
    ):
        digest.update(part.encode("utf-8"))
        digest.update(b"\0")
    return folder("protocol-models") / f"{digest.hexdigest()}.py"


# --- preparation pass ------------------------------------------------------------------


def prepare_schema(document: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``document`` for DMCG: numbers widened, discriminator hints added, and
    inline classes hoisted, so every class of the module is named by a definition of it.
    """
    prepared: dict[str, Any] = copy.deepcopy(dict(document))
    key = next((k for k in _DEFINITION_KEYS if isinstance(prepared.get(k), dict)), None)
    if key is None:
        return prepared
    _rename_definitions(prepared, key)
    definitions: dict[str, Any] = prepared[key]
    # Discriminators first: a discriminated union that is an array's items becomes a
    # class, so it is marked before hoisting decides what becomes a class.
    for node, _ in subschemas(prepared):
        _widen_number(node)
        _mark_discriminated_union(node, definitions)
    _Hoister(definitions, key).hoist_all()
    return prepared


def _rename_definitions(document: dict[str, Any], key: str) -> None:
    """Give a definition whose name is no Python identifier a path-style name.

    2024-10-07 names one after a TypeScript type, ``Record<string,string>``, referred to
    percent-encoded (the patched form, see specs/patches.toml). DMCG would neither decode
    the reference nor keep the name; ``RecordStringString`` is named here instead, and
    every reference to it (encoded or not) is rewritten.
    """
    definitions: dict[str, Any] = document[key]
    new_names: dict[str, str] = {}
    taken = set(definitions)
    for name in definitions:
        if not name.isidentifier():
            new = _pascal(name)
            while new in taken:
                new += "Inline"
            taken.add(new)
            new_names[name] = new
    if not new_names:
        return
    # Rebuilt in the original order: renaming moves no class in the module.
    document[key] = {new_names.get(name, name): node for name, node in definitions.items()}
    targets = {f"#/{key}/{old}": f"#/{key}/{new}" for old, new in new_names.items()}
    for node, _ in subschemas(document):
        ref = node.get("$ref")
        if isinstance(ref, str) and unquote(ref) in targets:
            node["$ref"] = targets[unquote(ref)]


class _Hoister:
    """Moves every inline node that becomes a class into the definitions, named by its path.

    The node is replaced by a ``$ref`` that keeps the node's ``description`` beside it,
    which DMCG reads as the field's description.
    """

    def __init__(self, definitions: dict[str, Any], key: str) -> None:
        self._definitions = definitions
        self._key = key
        self._taken = set(definitions)

    def hoist_all(self) -> None:
        for name in list(self._definitions):
            self._hoist_children(self._definitions[name], name)

    def _hoist_children(self, node: Any, name: str) -> None:
        """Hoist the class-making descendants of ``node``, a class (or part of one) ``name``.

        Path segments become name parts: a property by its own name, ``items`` as
        ``Item``, ``additionalProperties`` as ``Value``. Members of ``allOf`` are merged
        into the class of the node that holds them, so their properties are named from
        it; members of ``anyOf``/``oneOf`` become classes of their own, told apart by a
        letter (``OptionA``) rather than a number, so no name looks like a counter.
        """
        if not isinstance(node, dict) or "$ref" in node:
            return
        properties = node.get("properties")
        if isinstance(properties, dict):
            for prop in sorted(properties):
                properties[prop] = self._hoisted(properties[prop], name + _pascal(prop))
        if isinstance(node.get("items"), dict):
            node["items"] = self._hoisted(node["items"], name + "Item", is_item=True)
        if isinstance(node.get("additionalProperties"), dict):
            value = node["additionalProperties"]
            node["additionalProperties"] = self._hoisted(value, name + "Value")
        for member in node.get("allOf", []):
            self._hoist_children(member, name)
        for keyword in _UNIONS:
            members = node.get(keyword, [])
            for index, member in enumerate(members):
                members[index] = self._hoisted(member, f"{name}Option{_letters(index)}")

    def _hoisted(self, node: Any, name: str, *, is_item: bool = False) -> Any:
        """``node`` itself, or a ``$ref`` to the definition it was moved to."""
        if not isinstance(node, dict) or "$ref" in node:
            return node
        if not _becomes_class(node, is_item=is_item):
            self._hoist_children(node, name)
            return node
        name = self._claim(name)
        self._definitions[name] = node
        self._hoist_children(node, name)
        reference: dict[str, Any] = {"$ref": f"#/{self._key}/{name}"}
        if "description" in node:
            reference["description"] = node["description"]
        return reference

    def _claim(self, name: str) -> str:
        # A path name collides with a definition or another path name only when the
        # schema spells the same words two ways (``A.bC`` and ``AB.c``); a word, not a
        # number, keeps the result distinct without looking like a counter.
        while name in self._taken:
            name += "Inline"
        self._taken.add(name)
        return name


def _becomes_class(node: dict[str, Any], *, is_item: bool) -> bool:
    # DMCG makes a class of an inline object with properties, of an allOf composition,
    # and of a discriminated union that is an array's items (pydantic wants the
    # discriminator on a field). An object without properties stays a ``dict``; scalars,
    # arrays and other unions stay annotations.
    if node.get("properties") or "allOf" in node:
        return True
    return is_item and "discriminator" in node


def _pascal(text: str) -> str:
    parts = re.split(r"[^0-9A-Za-z]+", text)
    return "".join(part[:1].upper() + part[1:] for part in parts if part)


def _letters(index: int) -> str:
    """0 -> A, 25 -> Z, 26 -> AA: a position spelled without digits."""
    letters = ""
    index += 1
    while index:
        index, remainder = divmod(index - 1, 26)
        letters = chr(ord("A") + remainder) + letters
    return letters


def _widen_number(node: dict[str, Any]) -> None:
    """``number`` -> ``["integer", "number"]``: the same instances (every integer is a
    number), rendered ``int | float`` so that ``50`` stays ``50`` through a round-trip."""
    kind = node.get("type")
    if kind == "number":
        node["type"] = ["integer", "number"]
    elif isinstance(kind, list) and "number" in kind and "integer" not in kind:
        at = kind.index("number")
        node["type"] = [*kind[:at], "integer", *kind[at:]]


def _mark_discriminated_union(node: dict[str, Any], definitions: Mapping[str, Any]) -> None:
    """Add a ``type`` discriminator to a union whose members all carry distinct tags.

    A union that mixes tagged objects with other members (2025-11-25's
    ``SamplingMessage.content``: a content block or a list of them) is left alone: DMCG
    flattens a nested ``anyOf``, so its tagged part could only be discriminated behind a
    wrapper class, and smart mode finds the one member whose ``type`` literal matches.
    """
    for keyword in _UNIONS:
        members = node.get(keyword)
        if not isinstance(members, list) or len(members) < 2 or "discriminator" in node:
            continue
        tags = [_tags(member, definitions) for member in members]
        known = [t for t in tags if t is not None]
        if len(known) == len(members) and _disjoint(known):
            node["discriminator"] = {"propertyName": DISCRIMINATOR_PROPERTY}


def _tags(member: Any, definitions: Mapping[str, Any]) -> frozenset[str] | None:
    """The values a union member's required ``type`` may take, if it is such a tag."""
    target = _resolve(member, definitions)
    if not isinstance(target, dict) or DISCRIMINATOR_PROPERTY not in target.get("required", []):
        return None
    prop = target.get("properties", {}).get(DISCRIMINATOR_PROPERTY)
    if not isinstance(prop, dict):
        return None
    values = [prop["const"]] if "const" in prop else prop.get("enum")
    if not isinstance(values, list) or not values:
        return None
    if not all(isinstance(value, str) for value in values):
        return None
    return frozenset(values)


def _resolve(member: Any, definitions: Mapping[str, Any]) -> Any:
    """The schema a local ``#/$defs/NAME`` (or ``#/definitions/NAME``) chain leads to."""
    seen: set[str] = set()
    while isinstance(member, dict) and isinstance(member.get("$ref"), str):
        ref: str = member["$ref"]
        match = re.fullmatch(r"#/(?:\$defs|definitions)/([^/]+)", ref)
        if match is None or ref in seen:
            return None
        seen.add(ref)
        member = definitions.get(match.group(1))
    return member


def _disjoint(tag_sets: Sequence[frozenset[str]]) -> bool:
    seen: set[str] = set()
    for tags in tag_sets:
        if seen & tags:
            return False
        seen |= tags
    return True
