"""A unified diff whose cost grows with the file, not with its square.

difflib's matcher looks for the longest common run of lines again in every gap it leaves,
which is quadratic over a 2 MB module: `check` after one tool edit of a 500-tool project
spent 7.7 s there to print 41 lines. Lines that occur exactly once in both files (in
generated code most do: each names its tool or its field) are matched first, the longest
chain of them in order (patience diff's anchors); difflib then only aligns the short
gaps between anchors. The output is the unified format difflib prints, with the same
context of three lines; where a change could be aligned two ways it may pick the other.
"""

from __future__ import annotations

import bisect
import difflib
from collections import Counter
from collections.abc import Iterator, Sequence

_CONTEXT = 3


class _AnchoredMatcher(difflib.SequenceMatcher[str]):
    def __init__(self, a: Sequence[str], b: Sequence[str]) -> None:
        super().__init__(None, a, b, autojunk=False)
        self.left, self.right = a, b
        self.blocks: list[difflib.Match] | None = None

    def get_matching_blocks(self) -> list[difflib.Match]:
        if self.blocks is not None:
            return self.blocks
        found: list[tuple[int, int, int]] = []
        self._match(0, len(self.left), 0, len(self.right), found)
        merged: list[tuple[int, int, int]] = []
        for i, j, k in sorted(found):
            if merged and merged[-1][0] + merged[-1][2] == i and merged[-1][1] + merged[-1][2] == j:
                merged[-1] = (merged[-1][0], merged[-1][1], merged[-1][2] + k)
            elif k:
                merged.append((i, j, k))
        merged.append((len(self.left), len(self.right), 0))
        self.blocks = [difflib.Match(*block) for block in merged]
        return self.blocks

    def _match(
        self, alo: int, ahi: int, blo: int, bhi: int, found: list[tuple[int, int, int]]
    ) -> None:
        # Equal lines at both ends first: most of a regenerated module.
        while alo < ahi and blo < bhi and self.left[alo] == self.right[blo]:
            found.append((alo, blo, 1))
            alo, blo = alo + 1, blo + 1
        end: list[tuple[int, int, int]] = []
        while alo < ahi and blo < bhi and self.left[ahi - 1] == self.right[bhi - 1]:
            ahi, bhi = ahi - 1, bhi - 1
            end.append((ahi, bhi, 1))
        anchors = _anchors(self.left, alo, ahi, self.right, blo, bhi)
        if anchors:
            for i, j in anchors:
                self._match(alo, i, blo, j, found)
                found.append((i, j, 1))
                alo, blo = i + 1, j + 1
            self._match(alo, ahi, blo, bhi, found)
        elif alo < ahi and blo < bhi:
            self._longest(alo, ahi, blo, bhi, found)
        found.extend(end)

    def _longest(
        self, alo: int, ahi: int, blo: int, bhi: int, found: list[tuple[int, int, int]]
    ) -> None:
        # No unique line in this gap: difflib's own recursion, on the gap alone.
        i, j, k = self.find_longest_match(alo, ahi, blo, bhi)
        if not k:
            return
        if alo < i and blo < j:
            self._longest(alo, i, blo, j, found)
        found.append((i, j, k))
        if i + k < ahi and j + k < bhi:
            self._longest(i + k, ahi, j + k, bhi, found)


def _anchors(
    a: Sequence[str], alo: int, ahi: int, b: Sequence[str], blo: int, bhi: int
) -> list[tuple[int, int]]:
    """Pairs (i, j) of lines unique on both sides, the longest chain increasing in both."""
    count_a = Counter(a[alo:ahi])
    count_b = Counter(b[blo:bhi])
    where_b = {b[j]: j for j in range(blo, bhi) if count_b[b[j]] == 1}
    pairs = [(i, where_b[a[i]]) for i in range(alo, ahi) if count_a[a[i]] == 1 and a[i] in where_b]
    # Longest increasing subsequence of j, in O(n log n).
    tails: list[int] = []
    tail_index: list[int] = []
    previous: list[int] = []
    for index, (_, j) in enumerate(pairs):
        at = bisect.bisect_left(tails, j)
        if at == len(tails):
            tails.append(j)
            tail_index.append(index)
        else:
            tails[at] = j
            tail_index[at] = index
        previous.append(tail_index[at - 1] if at else -1)
    chain: list[tuple[int, int]] = []
    index = tail_index[-1] if tail_index else -1
    while index >= 0:
        chain.append(pairs[index])
        index = previous[index]
    return chain[::-1]


def _range(start: int, stop: int) -> str:
    length = stop - start
    if length == 1:
        return f"{start + 1}"
    return f"{start if not length else start + 1},{length}"


def unified_diff(a: Sequence[str], b: Sequence[str], fromfile: str, tofile: str) -> Iterator[str]:
    """The lines of a unified diff from ``a`` to ``b`` (lines keep their ends)."""
    started = False
    for group in _AnchoredMatcher(a, b).get_grouped_opcodes(_CONTEXT):
        if not started:
            started = True
            yield f"--- {fromfile}\n"
            yield f"+++ {tofile}\n"
        first, last = group[0], group[-1]
        yield f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n"
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                yield from (" " + line for line in a[i1:i2])
                continue
            if tag in {"replace", "delete"}:
                yield from ("-" + line for line in a[i1:i2])
            if tag in {"replace", "insert"}:
                yield from ("+" + line for line in b[j1:j2])
