"""Generated servers' validators agree with the JSON-Schema-Test-Suite and two other validators.

Every required test of ``tests/draft2020-12/*.json`` and ``tests/draft7/*.json`` (not
``optional/``) is one pytest item, id ``"draft/file.json::case description::test description"``.
Each item checks that three validators give the suite's expected ``valid``:

* jsonschema-rs called directly, default configuration (explicit draft class);
* python-jsonschema, the oracle (``Draft202012Validator`` / ``Draft7Validator``, no format
  checker: ``format`` is an annotation, as the required tests expect);
* the validator that ``compile_validator`` (mcp_schemagen/runtime/validation.py) builds for a
  generated server; its ``iter_errors`` (behind ``describe_errors``) must agree with its
  ``is_valid``.

Selecting the dialect. ``compile_validator`` reads ``$schema``, exactly as for a tool schema:
for a draft7 case whose root object has no ``$schema``, a copy of the root gets
``"$schema": "http://json-schema.org/draft-07/schema#"`` (how a tool author selects draft-07),
and all three validators see that same copy. A boolean root (``true``/``false``) cannot carry
``$schema``, so ``compile_validator`` validates it as 2020-12; that is exact, because boolean
schemas mean the same in both dialects (accept everything / nothing), and the oracle and the
direct jsonschema-rs still check those items as draft-07. (MCP tool schemas are objects anyway.)

Remote references. The suite expects ``remotes/`` at http://localhost:1234/. The oracle gets a
``referencing.Registry`` built from that folder, and direct jsonschema-rs a retriever serving
it: nothing touches the network. ``compile_validator`` refuses every external ``$ref`` by
design (the build rejects such tool schemas), so those items are listed in
tests/data/known_validator_failures.toml, table ``[compile_validator]``, and run as
``xfail(strict=True)``: an item that starts passing fails the run until its entry goes.
Table ``[python_jsonschema]`` lists where the oracle itself is wrong; those items assert that
it still is. Table ``[jsonschema_rs]`` lists where direct jsonschema-rs is wrong, keyed by the
releases (``versions``) that are: inside the range it must still disagree, outside it must
agree, so one record holds for every release the declared range admits.
"""

from __future__ import annotations

import functools
import importlib.metadata
import itertools
import json
import operator
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import jsonschema.protocols
import jsonschema_rs
import pytest
import referencing
import referencing.jsonschema

from mcp_schemagen.runtime.validation import compile_validator
from tests.support.paths import TEST_SUITE, needs_shared

KNOWN_FAILURES = Path(__file__).parent / "data" / "known_validator_failures.toml"
DRAFT7_URI = "http://json-schema.org/draft-07/schema#"
REMOTES_URL = "http://localhost:1234/"
# Reasons in [compile_validator] that start with this are checked to be the actual cause.
REFUSED_REF = "remote $ref refused by design"

pytestmark = [
    needs_shared,
    pytest.mark.skipif(not TEST_SUITE.is_dir(), reason=f"needs the test suite at {TEST_SUITE}"),
]


@dataclass(frozen=True, eq=False)
class Dialect:
    folder: str
    oracle: type[jsonschema.protocols.Validator]
    rs: type[jsonschema_rs.Validator]
    specification: referencing.Specification[Any]


DIALECTS = (
    Dialect(
        "draft2020-12",
        jsonschema.Draft202012Validator,
        jsonschema_rs.Draft202012Validator,
        referencing.jsonschema.DRAFT202012,
    ),
    Dialect(
        "draft7",
        jsonschema.Draft7Validator,
        jsonschema_rs.Draft7Validator,
        referencing.jsonschema.DRAFT7,
    ),
)


@dataclass(frozen=True, eq=False)
class Case:
    """One schema of the suite; ``ref`` ("draft/file.json::case description") keys the caches."""

    ref: str
    dialect: Dialect
    schema: Any


@dataclass(frozen=True, eq=False)
class SuiteTest:
    key: str
    case: Case
    data: Any
    valid: bool


class Disagreement(AssertionError):
    """compile_validator's validator disagrees with the suite (the only expected xfail)."""


def _as_tool_author_would(schema: Any, dialect: Dialect) -> Any:
    if dialect.folder == "draft7" and isinstance(schema, dict) and "$schema" not in schema:
        return {**schema, "$schema": DRAFT7_URI}
    return schema


def _load_suite() -> list[SuiteTest]:
    tests: list[SuiteTest] = []
    if not TEST_SUITE.is_dir():
        return tests
    for dialect in DIALECTS:
        for path in sorted((TEST_SUITE / "tests" / dialect.folder).glob("*.json")):
            for raw in json.loads(path.read_text(encoding="utf-8")):
                ref = f"{dialect.folder}/{path.name}::{raw['description']}"
                case = Case(ref, dialect, _as_tool_author_would(raw["schema"], dialect))
                tests.extend(
                    SuiteTest(f"{ref}::{t['description']}", case, t["data"], t["valid"])
                    for t in raw["tests"]
                )
    return tests


def _load_known() -> tuple[dict[str, str], dict[str, str], dict[str, dict[str, str]]]:
    known = tomllib.loads(KNOWN_FAILURES.read_text(encoding="utf-8"))
    return (
        dict(known.get("compile_validator", {})),
        dict(known.get("python_jsonschema", {})),
        dict(known.get("jsonschema_rs", {})),
    )


_COMPARE = {
    ">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt, "==": operator.eq
}  # fmt: skip


def _release(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.strip().split("."))


def in_versions(version: str, bounds: str) -> bool:
    """Whether release ``version`` (e.g. "0.61.0") is inside ``bounds`` (">=0.61,<0.70")."""
    have = _release(version)
    for bound in bounds.split(","):
        bound = bound.strip()
        sign = next(s for s in (">=", "<=", "==", ">", "<") if bound.startswith(s))
        wanted = _release(bound[len(sign) :])
        if not _COMPARE[sign](have[: len(wanted)], wanted):
            return False
    return True


SUITE = _load_suite()
OURS_FAILS, ORACLE_FAILS, RS_FAILS = _load_known()
RS_VERSION = importlib.metadata.version("jsonschema-rs")


def _param(test: SuiteTest) -> Any:
    reason = OURS_FAILS.get(test.key)
    if reason is None:
        return pytest.param(test, id=test.key)
    xfail = pytest.mark.xfail(reason=reason, raises=Disagreement, strict=True)
    return pytest.param(test, id=test.key, marks=xfail)


# ---------------------------------------------------------------------------------------------
# The three validators, built once per case.


@functools.cache
def _remotes() -> dict[str, Any]:
    root = TEST_SUITE / "remotes"
    return {
        f"{REMOTES_URL}{path.relative_to(root).as_posix()}": json.loads(path.read_bytes())
        for path in sorted(root.rglob("*.json"))
    }


def _serve_remote(uri: str) -> Any:
    document = _remotes().get(uri.partition("#")[0])
    if document is None:
        raise LookupError(f"{uri} is not in the suite's remotes/")
    return document


@functools.cache
def _registry(dialect: Dialect) -> referencing.Registry[Any]:
    """remotes/ under http://localhost:1234/; documents without $schema read as ``dialect``."""
    resources = [
        (uri, referencing.Resource.from_contents(doc, default_specification=dialect.specification))
        for uri, doc in _remotes().items()
    ]
    return referencing.Registry().with_resources(resources)


@functools.cache
def _ours(case: Case) -> Any:
    return compile_validator(case.schema)


@functools.cache
def _oracle(case: Case) -> jsonschema.protocols.Validator:
    return case.dialect.oracle(case.schema, registry=_registry(case.dialect), format_checker=None)


@functools.cache
def _rs_direct(case: Case) -> jsonschema_rs.Validator:
    return case.dialect.rs(case.schema, retriever=_serve_remote)


def _oracle_verdict(test: SuiteTest) -> bool | str:
    try:
        return bool(_oracle(test.case).is_valid(test.data))
    except Exception as exc:  # e.g. re.error for a pattern Python's re cannot compile
        return f"raised {type(exc).__name__}: {exc}"


def _check_ours(test: SuiteTest) -> None:
    try:
        validator = _ours(test.case)
        verdict = validator.is_valid(test.data)
        first_error = list(itertools.islice(validator.iter_errors(test.data), 1))
    except Exception as exc:
        raise Disagreement(f"compile_validator: {type(exc).__name__}: {exc}") from exc
    if verdict is not test.valid:
        raise Disagreement(f"compile_validator says valid={verdict}, the suite {test.valid}")
    if bool(first_error) is verdict:
        raise Disagreement(f"is_valid={verdict} but iter_errors gave {first_error}")


# ---------------------------------------------------------------------------------------------
# Tests.


@pytest.mark.parametrize("test", [_param(test) for test in SUITE])
def test_agrees_with_suite_and_oracles(test: SuiteTest) -> None:
    direct = _rs_direct(test.case).is_valid(test.data)
    known = RS_FAILS.get(test.key)
    if known is not None and in_versions(RS_VERSION, known["versions"]):
        assert direct is not test.valid, (
            f"jsonschema-rs {RS_VERSION} now agrees with the suite: narrow the versions of "
            f"{test.key!r} in [jsonschema_rs] of {KNOWN_FAILURES.name}"
        )
    else:
        assert direct is test.valid, f"jsonschema-rs {RS_VERSION} (direct)"
    oracle = _oracle_verdict(test)
    if test.key in ORACLE_FAILS:
        assert oracle is not test.valid, (
            f"python-jsonschema now agrees with the suite: remove {test.key!r} from "
            f"[python_jsonschema] in {KNOWN_FAILURES.name}"
        )
    else:
        assert oracle is test.valid, f"python-jsonschema: {oracle}"
    _check_ours(test)


def _refused_cases() -> Iterator[Any]:
    by_case = {test.key: test.case for test in SUITE}
    seen: dict[str, tuple[Case, str]] = {}
    for key, reason in sorted(OURS_FAILS.items()):
        if reason.startswith(REFUSED_REF) and key in by_case:
            case = by_case[key]
            seen.setdefault(case.ref, (case, reason))
    for ref, (case, reason) in seen.items():
        yield pytest.param(case, reason, id=ref)


@pytest.mark.parametrize(("case", "reason"), list(_refused_cases()))
def test_refused_ref_is_the_cause(case: Case, reason: str) -> None:
    """Each "refused" known failure fails at compile time, for exactly the reason given."""
    with pytest.raises(Exception, match="is never retrieved") as caught:
        compile_validator(case.schema)
    uri = reason.removeprefix(REFUSED_REF).strip(" :")
    assert uri and uri in str(caught.value), f"reason names {uri!r}; refused: {caught.value}"


def test_known_failures_name_suite_tests() -> None:
    keys = {test.key for test in SUITE}
    stale = sorted((OURS_FAILS.keys() | ORACLE_FAILS.keys() | RS_FAILS.keys()) - keys)
    assert not stale, f"entries in {KNOWN_FAILURES.name} that name no suite test: {stale}"
    counts = {dialect.folder: sum(t.case.dialect is dialect for t in SUITE) for dialect in DIALECTS}
    assert all(counts.values()), f"no tests found for some draft: {counts}"


@pytest.mark.parametrize(
    ("version", "bounds", "inside"),
    [
        ("0.60.3", ">=0.61", False),
        ("0.61.0", ">=0.61", True),
        ("0.61.2", ">=0.61,<0.62", True),
        ("0.62.0", ">=0.61,<0.62", False),
        ("1.0.0", ">0.61", True),
        ("0.61.0", "==0.61", True),
        ("0.61.0", "<=0.60", False),
    ],
)
def test_known_failure_version_bounds(version: str, bounds: str, inside: bool) -> None:
    assert in_versions(version, bounds) is inside


def test_known_jsonschema_rs_failures_say_when_and_why() -> None:
    for key, entry in RS_FAILS.items():
        assert set(entry) == {"versions", "reason"}, key
        in_versions("0.0.0", entry["versions"])  # parses
