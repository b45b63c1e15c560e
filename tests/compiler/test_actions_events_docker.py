"""A pull request's run, the workflow's own steps played locally with the real Docker engine: the gate
job turns away an outsider's comment, and the agent works on the pull request's head commit with the
event as read-only files and plain variables.

The repository is a bare one served over HTTP by the end-to-end suite's outside server, with the pull
request's head only under refs/pull/7/head, as GitHub keeps it. The kit's egress is open so the
agent reaches the server by address (the clone through the proxy is proven in tests/e2e).
"""

from __future__ import annotations

import base64
import http.server
import json
import os
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any, ClassVar

import pytest
from ruamel.yaml import YAML

from sandkit.cli import main
from tests.compiler import buildx_play
from tests.compiler.helpers import in_folder
from tests.e2e.helpers import OUTSIDE_DIR

NAME = f"actions-pr-e2e-{os.getpid()}"  # two runs on one engine name their containers apart
VOLUME = f"sandkit-{NAME}-workspace"
AGENT = r"""
echo "head=$(git -C /workspace rev-parse HEAD)"
echo "variables=$SANDKIT_EVENT_NAME ${SANDKIT_PR_NUMBER:-} ${SANDKIT_HEAD_SHA:-} ${SANDKIT_BASE_REF:-}"
echo "event=$(base64 -w0 <"$SANDKIT_EVENT")"
echo "comment=$(base64 -w0 <"${SANDKIT_COMMENT_FILE:-/dev/null}")"
if touch "$SANDKIT_EVENT" 2>/dev/null; then echo "event_file=writable"; else echo "event_file=read-only"; fi
printf 'review of %s\n%s' "$(git -C /workspace rev-parse HEAD)" "$(cat "${SANDKIT_COMMENT_FILE:-/dev/null}")" \
  >"$SANDKIT_OUTPUT/review.md"
"""
COMMENT = "/review  please\n$(touch /tmp/pwned) ${{ secrets.X }} SANDKIT_CHECKOUT=base\n"


def _git(*args: str, cwd: Path) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _repository(folder: Path) -> tuple[Path, str, str]:
    """A bare repository: main, and a pull request's head only under refs/pull/7/head."""
    work, served = folder / "work", folder / "served"
    work.mkdir()
    served.mkdir()
    _git("init", "-q", "-b", "main", cwd=work)
    (work / "README.md").write_text("main\n")
    _git("add", "README.md", cwd=work)
    _git("commit", "-q", "-m", "main", cwd=work)
    main_sha = _git("rev-parse", "HEAD", cwd=work)
    (work / "README.md").write_text("the pull request\n")
    _git("commit", "-q", "-am", "pull request", cwd=work)
    head = _git("rev-parse", "HEAD", cwd=work)
    _git("clone", "-q", "--bare", str(work), str(served / "repo.git"), cwd=folder)
    bare = served / "repo.git"
    _git("update-ref", "refs/pull/7/head", head, cwd=bare)
    _git("update-ref", "refs/heads/main", main_sha, cwd=bare)
    _git("update-server-info", cwd=bare)
    for path in [served, *served.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return served, main_sha, head


def _docker(*args: str, check: bool = True) -> str:
    done = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=600, check=False)
    if check and done.returncode != 0:
        raise AssertionError(f"docker {' '.join(args[:3])}: {done.stderr}")
    return done.stdout.strip()


@pytest.fixture
def git_server(tmp_path: Path) -> Any:
    served, main_sha, head = _repository(tmp_path)
    tag, name = f"sandkit-test/{NAME}-outside:{os.getpid()}", f"{NAME}-git-{os.getpid()}"
    _docker("build", "-q", "-t", tag, str(OUTSIDE_DIR))
    try:
        _docker("run", "-d", "--name", name, "--read-only", "--cap-drop", "ALL", "-v", f"{served}:/srv/git:ro", tag)
        address = _docker("inspect", "--format", "{{.NetworkSettings.Networks.bridge.IPAddress}}", name)
        yield f"http://{address}:8080/git/repo.git", main_sha, head
    finally:
        _docker("rm", "--force", name, check=False)
        _docker("rmi", tag, check=False)


def _kit(repo: str) -> str:
    return f"""\
apiVersion: sandkit/v1
name: {NAME}
image: {{base: "debian:bookworm-slim"}}
agent: {{command: [bash, -c, {json.dumps(AGENT)}]}}
network: {{egress: open}}
workspace: {{repo: "{repo}", ref: main}}
resources: {{cpus: 1, memory: 512Mi, timeout: 2m}}
triggers:
  - github: {{event: pull_request, types: [opened, synchronize]}}
  - github: {{event: issue_comment, command: /review}}
targets: {{actions: {{publish: review}}}}
"""


def _runner(folder: Path, name: str, payload: dict[str, Any]) -> dict[str, str]:
    """What the runner sets for one job: GitHub's event file and name, a fresh temp folder, the output file."""
    (folder / "temp").mkdir(parents=True)
    (folder / "event.json").write_text(json.dumps(payload), encoding="utf-8")
    (folder / "output").touch()
    return {
        "GITHUB_EVENT_NAME": name,
        "GITHUB_EVENT_PATH": str(folder / "event.json"),
        "GITHUB_OUTPUT": str(folder / "output"),
        "RUNNER_TEMP": str(folder / "temp"),
    }


def _play(job: dict[str, Any], cwd: Path, runner: dict[str, str]) -> dict[str, str]:
    """Every `run:` step of a job in order (the `uses:` steps stand in: the folder is the checkout, the
    artifact is the agent job's output folder, copied by the test, and the image builds are played with
    the engine's builder, without a cache: tests/compiler/buildx_play.py)."""
    outputs, failed = {}, False
    for step in job["steps"]:
        if buildx_play.is_build_action(step) and not failed:
            if buildx_play.runs_for(step, runner["GITHUB_EVENT_NAME"]):
                built = buildx_play.play(step, cwd, None)
                outputs[step["name"]] = built.stdout + built.stderr
                failed = built.returncode != 0
            continue
        if "run" not in step:
            continue
        if step.get("if") not in (None, "${{ steps.event.outputs.skip != 1 }}", "${{ always() }}"):
            continue
        if failed and step.get("if") != "${{ always() }}":
            continue  # after a failure only the cleanup runs, as on GitHub's runners
        shell = (
            ["python3", "-c"]
            if step.get("shell") == "python"
            else ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c"]
        )
        own = {k: buildx_play.OUTPUTS.get(str(v), str(v)) for k, v in step.get("env", {}).items()}
        env = {**os.environ, **runner, **own}
        done = subprocess.run(
            [*shell, step["run"]], cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False
        )
        outputs[step["name"]] = done.stdout + done.stderr
        failed = failed or done.returncode != 0
    assert not failed, outputs
    return outputs


def _seen(output: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in output.splitlines() if "=" in line and line[0].islower())


@pytest.mark.docker
def test_the_agent_works_on_the_pull_requests_head_and_an_outsiders_comment_starts_nothing(
    tmp_path: Path, git_server: tuple[str, str, str]
) -> None:
    repo, main_sha, head = git_server
    (tmp_path / "kit.yaml").write_text(_kit(repo), encoding="utf-8")
    with in_folder(tmp_path):
        assert main(["build", "kit.yaml", "-o", "out", "-q", "--target", "actions"]) == 0
    workflow = YAML(typ="safe").load((tmp_path / f"out/{NAME}/workflows/{NAME}.yml").read_text())
    gate, agent = workflow["jobs"]["gate"], workflow["jobs"]["agent"]
    image = next(s["env"]["SANDKIT_IMAGE"] for s in agent["steps"] if "SANDKIT_IMAGE" in s.get("env", {}))
    repository = {"clone_url": repo}
    pull_request = {
        "action": "opened",
        "pull_request": {"number": 7, "head": {"sha": head}, "base": {"ref": "main"}, "title": COMMENT},
        "repository": repository,
    }
    user = {"login": "x", "type": "User"}
    outsider: dict[str, Any] = {
        "issue": {"number": 7, "pull_request": {}},
        "comment": {"body": "/review", "author_association": "NONE", "user": user},
        "repository": repository,
    }
    owner = {**outsider, "comment": {"body": COMMENT, "author_association": "OWNER", "user": user}}
    _docker("volume", "rm", "--force", VOLUME, check=False)
    try:
        runner = _runner(tmp_path / "outsider", "issue_comment", outsider)
        _play(gate, tmp_path, runner)
        assert "skip=1" in Path(runner["GITHUB_OUTPUT"]).read_text(), "the gate let an outsider's comment through"
        seen, published = {}, {}
        for label, name, payload in (("pr", "pull_request", pull_request), ("comment", "issue_comment", owner)):
            runner = _runner(tmp_path / label, name, payload)
            _play(gate, tmp_path, runner)
            assert "skip=1" not in Path(runner["GITHUB_OUTPUT"]).read_text()
            seen[label] = _seen(_play(agent, tmp_path, runner)["Run the agent in its sandbox"])
            assert "results=1" in Path(runner["GITHUB_OUTPUT"]).read_text()
            published[label] = _publish(workflow["jobs"]["publish"], tmp_path / f"{label}-publish", runner, payload)
            _docker("volume", "rm", "--force", VOLUME, check=False)  # each run on a runner of its own
    finally:
        _docker("volume", "rm", "--force", VOLUME, check=False)
        _docker("rmi", "--force", image, check=False)
    assert seen["pr"]["head"] == head != main_sha
    assert seen["pr"]["variables"] == f"pull_request 7 {head} main"
    assert json.loads(base64.b64decode(seen["pr"]["event"])) == pull_request
    assert seen["pr"]["comment"] == "" and seen["pr"]["event_file"] == "read-only"
    # a comment names no commit: the head is refs/pull/7/head, and the agent is told which commit that is
    assert seen["comment"]["head"] == head
    assert seen["comment"]["variables"] == f"issue_comment 7 {head} "
    assert base64.b64decode(seen["comment"]["comment"]).decode() == COMMENT
    assert json.loads(base64.b64decode(seen["comment"]["event"])) == owner
    # the publishing job posts what the agent wrote, as data, on the pull request
    assert published["pr"] == [("/repos/acme/app/pulls/7/reviews", {"body": f"review of {head}\n", "event": "COMMENT"})]
    assert published["comment"] == [
        ("/repos/acme/app/pulls/7/reviews", {"body": f"review of {head}\n{COMMENT.rstrip()}", "event": "COMMENT"})
    ]


class _Api(http.server.BaseHTTPRequestHandler):
    """GitHub's REST API as the publishing job meets it: records each request and answers 201."""

    seen: ClassVar[list[tuple[str, dict[str, Any]]]] = []

    def do_POST(self) -> None:
        _Api.seen.append((self.path, json.loads(self.rfile.read(int(self.headers["Content-Length"])))))
        self.send_response(201)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


def _publish(job: dict[str, Any], folder: Path, agent_runner: dict[str, str], payload: dict[str, Any]) -> list[Any]:
    """The publishing job on a runner of its own: the artifact downloaded, the API a local stand-in."""
    runner = _runner(folder, "pull_request", payload)
    shutil.copytree(
        Path(agent_runner["RUNNER_TEMP"]) / "sandkit-output", Path(runner["RUNNER_TEMP"]) / "sandkit-output"
    )
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Api)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    _Api.seen.clear()
    try:
        api = {"GITHUB_API_URL": f"http://127.0.0.1:{server.server_address[1]}", "GITHUB_REPOSITORY": "acme/app"}
        job = {**job, "steps": [{**s, "env": {**s.get("env", {}), "GITHUB_TOKEN": "t"}} for s in job["steps"]]}
        _play(job, folder, {**runner, **api})
    finally:
        server.shutdown()
    return list(_Api.seen)


@pytest.fixture
def ssh_server(tmp_path: Path, git_server: Any) -> Any:
    """The same repository over ssh (the outside image's sshd, key authentication only) on Docker's bridge:
    its address, its host key line, and the client's private key (without its last newline, as a secret
    store may keep it)."""
    tag, name = f"sandkit-test/{NAME}-outside:{os.getpid()}", f"{NAME}-ssh-{os.getpid()}"
    keys = tmp_path / "ssh-keys"
    keys.mkdir()
    keygen = ["run", "--rm", "--user", "0:0", "--network", "none", "-v", f"{keys}:/keys", tag, "ssh-keygen", "-q"]
    for key in ("host_key", "client_key"):
        _docker(*keygen, "-t", "ed25519", "-N", "", "-C", "t", "-f", f"/keys/{key}")
    (keys / "authorized_keys").write_bytes((keys / "client_key.pub").read_bytes())
    for path in keys.iterdir():
        path.chmod(0o444)  # test keys, read by the server's unprivileged user
    try:
        _docker(
            "run", "-d", "--name", name, "--read-only", "--cap-drop", "ALL", "--user", "10022:10022",
            "--sysctl", "net.ipv4.ip_unprivileged_port_start=0", "-v", f"{keys}:/run/outside/ssh:ro",
            "-v", f"{tmp_path / 'served'}:/srv/private:ro", tag, "/usr/sbin/sshd", "-D", "-e", "-f",
            "/opt/outside/sshd_config",
        )  # fmt: skip
        address = _docker("inspect", "--format", "{{.NetworkSettings.Networks.bridge.IPAddress}}", name)
        host_key = " ".join((keys / "host_key.pub").read_text().split()[:2])
        yield address, f"{address} {host_key}", (keys / "client_key").read_text().rstrip("\n"), name
    finally:
        _docker("rm", "--force", name, check=False)


BRANCH_AGENT = r"""
printf 'fixed by the agent\n' >> /workspace/README.md
git -C /workspace diff --binary > "$SANDKIT_OUTPUT/changes.patch"
"""


def _branch_kit(repo: str, known_host: str) -> str:
    return f"""\
apiVersion: sandkit/v1
name: {NAME}
image: {{base: "debian:bookworm-slim"}}
agent: {{command: [bash, -c, {json.dumps(BRANCH_AGENT)}]}}
secrets: [{{name: DEPLOY_KEY}}]
network: {{egress: open}}
workspace: {{repo: "{repo}", ref: main, ssh_key: DEPLOY_KEY, known_hosts: [{json.dumps(known_host)}]}}
resources: {{cpus: 1, memory: 512Mi, timeout: 2m}}
triggers: [{{manual: {{}}}}]
targets: {{actions: {{publish: branch}}}}
"""


def _push(
    job: dict[str, Any], folder: Path, results: Path, bare: Path, attempt: int
) -> subprocess.CompletedProcess[str]:
    """The publishing job's push step on a runner of its own: the checkout is a clone of the repository at
    main (as actions/checkout leaves it, without credentials), the artifact the agent's results."""
    checkout, temp = folder / "checkout", folder / "temp"
    _git("clone", "-q", "--branch", "main", str(bare), str(checkout), cwd=folder.parent)
    shutil.copytree(results, temp / "sandkit-output")
    step = next(s for s in job["steps"] if "run" in s)
    runner = {"RUNNER_TEMP": str(temp), "GITHUB_RUN_ID": "4242", "GITHUB_RUN_ATTEMPT": str(attempt)}
    env = {**os.environ, **runner, **{k: str(v) for k, v in step["env"].items()}, "GITHUB_TOKEN": "t"}
    command = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]]
    return subprocess.run(command, cwd=checkout, env=env, capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.docker
def test_the_agents_patch_becomes_a_new_branch_and_never_moves_one(
    tmp_path: Path, git_server: Any, ssh_server: Any
) -> None:
    """The agent clones the private repository over ssh with its deploy key (an Actions secret, mounted as a
    file) and the pinned host key; its patch then becomes a branch of the repository."""
    _, main_sha, _ = git_server
    address, known_host, client_key, server = ssh_server
    bare = tmp_path / "served/repo.git"
    kit = _branch_kit(f"ssh://git@{address}/srv/private/repo.git", known_host)
    (tmp_path / "kit.yaml").write_text(kit, encoding="utf-8")
    with in_folder(tmp_path):
        assert main(["build", "kit.yaml", "-o", "out", "-q", "--target", "actions"]) == 0
    workflow = YAML(typ="safe").load((tmp_path / f"out/{NAME}/workflows/{NAME}.yml").read_text())
    agent, publish = workflow["jobs"]["agent"], workflow["jobs"]["publish"]
    assert publish["permissions"] == {"contents": "write"}
    assert publish["steps"][0]["with"] == {"persist-credentials": False, "ref": "main"}
    image = next(s["env"]["SANDKIT_IMAGE"] for s in agent["steps"] if "SANDKIT_IMAGE" in s.get("env", {}))
    _docker("volume", "rm", "--force", VOLUME, check=False)
    try:
        runner = _runner(tmp_path / "run", "workflow_dispatch", {})
        # GitHub puts the secret's value where the workflow names it
        steps = [{**s, "env": {**s.get("env", {}), "DEPLOY_KEY": client_key}} if s.get("env", {}).get("DEPLOY_KEY")
                 else s for s in agent["steps"]]  # fmt: skip
        _play({**agent, "steps": steps}, tmp_path, runner)
    finally:
        _docker("volume", "rm", "--force", VOLUME, check=False)
        _docker("rmi", "--force", image, check=False)
    assert "results=1" in Path(runner["GITHUB_OUTPUT"]).read_text()
    server_log = subprocess.run(["docker", "logs", server], capture_output=True, text=True, check=False).stderr
    assert "Accepted publickey for git " in server_log, f"the clone did not come over ssh:\n{server_log}"
    results = Path(runner["RUNNER_TEMP"]) / "sandkit-output"
    pushed = _push(publish, tmp_path / "publish", results, bare, attempt=1)
    branch = f"sandkit/{NAME}/run-4242-1"
    assert pushed.returncode == 0 and f"pushed the agent's changes as {branch}" in pushed.stdout, pushed
    assert _git("rev-parse", f"{branch}^", cwd=bare) == main_sha == _git("rev-parse", "main", cwd=bare)
    assert _git("show", f"{branch}:README.md", cwd=bare).endswith("fixed by the agent")
    assert _git("log", "-1", "--format=%an %s", branch, cwd=bare) == (
        f"github-actions[bot] sandkit: the changes of {NAME}'s agent (run 4242)"
    )
    # a branch of that name already there (even one the new commit would fast-forward): refused, left as it was
    _git("branch", f"sandkit/{NAME}/run-4242-3", "main", cwd=bare)
    again = _push(publish, tmp_path / "again", results, bare, attempt=3)
    assert again.returncode != 0 and _git("rev-parse", f"sandkit/{NAME}/run-4242-3", cwd=bare) == main_sha, again
    # a patch that touches .github/ (a workflow a push could run) is refused before anything is committed
    hostile = tmp_path / "hostile"
    hostile.mkdir()
    (hostile / "changes.patch").write_text(
        "diff --git a/.github/workflows/x.yml b/.github/workflows/x.yml\nnew file mode 100644\n"
        "--- /dev/null\n+++ b/.github/workflows/x.yml\n@@ -0,0 +1 @@\n+on: push\n"
    )
    refused = _push(publish, tmp_path / "refused", hostile, bare, attempt=2)
    assert refused.returncode != 0 and "changes .github/" in refused.stderr, refused
    assert _git("branch", "--list", f"sandkit/{NAME}/run-4242-2", cwd=bare) == ""
