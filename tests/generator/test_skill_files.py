"""Skill folders (the Skills extension, SEP-2640): the exact diagnostics of bad skills (front
matter fields, names, limits, links between a skill's files, symbolic links and stray
files), the entry the build computes (URIs, sha256 digests, sizes), and that an edited
skill file makes `check` find the package stale."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from mcp_schemagen.check.skill_checks import check_skills
from mcp_schemagen.compile.skills import compile_skills
from mcp_schemagen.load import skills as skills_module
from mcp_schemagen.load.config import load_config
from mcp_schemagen.load.skills import read_skills
from mcp_schemagen.record.fingerprint import input_digests
from tests.support.projects import run_cli, tool, write_project

GOOD = "---\nname: {name}\ndescription: Does a thing. Use it when asked.\n---\n# Body\n"


def _skill(root: Path, path: str, text: str | None = None, **files: str) -> Path:
    folder = root / "skills" / path
    folder.mkdir(parents=True, exist_ok=True)
    name = path.rsplit("/", 1)[-1]
    (folder / "SKILL.md").write_text(text if text is not None else GOOD.format(name=name))
    for relative, content in files.items():
        # a keyword "references__FORM_md" is the file "references/FORM.md"
        stem, suffix = relative.replace("__", "/").rsplit("_", 1)
        target = folder / f"{stem}.{suffix}"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
    return folder


def _messages(root: Path) -> list[str]:
    skills, problems = read_skills(root)
    return [str(d) for d in problems + check_skills(skills)]


@pytest.mark.parametrize(
    ("front", "expected"),
    [
        (
            "description: x\n",
            "skills/demo/SKILL.md#: error: missing name: add 'name: demo'",
        ),
        (
            "name: demo\n",
            "skills/demo/SKILL.md#: error: missing description: add what the skill does and"
            " when to use it",
        ),
        ("name: 7\ndescription: x\n", "skills/demo/SKILL.md#/name: error: must be a string"),
        (
            "name: Demo\ndescription: x\n",
            "skills/demo/SKILL.md#/name: error: 'Demo' is not a valid skill name",
        ),
        (
            "name: -demo\ndescription: x\n",
            "skills/demo/SKILL.md#/name: error: '-demo' is not a valid skill name",
        ),
        (
            "name: de--mo\ndescription: x\n",
            "skills/demo/SKILL.md#/name: error: 'de--mo' is not a valid skill name",
        ),
        (
            "name: other\ndescription: x\n",
            "skills/demo/SKILL.md#/name: error: 'other' differs from its folder's name 'demo'",
        ),
        ("name: demo\ndescription: ''\n", "skills/demo/SKILL.md#/description: error: must be a"),
        (
            f"name: demo\ndescription: {'x' * 1025}\n",
            "skills/demo/SKILL.md#/description: error: is 1025 characters, more than 1024",
        ),
        (
            "name: demo\ndescription: x\nlicense: [a]\n",
            "skills/demo/SKILL.md#/license: error: must be a string",
        ),
        (
            "name: demo\ndescription: x\nmetadata:\n  version: 2\n",
            "skills/demo/SKILL.md#/metadata/version: error: must be a string (quote it in YAML)",
        ),
        (
            "name: demo\ndescription: x\nmetadata:\n  io.modelcontextprotocol/x: y\n",
            "skills/demo/SKILL.md#/metadata/io.modelcontextprotocol~1x: warning: keys starting"
            " with 'io.modelcontextprotocol/' are reserved for MCP extensions",
        ),
        (
            "name: demo\ndescription: x\nmetadata: [1]\n",
            "skills/demo/SKILL.md#/metadata: error: must be a mapping",
        ),
        (
            "name: demo\ndescription: x\ncompatibility: ''\n",
            "skills/demo/SKILL.md#/compatibility: error: must be a string of 1 to 500",
        ),
        (
            "name: demo\ndescription: x\nauthor: me\n",
            "skills/demo/SKILL.md#/author: warning: is not a field of the Agent Skills format",
        ),
        ("- a\n- b\n", "skills/demo/SKILL.md#: error: the front matter must be a YAML mapping"),
        (
            "name: [demo\n",
            "skills/demo/SKILL.md#: error: front matter (from line 2): not valid YAML",
        ),
        (
            "name: demo\ndescription: x\ncreated: 2026-01-01\n",
            "skills/demo/SKILL.md#/created: error:",
        ),
    ],
)
def test_front_matter(tmp_path: Path, front: str, expected: str) -> None:
    _skill(tmp_path, "demo", f"---\n{front}---\nbody\n")
    found = _messages(tmp_path)
    assert any(m.startswith(expected) for m in found), found


def test_no_front_matter(tmp_path: Path) -> None:
    _skill(tmp_path, "demo", "# Demo\nname: demo\n")
    assert _messages(tmp_path) == [
        "skills/demo/SKILL.md#: error: SKILL.md must begin with YAML front matter between '---'"
        " lines (line 1 '---', then name: and description:, then '---'), as the Agent Skills"
        " format defines"
    ]


def test_a_good_skill_has_no_problems(tmp_path: Path) -> None:
    _skill(
        tmp_path,
        "acme/billing/refunds",
        "---\nname: refunds\ndescription: Refunds.\nlicense: MIT\nmetadata:\n  v: '1'\n---\n"
        "See [the form](references/FORM.md), [a folder](scripts/), [web](https://x.org/a.md),"
        " [anchor](#top) and `[code](missing.md)`.\n\n```\n[fenced](missing.md)\n```\n",
        references__FORM_md="Back to [the skill](../SKILL.md#steps).\n",
        scripts__run_py="print('hi')\n",
    )
    assert _messages(tmp_path) == []


def test_names_are_unique(tmp_path: Path) -> None:
    _skill(tmp_path, "a/refunds")
    _skill(tmp_path, "b/refunds")
    assert _messages(tmp_path) == [
        "skills/b/refunds/SKILL.md#/name: error: two skills are named 'refunds'"
        " (skills/a/refunds/SKILL.md is the other); clients pick skills by name, so rename one"
        " (and its folder)"
    ]


def test_links_to_missing_files_and_outside(tmp_path: Path) -> None:
    _skill(
        tmp_path,
        "demo",
        GOOD.format(name="demo") + "Read [the guide](references/GUIDE.md).\n"
        "[up]: ../other/SKILL.md\n",
        references__notes_md="![chart](chart%20one.png)\n",
    )
    assert _messages(tmp_path) == [
        "skills/demo/SKILL.md#: error: line 6: the link 'references/GUIDE.md' names"
        " 'references/GUIDE.md', no file of the skill; add the file or fix the link (relative"
        " to this file's folder)",
        "skills/demo/SKILL.md#: error: line 7: the link '../other/SKILL.md' leads outside the"
        " skill's folder; a host reads only the skill's own files: copy what it needs into the"
        " skill",
        "skills/demo/references/notes.md#: error: line 1: the link 'chart%20one.png' names"
        " 'references/chart one.png', no file of the skill; add the file or fix the link"
        " (relative to this file's folder)",
    ]


def test_limits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(skills_module, "MAX_SKILL_FILES", 2)
    monkeypatch.setattr(skills_module, "MAX_SKILL_BYTES", 100)
    _skill(tmp_path, "demo", a_txt="x" * 60, b_txt="y" * 10)
    total = 70 + len(GOOD.format(name="demo"))
    found = _messages(tmp_path)
    assert found == [
        "skills/demo/SKILL.md#: error: the skill has 3 files, more than the 2 every host must"
        " accept (SEP-2640, Limits); split it into several skills",
        f"skills/demo/SKILL.md#: error: the skill's files total {total} bytes, more"
        " than the 100 every host must accept (SEP-2640, Limits); move large files out of the"
        " skill",
    ]


def test_symbolic_links_and_stray_files_are_refused(tmp_path: Path) -> None:
    folder = _skill(tmp_path, "demo")
    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    os.symlink(outside, folder / "leak.txt")
    os.symlink(tmp_path, folder / "up")
    (tmp_path / "skills" / "README.md").write_text("stray")
    skills, problems = read_skills(tmp_path)
    messages = [str(p) for p in problems]
    link = "is a symbolic link; skills are served exactly as their files are"
    assert [m.split(": error: ")[0] for m in messages] == [
        "skills/demo/up#",
        "skills/demo/leak.txt#",
        "skills/README.md#",
    ]
    assert link in messages[0] and link in messages[1]
    assert "not inside a skill" in messages[2]
    assert [f.path for f in skills[0].files] == ["SKILL.md"]  # nothing behind a link read


def test_entry_digests_and_uris(tmp_path: Path) -> None:
    _skill(tmp_path, "acme/pdf", references__FORMS_md="forms\n", logo_png="\x89PNG")
    _skill(tmp_path, "acme/pdf/inner")  # nested: its files are the outer skill's too
    skills, problems = compile_skills(tmp_path)
    assert problems == []
    outer, inner = skills
    files = {
        "SKILL.md": GOOD.format(name="pdf").encode(),
        "inner/SKILL.md": GOOD.format(name="inner").encode(),
        "logo.png": "\x89PNG".encode(),
        "references/FORMS.md": b"forms\n",
    }
    assert outer.entry == {
        "uri": "skill://acme/pdf/SKILL.md",
        "frontmatter": {"name": "pdf", "description": "Does a thing. Use it when asked."},
        "resources": [
            {
                "uri": f"skill://acme/pdf/{path}",
                "digest": "sha256:" + hashlib.sha256(data).hexdigest(),
                "size": len(data),
            }
            for path, data in files.items()
        ],
    }
    assert inner.entry["uri"] == "skill://acme/pdf/inner/SKILL.md"
    rows = {row["definition"]["uri"]: row for row in outer.files}
    assert rows["skill://acme/pdf/SKILL.md"]["definition"] == {
        "uri": "skill://acme/pdf/SKILL.md",
        "name": "pdf",
        "description": "Does a thing. Use it when asked.",
        "mimeType": "text/markdown",
    }
    logo = rows["skill://acme/pdf/logo.png"]["contents"]
    assert logo == [
        {"uri": "skill://acme/pdf/logo.png", "mimeType": "image/png", "blob": "wolQTkc="}
    ]


def test_build_refuses_a_bad_skill_and_check_sees_an_edit(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", {"echo.json": tool()})
    folder = _skill(root, "demo", references__a_md="A\n")
    (root / "server").mkdir()
    code, out, err = run_cli("build", str(root))
    assert code == 0, err
    assert out.splitlines()[-1].startswith("server: 1 tool, 1 skill, protocol revisions")
    code, out, err = run_cli("build", str(root))
    assert out.splitlines() == ["server: up to date (1 tool, 1 skill)"]
    before = input_digests(load_config(root))
    assert "skills/demo/references/a.md" in before
    (folder / "references" / "a.md").write_text("B\n")
    code, _, err = run_cli("check", str(root))
    assert code != 0
    (folder / "SKILL.md").write_text("---\nname: nope\ndescription: x\n---\n")
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 2
    assert "skills/demo/SKILL.md#/name: error: 'nope' differs from its folder's name" in err


def test_a_file_beyond_the_whole_bound_is_never_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(skills_module, "MAX_SKILL_BYTES", 100)
    _skill(tmp_path, "demo", big_bin="x" * 101)
    skills, problems = read_skills(tmp_path)
    assert [str(p) for p in problems] == [
        "skills/demo/big.bin#: error: the file is 101 bytes, more than the 100 every host"
        " accepts of a whole skill (SEP-2640, Limits); keep it out of skills/"
    ]
    assert [f.path for f in skills[0].files] == ["SKILL.md"]


def test_a_byte_order_mark_and_crlf_lines_are_front_matter_too(tmp_path: Path) -> None:
    _skill(tmp_path, "demo", "\ufeff---\r\nname: demo\r\ndescription: x\r\n---\r\nbody\r\n")
    assert _messages(tmp_path) == []


@pytest.mark.parametrize("folder", ["Acme", "my team", "caf\u00e9"])
def test_the_uri_authority_folder_is_a_host_name(tmp_path: Path, folder: str) -> None:
    _skill(tmp_path, f"{folder}/refunds")
    _skill(tmp_path, f"{folder}/billing")
    assert _messages(tmp_path) == [
        f"skills/{folder}/billing/SKILL.md#: error: the folder skills/{folder} is the host part"
        " of its skills' skill:// URIs, which clients may lowercase or refuse: name it with"
        " lowercase letters, digits, '-', '.', '_' or '~'"
    ]


def test_more_link_forms(tmp_path: Path) -> None:
    _skill(
        tmp_path,
        "demo",
        GOOD.format(name="demo")
        + '[spaced](<my notes.md> "title") <img src="logo.png"> <a href="gone.html">x</a>\n',
        **{"my notes_md": "n\n", "logo_png": "p"},
    )
    assert _messages(tmp_path) == [
        "skills/demo/SKILL.md#: error: line 6: the link 'gone.html' names 'gone.html', no file"
        " of the skill; add the file or fix the link (relative to this file's folder)"
    ]


def test_unprintable_file_names_are_refused(tmp_path: Path) -> None:
    folder = _skill(tmp_path, "demo")
    (folder / "bad\u202ename.md").write_text("x")
    assert [str(p) for p in read_skills(tmp_path)[1]] == [
        "skills/demo/bad\\u202ename.md#: error: the file name holds control, line-break or bidi"
        " characters, which would disguise what diagnostics and generated headers say; rename"
        " the file"
    ]
