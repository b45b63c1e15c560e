"""What agent configuration files say: MCP servers, wherever each agent keeps them.

Claude Code (.mcp.json, .claude.json, claude_desktop_config.json, a plugin's manifest, and a
plugin's .mcp.json, which may hold its servers at its top), Cursor, Windsurf, Roo, Kiro, Amazon Q
and Gemini (``mcpServers``), VS Code (``servers`` in .vscode/mcp.json,
``mcp.servers`` in settings), Codex (``[mcp_servers.NAME]`` in .codex/config.toml), Continue
(``mcpServers`` as a list), opencode (``mcp`` with a command list) and Zed
(``context_servers``) all reduce to the same record. The keys come from each agent's
``mcp`` entry in the agent catalogue (:mod:`sandkit.agents`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, NamedTuple

from sandkit.agents import CATALOGUE, unique
from sandkit.lint.source import SourceFile
from sandkit.lint.syntax.tree import PMap, Pos, PSeq, PStr, pos_of

if TYPE_CHECKING:
    from typing import Any

# The keys every agent of the catalogue uses (sandkit/agents.py), and "uri", which configs write too.
_MCP = [agent.mcp for agent in CATALOGUE if agent.mcp is not None]
_SERVER_TABLES = unique([key for mcp in _MCP for key in mcp.tables])
_URL_KEYS = unique([*(key for mcp in _MCP for key in mcp.url), "uri"])  # the last one present wins
_ENV_KEYS = unique([key for mcp in _MCP for key in mcp.env])  # env and headers alike


class Item(NamedTuple):
    name: str
    value: str
    pos: Pos


class McpServer:
    """One server entry, filled in as its table is read."""

    __slots__ = ("args", "command", "command_pos", "env", "name", "pos", "url")

    def __init__(self, name: str, pos: Pos) -> None:
        self.name = name
        self.pos = pos
        self.command = ""
        self.command_pos = Pos()
        self.args: list[Item] = []
        self.env: list[Item] = []  # env and headers
        self.url: Item | None = None

    @property
    def argv(self) -> list[str]:
        return [self.command, *(a.value for a in self.args)] if self.command else []


def mcp_servers(file: SourceFile) -> list[McpServer]:
    return file.memo("mcp_servers", lambda: list(_servers(file)))


def _servers(file: SourceFile) -> Iterator[McpServer]:
    """Servers in a server table (``mcpServers`` and the like) at any level of the file, and a
    plugin's ``.mcp.json`` that names its servers at its top, with no table around them."""
    tables = 0
    for node in file.mappings(prune=_SERVER_TABLES):
        for key, value in node.items():
            if key in _SERVER_TABLES:
                tables += 1
                yield from _table(value)
    top = file.documents[0] if file.documents else None
    if not tables and isinstance(top, PMap) and file.path.lower().rsplit("/", 1)[-1] == ".mcp.json":
        yield from _table(top)


def _table(value: Any) -> Iterator[McpServer]:
    seen: set[int] = set()
    while isinstance(value, PMap) and isinstance(value.get("servers"), PMap) and id(value) not in seen:
        seen.add(id(value))  # VS Code nests them: "mcp": {"servers": {...}}; aliases may loop
        value = value["servers"]
    if isinstance(value, PMap):
        for name, spec in value.items():
            if isinstance(spec, PMap) and _is_server(spec):
                yield _server(str(name), spec, value.pos_of_key(name))
    elif isinstance(value, PSeq):
        for spec in value:
            if isinstance(spec, PMap) and _is_server(spec):
                yield _server(str(spec.get("name") or "?"), spec, spec.pos)


def _is_server(spec: PMap) -> bool:
    return "command" in spec or any(k in spec for k in _URL_KEYS)


def _server(name: str, spec: PMap, pos: Pos) -> McpServer:
    server = McpServer(name, pos)
    command = spec.get("command")
    args = spec.get("args")
    if isinstance(command, PMap):  # Zed: {"command": {"path": ..., "args": [...], "env": {}}}
        args = command.get("args")
        spec = PMap(spec.pos) if not isinstance(command.get("env"), PMap) else command
        command = command.get("path")
    if isinstance(command, PSeq):  # opencode: "command": ["npx", "-y", "pkg"]
        items = [(str(c), command.pos_of(i)) for i, c in enumerate(command)]
        if items:
            server.command, server.command_pos = items[0]
            server.args = [Item("", text, at) for text, at in items[1:]]
    elif isinstance(command, str):
        server.command, server.command_pos = str(command), pos_of(command, spec.pos)
    if isinstance(args, PSeq):
        server.args += [
            Item("", str(a), args.pos_of(i)) for i, a in enumerate(args) if isinstance(a, str | int | float)
        ]
    for key in _ENV_KEYS:
        table = spec.get(key)
        if isinstance(table, PMap):
            for env_name, env_value in table.items():
                if isinstance(env_value, str):
                    server.env.append(Item(str(env_name), str(env_value), table.pos_of(env_name)))
    for key in _URL_KEYS:
        url = spec.get(key)
        if isinstance(url, PStr):
            server.url = Item(key, str(url), url.pos)
    return server
