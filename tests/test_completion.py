"""``sandkit completion``: scripts the real shells accept and that complete commands, flags and choices."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sandkit.cli import build_parser, main
from sandkit.compiler.targets import NAMES
from sandkit.completion import commands, script
from sandkit.kits.extends import preset_names
from sandkit.lint.registry import all_rules

SUBCOMMANDS = {"validate", "init", "schema", "build", "lint", "rules", "explain", "record", "completion"}
PRESETS = preset_names()
RULE_IDS = sorted(rule.id for rule in all_rules())
CATEGORIES = sorted({rule.category for rule in all_rules()})


def _script(shell: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["completion", shell]) == 0
    return capsys.readouterr().out


def test_the_generator_knows_every_command_and_flag() -> None:
    top, subs = commands(build_parser())
    assert {c.name for c in subs} >= SUBCOMMANDS
    lint = next(c for c in subs if c.name == "lint")
    flags = {f for o in lint.options for f in o.flags}
    assert {"--output-format", "--format", "--fix", "--diff", "--stdin-filename", "--exit-zero"} <= flags
    formats = next(o for o in lint.options if "--output-format" in o.flags)
    assert formats.value == "choice" and "gitlab" in formats.choices
    assert next(o for o in lint.options if "--output" in o.flags).value == "file"
    assert lint.positional is not None and lint.positional.value == "file"
    assert "--version" in {f for o in top.options for f in o.flags}


def test_a_word_that_is_not_plain_is_refused() -> None:
    import argparse

    parser = argparse.ArgumentParser(prog="sandkit")
    sub = parser.add_subparsers()
    sub.add_parser("ok").add_argument("--mode", choices=["a", "b; rm -rf /"])
    with pytest.raises(ValueError, match="not a plain word"):
        script(parser, "bash")


def _bash_complete(path: Path, line: str) -> list[str]:
    words = line.split(" ")
    program = (
        f"source {path}\n"
        f"COMP_WORDS=({' '.join(repr(w) if w else repr('') for w in words)})\n"
        f"COMP_CWORD={len(words) - 1}\n"
        "_sandkit\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    done = subprocess.run(["bash", "-c", program], capture_output=True, text=True, check=True)
    return done.stdout.split()


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash missing")
def test_bash_accepts_and_completes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "sandkit.bash"
    path.write_text(_script("bash", capsys))
    subprocess.run(["bash", "-n", str(path)], check=True)
    assert set(_bash_complete(path, "sandkit ")) >= SUBCOMMANDS | {"--version", "--help"}
    assert _bash_complete(path, "sandkit li") == ["lint"]
    assert _bash_complete(path, "sandkit lint --out") == ["--output-format", "--output"]
    assert _bash_complete(path, "sandkit lint --output-format g") == ["github", "gitlab"]
    assert _bash_complete(path, "sandkit lint --fail-on ") == ["critical", "high", "medium", "low", "info"]
    assert _bash_complete(path, "sandkit completion ") == ["bash", "zsh", "fish"]
    assert {"--check", "--strict", "--target"} <= set(_bash_complete(path, "sandkit build --"))
    (tmp_path / "kits").mkdir()
    files = _bash_complete(path, f"sandkit validate {tmp_path}/ki")
    assert files == [f"{tmp_path}/kits"]
    # The names sandkit knows: presets, targets (the item after the last comma), rule IDs, categories.
    assert _bash_complete(path, "sandkit init --preset c") == ["claude-code", "codex"]
    assert _bash_complete(path, "sandkit import x.json --extends ") == PRESETS
    assert _bash_complete(path, "sandkit build --target ") == sorted(NAMES)
    assert _bash_complete(path, "sandkit build --target compose,k") == ["compose,kubernetes"]
    assert _bash_complete(path, "sandkit explain PV00") == [r for r in RULE_IDS if r.startswith("PV00")]
    assert _bash_complete(path, "sandkit lint --select AA001,agent-m") == ["AA001,agent-mcp"]
    assert _bash_complete(path, "sandkit rules --category ci-") == [c for c in CATEGORIES if c.startswith("ci-")]


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish missing (apt-get install fish)")
def test_fish_accepts_and_completes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "sandkit.fish"
    path.write_text(_script("fish", capsys))
    subprocess.run(["fish", "--no-execute", str(path)], check=True)

    def complete(line: str) -> list[str]:
        done = subprocess.run(
            ["fish", "--no-config", "-c", f"source {path}; complete -C '{line}'"],
            capture_output=True,
            text=True,
            check=True,
        )
        return [row.split("\t")[0] for row in done.stdout.splitlines()]

    assert set(complete("sandkit ")) >= SUBCOMMANDS
    assert complete("sandkit li") == ["lint"]
    assert set(complete("sandkit lint --output-format=")) >= {"--output-format=gitlab", "--output-format=junit"}
    assert "--stdin-filename" in complete("sandkit lint --std")
    assert set(complete("sandkit completion ")) == {"bash", "zsh", "fish"}
    assert complete("sandkit init --preset ") == PRESETS
    assert complete("sandkit build --target ") == sorted(NAMES)
    assert complete("sandkit build --target compose,k") == ["compose,kubernetes"]
    assert complete("sandkit explain PV00") == [r for r in RULE_IDS if r.startswith("PV00")]
    assert "AA001,CP001" in complete("sandkit lint --select AA001,CP00")


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh missing (apt-get install zsh)")
def test_zsh_accepts_and_registers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "_sandkit"
    path.write_text(_script("zsh", capsys))
    subprocess.run(["zsh", "-n", str(path)], check=True)
    program = (
        f"autoload -U compinit && compinit -u -d {tmp_path}/zcompdump; source {path}; print -r -- $_comps[sandkit]"
    )
    done = subprocess.run(["zsh", "-f", "-c", program], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "_sandkit"
    assert (
        "'--output-format[" in path.read_text() and "(text concise json sarif github gitlab junit)" in path.read_text()
    )
    text = path.read_text()
    assert f":preset:({' '.join(PRESETS)})'" in text
    assert f":target:_sequence compadd - {' '.join(sorted(NAMES))}'" in text
    assert f":argument:({' '.join([*RULE_IDS, *CATEGORIES])})'" in text
    # _sequence, which completes each comma-separated item, is one of zsh's own completion functions.
    program = f"autoload -U compinit && compinit -u -d {tmp_path}/zcompdump; whence -w _sequence"
    done = subprocess.run(["zsh", "-f", "-c", program], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "_sequence: function"


def test_completion_is_light() -> None:
    code = "import sys; from sandkit.cli import main\nmain(['completion', 'bash'])\nprint(sorted(sys.modules), file=sys.stderr)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # the rule families are imported for the rule IDs (sandkit.lint.engine_rules among them), not the engine
    assert "jinja2" not in done.stderr and "'sandkit.lint.engine'" not in done.stderr
