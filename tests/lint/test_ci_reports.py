"""GitLab Code Quality and JUnit XML reports, checked against what their consumers accept."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from sandkit.cli import main
from sandkit.lint.model import Finding
from sandkit.lint.registry import all_rules
from sandkit.lint.reporters import Report, render
from tests.lint.helpers import write_tree

etree = pytest.importorskip("lxml.etree")

DATA = Path(__file__).parent / "data"
HOSTILE = Finding(
    "a\udcffb/x\x1b[31m.yaml",
    2,
    1,
    "PV001",
    "privileged",
    "critical",
    'runs "privileged" <&> \x00\x07\x1b[2J \ud800 ]]> done',
    "Drop it.",
    "e" * 32,
)
TREE = {
    "compose.yaml": "services:\n  a:\n    privileged: true\n  b:\n    privileged: true\n",
    "deploy/pod.yaml": (
        "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - name: aider\n"  # an agent's pod: not lowered
        "      securityContext: {allowPrivilegeEscalation: true}\n"
    ),
    "bad/compose.yaml": "services: [\n",
}


def _lint(tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> bytes:
    out = tmp_path / f"report.{fmt}"
    assert main(["lint", str(tmp_path / "repo"), "--output-format", fmt, "--output", str(out)]) in (0, 1)
    capsys.readouterr()
    return out.read_bytes()


def _gitlab_valid(data: bytes) -> list[dict]:
    assert not data.startswith(b"\xef\xbb\xbf"), "GitLab refuses a byte order mark"
    document = json.loads(data.decode("utf-8"))
    jsonschema.Draft7Validator(json.loads((DATA / "gitlab-codequality.schema.json").read_text())).validate(document)
    prints = [issue["fingerprint"] for issue in document]
    assert len(prints) == len(set(prints)), "GitLab shows issues with the same fingerprint once"
    return document


def _junit_valid(data: bytes) -> object:
    schema = etree.XMLSchema(etree.parse(str(DATA / "junit-10.xsd")))
    document = etree.fromstring(data)
    schema.assertValid(document)
    return document


def test_gitlab_report_of_a_real_scan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_tree(tmp_path / "repo", TREE)
    issues = _gitlab_valid(_lint(tmp_path, capsys, "gitlab"))
    by_rule = {(i["check_name"], i["location"]["path"], i["location"]["lines"]["begin"]) for i in issues}
    assert by_rule == {
        ("PV001", "compose.yaml", 3),
        ("PV001", "compose.yaml", 5),
        ("PV005", "deploy/pod.yaml", 6),
        ("SK001", "bad/compose.yaml", 2),
    }
    severity = {i["check_name"]: i["severity"] for i in issues}
    assert severity == {"PV001": "blocker", "PV005": "major", "SK001": "major"}
    assert all("Fix: " in i["description"] for i in issues)


def test_gitlab_report_without_findings_is_an_empty_array(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_tree(tmp_path / "repo", {"compose.yaml": "services: {}\n"})
    assert _gitlab_valid(_lint(tmp_path, capsys, "gitlab")) == []


def test_junit_report_of_a_real_scan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tree(tmp_path / "repo", TREE)
    monkeypatch.chdir(tmp_path / "repo")  # paths are relative to the working folder
    root = _junit_valid(_lint(tmp_path, capsys, "junit"))
    assert root.get("tests") == "4" and root.get("failures") == "4"  # type: ignore[attr-defined]
    suites = {s.get("name"): int(s.get("failures")) for s in root.iter("testsuite")}  # type: ignore[attr-defined]
    assert suites == {"bad/compose.yaml": 1, "compose.yaml": 2, "deploy/pod.yaml": 1}
    failure = next(root.iter("failure"))  # type: ignore[attr-defined]
    assert failure.get("type") == "SK001" and "Fix:" in failure.text


def test_junit_report_without_findings_has_one_passing_case(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_tree(tmp_path / "repo", {"compose.yaml": "services: {}\n"})
    root = _junit_valid(_lint(tmp_path, capsys, "junit"))
    cases = list(root.iter("testcase"))  # type: ignore[attr-defined]
    assert len(cases) == 1 and not list(root.iter("failure"))  # type: ignore[attr-defined]
    assert cases[0].get("name") == "no findings in 1 files"


@pytest.mark.parametrize("fmt", ["gitlab", "junit"])
def test_hostile_text_stays_valid(fmt: str) -> None:
    text = render(Report([HOSTILE], all_rules(), files=1), fmt)
    data = text.encode("utf-8", "backslashreplace")
    if fmt == "gitlab":
        issue = _gitlab_valid(data)[0]
        assert issue["description"].startswith('runs "privileged" <&>')
    else:
        root = _junit_valid(data)
        failure = next(root.iter("failure"))  # type: ignore[attr-defined]
        assert failure.get("message") == 'runs "privileged" <&> \\x00\\x07\\x1b[2J \\ud800 ]]> done'
