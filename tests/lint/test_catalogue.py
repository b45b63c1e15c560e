"""``sandkit rules`` (by category, as text, JSON or Markdown) and ``sandkit explain`` (by any name)."""

from __future__ import annotations

import json

import pytest

from sandkit.cli import main


def test_rules_filtered_by_category_in_any_case(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--category", "Hidden-Unicode,agent-mcp", "--output-format", "json"]) == 0
    rules = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in rules] == ["AM001", "AM002", "AM003", "AM004", "HU001", "HU002", "HU003"]
    assert {r["id"]: r["fixable"] for r in rules if r["fixable"]} == {
        "AM001": True,
        "HU001": True,
        "HU002": True,
        "HU003": True,
    }
    assert main(["rules", "--category", "nope"]) == 2
    assert "unknown category nope" in capsys.readouterr().err


def test_rules_as_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--category", "hidden-unicode", "--format", "markdown"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == ["| ID | category | severity | what it catches | `--fix` |", "| --- | --- | --- | --- | --- |"]
    assert lines[2].startswith("| HU001 | hidden-unicode | high | Invisible Unicode tag characters") and lines[
        2
    ].endswith("| yes |")
    assert len(lines) == 5


def test_rules_text_marks_fixable_rules(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--category", "agent-mcp"]) == 0
    out = capsys.readouterr().out
    assert "AM001  medium    agent-mcp           unpinned-mcp-package [*]: " in out
    assert "AM002  high      agent-mcp           mcp-fetch-and-execute: " in out


@pytest.mark.parametrize(
    ("key", "ids"),
    [
        ("rs001", ["RS001"]),
        ("runtime-socket-mount", ["RS001"]),
        ("RUNTIME-SOCKET", ["RS001", "RS002", "RS003", "RS004"]),
        ("hidden-unicode", ["HU001", "HU002", "HU003"]),
        ("am00", ["AM001", "AM002", "AM003", "AM004"]),
    ],
)
def test_explain_by_id_name_category_or_prefix(capsys: pytest.CaptureFixture[str], key: str, ids: list[str]) -> None:
    assert main(["explain", key]) == 0
    out = capsys.readouterr().out
    headings = [line.split()[0] for line in out.splitlines() if line[:2].isalpha() and line[2:5].isdigit()]
    assert headings == ids
    assert out.count("Fix:") == len(ids)


def test_explain_several_and_unknown(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "HU001", "hidden-unicode", "RS001"]) == 0
    out = capsys.readouterr().out
    assert out.count("HU001 unicode-tag-characters") == 1 and "RS001 runtime-socket-mount" in out
    assert "`sandkit lint --fix` repairs it" in out
    assert main(["explain", "XX999"]) == 2
    assert "no rule or category 'XX999'" in capsys.readouterr().err
