"""Progress on standard error: only on a terminal, only after a delay, never in machine formats."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from sandkit import console
from sandkit.cli import main
from tests.lint.helpers import write_tree


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _lint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stderr: io.StringIO, *args: str) -> str:
    monkeypatch.setattr("sys.stderr", stderr)
    main(["lint", str(tmp_path), *args])
    return stderr.getvalue()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    write_tree(tmp_path, {f"d{i}/compose.yaml": "services: {}\n" for i in range(30)})
    return tmp_path


def test_progress_shows_on_a_terminal_after_the_delay_and_is_erased(
    tree: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(console, "PROGRESS_AFTER_SECONDS", 0.0)
    monkeypatch.setattr(console, "_REDRAW_SECONDS", 0.0)
    err = _lint(tree, monkeypatch, Terminal())
    assert "\r\x1b[Ksandkit: scanned files: 30 (0 s)" in err
    assert err.endswith("\r\x1b[K")
    assert "\x1b" not in capsys.readouterr().out


@pytest.mark.parametrize(
    ("stream", "args"),
    [
        (io.StringIO(), ()),  # not a terminal
        (Terminal(), ("--output-format", "json")),
        (Terminal(), ("--output-format", "sarif")),
        (Terminal(), ("--statistics",)),
        (Terminal(), ("--quiet",)),
    ],
    ids=["pipe", "json", "sarif", "statistics", "quiet"],
)
def test_no_progress_off_a_terminal_in_machine_formats_or_quiet(
    tree: Path, monkeypatch: pytest.MonkeyPatch, stream: io.StringIO, args: tuple[str, ...]
) -> None:
    monkeypatch.setattr(console, "PROGRESS_AFTER_SECONDS", 0.0)
    assert "scanned files" not in _lint(tree, monkeypatch, stream, *args)


def test_no_progress_before_the_delay(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert console.PROGRESS_AFTER_SECONDS == 2.0
    assert _lint(tree, monkeypatch, Terminal()) == ""
