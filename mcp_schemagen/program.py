"""Whether this process is the `mcp-codegen` program (cli.main called with the command
line) rather than a caller of the build in its own process: a test run, an editor plugin.

Only the program forks build workers (compile/type_prefill.py): there the build is all the
process does. Another process may hold threads Python does not count (native ones) or locks
another thread holds, which a forked child inherits held and waits on forever; one such test
run hung. Kept apart from type_prefill so that setting it imports nothing."""

from __future__ import annotations

_is_program = False


def started_as_program() -> None:
    global _is_program
    _is_program = True


def is_program() -> bool:
    return _is_program
