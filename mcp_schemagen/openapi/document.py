"""An OpenAPI document read from disk, and its ``$ref``s resolved with ``referencing``
(the resolver python-jsonschema uses): internal pointers and relative files, never the
network."""

from __future__ import annotations

import functools
import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

import referencing
import referencing.exceptions
import yaml
from referencing._core import Resolver  # not re-exported; the type of Registry.resolver()

# C-accelerated when libyaml is there: large documents (GitHub's is 10 MB) read 10x faster.
_Base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_Base):  # type: ignore[misc]  # a SafeLoader: plain data only
    """YAML as JSON sees it: an unquoted date (`example: 2020-01-01T00:00:00Z`, common in
    real documents) stays the string it is written as, not a datetime JSON cannot hold."""


_Loader.add_constructor(
    "tag:yaml.org,2002:timestamp", lambda loader, node: loader.construct_scalar(node)
)


class DocumentError(Exception):
    """The document cannot be imported at all (its pointer, and what to do)."""

    def __init__(self, pointer: str, message: str) -> None:
        super().__init__(message)
        self.pointer = pointer
        self.message = message


class UnresolvableRef(Exception):
    """A ``$ref`` that cannot be followed (network, missing file or target)."""


def read_data(path: Path) -> Any:
    """JSON or YAML (YAML is a superset; JSON is tried first because it is faster)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() == ".json":
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            pass  # some ".json" files are YAML; the YAML reader says what is wrong
    if _ANCHOR.search(text):  # aliases can expand a few bytes into billions of values
        _bounded_aliases(text)
    return yaml.load(text, Loader=_Loader)  # a SafeLoader: plain data only


_ANCHOR = re.compile(r"(^|[\s\[{,:-])&[^\s]")
# Values a document may hold once its aliases are expanded: ten times what the largest
# public documents hold (GitHub's REST description, ~3 million), far below a YAML bomb.
MAX_EXPANDED = 30_000_000


class TooLarge(yaml.YAMLError):
    """The document's aliases expand beyond MAX_EXPANDED values (or refer to themselves)."""


def _bounded_aliases(text: str) -> None:
    """Measure the expanded size of the YAML in ``text`` without expanding it: each node is
    counted once and an alias reuses its anchor's count."""
    node = yaml.compose(text, Loader=_Loader)  # composing builds no Python objects
    sizes: dict[int, int] = {}
    active: set[int] = set()

    def size(current: yaml.Node) -> int:
        key = id(current)
        if key in sizes:
            return sizes[key]
        if key in active:
            raise TooLarge("an alias refers to itself (a recursive YAML structure)")
        active.add(key)
        children: list[yaml.Node] = []
        if isinstance(current, yaml.SequenceNode):
            children = list(current.value)
        elif isinstance(current, yaml.MappingNode):
            children = [child for pair in current.value for child in pair]
        total = 1
        for child in children:
            total += size(child)
            if total > MAX_EXPANDED:
                raise TooLarge(f"its aliases expand to more than {MAX_EXPANDED:,} values")
        active.discard(key)
        sizes[key] = total
        return total

    if node is not None:
        size(node)


@functools.lru_cache(maxsize=256)  # each file read once per import, however often referred to
def _retrieve(uri: str) -> referencing.Resource[Any]:
    parts = urlsplit(uri)
    if parts.scheme != "file":
        raise UnresolvableRef(
            f"{uri} is not a local file: network references are not fetched; download the "
            "file beside the document and refer to it by a relative path"
        )
    file = Path(unquote(parts.path))
    try:
        contents = read_data(file)
    except (OSError, yaml.YAMLError) as exc:
        raise UnresolvableRef(f"cannot read {file}: {exc}") from exc
    return referencing.Resource.opaque(contents)


@dataclass(frozen=True)
class Scope:
    """Where refs are resolved from: the resolver and the base URI it joins refs with."""

    resolver: Resolver[Any]
    base: str

    def target(self, ref: str) -> str:
        """The absolute URI ``ref`` names: one shared schema, however it is referred to."""
        return self.base + ref if ref.startswith("#") else urljoin(self.base, ref)

    def resolve(self, ref: str) -> tuple[Any, Scope]:
        """The value ``ref`` points at and the scope to follow refs inside it from."""
        try:
            resolved = self.resolver.lookup(ref)
        except referencing.exceptions.Unresolvable as exc:
            cause = exc.__cause__
            while cause is not None and not isinstance(cause, UnresolvableRef):
                cause = cause.__cause__
            if cause is not None:
                raise UnresolvableRef(str(cause)) from exc
            raise UnresolvableRef(f"$ref {ref!r} points at nothing") from exc
        return resolved.contents, Scope(resolved.resolver, urldefrag(self.target(ref))[0])

    def pointer_of(self, node: Any, here: str) -> str:
        """Where ``node``, found at ``here``, really is: the target of its ``$ref`` chain's
        first hop when it is one (a pointer in the file the deref'd scope names)."""
        if isinstance(node, dict) and isinstance(node.get("$ref"), str):
            return unquote(urldefrag(self.target(node["$ref"]))[1])
        return here

    def deref(self, node: Any) -> tuple[Any, Scope]:
        """A parameter, request body or response behind its chain of ``$ref``s."""
        scope = self
        for _ in range(32):
            if not (isinstance(node, dict) and isinstance(node.get("$ref"), str)):
                return node, scope
            node, scope = scope.resolve(node["$ref"])
        raise UnresolvableRef("more than 32 $refs in a chain (a loop?)")


@dataclass(frozen=True)
class Document:
    path: Path
    label: str  # as diagnostics print it
    contents: dict[str, Any]
    version: str  # "3.0" or "3.1"
    scope: Scope


# The converter of the OpenAPI tooling community, at the version the tests run (locked in
# tests/support/node_packages): unmaintained since 2020, so it is named, not bundled.
SWAGGER2OPENAPI = "swagger2openapi@7.0.8"


def swagger_advice(path: Path, version: Any) -> str:
    """The refusal of a Swagger 2.0 document, with the command that converts it."""
    converted = shlex.quote(f"{path.stem}.openapi.yaml")
    return (
        f"Swagger {version} (OpenAPI 2.0) is not imported; convert it to OpenAPI 3 first, in "
        f"its folder: `npx {SWAGGER2OPENAPI} --patch {shlex.quote(path.name)} -o {converted}` (--patch "
        f"mends the small errors many Swagger documents have), then import {converted}"
    )


def read_document(path: Path, label: str) -> Document:
    """Read and classify: OpenAPI 3.0 or 3.1 imported; Swagger 2.0 refused."""
    try:
        contents = read_data(path)
    except OSError as exc:
        raise DocumentError("", f"cannot read the document: {exc.strerror or exc}") from exc
    except TooLarge as exc:
        raise DocumentError("", f"refused: {exc}") from exc
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise DocumentError("", f"not JSON or YAML: {exc}") from exc
    except RecursionError as exc:
        raise DocumentError("", "nested too deeply to read") from exc
    if not isinstance(contents, dict):
        raise DocumentError("", "an OpenAPI document is an object at its root")
    if "swagger" in contents:
        raise DocumentError("/swagger", swagger_advice(path, contents.get("swagger")))
    version = str(contents.get("openapi", ""))
    if not (version.startswith("3.0") or version.startswith("3.1")):
        raise DocumentError(
            "/openapi", f"openapi {version!r} is not supported: OpenAPI 3.0 and 3.1 are"
        )
    if not isinstance(contents.get("paths", {}), dict):
        raise DocumentError("/paths", "paths must be an object")
    uri = path.resolve().as_uri()
    root = referencing.Resource.opaque(contents)
    # attrs names the field `_retrieve` and takes it as `retrieve`; mypy sees the former.
    empty: referencing.Registry[Any] = referencing.Registry(retrieve=_retrieve)  # type: ignore[call-arg]
    registry = empty.with_resource(uri, root)
    return Document(path, label, contents, version[:3], Scope(registry.resolver(uri), uri))
