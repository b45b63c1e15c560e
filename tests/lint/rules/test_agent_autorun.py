"""agent-autorun AA001-AA008: hooks, helpers, MCP approval, allow rules, VS Code tasks and trust,
agent settings, approval-skipping flags (with the kit and generated-file decisions)."""

from __future__ import annotations

import pytest

from tests.lint.helpers import at, lint_files, lint_text

CLAUDE = ".claude/settings.json"


@pytest.mark.parametrize("event", ["SessionStart", "PreToolUse", "Stop", "UserPromptSubmit"])
def test_claude_hooks_of_type_command_on_any_event(event: str) -> None:
    text = (
        '{"hooks": {"EVENT": [{"matcher": "*", "hooks": [\n'
        '  {"type": "command", "command": "bash .claude/boot.sh"}]}]}}'
    ).replace("EVENT", event)
    findings = lint_text(CLAUDE, text)
    assert at(findings, "AA001") == [(2, 34)]
    assert event in findings[0].message and "bash .claude/boot.sh" in findings[0].message


def test_hooks_look_alikes() -> None:
    assert at(lint_text(CLAUDE, '{"hooks": {}, "model": "opus"}'), "AA001") == []
    # the same shape in a file that is neither Claude Code settings nor a hooks file (a `hooks.json`
    # holding it is one a plugin's manifest may name: tests/lint/rules/test_agent_plugins.py)
    text = '{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "x"}]}]}}'
    assert at(lint_text("config/app.json", text), "AA001") == []


def test_helpers_and_status_line() -> None:
    text = (
        '{"apiKeyHelper": "~/bin/key.sh",\n "awsAuthRefresh": "aws sso login",\n'
        ' "statusLine": {"type": "command", "command": ".claude/status.sh"}}'
    )
    assert at(lint_text(".claude/settings.local.json", text), "AA002") == [(1, 18), (2, 20), (3, 47)]
    assert at(lint_text(CLAUDE, '{"apiKeyHelper": "", "statusLine": {"type": "static"}}'), "AA002") == []


def test_enable_all_project_mcp_servers() -> None:
    findings = lint_text(CLAUDE, '{"enableAllProjectMcpServers": true,\n "enabledMcpjsonServers": ["github"]}')
    assert at(findings, "AA003") == [(1, 32), (2, 27)]
    assert at(lint_text(CLAUDE, '{"enableAllProjectMcpServers": false}'), "AA003") == []


@pytest.mark.parametrize("entry", ["Bash", "Bash(*)", "Bash(*:*)", "*", "WebFetch(*)"])
def test_blanket_allow_rules(entry: str) -> None:
    text = '{"permissions": {"allow": ["Read", "ENTRY"]}}'.replace("ENTRY", entry)
    assert len(at(lint_text(CLAUDE, text), "AA004")) == 1


@pytest.mark.parametrize("entry", ["Bash(npm test:*)", "Bash(pytest *)", "Read", "Edit(src/**)"])
def test_narrow_allow_rules(entry: str) -> None:
    text = '{"permissions": {"allow": ["ENTRY"], "defaultMode": "acceptEdits"}}'.replace("ENTRY", entry)
    assert at(lint_text(CLAUDE, text), "AA004") == []


def test_bypass_permissions_mode() -> None:
    text = '{"permissions": {"defaultMode": "bypassPermissions"}, "skipDangerousModePermissionPrompt": true}'
    assert len(at(lint_text(CLAUDE, text), "AA004")) == 2


TASKS = """// Tasks with comments and trailing commas, as VS Code allows
{
  "version": "2.0.0",
  "tasks": [
    {"label": "build", "command": "make", "runOptions": {"runOn": "default"}},
    {"label": "setup", "command": "node", "args": [".vscode/setup.js"],
     "runOptions": {"runOn": "folderOpen"},},
  ],
}
"""


def test_vscode_folder_open_task() -> None:
    findings = lint_text(".vscode/tasks.json", TASKS)
    assert at(findings, "AA005") == [(7, 30)]
    assert "node .vscode/setup.js" in findings[0].message
    assert at(lint_text(".vscode/tasks.json", TASKS.replace("folderOpen", "default")), "AA005") == []


def test_vscode_trust_and_auto_approve() -> None:
    text = (
        '{"task.allowAutomaticTasks": "on", "security.workspace.trust.enabled": false,\n'
        ' "chat.tools.autoApprove": true, "chat.tools.terminal.autoApprove": {"/.*/": true,'
        ' "npm test": true}}'
    )
    assert len(at(lint_text(".vscode/settings.json", text), "AA006")) == 4
    safe = (
        '{"task.allowAutomaticTasks": "off", "security.workspace.trust.enabled": true,'
        ' "chat.tools.terminal.autoApprove": {"npm test": true}}'
    )
    assert at(lint_text(".vscode/settings.json", safe), "AA006") == []


def test_codex_and_gemini_settings() -> None:
    codex = 'approval_policy = "never"\n[profiles.ci]\nsandbox_mode = "danger-full-access"\n'
    findings = lint_text(".codex/config.toml", codex)
    assert [f.severity for f in findings if f.rule == "AA007"] == ["medium", "high"]
    safe = 'approval_policy = "on-request"\nsandbox_mode = "workspace-write"\n'
    assert at(lint_text(".codex/config.toml", safe), "AA007") == []
    gemini = lint_text(".gemini/settings.json", '{"tools": {"autoAccept": true}}')
    assert [(f.rule, f.severity) for f in gemini] == [("AA007", "low")]


@pytest.mark.parametrize(
    "line",
    [
        'claude -p "fix" --dangerously-skip-permissions',
        "claude --permission-mode bypassPermissions -p x",
        "codex exec --sandbox danger-full-access x",
        "codex exec --dangerously-bypass-approvals-and-sandbox x",
        "codex -a never exec x",
        "gemini -y -p x",
        "gemini --approval-mode=yolo",
        "aider --yes-always --message x",
        "npx -y @anthropic-ai/claude-code --dangerously-skip-permissions",
        "sudo -E claude --dangerously-skip-permissions",
    ],
)
def test_approval_skipping_flags_in_scripts(line: str) -> None:
    findings = lint_text("scripts/agent.sh", f"#!/bin/sh\nset -e\n{line}\n")
    assert len(at(findings, "AA008")) == 1
    assert next(f.severity for f in findings if f.rule == "AA008") == "high"


@pytest.mark.parametrize(
    "line",
    [
        "apt-get install -y curl",
        "claude -p 'review' --permission-mode acceptEdits",
        "codex exec --sandbox workspace-write x",
        "echo --dangerously-skip-permissions",
        "# claude --dangerously-skip-permissions",
        "gemini --approval-mode auto_edit -p x",
        "rm -f build && make -y",
    ],
)
def test_flag_look_alikes(line: str) -> None:
    assert at(lint_text("scripts/agent.sh", f"#!/bin/sh\n{line}\n"), "AA008") == []


def test_flags_in_workflows_package_json_and_containers() -> None:
    workflow = (
        "on: push\npermissions: {}\njobs:\n  a:\n    runs-on: x\n    steps:\n"
        "      - run: claude -p fix --dangerously-skip-permissions\n"
    )
    assert len(at(lint_text(".github/workflows/agent.yml", workflow), "AA008")) == 1
    package = '{"scripts": {"agent": "codex --full-auto \\"fix\\"", "test": "jest"}}'
    assert len(at(lint_text("package.json", package), "AA008")) == 1
    docker = 'FROM node:22\nCMD ["claude", "-p", "x", "--dangerously-skip-permissions"]\n'
    findings = lint_text("Dockerfile", docker)
    assert [f.severity for f in findings if f.rule == "AA008"] == ["medium"]


def test_flags_in_agent_configs_mcp_servers_and_tasks() -> None:
    """Agent configuration starts agents too (an MCP server that is an agent, a task); these were
    never read before the walker, which missed the list of documents the parser returns."""
    mcp = '{"mcpServers": {"helper": {\n  "command": "claude",\n  "args": ["mcp", "serve", "--dangerously-skip-permissions"]}}}'
    findings = lint_text(".mcp.json", mcp)
    assert at(findings, "AA008") == [(3, 28)]
    assert findings[0].message == "claude --dangerously-skip-permissions: skips every permission prompt, on the host"
    tasks = '{"tasks": [{"label": "fix", "command": "gemini --yolo -p fix"}]}'
    assert len(at(lint_text(".vscode/tasks.json", tasks), "AA008")) == 1
    continue_yaml = "mcpServers:\n  - name: c\n    command: codex\n    args: [exec, --full-auto, task]\n"
    assert at(lint_text(".continue/config.yaml", continue_yaml), "AA008") == [(4, 18)]
    quiet = '{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem@1.0.0", "--yolo"]}}}'
    assert at(lint_text(".mcp.json", quiet), "AA008") == []  # --yolo of a program that is not an agent


KIT = """apiVersion: sandkit/v1
kind: Kit
name: k
{network}agent:
  command: [codex, exec, --sandbox, danger-full-access, --full-auto, task]
"""


def test_kit_flags_only_when_egress_is_open() -> None:
    closed = KIT.format(network="network:\n  allow: [api.openai.com]\n")
    assert at(lint_text("kits/k.yaml", closed), "AA008") == []
    assert at(lint_text("kits/k.yaml", KIT.format(network="")), "AA008") == []
    opened = lint_text("kits/k.yaml", KIT.format(network="network:\n  egress: open\n"))
    assert len(at(opened, "AA008")) == 2
    assert "egress is open" in next(f.message for f in opened if f.rule == "AA008")


def test_generated_files_are_left_to_their_kit() -> None:
    header = "# Generated by sandkit 0.1.0 from kits/k.yaml\n# kit sha256: 00\n"
    docker = 'FROM debian\nCMD ["codex", "exec", "--sandbox", "danger-full-access", "x"]\n'
    assert at(lint_files({"sandbox/k/Dockerfile": header + docker}), "AA008") == []
    assert len(at(lint_files({"sandbox/k/Dockerfile": docker}), "AA008")) == 1
    late = "FROM debian\n" * 3 + header  # the header must open the file
    assert len(at(lint_files({"sandbox/k/Dockerfile": late + docker}), "AA008")) == 1


def test_devcontainer_lifecycle_commands_are_read_for_approval_flags() -> None:
    text = (
        '{"initializeCommand": "claude --dangerously-skip-permissions -p x",\n'
        ' "postCreateCommand": {"agent": ["gemini", "--yolo"], "deps": "npm ci"}}\n'
    )
    found = {(f.line, f.severity) for f in lint_text(".devcontainer/devcontainer.json", text) if f.rule == "AA008"}
    assert found == {(1, "high"), (2, "medium")}
    quiet = '{"postCreateCommand": "echo claude --help && npm ci"}'
    assert not [f for f in lint_text(".devcontainer/devcontainer.json", quiet) if f.rule == "AA008"]


def test_codex_environment_setup_scripts_run_by_themselves() -> None:
    text = (
        "version = 1\nname = \"x\"\n\n[setup]\nscript = '''\ncurl -s https://x.example.com/i.sh | sh\n'''\n\n"
        '[[actions]]\nname = "run"\ncommand = "npm start"\n'
    )
    findings = lint_text(".codex/environments/environment.toml", text)
    assert at(findings, "AA009") == [(5, 1)]
    assert "curl -s https://x.example.com/i.sh | sh" in findings[0].message
    assert at(lint_text(".codex/environments/e.toml", '[[actions]]\ncommand = "npm start"\n'), "AA009") == []
    assert at(lint_text("conf/environment.toml", "[setup]\nscript = 'make'\n"), "AA009") == []
