"""Which unknown schema keyword is a misspelt known one: an unknown key a small edit away
(a letter added, dropped, changed, or two swapped) from a keyword that constrains or types
data. JSON Schema ignores unknown keywords, so `"requird": [...]` beside `properties`
quietly makes every parameter optional: a build stops on it instead of warning."""

from __future__ import annotations

from functools import lru_cache

from mcp_schemagen.schema.keywords import KEYWORDS

# Keywords that only describe (for people and tools): a misspelling changes no meaning,
# and `example` (OpenAPI's) beside `examples` is common; those stay warnings.
_DESCRIPTIVE = frozenset(
    {"title", "description", "examples", "$comment", "deprecated", "readOnly", "writeOnly"}
)
MEANINGFUL = KEYWORDS - _DESCRIPTIVE
# Shorter keys are too close to too much (`id`, draft-04's `$id`, is one edit from `if`).
_SHORTEST = 4


def near_miss(key: str) -> str | None:
    """The meaningful keyword ``key`` most likely misspells, or None."""
    if len(key) < _SHORTEST:
        return None
    allowed = 1 if len(key) <= 6 else 2
    best: tuple[int, str] | None = None
    for keyword in sorted(MEANINGFUL):
        if abs(len(keyword) - len(key)) > allowed:
            continue
        distance = edit_distance(key, keyword)
        if distance <= allowed and (best is None or distance < best[0]):
            best = (distance, keyword)
    return None if best is None else best[1]


# Memoized: the lints ask it of every key of every subschema against the same few
# keywords, and the same keys recur (`type`, `properties`) in every schema of a project.
@lru_cache(maxsize=8192)
def edit_distance(a: str, b: str) -> int:
    """Edits (insert, delete, substitute, swap two neighbours) that turn ``a`` into ``b``;
    letter case counts, as it does in JSON Schema."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[len(b)]
