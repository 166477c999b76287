"""The operations of a document, in document order, and the selection of some of them by
tags, path globs and operation ids."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

from mcp_schemagen.diagnostics import pointer_join
from mcp_schemagen.openapi.document import Document, UnresolvableRef

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


@dataclass(frozen=True)
class Operation:
    method: str  # upper case
    path: str
    pointer: str  # of the operation object in the document
    operation: dict[str, Any]
    path_item: dict[str, Any]

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
    paths = document.contents.get("paths") or {}
    for path, item in paths.items():
        if not isinstance(item, dict):
            continue
        item_pointer = pointer_join("/paths", path)
        if isinstance(item.get("$ref"), str):  # a path item may be a reference
            try:
                item, _ = document.scope.deref(item)
            except UnresolvableRef:  # its operations cannot be read: none to import
                continue
        for method in METHODS:
            operation = item.get(method)
            if isinstance(operation, dict):
                yield Operation(
                    method.upper(), str(path), pointer_join(item_pointer, method), operation, item
                )


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
