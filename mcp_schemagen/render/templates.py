"""The package templates (templates/package/): jinja2 only prints what Python decided."""

from __future__ import annotations

from functools import cache
from typing import Any

import jinja2

from mcp_schemagen.package_data import data_dir


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(data_dir("templates") / "package"),
        undefined=jinja2.StrictUndefined,
        autoescape=False,  # Python source, escaped by mcp_schemagen.naming before it gets here
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def template(name: str, **values: Any) -> str:
    """Template ``name`` of templates/package/ rendered with ``values``."""
    return _environment().get_template(name).render(**values)


def python_value(value: Any) -> str:
    """A Python expression equal to a JSON value (key order kept). repr escapes every
    character that is not printable, so schema text cannot break out of its literal."""
    return repr(value)
