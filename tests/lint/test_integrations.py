"""The pre-commit hooks and the GitHub Action that run the linter elsewhere."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

REPO = Path(__file__).resolve().parents[2]


def load(name: str) -> Any:
    return YAML(typ="safe").load((REPO / name).read_text())


def test_pre_commit_hooks() -> None:
    hooks = {h["id"]: h for h in load(".pre-commit-hooks.yaml")}
    assert hooks["sandkit-lint"]["entry"] == "sandkit lint"
    assert hooks["sandkit-lint"]["pass_filenames"] is True
    assert hooks["sandkit-build-check"]["entry"] == "sandkit build --check"  # kits: args or [tool.sandkit]
    assert hooks["sandkit-build-check"]["pass_filenames"] is False


def test_action_pins_upload_sarif_by_commit() -> None:
    text = (REPO / "action.yml").read_text()
    uses = re.findall(r"uses: (\S+)@(\S+)(.*)", text)
    assert uses, "the action must upload SARIF"
    for action, ref, comment in uses:
        assert re.fullmatch(r"[0-9a-f]{40}", ref), f"{action} is not pinned by commit"
        assert re.search(r"# v\d+\.\d+\.\d+", comment), f"{action} lacks a version comment"
    steps = load("action.yml")["runs"]["steps"]
    lint = next(s for s in steps if s.get("id") == "lint")
    assert "--format sarif" in lint["run"]


@pytest.mark.skipif(shutil.which("check-jsonschema") is None, reason="check-jsonschema missing")
def test_action_matches_the_github_action_schema() -> None:
    result = subprocess.run(
        ["check-jsonschema", "--builtin-schema", "vendor.github-actions", str(REPO / "action.yml")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_repository_lints_itself_clean() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "sandkit", "lint", "."], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_build_check_without_arguments_uses_the_repository_config() -> None:
    """This repository's own hook: `sandkit build --check` finds `kits` in .sandkit.toml."""
    result = subprocess.run(
        [sys.executable, "-m", "sandkit", "build", "--check"], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "kit(s) up to date" in result.stdout
