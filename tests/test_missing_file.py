"""A file that is not there is a usage error, exit 2, with the same sentence from every command."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandkit.cli import main
from tests.compiler.helpers import in_folder


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["validate", "nope.yaml"], "nope.yaml: no such file or folder"),
        (["build", "nope.yaml", "-o", "out"], "nope.yaml: no such file or folder"),
        (["summary", "nope.yaml"], "nope.yaml: no such file or folder"),
        (["lint", "nope"], "nope: error: no such file or folder"),
        (["import", "nope.json"], "nope.json: no such file or folder"),
        (["import", "gone/spec.yaml"], "gone/spec.yaml: no such file or folder"),
    ],
)
def test_a_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], said: str) -> None:
    with in_folder(tmp_path):
        assert main(argv) == 2
    assert capsys.readouterr().err.splitlines()[0] == said
    assert not (tmp_path / "sandkit.yaml").exists() and not (tmp_path / "out").exists()
