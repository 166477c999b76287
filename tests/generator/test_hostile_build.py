"""The hostile corpus of the build side (issue 10): tool files, file names, settings and
build records crafted to run code, to touch or print files outside the project, to hang
the build or to crash it.

Each case runs `mcp-codegen build` in a fresh interpreter, from an empty working folder,
beside a folder ``outside`` that stands for the rest of the machine, under a time limit.
Every case either builds a package that starts and publishes exactly what its files say,
or exits 2 with a located diagnostic (``file#/pointer: error: ...``) and no traceback;
in no case does a payload run (it would create the canary file), does a file outside the
project change, or does a secret from outside appear in the output. The defences that
already held ($ref never fetched, regexes, dialects, schema text escaping) are in the
corpus too, so they stay held.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from mcp_schemagen.render.provenance import header
from tests.support.projects import run_cli, tool, write_project

LIMIT = 120.0  # seconds: a build that takes longer hangs (the alias bomb ran for minutes)
SECRET = "SECRET-7f3a-outside-the-project"
PROTOCOL = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": PROTOCOL,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "hostile-corpus", "version": "1"},
}


@dataclass(frozen=True)
class Where:
    """The folders of one case."""

    project: Path
    outside: Path
    canary: Path

    @property
    def tools(self) -> Path:
        return self.project / "tools"

    def payload(self, breaker: str = "\n") -> str:
        """Python that, if it ever ran, would create the canary file."""
        return f"{breaker}__import__('pathlib').Path({str(self.canary)!r}).touch(){breaker}"

    def file_name_payload(self, breaker: str) -> str:
        """The same without a slash, fit for a file name: it would create PWNED in the
        working folder, which the test requires to stay empty."""
        return f"x{breaker}__import__('pathlib').Path('PWNED').touch(){breaker}.json"

    def write(self, name: str, content: Any) -> None:
        text = content if isinstance(content, str) else json.dumps(content, indent=1)
        (self.tools / name).write_text(text, encoding="utf-8")

    def settings(self, extra: str) -> None:
        with (self.project / "pyproject.toml").open("a", encoding="utf-8") as handle:
            handle.write(extra)


@dataclass(frozen=True)
class Case:
    name: str
    make: Callable[[Where], None]
    refused: str | None  # a part of the expected diagnostic; None: the case builds
    check: Callable[[Where, str], None] | None = None  # more about a built case


# ---------------------------------------------------------------------------- makers


def _object(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


def _ref(reference: str) -> Callable[[Where], None]:
    return lambda w: w.write("t.json", tool("t", inputSchema=_object(a={"$ref": reference})))


def _schema(schema: dict[str, Any]) -> Callable[[Where], None]:
    return lambda w: w.write("t.json", tool("t", inputSchema=schema))


def _text_injection(w: Where) -> None:
    nasty = f"\"\"\"'''\\{w.payload()}\r{w.payload(chr(13))}\u2028\u202e#"
    w.write(
        "t.json",
        tool(
            "t",
            title=nasty,
            description=nasty,
            inputSchema={
                "type": "object",
                "description": nasty,
                "$defs": {nasty: {"type": "string", "enum": [nasty]}},
                "properties": {
                    nasty: {"type": "string", "enum": [nasty, "plain"], "default": nasty},
                    "c": {"const": nasty, "examples": [nasty], "title": nasty},
                    "d": {"$ref": "#/$defs/" + quote(nasty.replace("~", "~0").replace("/", "~1"))},
                },
            },
        ),
    )


def _named(name: str) -> Callable[[Where], None]:
    def make(w: Where) -> None:
        (w.tools / name).write_text(json.dumps(tool("t")), encoding="utf-8")

    return make


def _not_utf8_name(w: Where) -> None:
    path = os.path.join(os.fsencode(w.tools), b"bad\xff.json")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(tool("t")))


def _extensions(w: Where) -> None:
    w.write(
        "t.json",
        tool(
            "t",
            inputSchema={
                "type": "object",
                "customBasePath": "this.s",
                "properties": {
                    "a": {"type": "object", "customTypePath": "os.system"},
                    "b": {"type": "string", "x-python-type": "os.system"},
                    "c": {"type": "string", "x-python-import": {"from": "os", "import": "system"}},
                    "d": {"type": "array", "default_factory": "os.system"},
                    "e": {"type": "object", "x-is-base-class": True, "customBasePath": "os.Y"},
                },
            },
        ),
    )


def _alias_bomb(w: Where) -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for previous, current in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{current}: &{current} [{','.join(['*' + previous] * 9)}]")
    text = "\n".join(lines) + "\n"
    assert len(text) < 500
    w.write("bomb.yaml", text)


def _deep_json(w: Where) -> None:
    w.write("t.json", '{"name": "t", "inputSchema": ' + "[" * 5000 + "]" * 5000 + "}")


def _deep_yaml(w: Where) -> None:
    w.write("t.yaml", "name: t\ninputSchema: " + "[" * 5000 + "]" * 5000 + "\n")


def _nested(keyword: str, depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for level in range(depth):
        schema = (
            _object(**{f"p{level}": schema}) if keyword == "properties" else {"allOf": [schema]}
        )
    return schema


def _symlink(link: Path, target: Path) -> None:
    try:
        link.symlink_to(target)
    except OSError:
        pytest.skip("symbolic links are not available here")


def _link_to_secret(w: Where) -> None:
    w.write("t.json", tool("t"))
    _symlink(w.tools / "stolen.json", w.outside / "secret.json")


def _tools_folder_link(w: Where) -> None:
    w.tools.rmdir()
    _symlink(w.tools, w.outside)


def _package_link(w: Where) -> None:
    w.write("t.json", tool("t"))
    _symlink(w.project / "server", w.outside)


def _inner_link(w: Where) -> None:
    w.write("t.json", tool("t"))
    (w.project / "server").mkdir()
    _symlink(w.project / "server" / "_types", w.outside)


def _hostile_manifest(w: Where) -> None:
    """An earlier build's record edited to name files outside the package, the handler
    module and a user's file inside it as outputs no longer generated."""
    w.write("t.json", tool("t"))
    assert run_cli("build", "-q", str(w.project))[0] == 0
    package = w.project / "server"
    (package / "notes.py").write_text("# the user's own notes\n", encoding="utf-8")
    manifest_path = package / "_manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    for hostile in (
        "../../outside/victim.py",
        "../outside/victim.py",
        str(w.outside / "victim.py"),
        "handlers.py",
        "notes.py",
        "_types/../../../outside/victim.py",
    ):
        manifest["outputs"][hostile] = "0" * 64
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")


def _manifest_kept_user_files(w: Where, _: str) -> None:
    package = w.project / "server"
    assert (package / "notes.py").read_text(encoding="utf-8") == "# the user's own notes\n"
    assert "def t(" in (package / "handlers.py").read_text(encoding="utf-8")


def _underscores(w: Where) -> None:
    names = ("_id", "__class__", "_", "__init__", "__annotations__")
    w.write(
        "find.json", tool("find", inputSchema=_object(**{n: {"type": "string"} for n in names}))
    )


def _big_integers(w: Where) -> None:
    w.write(
        "big.json",
        tool(
            "big",
            inputSchema=_object(
                n={"type": "integer", "default": 2**64, "maximum": 2**65},
                e={"type": "integer", "enum": [2**70, -(2**70), 5]},
            ),
        ),
    )


def _big_integer_default_reaches_handler(w: Where, _: str) -> None:
    handlers = w.project / "server" / "handlers.py"
    text = handlers.read_text(encoding="utf-8")
    handlers.write_text(
        text.replace('raise NotImplementedError("big")', 'return f"{type(n).__name__} {n}"'),
        encoding="utf-8",
    )
    replies = _serve(w, {"name": "big", "arguments": {}})
    assert replies[2]["result"]["content"][0]["text"] == f"int {2**64}"


def _collisions(w: Where) -> None:
    enum = {"type": "string", "enum": ["x", "y"]}
    w.write(
        "t.json",
        [
            tool("A", inputSchema=_object(b_input=enum)),
            tool("a_b"),
            tool("GreetInput"),
            tool(
                "greet",
                inputSchema={"type": "object", "oneOf": [_object(a=enum), _object(b=enum)]},
            ),
            tool("TextContent"),
            tool("ContentBlock"),
        ],
    )


def _names_distinct(w: Where, _: str) -> None:
    types = (w.project / "server" / "types.py").read_text(encoding="utf-8")
    tree = ast.parse(types)
    # Imported for real or under `if TYPE_CHECKING:` (each tool's, loaded on first use).
    exported = [
        a.asname or a.name
        for n in ast.walk(tree)
        if isinstance(n, ast.ImportFrom) and n.module not in ("typing", "importlib")
        for a in n.names
    ]
    assert len(exported) == len(set(exported)), exported
    handlers = ast.parse((w.project / "server" / "handlers.py").read_text(encoding="utf-8"))
    functions = {n.name for n in handlers.body if isinstance(n, ast.FunctionDef)}
    assert not functions & set(exported), functions & set(exported)


def _imports_only_typing(w: Where, stderr: str) -> None:
    modules = sorted((w.project / "server" / "_types").glob("*.py"))
    assert modules, "no generated type modules to check"  # a moved folder must not pass
    for path in modules:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert imported <= {"__future__", "typing"}, (path.name, imported)
    assert "customTypePath' is an instruction to datamodel-code-generator" in stderr


def _server_settings(w: Where) -> None:
    w.write("t.json", tool("t"))
    text = w.payload().replace('"', '\\"').replace("\n", "\\n")
    w.settings(f'server-name = "a\\"\\"\\" {text} \\u202e"\nserver-version = "1{text}"\n')


def _too_big(w: Where) -> None:
    w.write("t.json", tool("t", description="x" * (17 * 1024 * 1024)))


CASES = [
    # Held before issue 10; kept so they stay held.
    Case("ref-network", _ref("https://example.com/schema.json"), "are never fetched"),
    Case("ref-file-uri", _ref("file:///etc/passwd"), "are never fetched"),
    Case("ref-relative-file", _ref("../../outside/secret.json"), "are never fetched"),
    Case(
        "ref-through-id",
        _schema({"$id": "file:///", "type": "object", "properties": {"a": {"$ref": "etc/passwd"}}}),
        "are never fetched",
    ),
    Case(
        "regex-unbalanced",
        _schema(_object(a={"type": "string", "pattern": "(a"})),
        "does not compile",
    ),
    Case(
        "regex-backtracking",
        _schema(_object(a={"type": "string", "pattern": "^(a+)+(?=b)$"})),
        None,
    ),
    Case(
        "dialect-unknown",
        _schema({"$schema": "https://evil.example/schema", "type": "object"}),
        "unsupported JSON Schema dialect",
    ),
    Case(
        "dialect-draft4",
        _schema({"$schema": "http://json-schema.org/draft-04/schema#", "type": "object"}),
        "unsupported JSON Schema dialect",
    ),
    Case("text-escaping", _text_injection, None),
    Case("server-settings-escaping", _server_settings, None),
    # 1: file names reach generated comments.
    Case("file-name-newline", lambda w: _named(w.file_name_payload("\n"))(w), "rename the file"),
    Case(
        "file-name-carriage-return",
        lambda w: _named(w.file_name_payload("\r"))(w),
        "rename the file",
    ),
    Case(
        "file-name-line-separator",
        lambda w: _named(w.file_name_payload("\u2028"))(w),
        "rename the file",
    ),
    Case("file-name-bidi", _named("\u202enosj.json"), "rename the file"),
    Case("file-name-not-utf8", _not_utf8_name, "not valid UTF-8"),
    # 2: the build record read back from disk.
    Case("manifest-outside-paths", _hostile_manifest, None, _manifest_kept_user_files),
    # 3: every name a schema can hold.
    Case("leading-underscores", _underscores, None),
    # 4: generator extension keywords.
    Case("generator-extensions", _extensions, None, _imports_only_typing),
    # 5, 6, 10: bounded, valid input.
    Case("yaml-alias-bomb", _alias_bomb, "once aliases are expanded"),
    Case(
        "yaml-recursive-alias",
        lambda w: w.write(
            "t.yaml", "name: t\ninputSchema: &s {type: object, properties: {a: *s}}\n"
        ),
        "refers to a node that contains it",
    ),
    Case(
        "lone-surrogate-json",
        lambda w: w.write(
            "t.json", '{"name": "t", "description": "a\\ud800", "inputSchema": {"type": "object"}}'
        ),
        "lone surrogate",
    ),
    Case(
        "lone-surrogate-key",
        lambda w: w.write(
            "t.json",
            '{"name": "t", "inputSchema": {"type": "object", "properties": {"\\udc00": {}}}}',
        ),
        "lone surrogate",
    ),
    Case(
        "lone-surrogate-yaml",
        lambda w: w.write(
            "t.yaml", 'name: t\ndescription: "a\\ud800"\ninputSchema: {type: object}\n'
        ),
        "lone surrogate",
    ),
    Case(
        "integer-5000-digits-json",
        lambda w: w.write(
            "t.json",
            '{"name": "t", "inputSchema": {"type": "object", "maximum": ' + "9" * 5000 + "}}",
        ),
        "digits",
    ),
    Case(
        "integer-5000-digits-yaml",
        lambda w: w.write(
            "t.yaml", "name: t\ninputSchema: {type: object, maximum: " + "9" * 5000 + "}\n"
        ),
        "digits",
    ),
    Case("json-nested-5000", _deep_json, "levels deep"),
    Case("yaml-nested-5000", _deep_yaml, "levels deep"),
    Case("properties-nested-100", _schema(_object(a=_nested("properties", 100))), "levels deep"),
    Case("allof-nested-100", _schema(_object(a=_nested("allOf", 100))), "levels deep"),
    Case("file-over-16-mib", _too_big, "may be at most"),
    Case(
        "glob-absolute",
        lambda w: w.settings(f'tools = ["{w.outside.as_posix()}/*.json"]\n'),
        "is absolute",
    ),
    Case("glob-etc", lambda w: w.settings('tools = ["/etc/*.json"]\n'), "is absolute"),
    # 13: settings and links that leave the project.
    Case(
        "glob-parent", lambda w: w.settings('tools = ["../outside/*.json"]\n'), "leaves the project"
    ),
    Case(
        "out-parent",
        lambda w: (w.write("t.json", tool("t")), w.settings('out = "../outside"\n')),
        "leads outside the project",
    ),
    Case(
        "out-grandparent",
        lambda w: (w.write("t.json", tool("t")), w.settings('out = "../.."\n')),
        "leads outside the project",
    ),
    Case(
        "out-absolute",
        lambda w: (w.write("t.json", tool("t")), w.settings(f'out = "{w.outside.as_posix()}"\n')),
        "leads outside the project",
    ),
    Case("tool-file-link", _link_to_secret, "leads outside the project"),
    Case("tools-folder-link", _tools_folder_link, "leads outside the project"),
    Case("package-folder-link", _package_link, "leads outside the project"),
    Case("link-inside-package", _inner_link, "is a symbolic link"),
    # 11, 12: exact integers, unique names.
    Case("integers-beyond-64-bits", _big_integers, None, _big_integer_default_reaches_handler),
    Case("type-name-collisions", _collisions, None, _names_distinct),
]


# ---------------------------------------------------------------------------- running


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def _serve(w: Where, call: dict[str, Any] | None = None) -> dict[int, dict[str, Any]]:
    """The replies of the built server to tools/list (and ``call``), by request id."""
    requests = [{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}]
    if call is not None:
        params = {**call, "_meta": META}
        requests.append({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params})
    served = subprocess.run(
        [sys.executable, "-m", "server"],
        cwd=w.project,
        input="".join(json.dumps(r) + "\n" for r in requests).encode(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert served.returncode == 0, served.stderr.decode(errors="replace")
    replies = [json.loads(line) for line in served.stdout.splitlines()]
    return {reply["id"]: reply for reply in replies}


def _published_as_written(w: Where) -> None:
    written: dict[str, Any] = {}
    for path in sorted(w.tools.glob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        for definition in document if isinstance(document, list) else [document]:
            written[definition["name"]] = definition
    listed = {t["name"]: t for t in _serve(w)[1]["result"]["tools"]}
    assert listed == written


def _type_checks(package: Path) -> None:
    """Generated code is mypy --strict clean, whatever the schema held."""
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", os.devnull, str(package)],
        cwd=package.parent,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_case_builds_safe_code_or_fails_with_a_diagnostic(
    case: Case, tmp_path: Path
) -> None:
    where = Where(tmp_path / "project", tmp_path / "outside", tmp_path / "PWNED")
    where.outside.mkdir()
    (where.outside / "secret.json").write_text(
        json.dumps(tool("secret", description=SECRET)), encoding="utf-8"
    )
    (where.outside / "victim.py").write_text(f"# {SECRET}\n", encoding="utf-8")
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    write_project(where.project, {})
    case.make(where)
    before = _snapshot(where.outside)

    built = subprocess.run(
        # Not -q: a case may look for a warning, and -q keeps only errors.
        [sys.executable, "-m", "mcp_schemagen.cli", "build", str(where.project)],
        cwd=workdir,
        capture_output=True,
        timeout=LIMIT,
        check=False,
    )
    stdout = built.stdout.decode("utf-8", "replace")
    stderr = built.stderr.decode("utf-8", "replace")
    assert "Traceback" not in stderr, stderr
    assert SECRET not in stdout + stderr, "a file from outside the project was printed"
    if case.refused is None:
        assert built.returncode == 0, stderr
        _published_as_written(where)
        _type_checks(where.project / "server")
        if case.check is not None:
            case.check(where, stderr)
    else:
        assert built.returncode == 2, (built.returncode, stderr)
        located = [line for line in stderr.splitlines() if ": error: " in line and "#" in line]
        assert any(case.refused in line for line in located), stderr
    assert not where.canary.exists(), "a payload from a tool file ran"
    assert _snapshot(where.outside) == before, "a file outside the project changed"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cwd", "outside", "project"]
    assert not any(workdir.iterdir())


def test_allow_outside_project_flag_builds_where_out_points(tmp_path: Path) -> None:
    """The explicit flag lets `out` lead outside the project (as the embedded example's
    ../generated does); without it the same project is refused."""
    project = write_project(
        tmp_path / "project", {"t.json": tool("t")}, extra='out = "../generated"\n'
    )
    code, _, err = run_cli("build", "-q", str(project))
    assert code == 2 and "--allow-outside-project" in err
    assert not (tmp_path / "generated").exists()
    code, _, err = run_cli("build", "-q", "--allow-outside-project", str(project))
    assert code == 0, err
    assert (tmp_path / "generated" / "server" / "handlers.py").is_file()
    assert run_cli("check", "--allow-outside-project", str(project))[0] == 0


def test_generated_headers_escape_every_label() -> None:
    """The one escaping path for comments: whatever a label holds, a header stays comments."""
    labels = ["x\nimport os", "x\rimport os", "x\u2028import os", "\u202eevil", "bad\udcff"]
    text = header([(label, "0" * 64) for label in labels], note="note\nimport os")
    assert text.isascii()
    assert all(line.startswith("#") for line in text.splitlines())
    assert ast.parse(text).body == []


def test_check_never_reads_what_an_edited_manifest_names(tmp_path: Path) -> None:
    """`check` answers from the manifest; one edited to name a file outside the package
    (here a FIFO, which would block any reader) is treated as damaged, never followed."""
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    project = write_project(tmp_path / "project", {"t.json": tool("t")})
    assert run_cli("build", "-q", str(project))[0] == 0
    os.mkfifo(tmp_path / "fifo")
    manifest_path = project / "server" / "_manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest["outputs"]["../../fifo"] = "0" * 64
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    checked = subprocess.run(
        [sys.executable, "-m", "mcp_schemagen.cli", "check", str(project)],
        capture_output=True,
        timeout=LIMIT,
        check=False,
    )
    # The full pipeline decides instead: every generated file is as a build writes it.
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout == b"generated code is up to date\n"
