"""The flags linter users bring from ruff, hadolint and zizmor, through the real command line."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sandkit.cli import build_parser, main
from tests.conftest import REPO
from tests.lint.helpers import run_sandkit, write_tree

SOCKET = "services:\n  b:\n    volumes: [/var/run/docker.sock:/var/run/docker.sock]\n"
ESCALATION = (
    "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - name: aider\n"  # an agent's pod: not lowered
    "      securityContext: {allowPrivilegeEscalation: true}\n"
)
PRIVILEGED = "services:\n  a:\n    privileged: true\n  b:\n    privileged: true\n"


def lint_json(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    code = main(["lint", str(tmp_path), "--root", str(tmp_path), "--output-format", "json", *args])
    return code, json.loads(capsys.readouterr().out)


def rules_in(document: dict) -> list[str]:
    return sorted(f["rule"] for f in document["findings"])


def test_output_format_and_its_format_alias(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_tree(tmp_path, {"compose.yaml": SOCKET})
    assert main(["lint", str(tmp_path), "--output-format", "json"]) == 1
    first = json.loads(capsys.readouterr().out)
    assert main(["lint", str(tmp_path), "--format", "json"]) == 1
    assert json.loads(capsys.readouterr().out) == first


def test_abbreviated_flags_are_refused_everywhere(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_tree(tmp_path, {"compose.yaml": SOCKET})
    assert main(["lint", str(tmp_path), "--output-f", "json"]) == 2
    assert "unrecognized arguments: --output-f" in capsys.readouterr().err
    assert main(["rules", "--form", "json"]) == 2
    assert main(["--vers"]) == 2
    parser = build_parser()
    assert parser.allow_abbrev is False
    assert all(p.allow_abbrev is False for p in subcommands(parser).values())


def test_exit_zero_keeps_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_tree(tmp_path, {"compose.yaml": SOCKET})
    assert main(["lint", str(tmp_path), "--exit-zero"]) == 0
    assert "RS001" in capsys.readouterr().out
    assert main(["lint", str(tmp_path), "--exit-zero", "--select", "NOPE"]) == 2


def test_statistics_counts_per_rule(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_tree(tmp_path, {"compose.yaml": PRIVILEGED, "x/compose.yaml": SOCKET})
    assert main(["lint", str(tmp_path), "--statistics"]) == 1
    assert capsys.readouterr().out == "2  PV001  privileged-container\n1  RS001  runtime-socket-mount\n"
    assert main(["lint", str(tmp_path), "--statistics", "--output-format", "json"]) == 1
    rows = json.loads(capsys.readouterr().out)
    assert [(r["rule"], r["count"], r["fixable"]) for r in rows] == [("PV001", 2, False), ("RS001", 1, False)]
    assert main(["lint", str(tmp_path), "--statistics", "--output-format", "sarif"]) == 2
    assert "--statistics prints text, concise, json" in capsys.readouterr().err


def test_quiet_prints_findings_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_tree(tmp_path, {"compose.yaml": SOCKET})
    assert main(["lint", str(tmp_path), "--root", str(tmp_path), "--quiet"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("compose.yaml:3:15: critical RS001") and "finding" not in out.splitlines()[-1]
    write_tree(tmp_path, {"compose.yaml": "services: {}\n"})
    assert main(["lint", str(tmp_path), "-q"]) == 0
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("ALL", ["PV005", "RS001"]),
        ("all", ["PV005", "RS001"]),
        ("rs", ["RS001"]),
        ("RS0", ["RS001"]),
        ("rs001", ["RS001"]),
        ("Privileged", ["PV005"]),
        ("RUNTIME-SOCKET-MOUNT", ["RS001"]),
        ("pv00", ["PV005"]),
    ],
)
def test_selectors_in_any_case(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], selector: str, expected: list[str]
) -> None:
    write_tree(tmp_path, {"compose.yaml": SOCKET, "pod.yaml": ESCALATION})
    _, document = lint_json(tmp_path, capsys, "--select", selector)
    assert rules_in(document) == expected


def test_extend_select_and_extend_ignore(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_tree(
        tmp_path,
        {"compose.yaml": SOCKET, "pod.yaml": ESCALATION, ".sandkit.toml": 'select = ["RS"]\nignore = ["PV001"]\n'},
    )
    assert rules_in(lint_json(tmp_path, capsys)[1]) == ["RS001"]
    assert rules_in(lint_json(tmp_path, capsys, "--extend-select", "pv")[1]) == ["PV005", "RS001"]
    assert rules_in(lint_json(tmp_path, capsys, "--select", "pv")[1]) == ["PV005"]
    assert rules_in(lint_json(tmp_path, capsys, "--extend-select", "pv", "--extend-ignore", "rs")[1]) == ["PV005"]
    assert rules_in(lint_json(tmp_path, capsys, "--extend-select", "pv", "--ignore", "PV005")[1]) == ["RS001"]
    assert main(["lint", str(tmp_path), "--extend-select", "zz9"]) == 2
    assert "--extend-select: error: 'zz9' matches no rule" in capsys.readouterr().err


def test_exclude_and_extend_exclude_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tree(
        tmp_path,
        {
            "a/compose.yaml": SOCKET,
            "b/compose.yaml": SOCKET,
            "c/compose.yaml": SOCKET,
            ".sandkit.toml": 'exclude = ["a"]\n',
        },
    )
    paths = lambda document: sorted(f["path"] for f in document["findings"])  # noqa: E731
    assert paths(lint_json(tmp_path, capsys)[1]) == ["b/compose.yaml", "c/compose.yaml"]
    assert paths(lint_json(tmp_path, capsys, "--extend-exclude", "b")[1]) == ["c/compose.yaml"]
    assert paths(lint_json(tmp_path, capsys, "--exclude", "b")[1]) == ["a/compose.yaml", "c/compose.yaml"]
    # command-line globs with a slash are relative to the working folder
    monkeypatch.chdir(tmp_path.parent)
    anchored = f"{tmp_path.name}/c"
    assert paths(lint_json(tmp_path, capsys, "--extend-exclude", anchored)[1]) == ["b/compose.yaml"]
    assert main(["lint", str(tmp_path / "b"), "--extend-exclude", "b"]) == 0
    assert "is excluded by --exclude/--extend-exclude" in capsys.readouterr().err


def test_min_severity_hides_and_cannot_fail(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_tree(tmp_path, {"compose.yaml": SOCKET, "pod.yaml": ESCALATION})
    code, document = lint_json(tmp_path, capsys, "--min-severity", "high")
    assert code == 1 and rules_in(document) == ["RS001"]
    write_tree(tmp_path, {"compose.yaml": "services: {}\n"})
    code, document = lint_json(tmp_path, capsys, "--min-severity", "high")
    assert code == 0 and document["findings"] == []
    assert lint_json(tmp_path, capsys, "--fail-on", "medium")[0] == 1


def test_concise_has_no_fix_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_tree(tmp_path, {"compose.yaml": SOCKET})
    assert main(["lint", str(tmp_path), "--root", str(tmp_path), "--output-format", "concise"]) == 1
    first, summary = capsys.readouterr().out.splitlines()
    assert first.startswith("compose.yaml:3:15: critical RS001 ") and "[fix:" not in first
    assert summary == "1 finding (1 critical) in 1 file."


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_colour_follows_no_color_force_color_and_the_flag(tmp_path: Path) -> None:
    write_tree(tmp_path, {"compose.yaml": SOCKET})
    target = str(tmp_path)
    assert "\x1b[" not in run_sandkit(["lint", target]).stdout  # a pipe is not a terminal
    forced = run_sandkit(["lint", target], {"FORCE_COLOR": "1"}, cwd=tmp_path).stdout
    assert "\x1b[1;31mcritical\x1b[0m" in forced and "\x1b[1mcompose.yaml:3:15:\x1b[0m" in forced
    assert "\x1b[" not in run_sandkit(["lint", target, "--no-color"], {"FORCE_COLOR": "1"}).stdout
    assert "\x1b[" not in run_sandkit(["lint", target], {"FORCE_COLOR": "1", "NO_COLOR": "1"}).stdout
    assert "\x1b[" not in run_sandkit(["lint", target, "--output-format", "json"], {"FORCE_COLOR": "1"}).stdout


def test_colour_on_a_terminal(tmp_path: Path) -> None:
    pty = pytest.importorskip("pty")
    write_tree(tmp_path, {"compose.yaml": SOCKET})
    leader, follower = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TERM")}
    done = subprocess.run(
        [sys.executable, "-m", "sandkit", "lint", str(tmp_path)], stdout=follower, env=env, check=False, timeout=60
    )
    os.close(follower)
    output = os.read(leader, 65536).decode()
    os.close(leader)
    assert done.returncode == 1
    assert "\x1b[1;31mcritical\x1b[0m" in output
    env["NO_COLOR"] = "1"
    leader, follower = pty.openpty()
    subprocess.run([sys.executable, "-m", "sandkit", "lint", str(tmp_path)], stdout=follower, env=env, check=False)
    os.close(follower)
    assert "\x1b[" not in os.read(leader, 65536).decode()
    os.close(leader)


def test_hostile_file_names_cannot_drive_the_terminal(tmp_path: Path) -> None:
    name = os.fsencode("x\x1b]0;pwned\x07") + b"\xff.yaml"
    (tmp_path / os.fsdecode(name)).write_text("services:\n  a:\n    privileged: true\n")
    for fmt in ("text", "concise", "json", "sarif", "github", "gitlab", "junit"):
        done = run_sandkit(["lint", str(tmp_path), "--output-format", fmt])
        assert done.returncode == 1, done.stderr
        assert "\x1b" not in done.stdout and "\x07" not in done.stdout and "Traceback" not in done.stderr
    text = run_sandkit(["lint", str(tmp_path)]).stdout
    assert "x\\x1b]0;pwned\\x07\\udcff.yaml:3:17: critical PV001" in text


def test_stdin_with_a_file_name(tmp_path: Path) -> None:
    write_tree(tmp_path, {".sandkit.toml": 'per-path-ignores = {"ignored/**" = ["RS"]}\n'})
    done = run_sandkit(
        ["lint", "-", "--stdin-filename", "deploy/compose.yaml", "--output-format", "concise"],
        input=SOCKET,
        cwd=tmp_path,
    )
    assert done.returncode == 1
    assert done.stdout.startswith("deploy/compose.yaml:3:15: critical RS001")
    ignored = run_sandkit(["lint", "-", "--stdin-filename", "ignored/compose.yaml"], input=SOCKET, cwd=tmp_path)
    assert ignored.returncode == 0 and "0 findings in 1 file" in ignored.stdout
    unnamed = run_sandkit(["lint", "-"], input="#!/bin/sh\ndocker run -v /var/run/docker.sock:/s x\n", cwd=tmp_path)
    assert unnamed.returncode == 1 and unnamed.stdout.startswith("-:2:")
    assert run_sandkit(["lint", "-", "other"], input="", cwd=tmp_path).returncode == 2
    assert run_sandkit(["lint", "--stdin-filename", "x.yaml"], cwd=tmp_path).returncode == 2


def test_stdin_that_the_config_excludes_is_named_not_checked(tmp_path: Path) -> None:
    write_tree(tmp_path, {".sandkit.toml": 'exclude = ["vendored"]\n'})
    done = run_sandkit(["lint", "-", "--stdin-filename", "vendored/compose.yaml"], input=SOCKET, cwd=tmp_path)
    assert done.returncode == 0 and "vendored/compose.yaml is excluded by" in done.stderr


def test_every_lint_flag_is_in_help_and_docs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "--help"]) == 0
    help_text = capsys.readouterr().out
    docs = (REPO / "docs" / "lint.md").read_text()
    lint = subcommands(build_parser())["lint"]
    for action in lint._actions:
        for flag in action.option_strings:
            assert flag in help_text
            if flag.startswith("--") and flag != "--help":
                assert f"`{flag}" in docs or f"{flag}`" in docs or f" {flag} " in docs, f"{flag} is not in docs/lint.md"
