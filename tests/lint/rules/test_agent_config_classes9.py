"""The ninth set's agent-configuration misses, as classes: AA004's programs that run anything
(interpreters, wrappers, project and task runners, remote runners, launchers in front of them),
any program of a folder, Cursor's hooks file (AA001), and plugins a project's settings turn on
from a marketplace fetched at no fixed version (AA016). Each with look-alikes that stay quiet."""

from __future__ import annotations

import json

import pytest

from tests.lint.helpers import lint_text

CLAUDE = ".claude/settings.json"


def _allow(*rules: str, mode: str = "") -> list[tuple[str, str]]:
    block: dict[str, object] = {"allow": list(rules)}
    if mode:
        block["defaultMode"] = mode
    findings = lint_text(CLAUDE, json.dumps({"permissions": block}, indent=1))
    return [(f.severity, f.message) for f in findings if f.rule == "AA004"]


@pytest.mark.parametrize(
    ("rule", "program"),
    [
        ("Bash(nx:*)", "nx"),
        ("Bash(nx exec:*)", "nx exec"),
        ("Bash(npx nx:*)", "nx"),
        ("Bash(pnpm nx *)", "nx"),
        ("Bash(poetry:*)", "poetry"),
        ("Bash(poetry run:*)", "poetry run"),
        ("Bash(poetry run python:*)", "python"),
        ("Bash(bundle:*)", "bundle"),
        ("Bash(bundler exec *)", "bundler exec"),
        ("Bash(bundle exec ruby:*)", "ruby"),
        ("Bash(tsx:*)", "tsx"),
        ("Bash(npx -y tsx:*)", "tsx"),
        ("Bash(ts-node *)", "ts-node"),
        ("Bash(kotlin:*)", "kotlin"),
        ("Bash(scala *)", "scala"),
        ("Bash(groovy:*)", "groovy"),
        ("Bash(Rscript:*)", "Rscript"),
        ("Bash(lua *)", "lua"),
        ("Bash(time:*)", "time"),
        ("Bash(xvfb-run:*)", "xvfb-run"),
        ("Bash(xvfb-run -a node:*)", "node"),
        ("Bash(stdbuf *)", "stdbuf"),
        ("Bash(script:*)", "script"),
        ("Bash(nohup *)", "nohup"),
        ("Bash(tmux:*)", "tmux"),
        ("Bash(screen *)", "screen"),
        ("Bash(make:*)", "make"),
        ("Bash(just *)", "just"),
        ("Bash(rake:*)", "rake"),
        ("Bash(ssh:*)", "ssh"),
        ("Bash(rsync *)", "rsync"),
        ("Bash(mvn:*)", "mvn"),
    ],
)
def test_programs_that_run_anything_are_high(rule: str, program: str) -> None:
    found = _allow("Read", rule)
    assert len(found) == 1
    severity, message = found[0]
    assert severity == "high"
    assert f"approves {program} with any argument" in message


@pytest.mark.parametrize(
    "rule",
    [
        "Bash(nx build:*)",
        "Bash(npx nx build:*)",
        "Bash(nx show projects)",
        "Bash(poetry install:*)",
        "Bash(poetry add *)",
        "Bash(bundle install:*)",
        "Bash(make test:*)",
        "Bash(make build)",
        "Bash(just test)",
        "Bash(kubectl get:*)",
        "Bash(kubectl logs *)",
        "Bash(ssh-keygen -l:*)",
        "Bash(timeout 30 docker logs:*)",
        "Bash(command -v:*)",
        "Bash(tsc:*)",
        "Bash(tasklist:*)",
        "Bash(./run.sh:*)",
        "Bash(scripts/my-script.sh:*)",
        "Bash(~/.claude/skills/meeting/append.sh -t * -e *)",
    ],
)
def test_narrow_rules_of_those_programs_stay_quiet(rule: str) -> None:
    assert _allow(rule) == []


@pytest.mark.parametrize(
    ("rule", "program"),
    [("Bash(pnpm exec:*)", "pnpm exec"), ("Bash(yarn node *)", "yarn node"), ("Bash(pnpm exec tsx:*)", "tsx")],
)
def test_a_launcher_keeps_its_own_row(rule: str, program: str) -> None:
    ((severity, message),) = _allow(rule)
    assert severity == "high" and f"approves {program} with any argument" in message


def test_kubectl_runs_in_the_cluster_medium() -> None:
    for rule in ("Bash(kubectl:*)", "Bash(kubectl exec:*)", "Bash(oc exec *)"):
        ((severity, message),) = _allow(rule)
        assert severity == "medium" and "cluster" in message


@pytest.mark.parametrize("rule", ["Bash(task:*)", "Bash(nx run-many:*)", "Bash(nx affected *)", "Bash(gradle:*)"])
def test_task_runners_that_need_a_file_written(rule: str) -> None:
    ((severity, message),) = _allow(rule)
    assert severity == "low" and "task file" in message
    assert _allow(rule, "Edit")[0][0] == "medium"
    assert _allow(rule, "Write(**)")[0][0] == "medium"
    assert _allow(rule, mode="acceptEdits")[0][0] == "medium"
    assert [s for s, _ in _allow(rule, "Bash(*)")] == ["medium", "high"]
    assert _allow(rule, "Edit(docs/**)")[0][0] == "low"  # cannot reach the task file at the top


@pytest.mark.parametrize(
    ("rule", "folder"),
    [
        ("Bash(./*)", "./"),
        ("Bash(./:*)", "./"),
        ("Bash(bin/*)", "bin/"),
        ("Bash(bin/:*)", "bin/"),
        ("Bash(./scripts/*.sh)", "./scripts/"),
        ("Bash(scripts/* *)", "scripts/"),
        ("Bash(~/bin/*)", "~/bin/"),
        ("Bash(${CLAUDE_SKILL_DIR}/scripts/*)", "${CLAUDE_SKILL_DIR}/scripts/"),
    ],
)
def test_any_program_of_a_folder(rule: str, folder: str) -> None:
    ((severity, message),) = _allow(rule)
    assert severity == "low" and f"any program in {folder}" in message
    assert _allow(rule, "Edit")[0][0] == "medium"


def test_a_folder_rule_graded_by_the_edits_that_reach_it() -> None:
    assert _allow("Bash(./scripts/*.sh)", "Edit(scripts/**)")[0][0] == "medium"
    assert _allow("Bash(./scripts/*.sh)", "Edit(docs/**)")[0][0] == "low"


def test_a_system_bin_folder_holds_the_shells() -> None:
    for rule in ("Bash(/usr/bin/*)", "Bash(/bin/:*)", "Bash(/usr/local/bin/*)"):
        assert _allow(rule)[0][0] == "high"


def test_front_matter_reads_the_same_table_one_step_lower() -> None:
    text = "---\nname: x\nallowed-tools: Bash(nx:*), Read\n---\nbody\n"
    ((finding,),) = [[f for f in lint_text(".claude/skills/x/SKILL.md", text) if f.rule == "AA004"]]
    assert finding.severity == "medium" and "nx" in finding.message
    text = "---\nname: x\nallowed-tools: Bash(${CLAUDE_SKILL_DIR}/scripts/*), Read\n---\nbody\n"
    (finding,) = [f for f in lint_text(".claude/skills/x/SKILL.md", text) if f.rule == "AA004"]
    assert finding.severity == "info"
    text = "---\nname: x\nallowed-tools: Bash(./tools/*), Write\n---\nbody\n"
    (finding,) = [f for f in lint_text(".claude/skills/x/SKILL.md", text) if f.rule == "AA004"]
    assert finding.severity == "low"


CURSOR = (
    '{"version": 1, "hooks": {\n'
    ' "beforeShellExecution": [{"command": "./hooks/guard.sh"}],\n'
    ' "afterFileEdit": [{"command": "npx prettier --write", "timeout": 5}, {"type": "prompt", "prompt": "ok?"}],\n'
    ' "stop": []}}'
)


@pytest.mark.parametrize(
    "path", [".cursor/hooks.json", "app/.cursor/hooks.json", "cursor/hooks.json", "hooks/hooks.json"]
)
def test_cursor_hooks_each_run_a_command(path: str) -> None:
    findings = [f for f in lint_text(path, CURSOR) if f.rule == "AA001"]
    assert [(f.line, f.severity) for f in findings] == [(2, "high"), (3, "high")]
    assert findings[0].message.startswith(
        "Cursor's beforeShellExecution hook runs a command by itself: ./hooks/guard.sh"
    )
    assert "afterFileEdit" in findings[1].message


def test_cursor_hooks_look_alikes() -> None:
    assert [f for f in lint_text(".cursor/hooks.json", '{"version": 1, "hooks": {}}') if f.rule == "AA001"] == []
    prompt_only = '{"version": 1, "hooks": {"stop": [{"type": "prompt", "prompt": "done?"}]}}'
    assert [f for f in lint_text(".cursor/hooks.json", prompt_only) if f.rule == "AA001"] == []
    # an application's own hooks.json, whose events are no agent's
    app = '{"hooks": {"onSave": [{"command": "make"}], "sessionStart": [{"command": "x"}]}}'
    assert [f for f in lint_text("config/hooks.json", app) if f.rule == "AA001"] == []
    # a Claude Code plugin's hooks file is still read in Claude's shape, once
    claude = '{"hooks": {"PostToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "fmt"}]}]}}'
    found = [f.message for f in lint_text("hooks/hooks.json", claude) if f.rule == "AA001"]
    assert len(found) == 1 and found[0].startswith("plugin's PostToolUse hook")
    # bad input never tracebacks
    broken = [f.rule for f in lint_text(".cursor/hooks.json", '{"version": 1, "hooks": {"stop": [{"command": ')]
    assert "AA001" not in broken


def _plugins(settings: dict[str, object]) -> list[tuple[int, str, str]]:
    findings = lint_text(CLAUDE, json.dumps(settings, indent=1))
    return [(f.line, f.severity, f.message) for f in findings if f.rule == "AA016"]


def _market(source: dict[str, str], *enabled: str) -> dict[str, object]:
    return {"extraKnownMarketplaces": {"team": {"source": source}}, "enabledPlugins": dict.fromkeys(enabled, True)}


def test_a_plugin_of_an_unpinned_github_marketplace() -> None:
    settings = _market({"source": "github", "repo": "acme/plugins"}, "fmt@team", "deploy@team", "a@other")
    ((line, severity, message),) = _plugins(settings)
    assert severity == "medium" and "fmt and deploy" in message and "default branch of acme/plugins" in message
    assert line == 11  # the first plugin it turns on


@pytest.mark.parametrize(
    "source",
    [
        {"source": "github", "repo": "acme/plugins", "ref": "main"},
        {"source": "git", "url": "https://git.example.com/team/plugins.git"},
        {"source": "git", "url": "https://git.example.com/team/plugins.git", "ref": "develop"},
    ],
)
def test_other_unpinned_sources(source: dict[str, str]) -> None:
    assert [s for _, s, _ in _plugins(_market(source, "fmt@team"))] == ["medium"]


def test_a_url_marketplace_cannot_be_pinned_low() -> None:
    found = _plugins(_market({"source": "url", "url": "https://example.com/marketplace.json"}, "fmt@team"))
    assert [s for _, s, _ in found] == ["low"] and "'team'" in found[0][2]


@pytest.mark.parametrize(
    "settings",
    [
        _market({"source": "github", "repo": "acme/plugins", "ref": "v1.2.0"}, "fmt@team"),
        _market(
            {
                "source": "git",
                "url": "https://git.example.com/p.git",
                "ref": "0123456789abcdef0123456789abcdef01234567",
            },
            "fmt@team",
        ),
        _market({"source": "directory", "path": "./plugins"}, "fmt@team"),
        _market({"source": "github", "repo": "anthropics/claude-plugins-official"}, "fmt@team"),
        {"enabledPlugins": {"frontend-design@claude-plugins-official": True, "x@somewhere": True}},
        {**_market({"source": "github", "repo": "acme/plugins"}), "enabledPlugins": {"fmt@team": False}},
        {"extraKnownMarketplaces": {"team": {"source": {"source": "github", "repo": "acme/plugins"}}}},
        {"extraKnownMarketplaces": "team", "enabledPlugins": ["fmt@team"]},
    ],
)
def test_plugin_look_alikes(settings: dict[str, object]) -> None:
    assert _plugins(settings) == []
