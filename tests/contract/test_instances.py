"""The judge of listed values (contract/instances.py) answers only where
python-jsonschema and jsonschema-rs (what the server validates with) agree."""

from __future__ import annotations

from mcp_schemagen.contract.instances import Judge
from mcp_schemagen.contract.subschema import Comparer

FOUR_DIGITS = {"type": "string", "pattern": "^\\d{4}$"}
FULLWIDTH = "\uff12\uff10\uff12\uff14"  # 2024 in fullwidth digits


def test_the_validators_agreeing_is_an_answer_and_differing_is_none() -> None:
    judge = Judge(FOUR_DIGITS)
    assert judge.accepts(FOUR_DIGITS, "2024") is True
    assert judge.accepts(FOUR_DIGITS, "20245") is False
    # Python's \\d takes fullwidth digits, ECMA 262's (jsonschema-rs) does not.
    assert judge.accepts(FOUR_DIGITS, FULLWIDTH) is None


def test_references_resolve_in_the_document() -> None:
    root = {"$defs": {"n": {"type": "integer", "maximum": 3}}, "items": {"$ref": "#/$defs/n"}}
    judge = Judge(root)
    assert judge.accepts(root["items"], 3) is True
    assert judge.accepts(root["items"], 4) is False


def test_a_value_the_validators_judge_differently_is_not_called_compatible() -> None:
    old, new = {"const": FULLWIDTH}, FOUR_DIGITS
    found = Comparer(old, new).compare(old, new, "")
    assert any(d.pointer == "/pattern" for d in found), found  # the keywords' answer kept
