"""bench/precision_judge.py's ``regrade``: label rows read, shares weighted by rule, severity classes applied."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import REPO


def _judge() -> ModuleType:
    spec = importlib.util.spec_from_file_location("precision_judge", REPO / "bench" / "precision_judge.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


judge = _judge()

ROW = "o/r\tcompose.yaml\t3\t5\tPV003\thigh\t1\t0\tSYS_PTRACE for a debugger"


def test_labels_without_a_header_and_with_a_needle(tmp_path: Path) -> None:
    labels = tmp_path / "l.tsv"
    labels.write_text(f"# a comment\n{ROW}\n{ROW}\tadds capability\n")
    measures, rows = judge.read_rows(str(labels))
    assert measures == ["right", "actionable"]
    labelled = {"right": 1, "actionable": 0}
    assert [(r.labels, r.needle) for r in rows] == [(labelled, ""), (labelled, "adds capability")]


def test_a_header_names_a_further_actionable_column(tmp_path: Path) -> None:
    labels = tmp_path / "l.tsv"
    header = "# repo\tpath\tline\tcol\trule\tseverity\tright\tactionable\tagents\treason"
    labels.write_text(f"{header}\no/r\tcompose.yaml\t3\t5\tPV003\thigh\t1\t0\t1\twhy\n")
    measures, rows = judge.read_rows(str(labels))
    assert measures == ["right", "actionable", "agents"]
    assert rows[0].labels == {"right": 1, "actionable": 0, "agents": 1} and rows[0].reason == "why"


def test_shares_are_weighted_by_each_rules_count() -> None:
    """Rule A: 2 read of 10 findings, one actionable; rule B: 1 read of 1, actionable: (5 + 1) / 11."""
    read = {
        "A": [({"right": 1, "actionable": 1}, 10), ({"right": 1, "actionable": 0}, 10)],
        "B": [({"right": 0, "actionable": 1}, 1)],
        "C": [],
    }
    got = judge.shares(read, ["right", "actionable"])
    assert round(got["actionable"], 2) == round(100 * 6 / 11, 2) and round(got["right"], 2) == round(100 * 10 / 11, 2)


def test_info_is_below_the_default_threshold() -> None:
    assert [judge.at_threshold(s) for s in ("critical", "low", "info")] == [True, True, False]


def test_regraded_rows_read_the_other_rows_of_their_file() -> None:
    ptrace = judge.Row("o/r", "compose.yaml", 3, 5, "PV003", "high", {}, "SYS_PTRACE for a debugger", "")
    host_pid = judge.Row("o/r", "compose.yaml", 2, 5, "PV002", "high", {}, "pid host", "")
    assert judge.regraded(ptrace, [ptrace])[0] == "info"
    assert judge.regraded(ptrace, [ptrace, host_pid])[0] == "high"
    archived = judge.Row("o/r", "_archived/x/ds.yaml", 3, 5, "PV001", "critical", {}, "monitoring", "")
    assert judge.regraded(archived, [archived]) == ("info", "Kubernetes, no coding agent")
    script = judge.Row("o/r", "_archived/x/run.sh", 3, 5, "PV001", "critical", {}, "monitoring", "")
    assert judge.regraded(script, [script]) == ("low", "kept under _archived/")


def row(path: str, rule: str, severity: str, reason: str = "") -> object:
    return judge.Row("o/r", path, 3, 5, rule, severity, {}, reason, "")


def test_graded_rows_take_the_workload_class_from_their_files_rows() -> None:
    """Rows of a run that had the third round's classes: a Kubernetes file whose PV001 is below
    critical (or SYS_ADMIN below high) was taken for a workload naming no agent, so its host
    credentials are info too; one at full severity was not (a runner, an agent), whatever the
    reason says; a Compose file is never one."""
    lowered = row("charts/x/templates/ds.yaml", "PV001", "high", "node agent")
    credentials = row("charts/x/templates/ds.yaml", "HC001", "critical", "mounts /")
    assert judge.regraded(credentials, [lowered, credentials], True)[0] == "info"
    assert judge.regraded(lowered, [lowered, credentials], True)[0] == "info"
    full = row("deploy/pod.yaml", "PV003", "high", "SYS_ADMIN for dind")
    socket = row("deploy/pod.yaml", "RS002", "medium", "DOCKER_HOST to dind")
    assert judge.regraded(socket, [full, socket], True)[0] == "medium"
    kept = row("x/testdata/pod.yaml", "PV001", "high", "golden file")  # one level: the kept folder's
    assert judge.regraded(kept, [kept], True) == ("low", "kept under testdata/")
    compose = row("docker-compose.yml", "HC001", "critical", "mounts ~/.ssh")
    assert judge.regraded(compose, [compose], True)[0] == "critical"


@pytest.mark.parametrize(
    "path, moves",
    [
        (".github/archive/pre-commit.yaml", True),
        ("tools/x/.github/workflows/ci.yml", True),
        (".github/workflows/old/ci.yml", True),
        (".github/workflows/ci.yml", False),
        (".forgejo/workflows/ci.yml", False),
        (".github/actions/x/action.yml", False),
    ],
)
def test_workflow_rows_github_never_runs_are_info(path: str, moves: bool) -> None:
    for rule in ("CP001", "CS004", "AA014"):
        found = row(path, rule, "high")
        assert (judge.regraded(found, [found], True)[0] == "info") is moves, (path, rule)
    other = row(path, "PS001", "high")
    assert judge.regraded(other, [other], True)[0] == "high"


def test_kata_rows_are_one_level_lower_and_privilege_is_not() -> None:
    cap = row("deploy/kata-dind/template.yaml", "PV003", "high", "SYS_ADMIN for dind in Kata")
    assert judge.regraded(cap, [cap], True) == ("medium", "a VM-isolated runtime")
    privileged = row("deploy/kata-dind/template.yaml", "PV001", "critical", "runner in Kata")
    assert judge.regraded(privileged, [privileged, cap], True)[0] == "critical"
