"""The runtime files every generated server carries (templates/runtime), and the one the
generator itself uses: building a validator exactly as the generated server will."""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path
from types import ModuleType

from codegen.resources import data_dir


def runtime_dir() -> Path:
    return data_dir("templates") / "runtime"


def runtime_sources() -> list[Path]:
    return sorted(p for p in runtime_dir().glob("*.py"))


@cache
def validation_module() -> ModuleType:
    """templates/runtime/validation.py, loaded once, so a schema that compiles at build time
    compiles the same way in the generated server (same library, same options)."""
    path = runtime_dir() / "validation.py"
    spec = importlib.util.spec_from_file_location("codegen._runtime_validation", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
