"""Handler annotations that ``typing.get_type_hints`` can resolve, without the server
paying for them.

handlers.py imports the generated types its annotations alone name under
``if TYPE_CHECKING:``: the server never evaluates an annotation, and loading the types
(one private module per tool) was most of a large server's start-up. Code that does read
annotations (``typing.get_type_hints``, ``inspect.signature(eval_str=True)``, pydantic's
``validate_call``, typeguard, a test helper, a documentation generator) would then meet
a ``NameError``.

So the package binds those names in the handler module the first time anything asks the
module for one of its own attributes (``handlers.greet``, ``from PACKAGE.handlers import
greet``): the names each function's annotations read that the module lacks, from
``.types``. The server never asks: it reads the module's namespace (``vars()``, see
handler_lookup), so serving still loads none of the types. The package's ``__init__``
arranges it with :func:`bind_hints_on_first_access`.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import sys
from types import ModuleType
from typing import Any

HANDLERS = "handlers"


def bind_hints_on_first_access(package: str) -> None:
    """Make the handler module of ``package``, once imported, bind its annotations' names
    on the first access to one of its attributes."""
    module = sys.modules[package]
    if type(module) is ModuleType:
        module.__class__ = _Package


class _Package(ModuleType):
    """The package: the import system sets ``handlers`` on it once the module has run."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == HANDLERS and type(value) is ModuleType:
            value.__class__ = _UnresolvedHandlers
        super().__setattr__(name, value)


class _UnresolvedHandlers(ModuleType):
    """The handler module until something asks it for a name that is not a dunder (those
    the import system and the server's look-up read); then a plain module again."""

    def __getattribute__(self, name: str) -> Any:
        if not (name.startswith("__") and name.endswith("__")):
            object.__setattr__(self, "__class__", ModuleType)
            bind_annotation_names(self)
        return ModuleType.__getattribute__(self, name)


def bind_annotation_names(module: ModuleType) -> None:
    """Bind in ``module`` each name its functions' annotations read that it lacks and
    its package's ``.types`` defines."""
    namespace = vars(module)
    wanted: set[str] = set()
    for value in list(namespace.values()):
        function = inspect.unwrap(value) if inspect.isfunction(value) else None
        if function is None or function.__module__ != module.__name__:
            continue
        for annotation in function.__annotations__.values():
            if isinstance(annotation, str):
                wanted |= _names(annotation)
    missing = wanted - namespace.keys() - vars(builtins).keys()
    if not missing or not module.__package__:
        return
    try:
        types = importlib.import_module(".types", module.__package__)
    except ImportError:
        return  # no generated types to bind: an attribute access must not fail for it
    for name in sorted(missing & set(getattr(types, "__all__", ()))):
        namespace[name] = getattr(types, name)


def _names(annotation: str) -> set[str]:
    try:
        tree = ast.parse(annotation, mode="eval")
    except SyntaxError:
        return set()
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
