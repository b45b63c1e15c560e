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
    findings = lint_tree(case)
    found = categories_of(findings)
    missing = set(expect.get("must", [])) - found
    unwanted = set(expect.get("must_not", [])) & found
    assert not missing, f"{case.name}: expected {sorted(missing)}, found {sorted(found)}"
    assert not unwanted, f"{case.name}: must not report {sorted(unwanted)}"
    if "findings" in expect:  # the exact findings, as "path:line:column RULE"
        assert sorted(f"{f.path}:{f.line}:{f.column} {f.rule}" for f in findings) == sorted(expect["findings"])


def test_corpus_is_not_empty() -> None:
    assert len(CASES) >= 15


def test_triggers_never_hide_a_finding() -> None:
    """Triggers and ``reads`` are only pre-filters: with every rule forced to run, nothing new appears."""
    from sandkit.lint.registry import all_rules

    with_triggers = {case.name: lint_tree(case) for case in CASES}
    saved = {rule.id: (rule.triggers, rule.reads) for rule in all_rules()}
    try:
        for rule in all_rules():
            object.__setattr__(rule, "triggers", ())  # frozen dataclass, restored below
            object.__setattr__(rule, "reads", None)  # which files a rule reads is a pre-filter too
        for case in CASES:
            assert lint_tree(case) == with_triggers[case.name], case.name
    finally:
        for rule in all_rules():
            object.__setattr__(rule, "triggers", saved[rule.id][0])
            object.__setattr__(rule, "reads", saved[rule.id][1])
