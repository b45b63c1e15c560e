"""Run ``sandkit`` in a folder and compare reports with golden files.

Golden files live in tests/review/golden/. After a deliberate change to a report, regenerate them
with ``SANDKIT_UPDATE_GOLDEN=1 python -m pytest tests/review`` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sandkit.cli import main
from tests.compiler.helpers import in_folder

GOLDEN = Path(__file__).parent / "golden"


def sandkit(folder: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of ``sandkit ARGS`` run in ``folder``."""
    capsys.readouterr()
    with in_folder(folder):
        code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("SANDKIT_UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"{path} is missing; run with SANDKIT_UPDATE_GOLDEN=1 to write it"
    assert text == path.read_text(encoding="utf-8"), f"{name} differs from the golden file"
