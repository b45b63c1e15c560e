"""``sandkit diff`` over a git repository built here, whose two revisions cover every change kind."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sandkit.review.risks import RISKS
from tests.review.helpers import check_golden, sandkit
from tests.review.repo import commit, make_repo, run_git, write_files

Repo = tuple[Path, str, str]


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    return make_repo(tmp_path_factory.mktemp("diff"))


def _report(repo: Repo, capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    code, out, err = sandkit(repo[0], capsys, "diff", *args, "--format", "json")
    assert code in (0, 1), err
    return json.loads(out)


@pytest.mark.parametrize(("fmt", "golden"), [("text", "diff.txt"), ("markdown", "diff.md"), ("json", "diff.json")])
def test_report_matches_the_golden_file(repo: Repo, capsys: pytest.CaptureFixture[str], fmt: str, golden: str) -> None:
    code, out, err = sandkit(repo[0], capsys, "diff", "main", "change", "--format", fmt)
    assert (code, err) == (0, "")
    check_golden(golden, out)


def test_every_change_kind_occurs_in_the_repository(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    report = _report(repo, capsys, "main", "change")
    seen = {c["kind"] for kit in report["kits"] for c in kit["changes"]}
    assert seen == set(RISKS), f"not exercised: {sorted(set(RISKS) - seen)}"


def test_reordering_comments_and_mixins_are_no_policy_change(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    report = _report(repo, capsys, "main", "change", "kits/same.yaml")
    assert [(k["path"], k["status"], k["changes"]) for k in report["kits"]] == [("kits/same.yaml", "unchanged", [])]


def test_mixins_are_not_kits_of_their_own(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    report = _report(repo, capsys, "main", "change", "kits/mixins")
    assert report["kits"] == []


def test_fail_on_counts_the_highest_level(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    root = repo[0]
    assert sandkit(root, capsys, "diff", "main", "change", "--fail-on", "critical")[0] == 1
    assert sandkit(root, capsys, "diff", "main", "change", "kits/net.yaml", "--fail-on", "high")[0] == 1
    assert sandkit(root, capsys, "diff", "main", "change", "kits/net.yaml", "--fail-on", "critical")[0] == 0
    assert sandkit(root, capsys, "diff", "main", "change", "kits/same.yaml", "--fail-on", "info")[0] == 0
    assert sandkit(root, capsys, "diff", "main", "change", "kits/old.yaml", "--fail-on", "low")[0] == 0


def test_a_base_kit_that_does_not_load_is_a_change_not_a_crash(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    kit = _report(repo, capsys, "main", "change", "kits/fixed.yaml")["kits"][0]
    assert kit["status"] == "changed"
    assert kit["changes"][-1]["kind"] == "kit-invalid-in-base"
    assert "kits/fixed.yaml:4:1: error: YAML syntax error" in kit["problems"][0]


def test_extends_cannot_leave_the_revision(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    kit = _report(repo, capsys, "main", "change", "kits/breaks.yaml")["kits"][0]
    assert kit["status"] == "invalid"
    assert "extends: ../../../../etc/escape.yaml leads outside the repository" in kit["problems"][0]


def test_three_dots_compare_with_the_merge_base(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    _, base, head = repo
    report = _report(repo, capsys, "main...change", "kits/net.yaml")
    assert (report["base"]["commit"], report["head"]["commit"]) == (base, head)
    assert report["base"]["title"] == f"{base[:12]} (the merge base of main and change)"


def test_defaults_merge_base_with_main_and_the_working_tree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root, base, _ = make_repo(tmp_path)
    write_files(root, {"kits/opened.yaml": "apiVersion: sandkit/v1\nname: opened\nagent: {command: [agent]}\n"})
    write_files(root, {"kits/untracked.yaml": "apiVersion: sandkit/v1\nname: untracked\nagent: {command: [a]}\n"})
    (root / ".gitignore").write_text("ignored/\n")
    write_files(root, {"ignored/kit.yaml": "apiVersion: sandkit/v1\nname: ignored\nagent: {command: [a]}\n"})
    report = _report((root, base, ""), capsys)
    assert report["base"] == {
        "label": base[:12],
        "title": f"{base[:12]} (the merge base of HEAD and main)",
        "commit": base,
    }
    assert report["head"]["title"] == "the working tree"
    kits = {k["path"]: k for k in report["kits"]}
    assert "ignored/kit.yaml" not in kits and kits["kits/untracked.yaml"]["status"] == "added"
    # The working tree's opened.yaml went back to the default clone workspace and an empty allowlist.
    assert [c["kind"] for c in kits["kits/opened.yaml"]["changes"]] == ["workspace-changed", "host-removed"]


def test_staged_compares_the_index_with_head(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root, _, _ = make_repo(tmp_path)
    write_files(
        root, {"kits/same.yaml": (root / "kits/same.yaml").read_text() + "isolation: {read_only_root: false}\n"}
    )
    code, out, _ = sandkit(root, capsys, "diff", "--staged", "--fail-on", "high")
    assert (code, "read-only-root-off" in out) == (0, False), out  # not staged yet
    run_git(root, "add", "kits/same.yaml")
    code, out, _ = sandkit(root, capsys, "diff", "--staged", "--fail-on", "high")
    assert code == 1 and "read-only-root-off" in out and out.startswith("sandkit diff: ")
    assert "-> the index (staged changes)" in out.splitlines()[0]


def test_staged_in_a_repository_without_commits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "fresh"
    root.mkdir()
    run_git(root, "init", "-q")
    write_files(
        root, {"kit.yaml": "apiVersion: sandkit/v1\nname: first\nagent: {command: [a]}\nnetwork: {egress: open}\n"}
    )
    run_git(root, "add", "kit.yaml")
    code, out, _ = sandkit(root, capsys, "diff", "--staged", "--fail-on", "high")
    assert code == 1 and "egress-opened" in out and "nothing (the repository has no commit yet)" in out


def test_a_bare_repository_is_read_as_data(repo: Repo, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bare = tmp_path / "bare.git"
    run_git(tmp_path, "clone", "-q", "--bare", str(repo[0]), str(bare))
    assert _report((bare, "", ""), capsys, "main", "change") == _report(repo, capsys, "main", "change")
    code, _, err = sandkit(bare, capsys, "diff", "main")
    assert code == 2 and "a bare repository has no working tree; name both revisions" in err


def test_paths_and_subfolders(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    root = repo[0]
    paths = lambda r: [k["path"] for k in r["kits"]]  # noqa: E731
    assert paths(_report(repo, capsys, "main", "change", "kits/net.yaml", "kits/old.yaml")) == [
        "kits/net.yaml",
        "kits/old.yaml",
    ]
    code, out, err = sandkit(root / "kits", capsys, "diff", "main", "change", "net.yaml", "--format", "json")
    assert code == 0 and [k["path"] for k in json.loads(out)["kits"]] == ["kits/net.yaml"], err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["no-such-rev", "change"], "no-such-rev"),
        (["main", "change", "../outside"], "../outside: outside the repository"),
        (["main...change", "main"], "A...B already names both sides"),
        (["--fail-on", "severe"], "invalid choice"),
    ],
)
def test_usage_errors_exit_2(repo: Repo, capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    code, out, err = sandkit(repo[0], capsys, "diff", *args)
    assert code == 2 and message in err, (out, err)


def test_a_folder_that_is_no_repository(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A sentence for the person who ran it, not git's own error."""
    code, _, err = sandkit(tmp_path, capsys, "diff")
    assert code == 2 and err == (
        f"sandkit diff: {tmp_path.as_posix()} is not in a git repository; diff compares kits between git "
        "revisions (run it inside a clone; `sandkit summary KIT` reviews one kit without git)\n"
    )


def test_without_git_installed(repo: Repo, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(repo[0]))
    assert shutil.which("git") is None
    code, _, err = sandkit(repo[0], capsys, "diff")
    assert code == 2 and "git is not installed" in err


def test_a_revision_that_is_also_a_path_is_ambiguous(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    root = repo[0]
    run_git(root, "branch", "kits", "main")
    try:
        code, _, err = sandkit(root, capsys, "diff", "kits")
        assert code == 2 and "kits is both a revision and a path; write ./kits for the path" in err
        assert sandkit(root, capsys, "diff", "main", "change", "./kits/net.yaml")[0] == 0
    finally:
        run_git(root, "branch", "-D", "kits")


def test_the_default_base_follows_origins_default_branch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    upstream, base, _ = make_repo(tmp_path)
    clone = tmp_path / "clone"
    run_git(tmp_path, "clone", "-q", "--branch", "change", str(upstream), str(clone))
    assert run_git(clone, "branch") == "* change"  # no local main: only origin's tells the default branch
    run_git(clone, "remote", "set-head", "origin", "main")
    report = _report((clone, "", ""), capsys)
    assert report["base"]["title"] == f"{base[:12]} (the merge base of HEAD and origin/main)"


def test_dropping_a_secrets_injection_is_a_high_risk(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    """A kit that stops injecting a secret hands its value to the agent: review must say so at high."""
    kit = _report(repo, capsys, "main", "change", "kits/inject.yaml")["kits"][0]
    found = {(c["kind"], c["level"], c["message"]) for c in kit["changes"]}
    assert found == {
        ("injected-secret-added", "medium", "ADDED is added by the egress proxy as Authorization@api.example.com:443"),
        ("secret-exposed", "high", "EXPOSED is no longer injected: the agent holds its value"),
        ("secret-withheld", "info", "WITHHELD is now added by the egress proxy as x-withheld@api.example.com:443"),
        ("injection-added", "medium", "the egress proxy now adds MOVED as x-moved@git.example.com:443"),
        ("injection-removed", "info", "the egress proxy no longer adds MOVED as x-moved@api.example.com:443"),
    }
    assert sandkit(repo[0], capsys, "diff", "main", "change", "kits/inject.yaml", "--fail-on", "high")[0] == 1


def test_what_is_dangerous_together_is_rated_together(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    """Opening egress on a comment-triggered agent that holds secrets completes the exfiltration path:
    critical, not the high of egress-opened alone. A cloud credential and the cloud's API host, added
    together, are one line; a secret and a host that have nothing to do with each other stay apart."""
    out = sandkit(repo[0], capsys, "diff", "main", "change", "kits/trifecta.yaml", "kits/cloud.yaml")[1]
    assert out.splitlines()[1:] == [
        "kits/cloud.yaml (cloud): changed, highest risk high",
        "  high    secret-with-its-service-added  secrets, network.allow  AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY "
        "are in the agent's environment, and *.amazonaws.com:443, which accepts them, may be reached; "
        "*.amazonaws.com:443 is every name one label under amazonaws.com",
        "  high    secret-added                   secrets                 SENTRY_DSN is in the agent's environment",
        "  medium  host-added                     network.allow           docs.example.com:443 may be reached",
        "kits/trifecta.yaml (trifecta): changed, highest risk critical",
        "  critical  untrusted-trigger-with-open-egress  triggers, network.egress  issue_comment starts the agent, "
        'which holds "API_TOKEN, GH_TOKEN, NPM_TOKEN" and may connect anywhere',
        "  high      egress-opened                       network.egress            egress is open (was allowlist)",
        "2 kits: 2 changed; highest risk critical (1 critical, 3 high, 1 medium)",
    ]
    assert sandkit(repo[0], capsys, "diff", "main", "change", "kits/trifecta.yaml", "--fail-on", "critical")[0] == 1


def test_text_output_keeps_whole_messages_in_columns_that_never_touch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 300-character value is shown whole (it was cut at 200: '...(100 more characters)'), and a
    kind or setting as wide as its column is still followed by two spaces."""
    root = tmp_path / "repo"
    root.mkdir()
    run_git(root, "init", "-q", "-b", "main")
    kit = "apiVersion: sandkit/v1\nname: k\nagent: {command: [agent]}\nworkspace: {mode: none}\n"
    commit(root, {"k.yaml": kit}, "base", "2026-01-01T00:00:00+00:00")
    long = "x" * 300
    write_files(root, {"k.yaml": kit.replace("[agent]", f"[agent, {long}]") + "triggers: [{schedule: '0 3 * * *'}]\n"})
    code, out, _ = sandkit(root, capsys, "diff", "HEAD")
    assert code == 0 and "more characters" not in out
    lines = out.splitlines()
    assert f'  medium  agent-command-changed  agent.command  the agent runs "agent {long}" (was agent)' in lines
    assert '  low     schedule-added         triggers       runs on the schedule "0 3 * * *"' in lines
