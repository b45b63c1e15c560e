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


def test_triggers_never_hide_a_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    """Triggers and ``reads`` are only pre-filters: with every rule forced to run, nothing new appears."""
    from sandkit.lint import registry

    with_triggers = {case.name: lint_tree(case) for case in CASES}
    for rule in registry.all_rules():  # which files a rule reads is a pre-filter too; put back after the test
        monkeypatch.setitem(registry._REGISTRY, rule.id, rule._replace(triggers=(), reads=None))
    for case in CASES:
        assert lint_tree(case) == with_triggers[case.name], case.name
