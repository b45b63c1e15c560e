"""Every long flag of the commands below is in their --help and in README.md or docs/."""

from __future__ import annotations

import argparse
import re

import pytest

from sandkit.cli import build_parser, main
from tests.conftest import REPO

DOCS = (REPO / "README.md").read_text(encoding="utf-8") + "".join(
    path.read_text(encoding="utf-8") for path in sorted((REPO / "docs").glob("*.md"))
)


def _commands() -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


@pytest.mark.parametrize("command", ["validate", "build", "lint", "rules", "explain", "verify", "record", "completion"])
def test_flags_are_in_help_and_docs(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([command, "--help"]) == 0
    help_text = capsys.readouterr().out
    for action in _commands()[command]._actions:
        for flag in action.option_strings:
            assert flag in help_text
            if flag.startswith("--") and flag != "--help":
                assert re.search(re.escape(flag) + r"(?![\w-])", DOCS), f"sandkit {command} {flag} is not documented"


def test_main_builds_only_the_named_sub_commands_group(capsys: pytest.CaptureFixture[str]) -> None:
    lint_only = build_parser("lint")
    action = next(a for a in lint_only._actions if isinstance(a, argparse._SubParsersAction))
    assert list(action.choices) == ["lint"]  # each sub-parser costs argparse's set-up (and gettext's look-ups)

    assert list(_commands()) == [
        "validate",
        "init",
        "schema",
        "build",
        "import",
        "lint",
        "rules",
        "explain",
        "summary",
        "diff",
        "verify",
        "record",
        "completion",
    ]
    assert main(["lnt"]) == 2  # an unknown word is parsed by the whole command line, which lists them all
    assert "choose from 'validate', 'init', 'schema', 'build', 'import', 'lint'" in capsys.readouterr().err
