"""The block-YAML composer gives libyaml's graph wherever it answers, and answers for the usual files.

A pre-commit run reads its YAML without importing PyYAML through
:mod:`sandkit.lint.syntax.block_yaml`; these tests hold it against libyaml (through the same
converter, so values, types, styles and every position are compared) on the YAML files of this
repository's tests and examples, on texts written for each construct, on mutations of them, and
on generated documents. Where it answers None, libyaml composes the text as before.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sandkit.lint.syntax import yaml as yaml_syntax
from sandkit.lint.syntax.block_yaml import MAX_TEXT, compose
from sandkit.lint.syntax.tree import PMap, PSeq, PStr, SyntaxProblem, TreeBudget

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def libyaml(monkeypatch: pytest.MonkeyPatch) -> None:
    backend = yaml_syntax._libyaml_backend()
    if backend is None:
        pytest.skip("PyYAML with libyaml is not installed")
    monkeypatch.setattr(yaml_syntax, "_backend", backend)


def _dump(value: Any) -> Any:
    """Everything a rule can see of positioned data: values, types, styles and positions."""
    if isinstance(value, PMap):
        return (
            "map",
            value.pos,
            [(_dump(k), value.key_pos[k], value.value_pos[k], _dump(v)) for k, v in value.items()],
        )
    if isinstance(value, PSeq):
        return ("seq", value.pos, list(value.item_pos), [_dump(v) for v in value])
    if isinstance(value, PStr):
        return ("str", str(value), value.pos, value.style)
    return (type(value).__name__, value)


def _verdict(text: str) -> str:
    """ "outside" when the block composer leaves ``text`` to libyaml, "same" when both give the
    same data; anything else is a failure, described."""
    bounded = yaml_syntax._bounded(text, TreeBudget())
    ours = compose(bounded)
    if ours is None:
        return "outside"
    try:
        theirs = yaml_syntax.parser_nodes(bounded)
    except SyntaxProblem as exc:
        return f"accepted text libyaml rejects: {exc}"
    mine, reference = (_dump(yaml_syntax.convert_nodes(nodes, TreeBudget())) for nodes in (ours, theirs))
    return "same" if mine == reference else f"differs:\n{mine}\n{reference}"


def _repository_yaml() -> list[str]:
    texts = []
    for folder in ("tests", "examples", "kits", "sandbox", "docs", "sandkit"):
        for path in sorted((REPO / folder).rglob("*.y*ml")):
            try:
                texts.append(path.read_text(encoding="utf-8"))
            except (UnicodeDecodeError, OSError):
                continue
    return texts


ACCEPTED = [
    "a: 1\nb: two\n",
    "a:\nb: 1\n",  # an empty value, marked just after its colon
    "a:   # note\n\n  \nb: 1\n",
    "- \n- x\n-\n",
    "services:\n  web:\n    image: nginx:1.25\n    ports: ['8080:80', \"443\"]\n",
    "on: [push, pull_request]\njobs:\n  t:\n    steps:\n      - uses: a/b@v1\n      - run: |\n          make\n          make test\n\n",
    "x:\n  - a: |-\n      hi\n\n      there\n    b: 2\n",
    "k:\n- a\n- b\nl: 3\n",  # a sequence at its key's column
    "# c\n---\na: 1\n---\n- b\n",
    "a: 'it''s'  # note\nb: \"q\"\nc: -1\nd: a#b\ne: x # y\n",
    "  a: 1\n  b:\n    c: ~\n",
    "a: http://x/y?z=1\nb: [ ]\nc: []\nd: true\ne: 0x1F\nf: 1.5e3\n",
    "a: |\n  # not a comment\n  x\n# a comment\nb: 1\n",
    "- a: 1\n  b:\n  - c\n- d\n",
    "key with spaces: v\n$x: 1\n.hidden: 2\n",
]

OUTSIDE = [
    "a: &x 1\nb: *x\n",  # anchors and aliases
    "a: !!str 1\n",  # tags
    "a: {b: 1}\n",  # flow mappings
    "a: >\n  folded\n",  # folded block
    "a: |+\n  kept\n\n",  # keep chomping
    "a: |2\n   x\n",  # an indentation indicator
    "a: one\n  two\n",  # a multi-line plain scalar
    "a: 'one\n  two'\n",  # a multi-line quoted scalar
    'a: "\\t"\n',  # escapes
    "a:\tb\n",  # tabs
    "a: b\r\nc: d\r\n",  # CR
    "a: é\n",  # non-ASCII (line breaks libyaml counts differently)
    "%YAML 1.1\n---\na: 1\n",
    "a: 1\n...\n",
    "---\n",  # an empty document
    "a: 1\n---\n",
    "- - a\n",
    "? complex\n: key\n",
    "a: b: c\n",  # invalid: left for libyaml to locate
    "a: 1\n  b: 2\n",
    "- a\nb: 1\n",
    "a: |\n  no line break at the end",
    "just a scalar\n",
    "a : 1\n",
    "a: [1, [2]]\n",
    "a: [1, 2,]\n",
    "x" * (MAX_TEXT + 1),
]


@pytest.mark.parametrize("text", ACCEPTED)
def test_the_usual_constructs_are_composed_as_libyaml_does(text: str) -> None:
    assert _verdict(text) == "same"


@pytest.mark.parametrize("text", OUTSIDE)
def test_what_it_does_not_read_is_left_to_libyaml(text: str) -> None:
    assert compose(text) is None


def test_this_repositorys_yaml_is_composed_as_libyaml_does() -> None:
    verdicts = [_verdict(text) for text in _repository_yaml()]
    assert [v for v in verdicts if v not in ("same", "outside")] == []
    assert verdicts.count("same") >= 30  # it does read most of them: the test is not vacuous


_PIECES = [" ", "\n", "-", ":", "#", "'", '"', "|", "[", "]", ",", "{", "&", "*", "!", "?", ">", "%", "~", "0"]
_PIECES += ["  ", "- ", ": ", " #", "|-", "\n  ", "\n- ", "---\n", "''", "\n\n", "x", "1.5", "true"]


def test_mutations_of_accepted_texts_are_composed_as_libyaml_does_or_left_to_it() -> None:
    seeds = [t for t in _repository_yaml() + ACCEPTED if len(t) < 4000 and _verdict(t) == "same"]
    chance = random.Random(20261201)
    answered = 0
    for _ in range(3000):
        text = chance.choice(seeds)
        for _ in range(chance.randint(1, 3)):
            at = chance.randrange(len(text) + 1)
            roll = chance.random()
            if roll < 0.4:
                text = text[:at] + chance.choice(_PIECES) + text[at:]
            elif roll < 0.7:
                text = text[:at] + text[at + chance.randint(1, 3) :]
            else:
                lines = text.split("\n")
                row = chance.randrange(len(lines))
                lines[row] = " " * chance.randint(0, 4) + lines[row].lstrip(" ")
                text = "\n".join(lines)
        verdict = _verdict(text)
        assert verdict in ("same", "outside"), (text, verdict)
        answered += verdict == "same"
    assert answered > 500


_WORDS = st.sampled_from(["a", "b", "run", "image", "on", "x.y", "k-1", "$v", "1", "0x1f", "true", "~", "null", "-2"])
_SCALARS = st.one_of(
    _WORDS,
    st.text(alphabet="abc :#-'\"[],/.@", min_size=1, max_size=8).map(lambda t: t.strip(" ") or "z"),
    st.text(alphabet="abc '#:", max_size=6).map(lambda t: "'" + t.replace("'", "''") + "'"),
    st.text(alphabet="abc #:'", max_size=6).map(lambda t: '"' + t + '"'),
    st.lists(_WORDS, max_size=3).map(lambda items: "[" + ", ".join(items) + "]"),
)


@st.composite
def _documents(draw: st.DrawFn, depth: int = 0, indent: int = 0) -> str:
    """Block YAML text: mappings and sequences of scalars, literal blocks and further blocks."""
    pad = " " * indent
    step = draw(st.sampled_from([1, 2, 4]))
    lines = []
    as_sequence = draw(st.booleans())
    for index in range(draw(st.integers(1, 3))):
        head = f"{pad}- " if as_sequence else f"{pad}{draw(_WORDS)}{index}:"
        roll = draw(st.integers(0, 9)) if depth < 3 else draw(st.integers(0, 5))
        if roll <= 3:
            lines.append(f"{head} {draw(_SCALARS)}{draw(st.sampled_from(['', ' # c', '  #', '']))}")
        elif roll == 4:
            body = draw(st.lists(st.sampled_from(["x", "  y", "", "# z", "a: b"]), min_size=1, max_size=3))
            if not body[0].strip():
                body[0] = "w"
            chomp = draw(st.sampled_from(["|", "|-"]))
            lines.append(f"{head} {chomp}")
            lines += [(pad + " " * step + line) if line else "" for line in body]
        elif roll == 5:
            lines.append(head)
        else:
            lines.append(head)
            lines.append(draw(_documents(depth + 1, indent + step)).rstrip("\n"))
        if draw(st.integers(0, 5)) == 0:
            lines.append(draw(st.sampled_from(["", "# note", pad + "# note", "   "])))
    return "\n".join(lines) + "\n"


@settings(max_examples=300, deadline=None)
@given(_documents())
def test_generated_block_documents_are_composed_as_libyaml_does(text: str) -> None:
    assert _verdict(text) in ("same", "outside"), text


def test_reading_block_yaml_does_not_import_pyyaml() -> None:
    program = (
        "import sys\n"
        "from sandkit.lint.syntax.yaml import check_syntax, load_documents\n"
        "check_syntax('on: [push]\\njobs:\\n  t:\\n    steps:\\n      - run: |\\n          make\\n')\n"
        "assert load_documents('a:\\n- b\\n') == [{'a': ['b']}]\n"
        "print(sorted(m for m in sys.modules if m == 'yaml' or m.startswith(('yaml.', 'ruamel'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0 and done.stdout == "[]\n", done.stderr


def test_libyaml_reads_everything_once_a_process_has_read_its_share(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yaml_syntax, "_backend", None)
    monkeypatch.setattr(yaml_syntax, "_block_left", 2)
    read: list[str] = []

    def block_compose(text: str) -> Any:
        read.append(text)
        return compose(text)

    monkeypatch.setattr(yaml_syntax, "block_compose", block_compose)
    for text in ("a: 1\n", "b: &x 2\n", "c: 3\n"):  # the anchor loads PyYAML
        yaml_syntax.load_documents(text)
    assert read == ["a: 1\n", "b: &x 2\n"]
    monkeypatch.setattr(yaml_syntax, "_backend", None)
    monkeypatch.setattr(yaml_syntax, "_block_left", 1)
    read.clear()
    for text in ("a: 1\n", "c: 3\n"):
        yaml_syntax.check_syntax(text)
    assert read == ["a: 1\n"]
