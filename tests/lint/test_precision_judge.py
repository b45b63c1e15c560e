"""bench/precision_judge.py's ``regrade``: label rows read, shares weighted by rule, severity classes applied."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

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
    assert judge.regraded(archived, [archived]) == ("medium", "Kubernetes, no coding agent; kept under _archived/")
