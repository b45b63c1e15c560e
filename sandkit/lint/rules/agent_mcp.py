"""agent-mcp: MCP servers an agent starts or connects to, as configured in the repository.

An MCP server is a program the agent launches with the user's privileges (or a remote
endpoint it trusts with tool results). Trojanised MCP packages were published in 2025 and
2026; a server fetched unpinned at every start runs whatever the latest upload is.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from sandkit.lazy_regex import lazy
from sandkit.lint.facts.agent_commands import FETCH_RUN
from sandkit.lint.facts.docker_cli import RUNTIMES, run_image, unpinned_image
from sandkit.lint.facts.mcp_servers import McpServer, mcp_servers
from sandkit.lint.facts.secret_values import find_tokens, literal_secret
from sandkit.lint.kinds import AGENT_CONFIG
from sandkit.lint.model import Edit, Finding, FixContext, Hit
from sandkit.lint.registry import fixer, rule
from sandkit.lint.source import SourceFile
from sandkit.lint.syntax.shell import Command, Word
from sandkit.lint.syntax.tree import Pos

_TRIGGERS = ("command", "url", "Url", "uri")
_NPM_RUNNERS = {"npx", "bunx", "pnpx"}
_DLX = {"pnpm", "yarn", "bun", "npm"}  # pnpm dlx, yarn dlx, bun x, npm exec
_PY_RUNNERS = {"uvx", "pipx", "uv"}
_NPM_EXACT = lazy(r"\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]{1,64})?")
_PY_EXACT = lazy(r"(?:==|@)\d+(?:\.\d+){1,3}(?:[a-z0-9.+-]{0,32})?$")
_SHELLS = {"sh", "bash", "zsh", "dash", "pwsh", "powershell", "cmd", "cmd.exe", "powershell.exe"}
_LOCAL_HOSTS = ("localhost", "127.", "[::1]", "0.0.0.0", "host.docker.internal")


def _program(server: McpServer) -> str:
    return server.command.replace("\\", "/").rsplit("/", 1)[-1].lower().removesuffix(".cmd")


def _npm_package(args: list[str]) -> str:
    """The package an npx-like runner starts: the first argument that is not an option."""
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg in ("-p", "--package"):
            skip = False
            continue
        if arg.startswith("--package="):
            return arg.split("=", 1)[1]
        if arg.startswith("-"):
            continue
        return arg
    return ""


def _npm_pinned(spec: str) -> bool:
    name, at, version = spec[1:].partition("@") if spec.startswith("@") else spec.partition("@")
    if spec.startswith("@") and "/" not in name:
        return False
    return bool(at) and bool(_NPM_EXACT.fullmatch(version))


class Unpinned(NamedTuple):
    """A package a runner fetches without an exact version, and where it is written."""

    spec: str  # as written: "pkg", "pkg@latest", "pkg>=1"
    pos: Pos
    ecosystem: str  # "npm" or "pypi"
    arg: str  # the argument holding it ("pkg", or "--from=pkg")


def _unpinned(server: McpServer) -> Unpinned | None:
    """The package a runner starts without an exact version, if any."""
    program = _program(server)
    args = [a.value for a in server.args]
    positions = [a.pos for a in server.args]
    if program in _DLX and args[:1] in (["dlx"], ["x"], ["exec"]):
        program, args, positions = "npx", args[1:], positions[1:]
    if program in _NPM_RUNNERS:
        package = _npm_package(args)
        if package and not package.startswith((".", "/", "http")) and not _npm_pinned(package):
            return _located(package, args, positions, server, "npm")
        return None
    if program in _PY_RUNNERS:
        if program == "uv":
            if args[:2] != ["tool", "run"]:
                return None
            args, positions = args[2:], positions[2:]
        elif program == "pipx":
            if args[:1] != ["run"]:
                return None
            args, positions = args[1:], positions[1:]
        spec = ""
        for i, arg in enumerate(args):
            if arg in ("--from", "--spec") and i + 1 < len(args):
                spec = args[i + 1]
                break
            if arg.startswith(("--from=", "--spec=")):
                spec = arg.split("=", 1)[1]
                break
            if not arg.startswith("-"):
                spec = arg
                break
        if (
            spec
            and not spec.startswith((".", "/"))
            and not _PY_EXACT.search(spec)
            and not re.search(r"@[0-9a-f]{40}$", spec)
        ):
            return _located(spec, args, positions, server, "pypi")
    return None


def _unpinned_image(server: McpServer) -> tuple[str, Pos, str] | None:
    """(image, where, why) for a server started as ``docker|podman run ... IMAGE`` whose image
    names no fixed build; None otherwise."""
    if _program(server) not in RUNTIMES:
        return None
    words = [Word(server.command, server.command_pos), *(Word(a.value, a.pos) for a in server.args)]
    image = run_image(Command(words=words))
    why = unpinned_image(image.text) if image is not None else ""
    return (image.text, image.pos, why) if image is not None and why else None


def _located(spec: str, args: list[str], positions: list[Pos], server: McpServer, ecosystem: str) -> Unpinned:
    """Where ``spec`` is written: its own argument, or the one that carries it (``--from=spec``)."""
    for arg, pos in zip(args, positions, strict=True):
        if arg == spec:
            return Unpinned(spec, pos, ecosystem, arg)
    holder = next((a for a in args if a.endswith("=" + spec)), spec)
    return Unpinned(spec, server.pos, ecosystem, holder)


def _fetch_and_run(server: McpServer) -> str:
    program = _program(server)
    joined = " ".join(server.argv)
    if program in _SHELLS and FETCH_RUN.search(joined):
        return "downloads a script and pipes it into an interpreter"
    if program not in _NPM_RUNNERS | _PY_RUNNERS | {"deno", "bun"}:
        return ""
    for arg in _package_specs([a.value for a in server.args]):
        if re.match(r"(?:git\+)?https?://", arg):
            if "git+" in arg and re.search(r"@[0-9a-f]{40}$", arg):
                continue
            return f"runs code straight from {arg[:80]}"
    return ""


_PACKAGE_OPTIONS = frozenset({"-p", "--package", "--from", "--with"})


def _package_specs(args: list[str]) -> list[str]:
    """What a package runner runs: the values of --package/--from/--with and its first positional
    argument (``run`` and ``dlx`` skipped); what follows is the program's own arguments (the URL
    `npx mcp-remote https://...` connects to is not code it runs)."""
    specs: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        name, eq, value = arg.partition("=")
        if name in _PACKAGE_OPTIONS:
            specs.append(value if eq else (args[index + 1] if index + 1 < len(args) else ""))
            index += 1 if eq else 2
            continue
        if arg.startswith("-") or arg in ("run", "dlx", "x", "exec"):
            index += 1
            continue
        specs.append(arg)
        break
    return specs


@rule(
    "AM001",
    "unpinned-mcp-package",
    category="agent-mcp",
    severity="medium",
    kinds=(AGENT_CONFIG,),
    triggers=("npx", "bunx", "pnpx", "dlx", "uvx", "pipx", "uv", "exec", '"x"', *RUNTIMES),
)
def unpinned_mcp_package(file: SourceFile) -> Iterator[Hit]:
    """An MCP server is a package or container image fetched without a pinned version.

    Runners: npx, bunx, pnpx, pnpm/yarn dlx, bun x, npm exec, uvx, pipx run, uv tool run.
    `npx -y some-mcp-server`, `npx pkg@latest`, `npx pkg@^1.2`, `uvx mcp-server-x`,
    `pipx run pkg` and `uv tool run pkg` are findings; `npx pkg@1.4.2`, `uvx pkg==0.6.1`,
    `uvx --from pkg==0.6.1 cmd` and git URLs pinned to a commit are not. A server started as
    a container (`docker run -i --rm IMAGE`, podman, nerdctl, finch) is one when its image has
    no tag (so `:latest`), a moving tag (`:latest`, `:main`, `:edge`, `:stable-alpine`) or a
    major or minor version tag (`:1`, `:v2.3`); an image pinned by digest (`@sha256:...`) or
    tagged with a full version (`:1.4.2`, `:v0.5.0-alpine`) is not. Read from every MCP
    configuration file the major agents use (.mcp.json, .cursor/mcp.json, .vscode/mcp.json,
    .gemini/settings.json, .codex/config.toml, .continue, .roo, .kiro, .amazonq, .windsurf,
    opencode.json, .zed/settings.json, claude_desktop_config.json).

    Why:
    The runner downloads the newest release at every start and runs it with the user's
    privileges. One hijacked maintainer account, or a typo-squatted name, and the next
    session runs the attacker's code; this happened to published MCP servers in 2025. An
    image without a fixed tag is pulled as whatever the tag points at on the day a machine
    first runs it (and at every start with `--pull always`).

    Fix:
    Pin the exact version (`npx -y pkg@1.4.2`, `uvx pkg==0.6.1`, `IMAGE@sha256:...` or
    `IMAGE:1.4.2`), and update it on purpose after reading the change.
    """
    for server in mcp_servers(file):
        found = _unpinned(server)
        if found is not None:
            yield Hit(
                found.pos,
                f'MCP server "{server.name}" runs {found.spec} by {_program(server)} without an exact version',
            )
        image = _unpinned_image(server)
        if image is not None:
            name, pos, why = image
            runtime = _program(server)
            yield Hit(
                pos, f'MCP server "{server.name}" runs the image {name} by {runtime} without a pinned version ({why})'
            )


@rule(
    "AM002",
    "mcp-fetch-and-execute",
    category="agent-mcp",
    severity="high",
    kinds=(AGENT_CONFIG,),
    triggers=("curl", "wget", "http", "iex", "irm", "iwr"),
)
def mcp_fetch_and_execute(file: SourceFile) -> Iterator[Hit]:
    """An MCP server's command downloads code and runs it.

    `sh -c "curl ... | sh"` (wget, PowerShell `irm | iex`, `bash <(curl ...)`, piping into
    python or node), and package runners given a URL (`npx https://...`, `uvx --from
    git+https://...` not pinned to a commit, `deno run https://...`).

    Why:
    Whatever the URL serves at the moment the agent starts runs on the machine; nothing
    records what ran, and the server can change it per request.

    Fix:
    Install the server as a pinned package or a vendored, reviewed script, and start that.
    """
    for server in mcp_servers(file):
        what = _fetch_and_run(server)
        if what:
            yield Hit(server.command_pos, f'MCP server "{server.name}" {what}')


@rule(
    "AM003",
    "mcp-plaintext-token",
    category="agent-mcp",
    severity="high",
    kinds=(AGENT_CONFIG,),
    triggers=("env", "headers", "environment"),
)
def mcp_plaintext_token(file: SourceFile) -> Iterator[Hit]:
    """An MCP server's env or headers hold a literal token.

    A secret-named variable or header (GITHUB_TOKEN, API_KEY, Authorization ...) with a
    literal value, or any value in a known credential format. `${VAR}`, `${env:VAR}`,
    `${input:...}` references and placeholders are not findings.

    Why:
    MCP configuration files are committed and shared; a token in them is readable by every
    agent session and every clone, and is usually a broad personal token.

    Fix:
    Reference the variable from the environment (`"GITHUB_TOKEN": "${GITHUB_TOKEN}"`, or VS
    Code `${input:token}`), and revoke the token that was committed.
    """
    for server in mcp_servers(file):
        for item in server.env:
            tokens = list(find_tokens(item.value))
            value = item.value
            if item.name.lower() == "authorization":
                value = value.split(" ", 1)[-1]
                named = literal_secret("token", value)
            else:
                named = literal_secret(item.name, value)
            if tokens:
                yield Hit(
                    item.pos, f'MCP server "{server.name}" has a {tokens[0].kind} in {item.name} ({tokens[0].shown})'
                )
            elif named:
                yield Hit(item.pos, f'MCP server "{server.name}" has a literal secret in {item.name}')


@rule("AM004", "mcp-plain-http", category="agent-mcp", severity="medium", kinds=(AGENT_CONFIG,), triggers=("http://",))
def mcp_plain_http(file: SourceFile) -> Iterator[Hit]:
    """An MCP server is reached over plain http to a host that is not this machine.

    `url`/`serverUrl`/`httpUrl` values and `mcp-remote http://...`-style arguments.
    localhost, 127.0.0.0/8, [::1] and host.docker.internal are not findings.

    Why:
    Anyone on the path can read the tool calls (code, secrets the agent passes) and rewrite
    the results, which the agent then acts on as trusted tool output.

    Fix:
    Use https, or run the server locally.
    """
    for server in mcp_servers(file):
        candidates = [server.url] if server.url else []
        candidates += [a for a in server.args if a.value.startswith("http://")]
        for item in candidates:
            if item is None or not item.value.lower().startswith("http://"):
                continue
            host = item.value[7:].split("/", 1)[0].split("@")[-1]
            if not host.lower().startswith(_LOCAL_HOSTS):
                yield Hit(item.pos, f'MCP server "{server.name}" is reached over plain http: {item.value[:80]}')


_NPM_NAME = lazy(r"(?:@[a-z0-9][\w.-]*/)?[a-z0-9][\w.-]*", re.IGNORECASE)
_PY_SPEC = lazy(r"([A-Za-z0-9][A-Za-z0-9._-]*)(\[[A-Za-z0-9,._ -]*\])?(?:(?:@|==|~=|>=|<=|>|<|!=)[^\s;]*)?")


def _pinned_spec(found: Unpinned, file: SourceFile, context: FixContext) -> str | None:
    """The spec rewritten to the version the repository locks (``pkg@1.4.2``, ``pkg[x]==0.6.1``)."""
    if found.ecosystem == "npm":
        name = "@" + found.spec[1:].partition("@")[0] if found.spec.startswith("@") else found.spec.partition("@")[0]
        extras = ""
        valid = _NPM_NAME.fullmatch(name) is not None
    else:
        match = _PY_SPEC.fullmatch(found.spec)
        name, extras, valid = (match.group(1), match.group(2) or "", True) if match else ("", "", False)
    if not valid:
        context.note(f"{file.path}: {found.spec} is not a plain package name; pin it by hand")
        return None
    version = context.locked_version(found.ecosystem, name, file.path)
    if version is None:
        return None
    return f"{name}@{version}" if found.ecosystem == "npm" else f"{name}{extras}=={version}"


def _literal_at(file: SourceFile, value: str, after: Pos) -> int | None:
    """The offset of ``value`` written as a whole string literal (quoted, or a plain YAML
    scalar) at or after ``after``: where an edit inside it keeps the file's syntax."""
    text = file.text
    start = sum(len(line) + 1 for line in text.split("\n")[: after.line - 1])
    pattern = re.compile(
        rf"(?P<q>[\"'])(?P<v>{re.escape(value)})(?P=q)"
        + (rf"|(?<=[\s\[,])(?P<plain>{re.escape(value)})(?=\s*(?:[,\]#]|$))" if file.syntax == "yaml" else ""),
        re.MULTILINE,
    )
    match = pattern.search(text, start)
    if match is None:
        return None
    return match.start("v") if match.group("v") is not None else match.start("plain")


@fixer("AM001")
def pin_mcp_package(file: SourceFile, findings: Sequence[Finding], context: FixContext) -> Iterator[Edit]:
    """Pin each reported package to the one version the repository's lockfiles or registry
    metadata name for it (see :mod:`sandkit.lint.lockfiles`); leave it, with a note, otherwise."""
    wanted = {(f.line, f.column) for f in findings}
    for server in mcp_servers(file):
        found = _unpinned(server)
        if found is None or tuple(found.pos) not in wanted:
            continue
        pinned = _pinned_spec(found, file, context)
        if pinned is None:
            continue
        offset = _literal_at(file, found.arg, server.pos)
        if offset is None:
            context.note(f"{file.path}: {found.arg} is written in a way --fix does not edit; pin it by hand")
            continue
        start = offset + found.arg.rindex(found.spec)
        yield Edit(start, start + len(found.spec), pinned)
