"""``sandkit diff`` on this repository itself, against its own history."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys

import pytest

from sandkit.review.diff import diff_sides
from sandkit.review.revisions import Repository
from tests.conftest import REPO


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()


def _diff(*args: str) -> tuple[int, dict, str]:
    done = subprocess.run(
        [sys.executable, "-m", "sandkit", "diff", *args, "--format", "json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    return done.returncode, json.loads(done.stdout or "{}"), done.stderr


@pytest.fixture(scope="module")
def first_commit() -> str:
    if not (REPO / ".git").exists():
        pytest.skip("sandkit diff reads git history; this copy of the repository has none")
    return _git("rev-list", "--max-parents=0", "HEAD").splitlines()[0]


def test_from_the_first_commit_to_head(first_commit: str) -> None:
    code, report, err = _diff(first_commit, "HEAD")
    assert code == 0 and "Traceback" not in err, err
    kits = {k["path"]: k for k in report["kits"]}
    assert kits["examples/pr-reviewer/kit.yaml"]["status"] in ("added", "changed", "unchanged")
    on_head = set(_git("ls-tree", "-r", "--name-only", "HEAD").splitlines())
    at_first = set(_git("ls-tree", "-r", "--name-only", first_commit).splitlines())
    assert all(path in on_head | at_first for path in kits)
    for kit in kits.values():
        assert kit["status"] in ("added", "removed", "changed", "unchanged", "moved", "invalid")
        assert all(c["level"] in ("critical", "high", "medium", "low", "info") for c in kit["changes"])


def test_head_against_itself_has_no_policy_change(first_commit: str) -> None:
    code, report, _ = _diff("HEAD", "HEAD", "--fail-on", "low")
    assert code == 0 and report["highest"] in (None, "info")
    statuses = {k["path"]: k["status"] for k in report["kits"]}
    assert statuses["kits/sandkit-maintainer.yaml"] == "unchanged"
    # The linter's corpus holds kits that are broken on purpose: the same problems on both sides.
    broken = [k for k in report["kits"] if k["status"] == "invalid"]
    assert broken and all(k["changes"][0]["kind"] == "kit-still-invalid" for k in broken)


def test_each_of_the_last_commits_reads_without_a_traceback(first_commit: str) -> None:
    """Consecutive revisions, in one process (the history holds kits broken on purpose and kits moved)."""
    repo = Repository(REPO)
    try:
        commits = _git("rev-list", "--max-count=12", "HEAD").splitlines()
        sides = {sha: repo.commit_side(sha, sha) for sha in commits}
        for newer, older in itertools.pairwise(commits):
            report = diff_sides(sides[older], sides[newer], [])
            assert {k.status for k in report.kits} <= {"added", "removed", "changed", "unchanged", "moved", "invalid"}
    finally:
        repo.close()
