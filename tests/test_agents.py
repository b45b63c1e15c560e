"""The agent catalogue (sandkit/agents.py): each record agrees with its bundled preset, and every
fact a record holds reaches the linter. A new record is covered by these tests as it stands."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Mapping
from fnmatch import fnmatchcase
from pathlib import Path

import pytest

from sandkit.agents import CATALOGUE, Agent, ApprovalFlag, by_preset
from sandkit.kits.extends import preset_names
from sandkit.kits.loader import load_kit
from sandkit.kits.model import Kit
from sandkit.lint import kinds
from sandkit.lint.facts.agent_commands import dangerous_flags
from sandkit.lint.syntax.shell import Word
from sandkit.lint.syntax.tree import Pos
from tests.kits.helpers import write
from tests.lint.helpers import lint_files

PRESET_AGENTS = [agent for agent in CATALOGUE if agent.preset]


def agent_id(agent: object) -> str:
    return agent.name if isinstance(agent, Agent) else str(agent)


def preset_kit(tmp_path: Path, preset: str) -> Kit:
    return load_kit(write(tmp_path, f"apiVersion: sandkit/v1\nname: k\nextends: [{preset}]\n")).kit


def package_name(spec: str) -> str:
    """``@scope/name@1.2`` -> ``@scope/name``; ``name==1.2`` -> ``name``."""
    return re.split(r"==|(?<=.)@", spec, maxsplit=1)[0]


def sample(pattern: str) -> str:
    """A path a catalogue pattern matches (``*`` stands for one plain name)."""
    return pattern.replace("*", "x")


# ----- the catalogue itself ---------------------------------------------------------------------
def test_every_bundled_preset_has_exactly_one_record_and_every_record_a_preset_file() -> None:
    assert sorted(agent.preset for agent in PRESET_AGENTS) == preset_names()


def test_names_and_patterns_belong_to_one_agent_and_read_as_written() -> None:
    assert len({agent.name for agent in CATALOGUE}) == len(CATALOGUE)
    owners: dict[str, str] = {}
    for agent in CATALOGUE:
        for name in set(agent.names):
            assert owners.setdefault(name, agent.name) == agent.name, f"{name} starts two agents"
        assert set(agent.needs_arguments) <= set(agent.commands)
        assert set(agent.settings_files) <= set(agent.config_files)
        for pattern in (*agent.instruction_files, *agent.config_files):
            assert pattern == pattern.lower(), f"{agent.name}: patterns are lower-case ({pattern})"
        for path in agent.credential_files:
            assert path.startswith("~/"), f"{agent.name}: credential files are under the home folder ({path})"
        for word in agent.image_words:
            re.compile(word)


def test_a_flag_two_agents_share_is_dangerous_alone_for_both() -> None:
    """The linter counts every agent's flags on every agent's command line, so they must agree on
    whether the flag alone or its values decide; what it does is told per agent."""
    seen: dict[str, ApprovalFlag] = {}
    for agent in CATALOGUE:
        for flag in agent.approval_flags:
            assert bool(flag.does) != bool(flag.values), f"{flag.flag}: either it does something alone, or values do"
            assert not flag.accepted or set(flag.values) <= set(flag.accepted)
            for spelling in flag.spellings:
                other = seen.setdefault(spelling, flag)
                assert (other.values, other.sandboxed) == (flag.values, flag.sandboxed), spelling


def test_the_catalogue_imports_nothing_heavy() -> None:
    """sandkit.lint.kinds loads it on every lint run, pre-commit's included."""
    code = "import sys, sandkit.agents; print(sorted(m for m in sys.modules if m.startswith(('sandkit', 'yaml', 'pydantic', 'jinja2', 'ruamel'))))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "['sandkit', 'sandkit.agents']"


# ----- presets agree with their records ---------------------------------------------------------
@pytest.mark.parametrize("agent", PRESET_AGENTS, ids=agent_id)
def test_the_preset_runs_the_agent_the_record_describes(tmp_path: Path, agent: Agent) -> None:
    kit = preset_kit(tmp_path, agent.preset)
    assert by_preset(agent.preset) is agent
    assert kit.agent.command[0] in agent.commands
    packages = [package_name(str(p)) for p in (*kit.image.packages.npm, *kit.image.packages.pip)]
    assert packages and set(packages) <= set(agent.packages)
    instructions = (kit.agent.instructions_file or "").lower()
    assert any(fnmatchcase(instructions, pattern) for pattern in agent.instruction_files)
    assert kinds.kind_by_name(instructions).kind == kinds.AGENT_INSTRUCTIONS  # the linter reads it as such
    assert set(kit.network.allow) <= set(agent.api_hosts)
    assert {secret.name for secret in kit.secrets} <= set(agent.api_key_variables)


@pytest.mark.parametrize("agent", PRESET_AGENTS, ids=agent_id)
def test_the_presets_approval_flags_are_its_agents_with_values_it_accepts(tmp_path: Path, agent: Agent) -> None:
    command = list(kit_command := preset_kit(tmp_path, agent.preset).agent.command)
    own = {spelling: flag for flag in agent.approval_flags for spelling in flag.spellings}
    others = {s for a in CATALOGUE if a is not agent for f in a.approval_flags for s in f.spellings} - set(own)
    expected = []
    for index, word in enumerate(command):
        flag_text, eq, value = word.partition("=")
        assert flag_text not in others, f"{agent.preset} passes another agent's flag {flag_text}"
        flag = own.get(flag_text)
        if flag is None:
            continue
        value = value if eq else (command[index + 1] if index + 1 < len(command) else "")
        if flag.accepted:
            assert value in flag.accepted, f"{agent.preset}: {flag_text} {value} is not a value {agent.name} takes"
        if not flag.values or value in flag.values:
            expected.append(word)
    found = [w.text for w, _agent, _what in dangerous_flags([Word(w, Pos()) for w in kit_command])]
    assert found == expected  # the linter says of the preset what the record says


# ----- every fact of every record reaches the linter --------------------------------------------
@pytest.mark.parametrize("agent", [a for a in CATALOGUE if a.instruction_files or a.config_files], ids=agent_id)
def test_the_agents_files_are_read_as_agent_files(agent: Agent) -> None:
    for pattern in agent.instruction_files:
        assert kinds.kind_by_name(f"sub/{sample(pattern)}").kind == kinds.AGENT_INSTRUCTIONS, pattern
        assert kinds.is_agent_file(f"node_modules/pkg/{sample(pattern)}"), pattern
    for pattern in agent.config_files:
        assert kinds.kind_by_name(f"sub/{sample(pattern)}").kind == kinds.AGENT_CONFIG, pattern


def _command_lines(agent: Agent) -> list[str]:
    lines = []
    for name in agent.names:
        start = f"{name} chat" if name in agent.needs_arguments else name
        for flag in agent.approval_flags:
            for spelling in flag.spellings:
                lines += [f"{start} {spelling} {value}" for value in flag.values] or [f"{start} {spelling}"]
        lines += [f"{start} {flag}" for flag in agent.yes_flags]
    return lines


@pytest.mark.parametrize("agent", [a for a in CATALOGUE if a.approval_flags or a.yes_flags], ids=agent_id)
def test_the_agents_approval_skipping_flags_are_found_in_scripts(agent: Agent) -> None:
    lines = _command_lines(agent)
    findings = lint_files({"run.sh": "#!/bin/sh\n" + "\n".join(lines) + "\n"}, select=("AA008",))
    assert sorted(f.line for f in findings) == list(range(2, len(lines) + 2))


@pytest.mark.parametrize("agent", [a for a in CATALOGUE if a.needs_arguments], ids=agent_id)
def test_a_bare_command_that_needs_arguments_is_not_the_agent(agent: Agent) -> None:
    flag = agent.approval_flags[0].flag
    files = {"run.sh": "".join(f"echo {name}\n{name}\n" for name in agent.needs_arguments) + f"echo {flag}\n"}
    assert lint_files(files, select=("AA008",)) == []


def _mcp_config(path: str, table: str, server: Mapping[str, object]) -> str:
    if path.endswith(".toml"):
        lines = [f"[{table}.s]"]
        lines += [f"{key} = {json.dumps(value)}" for key, value in server.items() if not isinstance(value, dict)]
        for key, value in server.items():
            if isinstance(value, dict):
                lines += [f"[{table}.s.{key}]", *(f"{k} = {json.dumps(v)}" for k, v in value.items())]
        return "\n".join(lines) + "\n"
    return json.dumps({table: {"s": server}})  # JSON is YAML too


@pytest.mark.parametrize("agent", [a for a in CATALOGUE if a.mcp], ids=agent_id)
def test_the_agents_mcp_servers_are_read_wherever_it_keeps_them(agent: Agent) -> None:
    assert agent.mcp is not None
    path = sample(next(p for p in agent.config_files if not p.startswith(".vscode/tasks")))
    token = "Zq8xLm2Pv7Rt4Ks9Wd3Hn6"
    for table in agent.mcp.tables:
        for env in agent.mcp.env:
            server = {"command": "npx", "args": ["-y", "some-mcp-server"], env: {"API_TOKEN": token}}
            found = {f.rule for f in lint_files({path: _mcp_config(path, table, server)}, select=("AM",))}
            assert found == {"AM001", "AM003"}, (table, env)
        for url in agent.mcp.url:
            remote = {url: "http://mcp.example.com/sse"}
            found = {f.rule for f in lint_files({path: _mcp_config(path, table, remote)}, select=("AM",))}
            assert found == {"AM004"}, (table, url)


@pytest.mark.parametrize("agent", [a for a in CATALOGUE if a.credential_files], ids=agent_id)
def test_mounting_the_agents_credential_files_is_a_host_credential_finding(agent: Agent) -> None:
    volumes = "".join(f"      - {path}:/creds/{i}:ro\n" for i, path in enumerate(agent.credential_files))
    findings = lint_files({"compose.yaml": f"services:\n  box:\n    image: x\n    volumes:\n{volumes}"})
    assert len([f for f in findings if f.rule == "HC001"]) == len(agent.credential_files)


@pytest.mark.parametrize("agent", [a for a in CATALOGUE if a.image_words], ids=agent_id)
def test_a_container_named_after_the_agent_is_an_agent_container(agent: Agent) -> None:
    for word in agent.image_words:
        name = re.sub(r"\(([^)]*)\)\?|\?", "", word.replace("-?", "-"))  # one spelling the word matches
        assert re.fullmatch(word, name)
        compose = f"services:\n  box:\n    image: ghcr.io/example/{name}:1\n    network_mode: host\n"
        assert [f.rule for f in lint_files({"compose.yaml": compose}, select=("EG003",))] == ["EG003"], name
    quiet = "services:\n  box:\n    image: ghcr.io/example/web:1\n    network_mode: host\n"
    assert lint_files({"compose.yaml": quiet}, select=("EG003",)) == []
