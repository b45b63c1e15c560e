"""What a Claude Code skill's, command's or subagent's front matter grants (issue 33, the eighth
set's misses): `allowed-tools` approves tools without asking while it runs, read with the settings'
table of programs that run anything one step lower (AA004); a subagent's `permissionMode`; and
`hooks` scoped to the skill (AA001, medium)."""

from __future__ import annotations

import pytest

from tests.lint.helpers import at, lint_files, lint_text


def _skill(front: str, body: str = "Do the thing.\n") -> str:
    return f"---\nname: x\ndescription: does x\n{front}---\n{body}"


@pytest.mark.parametrize(
    ("path", "front", "entry", "severity"),
    [
        # a comma-separated string, a space-separated one, a block list, a flow list
        (".claude/skills/x/SKILL.md", "allowed-tools: Read, Bash(uv run:*), Grep\n", "Bash(uv run:*)", "medium"),
        ("skills/x/SKILL.md", "allowed-tools: Read Bash(npm *) Grep\n", "Bash(npm *)", "medium"),
        ("plugins/p/skills/x/SKILL.md", "allowed-tools:\n  - Read\n  - Bash\n", "Bash", "medium"),
        (".claude/commands/x.md", 'allowed-tools: ["Read", "Bash(python3:*)"]\n', "Bash(python3:*)", "medium"),
        (".claude/agents/x.md", "allowed-tools: Bash(*)\n", "Bash(*)", "medium"),
        # a plugin's command at the plugin's root, known by its front matter
        ("plugins/p/commands/audit.md", "allowed-tools: Read, Bash(git:*)\n", "Bash(git:*)", "medium"),
        (
            "commands/audit.md",
            "allowed-tools: Bash(bash:*)\n",
            "Bash(bash:*)",
            "medium",
        ),  # the plugin is the repository
        # docker exec is medium in settings, so low here
        ("skills/x/SKILL.md", "allowed-tools: Bash(docker exec:*)\n", "Bash(docker exec:*)", "low"),
    ],
)
def test_allowed_tools_that_run_anything(path: str, front: str, entry: str, severity: str) -> None:
    hits = [f for f in lint_text(path, _skill(front)) if f.rule == "AA004"]
    assert len(hits) == 1, hits
    assert repr(entry) in hits[0].message and hits[0].severity == severity
    assert "only while the" in hits[0].message


def test_allowed_tools_positions() -> None:
    text = _skill("allowed-tools: Read, Bash(git add:*), Bash(node:*)\n")
    assert at(lint_text("skills/x/SKILL.md", text), "AA004") == [(4, 39)]
    text = _skill("allowed-tools:\n  - Read\n  - 'Bash(bash:*)'\n")
    assert at(lint_text("skills/x/SKILL.md", text), "AA004") == [(6, 6)]  # inside the quotes, at the rule


def test_front_matter_that_is_not_yaml_is_read_by_its_lines() -> None:
    """An unquoted colon in a description breaks YAML; `allowed-tools` is still read."""
    text = "---\nname: x\ndescription: Use when: the user asks\nallowed-tools: Read, Bash(npx:*)\n---\n"
    assert at(lint_text(".claude/skills/x/SKILL.md", text), "AA004") == [(4, 22)]
    text = "---\ndescription: a: b\nallowed-tools:\n  - Bash\n---\n"
    assert at(lint_text(".claude/commands/x.md", text), "AA004") == [(4, 5)]


@pytest.mark.parametrize(
    ("path", "text"),
    [
        # tools that run no command, and narrow command rules
        ("skills/x/SKILL.md", _skill("allowed-tools: Read, Grep, Glob\n")),
        ("skills/x/SKILL.md", _skill("allowed-tools: Bash(git add:*), Bash(git status:*), Bash(npm test:*)\n")),
        (".claude/commands/x.md", _skill("allowed-tools: [Read, Write, Edit]\n")),
        # the words in the body, not in front matter
        ("skills/x/SKILL.md", "# x\n\nallowed-tools: Bash\n"),
        ("skills/x/SKILL.md", _skill("", "allowed-tools: Bash\n")),
        # a subagent's `tools` limits what it may use; prompts still hold
        (".claude/agents/x.md", _skill("tools: Bash, Read\n")),
        # Markdown no agent loads as a skill, command or subagent
        ("docs/guide.md", _skill("allowed-tools: Bash\n")),
        (".claude/skills/x/reference.md", _skill("allowed-tools: Bash\n")),
        ("CLAUDE.md", _skill("allowed-tools: Bash\n")),
        # a page in a commands/ folder with no command's front matter stays prose
        ("site/commands/index.md", "---\ntitle: Commands\n---\nallowed-tools: Bash\n"),
    ],
)
def test_allowed_tools_look_alikes(path: str, text: str) -> None:
    assert at(lint_text(path, text), "AA004") == []


def test_subagent_permission_mode() -> None:
    text = _skill("permissionMode: bypassPermissions\n")
    hits = [f for f in lint_text(".claude/agents/x.md", text) if f.rule == "AA004"]
    assert [(f.line, f.column, f.severity) for f in hits] == [(4, 17, "medium")]
    assert "subagent's permissionMode bypassPermissions" in hits[0].message
    assert at(lint_text(".claude/agents/x.md", _skill("permissionMode: plan\n")), "AA004") == []
    # Claude Code ignores permissionMode in a plugin's subagent
    assert (
        at(lint_text("plugins/p/agents/x.md", _skill("tools: Bash\npermissionMode: bypassPermissions\n")), "AA004")
        == []
    )


_HOOKS = """hooks:
  PreToolUse:
    - matcher: Bash
      hooks:
        - type: command
          command: ./scripts/guard.sh
          once: true
"""


@pytest.mark.parametrize(
    "path", ["skills/x/SKILL.md", ".claude/skills/x/SKILL.md", ".claude/agents/x.md", ".claude/commands/x.md"]
)
def test_front_matter_hooks(path: str) -> None:
    hits = [f for f in lint_text(path, _skill(_HOOKS)) if f.rule == "AA001"]
    assert [(f.line, f.column, f.severity) for f in hits] == [(9, 20, "medium")]
    assert "PreToolUse hook runs a command by itself: ./scripts/guard.sh" in hits[0].message


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("plugins/p/agents/x.md", _skill("tools: Read\n" + _HOOKS)),  # ignored in a plugin's subagent
        (
            "skills/x/SKILL.md",
            _skill("hooks:\n  Stop:\n    - hooks:\n        - type: prompt\n          prompt: check\n"),
        ),
        ("docs/hooks.md", _skill(_HOOKS)),
        ("skills/x/SKILL.md", _skill("", "```yaml\n" + _HOOKS + "```\n")),
    ],
)
def test_front_matter_hooks_look_alikes(path: str, text: str) -> None:
    assert at(lint_text(path, text), "AA001") == []


def test_a_plugin_command_is_read_as_instructions() -> None:
    """A plugin's `commands/x.md` with a command's front matter is instructions (AI rules read it);
    the same folder's README stays text."""
    files = {
        "plugins/p/commands/x.md": _skill("allowed-tools: Bash\n"),
        "plugins/p/commands/README.md": "# Commands\n\nallowed-tools: Bash\n",
    }
    found = sorted((f.path, f.rule) for f in lint_files(files) if f.rule.startswith("AA"))
    assert found == [("plugins/p/commands/x.md", "AA004")]


@pytest.mark.parametrize(
    "front",
    [
        "allowed-tools: 5\n",
        "allowed-tools: {Bash: yes}\n",
        "allowed-tools: [Bash, [x], 3, null]\n",
        "allowed-tools:\n",
        "allowed-tools: [Bash(\n",  # not YAML: read by lines
        "permissionMode: [bypassPermissions]\n",
        "hooks: [PreToolUse]\n",
        "hooks:\n  PreToolUse: {matcher: x}\n",
        "hooks:\n  PreToolUse:\n    - hooks: {type: command}\n",
        "&a [*a]\n",
    ],
)
def test_odd_front_matter_never_breaks(front: str) -> None:
    for path in ("skills/x/SKILL.md", ".claude/agents/x.md", "plugins/p/commands/x.md"):
        lint_text(path, _skill(front))  # the helper fails on a crash


def test_unclosed_front_matter_is_not_front_matter() -> None:
    assert at(lint_text("skills/x/SKILL.md", "---\nallowed-tools: Bash\n# no end\n"), "AA004") == []
