"""Every occurrence of many literal strings in a text, in one pass.

The credential search looks for some forty token prefixes in every text file; one ``str.find``
pass per prefix made it a third of a scan's time on real repositories. An Aho-Corasick automaton
(ahocorasick_rs, whose SIMD prefilter skips text that holds no prefix's first bytes) finds them
all in one pass over the file's UTF-8 bytes.

That fast search is leftmost-longest: it reports no occurrence that overlaps or shares a start
with an earlier one it reported ("sk-----BEGIN " holds both "sk-" and "-----BEGIN "). So each
reported occurrence's neighbourhood is searched again with an automaton that reports every
occurrence; reported ones are rare, so this costs nothing on ordinary text and keeps the result
exactly that of a ``str.find`` loop per literal (which the first few small texts of a run get:
see ``FIND_BUDGET``).

Literals may hold any characters: UTF-8 is self-synchronising, so a byte match of a literal's
encoding starts at a character of the text (lone surrogates, as ``surrogatepass`` writes them,
are byte sequences no character's encoding holds).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import ahocorasick_rs


#: Characters from which a text's literals are better found in one pass than by a ``str`` test
#: per literal (the engine's trigger words, kinds' docker/podman test).
LARGE_TEXT = 65_536

#: Bytes a process searches literal by literal (``bytes.find``) before it builds automata: a
#: pre-commit run over a few small files never imports ahocorasick_rs (about 2 ms of its start).
FIND_BUDGET = 262_144
_found_by_find = 0


class LiteralSet:
    """Literals searched together; automata are built on the first search."""

    __slots__ = ("_encoded", "_every", "_first", "_hiders", "literals", "longest")

    def __init__(self, literals: Sequence[str]) -> None:
        if not literals or not all(literals):
            raise ValueError("literals must be non-empty strings")
        self.literals: tuple[str, ...] = tuple(dict.fromkeys(literals))
        self._encoded = tuple(map(_utf8, self.literals))
        self.longest = max(map(len, self._encoded))
        self._first: ahocorasick_rs.BytesAhoCorasick | None = None
        self._every: ahocorasick_rs.BytesAhoCorasick | None = None
        self._hiders: tuple[frozenset[int], ...] = ()

    def occurrences(self, text: str) -> list[tuple[int, int]]:
        """(literal index, character offset) of every occurrence, overlapping ones included,
        sorted by offset then index."""
        data = _utf8(text)
        found = self._byte_occurrences(data)
        if len(data) != len(text) and found:
            found = _to_character_offsets(data, found)
        return found

    def present(self, text: str) -> frozenset[str]:
        """The literals that occur in ``text``.

        Only a literal that can start inside another's occurrence can be hidden from the fast
        pass (``_hiders``); the neighbourhoods of occurrences are searched again only while such
        a literal is still unseen, so a lockfile's thousands of "git" cost one pass."""
        data = _utf8(text)
        if self._by_find(data):
            return frozenset(self.literals[index] for index, _ in self._find_each(data))
        assert self._first is not None and self._every is not None
        matches = self._first.find_matches_as_indexes(data)
        found = {index for index, _, _ in matches}
        if any(not self._hiders[index] <= found for index in found):
            for index, start, end in matches:
                if self._hiders[index] <= found:
                    continue
                window = data[start : end + self.longest - 1]
                for other, at, _ in self._every.find_matches_as_indexes(window, overlapping=True):
                    if at < end - start:
                        found.add(other)
        return frozenset(self.literals[index] for index in found)

    def _by_find(self, data: bytes) -> bool:
        """Whether ``data`` is searched literal by literal (see ``FIND_BUDGET``); else the
        automata are built."""
        global _found_by_find
        if self._first is None and _found_by_find + len(data) < FIND_BUDGET:
            _found_by_find += len(data)
            return True
        if self._first is None:
            self._build()
        return False

    def _byte_occurrences(self, data: bytes) -> list[tuple[int, int]]:
        if self._by_find(data):
            return self._find_each(data)
        assert self._first is not None and self._every is not None
        found: set[tuple[int, int]] = set()
        for index, start, end in self._first.find_matches_as_indexes(data):
            found.add((index, start))
            window = data[start : end + self.longest - 1]
            for other, at, _ in self._every.find_matches_as_indexes(window, overlapping=True):
                if at < end - start:  # later ones lie outside this match: the first pass sees them
                    found.add((other, start + at))
        return sorted(found, key=lambda pair: (pair[1], pair[0]))

    def _find_each(self, data: bytes) -> list[tuple[int, int]]:
        """What the automata find, found literal by literal (for the first few small texts)."""
        found = []
        for index, literal in enumerate(self._encoded):
            at = data.find(literal)
            while at >= 0:
                found.append((index, at))
                at = data.find(literal, at + 1)
        return sorted(found, key=lambda pair: (pair[1], pair[0]))

    def _build(self) -> None:
        from ahocorasick_rs import BytesAhoCorasick, MatchKind

        self._first = BytesAhoCorasick(list(self._encoded), matchkind=MatchKind.LeftmostLongest)
        self._every = BytesAhoCorasick(list(self._encoded))
        self._hiders = tuple(_may_start_inside(self._encoded, literal) for literal in self._encoded)


def _may_start_inside(literals: Sequence[bytes], outer: bytes) -> frozenset[int]:
    """The literals (by index) that can start inside an occurrence of ``outer``: where the rest
    of ``outer`` from some offset and the literal agree on the bytes they share. Those are the
    ones a leftmost-longest pass can hide behind ``outer``."""
    return frozenset(
        index
        for index, literal in enumerate(literals)
        if literal != outer and any(outer[k : k + len(literal)] == literal[: len(outer) - k] for k in range(len(outer)))
    )


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", errors="surrogatepass")


def _to_character_offsets(data: bytes, found: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Byte offsets (each where a character starts) turned into character offsets, decoding each
    stretch between two occurrences once."""
    converted: list[tuple[int, int]] = []
    byte_at = character_at = 0
    for index, start in found:
        character_at += len(data[byte_at:start].decode("utf-8", errors="surrogatepass"))
        byte_at = start
        converted.append((index, character_at))
    return converted
