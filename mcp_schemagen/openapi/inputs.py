"""An operation's parameters and request body -> the tool's inputSchema, and where each
input property is sent (the ``parameters`` of ``x-mcp-codegen-http``).

Path, query, header and cookie parameters become properties by their names (prefixed by
their location when two locations share a name). A JSON or form body that is a plain
object is flattened into the same properties when none of its names collides; any other
body is the one property ``body``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcp_schemagen.diagnostics import pointer_join
from mcp_schemagen.openapi.document import Scope
from mcp_schemagen.openapi.operations import Operation
from mcp_schemagen.openapi.schemas import Translation

JSON_BODY = "application/json"
FORM_BODY = "application/x-www-form-urlencoded"
# OpenAPI says these header parameters are ignored: the body and security define them.
_IGNORED_HEADERS = frozenset({"accept", "content-type", "authorization"})
# Keywords that make an object more than its listed properties: such a body is kept whole.
_NOT_FLAT = frozenset({"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$ref",
                       "patternProperties", "unevaluatedProperties", "dependentSchemas",
                       "dependentRequired", "propertyNames", "minProperties", "maxProperties"})  # fmt: skip


class Unsupported(Exception):
    """This operation cannot be imported: where, what, and what to do instead."""

    def __init__(self, pointer: str, message: str, file: str | None = None) -> None:
        super().__init__(message)
        self.pointer = pointer
        self.message = message
        self.file = file  # None: the document itself


@dataclass
class Inputs:
    schema: dict[str, Any]
    parameters: dict[str, dict[str, Any]] = field(default_factory=dict)
    body: str | None = None  # the media type the body is sent as
    fixed: list[dict[str, Any]] = field(default_factory=list)
    unused_fixed: list[str] = field(default_factory=list)


def _parameters(
    op: Operation, translation: Translation
) -> list[tuple[dict[str, Any], Scope, str, str]]:
    """Path-level then operation-level parameters, the operation's winning on (name, in)."""
    # (name, in) -> the parameter, the scope of its refs, its pointer and file
    found: dict[tuple[str, str], tuple[dict[str, Any], Scope, str, str]] = {}
    owners = (
        (op.path_item, op.item_own_pointer, op.item_scope),
        (op.operation, op.own_pointer, op.scope),
    )
    for owner, pointer, scope in owners:
        for index, raw in enumerate(owner.get("parameters") or []):
            at = pointer_join(pointer, "parameters", index)
            parameter, inner = scope.deref(raw)
            if not isinstance(parameter, dict) or not isinstance(parameter.get("name"), str):
                raise Unsupported(
                    at, "a parameter needs a name and an 'in'", translation.file_of(scope)
                )
            where = (parameter, inner, scope.pointer_of(raw, at), translation.file_of(inner))
            found[(parameter["name"], str(parameter.get("in")))] = where
    return list(found.values())


def _parameter_schema(parameter: dict[str, Any], at: str, file: str) -> tuple[Any, str]:
    if "schema" in parameter:
        return parameter["schema"], pointer_join(at, "schema")
    content = parameter.get("content")
    if isinstance(content, dict) and content:
        raise Unsupported(
            at,
            "a parameter serialized by 'content' (e.g. JSON in a query string) is not "
            "supported; fix it with curation `fixed` or write this tool by hand",
            file,
        )
    return {}, at


def build_inputs(op: Operation, translation: Translation, fixed: dict[str, Any]) -> Inputs:
    properties: dict[str, Any] = {}
    required: list[str] = []
    inputs = Inputs(schema={})
    listed = _parameters(op, translation)
    names = [p["name"] for p, _, _, _ in listed]
    remaining = dict(fixed)
    for parameter, inner, at, file in listed:
        location, name = parameter.get("in"), parameter["name"]
        if location not in ("path", "query", "header", "cookie"):
            raise Unsupported(
                pointer_join(at, "in"), f"parameter location {location!r} is unknown", file
            )
        if location == "header" and name.lower() in _IGNORED_HEADERS:
            continue
        style = parameter.get("style")
        if location == "path" and style not in (None, "simple"):
            raise Unsupported(
                pointer_join(at, "style"), f"path style {style!r} is not supported", file
            )
        if name in remaining:
            inputs.fixed.append({"in": location, "name": name, "value": remaining.pop(name)})
            continue
        prop = name if names.count(name) == 1 else f"{location}_{name}"
        schema, schema_at = _parameter_schema(parameter, at, file)
        translated = translation.schema(schema, inner, schema_at)
        if isinstance(translated, dict):
            for key in ("description", "deprecated"):
                if key in parameter and key not in translated:
                    translated = {**translated, key: parameter[key]}
        properties[prop] = translated
        where: dict[str, Any] = {"in": location, "name": name}
        if style not in (None, "form", "simple"):
            where["style"] = style
        if parameter.get("explode") is False:
            where["explode"] = False
        inputs.parameters[prop] = where
        if location == "path" or parameter.get("required") is True:
            required.append(prop)
    _add_body(op, translation, properties, required, inputs)
    inputs.unused_fixed = sorted(remaining)
    inputs.schema = {"type": "object", "properties": properties}
    if required:
        inputs.schema["required"] = required
    inputs.schema["additionalProperties"] = False
    return inputs


def _media_type(content: dict[str, Any], at: str, file: str) -> str:
    for media in content:
        bare = media.split(";")[0].strip().lower()
        if bare == JSON_BODY or (bare.startswith("application/") and bare.endswith("+json")):
            return media
    for media in content:
        if media.split(";")[0].strip().lower() == FORM_BODY:
            return media
    kinds = ", ".join(content)
    if any(m.lower().startswith("multipart/") for m in content):
        raise Unsupported(
            at,
            f"the request body is {kinds}: multipart (file upload) bodies are not imported; "
            "write this tool by hand (its handler can post multipart with httpx) or leave it "
            "out with the curation file's `skip: true`",
            file,
        )
    raise Unsupported(
        at,
        f"the request body is {kinds}: only JSON and form bodies are imported; write this "
        "tool by hand (its handler can send any body with httpx) or `skip: true` it",
        file,
    )


def _add_body(
    op: Operation,
    translation: Translation,
    properties: dict[str, Any],
    required: list[str],
    inputs: Inputs,
) -> None:
    if "requestBody" not in op.operation:
        return
    at = pointer_join(op.own_pointer, "requestBody")
    body, inner = op.scope.deref(op.operation["requestBody"])
    content = body.get("content") if isinstance(body, dict) else None
    if not isinstance(content, dict) or not content:
        return
    # A body given by $ref is named at that $ref (its own pointer is in another place).
    given_by_ref = (
        isinstance(op.operation["requestBody"], dict) and "$ref" in op.operation["requestBody"]
    )
    where = at if given_by_ref else pointer_join(at, "content")
    media = _media_type(content, where, translation.file_of(op.scope))
    inputs.body = FORM_BODY if media.lower().startswith(FORM_BODY) else JSON_BODY
    entry = content[media] if isinstance(content[media], dict) else {}
    schema_at = pointer_join(
        op.scope.pointer_of(op.operation["requestBody"], at), "content", media, "schema"
    )
    translated = translation.schema(entry.get("schema", {}), inner, schema_at)
    body_required = body.get("required") is True
    flat = _flat_object(translated, translation)
    if flat is not None and not set(flat.get("properties", {})) & set(properties):
        for name, sub in flat.get("properties", {}).items():
            properties[name] = sub
            inputs.parameters[name] = {"in": "body", "name": name}
        if body_required:
            required.extend(n for n in flat.get("required", []) if n in flat.get("properties", {}))
        return
    name = "body" if "body" not in properties else "request_body"
    if isinstance(translated, dict) and "description" in body and "description" not in translated:
        translated = {**translated, "description": body["description"]}
    properties[name] = translated
    inputs.parameters[name] = {"in": "body"}
    if body_required:
        required.append(name)


def _flat_object(schema: Any, translation: Translation) -> dict[str, Any] | None:
    """The body's object schema when it is nothing but listed properties, else None."""
    if isinstance(schema, dict) and set(schema) == {"$ref"}:
        schema = translation.defs.get(schema["$ref"].removeprefix("#/$defs/"))
    if not isinstance(schema, dict) or schema.get("type") not in ("object", None):
        return None
    if "properties" not in schema or set(schema) & _NOT_FLAT:
        return None
    if schema.get("additionalProperties") not in (None, False):
        return None
    return schema
