"""The Action's review mode, run here step by step against a local GitHub stand-in; the sticky
comment; the sample workflow and action.yml under zizmor's auditor persona; the pre-commit hook."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from ruamel.yaml import YAML

from sandkit.review import github
from sandkit.review.report import MARKER
from tests.conftest import REPO
from tests.review.actionrunner import Run, evaluate, run_action
from tests.review.repo import make_repo, run_git, write_files

SAMPLE = REPO / "examples/kit-review/kit-review.yml"
BOT = "github-actions[bot]"


class FakeGitHub:
    """The issue-comment endpoints of GitHub's REST API, on loopback, recording every request."""

    def __init__(self) -> None:
        self.comments: list[dict[str, Any]] = []
        self.requests: list[tuple[str, str, str]] = []
        self.refuse_writes = False
        self._next = 10_000
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _send(self, status: int, body: object = None) -> None:
                data = json.dumps(body).encode() if body is not None else b""
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _body(self) -> dict[str, Any]:
                return json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))

            def do_GET(self) -> None:
                fake.requests.append(("GET", self.path, self.headers.get("Authorization", "")))
                url = urlsplit(self.path)
                page = int(parse_qs(url.query).get("page", ["1"])[0])
                if url.path != "/repos/acme/app/issues/7/comments":
                    return self._send(404, {"message": "Not Found"})
                self._send(200, fake.comments[(page - 1) * 100 : page * 100])

            def do_POST(self) -> None:
                fake.requests.append(("POST", self.path, self.headers.get("Authorization", "")))
                if fake.refuse_writes or self.path != "/repos/acme/app/issues/7/comments":
                    return self._send(403, {"message": "Resource not accessible by integration"})
                fake._next += 1
                comment = {"id": fake._next, "user": {"login": BOT}, "body": self._body()["body"]}
                fake.comments.append(comment)
                self._send(201, comment)

            def do_PATCH(self) -> None:
                fake.requests.append(("PATCH", self.path, self.headers.get("Authorization", "")))
                found = [c for c in fake.comments if self.path == f"/repos/acme/app/issues/comments/{c['id']}"]
                if fake.refuse_writes or not found or found[0]["user"]["login"] != BOT:
                    return self._send(403, {"message": "Forbidden"})
                found[0]["body"] = self._body()["body"]
                self._send(200, found[0])

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def writes(self) -> list[tuple[str, str]]:
        return [(method, path) for method, path, _ in self.requests if method != "GET"]


@pytest.fixture
def api() -> Iterator[FakeGitHub]:
    fake = FakeGitHub()
    yield fake
    fake.server.shutdown()


# ----- the sticky comment -------------------------------------------------------------------
def _post(api: FakeGitHub, tmp_path: Path, body: str, monkeypatch: pytest.MonkeyPatch) -> int:
    report = tmp_path / "report.md"
    report.write_text(body)
    monkeypatch.setenv("GITHUB_TOKEN", "t0ken")
    argv = ["--report", str(report), "--pull-request", "7", "--repository", "acme/app", "--api-url", api.url]
    return github.main(argv)


def test_one_sticky_comment_is_posted_then_updated(
    api: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    api.comments = [{"id": n, "user": {"login": "someone"}, "body": "hello"} for n in range(1, 151)]
    api.comments.append({"id": 999, "user": {"login": "mallory"}, "body": MARKER + "\nfake review"})
    assert _post(api, tmp_path, MARKER + "\nfirst", monkeypatch) == 0
    assert _post(api, tmp_path, MARKER + "\nsecond", monkeypatch) == 0
    ours = [c for c in api.comments if c["user"]["login"] == BOT]
    assert [c["body"] for c in ours] == [MARKER + "\nsecond"]
    assert api.comments[150]["body"] == MARKER + "\nfake review"  # someone else's copy of the marker
    assert api.writes() == [
        ("POST", "/repos/acme/app/issues/7/comments"),
        ("PATCH", f"/repos/acme/app/issues/comments/{ours[0]['id']}"),
    ]
    assert {auth for _, _, auth in api.requests} == {"Bearer t0ken"}


def test_a_refused_comment_says_so_with_exit_3(
    api: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    api.refuse_writes = True
    assert _post(api, tmp_path, MARKER + "\nx", monkeypatch) == github.NOT_ALLOWED


def test_bad_input_and_plain_http_are_refused(api: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _post(api, tmp_path, "not a report", monkeypatch) == 2
    with pytest.raises(ValueError, match="must be https"):
        github.GitHub("http://api.example.com", "t")


# ----- the Action, step by step -------------------------------------------------------------
@pytest.fixture(scope="module")
def runner_temp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("runner")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """The "GitHub" side: acme/app with a pull request #7 whose head plants code that must never run."""
    root = tmp_path_factory.mktemp("server")
    repo, base, head = make_repo(root)
    write_files(repo, {"sandkit/__init__.py": "open('/tmp/sandkit-review-ran-pr-code', 'w').close()\n"})
    write_files(repo, {"sitecustomize.py": "open('/tmp/sandkit-review-ran-pr-code', 'w').close()\n"})
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", "plant code", date="2026-01-03T00:00:00+00:00")
    head = run_git(repo, "rev-parse", "HEAD")
    run_git(repo, "update-ref", "refs/pull/7/head", head)
    run_git(repo, "checkout", "-q", "main")
    (root / "acme").mkdir()
    (repo).rename(root / "acme/app")
    return root, base, head


def _github(server: tuple[Path, str, str], head_repo: str = "acme/app") -> dict[str, Any]:
    root, base, head = server
    event = {"number": 7, "base": {"sha": base}, "head": {"sha": head, "repo": {"full_name": head_repo}}}
    return {
        "server_url": f"file://{root}",
        "repository": "acme/app",
        "action_path": str(REPO),
        "token": "t0ken",
        "event": {"pull_request": event},
    }


def _review(
    api: FakeGitHub,
    server: tuple[Path, str, str],
    runner_temp: Path,
    tmp_path: Path,
    head_repo: str = "acme/app",
    **inputs: str,
) -> Run:
    """One run of the action in review mode on pull request #7 of acme/app."""
    workspace = tmp_path / "workspace"
    workspace.mkdir(exist_ok=True)
    (runner_temp / "step-summary.md").write_text("")
    env = {"GITHUB_API_URL": api.url, "GITHUB_REPOSITORY": "acme/app"}
    installed = {"install": {"venv": str(runner_temp / "sandkit-venv")}} if _INSTALLED else None
    result = run_action(
        REPO / "action.yml",
        {"mode": "review", **inputs},
        _github(server, head_repo),
        runner_temp,
        workspace,
        env,
        installed,
    )
    if result.codes.get("install") == 0:
        _INSTALLED.append(True)
    return result


#: Set once the install step ran for real: later runs reuse its virtual environment (a new runner
#: would install again; the install itself is what the first run tests).
_INSTALLED: list[bool] = []


@pytest.mark.slow
def test_review_mode_comments_once_and_fails_on_high(
    api: FakeGitHub, server: tuple[Path, str, str], runner_temp: Path, tmp_path: Path
) -> None:
    Path("/tmp/sandkit-review-ran-pr-code").unlink(missing_ok=True)
    first = _review(api, server, runner_temp, tmp_path, **{"review-fail-on": "high", "paths": "kits"})
    assert first.codes.get("install", 0) == 0, first.logs["install"]
    assert first.codes["fetch"] == 0 and first.codes["diff"] == 0, first.logs
    assert first.outputs["diff"]["highest"] == "critical"
    assert first.codes[list(first.codes)[-1]] == 1  # the last step fails the job: a critical change
    assert "lint" in first.skipped and not first.used  # no SARIF upload in review mode
    report = Path(first.outputs["diff"]["report"]).read_text()
    assert report.startswith(MARKER) and "untrusted-trigger-with-credentials" in report
    assert [c["body"] for c in api.comments] == [report]
    second = _review(api, server, runner_temp, tmp_path, paths="kits")
    assert second.outputs["diff"]["status"] == "0" and not second.failed  # no threshold: report only
    assert len(api.comments) == 1 and [m for m, _ in api.writes()] == ["POST", "PATCH"]
    assert not Path("/tmp/sandkit-review-ran-pr-code").exists(), "code from the pull request ran"
    assert (runner_temp / "step-summary.md").read_text() == ""


@pytest.mark.slow
def test_a_forks_pull_request_gets_the_job_summary(
    api: FakeGitHub, server: tuple[Path, str, str], runner_temp: Path, tmp_path: Path
) -> None:
    result = _review(api, server, runner_temp, tmp_path, head_repo="fork/app", paths="kits/net.yaml")
    assert not result.failed, result.logs
    assert api.requests == []  # a fork's token cannot comment: not even tried
    summary = (runner_temp / "step-summary.md").read_text()
    assert summary.startswith(MARKER) and "wildcard-added" in summary
    api.refuse_writes = True
    refused = _review(api, server, runner_temp, tmp_path, paths="kits/net.yaml")
    assert not refused.failed and "wildcard-added" in (runner_temp / "step-summary.md").read_text()
    assert "no comment could be posted" in refused.logs[[k for k in refused.logs][-1]]


def test_the_token_reaches_git_only_through_its_environment() -> None:
    steps = {s.get("id"): s for s in YAML(typ="safe").load((REPO / "action.yml").read_text())["runs"]["steps"]}
    fetch = steps["fetch"]["run"]
    assert "GIT_CONFIG_VALUE_0" in fetch and "add-mask" in fetch
    assert " -c " not in fetch and "extraheader=" not in fetch  # never `git -c http.extraheader=...`
    assert all("TOKEN" not in line for line in fetch.splitlines() if line.strip().startswith("git "))


def test_expressions_the_runner_understands() -> None:
    context = {
        "inputs": {"mode": "review", "base": ""},
        "github": {"event": {"pull_request": {"base": {"sha": "abc"}}}},
    }
    assert evaluate("inputs.mode == 'review'", context) is True
    assert evaluate("inputs.mode != 'review' && always()", context) is False
    assert evaluate("inputs.base || github.event.pull_request.base.sha", context) == "abc"


# ----- the workflow and the action under zizmor and the schemas -----------------------------
@pytest.mark.parametrize(
    "path",
    [REPO / "action.yml", SAMPLE, REPO / ".github" / "workflows" / "release.yml"],
    ids=["action.yml", "sample-workflow", "release-workflow"],
)
def test_zizmor_auditor_finds_nothing(path: Path) -> None:
    zizmor = shutil.which("zizmor")
    if zizmor is None:
        pytest.fail("zizmor is not installed (a test dependency)")
    done = subprocess.run(
        [zizmor, "--offline", "--persona", "auditor", "--no-progress", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and "No findings" in done.stdout, done.stdout + done.stderr


def test_the_sample_workflow_matches_the_workflow_schema_and_holds_one_permission() -> None:
    done = subprocess.run(
        ["check-jsonschema", "--builtin-schema", "vendor.github-workflows", str(SAMPLE)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    workflow = YAML(typ="safe").load(SAMPLE.read_text())
    assert workflow["permissions"] == {} and list(workflow["on"]) == ["pull_request"]
    job = workflow["jobs"]["review"]
    assert job["permissions"] == {"pull-requests": "write"}
    checkout, review = job["steps"]
    assert checkout["with"] == {"ref": "${{ github.event.pull_request.base.sha }}", "persist-credentials": False}
    assert review["uses"] == "./" and review["with"]["mode"] == "review"


# ----- pre-commit -----------------------------------------------------------------------------
def test_the_pre_commit_hook_stops_a_high_risk_commit(tmp_path: Path) -> None:
    hook = next(
        h for h in YAML(typ="safe").load((REPO / ".pre-commit-hooks.yaml").read_text()) if h["id"] == "sandkit-diff"
    )
    assert hook["pass_filenames"] is False and hook["always_run"] is True
    root, _, _ = make_repo(tmp_path)
    env = os.environ | {"PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]}
    command = hook["entry"].split()

    def commit_check() -> subprocess.CompletedProcess[str]:
        return subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, check=False)

    assert commit_check().returncode == 0  # nothing staged
    write_files(root, {"kits/net.yaml": (root / "kits/net.yaml").read_text().replace("new.example.com, ", "")})
    run_git(root, "add", "kits/net.yaml")
    assert commit_check().returncode == 0  # a narrowing change
    write_files(root, {"kits/net.yaml": (root / "kits/net.yaml").read_text() + "isolation: {read_only_root: false}\n"})
    assert commit_check().returncode == 0  # a risky change, not staged
    run_git(root, "add", "kits/net.yaml")
    done = commit_check()
    assert done.returncode == 1 and "read-only-root-off" in done.stdout
