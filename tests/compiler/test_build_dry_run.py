"""``sandkit build --dry-run`` lists what a build would write and remove, and writes nothing;
``sandkit build`` shows progress on a terminal when it is slow."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from sandkit import console
from sandkit.cli import main

KIT = "apiVersion: sandkit/v1\nname: one\nagent: {command: ['true']}\n"


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _dry(tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[list[tuple[str, str]], str]:
    before = _tree(tmp_path)
    assert main(["build", "kits", "--dry-run", "--target", "docker,compose", *extra]) == 0
    assert _tree(tmp_path) == before, "a dry run writes nothing"
    captured = capsys.readouterr()
    rows = [tuple(line.split(None, 1)) for line in captured.out.splitlines()]
    return rows, captured.err  # type: ignore[return-value]


def test_dry_run_lists_creates_updates_same_and_removals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kits").mkdir()
    (tmp_path / "kits" / "one.yaml").write_text(KIT)
    rows, err = _dry(tmp_path, capsys, "--actions-dir", "wf", "--target", "docker,compose,actions")
    assert {action for action, _ in rows} == {"create"}
    assert ("create", "sandbox/one/compose.yaml") in rows and ("create", "wf/one.yml") in rows
    assert "nothing written" in err
    assert main(["build", "kits", "--target", "docker,compose", "-q"]) == 0
    rows, err = _dry(tmp_path, capsys)
    assert {action for action, _ in rows} == {"same"} and len(rows) == len(_tree(tmp_path / "sandbox"))
    (tmp_path / "kits" / "one.yaml").write_text(KIT + "env: {A: '1'}\n")
    rows, err = _dry(tmp_path, capsys, "--target", "docker")
    assert ("remove", "sandbox/one/compose.yaml") in rows and ("update", "sandbox/one/env.sh") in rows
    # compose.yaml and egress/: Dockerfile, squid.conf, host-addresses.sh, host-guard.sh, listen.*, record.pl
    assert err.startswith("sandkit build --dry-run: 1 kit(s), ") and "8 remove" in err


def test_dry_run_and_check_are_one_or_the_other(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["build", "kits", "--dry-run", "--check"]) == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_a_bad_kit_fails_a_dry_run_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kits").mkdir()
    (tmp_path / "kits" / "one.yaml").write_text(KIT.replace("name: one", "name: One Two"))
    assert main(["build", "kits", "--dry-run"]) == 1
    assert capsys.readouterr().out == ""


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_build_progress_on_a_terminal_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kits").mkdir()
    for name in ("a", "b", "c"):
        (tmp_path / "kits" / f"{name}.yaml").write_text(KIT.replace("name: one", f"name: {name}"))
    monkeypatch.setattr(console, "PROGRESS_AFTER_SECONDS", 0.0)
    monkeypatch.setattr(console, "_REDRAW_SECONDS", 0.0)
    for stream, quiet, shown in ((Terminal(), [], True), (io.StringIO(), [], False), (Terminal(), ["-q"], False)):
        monkeypatch.setattr("sys.stderr", stream)
        assert main(["build", "kits", "--dry-run", "--target", "docker", *quiet]) == 0
        assert ("sandkit: compiled kits: 3/3" in stream.getvalue()) is shown
