"""The one-pass search of many literals finds exactly what a ``str.find`` loop per literal finds."""

from __future__ import annotations

from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sandkit import literal_search
from sandkit.literal_search import LiteralSet

# Literals whose ends and starts overlap each other and themselves, as the credential hints do
# ("sk-" and "-----BEGIN ", "ASIA" and "AKIA", "_v1_" after "npm_").
_LITERALS = ("sk-", "-----BEGIN ", "ASIA", "AKIA", "IA", "_v1_", "npm_", "xox", "ab", "abab", "b", "é", "中a", "\u200b")
_PIECES = (*_LITERALS, "-", "_", "A", "a", "x", "o", "e\u0301", "中", "\u200b\u200c", "\U0001f3f4", "\ud800", "\n", " ")


def _the_long_way(literals: tuple[str, ...], text: str) -> list[tuple[int, int]]:
    found = []
    for index, literal in enumerate(literals):
        at = text.find(literal)
        while at >= 0:
            found.append((index, at))
            at = text.find(literal, at + 1)
    return sorted(found, key=lambda pair: (pair[1], pair[0]))


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40).map("".join))
def test_every_occurrence_overlapping_ones_too(text: str) -> None:
    """Both ways: the automata (the budget spent) and literal by literal (a budget left)."""
    expected = _the_long_way(_LITERALS, text)
    for budget in (0, 10**9):
        with mock.patch.object(literal_search, "FIND_BUDGET", budget):
            literals = LiteralSet(_LITERALS)
            assert literals.occurrences(text) == expected
            assert literals.present(text) == {_LITERALS[index] for index, _ in expected}
            assert (literals._first is None) == (budget > 0)


def test_offsets_are_characters_not_bytes() -> None:
    text = "é中\U0001f3f4 sk-" + "x" * 5 + "sk-"
    for budget in (0, 10**9):
        with mock.patch.object(literal_search, "FIND_BUDGET", budget):
            assert LiteralSet(("sk-",)).occurrences(text) == [(0, 4), (0, 12)]


def test_a_literal_hidden_behind_an_earlier_one_is_found() -> None:
    """Leftmost-longest search alone reports "sk-" and skips the key block that shares its "-"."""
    literals = ("sk-", "-----BEGIN ")
    with mock.patch.object(literal_search, "FIND_BUDGET", 0):
        assert LiteralSet(literals).occurrences("sk-----BEGIN ") == [(0, 0), (1, 2)]


def test_a_large_text_without_literals_has_none() -> None:
    assert LiteralSet(_LITERALS).occurrences("z" * 3_000_000) == []


@pytest.mark.parametrize("literals", [(), ("",), ("ok", "")])
def test_literals_must_be_non_empty(literals: tuple[str, ...]) -> None:
    with pytest.raises(ValueError):
        LiteralSet(literals)


def test_presence_sees_literals_only_an_overlap_shows() -> None:
    """ "github" hides "git" (same start) and "hub" (inside it) from the leftmost-longest pass."""
    with mock.patch.object(literal_search, "FIND_BUDGET", 0):
        assert LiteralSet(("github", "git", "hub", "zz")).present("a github b") == {"github", "git", "hub"}
        assert LiteralSet(("sk-", "-----BEGIN ")).present("sk-----BEGIN ") == {"sk-", "-----BEGIN "}


def test_presence_searches_no_neighbourhood_when_no_literal_can_hide() -> None:
    """Thousands of occurrences of words that cannot overlap cost one pass, not one search each."""
    with mock.patch.object(literal_search, "FIND_BUDGET", 0):
        words = LiteralSet(("git", "docker", "sandkit:"))
        assert words.present("git docker ") == {"git", "docker"}
        words._every = mock.Mock(find_matches_as_indexes=mock.Mock(side_effect=AssertionError("searched")))
        assert words.present("git docker " * 20_000) == {"git", "docker"}
