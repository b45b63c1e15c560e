"""The TOML subset reader gives what tomllib gives wherever it answers, and answers for the usual files.

Configuration (.sandkit.toml, pyproject.toml) is read on every run, pre-commit's included, by
:mod:`sandkit.lint.syntax.plain_toml` without importing tomllib; these tests hold it against
tomllib (values and their types) on the TOML files of this repository, on texts written for each
construct, on mutations of them, and on generated documents. Where it answers None, tomllib
reads the text as before, and reports what is wrong with it.
"""

from __future__ import annotations

import random
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sandkit.lint.syntax.plain_toml import MAX_TEXT, loads

REPO = Path(__file__).resolve().parents[2]


def _typed(value: Any) -> Any:
    """The value with every type spelled out (True == 1 in Python, not in TOML)."""
    if isinstance(value, dict):
        return ("table", [(key, _typed(item)) for key, item in value.items()])
    if isinstance(value, list):
        return ("array", [_typed(item) for item in value])
    return (type(value).__name__, value)


def _verdict(text: str) -> str:
    ours = loads(text)
    if ours is None:
        return "outside"
    try:
        theirs = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return f"accepted text tomllib rejects: {exc}"
    return "same" if _typed(ours) == _typed(theirs) else f"differs:\n{ours}\n{theirs}"


def _repository_toml() -> list[str]:
    paths = [REPO / "pyproject.toml", REPO / ".sandkit.toml", *sorted((REPO / "tests").rglob("*.toml"))]
    paths += sorted((REPO / "examples").rglob("*.toml"))
    return [path.read_text(encoding="utf-8") for path in paths]


ACCEPTED = [
    "",
    "# only a comment\n",
    'exclude = ["tests/lint/corpus", "/build"]\nkits = ["kits/"]\noutput = "sandbox"\n',
    '[per-path-ignores]\n"tests/**" = ["suppression"]\n\'lit\\eral\' = []\n',
    "[tool.sandkit]\nselect = [\n  'RS',  # sockets\n  \"AA\",\n]\nfail-on = 'high'\ninclude-examples = true\n",
    "max-file-size = 4_000\n".replace("_", ""),
    "a = -0\nb = +12\nc = false\nd = [[1, 2], ['x'], []]\ne = {}\nf = { g = 1, h = { i = 'j' } }\n",
    '[[servers]]\nname = "a"\n[servers.env]\nX = "1"\n[[servers]]\nname = "b"\n',
    "[a.b]\nx = 1\n[a]\ny = 2\n",
    '  [ a . "b c" ]  # header\n  k = "tab\\there \\u00e9 \\U0001F600 \\"q\\" \\\\"\n',
    'name = "Zoë"  # non-ASCII in strings and comments: é\n',
]

OUTSIDE = [
    "a = 1.5\n",  # floats
    "a = 1979-05-27\n",  # dates
    'a = """\nmulti\n"""\n',
    "a = '''x'''\n",
    "a.b = 1\n",  # dotted keys
    "a = 0x1f\n",
    "a = 1_000\n",
    "a = 01\n",
    "a = inf\n",
    "a = 1\r\nb = 2\r\n",
    "a = 1\na = 2\n",  # invalid: left for tomllib to report
    "[a]\n[a]\n",
    "a = [1,,2]\n",
    "a = {b = 1,}\n",
    "a = {b = 1\n}\n",
    "x = []\n[[x]]\n",
    "[x]\n[[x]]\n",
    "[[x]]\n[x]\n",
    "a = {b = 1}\n[a.c]\n",
    'a = "\\uD800"\n',
    'a = "\\q"\n',
    "a = 'open\n",
    "a = truex\n",
    "a = 1 b = 2\n",
    "a = \u00a0'x'\n",  # a Unicode space
    "a = " + "1" * 4001 + "\n",
    "a = 'x'\n" * (MAX_TEXT // 8 + 1),
]


@pytest.mark.parametrize("text", ACCEPTED)
def test_the_usual_constructs_are_read_as_tomllib_reads_them(text: str) -> None:
    assert _verdict(text) == "same"


@pytest.mark.parametrize("text", OUTSIDE)
def test_what_it_does_not_read_is_left_to_tomllib(text: str) -> None:
    assert loads(text) is None


def test_this_repositorys_toml_is_read_as_tomllib_reads_it() -> None:
    verdicts = [_verdict(text) for text in _repository_toml()]
    assert [v for v in verdicts if v not in ("same", "outside")] == []
    assert verdicts[:2] == ["same", "same"]  # pyproject.toml and .sandkit.toml themselves


_PIECES = [" ", "\n", "[", "]", "{", "}", "=", ",", ".", "#", "'", '"', "\\", "-", "+", "_", "0", "1", "t", "\t"]
_PIECES += ["[[", "]]", "\n[a]\n", "\n[[a]]\n", " = ", '""', "''", "'''", '"""', "\\u00e9", "a.b", "1.5", "é"]


def test_mutations_of_accepted_texts_are_read_as_tomllib_reads_them_or_left_to_it() -> None:
    seeds = [t for t in _repository_toml() + ACCEPTED if t and len(t) < 4000 and _verdict(t) == "same"]
    chance = random.Random(20261201)
    answered = 0
    for _ in range(3000):
        text = chance.choice(seeds)
        for _ in range(chance.randint(1, 3)):
            at = chance.randrange(len(text) + 1)
            roll = chance.random()
            if roll < 0.5:
                text = text[:at] + chance.choice(_PIECES) + text[at:]
            elif roll < 0.8:
                text = text[:at] + text[at + chance.randint(1, 3) :]
            else:
                lines = text.split("\n")
                lines.insert(chance.randrange(len(lines)), chance.choice(lines))
                text = "\n".join(lines)
        verdict = _verdict(text)
        assert verdict in ("same", "outside"), (text, verdict)
        answered += verdict == "same"
    assert answered > 500


_KEYS = st.sampled_from(["a", "b", "select", "fail-on", "x_1", '"q k"', "'lit'", '""', "1"])
_SCALARS = st.one_of(
    st.integers(-(10**6), 10**6).map(str),
    st.sampled_from(["true", "false", "-0", "+7"]),
    st.text(alphabet="ab #[]{}=,'\\é", max_size=6).map(lambda t: '"' + t.replace("\\", "\\\\") + '"'),
    st.text(alphabet='ab #[]{}=,"é', max_size=6).map(lambda t: "'" + t + "'"),
)


def _values(depth: int) -> st.SearchStrategy[str]:
    if depth > 2:
        return _SCALARS
    inner = _values(depth + 1)
    return st.one_of(
        _SCALARS,
        st.lists(inner, max_size=3).map(lambda items: "[" + ", ".join(items) + "]"),
        st.lists(inner, max_size=3).map(lambda items: "[\n  " + ",\n  # c\n  ".join(items) + ",\n]"),
        st.lists(st.tuples(_KEYS, inner), max_size=3).map(
            lambda pairs: "{ " + ", ".join(f"{k} = {v}" for k, v in pairs) + " }"
        ),
    )


_LINES = st.one_of(
    st.tuples(_KEYS, _values(0)).map(lambda pair: f"{pair[0]} = {pair[1]}"),
    st.lists(_KEYS, min_size=1, max_size=3).map(lambda keys: "[" + ".".join(keys) + "]"),
    st.lists(_KEYS, min_size=1, max_size=2).map(lambda keys: "[[" + ".".join(keys) + "]]"),
    st.sampled_from(["", "# note", "  "]),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_LINES, max_size=8))
def test_generated_documents_are_read_as_tomllib_reads_them(lines: list[str]) -> None:
    text = "\n".join(lines) + "\n"
    assert _verdict(text) in ("same", "outside"), text
