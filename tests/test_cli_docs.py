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


@pytest.mark.parametrize("command", ["validate", "build", "lint", "rules", "explain", "completion"])
def test_flags_are_in_help_and_docs(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([command, "--help"]) == 0
    help_text = capsys.readouterr().out
    for action in _commands()[command]._actions:
        for flag in action.option_strings:
            assert flag in help_text
            if flag.startswith("--") and flag != "--help":
                assert re.search(re.escape(flag) + r"(?![\w-])", DOCS), f"sandkit {command} {flag} is not documented"
