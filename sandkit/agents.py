"""The coding agents sandkit knows: one record per agent, read by the linter and checked against
the bundled presets.

A record says how an agent is started (command names, packages), which flags turn its approval
prompts or its own sandbox off, which files it reads as instructions and obeys as settings, where
it keeps MCP servers, which credential files it leaves in a home folder, and, for an agent with a
bundled preset, the API hosts and key variables it needs. The linter's file kinds
(:mod:`sandkit.lint.kinds`), its agent command lines, MCP server reader, container and host-path
facts are built from these records; ``tests/test_agents.py`` checks each preset against its record.
Adding an agent is one record here plus tests (CONTRIBUTING.md, "Add an agent").

Patterns are lower-case globs over a path relative to the scan root, and match below any folder
(``claude.md`` matches ``docs/CLAUDE.md``); ``*`` crosses folders. This module imports nothing
heavy: the linter loads it on every run, so the records are NamedTuples (a dataclass costs
``import inspect`` and generated code at import).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple


class ApprovalFlag(NamedTuple):
    """A command-line flag that turns an agent's approval prompts, or its own sandbox, off.

    With no ``values`` the flag does it by itself, and ``does`` says what it does; with
    ``values`` only those values do (value -> what it does). ``accepted`` lists every value the
    agent takes, safe ones included, so a preset's choice can be checked; ``aliases`` are other
    spellings of the same flag. ``sandboxed`` marks a flag that stops the prompts but keeps the
    agent's own sandbox (Codex's ``--full-auto``): less than one that leaves it.
    """

    flag: str
    does: str = ""
    values: Mapping[str, str] = {}
    aliases: tuple[str, ...] = ()
    accepted: tuple[str, ...] = ()
    sandboxed: bool = False

    @property
    def spellings(self) -> tuple[str, ...]:
        return (self.flag, *self.aliases)


class McpKeys(NamedTuple):
    """Where an agent's config keeps MCP servers: the table key, and keys inside one server."""

    tables: tuple[str, ...] = ("mcpServers",)
    url: tuple[str, ...] = ("url",)
    env: tuple[str, ...] = ("env",)


class AgentAction(NamedTuple):
    """A GitHub Action that runs the agent in a workflow job, and the inputs that decide how far it
    reaches. Input lists name inputs of the action's own ``action.yml``."""

    #: ``owner/name`` as written in ``uses:`` (lower-case), without a path or ``@ref``.
    uses: str
    #: The action itself refuses to run for someone without write access to the repository.
    checks_actor: bool = False
    #: Inputs that widen who may start it: a list of names, or ``*`` for anyone.
    actor_inputs: tuple[str, ...] = ()
    #: Inputs passed to the agent as command-line arguments.
    args_inputs: tuple[str, ...] = ()
    #: Inputs listing tools the agent may use without asking (comma- or newline-separated).
    tools_inputs: tuple[str, ...] = ()
    #: Inputs holding the agent's settings as JSON text.
    settings_inputs: tuple[str, ...] = ()
    #: Input -> {value: what it does} for values that turn the agent's sandbox off.
    unsafe_inputs: Mapping[str, Mapping[str, str]] = {}


class Agent(NamedTuple):
    """What sandkit knows about one coding agent (or an editor that hosts one)."""

    name: str
    #: The bundled preset (``sandkit/kits/presets/<preset>.yaml``) that runs it, if any.
    preset: str = ""
    #: Executables that start it, and the npm or PyPI packages that do (``npx <package>``).
    commands: tuple[str, ...] = ()
    packages: tuple[str, ...] = ()
    #: Commands that only count as the agent when more words follow (a bare ``q`` is too common).
    needs_arguments: tuple[str, ...] = ()
    #: Subcommands (the first word after the command that is not an option) that set the CLI up and
    #: run no agent: logging in or out, managing MCP servers, plugins or extensions, updating it. A
    #: subcommand followed by a word starts that word instead (``claude mcp serve``: Claude Code as an
    #: MCP server, a running agent), written ``"mcp !serve"``.
    setup_commands: tuple[str, ...] = ()
    approval_flags: tuple[ApprovalFlag, ...] = ()
    #: Short flags that approve every tool call for this agent only (``-y`` means other things elsewhere).
    yes_flags: tuple[str, ...] = ()
    #: Flags whose values are permission rules the agent approves without asking for that run, in the
    #: settings' allow-rule syntax (Claude Code's ``--allowedTools "Bash(git:*) Read"``).
    allow_flags: tuple[str, ...] = ()
    #: Prose it reads as its user's instructions, and configuration it obeys.
    instruction_files: tuple[str, ...] = ()
    config_files: tuple[str, ...] = ()
    #: Its own settings files among ``config_files`` (hooks, helpers, permissions).
    settings_files: tuple[str, ...] = ()
    mcp: McpKeys | None = None
    #: Credential files it writes in the home folder, as ``~/...``.
    credential_files: tuple[str, ...] = ()
    #: Regular-expression words that name it in an image, container name or command.
    image_words: tuple[str, ...] = ()
    #: GitHub Actions that run it in a workflow.
    actions: tuple[AgentAction, ...] = ()
    #: For a preset: the API hosts it must reach, and the variables that hold its API key.
    api_hosts: tuple[str, ...] = ()
    api_key_variables: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        """Every word that starts it on a command line: commands, then packages."""
        return (*self.commands, *self.packages)


_NEVER_ASKS = "approves every tool call"

CATALOGUE: tuple[Agent, ...] = (
    Agent(
        "Claude Code",
        preset="claude-code",
        commands=("claude",),
        packages=("@anthropic-ai/claude-code",),
        # Claude Code's CLI reference: `auth login|logout|status`, `setup-token` (prints a long-lived
        # token), `mcp add|list|get|remove|login|logout` (but `mcp serve` runs Claude Code as a server),
        # `plugin`, `doctor`, `update`, `install`, and the older `config get|set|list`.
        setup_commands=("auth", "setup-token", "mcp !serve", "plugin", "doctor", "update", "install", "config"),
        approval_flags=(
            ApprovalFlag("--dangerously-skip-permissions", "skips every permission prompt"),
            ApprovalFlag(
                "--permission-mode",
                values={"bypassPermissions": "bypasses permission checks"},
                accepted=("acceptEdits", "auto", "bypassPermissions", "manual", "dontAsk", "plan"),
            ),
        ),
        # Claude Code's CLI reference: the rules run without a prompt, comma- or space-separated,
        # one or more values; --disallowedTools refuses tools and is not listed.
        allow_flags=("--allowedTools", "--allowed-tools"),
        instruction_files=(
            "claude.md",
            "claude.local.md",
            "skill.md",
            ".claude/commands/*",
            ".claude/agents/*",
            ".claude/skills/*",
        ),
        # A plugin's manifest and marketplace (each may declare hooks and MCP servers inline) and its
        # hooks file, loaded with the plugin (code.claude.com/docs/en/plugins-reference)
        config_files=(
            ".claude/settings.json",
            ".claude/settings.local.json",
            ".claude.json",
            ".mcp.json",
            ".claude-plugin/plugin.json",
            ".claude-plugin/marketplace.json",
            "hooks/hooks.json",
        ),
        settings_files=(".claude/settings.json", ".claude/settings.local.json"),
        mcp=McpKeys(env=("env", "headers")),
        # .credentials.json holds the OAuth tokens on Linux; ~/.claude.json (beside the folder, not
        # in it) the account, an API key given at login and the user's MCP servers' environment
        credential_files=("~/.claude/.credentials.json", "~/.claude.json"),
        image_words=("claude(-code)?",),
        # Inputs from each action's action.yml: claude-code-action checks the actor's write access
        # unless allowed_non_write_users/allowed_bots widen it; the base action checks nothing.
        actions=(
            AgentAction(
                "anthropics/claude-code-action",
                checks_actor=True,
                actor_inputs=("allowed_non_write_users", "allowed_bots"),
                args_inputs=("claude_args",),
                tools_inputs=("allowed_tools",),
                settings_inputs=("settings",),
            ),
            AgentAction(
                "anthropics/claude-code-base-action",
                args_inputs=("claude_args",),
                tools_inputs=("allowed_tools",),
                settings_inputs=("settings",),
            ),
        ),
        api_hosts=("api.anthropic.com",),
        api_key_variables=("ANTHROPIC_API_KEY",),
    ),
    Agent("Claude Desktop", config_files=("claude_desktop_config.json",), mcp=McpKeys()),
    Agent(
        "Codex CLI",
        preset="codex",
        commands=("codex",),
        packages=("@openai/codex",),
        # Codex's CLI reference: `login` (`--with-api-key`, `--device-auth`, `status`), `logout`,
        # `mcp list|get|add|remove|login|logout` (not `mcp-server`, which serves Codex), `completion`.
        setup_commands=("login", "logout", "mcp", "completion"),
        approval_flags=(
            ApprovalFlag(
                "--dangerously-bypass-approvals-and-sandbox", "bypasses approvals and the sandbox", aliases=("--yolo",)
            ),
            ApprovalFlag("--full-auto", "runs commands without asking, inside its workspace sandbox", sandboxed=True),
            ApprovalFlag(
                "--sandbox",
                values={"danger-full-access": "turns the agent's sandbox off"},
                aliases=("-s",),
                accepted=("read-only", "workspace-write", "danger-full-access"),
            ),
            ApprovalFlag(
                "--ask-for-approval",
                values={"never": "never asks for approval"},
                aliases=("-a",),
                accepted=("untrusted", "on-failure", "on-request", "never"),
            ),
        ),
        instruction_files=("agents.md",),
        config_files=(".codex/config.toml", ".codex/environments/*.toml"),
        mcp=McpKeys(tables=("mcp_servers",), env=("env", "http_headers", "env_vars")),
        # `codex login` keeps its tokens in auth.json under CODEX_HOME (~/.codex by default)
        credential_files=("~/.codex/auth.json",),
        image_words=("codex",),
        # openai/codex-action's action.yml: it checks the actor's write access unless allow-users
        # widens it; sandbox and safety-strategy say how far Codex reaches on the runner.
        actions=(
            AgentAction(
                "openai/codex-action",
                checks_actor=True,
                actor_inputs=("allow-users",),
                args_inputs=("codex-args",),
                unsafe_inputs={
                    "sandbox": {"danger-full-access": "turns Codex's sandbox off"},
                    "safety-strategy": {
                        "unsafe": "leaves Codex the runner user's sudo, so it can read its API key from memory"
                    },
                },
            ),
        ),
        api_hosts=("api.openai.com",),
        api_key_variables=("CODEX_API_KEY", "OPENAI_API_KEY"),
    ),
    Agent(
        "Gemini CLI",
        preset="gemini-cli",
        commands=("gemini",),
        packages=("@google/gemini-cli",),
        # Gemini CLI's commands: `mcp add|remove|list` and `extensions install|list|update|...`.
        setup_commands=("mcp", "extensions"),
        approval_flags=(
            ApprovalFlag("--yolo", _NEVER_ASKS),
            ApprovalFlag(
                "--approval-mode", values={"yolo": _NEVER_ASKS}, accepted=("default", "auto_edit", "yolo", "plan")
            ),
        ),
        yes_flags=("-y",),
        # Gemini CLI's configuration reference: a comma-separated list of tools that bypass the
        # confirmation dialog (``run_shell_command`` or ``ShellTool``, with or without a command prefix).
        allow_flags=("--allowed-tools",),
        instruction_files=("gemini.md",),
        config_files=(".gemini/settings.json",),
        mcp=McpKeys(url=("url", "httpUrl")),
        # "Login with Google" caches its OAuth tokens in ~/.gemini/oauth_creds.json
        # and the .env it loads for the user, where GEMINI_API_KEY is kept
        credential_files=("~/.gemini/oauth_creds.json", "~/.gemini/.env"),
        image_words=("gemini(-cli)?",),
        # run-gemini-cli checks no actor: its own example workflows check author_association.
        actions=(AgentAction("google-github-actions/run-gemini-cli", settings_inputs=("settings",)),),
        api_hosts=("generativelanguage.googleapis.com",),
        api_key_variables=("GEMINI_API_KEY",),
    ),
    Agent("Gemini Code Assist", instruction_files=(".gemini/styleguide.md",)),
    Agent(
        "Aider",
        preset="aider",
        commands=("aider",),
        packages=("aider-chat",),
        approval_flags=(ApprovalFlag("--yes-always", "answers yes to every confirmation"),),
        instruction_files=("conventions.md",),
        config_files=(".aider.conf.yml",),
        image_words=("aider",),
        api_hosts=("api.anthropic.com", "api.openai.com", "generativelanguage.googleapis.com"),
        api_key_variables=("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "DEEPSEEK_API_KEY"),
    ),
    Agent(
        "OpenHands",
        preset="openhands",
        commands=("openhands",),
        packages=("openhands",),
        instruction_files=("agents.md",),
        image_words=("openhands", "opendevin"),
        api_hosts=("api.anthropic.com",),
        api_key_variables=("LLM_API_KEY",),
    ),
    Agent(
        "Cursor",
        commands=("cursor-agent",),
        yes_flags=("-f",),
        instruction_files=(".cursorrules", ".cursor/rules/*"),
        config_files=(".cursor/*.json",),
        mcp=McpKeys(),
        image_words=("cursor-agent",),
    ),
    Agent(
        "GitHub Copilot",
        commands=("copilot",),
        packages=("@github/copilot",),
        approval_flags=(ApprovalFlag("--allow-all-tools", "allows every tool without asking"),),
        instruction_files=(".github/copilot-instructions.md", "*.instructions.md", ".github/prompts/*.prompt.md"),
        image_words=("copilot",),
    ),
    Agent(
        "VS Code",
        config_files=(
            ".vscode/settings.json",
            ".vscode/tasks.json",
            ".vscode/mcp.json",
            ".vscode/launch.json",
            "*.code-workspace",
            "mcp.json",
        ),
        mcp=McpKeys(tables=("servers", "mcp"), env=("env", "headers")),
    ),
    Agent(
        "Windsurf",
        instruction_files=(".windsurfrules", ".windsurf/rules/*"),
        config_files=(".windsurf/mcp.json",),
        mcp=McpKeys(url=("serverUrl",)),
    ),
    Agent("Cline", commands=("cline",), instruction_files=(".clinerules", ".clinerules/*"), image_words=("cline",)),
    Agent("Roo Code", instruction_files=(".roo/*",), config_files=(".roo/mcp.json",), mcp=McpKeys()),
    Agent(
        "Continue",
        instruction_files=(".continue/*",),
        config_files=(".continue/config.json", ".continue/config.yaml", ".continue/mcpservers/*"),
        mcp=McpKeys(),
    ),
    Agent(
        "Kiro",
        commands=("kiro", "kiro-cli"),
        approval_flags=(ApprovalFlag("--trust-all-tools", "trusts every tool"),),
        instruction_files=(".kiro/steering/*",),
        config_files=(".kiro/settings/mcp.json",),
        mcp=McpKeys(),
    ),
    Agent(
        "Amazon Q Developer",
        commands=("q",),
        needs_arguments=("q",),
        approval_flags=(ApprovalFlag("--trust-all-tools", "trusts every tool"),),
        instruction_files=(".amazonq/rules/*",),
        config_files=(".amazonq/mcp.json",),
        mcp=McpKeys(),
    ),
    Agent("Junie", instruction_files=(".junie/guidelines.md",)),
    Agent("Goose", commands=("goose",), image_words=("goose",)),
    Agent(
        "opencode",
        commands=("opencode",),
        packages=("opencode-ai",),
        config_files=("opencode.json",),
        mcp=McpKeys(tables=("mcp",), env=("environment",)),
        credential_files=("~/.local/share/opencode/auth.json",),
        image_words=("opencode",),
    ),
    Agent(
        "Amp",
        commands=("amp",),
        packages=("@sourcegraph/amp",),
        approval_flags=(ApprovalFlag("--dangerously-allow-all", "allows everything"),),
        instruction_files=("agent.md", "agents.md"),
    ),
    Agent(
        "Qwen Code",
        commands=("qwen",),
        approval_flags=(ApprovalFlag("--yolo", _NEVER_ASKS),),
        yes_flags=("-y",),
        credential_files=("~/.qwen/oauth_creds.json",),
    ),
    # pi (badlogic/pi-mono, packages/coding-agent). Its README ("Security (YOLO by default)"): no
    # permission prompts for file operations or commands, so no flag turns approval off; it does
    # not support MCP. Its coding-agent/docs/settings.md: project settings are `.pi/settings.json`,
    # and trusting the project loads them and the `.pi` resources, installs the project's packages
    # and runs its extensions; the non-interactive modes (`-p`, `--mode`) prompt for no trust, and
    # `--approve`/`-a` trusts the project for one run. The README: `AGENTS.md`/`CLAUDE.md` are its
    # context files, `.pi/commands/*.md` its project slash commands, `~/.pi/agent/oauth.json` its
    # OAuth tokens; coding-agent/docs/authentication.md: `~/.pi/agent/auth.json` holds API keys and
    # OAuth tokens; coding-agent/docs/extensions.md imports the package as
    # `@earendil-works/pi-coding-agent`, the README installs `@mariozechner/pi-coding-agent`. `pi`
    # alone is a common word: it counts as the agent only with arguments. `-a` (the short
    # `--approve`) is Codex's `--ask-for-approval` too, and a flag two agents share must mean the
    # same for both: it is not listed.
    Agent(
        "pi",
        commands=("pi",),
        packages=("@mariozechner/pi-coding-agent", "@earendil-works/pi-coding-agent"),
        needs_arguments=("pi",),
        approval_flags=(
            ApprovalFlag(
                "--approve",
                "trusts the project for the run: its .pi settings load, its packages install and its "
                "extensions run, and pi itself never asks before a command",
            ),
        ),
        instruction_files=(".pi/commands/*",),
        config_files=(".pi/settings.json",),
        credential_files=("~/.pi/agent/auth.json", "~/.pi/agent/oauth.json"),
        image_words=("pi-coding-agent",),
    ),
    Agent("Antigravity", commands=("agy",)),
    Agent("Crush", commands=("crush",)),
    Agent("Auggie", commands=("auggie",)),
    Agent("Zed", config_files=(".zed/settings.json",), mcp=McpKeys(tables=("context_servers",))),
    Agent("SWE-agent", image_words=("swe-?agent",)),
    Agent("Open Interpreter", image_words=("open-?interpreter",)),
)


def by_name(name: str) -> Agent:
    """The record called ``name`` (a KeyError names a typo at import time, not a silent miss)."""
    for agent in CATALOGUE:
        if agent.name == name:
            return agent
    raise KeyError(name)


def by_preset(name: str) -> Agent | None:
    """The record of the agent a bundled preset runs."""
    return next((agent for agent in CATALOGUE if agent.preset == name), None)


def unique(values: list[str]) -> tuple[str, ...]:
    """``values`` without repeats, in first-seen order (the catalogue's order decides)."""
    return tuple(dict.fromkeys(values))
