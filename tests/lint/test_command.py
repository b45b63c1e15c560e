"""``sandkit lint/rules/explain`` end to end: exit codes, config, baselines, selection."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sandkit.cli import main
from tests.lint.helpers import write_tree

SOCKET = "services:\n  b:\n    volumes: [/var/run/docker.sock:/var/run/docker.sock]\n"
ESCALATION = (
    "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - name: aider\n"  # an agent's pod: not lowered
    "      securityContext: {allowPrivilegeEscalation: true}\n"
)


def lint(tmp_path: Path, *args: str) -> int:
    return main(["lint", str(tmp_path), *args])


def test_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert lint(tmp_path) == 0
    write_tree(tmp_path, {"compose.yaml": SOCKET})
    assert lint(tmp_path) == 1
    assert "compose.yaml:3:15: critical RS001" in capsys.readouterr().out
    assert main(["lint", str(tmp_path / "missing")]) == 2
    assert "no such file or folder" in capsys.readouterr().err


def test_fail_on_threshold(tmp_path: Path) -> None:
    write_tree(tmp_path, {"pod.yaml": ESCALATION})
    assert lint(tmp_path, "--fail-on", "medium") == 1
    assert lint(tmp_path, "--fail-on", "high") == 0


def test_select_and_ignore(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_tree(tmp_path, {"compose.yaml": SOCKET})
    assert lint(tmp_path, "--ignore", "runtime-socket") == 0
    assert lint(tmp_path, "--select", "PV") == 0
    assert lint(tmp_path, "--select", "RS001") == 1
    assert lint(tmp_path, "--select", "NOPE") == 2
    assert "'NOPE' matches no rule" in capsys.readouterr().err


def test_config_in_sandkit_toml(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "compose.yaml": SOCKET,
            "ci/compose.yaml": SOCKET,
            ".sandkit.toml": 'exclude = ["ci"]\nper-path-ignores = {"compose.yaml" = ["RS"]}\n',
        },
    )
    assert lint(tmp_path) == 0


def test_an_excluded_path_given_on_the_command_line_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_tree(tmp_path, {"ci/compose.yaml": SOCKET, ".sandkit.toml": 'exclude = ["ci"]\n'})
    assert main(["lint", str(tmp_path / "ci")]) == 0
    assert f"sandkit: {tmp_path / 'ci'} is excluded by" in capsys.readouterr().err


def test_config_in_pyproject_and_located_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_tree(
        tmp_path,
        {"pod.yaml": ESCALATION, "pyproject.toml": '[project]\nname = "x"\n\n[tool.sandkit]\nfail-on = "high"\n'},
    )
    assert lint(tmp_path) == 0
    (tmp_path / "pyproject.toml").write_text('[tool.sandkit]\nfail-onn = "high"\n')
    assert lint(tmp_path) == 2
    err = capsys.readouterr().err
    assert "pyproject.toml:2:1: error: unknown key 'fail-onn'" in err
    assert "did you mean 'fail-on'" in err
    assert "Traceback" not in err


def test_baseline_hides_known_findings_only(tmp_path: Path) -> None:
    write_tree(tmp_path, {"compose.yaml": SOCKET})
    baseline = tmp_path / "baseline.json"
    assert lint(tmp_path, "--write-baseline", str(baseline)) == 0
    assert lint(tmp_path, "--baseline", str(baseline)) == 0
    # moving the line keeps its fingerprint; a new finding is still reported
    (tmp_path / "compose.yaml").write_text("# moved\n" + SOCKET)
    assert lint(tmp_path, "--baseline", str(baseline)) == 0
    (tmp_path / "compose.yaml").write_text(SOCKET + "    privileged: true\n")
    assert lint(tmp_path, "--baseline", str(baseline)) == 1
    baseline.write_text("not json")
    assert lint(tmp_path, "--baseline", str(baseline)) == 2


def test_json_output_to_file(tmp_path: Path) -> None:
    write_tree(tmp_path, {"compose.yaml": SOCKET})
    out = tmp_path / "out.json"
    assert lint(tmp_path, "--format", "json", "--output", str(out)) == 1
    document = json.loads(out.read_text())
    assert [f["rule"] for f in document["findings"]] == ["RS001"]


def test_parallel_scan_matches_serial(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_tree(tmp_path, {f"s{i}/compose.yaml": SOCKET for i in range(450)})
    assert lint(tmp_path, "--format", "json", "--jobs", "1") == 1
    serial = json.loads(capsys.readouterr().out)
    assert lint(tmp_path, "--format", "json", "--jobs", "2") == 1
    assert json.loads(capsys.readouterr().out) == serial
    assert serial["summary"]["findings"] == 450


def test_rules_and_explain(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--format", "json"]) == 0
    rules = json.loads(capsys.readouterr().out)
    assert {"RS001", "PV001", "HC001", "EG001", "SK001"} <= {r["id"] for r in rules}
    assert all(r["fix"] for r in rules)
    assert main(["explain", "rs001"]) == 0
    assert "Fix:" in capsys.readouterr().out
    assert main(["explain", "XX999"]) == 2


def test_unwritable_output_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert lint(tmp_path, "--output", str(tmp_path / "missing" / "out.txt")) == 2
    err = capsys.readouterr().err
    assert "out.txt: error:" in err and "Traceback" not in err


def test_config_globs_are_relative_to_the_config_file(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            ".sandkit.toml": 'exclude = ["/build", "sub/fixtures"]\n',
            "build/compose.yaml": SOCKET,
            "sub/fixtures/compose.yaml": SOCKET,
            "sub/ci/build/compose.yaml": SOCKET,
            ".git/HEAD": "x\n",
        },
    )
    assert lint(tmp_path / "sub" / "fixtures") == 0  # excluded even when scanned directly
    assert lint(tmp_path / "sub") == 1  # "/build" is anchored: sub/ci/build is scanned
    (tmp_path / "sub" / "ci" / "build" / "compose.yaml").unlink()
    assert lint(tmp_path) == 0
