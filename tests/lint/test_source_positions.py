"""Positions and line texts of a file: the shortcuts for large texts agree with the full index."""

from __future__ import annotations

import bisect
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from sandkit.lint.source import SourceFile

#: Pieces that make lines the two ways a text is split: "\n" for positions, every line
#: boundary ``str.splitlines`` knows for line texts (CR LF counts once there).
_PIECES = st.sampled_from(["a", "bc", " ", "\n", "\r", "\r\n", "\u2028", "\x0c", "é"])


def _reference_pos(text: str, offset: int) -> tuple[int, int]:
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    line = bisect.bisect_right(starts, offset)
    return line, offset - starts[line - 1] + 1


@settings(max_examples=60, deadline=None)
@given(st.lists(_PIECES, max_size=60), st.integers(min_value=1, max_value=3000), st.data())
def test_large_texts_give_the_same_positions_and_lines(pieces: list[str], repeat: int, data: st.DataObject) -> None:
    text = "".join(pieces) * repeat
    offsets = data.draw(st.lists(st.integers(min_value=0, max_value=len(text) + 3), max_size=12))
    source = SourceFile("f", text, "text", "text")
    assert [tuple(source.pos_at(o)) for o in offsets] == [_reference_pos(text, o) for o in offsets]
    lines = text.splitlines()
    numbers = data.draw(st.lists(st.integers(min_value=0, max_value=len(lines) + 2), max_size=6))
    for number in numbers:
        fresh = SourceFile("f", text, "text", "text")  # each read before the whole text is split
        assert fresh.line_text(number) == (lines[number - 1] if 0 < number <= len(lines) else "")


def test_a_finding_at_the_top_of_a_large_file_does_not_split_it() -> None:
    source = SourceFile("f", "first\r\n" + "x = 1\n" * 200_000, "text", "text")
    assert source.line_text(1) == "first" and source.line_text(2) == "x = 1"
    assert "lines" not in source._memo
    head = source._memo["head_lines"]
    assert [source.line_text(n) for n in (1, 2, 3)] == ["first", "x = 1", "x = 1"]
    assert source._memo["head_lines"] is head  # the head is split once, however many lines are read
    assert source.pos_at(len("first\r\nx = 1\n")) == (3, 1)
    assert source._line_starts is None  # counted, not indexed
