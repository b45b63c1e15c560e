"""The ``sandkit`` program's entry: main's output and exit code, then an exit that frees nothing."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

import pytest

import sandkit
import sandkit.cli
from sandkit.cli import main

_FROZEN_AFTER = """
import gc, sys
from sandkit.cli import entry
code = entry(sys.argv[1:])
print(code, gc.get_freeze_count() > 0, file=sys.stderr)
"""


def _entry(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _FROZEN_AFTER, *args], capture_output=True, text=True, cwd=cwd, check=False
    )


def test_the_entry_returns_what_main_returns_and_freezes_the_collector(tmp_path: Path) -> None:
    version = _entry("--version")
    assert version.stdout == f"sandkit {sandkit.__version__}\n"
    assert version.stderr.splitlines()[-1] == "0 True"  # the exit leaves every object to the system
    (tmp_path / "compose.yaml").write_text("services:\n  web:\n    image: x\n    privileged: true\n")
    lint = _entry("lint", "--format", "concise", "compose.yaml", cwd=tmp_path)
    assert "compose.yaml:4:" in lint.stdout
    assert lint.stderr.splitlines()[-1] == "1 True"


def test_main_in_a_longer_lived_process_leaves_the_collector_alone(capsys: pytest.CaptureFixture[str]) -> None:
    frozen, threshold = gc.get_freeze_count(), gc.get_threshold()
    assert main(["--version"]) == 0
    # the version the CLI read when it was imported (an install during the run may write a newer one)
    assert capsys.readouterr().out == f"sandkit {sandkit.cli.__version__}\n"
    assert (gc.get_freeze_count(), gc.get_threshold()) == (frozen, threshold)


_SHORT_LIFE = """
import gc, sys
from sandkit.cli import COLLECT_AFTER, entry
code = entry(sys.argv[1:])
print(code, gc.get_threshold()[0] == COLLECT_AFTER, file=sys.stderr)
"""


@pytest.mark.parametrize(
    ("args", "code", "shown"),
    [
        (
            ["lint", "--nope"],
            2,
            "usage: sandkit [-h] [-V] COMMAND ...\nsandkit: error: unrecognized arguments: --nope",
        ),
        (["lint", "--format"], 2, "sandkit lint: error: argument --output-format/--format: expected one argument"),
        (["lint", "--help"], 0, "options:\n  -h, --help            show this help message and exit"),
    ],
)
def test_the_entry_collects_less_often_and_prints_argparses_messages(args: list[str], code: int, shown: str) -> None:
    done = subprocess.run([sys.executable, "-c", _SHORT_LIFE, *args], capture_output=True, text=True, check=False)
    *messages, outcome = done.stderr.splitlines()
    assert outcome == f"{code} True", done.stderr
    assert shown in done.stdout + "\n".join(messages)


_RUN_AS_MAIN = """
import gc, runpy, sys
sys.argv = ["sandkit", "--version"]
try:
    runpy.run_module("sandkit", run_name="__main__")
except SystemExit as exc:
    print(exc.code, gc.get_freeze_count() > 0, file=sys.stderr)
"""


def test_python_dash_m_and_the_console_script_run_the_entry() -> None:
    import tomllib

    from tests.conftest import REPO

    scripts = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert scripts["sandkit"] == "sandkit.cli:entry"
    done = subprocess.run([sys.executable, "-c", _RUN_AS_MAIN], capture_output=True, text=True, check=False)
    assert (done.stdout, done.stderr) == (f"sandkit {sandkit.__version__}\n", "0 True\n")


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_minus_capital_v_prints_the_version_as_ruff_does(flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([flag]) == 0
    assert capsys.readouterr().out == f"sandkit {sandkit.__version__}\n"
