"""The runtime files every generated server carries (templates/runtime), and the one the
generator itself uses: building a validator exactly as the generated server will."""

from __future__ import annotations

import importlib.util
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

from codegen.resources import data_dir


def runtime_dir() -> Path:
    return data_dir("templates") / "runtime"


def runtime_sources() -> list[Path]:
    return sorted(p for p in runtime_dir().glob("*.py"))


@cache
def runtime_module(name: str) -> ModuleType:
    """A self-contained runtime module (no relative imports), loaded once, so the generator
    and the server it generates share one truth: a schema that compiles at build time
    compiles the same way in the server, and both agree on what each revision defines."""
    path = runtime_dir() / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"codegen._runtime_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being built
    spec.loader.exec_module(module)
    return module


def validation_module() -> ModuleType:
    return runtime_module("validation")
