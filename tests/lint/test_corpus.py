"""The labelled corpus: each folder is a small repository with the categories it must and
must not produce (``expect.toml``), positives and look-alike negatives side by side."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from tests.lint.helpers import categories_of, lint_tree

CORPUS = Path(__file__).parent / "corpus"
CASES = sorted(p for p in CORPUS.iterdir() if (p / "expect.toml").is_file())


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_corpus_case(case: Path) -> None:
    expect = tomllib.loads((case / "expect.toml").read_text())
    found = categories_of(lint_tree(case))
    missing = set(expect.get("must", [])) - found
    unwanted = set(expect.get("must_not", [])) & found
    assert not missing, f"{case.name}: expected {sorted(missing)}, found {sorted(found)}"
    assert not unwanted, f"{case.name}: must not report {sorted(unwanted)}"


def test_corpus_is_not_empty() -> None:
    assert len(CASES) >= 15
