"""Property: whatever data a target builds, every YAML reader loads back exactly that data."""

from __future__ import annotations

from typing import Any

import pytest
import yaml as pyyaml
from hypothesis import example, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from sandkit.compiler.yamlout import Commented, LiteralBlock, dump_yaml

TEXT = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), max_size=20)
TRICKY = st.sampled_from(
    [
        "no",
        "on",
        "Y",
        "~",
        "null",
        "1e3",
        "0o17",
        "0x1F",
        "1:20",
        "2001-01-01",
        ".inf",
        "-",
        "- x",
        ": x",
        "a: b",
        "a #b",
        "#",
        "${{ x }}",
        "*a",
        "&a",
        "!x",
        "%x",
        "@x",
        "<<",
        "=",
        "?",
        "|",
        ">",
        "'",
        '"',
        " x",
        "x ",
        "x:",
        "",
        "\u2028",
        "\x85",
        "\t",
    ]
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**63),
    st.floats(allow_nan=False, allow_infinity=False),
    TEXT,
    TRICKY,
)
DATA = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.one_of(TEXT, TRICKY), inner, max_size=4)),
    max_leaves=30,
)


def _readers() -> list[Any]:
    readers = []
    for version in ((1, 1), (1, 2)):
        reader = YAML(typ="safe", pure=True)
        reader.version = version
        readers.append(reader.load)
    return [*readers, pyyaml.safe_load]


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.one_of(TEXT, TRICKY), DATA, max_size=5))
def test_every_reader_loads_back_the_same_data(data: dict[str, Any]) -> None:
    text = dump_yaml(data)
    assert text.isascii(), "non-ASCII reached the file raw"
    for load in _readers():
        assert load(text) == data


@given(st.lists(st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=30), max_size=6))
@example(["", " 0"])  # leading empty line, then an indented one
def test_literal_blocks_hold_scripts_exactly(lines: list[str]) -> None:
    script = "\n".join(lines) + "\n"
    text = dump_yaml({"run": LiteralBlock(script)})
    for load in _readers():
        assert load(text) == {"run": script}


def test_multi_document_stream() -> None:
    text = dump_yaml([{"a": 1}, {"b": "no"}], documents=True)
    assert text == "---\na: 1\n---\nb: 'no'\n"
    assert list(pyyaml.safe_load_all(text)) == [{"a": 1}, {"b": "no"}]


COMMENTS = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=40)


@settings(max_examples=200, deadline=None)
@given(SCALARS, COMMENTS, st.integers(1, 3))
def test_a_commented_value_loads_back_as_the_value_alone(value: Any, comment: str, gap: int) -> None:
    note = Commented(value, comment, gap)
    text = dump_yaml({"key": note, "list": [note, "after"]})
    assert text.splitlines()[0].endswith(" " * gap + "# " + comment)
    for load in _readers():
        assert load(text) == {"key": value, "list": [value, "after"]}


def test_the_comment_sits_on_the_values_line() -> None:
    text = dump_yaml({"uses": Commented("actions/checkout@0123", "v7.0.1"), "cidr": Commented("0.0.0.0/0", "why", 2)})
    assert text == "uses: actions/checkout@0123 # v7.0.1\ncidr: '0.0.0.0/0'  # why\n"


@pytest.mark.parametrize("comment", ["two\nlines", "caf\u00e9", "bidi \u202e", "tab\there"])
def test_a_comment_that_could_break_the_line_is_refused(comment: str) -> None:
    with pytest.raises(ValueError, match="one line of printable ASCII"):
        Commented("value", comment)
