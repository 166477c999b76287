"""RFC 6570 templates: what parses (levels 1 to 4) and what does not, and matching a
concrete URI back to the variables, exactly (a URI that no expansion gives is no match)."""

from __future__ import annotations

import pytest

from mcp_schemagen.runtime.resources.uri_template import UriTemplate, UriTemplateError

MATCHES = [
    # (template, uri, variables or None for no match)
    ("test://template/{id}/data", "test://template/123/data", {"id": "123"}),
    ("test://template/{id}/data", "test://template//data", None),  # a required variable
    ("test://template/{id}/data", "test://template/1/2/data", None),  # "/" is not in {id}
    ("x://{name}", "x://h%C3%A9llo", {"name": "héllo"}),  # percent-decoded
    ("x://{name}", "x://a b", None),  # not what an expansion gives
    ("x://{name}", "x://%FF", None),  # not UTF-8 once decoded
    ("x://{name:3}", "x://abc", {"name": "abc"}),
    ("x://{name:3}", "x://abcd", None),  # longer than the prefix
    ("x://{+path}", "x://a/b?c", {"path": "a/b?c"}),  # reserved characters pass
    ("x://h{#frag}", "x://h#sec", {"frag": "sec"}),
    ("x://h{#frag}", "x://h", {}),
    ("x://h/{a,b}", "x://h/1,2", {"a": "1", "b": "2"}),
    ("x://h/{a,b}", "x://h/1", {"a": "1"}),
    ("x://{host}{.ext}", "x://file.tar", {"host": "file", "ext": "tar"}),
    (
        "r://{owner}/{repo}{/path*}",
        "r://a/b/src/x.py",
        {"owner": "a", "repo": "b", "path": "src/x.py"},
    ),
    ("r://{owner}/{repo}{/path*}", "r://a/b", {"owner": "a", "repo": "b"}),
    ("x://a{;p,q}", "x://a;p=1;q=2", {"p": "1", "q": "2"}),
    ("x://logs/{day}{?level,limit}", "x://logs/d?limit=5", {"day": "d", "limit": "5"}),
    (
        "x://logs/{day}{?level,limit}",
        "x://logs/d?limit=5&level=e",
        {"day": "d", "limit": "5", "level": "e"},
    ),
    ("x://logs/{day}{?level,limit}", "x://logs/d?other=1", None),  # a name it does not have
    ("x://logs/{day}{?level,limit}", "x://logs/d?level=1&level=2", None),
    ("x://s?fixed=1{&page}", "x://s?fixed=1&page=2", {"page": "2"}),
    ("x://literal", "x://literal", {}),
    ("x://literal", "x://literally", None),
]


@pytest.mark.parametrize(("template", "uri", "expected"), MATCHES)
def test_matching(template: str, uri: str, expected: dict[str, str] | None) -> None:
    assert UriTemplate.parse(template).match(uri) == expected


BAD = [
    ("x://{a", "'{' is never closed (at character 5)"),
    ("x://a}", "'}' without an opening '{' (at character 6)"),
    ("x://{=a}", "operator '=' is reserved by RFC 6570"),
    ("x://{|a}", "operator '|' is reserved by RFC 6570"),
    ("x://{a,a}", "variable 'a' appears twice"),
    ("x://{a}/{a}", "variable 'a' appears twice"),
    ("x://{a:0}", "a prefix length is 1 to 9999"),
    ("x://{a:10000}", "a prefix length is 1 to 9999"),
    ("x://{a:2*}", "a prefix is ':' and 1 to 4 digits, no '*'"),
    ("x://{a b}", "is not a variable name"),
    ("x://{}", "is not a variable name"),
    ("x://{a{b}", "'{' inside an expression"),
    ("x://<{a}>", "'<' may not appear outside an expression"),
    ("x://%zz{a}", "'%' not followed by two hex digits"),
]


@pytest.mark.parametrize(("template", "message"), BAD)
def test_what_is_not_rfc_6570(template: str, message: str) -> None:
    with pytest.raises(UriTemplateError, match=None) as raised:
        UriTemplate.parse(template)
    assert message in str(raised.value)


def test_variables_in_order_with_their_operator_and_presence() -> None:
    template = UriTemplate.parse("x://{a}/{+b}{/c*}{?d,e}")
    assert template.names == ("a", "b", "c", "d", "e")
    assert [v.required for v in template.variables] == [True, True, False, False, False]
    assert [v.operator for v in template.variables] == ["", "+", "/", "?", "?"]
    assert template.variables[2].explode


RFC_VALUES = {"var": "value", "hello": "Hello World!", "path": "/foo/bar", "empty": ""}
RFC_VALUES |= {"x": "1024", "y": "768"}
EXPANSIONS = [
    # RFC 6570 section 3.2's examples with string values (undef is never given)
    ("{var}", "value"),
    ("{hello}", "Hello%20World%21"),
    ("{+hello}", "Hello%20World!"),
    ("{+path}/here", "/foo/bar/here"),
    ("{#hello}", "#Hello%20World!"),
    ("{x,y}", "1024,768"),
    ("{undef}", ""),
    ("{?x,y,empty}", "?x=1024&y=768&empty="),
    ("{?x,undef}", "?x=1024"),
    ("{;x,y,empty}", ";x=1024;y=768;empty"),
    ("{/var,x}/here", "/value/1024/here"),
    ("{var:3}", "val"),
    ("X{.var}", "X.value"),
    ("X{.empty}", "X."),
    ("{&x}", "&x=1024"),
    ("{+path:6}/here", "/foo/b/here"),
    ("{/path*}", "//foo/bar"),  # split at "/": an empty first segment
    ("{+var}%20{x}", "value%201024"),
]


@pytest.mark.parametrize(("template", "uri"), EXPANSIONS)
def test_expansion(template: str, uri: str) -> None:
    assert UriTemplate.parse(template).expand(RFC_VALUES) == uri


@pytest.mark.parametrize(
    ("template", "values"), [(t, v) for t, _, v in MATCHES if v is not None and v]
)
def test_expanding_what_matching_found_gives_a_uri_that_matches_it_again(
    template: str, values: dict[str, str]
) -> None:
    parsed = UriTemplate.parse(template)
    assert parsed.match(parsed.expand(values)) == values


def test_expansion_escapes_what_the_operator_does_not_allow() -> None:
    template = UriTemplate.parse("x://{a}/{+b}{.c}{?d}")
    uri = template.expand({"a": "a/b c", "b": "p/q r%2F", "c": "t.gz", "d": "é&f"})
    assert uri == "x://a%2Fb%20c/p/q%20r%2F.t%2Egz?d=%C3%A9%26f"
    assert template.match(uri) == {"a": "a/b c", "b": "p/q r/", "c": "t.gz", "d": "é&f"}
