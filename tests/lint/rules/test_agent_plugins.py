"""Claude Code plugins (issue 33, the eighth set's misses): a plugin's manifest
(`.claude-plugin/plugin.json`), a marketplace's entries and a plugin's hooks file declare hooks
that run commands by themselves, and MCP servers that Claude Code starts, as settings do."""

from __future__ import annotations

import json

import pytest

from tests.lint.helpers import at, lint_files, lint_text

_GROUPS = {"PostToolUse": [{"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "bash fmt.sh"}]}]}


def _json(data: object) -> str:
    return json.dumps(data, indent=2)


@pytest.mark.parametrize(
    ("path", "data"),
    [
        # the default hooks file at the plugin's root, with and without the "hooks" wrapper
        ("plugins/fmt/hooks/hooks.json", {"description": "format on write", "hooks": _GROUPS}),
        ("hooks/hooks.json", _GROUPS),
        # hooks written inline in the manifest, events directly or wrapped
        (".claude-plugin/plugin.json", {"name": "fmt", "hooks": _GROUPS}),
        ("p/.claude-plugin/plugin.json", {"name": "fmt", "hooks": {"hooks": _GROUPS}}),
        # a hooks file the manifest names elsewhere ("hooks": "./config/hooks.json"), by content
        ("p/config/hooks.json", {"hooks": _GROUPS}),
        (".claude-plugin/hooks.json", _GROUPS),
        # a marketplace entry that carries the plugin's components
        (
            ".claude-plugin/marketplace.json",
            {"name": "m", "plugins": [{"name": "fmt", "source": "./", "hooks": _GROUPS}]},
        ),
    ],
)
def test_plugin_hooks_are_read(path: str, data: object) -> None:
    findings = lint_text(path, _json(data))
    hits = [f for f in findings if f.rule == "AA001"]
    assert len(hits) == 1, findings
    assert hits[0].severity == "high"
    assert "plugin's PostToolUse hook" in hits[0].message and "bash fmt.sh" in hits[0].message


def test_plugin_hook_position() -> None:
    text = '{"name": "p",\n "hooks": {"SessionStart": [{"hooks": [\n  {"type": "command", "command": "./boot.sh"}]}]}}'
    assert at(lint_text(".claude-plugin/plugin.json", text), "AA001") == [(3, 34)]


@pytest.mark.parametrize(
    ("path", "data"),
    [
        # a manifest with no hooks, or hooks only by path (read in the file it names)
        (".claude-plugin/plugin.json", {"name": "p", "keywords": ["hooks"], "commands": "./commands"}),
        (".claude-plugin/plugin.json", {"name": "p", "hooks": "./config/hooks.json"}),
        (".claude-plugin/plugin.json", {"name": "p", "hooks": ["./a.json", "./b.json"]}),
        # prompt hooks run no command
        ("hooks/hooks.json", {"hooks": {"Stop": [{"hooks": [{"type": "prompt", "prompt": "check the tests"}]}]}}),
        # a hooks.json of another tool: no hook event of Claude Code's
        ("config/hooks.json", {"hooks": {"onSave": [{"hooks": [{"type": "command", "command": "x"}]}]}}),
        ("webhooks/hooks.json", {"push": {"url": "https://hooks.example.com/x", "command": "deploy"}}),
        # Claude's hook shape in a file of another name
        ("config/plugin-hooks.json", {"hooks": _GROUPS}),
    ],
)
def test_plugin_look_alikes(path: str, data: object) -> None:
    assert at(lint_text(path, _json(data)), "AA001") == []


def test_plugin_mcp_servers_are_read() -> None:
    """A plugin's servers, inline in its manifest or in its .mcp.json, which may name them at its
    top with no `mcpServers` around them."""
    files = {
        "p/.claude-plugin/plugin.json": _json(
            {"name": "p", "mcpServers": {"api": {"command": "npx", "args": ["-y", "api-mcp"]}}}
        ),
        "p/.mcp.json": _json({"db": {"command": "npx", "args": ["db-mcp"]}}),
        "q/.mcp.json": _json({"mcpServers": {"db": {"command": "npx", "args": ["db-mcp@1.2.3"]}}}),
    }
    found = sorted((f.path, f.rule) for f in lint_files(files) if f.rule == "AM001")
    assert found == [("p/.claude-plugin/plugin.json", "AM001"), ("p/.mcp.json", "AM001")]


def test_a_flat_mcp_json_reads_only_servers() -> None:
    data = {"name": {"x": 1}, "db": {"command": "npx", "args": ["db-mcp"]}, "version": "1"}
    assert at(lint_text(".mcp.json", _json(data)), "AM001") == [(8, 7)]  # at the package, as in an mcpServers table
