"""What agent and editor settings files say, as typed records: the agent-autorun rules read these
instead of walking the JSON themselves.

One reader per settings format. Claude Code's own keys are read only from its settings files
(the agent catalogue names them); the other formats are read from every agent configuration
file, because agents borrow each other's keys (Cursor's ``cli.json`` writes Claude's
``permissions``, a ``.code-workspace`` nests VS Code's ``tasks`` and ``settings``).
Values keep the position they were written at.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, NamedTuple

from sandkit.agents import by_name
from sandkit.lazy_regex import lazy
from sandkit.lint import kinds
from sandkit.lint.facts.agent_commands import dangerous_flags
from sandkit.lint.source import SourceFile
from sandkit.lint.syntax.shell import parse_commands
from sandkit.lint.syntax.tree import PMap, Pos, PSeq, PStr, pos_of

if TYPE_CHECKING:
    from typing import Any

_CLAUDE_SETTINGS = tuple(f"/{name}" for name in by_name("Claude Code").settings_files)
_CLAUDE_HELPERS = ("apiKeyHelper", "awsAuthRefresh", "awsCredentialExport", "otelHeadersHelper")
#: A permission allow rule that allows any command (``Bash``, ``Bash(*)``, ``*``).
BLANKET_ALLOW = lazy(
    r"(?i)^(?:\*|bash|shell|bash\(\s*\*?\s*(?::\s*\*)?\s*\)|"
    r"shell\(\s*\*?\s*(?::\s*\*)?\s*\)|\w+\(\s*\*\s*\))$"
)


class Runner(NamedTuple):
    """A program that runs whatever its arguments say, so that allowing it with any argument
    allows any command: the program's name (a regex, matched with or without ``.exe`` and in any
    case), the subcommand that must follow it (a regex, or ""), and why it runs anything. A row
    that ``needs_write`` runs only what a file says (a task runner's task file, a script in a
    folder): the agent must write that file first, and the grade follows whether it may."""

    program: str
    subcommand: str
    why: str
    severity: str = ""  # "" keeps the rule's own
    needs_write: bool = False


_PACKAGE_RUNNER = "a package runner fetches and runs any package"
_WRAPPER = "a wrapper runs the command it is given"
_INTERPRETER = "an interpreter runs the code it is given (-c, -e, or a file the agent wrote)"
_TASK_FILE = "a task runner runs the commands its task file names, and the agent can write that file"
#: The table AA004 reads ``Bash(PROGRAM:*)``, ``Bash(PROGRAM *)`` and ``Bash(PROGRAM*)`` against. A
#: narrower prefix (``Bash(npm test:*)``, ``Bash(git status:*)``, ``Bash(uv pip:*)``) is not in it.
#: Grouped by why: shells and interpreters, wrappers, package and project runners, task runners
#: (those with an option that runs a command directly, then those that need a file written),
#: remote and container runners.
RUNNERS: tuple[Runner, ...] = (
    Runner(r"(?:ba|z|da|fi|k)?sh|pwsh|powershell|cmd", "", "a shell runs the command line it is given"),
    Runner(
        r"node|nodejs|deno|bun|python[\d.]*|py|pypy[\d.]*|perl|ruby|php|lua|Rscript|osascript",
        "",
        _INTERPRETER,
    ),
    # tsx and ts-node run TypeScript as node runs JavaScript (both take --eval); kotlin runs a
    # .kts script, scala and groovy take -e
    Runner(r"tsx|ts-node|kotlin|scala|groovy", "", _INTERPRETER),
    # expect and tclsh run Tcl given with -c or in a file, and Tcl's exec runs any program
    Runner(r"expect|tclsh", "", _INTERPRETER),
    # programs that are not shells but run a command their arguments name
    Runner(
        r"awk|gawk|mawk|nawk",
        "",
        'awk\'s system() runs a shell command, and print | "cmd" and "cmd" | getline run one too',
    ),
    Runner(
        r"sed|gsed",
        "",
        "GNU sed's e command and the e flag of s/// run a shell command (and its w command writes any file)",
    ),
    Runner(r"find|gfind", "", "find -exec, -execdir, -ok and -okdir run any command on what it finds"),
    Runner(r"fd|fdfind", "", "fd -x (--exec) and -X (--exec-batch) run any command on what it finds"),
    Runner(
        r"tar|gtar",
        "",
        "GNU tar's --to-command and --checkpoint-action=exec run a shell command, and -I runs any program",
    ),
    Runner(r"busybox", "", "busybox runs the applet it names, sh and awk among them"),
    Runner(r"vim|nvim|vi|ex", "", "the editor's -c (or +) runs an editor command, and :! runs a shell command"),
    Runner(r"emacs", "", "emacs --eval (and --batch -l) runs the Lisp it is given, and shell-command runs any command"),
    Runner(r"gdb", "", "gdb -ex runs a debugger command, and its shell command (or !) runs any command"),
    Runner(r"socat", "", "socat's EXEC: and SYSTEM: addresses run any command"),
    Runner(
        r"gh",
        r"alias|extension|ext|",
        "gh alias set --shell makes a gh command that runs a shell line, and gh extension install"
        " fetches a program that gh then runs",
    ),
    Runner(r"java", "", "the JVM runs the program it is given (java File.java runs a source file)"),
    Runner(r"source|eval|exec", "", "a shell builtin that runs a file or a string"),
    Runner(r"command|builtin", "", "a shell builtin that runs the command it names"),
    Runner(r"npx|uvx|bunx|pnpx", "", _PACKAGE_RUNNER),
    Runner(r"pipx", r"run", _PACKAGE_RUNNER),
    Runner(r"pnpm|yarn", r"dlx", _PACKAGE_RUNNER),
    Runner(r"bun", r"x", _PACKAGE_RUNNER),
    Runner(r"pnpm|yarn", r"exec|node", "it runs any command or script in the project's environment"),
    Runner(r"npm", r"exec|x", "npm exec fetches and runs any package, or runs any command"),
    Runner(r"npm", "", "npm exec fetches and runs any package, or runs any command"),
    Runner(r"pnpm", "", "pnpm dlx fetches and runs any package, and pnpm exec runs any command"),
    Runner(r"yarn", "", "yarn dlx fetches and runs any package, and yarn exec runs any command"),
    Runner(r"uv", r"tool\s+run", _PACKAGE_RUNNER),
    Runner(r"uv", r"run|", "uv run runs any command in the project's environment (uv tool run, any package)"),
    Runner(
        r"poetry|pipenv|pdm|hatch|conda|mamba|micromamba|pixi",
        r"run|exec|",
        "a project runner runs any command in its environment (poetry run, pipenv run, conda run)",
    ),
    Runner(r"bundle|bundler", r"exec|", "bundle exec runs any command with the bundle's gems"),
    Runner(r"sudo|doas", "", "it runs the command it is given, as root"),
    Runner(r"env|xargs|nohup|timeout|nice|watch", "", _WRAPPER),
    Runner(
        r"time|xvfb-run|stdbuf|setsid|ionice|chrt|flock|unbuffer|strace|ltrace|valgrind|parallel|systemd-run",
        "",
        _WRAPPER,
    ),
    Runner(r"script", "", "script -c runs the command it is given, recording the terminal"),
    Runner(
        r"tmux|screen",
        "",
        "a terminal multiplexer runs any command in a new window or session (tmux new-window, send-keys; screen -dm)",
    ),
    Runner(r"git", r"config|-c|", "git runs commands its configuration names (core.fsmonitor, core.sshCommand)"),
    Runner(r"go|cargo|dotnet", "", "a toolchain builds and runs what it is given (go run, cargo run, dotnet run)"),
    Runner(
        r"make|gmake",
        "",
        "GNU make's --eval (-E) reads makefile text from the command line, and $(shell) runs a command",
    ),
    Runner(r"just", "", "just --command (-c) runs any command with the justfile's environment"),
    Runner(r"rake", "", "rake -e (--execute) runs the Ruby code it is given"),
    Runner(r"nx", r"exec|", "nx exec runs any command as a project's target"),
    Runner(
        r"mvn|mvnw|\./mvnw",
        "",
        "maven runs any plugin goal it is named, and exec-maven-plugin's exec goal runs any program",
    ),
    Runner(r"task|go-task", "", _TASK_FILE + " (Taskfile.yml)", needs_write=True),
    Runner(r"nx", r"run|run-many|affected", _TASK_FILE + " (project.json's targets)", needs_write=True),
    Runner(
        r"gradle|gradlew|\./gradlew",
        "",
        _TASK_FILE + " (build.gradle, or an init script given with -I)",
        needs_write=True,
    ),
    Runner(
        r"ssh",
        "",
        "ssh runs any command on the host it reaches, and its -o ProxyCommand runs a local command",
    ),
    Runner(
        r"scp",
        "",
        "scp -S names the program it runs in place of ssh, and -o ProxyCommand runs a local command",
    ),
    Runner(
        r"sftp",
        "",
        "sftp -S names the program it runs in place of ssh, -D runs a local server command, and -o"
        " ProxyCommand runs a local command",
    ),
    Runner(r"rsync", "", "rsync -e (--rsh) runs the command it is given as its remote shell"),
    Runner(r"wsl", "", "WSL runs any command, and reaches the Windows host's files and programs"),
    Runner(r"claude", "", "it starts the agent again, which can be told to skip every permission prompt"),
    Runner(r"pi", "", "it starts the pi coding agent, which runs every command it decides on without asking"),
    Runner(
        r"docker|podman|docker-compose",
        r"run|compose|container\s+run|",
        "the container engine runs any image, and can mount the host's root directory into it",
    ),
    Runner(
        r"docker|podman|docker-compose",
        r"exec|compose\s+exec|container\s+exec",
        "inside a running container, not on the host",
        "medium",
    ),
    Runner(
        r"kubectl|oc",
        r"exec|run|debug|",
        "inside the cluster's containers, not on this machine (kubectl exec, run, debug)",
        "medium",
    ),
)
_EXE = r"(?:\.exe)?"


def _runner_words(runner: Runner) -> str:
    after = rf"(?:\s+(?:{runner.subcommand}))" if runner.subcommand else ""
    if runner.subcommand and re.fullmatch(runner.subcommand, ""):
        after += "?"
    return rf"(?:{runner.program}){_EXE}{after}"


#: What may stand before the program and its arguments: a wrapper with its own flags and values
#: (``timeout 30``, ``env FOO=1``, ``xvfb-run -a``), or a launcher that runs the next word as a
#: command (``npx``, ``pnpm exec``, ``uv run``, ``poetry run``, ``bundle exec``).
_WRAPPERS = (
    r"env|sudo|doas|nohup|timeout|nice|ionice|time|command|stdbuf|setsid|chrt|xvfb-run|unbuffer|"
    r"npx|pnpx|bunx|uvx|(?:pnpm|yarn)\s+(?:exec|dlx)|(?:pnpm|yarn)(?!\s+(?:exec|dlx|node)\b)|npm\s+exec|bun\s+x|"
    r"(?:uv|poetry|pipenv|pdm|hatch|pixi)\s+run|bundle\s+exec"
)
#: An allow rule for a program of :data:`RUNNERS` with any argument (``Bash(node *)``,
#: ``Bash(python3:*)``, ``Bash(powershell.exe -Command:*)``), also behind a wrapper with its own
#: arguments (``Bash(timeout 30 bash:*)``, ``Bash(env FOO=1 python3:*)``) or a launcher
#: (``Bash(npx nx:*)``, ``Bash(poetry run python:*)``), or after variables set for the command
#: (``Bash(MSYS_NO_PATHCONV=1 bash:*)``).
ANY_ARGUMENT_RUNNER = lazy(
    r"(?i)^(?:bash|shell)\(\s*(?:[A-Za-z_]\w*=\S*\s+)*"  # variables set for the command (MSYS_NO_PATHCONV=1 ...)
    r"(?:(?:" + _WRAPPERS + r")(?:\.exe)?"  # a wrapper or launcher, with its
    r"(?:\s+(?:-[A-Za-z]\s+[A-Za-z_.][\w.-]*|-{1,2}[\w-]+(?:=\S*)?|\d[\w.]*|[A-Za-z_]\w*=\S*))*\s+)*"  # flags, values
    r"(?P<program>" + "|".join(_runner_words(r) for r in RUNNERS) + r")"
    r"(?:\s+(?:-c|-e|--eval|-Command|-EncodedCommand|/c|/k))?\s*(?::\s*\*|\s+\*|\*)\s*\)$"
)


def runner_of(program: str) -> Runner:
    """The :data:`RUNNERS` row a program matched by :data:`ANY_ARGUMENT_RUNNER` comes from."""
    for runner in RUNNERS:
        if re.fullmatch(_runner_words(runner), program, re.IGNORECASE):
            return runner
    return RUNNERS[0]  # not reached: the pattern is built from the table


#: An allow rule for any program in a folder (``Bash(./*)``, ``Bash(./:*)``, ``Bash(bin/*)``,
#: ``Bash(tools/*.sh)``, ``Bash(${CLAUDE_SKILL_DIR}/scripts/*)``): the folder as written, and
#: the file-name pattern after it. Claude Code's ``*`` matches any text, ``/`` and spaces included.
FOLDER_PROGRAMS = lazy(
    r"(?i)^(?:bash|shell)\(\s*(?P<folder>(?:\.{1,2}|~|\$\{?\w+\}?|[\w.@+-]+)?(?:/[\w.@+${}-]+)*/)"
    r"(?P<name>\*[\w.*-]*|[\w.-]*\*[\w.*-]*)?(?:\s*:\s*\*|\s+\*)?\s*\)$"
)
#: Folders that hold shells and interpreters already: allowing any program there is a runner's grant.
SYSTEM_BIN = lazy(r"(?i)^/(?:usr/(?:local/)?)?s?bin/$|^/opt/homebrew/bin/$")


def folder_programs(value: str) -> tuple[str, str] | None:
    """The folder and file-name pattern of an allow rule for any program in a folder, or None.
    A rule naming one file (``Bash(./run.sh:*)``) or a folder with no wildcard is not one."""
    match = FOLDER_PROGRAMS.match(value.strip())
    if match is None:
        return None
    name = match.group("name") or ""
    wildcard = "*" in value[match.start("folder") :]
    if not wildcard or (name and "*" not in name):
        return None
    return match.group("folder"), name


#: Allow rules that let the agent write files without asking: Write, Edit, MultiEdit and
#: NotebookEdit, bare or with a path pattern (``Edit(src/**)``, read by the folder it starts with).
_WRITE_RULE = lazy(r"(?i)^(?:Write|Edit|MultiEdit|NotebookEdit)(?:\(\s*(?P<scope>[^)]*?)\s*\))?$")
#: Modes in which edits need no prompt.
WRITING_MODES = frozenset(("acceptEdits", "bypassPermissions"))


def writes_without_asking(rules: list[str], folder: str = "") -> bool:
    """Whether allow rules let the agent write a file in ``folder`` ("" for the project's top,
    where a Makefile or Taskfile is) without asking: a blanket rule, or a Write/Edit rule whose
    path pattern is empty, all wildcards, or starts with the folder."""
    for rule in rules:
        rule = rule.strip()
        if BLANKET_ALLOW.match(rule):
            return True
        match = _WRITE_RULE.match(rule)
        if match is None:
            continue
        scope = (match.group("scope") or "").removeprefix("./").lstrip("/")
        if not scope.strip("*/") or (folder and scope.startswith(folder.removeprefix("./").lstrip("/"))):
            return True
    return False


#: Gemini's shell tool with no command prefix (``run_shell_command``, ``ShellTool``, ``(*)``).
ANY_SHELL = lazy(r"\s*(?:run_shell_command|ShellTool)\s*(?:\(\s*\*?\s*\))?\s*")
_GEMINI_TOOL_COMMANDS = ("discoveryCommand", "callCommand", "toolDiscoveryCommand", "toolCallCommand")
_EDITOR_SWITCHES = (
    "task.allowAutomaticTasks",
    "security.workspace.trust.enabled",
    "chat.tools.autoApprove",
    "chat.tools.global.autoApprove",
    "chat.tools.edits.autoApprove",
)


class Value(NamedTuple):
    """A setting as written: its key, its value (JSON/TOML types), where the value starts."""

    key: str
    value: Any
    pos: Pos


class Command(NamedTuple):
    """A command a settings file makes the agent run by itself (``text`` as written, or "")."""

    what: str  # the hook's event, or the helper's key
    text: str
    pos: Pos
    table: int = 0  # which hooks table of the file holds it (a marketplace's entries: one each)


class Marketplace(NamedTuple):
    """A plugin marketplace a settings file declares (``extraKnownMarketplaces``): its name, its
    source's type (``github``, ``git``, ``url``, ``directory``...), where it is fetched from
    (``owner/repo`` or a URL), and its ``ref`` ("" when none)."""

    name: str
    kind: str
    where: str
    ref: str


class EnabledPlugin(NamedTuple):
    """A plugin a settings file turns on (``enabledPlugins``: ``"name@marketplace": true``)."""

    plugin: str
    marketplace: str
    pos: Pos


class ClaudeSettings:
    """.claude/settings.json and .claude/settings.local.json."""

    __slots__ = (
        "enable_all_project_mcp_servers",
        "enabled_mcpjson_pos",
        "enabled_mcpjson_servers",
        "enabled_plugins",
        "helpers",
        "hooks",
        "marketplaces",
    )

    def __init__(self) -> None:
        self.hooks: list[Command] = []  # hooks of type command, by event
        self.helpers: list[Command] = []  # apiKeyHelper & co, statusLine commands
        self.enable_all_project_mcp_servers: Value | None = None  # when true
        self.enabled_mcpjson_servers: list[str] = []
        self.enabled_mcpjson_pos = Pos()
        self.enabled_plugins: list[EnabledPlugin] = []  # set to true
        self.marketplaces: dict[str, Marketplace] = {}


class Permissions:
    """A ``permissions`` block (Claude Code; Cursor's cli.json) and the bypass-prompt switch."""

    __slots__ = ("allow", "default_mode", "skip_dangerous_mode_prompt")

    def __init__(self) -> None:
        self.allow: list[Value] = []  # string entries of ``permissions.allow``
        self.default_mode: Value | None = None
        self.skip_dangerous_mode_prompt: Value | None = None  # when true


class Task(NamedTuple):
    """A VS Code task that runs when the folder opens (``runOptions.runOn: folderOpen``)."""

    label: str
    command: str  # the command and its arguments, joined
    pos: Pos  # of ``runOn``


class EditorSettings:
    """VS Code settings (or a workspace's ``settings``): trust, automatic tasks, auto-approval."""

    __slots__ = ("switches", "terminal_auto_approve")

    def __init__(self, switches: list[Value]) -> None:
        self.switches = switches  # the keys in _EDITOR_SWITCHES that are set
        self.terminal_auto_approve: list[Value] = []  # pattern -> allowed, at the pattern


class ApprovalSettings:
    """Codex's ``sandbox_mode`` and ``approval_policy`` (top level and profiles, three tables
    down) and Gemini's tool switches: ``autoAccept``, the tools allowed without asking
    (``tools.allowed``, version 1's ``allowedTools``) and the commands it runs to discover and call
    tools (``tools.discoveryCommand``/``callCommand``, version 1's ``toolDiscoveryCommand``/
    ``toolCallCommand``), top level and under ``tools``."""

    __slots__ = ("allowed_tools", "approval_policy", "auto_accept", "sandbox_mode", "tool_commands")

    def __init__(self) -> None:
        self.sandbox_mode: list[Value] = []
        self.approval_policy: list[Value] = []
        self.auto_accept: list[Value] = []
        self.allowed_tools: list[Value] = []  # one per string entry
        self.tool_commands: list[Value] = []


def _document(file: SourceFile) -> PMap | None:
    document = file.documents[0] if file.documents else None
    return document if isinstance(document, PMap) else None


def _value(table: PMap, key: str) -> Value:
    return Value(key, table.get(key), table.pos_of(key))


def is_claude_settings(file: SourceFile) -> bool:
    """Claude Code's settings by their path (``.claude/settings.json``), or a ``settings.json``
    kept elsewhere that its content made agent configuration (a dotfiles repository of
    ``~/.claude``), or a JSON file of any name that declares Claude Code's settings schema
    (``settings.template.json``, see :func:`renamed_claude_settings`); in each case no other
    agent's file by its path (``.vscode/settings.json``)."""
    lower = file.path.lower()
    if f"/{lower}".endswith(_CLAUDE_SETTINGS):
        return True
    if file.kind != kinds.AGENT_CONFIG or kinds.kind_by_name(lower).kind == kinds.AGENT_CONFIG:
        return False
    return lower.rsplit("/", 1)[-1] in kinds.CLAUDE_SETTINGS_NAMES or renamed_claude_settings(file)


def renamed_claude_settings(file: SourceFile) -> bool:
    """Claude Code's settings kept under another name than the ones it reads (a template a setup
    script copies into ``.claude/settings.json``): a file its declared ``$schema`` made agent
    configuration, named neither ``settings.json`` nor ``settings.local.json``."""
    lower = file.path.lower()
    return (
        file.kind == kinds.AGENT_CONFIG
        and lower.rsplit("/", 1)[-1] not in kinds.CLAUDE_SETTINGS_NAMES
        and kinds.kind_by_name(lower).kind != kinds.AGENT_CONFIG
        and kinds.declares_claude_settings(file.text[:4096])
    )


def claude_settings(file: SourceFile) -> ClaudeSettings | None:
    """Claude Code's own settings, or None for any other file."""
    if not is_claude_settings(file):
        return None
    return file.memo("claude_settings", lambda: _claude(_document(file)))


def _claude(config: PMap | None) -> ClaudeSettings | None:
    if config is None:
        return None
    settings = ClaudeSettings()
    settings.hooks = hook_commands(config.get("hooks"))
    for key in _CLAUDE_HELPERS:
        if isinstance(config.get(key), str) and config[key].strip():
            settings.helpers.append(Command(key, config[key], config.pos_of(key)))
    env = config.get("env")
    if isinstance(env, PMap):
        for key, value in env.items():
            why = _env_command(str(key), value)
            if why:
                settings.helpers.append(Command(f"env.{key} ({why})", str(value), env.pos_of(key)))
    status = config.get("statusLine")
    if isinstance(status, PMap) and status.get("type") == "command":
        command = status.get("command")
        settings.helpers.append(Command("statusLine", str(command or ""), pos_of(command, status.pos)))
    if config.get("enableAllProjectMcpServers") is True:
        settings.enable_all_project_mcp_servers = _value(config, "enableAllProjectMcpServers")
    enabled = config.get("enabledMcpjsonServers")
    if isinstance(enabled, PSeq):
        settings.enabled_mcpjson_servers = [str(name) for name in enabled]
        settings.enabled_mcpjson_pos = enabled.pos
    plugins = config.get("enabledPlugins")
    if isinstance(plugins, PMap):
        for key, on in plugins.items():
            name, _, marketplace = str(key).rpartition("@")
            if on is True and name and marketplace:
                settings.enabled_plugins.append(EnabledPlugin(name, marketplace, plugins.pos_of_key(key)))
    declared = config.get("extraKnownMarketplaces")
    for name, entry in declared.items() if isinstance(declared, PMap) else ():
        source = entry.get("source") if isinstance(entry, PMap) else None
        if isinstance(source, PMap) and isinstance(source.get("source"), str):
            where = source.get("repo") or source.get("url") or source.get("path") or source.get("package") or ""
            ref = source.get("ref")
            settings.marketplaces[str(name)] = Marketplace(
                str(name), source["source"], str(where), ref.strip() if isinstance(ref, str) else ""
            )
    return settings


def hook_commands(hooks: Any) -> list[Command]:
    """The command hooks of a ``hooks`` table (event -> groups -> ``hooks`` -> entries), the shape
    Claude Code's settings, a plugin's manifest and hooks file, and a skill's front matter share."""
    found: list[Command] = []
    for event, groups in hooks.items() if isinstance(hooks, PMap) else ():
        for group in groups if isinstance(groups, PSeq) else ():
            entries = group.get("hooks") if isinstance(group, PMap) else None
            for entry in entries if isinstance(entries, PSeq) else ():
                if isinstance(entry, PMap) and entry.get("type", "command") == "command":
                    command = entry.get("command")
                    found.append(Command(str(event), str(command or ""), pos_of(command, entry.pos)))
    return found


def plugin_hooks(file: SourceFile) -> list[Command]:
    """The command hooks a Claude Code plugin declares: inline under ``hooks`` in its manifest
    (``.claude-plugin/plugin.json``) or in a marketplace's entries (``plugins[].hooks``), and those
    of a hooks file (``hooks/hooks.json``, or a ``hooks.json`` elsewhere that the manifest may name
    and whose content made it agent configuration). A hooks file holds ``{"hooks": {EVENT: ...}}``;
    the events written at its top are read too. Settings files are read by :func:`claude_settings`."""
    return file.memo("plugin_hooks", lambda: _plugin_hooks(file))


def _plugin_hooks(file: SourceFile) -> list[Command]:
    config = _document(file)
    if config is None or file.kind != kinds.AGENT_CONFIG:
        return []
    lower = f"/{file.path.lower()}"
    if lower.endswith("/.cursor/hooks.json"):
        return []  # Cursor's hooks: cursor_hooks
    if lower.endswith("/.claude-plugin/plugin.json"):
        tables = [config.get("hooks")]
    elif lower.endswith("/.claude-plugin/marketplace.json"):
        entries = config.get("plugins")
        tables = (
            [entry.get("hooks") for entry in entries if isinstance(entry, PMap)] if isinstance(entries, PSeq) else []
        )
    elif lower.endswith("/hooks.json"):
        tables = [config]
    else:
        return []
    found: list[Command] = []
    for number, table in enumerate(tables):
        if isinstance(table, PMap):
            inner = table.get("hooks")  # {"description": ..., "hooks": {EVENT: [...]}}
            found += [c._replace(table=number) for c in hook_commands(inner if isinstance(inner, PMap) else table)]
    return found


def cursor_hooks(file: SourceFile) -> list[Command]:
    """The command hooks of a Cursor hooks file (Cursor 1.7 and later): ``.cursor/hooks.json`` in
    a project, ``~/.cursor/hooks.json`` for a user (kept in a dotfiles repository, or by a Cursor
    plugin as ``hooks/hooks.json``), ``{"version": 1, "hooks": {EVENT: [{"command": ...}]}}``.
    Each entry holds its command directly, where Claude Code's nest them under a ``hooks`` list;
    an entry of ``"type": "prompt"`` asks the model and runs nothing."""
    return file.memo("cursor_hooks", lambda: _cursor_hooks(file))


def _cursor_hooks(file: SourceFile) -> list[Command]:
    config = _document(file)
    if config is None or file.kind != kinds.AGENT_CONFIG or not file.path.lower().endswith("hooks.json"):
        return []
    hooks = config.get("hooks")
    found: list[Command] = []
    for event, entries in hooks.items() if isinstance(hooks, PMap) else ():
        for entry in entries if isinstance(entries, PSeq) else ():
            if not isinstance(entry, PMap) or "hooks" in entry or entry.get("type", "command") != "command":
                continue  # Claude Code's shape ({"matcher", "hooks": [...]}), or a prompt hook
            command = entry.get("command")
            if isinstance(command, str) and command.strip():
                found.append(Command(str(event), command, pos_of(command, entry.pos)))
    return found


#: A path inside the plugin's own folder: ``${CLAUDE_PLUGIN_ROOT}/...`` or ``$CLAUDE_PLUGIN_ROOT/...``,
#: with no ``..`` step out of it.
_IN_PLUGIN = lazy(r"\A\$(?:\{CLAUDE_PLUGIN_ROOT\}|CLAUDE_PLUGIN_ROOT(?![\w{]))/(?!(?:[^/]*/)*\.\.(?:/|\Z))[^/\s]")
#: Programs that run the script file named by their first argument (``uv run`` and ``deno run``,
#: ``bun run`` with their subcommand): a hook written ``node ${CLAUDE_PLUGIN_ROOT}/x.js``.
_SCRIPT_RUNNERS = lazy(
    r"(?i)\A(?:node|nodejs|bun|deno|tsx|python[\d.]*|py|pypy[\d.]*|(?:ba|z|da|k)?sh|pwsh|powershell|ruby|perl|php)"
    r"(?:\.exe)?\Z"
)
_RUN_SUBCOMMAND = {"uv": "run", "deno": "run", "bun": "run"}
#: Options that take code, a module or a package to run instead of (or before) the script file.
_CODE_OPTIONS = frozenset(
    (
        "-c", "-e", "-p", "-r", "-m", "--eval", "--print", "--require", "--import", "--loader",
        "--experimental-loader", "-command", "-encodedcommand", "-ec", "--with", "--with-requirements",
        "--from", "--env-file", "--script-file",
    )
)  # fmt: skip
#: Commands that may follow the script on its line without running anything (``|| true``).
_NO_OPS = frozenset(("true", ":", "exit"))


def runs_bundled_script(text: str) -> bool:
    """Whether a plugin's hook command runs only a script kept in the plugin itself: its program
    is a path under ``${CLAUDE_PLUGIN_ROOT}`` (``${CLAUDE_PLUGIN_ROOT}/hooks/check.sh --strict``), or
    an interpreter (``node``, ``python3``, ``bash``, ``uv run``...) given such a path as the file to
    run, after options that take no code (``python3 -u``). Any other command on the line must be a
    no-op (``|| true``, ``exit 0``). Not: variables set for the command (``NODE_OPTIONS=...``), an
    option that runs code or fetches packages (``-c``, ``--require``, ``uv run --with``), a package
    runner (``npx``), a command substitution, a path stepping out of the plugin (``/..``)."""
    commands = parse_commands(text)
    bundled = 0
    for command in commands:
        words = [w.text for w in command.words]
        if not words:
            return False
        if words[0] in _NO_OPS:
            continue
        if command.assignments or not _runs_plugin_file(words):
            return False
        bundled += 1
    return bundled > 0


def _runs_plugin_file(words: list[str]) -> bool:
    if any("$(" in w or "`" in w for w in words):
        return False
    if _IN_PLUGIN.match(words[0]):
        return True
    program = words[0].replace("\\", "/").rsplit("/", 1)[-1].lower().removesuffix(".exe")
    rest = words[1:]
    if program in _RUN_SUBCOMMAND and rest and rest[0] == _RUN_SUBCOMMAND[program]:
        rest = rest[1:]
    elif program == "uv" or not _SCRIPT_RUNNERS.match(program):
        return False
    for word in rest:
        if not word.startswith("-"):
            return bool(_IN_PLUGIN.match(word))
        option = word.split("=", 1)[0].lower()
        if option in _CODE_OPTIONS or (option[1:2] != "-" and len(option) > 2 and set(option[1:]) & set("cempr")):
            return False
    return False


def is_claude_component(file: SourceFile) -> bool:
    """A Claude Code skill (``SKILL.md``, wherever a collection or a plugin keeps it), slash command
    (``.claude/commands/*.md``) or subagent (``.claude/agents/*.md``), or a plugin's command or
    subagent (``commands/*.md``, ``agents/*.md`` whose front matter made them instructions):
    Markdown whose front matter Claude Code reads for what the skill, command or subagent may do."""
    if file.kind != kinds.AGENT_INSTRUCTIONS:
        return False
    lower = f"/{file.path.lower()}"
    if lower.endswith("/skill.md"):
        return True
    folder = lower.rsplit("/", 2)[-2] if lower.count("/") > 1 else ""
    return lower.endswith(".md") and (
        "/.claude/commands/" in lower or "/.claude/agents/" in lower or folder in ("commands", "agents")
    )


#: Skills folders of agents that do not read ``allowed-tools`` (each agent's documentation lists
#: the front matter it reads: Codex a skill's name, description and ``agents/openai.yaml``;
#: Gemini CLI, Cursor, OpenCode and Hermes Agent the Agent Skills fields without it), and no
#: agent that reads it loads skills from: Claude Code loads ``.claude/skills`` and a plugin's
#: skills, GitHub Copilot ``.github/skills``, ``.agents/skills`` and ``.claude/skills`` (Copilot
#: CLI honours ``allowed-tools``, so those two stay findings). Keyed by the folder holding
#: ``skills/``; the value names the agent and the folder the repository's copy stands for.
OTHER_AGENT_SKILLS = {
    ".codex": ("Codex", "as ~/.codex/skills"),
    ".gemini": ("Gemini CLI", ""),
    ".cursor": ("Cursor", ""),
    ".opencode": ("OpenCode", ""),
    ".windsurf": ("Windsurf", ""),
    ".hermes": ("Hermes Agent", "as ~/.hermes/skills"),
    # a folder named after the agent, without the dot: a repository's copy of that agent's
    # folder, synced by a script (``hermes/skills/NAME/SKILL.md``), unless it is a Claude plugin
    "hermes": ("Hermes Agent", "a copy of ~/.hermes/skills"),
    "codex": ("Codex", "a copy of ~/.codex/skills"),
    "gemini": ("Gemini CLI", "a copy of ~/.gemini/skills"),
    "cursor": ("Cursor", "a copy of ~/.cursor/skills"),
    "opencode": ("OpenCode", "a copy of ~/.config/opencode/skills"),
}
#: Folders that keep skills no longer in use: no agent loads a skill from below them.
ARCHIVE_FOLDERS = frozenset(
    {".archive", ".archived", "archive", "archived", "archives", "_archive", "_archived", "attic"}
    | {"deprecated", ".deprecated", "_deprecated", "retired", "obsolete"}
)
_MARKETPLACE = ".claude-plugin/marketplace.json"


class SkillHome(NamedTuple):
    """Where a ``SKILL.md`` is kept when no agent that honours its ``allowed-tools`` (or runs its
    ``hooks``) loads it from there: the folder, and the agent whose folder it is ("" for an
    archive, which no agent loads from)."""

    where: str
    agent: str = ""

    def why(self, grant: str) -> str:
        """Why a grant of this skill's front matter is info: ``grant`` is what that agent ignores
        ("read allowed-tools", "run Claude Code's hooks")."""
        if not self.agent:
            return f"the skill is kept in {self.where}, which no agent loads skills from"
        return (
            f"the skill is kept in {self.where}: {self.agent} does not {grant}, and Claude Code and GitHub"
            " Copilot do not load skills from there"
        )


def skill_home(file: SourceFile) -> SkillHome | None:
    """None when Claude Code (or GitHub Copilot) loads the skill from where it is kept, or may:
    ``.claude/skills``, a plugin's skills, ``.agents/skills``, ``.github/skills``, a
    collection's ``skills/`` meant for ``~/.claude/skills``, any folder not known to be another
    agent's. Otherwise the other agent's folder it is in (``.codex/skills``, ``hermes/skills``)
    or the archive folder above it (``.archive/``, ``deprecated/``)."""
    parts = file.path.lower().split("/")[:-1]
    if not file.path.lower().endswith("skill.md") or not parts:
        return None
    for part in parts:
        if part in ARCHIVE_FOLDERS:
            return SkillHome(f"an archive folder ({part}/)")
    if ".claude" in parts:
        return None
    for i, part in enumerate(parts[:-1]):
        if part in OTHER_AGENT_SKILLS and parts[i + 1] == "skills":
            folder = "/".join(file.path.split("/")[: i + 1])
            if not part.startswith(".") and _claude_plugin(file, folder):
                return None
            agent, shape = OTHER_AGENT_SKILLS[part]
            shape = f", {shape}" if shape else ""
            return SkillHome(f"{agent}'s skills folder ({folder}/skills/{shape})", agent)
    return None


def _claude_plugin(file: SourceFile, folder: str) -> bool:
    """Whether ``folder`` (relative to the scan root) is a Claude Code plugin: it holds
    ``.claude-plugin/plugin.json``, or the root's marketplace names it as a plugin's source."""
    if not file.root:
        return True  # text with no tree around it: keep the skill Claude's, as before
    root = os.path.realpath(file.root)
    if os.path.isfile(os.path.join(root, folder, ".claude-plugin", "plugin.json")):
        return True
    try:
        with open(os.path.join(root, _MARKETPLACE), "rb") as handle:
            market = handle.read(262144).decode("utf-8", errors="replace")
    except OSError:
        return False
    name = re.escape(folder.strip("/"))
    return re.search(rf"""["'](?:\./)?{name}/?["']""", market) is not None


class ComponentGrants:
    """What a skill's, command's or subagent's front matter lets the agent do while it runs: tools
    allowed without asking (``allowed-tools``, a string of comma- or space-separated rules or a
    list), its ``permissionMode`` (subagents), and its own hooks (``hooks``, the settings' shape).
    A plugin's subagent (``agents/*.md`` outside ``.claude/``) keeps only ``allowed-tools``: Claude
    Code ignores the ``permissionMode`` and ``hooks`` of a plugin's subagents."""

    __slots__ = ("allowed", "hooks", "permission_mode")

    def __init__(self) -> None:
        self.allowed: list[Value] = []
        self.permission_mode: Value | None = None
        self.hooks: list[Command] = []


def component_grants(file: SourceFile) -> ComponentGrants | None:
    """The front matter grants of a Claude Code skill, command or subagent, or None for any other
    file. Front matter that is not YAML (an unquoted ``description: a: b``) is read by its lines
    for ``allowed-tools`` only."""
    if not is_claude_component(file) or not file.front_matter_text:
        return None
    return file.memo("component_grants", lambda: _grants(file))


#: One rule of an ``allowed-tools`` string: a tool name with its parenthesised argument (which may
#: hold spaces and commas: ``Bash(npm run *)``), separated by commas or spaces.
_TOOL_RULE = lazy(r"[^\s,()]+(?:\([^)]*\))?|\([^)]*\)")
_ALLOWED_LINE = lazy(r"(?m)^allowed[-_]tools[ \t]*:[ \t]*(?P<value>[^\n]*?)[ \t]*\r?$")
_ITEM_LINE = lazy(r"[ \t]*-[ \t]+(?P<value>[^\n]*?)[ \t]*\r?$")


def _grants(file: SourceFile) -> ComponentGrants:
    found = ComponentGrants()
    matter = file.front_matter
    if not isinstance(matter, PMap):
        found.allowed = _allowed_by_lines(file)
        return found
    for key in ("allowed-tools", "allowed_tools"):
        value = matter.get(key)
        if isinstance(value, PStr):
            found.allowed += _split_rules(file, value)
        elif isinstance(value, PSeq):
            for i, item in enumerate(value):
                if isinstance(item, PStr):
                    found.allowed += _split_rules(file, item)
                elif isinstance(item, str):
                    found.allowed.append(Value(key, item, value.pos_of(i)))
    lower = f"/{file.path.lower()}"
    if lower.rsplit("/", 2)[-2:-1] == ["agents"] and "/.claude/agents/" not in lower:
        return found  # a plugin's subagent: Claude Code ignores its permissionMode and hooks
    if isinstance(matter.get("permissionMode"), str):
        found.permission_mode = _value(matter, "permissionMode")
    found.hooks = hook_commands(matter.get("hooks"))
    return found


def _split_rules(file: SourceFile, value: PStr) -> list[Value]:
    """The rules of one ``allowed-tools`` string, each at its own column where the scalar allows."""
    return [Value("allowed-tools", m.group(), file.str_pos(value, m.start())) for m in _TOOL_RULE.finditer(value)]


def _allowed_by_lines(file: SourceFile) -> list[Value]:
    """``allowed-tools`` of front matter that is not YAML: the rest of its line, or the ``- item``
    lines under it."""
    head = file.front_matter_text
    line = _ALLOWED_LINE.search(head)
    if line is None:
        return []
    if line.group("value"):
        start = line.start("value")
        text = line.group("value").strip("[]")
        offset = start + (1 if line.group("value").startswith("[") else 0)
        return [
            Value("allowed-tools", m.group().strip("\"'"), file.pos_at(offset + m.start()))
            for m in _TOOL_RULE.finditer(text)
        ]
    found = []
    at = line.end() + 1
    while (item := _ITEM_LINE.match(head, at)) is not None:
        found.append(Value("allowed-tools", item.group("value").strip("\"'"), file.pos_at(item.start("value"))))
        at = item.end() + 1
    return found


#: Variables of a settings ``env`` that make the shell Claude Code starts for each Bash tool call
#: (and for hooks) run a file or a command first, with why. Bash reads ``BASH_ENV`` when it starts
#: non-interactively, as the Bash tool's does; zsh reads ``$ZDOTDIR/.zshenv`` at every start.
#: ``ENV`` (read by interactive sh and bash in POSIX mode) and ``PROMPT_COMMAND`` (run before an
#: interactive prompt) are not: the Bash tool's shell is neither interactive nor prompting.
_ENV_COMMANDS = {
    "BASH_ENV": "every Bash tool call sources it first",
    "ZDOTDIR": "zsh reads .zshenv from it at every Bash tool call",
    "CLAUDE_CODE_SHELL_PREFIX": "Claude Code runs it before every shell command and hook",
    "CLAUDE_CODE_SHELL": "Claude Code runs every Bash tool call with it",
}
#: Shells ``CLAUDE_CODE_SHELL`` may name without running anything of the repository's.
_SHELLS = frozenset(("bash", "zsh", "sh", "dash", "ksh", "fish", "pwsh", "powershell", "cmd"))


def _env_command(key: str, value: Any) -> str:
    """Why ``env.KEY`` set to ``value`` runs a command by itself, or ""."""
    why = _ENV_COMMANDS.get(key, "")
    text = str(value).strip() if isinstance(value, str) else ""
    if not why or not text or text == "/dev/null":
        return ""
    if key == "CLAUDE_CODE_SHELL":
        name = text.replace("\\", "/").rsplit("/", 1)[-1].lower().removesuffix(".exe")
        return "" if name in _SHELLS else why
    return why


def permissions(file: SourceFile) -> Permissions | None:
    """The permission settings of any agent configuration file (None when it is not a mapping)."""
    return file.memo("agent_permissions", lambda: _permissions(_document(file)))


def _permissions(config: PMap | None) -> Permissions | None:
    if config is None:
        return None
    found = Permissions()
    block = config.get("permissions")
    if isinstance(block, PMap):
        allow = block.get("allow")
        if isinstance(allow, PSeq):
            found.allow = [Value("allow", str(e), allow.pos_of(i)) for i, e in enumerate(allow) if isinstance(e, str)]
        if "defaultMode" in block:
            found.default_mode = _value(block, "defaultMode")
    if config.get("skipDangerousModePermissionPrompt") is True:
        found.skip_dangerous_mode_prompt = _value(config, "skipDangerousModePermissionPrompt")
    return found


def folder_open_tasks(file: SourceFile) -> list[Task]:
    """Tasks of .vscode/tasks.json, or of a workspace's ``tasks``, that run when the folder opens."""
    return file.memo("folder_open_tasks", lambda: _folder_open_tasks(_document(file)))


def _folder_open_tasks(config: PMap | None) -> list[Task]:
    tasks = config.get("tasks") if config is not None else None
    if isinstance(tasks, PMap):  # *.code-workspace
        tasks = tasks.get("tasks")
    found = []
    for task in tasks if isinstance(tasks, PSeq) else ():
        options = task.get("runOptions") if isinstance(task, PMap) else None
        if isinstance(task, PMap) and isinstance(options, PMap) and options.get("runOn") == "folderOpen":
            command = " ".join(str(p) for p in [task.get("command") or "", *(task.get("args") or [])])
            found.append(Task(str(task.get("label") or "?"), command, options.pos_of("runOn")))
    return found


def editor_settings(file: SourceFile) -> EditorSettings | None:
    """VS Code settings of any agent configuration file (a workspace's ``settings`` if nested)."""
    return file.memo("editor_settings", lambda: _editor(_document(file)))


def _editor(config: PMap | None) -> EditorSettings | None:
    if config is None:
        return None
    nested = config.get("settings")
    settings = nested if isinstance(nested, PMap) else config
    found = EditorSettings([_value(settings, key) for key in _EDITOR_SWITCHES if key in settings])
    terminal = settings.get("chat.tools.terminal.autoApprove")
    if isinstance(terminal, PMap):
        found.terminal_auto_approve = [
            Value(str(p), allowed, terminal.pos_of_key(p)) for p, allowed in terminal.items()
        ]
    return found


def approval_settings(file: SourceFile) -> ApprovalSettings | None:
    """Codex and Gemini approval switches of any agent configuration file."""
    return file.memo("approval_settings", lambda: _approval(file, _document(file)))


def _approval(file: SourceFile, config: PMap | None) -> ApprovalSettings | None:
    if config is None:
        return None
    found = ApprovalSettings()
    for table in file.mappings(config, within=3, sequences=False):
        if "sandbox_mode" in table:
            found.sandbox_mode.append(_value(table, "sandbox_mode"))
        if "approval_policy" in table:
            found.approval_policy.append(_value(table, "approval_policy"))
    tools = config.get("tools")
    for holder in (config, tools) if isinstance(tools, PMap) else (config,):
        if "autoAccept" in holder:
            found.auto_accept.append(_value(holder, "autoAccept"))
        for key in _GEMINI_TOOL_COMMANDS:
            if isinstance(holder.get(key), str) and holder[key].strip():
                found.tool_commands.append(_value(holder, key))
        for key in ("allowed", "allowedTools"):
            allowed = holder.get(key)
            if isinstance(allowed, PSeq):
                found.allowed_tools += [
                    Value(key, str(e), allowed.pos_of(i)) for i, e in enumerate(allowed) if isinstance(e, str)
                ]
    return found


# ---- a slash command that turns approval off for the rest of the session ------------------------

#: A description saying the command turns approval off: an approving verb, what it approves, and
#: for how long or how much (``auto-allow every permission request ... until the session ends``).
_APPROVING = lazy(
    r"(?i)\b(?:auto[- ]?(?:allow|approv|accept)\w*|bypass\w*|yolo[- ]mode|skip\w*(?:\s+(?:all|every|the))?\s+"
    r"(?:permission|approval)s?)"
)
_APPROVED = lazy(r"(?i)\b(?:permissions?|approvals?|prompts?|requests?|tool calls?|commands?)\b")
_LASTING = lazy(r"(?i)\b(?:session|every|all|any|until|from now on|rest of)\b")
#: Words that turn a description or a line around: a command that switches approval back on, a
#: warning or a check (``Disable YOLO mode``, ``never set bypassPermissions``, ``flag any ...``).
_TURNED = lazy(
    r"(?i)\b(?:disabl\w*|turn(?:s|ing)?\s+off|stop\w*|resum\w*|revert\w*|restor\w*|exit\w*|leave|leaving|never|not|"
    r"don'?t|avoid\w*|warn\w*|flag\w*|detect\w*|check\w*|audit\w*|reject\w*|block\w*|den(?:y|ies)|refus\w*|"
    r"remov\w*|unset\w*|whether|if\b)"
)
#: Bypass mode written into settings, as JSON or as a dotted key (``"defaultMode": "bypassPermissions"``,
#: ``permissions.defaultMode = bypassPermissions``), and the flag that hides its warning.
_BYPASS_WRITTEN = lazy(
    r"""(?i)defaultMode["'`]?\s*[:=]\s*["'`]?bypassPermissions|skipDangerousModePermissionPrompt["'`]?\s*[:=]\s*true"""
)
#: A ``!`command` `` line of a command's body, which Claude Code runs before the model reads it.
_BANG = lazy(r"!`(?P<command>[^`\n]+)`")


class SessionSwitch(NamedTuple):
    """Where a slash command turns approval off for the session, and how it says so."""

    pos: Pos
    how: str
    person_only: bool  # ``disable-model-invocation: true``: only a person can start it
    lasting: bool = True  # approval stays off after the command (not a one-shot agent it starts)


def session_switch(file: SourceFile) -> SessionSwitch | None:
    """A Claude Code slash command (``.claude/commands/*.md``, a plugin's ``commands/*.md``) that
    switches approval off for the rest of the session: its description says so, its body writes
    bypass mode into settings, or a ``!`...` `` line of its body starts an agent with approval
    skipped (read as AA008 reads a command line). Lines that turn it around (a
    warning, a check, ``Disable ...``) are not read as a switch. None for any other file."""
    lower = f"/{file.path.lower()}"
    if not is_claude_component(file) or lower.endswith("/skill.md") or "/agents/" in lower:
        return None
    matter = file.front_matter if file.front_matter_text else None
    person_only = isinstance(matter, PMap) and matter.get("disable-model-invocation") is True
    if isinstance(matter, PMap) and isinstance(description := matter.get("description"), PStr):
        first = re.split(r"[.;\n]|\s[-\u2013\u2014]\s", str(description), maxsplit=1)[0]
        text = str(description)
        if _APPROVING.search(text) and _APPROVED.search(text) and _LASTING.search(text) and not _TURNED.search(first):
            return SessionSwitch(description.pos, "its description says so", person_only)
    body_start = len(file.front_matter_text)
    for match in _BYPASS_WRITTEN.finditer(file.text, body_start):
        line_start = file.text.rfind("\n", 0, match.start()) + 1
        line_end = file.text.find("\n", match.end())
        line = file.text[line_start : line_end if line_end >= 0 else len(file.text)]
        if not _TURNED.search(line):
            return SessionSwitch(
                file.pos_at(match.start()), f"its body writes {match.group(0)!r} into settings", person_only
            )
    for match in _BANG.finditer(file.text, body_start):
        for command in parse_commands(match.group("command")):
            for word, agent, _ in dangerous_flags(command.words):
                how = f"its !`...` line starts {agent} with {word.text}, which runs before the model reads the command"
                return SessionSwitch(file.pos_at(match.start("command")), how, person_only, lasting=False)
    return None
