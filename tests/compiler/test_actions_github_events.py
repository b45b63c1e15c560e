"""GitHub events in the actions workflow: the gate job admits a comment only on the kit's command from an
author it allows, and the agent's job hands the event over as files and checked plain variables.

The event scripts run here as the runner runs them (python, the step's env, GitHub's event file), on
payloads that try every way out of being data.
"""

from __future__ import annotations

import http.server
import json
import os
import re
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from ruamel.yaml import YAML

from sandkit.cli import main
from tests.compiler.helpers import in_folder

REPO = "https://github.com/acme/app.git"
SHA = "0123456789abcdef0123456789abcdef01234567"
KIT = f"""\
apiVersion: sandkit/v1
name: events
image: {{base: "debian:bookworm-slim"}}
agent: {{command: [bash, -c, "true"]}}
secrets: [{{name: DEMO_TOKEN}}]
network: {{allow: [github.com]}}
workspace: {{repo: "{REPO}", ref: main}}
triggers:
  - github: {{event: pull_request, types: [opened, synchronize]}}
  - github: {{event: issue_comment, command: /review}}
  - github: {{event: pull_request_review, command: /fix, author_associations: [OWNER], bots: ["helper[bot]"]}}
  - schedule: "0 9 * * 1"
"""
HOSTILE = "$(touch /tmp/pwned) `id` ${{ secrets.DEMO_TOKEN }} '\"\nSANDKIT_CHECKOUT=head\n\u2028\u00e9"


def _compiled(folder: Path, text: str, name: str) -> dict[str, Any]:
    (folder / "kit.yaml").write_text(text, encoding="utf-8")
    with in_folder(folder):
        assert main(["build", "kit.yaml", "-o", "out", "-q", "--target", "actions"]) == 0
    document: dict[str, Any] = YAML(typ="safe").load((folder / f"out/{name}/workflows/{name}.yml").read_text())
    return document


@pytest.fixture(scope="module")
def workflow(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return _compiled(tmp_path_factory.mktemp("kit"), KIT, "events")


def _run(step: dict[str, Any], folder: Path, name: str, payload: object) -> tuple[int, str, str]:
    """Runs a python step as the runner would, on ``payload`` as GitHub's event file; returns (code, output, log)."""
    (folder / "temp").mkdir(exist_ok=True)
    (folder / "event.json").write_text(json.dumps(payload), encoding="utf-8")
    (folder / "output").write_text("")
    env = {
        **os.environ,
        **{k: str(v) for k, v in step["env"].items()},
        "GITHUB_EVENT_NAME": name,
        "GITHUB_EVENT_PATH": str(folder / "event.json"),
        "GITHUB_OUTPUT": str(folder / "output"),
        "RUNNER_TEMP": str(folder / "temp"),
    }
    assert step["shell"] == "python"
    done = subprocess.run(["python3", "-c", step["run"]], env=env, capture_output=True, text=True, check=False)
    return done.returncode, (folder / "output").read_text(), done.stdout + done.stderr


def _comment(body: object, association: str = "OWNER", kind: str = "User", login: str = "octocat") -> dict[str, Any]:
    return {"body": body, "author_association": association, "user": {"login": login, "type": kind}}


def _gate(workflow: dict[str, Any]) -> dict[str, Any]:
    step: dict[str, Any] = workflow["jobs"]["gate"]["steps"][0]
    return step


def _event_step(workflow: dict[str, Any]) -> dict[str, Any]:
    return next(s for s in workflow["jobs"]["agent"]["steps"] if s["name"] == "Write the event file")


def test_the_gate_job_holds_nothing_and_the_agents_job_waits_for_it(workflow: dict[str, Any]) -> None:
    gate, agent = workflow["jobs"]["gate"], workflow["jobs"]["agent"]
    assert list(workflow["jobs"]) == ["gate", "agent"]
    assert gate["permissions"] == {} and "environment" not in gate and len(gate["steps"]) == 1
    # no payload in an expression (the build steps' test of github.event_name is sandkit's own)
    assert "secrets." not in json.dumps(gate) and not re.search(r"github\.event(?!_name)", json.dumps(workflow))
    assert gate["outputs"] == {"skip": "${{ steps.event.outputs.skip }}"}
    assert agent["needs"] == "gate" and agent["if"] == "${{ needs.gate.outputs.skip != 1 }}"
    steps = [s["name"] for s in agent["steps"]]
    assert steps.index("Write the event file") < steps.index("Run the agent in its sandbox")
    assert workflow["on"]["issue_comment"] == {"types": ["created"]}
    assert workflow["on"]["pull_request_review"] == {"types": ["submitted"]}


@pytest.mark.parametrize(
    ("name", "key", "comment", "admitted"),
    [
        ("issue_comment", "comment", _comment("/review"), True),
        ("issue_comment", "comment", _comment("  /review the tests\r\nmore"), True),
        ("issue_comment", "comment", _comment("/review", "MEMBER"), True),
        ("issue_comment", "comment", _comment("/review", "COLLABORATOR"), True),
        ("issue_comment", "comment", _comment("/review", "CONTRIBUTOR"), False),
        ("issue_comment", "comment", _comment("/review", "NONE"), False),
        ("issue_comment", "comment", _comment("/review", "FIRST_TIME_CONTRIBUTOR"), False),
        ("issue_comment", "comment", _comment("/reviewer"), False),
        ("issue_comment", "comment", _comment("please /review"), False),
        ("issue_comment", "comment", _comment("lgtm\n/review"), False),
        ("issue_comment", "comment", _comment(["/review"]), False),
        ("issue_comment", "comment", _comment("/fix"), False),
        ("issue_comment", "comment", _comment("/review", "OWNER", "Bot", "helper[bot]"), False),
        ("issue_comment", "comment", None, False),
        ("pull_request_review", "review", _comment("/fix", "OWNER"), True),
        ("pull_request_review", "review", _comment("/fix", "MEMBER"), False),
        ("pull_request_review", "review", _comment("/fix", "NONE", "Bot", "helper[bot]"), True),
        ("pull_request_review", "review", _comment("/fix", "OWNER", "Bot", "other[bot]"), False),
        ("pull_request_review", "review", _comment("/fix", "NONE", "User", "helper[bot]"), False),
    ],
)
def test_the_gate_admits_only_the_kits_command_from_allowed_authors(
    workflow: dict[str, Any], tmp_path: Path, name: str, key: str, comment: object, admitted: bool
) -> None:
    code, output, log = _run(_gate(workflow), tmp_path, name, {key: comment, "repository": {"clone_url": REPO}})
    assert code == 0, log
    assert ("skip=1" not in output) is admitted, log
    assert list((tmp_path / "temp").iterdir()) == [], "the gate writes no file"


@pytest.mark.parametrize("name", ["pull_request", "schedule", "workflow_dispatch"])
def test_the_gate_lets_other_events_through(workflow: dict[str, Any], tmp_path: Path, name: str) -> None:
    code, output, log = _run(_gate(workflow), tmp_path, name, {"pull_request": {"number": 1}})
    assert code == 0 and output == "", log


def _pull_request(**changes: Any) -> dict[str, Any]:
    pull = {"number": 7, "head": {"sha": SHA, "ref": "feature"}, "base": {"ref": "main"}, "title": HOSTILE}
    return {"action": "opened", "pull_request": {**pull, **changes}, "repository": {"clone_url": REPO}}


def _variables(folder: Path) -> dict[str, str]:
    text = (folder / "temp/sandkit-variables").read_text(encoding="ascii")
    assert re.fullmatch(r"(SANDKIT_[A-Z_]+=[A-Za-z0-9._/-]*\n)+", text), text
    return dict(line.split("=", 1) for line in text.splitlines())


def test_a_pull_request_gives_its_number_head_and_base_as_plain_variables(
    workflow: dict[str, Any], tmp_path: Path
) -> None:
    payload = _pull_request()
    code, output, log = _run(_event_step(workflow), tmp_path, "pull_request", payload)
    assert code == 0 and output == "", log
    assert _variables(tmp_path) == {
        "SANDKIT_EVENT_NAME": "pull_request",
        "SANDKIT_PR_NUMBER": "7",
        "SANDKIT_HEAD_SHA": SHA,
        "SANDKIT_BASE_REF": "main",
        "SANDKIT_CHECKOUT": "head",
    }
    assert json.loads((tmp_path / "temp/sandkit-event/event.json").read_text(encoding="ascii")) == payload
    assert not (tmp_path / "temp/sandkit-event/comment.md").exists()


@pytest.mark.parametrize(
    "changes",
    [
        {"number": "7; id"},
        {"number": True},
        {"number": 0},
        {"number": 10**12},
        {"head": {"sha": "$(id)"}, "base": {"ref": "main\nSANDKIT_CHECKOUT=base"}},
        {"head": {"sha": SHA.upper()}, "base": {"ref": "../../etc"}},
        {"head": [SHA], "base": {"ref": "-" * 300}},
    ],
)
def test_hostile_pull_request_fields_never_become_variables(
    workflow: dict[str, Any], tmp_path: Path, changes: dict[str, Any]
) -> None:
    code, _, log = _run(_event_step(workflow), tmp_path, "pull_request", _pull_request(**changes))
    assert code == 0, log
    variables = _variables(tmp_path)
    if "number" in changes:
        assert variables == {"SANDKIT_EVENT_NAME": "pull_request"}
    else:
        assert variables == {"SANDKIT_EVENT_NAME": "pull_request", "SANDKIT_PR_NUMBER": "7", "SANDKIT_CHECKOUT": "head"}


def test_a_comment_on_a_pull_request_gives_its_number_and_the_comments_file(
    workflow: dict[str, Any], tmp_path: Path
) -> None:
    body = "/review\n" + HOSTILE
    payload = {"issue": {"number": 12, "pull_request": {"url": "x"}}, "comment": _comment(body), "repository": {}}
    payload["repository"] = {"html_url": REPO.removesuffix(".git").upper()}
    code, _, log = _run(_event_step(workflow), tmp_path, "issue_comment", payload)
    assert code == 0, log
    assert _variables(tmp_path) == {
        "SANDKIT_EVENT_NAME": "issue_comment",
        "SANDKIT_PR_NUMBER": "12",
        "SANDKIT_CHECKOUT": "head",
        "SANDKIT_COMMENT_FILE": "/run/sandkit/comment.md",
    }
    assert (tmp_path / "temp/sandkit-event/comment.md").read_text(encoding="utf-8") == body
    # on an issue, not a pull request: no number, workspace.ref is the workspace
    payload["issue"] = {"number": 12}
    code, _, log = _run(_event_step(workflow), tmp_path, "issue_comment", payload)
    assert code == 0 and "SANDKIT_PR_NUMBER" not in _variables(tmp_path), log


def test_the_agents_job_refuses_what_the_gate_would_have_refused(workflow: dict[str, Any], tmp_path: Path) -> None:
    payload = {"issue": {"number": 12}, "comment": _comment("/review", "NONE"), "repository": {"clone_url": REPO}}
    code, _, log = _run(_event_step(workflow), tmp_path, "issue_comment", payload)
    assert code != 0 and "yet the gate let the run start" in log
    assert not (tmp_path / "temp/sandkit-variables").exists()


def test_a_pull_request_of_another_repository_is_refused(workflow: dict[str, Any], tmp_path: Path) -> None:
    payload = _pull_request()
    payload["repository"] = {"clone_url": "https://github.com/acme/other.git"}
    code, _, log = _run(_event_step(workflow), tmp_path, "pull_request", payload)
    assert code != 0 and "not workspace.repo's" in log


PUBLISHING = KIT.replace("name: events\n", "name: publishing\n") + "targets: {actions: {publish: review}}\n"


@pytest.fixture(scope="module")
def publishing(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return _compiled(tmp_path_factory.mktemp("publishing"), PUBLISHING, "publishing")


def test_the_publishing_job_runs_no_agent_code_and_holds_the_one_write_scope(publishing: dict[str, Any]) -> None:
    jobs = publishing["jobs"]
    assert list(jobs) == ["gate", "agent", "publish"]
    agent, publish = jobs["agent"], jobs["publish"]
    assert "write" not in json.dumps(agent["permissions"]) and "github.token" not in json.dumps(agent)
    assert publish["permissions"] == {"pull-requests": "write"} and "environment" not in publish
    assert publish["needs"] == "agent" and publish["if"] == "${{ needs.agent.outputs.results == 1 }}"
    assert [s.get("uses", "").split("@")[0] for s in publish["steps"]] == ["actions/download-artifact", ""]
    assert "secrets." not in json.dumps(publish) and "docker" not in json.dumps(publish)
    names = [s["name"] for s in agent["steps"]]
    run, check, upload = (
        names.index(n)
        for n in ("Run the agent in its sandbox", "Check the agent's results", "Upload the agent's results")
    )
    assert run + 1 == check and check + 1 == upload
    assert agent["outputs"] == {"results": "${{ steps.results.outputs.results }}"}


class _Api(http.server.BaseHTTPRequestHandler):
    """GitHub's REST API as the publishing step meets it: records each request, answers 201."""

    seen: ClassVar[list[tuple[str, str, dict[str, Any]]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Api.seen.append((self.path, self.headers["Authorization"], body))
        self.send_response(201)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def api() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Api)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Api.seen.clear()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


def _publish(publishing: dict[str, Any], folder: Path, api: str, name: str, payload: object) -> tuple[int, str]:
    step = publishing["jobs"]["publish"]["steps"][1]
    step = {**step, "env": {**step["env"], "GITHUB_TOKEN": "publish-token"}}
    os.environ["GITHUB_API_URL"], os.environ["GITHUB_REPOSITORY"] = api, "acme/app"
    try:
        code, _, log = _run(step, folder, name, payload)
    finally:
        del os.environ["GITHUB_API_URL"], os.environ["GITHUB_REPOSITORY"]
    return code, log


def test_the_review_is_posted_as_data_on_the_pull_request_the_event_names(
    publishing: dict[str, Any], tmp_path: Path, api: str
) -> None:
    (tmp_path / "temp/sandkit-output").mkdir(parents=True)
    review = HOSTILE + "\n" + "x" * 70000
    (tmp_path / "temp/sandkit-output/review.md").write_text(review, encoding="utf-8")
    code, log = _publish(publishing, tmp_path, api, "pull_request", _pull_request())
    assert code == 0, log
    assert _Api.seen == [
        ("/repos/acme/app/pulls/7/reviews", "Bearer publish-token", {"body": review[:65000], "event": "COMMENT"})
    ]
    # a comment on an issue names no pull request: no review is posted
    _Api.seen.clear()
    code, log = _publish(publishing, tmp_path, api, "issue_comment", {"issue": {"number": 3}, "comment": {}})
    assert code == 0 and _Api.seen == [] and "names no pull request" in log


def test_a_link_in_place_of_the_review_is_never_followed(publishing: dict[str, Any], tmp_path: Path, api: str) -> None:
    (tmp_path / "temp/sandkit-output").mkdir(parents=True)
    (tmp_path / "secret").write_text("runner secret")
    (tmp_path / "temp/sandkit-output/review.md").symlink_to(tmp_path / "secret")
    code, log = _publish(publishing, tmp_path, api, "pull_request", _pull_request())
    assert code == 0 and _Api.seen == [] and "wrote no review.md" in log


def test_the_results_check_refuses_links_and_oversized_output(publishing: dict[str, Any], tmp_path: Path) -> None:
    step = next(s for s in publishing["jobs"]["agent"]["steps"] if s["name"] == "Check the agent's results")
    output = tmp_path / "sandkit-output"

    def check() -> tuple[int, str]:
        (tmp_path / "out").write_text("")
        env = {**os.environ, **step["env"], "RUNNER_TEMP": str(tmp_path), "GITHUB_OUTPUT": str(tmp_path / "out")}
        done = subprocess.run(["bash", "-eo", "pipefail", "-c", step["run"]], env=env, capture_output=True, check=False)
        return done.returncode, (tmp_path / "out").read_text()

    assert check() == (0, "")  # no folder: nothing to publish
    output.mkdir()
    assert check() == (0, "")
    (output / "review.md").write_text("fine")
    assert check() == (0, "results=1\n")
    (output / "link").symlink_to("/etc/passwd")
    assert check() == (1, "")
    (output / "link").unlink()
    (output / "big").write_bytes(b"x" * (16 * 1024 * 1024 + 1))
    assert check() == (1, "")


def test_an_app_token_is_minted_for_the_one_scope_right_before_the_post(tmp_path: Path) -> None:
    app = "targets: {actions: {publish: review, app: {client_id: REVIEWER_APP_ID, private_key: REVIEWER_APP_KEY}}}\n"
    text = KIT.replace("name: events\n", "name: app\n") + app
    publish = _compiled(tmp_path, text, "app")["jobs"]["publish"]
    assert publish["permissions"] == {}, "GITHUB_TOKEN gets nothing when the App's token posts"
    download, mint, post = publish["steps"]
    assert download["uses"].startswith("actions/download-artifact@")
    assert publish["environment"] == "sandkit-app-publish", "the App's key in an environment of its own"
    assert mint["uses"] == "actions/create-github-app-token@1b10c78c7865c340bc4f6099eb2f838309f1e8c3"
    assert mint["with"] == {
        "client-id": "${{ vars.REVIEWER_APP_ID }}",
        "private-key": "${{ secrets.REVIEWER_APP_KEY }}",
        "permission-pull-requests": "write",
    }, "no owner or repositories: this repository only; one scope"
    assert post["env"]["GITHUB_TOKEN"] == "${{ steps.app-token.outputs.token }}"
    workflow = (tmp_path / "out/app/workflows/app.yml").read_text()
    assert workflow.count("secrets.REVIEWER_APP_KEY") == 1
    done = subprocess.run(
        ["zizmor", "--offline", "--persona", "auditor", "--no-progress", str(tmp_path / "out/app/workflows/app.yml")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and "No findings" in done.stdout, done.stdout + done.stderr
    schema = [
        "check-jsonschema",
        "--builtin-schema",
        "vendor.github-workflows",
        str(tmp_path / "out/app/workflows/app.yml"),
    ]
    done = subprocess.run(schema, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
