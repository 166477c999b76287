"""Builds that would leave a handler module that cannot import, or a handler the user
renamed replaced by a raising stub, stop with exit 3 and write nothing; `check` never calls
such a project fresh."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.projects import run_cli, tool, write_project

CLOCK = tool(
    "get_current_time",
    description="The time.",
    inputSchema={"type": "object"},
    outputSchema={
        "type": "object",
        "properties": {"iso": {"type": "string"}},
        "required": ["iso"],
    },
)


def _project(tmp_path: Path) -> Path:
    root = write_project(tmp_path / "p", {"clock.json": CLOCK, "echo.json": tool()})
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    return root


def _imports(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "import server.handlers"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )


def test_removing_a_tool_whose_type_a_helper_still_names_stops_the_build(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path)
    handlers = root / "server" / "handlers.py"
    source = handlers.read_text(encoding="utf-8")
    source = source.replace(
        'raise NotImplementedError("get_current_time")', "return midnight()"
    ) + ('\n\ndef midnight() -> GetCurrentTimeOutput:\n    return {"iso": "00:00"}\n')
    handlers.write_text(source, encoding="utf-8")
    assert run_cli("build", "-q", str(root))[0] == 0
    assert run_cli("check", str(root))[0] == 0

    (root / "tools" / "clock.json").unlink()
    before = handlers.read_text(encoding="utf-8")
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 3, err
    assert "server/handlers.py" in err
    assert "your code uses GetCurrentTimeOutput (line" in err
    assert "no longer define" in err
    assert handlers.read_text(encoding="utf-8") == before  # nothing written
    assert _imports(root).returncode == 0
    # `check` names the removed tool file at once from the build record (stale, exit 1);
    # with --diff it runs the build's merge and stops as the build does.
    code, out, err = run_cli("check", str(root))
    assert (code, out) == (1, "tools/clock.json: gone since the last build\n"), err
    code, _, err = run_cli("check", "--diff", str(root))
    assert code == 3, err

    # Once the helper no longer names it, the build goes through.
    handlers.write_text(before.replace("-> GetCurrentTimeOutput:", "-> dict[str, str]:"))
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    assert _imports(root).returncode == 0, _imports(root).stderr


def test_a_renamed_handler_with_its_marker_stops_the_build(tmp_path: Path) -> None:
    root = _project(tmp_path)
    handlers = root / "server" / "handlers.py"
    renamed = handlers.read_text(encoding="utf-8").replace("def echo(", "def echo_text(")
    handlers.write_text(renamed, encoding="utf-8")
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 3, err
    assert "handler 'echo_text': the marker above it" in err
    assert "rename the function to 'echo'" in err
    assert "no longer in the schemas" not in err
    assert handlers.read_text(encoding="utf-8") == renamed
    assert run_cli("check", str(root))[0] == 3


def test_a_parameter_added_by_hand_and_used_stops_the_build(tmp_path: Path) -> None:
    """Removing it would leave `verbose` unbound: the handler would raise NameError."""
    root = _project(tmp_path)
    handlers = root / "server" / "handlers.py"
    edited = handlers.read_text(encoding="utf-8")
    signature = edited[edited.index("def echo(") : edited.index(":\n", edited.index("def echo("))]
    edited = edited.replace(
        signature, signature.replace("text: str", "text: str, verbose: bool = False")
    )
    edited = edited.replace(
        'raise NotImplementedError("echo")', "return text * (2 if verbose else 1)"
    )
    assert "verbose: bool = False" in edited
    handlers.write_text(edited, encoding="utf-8")
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 3, err
    assert (
        "handler 'echo': parameter 'verbose' (line" in err
        and "is not among the properties of the inputSchema of tool 'echo', so the build"
        " would remove it from the signature, but the body still uses it (a NameError when"
        " the handler is called); add it to the inputSchema's properties (the server then"
        " passes it), or remove the use from the body; then build again"
        in err
    ), err
    assert handlers.read_text(encoding="utf-8") == edited  # nothing written

    # With the property in the inputSchema, the parameter is the schema's and stays.
    echo = tool()
    echo["inputSchema"]["properties"]["verbose"] = {"type": "boolean", "default": False}
    (root / "tools" / "echo.json").write_text(json.dumps(echo), encoding="utf-8")
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    assert "verbose: bool = False" in handlers.read_text(encoding="utf-8")
    assert _imports(root).returncode == 0


def test_a_parameter_added_by_hand_but_unused_is_removed(tmp_path: Path) -> None:
    root = _project(tmp_path)
    handlers = root / "server" / "handlers.py"
    generated = handlers.read_text(encoding="utf-8")
    handlers.write_text(generated.replace("text: str", "text: str, verbose: bool = False", 1))
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    assert handlers.read_text(encoding="utf-8") == generated
