"""The repository holds itself to its own standards: its kits compile to the committed output,
its code is ruff- and mypy-clean, and the linter finds nothing in it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import REPO


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(argv), cwd=REPO, capture_output=True, text=True, check=False)


def test_own_kits_output_is_current() -> None:
    done = _run(sys.executable, "-m", "sandkit", "build", "--check", "kits/")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("argv", [["ruff", "check", "."], ["ruff", "format", "--check", "."], ["mypy"]], ids=" ".join)
def test_code_is_clean(argv: list[str]) -> None:
    if shutil.which(argv[0]) is None:
        pytest.fail(f"{argv[0]} is not installed (a test dependency)")
    done = _run(*argv)
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_with_no_arguments_checks_every_python_folder() -> None:
    """`mypy` alone is the one type check: every folder of the project's own Python is configured."""
    configured = {
        Path(entry) for entry in tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["mypy"]["files"]
    }
    unchecked = sorted(
        str(path.relative_to(REPO))
        for path in _python_files(REPO)
        if not any(path.relative_to(REPO).is_relative_to(entry) for entry in configured)
    )
    assert unchecked == [], f"add their folders to [tool.mypy] files in pyproject.toml: {unchecked}"


def _python_files(root: Path) -> list[Path]:
    """The project's Python files; examples/ holds the sample projects kits mount, not our code."""
    skip = {"build", "dist", "examples", "__pycache__"}
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".") and not d.endswith(".egg-info") and d not in skip]
        found += [Path(folder) / name for name in files if name.endswith(".py")]
    return found
