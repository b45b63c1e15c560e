"""sbx, openhands, srt, claude-code and codex: every emitted file passes its published schema or the one
written from its documented keys (tests/compiler/data, sandkit/schemas), the overlay passes Compose's
checks, and the fidelity report says what each target cannot hold."""

from __future__ import annotations

import json
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from ruamel.yaml import YAML

from sandkit.compiler.command import KitOutput, compile_kit
from sandkit.compiler.fidelity import PROVEN_STATICALLY
from sandkit.compiler.targets import NAMES
from sandkit.kits.dump import dump_kit
from sandkit.kits.model import Kit
from sandkit.lint.kinds import AGENT_CONFIG, COMPOSE, kind_by_name
from tests.compiler.helpers import EXAMPLES, OWN_KITS, compile_from_repo, schema_problems
from tests.compiler.test_validators import compose_client_env
from tests.conftest import REPO
from tests.lint.helpers import lint_tree, write_tree

DATA = Path(__file__).parent / "data"
KITS = EXAMPLES + OWN_KITS


def _validator(path: Path) -> Any:
    schema = json.loads(path.read_text(encoding="utf-8"))
    return jsonschema.validators.validator_for(schema)(schema)


SCHEMAS = {
    "sbx": _validator(REPO / "sandkit" / "schemas" / "sbx-spec-v2.schema.json"),
    "srt": _validator(DATA / "srt-settings.schema.json"),
    "claude": _validator(DATA / "claude-code-settings.schema.json"),
    "codex": _validator(DATA / "codex-config.schema.json"),
    "openhands": _validator(DATA / "openhands-sandbox.schema.json"),
    "openhands-env": _validator(DATA / "openhands-v1-env.schema.json"),
}


def _errors(schema: str, document: Any) -> list[str]:
    return [f"{list(e.absolute_path)}: {e.message}" for e in SCHEMAS[schema].iter_errors(document)]


@pytest.fixture(scope="module")
def outputs() -> dict[str, KitOutput]:
    return {str(kit.relative_to(REPO)): compile_from_repo(kit, targets=list(NAMES)) for kit in KITS}


def env_file(data: bytes) -> dict[str, str]:
    """The NAME=value lines of a docker --env-file (# comments; every value on one line)."""
    found: dict[str, str] = {}
    for line in data.decode("ascii").splitlines():
        if "=" in line and not line.startswith("#"):
            name, _, value = line.partition("=")
            assert name not in found, f"{name} twice"
            found[name] = value
    return found


def passed_names(data: bytes) -> list[str]:
    """The bare NAME lines of a docker --env-file: values docker takes from its own environment."""
    return [line for line in data.decode("ascii").splitlines() if line and "=" not in line and not line.startswith("#")]


def test_every_kit_gets_the_new_targets(outputs: dict[str, KitOutput]) -> None:
    for name, out in outputs.items():
        for path in (
            "sbx/spec.yaml",
            "openhands/config.toml",
            "openhands/openhands.env",
            "openhands/compose.openhands.yaml",
            "srt/srt-settings.json",
            "claude-code/.claude/settings.json",
            "codex/config.toml",
        ):
            assert path in out.files, (name, path)


def test_every_emitted_file_passes_its_schema(outputs: dict[str, KitOutput]) -> None:
    for name, out in outputs.items():
        files = out.files
        assert _errors("sbx", YAML(typ="safe").load(files["sbx/spec.yaml"])) == [], name
        assert _errors("srt", json.loads(files["srt/srt-settings.json"])) == [], name
        assert _errors("claude", json.loads(files["claude-code/.claude/settings.json"])) == [], name
        assert _errors("codex", tomllib.loads(files["codex/config.toml"].decode())) == [], name
        config = tomllib.loads(files["openhands/config.toml"].decode())
        assert set(config) == {"sandbox"} and _errors("openhands", config["sandbox"]) == [], name
        environment = env_file(files["openhands/openhands.env"])
        assert _errors("openhands-env", environment) == [], name
        agent_env = json.loads(environment["OH_AGENT_SERVER_ENV"])
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in agent_env.items()), name


def test_a_broken_output_would_be_caught(outputs: dict[str, KitOutput]) -> None:
    """The validations above can fail: a stray key or a wrong type is refused by each schema."""
    out = next(iter(outputs.values()))
    spec = YAML(typ="safe").load(out.files["sbx/spec.yaml"])
    assert _errors("sbx", {**spec, "network": {}})
    srt = json.loads(out.files["srt/srt-settings.json"])
    assert _errors("srt", {**srt, "network": {**srt["network"], "allowedDomains": ["https://example.com/"]}})
    claude = json.loads(out.files["claude-code/.claude/settings.json"])
    assert _errors("claude", {**claude, "sandbox": {**claude["sandbox"], "enable": True}})
    codex = tomllib.loads(out.files["codex/config.toml"].decode())
    assert _errors("codex", {**codex, "sandbox_mode": "container"})
    sandbox = tomllib.loads(out.files["openhands/config.toml"].decode())["sandbox"]
    assert _errors("openhands", {**sandbox, "network": "x"})
    assert _errors("openhands-env", {**env_file(out.files["openhands/openhands.env"]), "SANDBOX_VOLUME": "x"})


@pytest.mark.parametrize("kit", EXAMPLES, ids=lambda p: p.parent.name)
def test_the_openhands_overlay_is_a_valid_compose_overlay(kit: Path, tmp_path: Path) -> None:
    out = compile_from_repo(kit, tmp_path / "out", list(NAMES))
    for name, data in out.files.items():
        (out.folder / name).parent.mkdir(parents=True, exist_ok=True)
        (out.folder / name).write_bytes(data)
    overlay = out.folder / "openhands" / "compose.openhands.yaml"
    assert not schema_problems("vendor.compose-spec", overlay)
    env = compose_client_env()
    done = subprocess.run(
        [
            "docker",
            "compose",
            "-f",
            "compose.yaml",
            "-f",
            "openhands/compose.openhands.yaml",
            "config",
            "--format",
            "json",
        ],
        cwd=out.folder,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    merged = json.loads(done.stdout)
    assert "agent" not in merged["services"], "sandkit's own agent is in a profile nobody activates"
    config = tomllib.loads(out.files["openhands/config.toml"].decode())["sandbox"]
    internal = [n for n in merged.get("networks", {}).values() if n.get("internal")]
    if out.plan.egress == "allowlist":
        assert [n["name"] for n in internal] == config["additional_networks"], "OpenHands joins the internal network"
        assert "egress" in merged["services"], "the proxy comes up without the agent"
    else:
        assert not internal and "additional_networks" not in config


def _kit(**fields: Any) -> Kit:
    base: dict[str, Any] = {"apiVersion": "sandkit/v1", "name": "probe", "agent": {"command": ["agent", "run"]}}
    return Kit.model_validate({**base, **fields})


def _build(kit: Kit, tmp_path: Path, targets: list[str]) -> KitOutput:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "kit.yaml"
    path.write_text(dump_kit(kit), encoding="utf-8")
    return compile_kit(path, tmp_path / "out", targets)


def _row(out: KitOutput, setting: str, target: str) -> tuple[str, str]:
    row = out.fidelity[setting][target]
    return row.level, row.reason


def test_sbx_maps_the_kit_onto_the_spec(tmp_path: Path) -> None:
    fields: dict[str, Any] = dict(
        description="probe",
        secrets=[{"name": "EXAMPLE_API_KEY", "description": "the key"}, {"name": "OTHER_TOKEN", "required": False}],
        network={
            "allow": ["api.example.com", "git.example.com:8443", "*.cdn.example.com"],
            "deny": ["x.cdn.example.com"],
        },
        env={"MODE": "ci"},
        startup=["echo hi"],
        ports=[{"container": 8080}],
        resources={"cpus": 1.5, "memory": "1536Mi"},
        agent={"command": ["agent", "run", "--fast"], "instructions": "Be brief.", "instructions_file": "AGENTS.md"},
        files=[{"path": "/home/agent/.tool/config", "content": "a = 1\n", "mode": "0600"}],
        targets={
            "sbx": {
                "credentials": {
                    "EXAMPLE_API_KEY": {
                        "service": "example",
                        "inject": [{"domain": "api.example.com", "header": "x-api-key", "format": "%s"}],
                    }
                }
            }
        },
    )
    out = _build(_kit(**fields), tmp_path, ["sbx"])
    spec = YAML(typ="safe").load(out.files["sbx/spec.yaml"])
    assert spec["sandbox"]["image"] == out.plan.image_tag and spec["sandbox"]["build"]["context"] == ".."
    assert (spec["sandbox"]["entrypoint"], spec["sandbox"]["command"]) == (["agent"], ["run", "--fast"])
    assert spec["sandbox"]["resources"] == {"cpu": 1.5, "memory": "1536m"}
    assert spec["permissions"]["network"] == {
        "allow": ["api.example.com", "git.example.com:8443", "*.cdn.example.com"],
        "deny": ["x.cdn.example.com"],
    }
    assert spec["credentials"][0] == {
        "service": "example",
        "description": "the key",
        "required": True,
        "apiKey": {
            "name": "EXAMPLE_API_KEY",
            "proxyManaged": True,
            "inject": [{"domain": "api.example.com", "header": "x-api-key", "format": "%s"}],
        },
    }
    assert spec["setup"] == {
        "startup": [{"command": ["sh", "-c", "echo hi"]}],
        "files": [{"path": "/home/agent/.tool/config", "content": "a = 1\n", "mode": "0600"}],
    }
    assert spec["agentInstructions"] == {"filename": "AGENTS.md", "content": "Be brief."}
    level, reason = _row(out, "secrets", "sbx")
    assert level == "best-effort" and "OTHER_TOKEN" in reason, "an optional key with no inject rule reaches nothing"
    required_secrets = [{"name": "EXAMPLE_API_KEY"}, {"name": "OTHER_TOKEN"}]
    required = _build(_kit(**{**fields, "secrets": required_secrets}), tmp_path / "required", ["sbx"])
    assert _row(required, "secrets", "sbx")[0] == "unsupported", "a required key sbx cannot deliver"
    assert _row(out, "resources.memory", "sbx")[0] == "best-effort"
    assert _row(out, "resources.timeout", "sbx")[0] == "unsupported"


def _sbx_injections(out: KitOutput) -> dict[str, list[dict[str, str]]]:
    spec = YAML(typ="safe").load(out.files["sbx/spec.yaml"])
    assert not _errors("sbx", spec)
    return {c["apiKey"]["name"]: c["apiKey"].get("inject", []) for c in spec.get("credentials", [])}


def test_sbx_injects_where_the_kit_s_secrets_say(tmp_path: Path) -> None:
    """secrets[].inject becomes sbx's rule ({value} as %s); one sbx cannot express is reported, not dropped."""
    bearer = {"host": "api.example.com", "header": "Authorization", "format": "Bearer {value}"}
    fields: dict[str, Any] = {
        "secrets": [{"name": "GH_TOKEN", "inject": [bearer]}],
        "network": {"allow": ["api.example.com", "git.example.com:8443"]},
    }
    out = _build(_kit(**fields), tmp_path / "a", ["sbx"])
    assert _sbx_injections(out) == {
        "GH_TOKEN": [{"domain": "api.example.com", "header": "Authorization", "format": "Bearer %s"}]
    }
    assert _row(out, "secrets.inject", "sbx")[0] == "enforced"
    odd_port = {"name": "GIT_KEY", "inject": [{"host": "git.example.com:8443", "header": "x-key"}]}
    out = _build(_kit(**{**fields, "secrets": [*fields["secrets"], odd_port]}), tmp_path / "b", ["sbx"])
    assert _sbx_injections(out)["GIT_KEY"] == []
    level, reason = _row(out, "secrets.inject", "sbx")
    assert level == "unsupported" and "GIT_KEY on git.example.com:8443 is not injected" in reason
    own = {"GH_TOKEN": {"service": "github", "inject": [{"domain": "api.example.com", "scheme": "bearer"}]}}
    out = _build(_kit(**fields, targets={"sbx": {"credentials": own}}), tmp_path / "c", ["sbx"])
    assert _sbx_injections(out) == {"GH_TOKEN": [{"domain": "api.example.com", "scheme": "bearer"}]}, "sbx's own"
    out = _build(_kit(**{**fields, "network": {"egress": "none"}}), tmp_path / "d", ["sbx"])
    assert _sbx_injections(out) == {"GH_TOKEN": []}
    level, reason = _row(out, "secrets.inject", "sbx")
    assert level == "unsupported" and reason.startswith("the spec allows no host"), reason


def test_the_presets_keys_reach_sbx_through_their_injections(tmp_path: Path) -> None:
    for preset, secret, rule in [
        ("claude-code", "ANTHROPIC_API_KEY", {"domain": "api.anthropic.com", "header": "x-api-key", "format": "%s"}),
        ("codex", "CODEX_API_KEY", {"domain": "api.openai.com", "header": "Authorization", "format": "Bearer %s"}),
    ]:
        out = _build(_kit(extends=[preset]), tmp_path / preset, ["sbx"])
        assert _sbx_injections(out) == {secret: [rule]}, preset
        assert _row(out, "secrets.inject", "sbx")[0] == "enforced"


def test_sbx_base_mode_runs_install_itself(tmp_path: Path) -> None:
    kit = _kit(
        install=["make tools"], image={"packages": {"pip": ["pytest==8.3.2"]}}, targets={"sbx": {"image_from": "base"}}
    )
    out = _build(kit, tmp_path, ["sbx"])
    spec = YAML(typ="safe").load(out.files["sbx/spec.yaml"])
    assert spec["sandbox"] == {
        "image": "debian:bookworm-slim",
        "entrypoint": ["agent"],
        "command": ["run"],
        "resources": {"cpu": 2.0, "memory": "4g"},
    }
    assert spec["setup"]["install"] == [{"command": "make tools"}]
    assert _row(out, "image.packages", "sbx")[0] == "unsupported"


def test_sbx_reports_what_sbx_would_substitute(tmp_path: Path) -> None:
    out = _build(_kit(env={"X": "${{ kit.args.token }}"}), tmp_path, ["sbx"])
    assert _row(out, "value substitution", "sbx")[0] == "unsupported"
    out = _build(_kit(env={"X": "${{ secrets.token }}"}), tmp_path / "b", ["sbx"])
    assert "value substitution" not in out.fidelity


def test_process_sandboxes_follow_the_kit(tmp_path: Path) -> None:
    kit = _kit(
        network={
            "allow": ["api.example.com", "git.example.com:8443", "*.cdn.example.com"],
            "deny": ["bad.example.com"],
        },
        secrets=[{"name": "EXAMPLE_API_KEY"}],
        env={"MODE": "ci"},
    )
    out = _build(kit, tmp_path, ["srt", "claude-code", "codex"])
    srt = json.loads(out.files["srt/srt-settings.json"])
    assert srt["network"]["allowedDomains"] == ["api.example.com:443", "git.example.com:8443", "*.cdn.example.com:443"]
    assert srt["network"]["deniedDomains"] == ["bad.example.com"], "a bare host: every port denied"
    assert srt["network"]["strictAllowlist"] is True and "10.0.0.0/8" in srt["network"]["deniedResolvedAddresses"]
    assert "::ffff:0:0/96" not in srt["network"]["deniedResolvedAddresses"], "it would refuse every IPv4 answer"
    assert srt["filesystem"]["allowWrite"] == [".", "/tmp"] and "~/.ssh" in srt["filesystem"]["denyRead"]
    claude = json.loads(out.files["claude-code/.claude/settings.json"])
    assert claude["sandbox"]["enabled"] and claude["sandbox"]["failIfUnavailable"], "never silently unsandboxed"
    assert claude["sandbox"]["allowUnsandboxedCommands"] is False
    assert claude["sandbox"]["filesystem"]["allowWrite"] == [".", "//tmp"], "a lone / is the settings file's folder"
    assert claude["sandbox"]["network"]["allowedDomains"] == ["api.example.com", "git.example.com", "*.cdn.example.com"]
    assert claude["sandbox"]["network"]["strictAllowlist"] is True, "no prompt lets an unlisted host through"
    assert claude["sandbox"]["credentials"] == {"envVars": [{"name": "EXAMPLE_API_KEY", "mode": "deny"}]}
    assert claude["permissions"]["disableBypassPermissionsMode"] == "disable"
    assert "WebFetch(domain:api.example.com)" in claude["permissions"]["allow"]
    assert {"WebSearch", "WebFetch(domain:bad.example.com)"} <= set(claude["permissions"]["deny"])
    assert claude["env"] == {"MODE": "ci"}
    codex = tomllib.loads(out.files["codex/config.toml"].decode())
    assert codex["sandbox_mode"] == "workspace-write" and codex["approval_policy"] == "never"
    assert codex["sandbox_workspace_write"]["network_access"] is False
    assert codex["shell_environment_policy"] == {"inherit": "core", "set": {"MODE": "ci"}}
    for target in ("srt", "claude-code", "codex"):
        assert _row(out, "isolation.runtime", target)[0] == "unsupported"
        assert _row(out, "resources.memory", target)[0] == "unsupported"
        assert _row(out, "network.egress", target)[0] == "best-effort"
    assert "every port" in _row(out, "network.egress", "claude-code")[1]
    _, reason = _row(out, "network.egress", "srt")
    assert "every port" not in reason and "any depth" in reason, "srt keeps the ports; the wildcard is wider"
    exact = _build(_kit(network={"allow": ["api.example.com", "git.example.com:8443"]}), tmp_path / "exact", ["srt"])
    assert _row(exact, "network.egress", "srt")[0] == "enforced", "no wildcard: srt holds the kit's list exactly"


def test_every_held_row_of_a_process_sandbox_names_its_run_or_says_why_not(outputs: dict[str, KitOutput]) -> None:
    """srt, claude-code and codex: a row that holds anything (enforced or best-effort) names the test that
    proves how far (tests/sandboxes runs them; test_fidelity_proofs checks the name), or says that only a
    live Claude Code session would show it."""
    for name, out in outputs.items():
        for setting, per_target in out.fidelity.items():
            for target in ("srt", "claude-code", "codex"):
                row = per_target.get(target)
                if row is None or row.level not in ("enforced", "best-effort"):
                    continue
                assert row.proven_by or "only a live Claude Code session" in row.reason, (name, setting, target)
                if row.reason.endswith(PROVEN_STATICALLY):
                    assert target == "claude-code", f"{name}: {setting} / {target} runs in tests/sandboxes"


def test_process_sandboxes_with_no_network_and_a_read_only_workspace(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    kit = _kit(network={"egress": "none"}, workspace={"mode": "mount-readonly", "source": "src"})
    out = _build(kit, tmp_path, ["srt", "claude-code", "codex"])
    srt = json.loads(out.files["srt/srt-settings.json"])
    assert srt["network"]["allowedDomains"] == [] and srt["filesystem"]["allowWrite"] == ["/tmp"]
    claude = json.loads(out.files["claude-code/.claude/settings.json"])
    assert {"WebFetch", "Edit", "Write"} <= set(claude["permissions"]["deny"])
    assert claude["sandbox"]["filesystem"]["allowWrite"] == ["//tmp"]
    codex = tomllib.loads(out.files["codex/config.toml"].decode())
    assert codex["sandbox_mode"] == "read-only" and "sandbox_workspace_write" not in codex, "read-only has no network"
    assert codex["web_search"] == "disabled"


def test_a_command_that_lifts_the_sandbox_is_reported(tmp_path: Path) -> None:
    out = _build(
        _kit(agent={"command": ["codex", "exec", "--sandbox", "danger-full-access", "x"]}), tmp_path, ["codex"]
    )
    level, reason = _row(out, "agent.command", "codex")
    assert level == "unsupported" and "--sandbox" in reason
    out = _build(_kit(agent={"command": ["claude", "--dangerously-skip-permissions"]}), tmp_path / "b", ["claude-code"])
    assert _row(out, "agent.command", "claude-code")[0] == "unsupported"


def test_openhands_has_no_allowlist_of_its_own(tmp_path: Path) -> None:
    kit = _kit(network={"allow": ["api.example.com"]}, env={"MODE": "ci"}, secrets=[{"name": "LLM_API_KEY"}])
    out = _build(kit, tmp_path, ["openhands"])
    level, reason = _row(out, "network.egress", "openhands")
    assert level == "best-effort" and reason.startswith("OpenHands has no egress allowlist of its own")
    sandbox = tomllib.loads(out.files["openhands/config.toml"].decode())["sandbox"]
    assert sandbox["runtime_startup_env_vars"]["HTTPS_PROXY"] == out.plan.proxy_url
    assert sandbox["runtime_startup_env_vars"]["MODE"] == "ci"
    assert sandbox["base_container_image"] == out.plan.image_tag
    assert sandbox["docker_runtime_kwargs"] == {"mem_limit": 4 * 2**30, "nano_cpus": 2_000_000_000, "pids_limit": 512}
    assert "volumes" not in sandbox, "workspace none: nothing of the host is mounted"
    environment = env_file(out.files["openhands/openhands.env"])
    assert (
        environment["AGENT_SERVER_IMAGE_REPOSITORY"] + ":" + environment["AGENT_SERVER_IMAGE_TAG"] == out.plan.image_tag
    )
    assert json.loads(environment["OH_AGENT_SERVER_ENV"]) == sandbox["runtime_startup_env_vars"]
    assert passed_names(out.files["openhands/openhands.env"]) == ["LLM_API_KEY"], "a secret by name, never a value"
    gvisor = _build(_kit(isolation={"runtime": "gvisor"}), tmp_path / "g", ["openhands"])
    assert (
        tomllib.loads(gvisor.files["openhands/config.toml"].decode())["sandbox"]["docker_runtime_kwargs"]["runtime"]
        == "runsc"
    )
    opened = _build(_kit(network={"egress": "open"}), tmp_path / "o", ["openhands"])
    assert "additional_networks" not in tomllib.loads(opened.files["openhands/config.toml"].decode())["sandbox"]
    out = _build(_kit(network={"egress": "none"}), tmp_path / "b", ["openhands"])
    assert _row(out, "network.egress", "openhands")[0] == "unsupported"


def test_openhands_refuses_strict_for_a_kit_without_network(tmp_path: Path) -> None:
    """OpenHands reaches its runtime over the network: egress none is not a mode it has, and --strict says so."""
    path = tmp_path / "kit.yaml"
    path.write_text(dump_kit(_kit(network={"egress": "none"})), encoding="utf-8")
    from sandkit.cli import main

    assert main(["build", str(path), "-o", str(tmp_path / "out"), "--target", "openhands", "--strict", "-q"]) == 1


def test_sbx_spec_asks_for_no_privilege(outputs: dict[str, KitOutput]) -> None:
    """sbx's microVM is its own; the spec never asks it for more (security.privileged, extra volumes)."""
    for name, out in outputs.items():
        spec = YAML(typ="safe").load(out.files["sbx/spec.yaml"])
        assert "security" not in spec and "volumes" not in spec, name
        assert set(spec) <= {
            *("schemaVersion", "kind", "name", "description", "sandbox", "agentInstructions", "permissions"),
            *("ports", "credentials", "environment", "setup"),
        }, name


def test_codex_opens_the_network_only_when_the_kit_does(tmp_path: Path) -> None:
    opened = _build(_kit(network={"egress": "open"}), tmp_path, ["codex"])
    config = tomllib.loads(opened.files["codex/config.toml"].decode())
    assert config["sandbox_workspace_write"]["network_access"] is True and config["web_search"] == "live"
    closed = _build(_kit(network={"allow": ["api.example.com"]}), tmp_path / "b", ["codex"])
    config = tomllib.loads(closed.files["codex/config.toml"].decode())
    assert config["sandbox_workspace_write"]["network_access"] is False and config["web_search"] == "disabled"


#: The new targets' folders in a build.
NEW_FOLDERS = ("sbx/", "openhands/", "srt/", "claude-code/", "codex/")


def test_the_linter_finds_nothing_in_the_new_targets_files(outputs: dict[str, KitOutput], tmp_path: Path) -> None:
    """Every kit's new-target files, where sandkit writes them, scanned by every lint rule.

    codex/config.toml is Codex's user configuration (CODEX_HOME), which the linter does not take for a
    repository's .codex/config.toml, the project configuration its rules are about.
    """
    tree: dict[str, str | bytes] = {
        f"kit{index}/{path}": data
        for index, out in enumerate(outputs.values())
        for path, data in out.files.items()
        if path.startswith(NEW_FOLDERS)
    }
    assert {kind_by_name(path).kind for path in tree} >= {AGENT_CONFIG, COMPOSE}, "settings and overlay read as such"
    write_tree(tmp_path / "clean", tree)
    assert [f"{f.path}:{f.line}: {f.rule} {f.message}" for f in lint_tree(tmp_path / "clean")] == []
    # The same scan sees what Claude Code's settings must never hold (so the pass is not over nothing).
    path, data = next((p, d) for p, d in tree.items() if p.endswith(".claude/settings.json"))
    settings = json.loads(data) | {"apiKeyHelper": "cat ~/.key"}
    write_tree(tmp_path / "helper", {path: json.dumps(settings)})
    assert {f.rule for f in lint_tree(tmp_path / "helper")} == {"AA002"}


def test_openhands_says_its_runtime_cannot_use_an_injecting_proxy(tmp_path: Path) -> None:
    """The compose proxy's authority comes with sandkit's entrypoint, which OpenHands replaces."""
    out = _build(_kit(extends=["openhands"]), tmp_path / "a", ["openhands"])
    row = out.fidelity["secrets.inject"]["openhands"]
    assert row.level == "unsupported" and "LLM_API_KEY" in row.reason and "HTTPS fails" in row.reason
    given = _build(_kit(extends=["openhands"], secrets=[{"name": "LLM_API_KEY"}]), tmp_path / "b", ["openhands"])
    assert "secrets.inject" not in given.fidelity, "a key given to OpenHands itself is no injection"
