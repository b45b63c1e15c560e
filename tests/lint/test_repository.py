"""The repository-level pass hook: passes see every finding of a scan and may re-rank them."""

from __future__ import annotations

from pathlib import Path

from sandkit.lint import repository
from sandkit.lint.model import Finding
from sandkit.lint.repository import RepositoryView, run_passes

SOCKET = "services:\n  a:\n    volumes: ['/var/run/docker.sock:/var/run/docker.sock']\n"


def _finding(path: str, severity: str = "high") -> Finding:
    return Finding(path, 1, 1, "RS001", "runtime-socket", severity, "m", "f")


def test_passes_rewrite_and_a_failing_pass_keeps_its_input() -> None:
    def lower(findings: list[Finding], repo: RepositoryView) -> list[Finding]:
        return [f._replace(severity="low") for f in findings]

    def broken(findings: list[Finding], repo: RepositoryView) -> list[Finding]:
        raise RuntimeError("boom")

    saved = list(repository._PASSES)
    repository._PASSES[:] = [("lower", lower), ("broken", broken)]
    try:
        out, crashes = run_passes([_finding("b"), _finding("a")], RepositoryView("."))
    finally:
        repository._PASSES[:] = saved
    assert [f.path for f in out] == ["a", "b"]
    assert {f.severity for f in out} == {"low"}
    assert crashes == ["repository pass broken failed: RuntimeError: boom"]


def test_view_reads_inside_the_root_only(tmp_path: Path) -> None:
    (tmp_path / "inside").mkdir()
    (tmp_path / "inside" / ".dockerignore").write_text(".env\n")
    (tmp_path / "secret").write_text("outside")
    view = RepositoryView(str(tmp_path / "inside"))
    assert view.read(".dockerignore") == ".env\n"
    assert view.read("../secret") is None
    assert view.read("missing") is None
