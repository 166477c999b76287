"""The access log (``--access-log``) without secrets: a URL's query may carry a token
(``?access_token=...``, refused with 400 but still logged by uvicorn as the request
line), so the values of parameters that name one are written as ``***``, as the
server's own lines never quote a token."""

from __future__ import annotations

import logging
from urllib.parse import unquote_plus

# Parameters whose values are secrets wherever they appear (OAuth's and common ones);
# any name containing one of SECRET_PARTS too.
SECRET_NAMES = frozenset({"code", "key", "api_key", "apikey", "sig", "signature", "auth"})
SECRET_PARTS = ("token", "secret", "password", "passwd", "credential", "session")
LONGEST_BARE_WORD = 16  # a longer part without "=" may be a token itself


def secret(name: str) -> bool:
    lowered = name.lower()
    return lowered in SECRET_NAMES or any(part in lowered for part in SECRET_PARTS)


def redacted(target: str) -> str:
    """The request target (path and query) with every secret parameter's value ``***``."""
    path, mark, query = target.partition("?")
    if not mark:
        return target
    shown = []
    for part in query.split("&"):
        name, equals, _ = part.partition("=")
        if equals and secret(unquote_plus(name)):
            shown.append(f"{name}=***")
        elif not equals and len(part) > LONGEST_BARE_WORD:  # a token as the whole query
            shown.append("***")
        else:
            shown.append(part)
    return f"{path}?{'&'.join(shown)}"


class RedactQuery(logging.Filter):
    """On uvicorn.access records, whose arguments are (client, method, target, http
    version, status): the target redacted."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if type(args) is tuple and len(args) == 5 and type(args[2]) is str:
            record.args = (args[0], args[1], redacted(args[2]), args[3], args[4])
        return True
