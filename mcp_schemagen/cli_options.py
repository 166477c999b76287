"""Options several commands share, defined once."""

from __future__ import annotations

import argparse


def allow_outside_argument(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--allow-outside-project",
        action="store_true",
        help="let `out`, the tool globs and links in tools/ lead outside the project folder "
        "(refused by default, since a project's settings may come from anyone)",
    )
