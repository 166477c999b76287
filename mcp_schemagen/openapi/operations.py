"""The operations of a document, in document order, and the selection of some of them by
tags, path globs and operation ids."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any
from urllib.parse import unquote, urldefrag

from mcp_schemagen.diagnostics import pointer_join
from mcp_schemagen.openapi.document import Document, Scope, UnresolvableRef

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


@dataclass(frozen=True)
class Operation:
    method: str  # upper case
    path: str
    pointer: str  # of the operation object in the document
    operation: dict[str, Any]
    path_item: dict[str, Any]
    # Where the operation's and the path item's own refs resolve from: a file of their own
    # when the document refers to them (`get: {$ref: resources/x.yml}`, as DigitalOcean's does)
    scope: Scope
    item_scope: Scope
    error: str | None = None  # why the operation's $ref cannot be followed
    # The pointers of the operation and its path item inside the files they are in (those
    # of `pointer` unless the document refers to them)
    own_pointer: str = ""
    item_own_pointer: str = ""

    @property
    def operation_id(self) -> str | None:
        value = self.operation.get("operationId")
        return value if isinstance(value, str) and value.strip() else None

    @property
    def key(self) -> str:
        """What a curation file and `--operations` call it: its operationId, else
        ``METHOD /path``."""
        return self.operation_id or f"{self.method} {self.path}"

    @property
    def tags(self) -> list[str]:
        tags = self.operation.get("tags", [])
        return [t for t in tags if isinstance(t, str)] if isinstance(tags, list) else []


def operations(document: Document) -> Iterator[Operation]:
    """Every operation; a path item or operation given by ``$ref`` is followed. One that
    cannot be followed is yielded as an empty operation whose ``error`` says why."""
    paths = document.contents.get("paths") or {}
    for path, item in paths.items():
        if not isinstance(item, dict):
            continue
        item_pointer = pointer_join("/paths", path)
        item_scope, item_own = document.scope, item_pointer
        if isinstance(item.get("$ref"), str):
            item_own = _fragment(document.scope, item["$ref"])
        try:
            item, item_scope = document.scope.deref(item)
        except UnresolvableRef:
            continue  # its operations cannot even be listed
        if not isinstance(item, dict):
            continue
        for method in METHODS:
            operation = item.get(method)
            scope, error, own = item_scope, None, pointer_join(item_own, method)
            if isinstance(operation, dict) and isinstance(operation.get("$ref"), str):
                own = _fragment(item_scope, operation["$ref"])
                try:
                    operation, scope = item_scope.deref(operation)
                except UnresolvableRef as exc:
                    operation, error = {}, str(exc)
            if isinstance(operation, dict):
                yield Operation(
                    method.upper(),
                    str(path),
                    pointer_join(item_pointer, method),
                    operation,
                    item,
                    scope,
                    item_scope,
                    error,
                    own,
                    item_own,
                )


def _fragment(scope: Scope, ref: str) -> str:
    return unquote(urldefrag(scope.target(ref))[1])


@dataclass(frozen=True)
class Selection:
    tags: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()  # globs, fnmatch-style: /pets/*
    operations: tuple[str, ...] = ()  # operation ids or "METHOD /path"

    def chooses(self, operation: Operation) -> bool:
        """Everything when nothing is asked; else any one criterion that matches."""
        if not (self.tags or self.paths or self.operations):
            return True
        return (
            any(tag in self.tags for tag in operation.tags)
            or any(fnmatchcase(operation.path, glob) for glob in self.paths)
            or operation.key in self.operations
            or f"{operation.method} {operation.path}" in self.operations
        )

    def merged(self, other: Selection) -> Selection:
        """``other``'s criteria where it has any (the command line over the file)."""
        return Selection(
            other.tags or self.tags,
            other.paths or self.paths,
            other.operations or self.operations,
        )


EVERYTHING = Selection()
