"""Hostile free text goes in; every output still parses, has no extra instruction or key, and
carries the value intact: no kit value can steer a generated file."""

from __future__ import annotations

import json
import shlex
import subprocess
import tempfile
import tomllib
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from sandkit.compiler.command import KitOutput, compile_kit
from sandkit.credentials import credential_kind
from sandkit.kits.dump import dump_kit
from sandkit.kits.model import Kit

BREAKERS = [
    "\n",
    "\r\n",
    "'",
    '"',
    "\\",
    "\\\n",
    "${{ secrets.X }}",
    "$(id)",
    "`id`",
    "$HOME",
    "${HOME}",
    "\nRUN id",
    "\nUSER root",
    "key: value",
    "- item",
    "---",
    "...",
    "#",
    "&anchor",
    "*alias",
    "!!str",
    '{"a": 1}',
    "]",
    "[",
    "}",
    "\u202e",
    "\u200b",
    "\u2066",
    "\x85",
    "\u2028",
    "\t",
    "%",
    "!",
    "|",
    ">",
]
HOSTILE = (
    st.lists(
        st.one_of(
            st.sampled_from(BREAKERS),
            st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), max_size=12),
        ),
        max_size=8,
    )
    .map("".join)
    .filter(lambda t: credential_kind(t) is None)
)


def _kit(values: dict[str, Any]) -> Kit:
    return Kit.model_validate(
        {
            "apiVersion": "sandkit/v1",
            "name": "hostile",
            "description": values["text"],
            "env": {"HOSTILE_ONE": values["env"], "HOSTILE_TWO": values["text"]},
            "install": [values["install"]],
            "startup": [values["startup"], values["text"]],
            "agent": {
                "command": ["agent", values["arg"], values["text"]],
                "instructions": values["text"],
                "instructions_file": "AGENTS.md",
            },
            "files": [
                {"path": "/etc/hostile.txt", "content": values["text"]},
                {"path": "/home/agent/hostile.txt", "content": values["env"]},
            ],
            "network": {"allow": ["api.example.com"]},
            "workspace": {"mode": "none"},
        }
    )


def _compile(kit: Kit) -> KitOutput:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "kit.yaml"
        path.write_text(dump_kit(kit), encoding="utf-8")
        return compile_kit(path, Path(folder) / "out", ["docker", "compose", "kubernetes", *NEW_TARGETS])


NEW_TARGETS = ["sbx", "openhands", "srt", "claude-code", "codex"]
BASELINE = _compile(_kit(dict.fromkeys(["text", "env", "install", "startup", "arg"], "plain")))


def _instructions(dockerfile: str) -> list[str]:
    """Instruction keywords, continuation lines folded as Docker's parser folds them."""
    keywords, continued = [], False
    for line in dockerfile.splitlines():
        stripped = line.strip()
        if not continued and stripped and not stripped.startswith("#"):
            keywords.append(stripped.split()[0])
        continued = line.endswith("\\")
    return keywords


def _cmd(dockerfile: str) -> list[str]:
    line = next(line for line in dockerfile.splitlines() if line.startswith("CMD "))
    return list(json.loads(line[4:]))


def _sourced_env(env_sh: bytes, names: list[str]) -> list[str]:
    with tempfile.NamedTemporaryFile("wb", suffix=".sh") as handle:
        handle.write(env_sh)
        handle.flush()
        script = ". " + shlex.quote(handle.name) + "".join(f'; printf "%s\\0" "${n}"' for n in names)
        done = subprocess.run(["sh", "-c", script], capture_output=True, check=True)
    return done.stdout.decode().split("\0")[:-1]


def _startup_commands(entrypoint: str) -> list[str]:
    lexer = shlex.shlex(entrypoint, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    tokens = list(lexer)
    return [tokens[i + 2] for i in range(len(tokens) - 2) if tokens[i : i + 2] == ["sh", "-c"]]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=HOSTILE, env=HOSTILE, install=HOSTILE, startup=HOSTILE, arg=HOSTILE)
@example(text="x" * 100_000, env="\\\n" * 500, install="a\nRUN id\n", startup="'; id; '", arg="${{ github.token }}")
def test_hostile_values_stay_values(text: str, env: str, install: str, startup: str, arg: str) -> None:
    kit = _kit({"text": text, "env": env, "install": install, "startup": startup, "arg": arg})
    out = _compile(kit)
    dockerfile = out.files["Dockerfile"].decode()
    assert _instructions(dockerfile) == _instructions(BASELINE.files["Dockerfile"].decode())
    assert _cmd(dockerfile) == ["agent", arg, text]
    assert _sourced_env(out.files["env.sh"], ["HOSTILE_ONE", "HOSTILE_TWO"]) == [env, text]
    entrypoint = out.files["entrypoint.sh"].decode()
    subprocess.run(["sh", "-n"], input=entrypoint.encode(), check=True)
    assert _startup_commands(entrypoint) == [startup, text]
    assert out.files["install/01.sh"].decode().split("run as root at build\n", 1)[1] == install + "\n"
    assert out.files["instructions/AGENTS.md"].decode().split("\n\n", 1)[1] == text
    assert out.files["files/01-hostile.txt"].decode() == text
    compose = YAML(typ="safe").load(out.files["compose.yaml"])
    baseline = YAML(typ="safe").load(BASELINE.files["compose.yaml"])
    assert compose.keys() == baseline.keys()
    assert compose["services"]["agent"].keys() == baseline["services"]["agent"].keys()
    assert (
        out.files["egress/squid.conf"].decode().splitlines()[3:]
        == BASELINE.files["egress/squid.conf"].decode().splitlines()[3:]
    )
    _assert_kubernetes_intact(out, arg, text)
    _assert_new_targets_intact(out, {"text": text, "env": env, "startup": startup, "arg": arg})


def _kubernetes(out: KitOutput) -> dict[tuple[str, str], Any]:
    """Every manifest under kubernetes/, by (file, kind)."""
    found: dict[tuple[str, str], Any] = {}
    for name, data in sorted(out.files.items()):
        if name.startswith("kubernetes/"):
            for doc in YAML(typ="safe").load_all(data):
                found[(name, doc["kind"])] = doc
    return found


def _shape(value: Any) -> Any:
    """The keys of a document at every depth, without the values."""
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items() if k not in ("data", "args")}
    if isinstance(value, list):
        return [_shape(v) for v in value]
    return None


def _assert_kubernetes_intact(out: KitOutput, arg: str, text: str) -> None:
    manifests, baseline = _kubernetes(out), _kubernetes(BASELINE)
    assert _shape(manifests) == _shape(baseline)
    config = manifests[("kubernetes/agent-config.yaml", "ConfigMap")]["data"]
    assert config["env.sh"].encode() == out.files["env.sh"]
    assert config["instructions"].encode() == out.files["instructions/AGENTS.md"]
    assert config["file-01"] == text
    job = manifests[("kubernetes/job.yaml", "Job")]
    assert job["spec"]["template"]["spec"]["containers"][0]["args"] == ["agent", arg, text]


def test_secret_values_in_the_build_environment_reach_no_output(monkeypatch: Any) -> None:
    value = "sk-ant-api03-" + "Q" * 40
    monkeypatch.setenv("ANTHROPIC_API_KEY", value)
    monkeypatch.setenv("GH_TOKEN", value)
    from tests.compiler.helpers import EXAMPLES, compile_from_repo

    for kit in EXAMPLES:
        for name, data in compile_from_repo(kit).files.items():
            assert value.encode() not in data, f"{kit}: {name} carries a secret's value"


def _assert_new_targets_intact(out: KitOutput, values: dict[str, str]) -> None:
    """sbx, openhands, srt, claude-code and codex: the same keys as the baseline, each value intact."""
    text, env = values["text"], values["env"]
    hostile_env = {"HOSTILE_ONE": env, "HOSTILE_TWO": text}
    spec, base_spec = (YAML(typ="safe").load(o.files["sbx/spec.yaml"]) for o in (out, BASELINE))
    assert spec.pop("description", "") == text and base_spec.pop("description") == "plain"
    assert _shape(spec) == _shape(base_spec)
    assert [*spec["sandbox"]["entrypoint"], *spec["sandbox"]["command"]] == ["agent", values["arg"], text]
    assert spec["agentInstructions"]["content"] == text
    assert spec["environment"]["variables"] == hostile_env
    assert [s["command"] for s in spec["setup"]["startup"]] == [["sh", "-c", values["startup"]], ["sh", "-c", text]]
    assert spec["setup"]["files"] == [{"path": "/home/agent/hostile.txt", "content": env, "mode": "0644"}]
    sandbox = tomllib.loads(out.files["openhands/config.toml"].decode())
    assert _shape(sandbox) == _shape(tomllib.loads(BASELINE.files["openhands/config.toml"].decode()))
    runtime_env = sandbox["sandbox"]["runtime_startup_env_vars"]
    assert {k: runtime_env[k] for k in hostile_env} == hostile_env
    lines = out.files["openhands/openhands.env"].decode("ascii").splitlines()
    assert len(lines) == len(BASELINE.files["openhands/openhands.env"].decode().splitlines())
    assert out.files["srt/env.sh"].split(b"\n", 3)[3] == out.files["env.sh"].split(b"\n", 3)[3]
    agent_env = json.loads(next(line for line in lines if line.startswith("OH_AGENT_SERVER_ENV="))[20:])
    assert agent_env == runtime_env
    claude = json.loads(out.files["claude-code/.claude/settings.json"])
    assert _shape(claude) == _shape(json.loads(BASELINE.files["claude-code/.claude/settings.json"]))
    assert claude["env"] == hostile_env
    codex = tomllib.loads(out.files["codex/config.toml"].decode())
    assert codex["shell_environment_policy"]["set"] == hostile_env
    assert (
        out.files["srt/srt-settings.json"].split(b"\n", 2)[2]
        == BASELINE.files["srt/srt-settings.json"].split(b"\n", 2)[2]
    )
