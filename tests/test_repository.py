"""The repository holds itself to its own standards: its kits compile to the committed output,
its code is ruff- and mypy-clean, and the linter finds nothing in it."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tests.conftest import REPO


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(argv), cwd=REPO, capture_output=True, text=True, check=False)


def test_own_kits_output_is_current() -> None:
    done = _run(sys.executable, "-m", "sandkit", "build", "--check", "kits/")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("tool", ["ruff", "mypy"])
def test_code_is_clean(tool: str) -> None:
    if shutil.which(tool) is None:
        pytest.fail(f"{tool} is not installed (a test dependency)")
    argv = [tool, "check", "sandkit", "tests", "bench"] if tool == "ruff" else [tool]
    done = _run(*argv)
    assert done.returncode == 0, done.stdout + done.stderr
