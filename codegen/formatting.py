"""black, run once over each generated module, with settings fixed here (not read from
the user's project) so the same input gives the same bytes everywhere."""

from __future__ import annotations

import black

_MODE = black.Mode(
    target_versions={black.TargetVersion.PY311},
    line_length=100,
    string_normalization=True,
    magic_trailing_comma=True,
)


def format_python(source: str) -> str:
    return black.format_str(source, mode=_MODE)
