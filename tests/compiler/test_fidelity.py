"""The fidelity report's closed sets (levels, setting names) and the rows targets share word for word."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import pytest

from sandkit.compiler.command import KitOutput
from sandkit.compiler.fidelity import LEVELS, SETTINGS, Fidelity
from sandkit.compiler.plan import Plan
from sandkit.compiler.targets import NAMES
from tests.compiler.helpers import EXAMPLES, OWN_KITS, compile_from_repo, compile_text

#: Between them these ask for everything a row can be about (build secrets, rootless Docker, ports,
#: triggers, the agent-sandbox resources, a runtime, instructions, open egress with a deny list, and
#: an sbx kit that runs image.base with packages, install and CA certificates sbx cannot apply, and a
#: value sbx would substitute).
KITS = {
    "everything": """\
apiVersion: sandkit/v1
name: everything
agent: {command: [agent], instructions: "Be brief.", instructions_file: AGENTS.md}
workspace: {mode: none}
network: {allow: [api.example.com], deny: [bad.example.com]}
secrets: [{name: MODEL_KEY}, {name: BUILD_KEY, build: true, required: false}]
isolation: {runtime: gvisor, docker: rootless, read_only_root: false}
ports: [{container: 3000}]
triggers:
  - {schedule: "0 9 * * 1"}
  - {github: {event: issues, types: [labeled]}}
  - {manual: {}}
  - {webhook: {source: twilio, secret: HOOK_TOKEN, fields: {text: $.Body}, dispatch: workflow_dispatch, match: {$.From: ["+15550100"]}}}
targets: {kubernetes: {sandbox_crd: true}, actions: {permissions: {issues: read}, publish: comment}}
""",
    "sbx-base": """\
apiVersion: sandkit/v1
name: sbx-base
agent: {command: [agent]}
workspace: {mode: none}
image: {packages: {pip: ["pytest==8.3.2"]}, ca_certificates: [ca.pem]}
install: [make tools]
env: {TOKEN_HINT: "${{ kit.args.token }}"}
targets: {sbx: {image_from: base}}
""",
    "open": """\
apiVersion: sandkit/v1
name: open
agent: {command: [agent]}
workspace: {mode: none}
network: {egress: open, deny: [bad.example.com]}
isolation: {docker: rootless}
""",
}


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> list[KitOutput]:
    folder = tmp_path_factory.mktemp("fidelity")
    (folder / "ca.pem").write_text("-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n")
    built = [compile_from_repo(kit, folder / "repo", list(NAMES)) for kit in EXAMPLES + OWN_KITS]
    built += [compile_text(folder, text, name=f"{name}.yaml") for name, text in KITS.items()]
    return built


def test_a_row_for_an_unknown_setting_or_level_is_refused() -> None:
    with pytest.raises(ValueError, match=r"unknown fidelity setting 'network\.egres': add it to Setting"):
        Fidelity(cast(Any, "network.egres"), "enforced", "typo")
    with pytest.raises(ValueError, match="unknown fidelity level 'partial'"):
        Fidelity("network.egress", cast(Any, "partial"), "not a level")


def test_every_setting_name_is_written_and_every_row_names_one(outputs: list[KitOutput]) -> None:
    written = {setting for out in outputs for setting in out.fidelity}
    assert written == set(SETTINGS), "a setting name no target writes, or a row the closed set misses"
    levels = {row.level for out in outputs for per_target in out.fidelity.values() for row in per_target.values()}
    assert levels == set(LEVELS)


#: (setting, targets that write it in the same words, for which kits): the words a shared helper owns.
SHARED: list[tuple[str, tuple[str, ...], Callable[[Plan], bool]]] = [
    ("resources.timeout", ("compose", "actions", "devcontainer"), lambda plan: plan.docker_runtime is None),
    ("resources.disk", ("compose", "actions"), lambda plan: plan.workspace_mode != "mount"),
    ("isolation.docker", ("compose", "actions"), lambda plan: True),
    ("isolation.runtime", ("compose", "actions"), lambda plan: plan.docker_runtime is None),
    ("isolation.read_only_root", ("compose", "actions", "kubernetes"), lambda plan: not plan.read_only_root),
    ("network.deny", ("compose", "actions"), lambda plan: plan.egress != "allowlist"),
    (
        "triggers.webhook",
        ("compose", "devcontainer", "sbx", "openhands", "srt", "claude-code", "codex"),
        lambda plan: bool(plan.triggers.webhooks),
    ),
]


@pytest.mark.parametrize(("setting", "targets", "applies"), SHARED, ids=[s for s, _, _ in SHARED])
def test_shared_rows_are_written_in_the_same_words(
    outputs: list[KitOutput], setting: str, targets: tuple[str, ...], applies: Callable[[Plan], bool]
) -> None:
    compared = [out.fidelity[setting] for out in outputs if setting in out.fidelity and applies(out.plan)]
    assert compared, "no kit above exercises this row"
    for rows in compared:  # the words; each target names its own proof
        assert len({(rows[t].level, rows[t].reason) for t in targets}) == 1, setting


def test_the_default_runtime_row_is_shared_and_a_named_runtime_says_how(outputs: list[KitOutput]) -> None:
    for out in outputs:
        rows = out.fidelity["isolation.runtime"]
        if out.plan.docker_runtime is None:
            assert rows["compose"].reason == rows["actions"].reason
        else:
            assert rows["compose"].reason == f"runtime: {out.plan.docker_runtime}"
            assert rows["actions"].reason.startswith(f"docker run --runtime {out.plan.docker_runtime}:")
