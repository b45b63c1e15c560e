"""agent-instructions: instruction files that tell an agent to run something it should not, or
that hide text from the people reviewing them; agent files planted in dependencies.

CLAUDE.md, AGENTS.md, GEMINI.md, .cursorrules, .cursor/rules, .clinerules, .windsurfrules,
copilot instructions, SKILL.md, .claude/commands and the like are read by the agent as
instructions from the user. Whoever can edit them can steer it.
"""

from __future__ import annotations

import base64
import binascii
import bisect
from collections.abc import Iterator

from sandkit.lazy_regex import lazy
from sandkit.lint.facts.agent_commands import FETCH_RUN, FETCH_WORDS
from sandkit.lint.kinds import AGENT_CONFIG, AGENT_INSTRUCTIONS
from sandkit.lint.model import Hit, clip
from sandkit.lint.registry import rule
from sandkit.lint.source import SourceFile
from sandkit.lint.syntax.tree import Pos

_HIDDEN_SCRIPT = lazy(
    r"(?:^|[\s`(\"'])(?:bash|sh|zsh|source|python3?|node|deno|pwsh|\.)[ \t]+(?:\./)?"
    r"(\.(?!github/|devcontainer/|(?:venv|tox|nox|direnv|env)/|\.)[A-Za-z0-9_-]{1,40}/[^\s`\"')]{1,200})"
)
_DOWNLOAD = lazy(r"(?i)\b(?:curl|wget)\b")
_ACTIVATE = lazy(r"/(?:bin|Scripts)/activate(?:\.\w{1,4})?$")
_OUTPUT = lazy(r"[ \t](?:-o|-O|--output)[ \t]+\S")
_THEN_RUN = lazy(r"(?:&&|;)[ \t]*(?:chmod[ \t]+\+x|(?:ba|z)?sh[ \t]|python3?[ \t]|\./|/)")
_TARGET = lazy(r"://|\w\.[A-Za-z]{2,}\b|\$")  # a URL, a host name or a variable
_NEGATED = lazy(r"(?i)\b(?:never|don'?t|do not|avoid|instead of|rather than|not)\b")
_TOOL_COMMENT = lazy(
    r"(?i)^\s*(?:markdownlint|prettier|eslint|vale|textlint|cspell|toc|/?toc|end|begin|start|"
    r"stop|sandkit:|omit|include|snippet|region|endregion|lint|@|#|\w+-(?:start|end)|"
    r"all-contributors|github-only|badges?|readme|---)"
)
_BASE64 = lazy(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/]{200,}={0,2}")
_HEX = lazy(r"[0-9A-Fa-f]+")
_RISKY_WORDS = lazy(
    r"(?i)\b(?:ignore|disregard|do not (?:tell|mention|reveal)|secret|"
    r"token|password|credential|curl|wget|exfiltrat\w*|send|upload|run|"
    r"execute|install)\b"
)


def _instruction(file: SourceFile, pos: Pos, offset: int) -> bool:
    """A download aimed at something (a URL, a host, a variable) and not a warning about one."""
    line = file.line_text(pos.line)[:4000]
    return bool(_TARGET.search(line, pos.column - 1)) and not _NEGATED.search(line[: pos.column - 1])


@rule(
    "AI001",
    "instructions-fetch-and-execute",
    category="agent-instructions",
    severity="high",
    kinds=(AGENT_INSTRUCTIONS,),
    triggers=("curl", "wget", "irm", "iwr", "iex", "bash", "sh ", "source", "python", "node", ". ."),
)
def instructions_fetch_and_execute(file: SourceFile) -> Iterator[Hit]:
    """An instruction file tells the agent to download and run code, or to run a hidden script.

    `curl ... | sh` (wget, PowerShell `irm | iex`, `bash <(curl ...)`, piping into python or
    node), `curl -o x ... && ./x`, and running a script from a hidden folder (`bash
    .cache/setup.sh`, `node .vscode/x.js`; .github and .devcontainer are not counted, nor folders
    that tools make in the checkout: `source .venv/bin/activate`, `.tox/`, `.nox/`, `.direnv/`).
    A hidden script is medium (committed, not downloaded), and info when the instruction file is
    in the same hidden folder (`.claude/skills/x/SKILL.md` running
    `python .claude/skills/x/scripts/sync.py`): the script is then exactly as visible as the
    instructions that name it, like `./scripts/test.sh` named from the top.
    Ordinary instructions such as "run `pytest -q`" or "`npm test`", and warnings
    ("never pipe `curl ... | sh`"), are not findings. Scripts in an agent's folders
    (`.claude/skills/x/scripts/y.py`, `.claude/commands/deploy.sh`, an extension-less file with a
    shebang) are code, not instructions: their comments and docstrings (a usage line) are not read
    here; shell scripts among them are read as shell.

    Why:
    The agent treats the file as its user's instructions and runs the command in the
    workspace, with whatever credentials and network it has; the downloaded or hidden
    script is not part of any review.

    Fix:
    Remove the instruction; vendor and review the script (in a visible folder), or install
    the tool through a pinned package.
    """
    seen: set[int] = set()
    piped = any(mark in file.text for mark in ("|", "<(", "iex", "IEX", "eval"))  # FETCH_RUN needs one
    piped = piped and any(word in file.lowered for word in FETCH_WORDS)  # and one of these (Markdown tables have "|")
    for match, pos in file.search(FETCH_RUN) if piped else ():
        if _instruction(file, pos, match.start()) and pos.line not in seen:
            seen.add(pos.line)
            yield Hit(pos, f"instructions tell the agent to download code and run it: {clip(match.group())}")
    no_output: set[int] = set()  # lines where a download writes no file: later matches there cannot either
    for match, pos in file.search(_DOWNLOAD):
        if pos.line in seen or pos.line in no_output:
            continue
        line = file.line_text(pos.line)[:4000]
        rest = line[pos.column - 1 :]
        output = _OUTPUT.search(rest)
        if output is None:
            no_output.add(pos.line)
            continue
        if not _instruction(file, pos, match.start()):
            continue
        if _THEN_RUN.search(rest, output.end()):
            seen.add(pos.line)
            yield Hit(pos, f"instructions tell the agent to download a file and run it: {clip(rest)}")
    for match, _pos in file.search(_HIDDEN_SCRIPT):
        pos = file.pos_at(match.start(1))
        if _ACTIVATE.search(match.group(1)):
            continue  # a virtual environment's activate script: made by the tool, not committed
        if pos.line not in seen:
            seen.add(pos.line)
            own = _own_folder(file.path, match.group(1))
            why = f"the script is in {own}/ like these instructions: committed, as visible as they are"
            yield Hit(
                pos,
                f"instructions tell the agent to run {match.group(1)} from a hidden folder",
                severity="info" if own else "medium",
                why=why if own else "a committed script, not a download",
            )


def _own_folder(path: str, script: str) -> str:
    """The hidden folder ``script`` starts with (``.claude``) when the instruction file at ``path``
    is inside it too (``.claude/skills/x/SKILL.md`` running ``.claude/skills/x/scripts/y.py``): a
    skill or command running the script committed beside it; "" otherwise."""
    top = script.split("/", 1)[0]
    return top if top in path.split("/")[:-1] else ""


_FENCE = lazy(r"(?m)^ {0,3}(`{3,}|~{3,})")
_CODE_SPAN = lazy(r"(`+)[^`\n]+?\1")


def _code_spans(text: str) -> list[tuple[int, int]]:
    """Offsets of fenced code blocks and inline code spans, where Markdown shows text as written."""
    spans: list[tuple[int, int]] = []
    fences = list(_FENCE.finditer(text))
    index = 0
    while index < len(fences):
        marker = fences[index].group(1)
        after = index + 1
        while after < len(fences) and not (
            fences[after].group(1)[0] == marker[0] and len(fences[after].group(1)) >= len(marker)
        ):
            after += 1
        spans.append((fences[index].start(), fences[after].end() if after < len(fences) else len(text)))
        index = after + 1
    inline = [(m.start(), m.end()) for m in _CODE_SPAN.finditer(text) if not _inside(spans, m.start())]
    return sorted(spans + inline)


def _inside(spans: list[tuple[int, int]], offset: int) -> bool:
    """Whether ``offset`` falls in one of ``spans`` (sorted, not overlapping)."""
    index = bisect.bisect_right(spans, (offset, len(spans) and 1 << 62)) - 1
    return index >= 0 and spans[index][0] <= offset < spans[index][1]


@rule(
    "AI002",
    "instructions-hidden-comment",
    category="agent-instructions",
    severity="medium",
    kinds=(AGENT_INSTRUCTIONS,),
    triggers=("<!--",),
)
def instructions_hidden_comment(file: SourceFile) -> Iterator[Hit]:
    """An instruction file carries text in an HTML comment, invisible when rendered.

    Comments of six words or more, or with a command or URL in them, in Markdown instruction
    files. Tool directives (`<!-- markdownlint-disable -->`, `<!-- prettier-ignore -->`,
    `<!-- toc -->`, sandkit suppression comments) and short notes are not findings.
    High when the comment talks about secrets, ignoring instructions, or running commands.

    Why:
    GitHub and every Markdown viewer hide the comment, so a reviewer approves what they see,
    while the agent reads the raw file, comment included.

    Fix:
    Move the text into the visible part of the file (so it is reviewed), or delete it.
    """
    text = file.text
    shown = _code_spans(text)
    start = text.find("<!--")
    while start >= 0:
        end = text.find("-->", start + 4)
        if end < 0:
            return  # an unclosed comment: nothing after it can close one either
        body = text[start + 4 : end]
        opened, start = start, text.find("<!--", end + 3)
        if _inside(shown, opened):
            continue  # in a code block or code span: rendered as text, not hidden
        words = body.split()
        if _TOOL_COMMENT.match(body) or (len(words) < 6 and "://" not in body):
            continue
        risky = _RISKY_WORDS.search(body) or FETCH_RUN.search(body)  # a cited link alone is no order
        yield Hit(
            file.pos_at(text.rfind("<!--", 0, end)),
            f"HTML comment hides {len(words)} words from readers: {clip(body)!r}",
            severity="high" if risky else "",
            why="the hidden text talks about commands, downloads or secrets",
        )


def _decoded_preview(blob: str) -> str:
    try:
        raw = base64.b64decode(blob + "=" * (-len(blob) % 4), validate=False)
    except (binascii.Error, ValueError):
        return ""
    text = raw[:400].decode("utf-8", errors="replace")
    printable = sum(c.isprintable() or c in "\n\t" for c in text)
    return text if text and printable / len(text) > 0.9 else ""


@rule(
    "AI003", "instructions-encoded-blob", category="agent-instructions", severity="medium", kinds=(AGENT_INSTRUCTIONS,)
)
def instructions_encoded_blob(file: SourceFile) -> Iterator[Hit]:
    """An instruction file carries a long base64 or hex blob (200 characters or more).

    When the base64 decodes to readable text the message shows its start, and the finding
    is high. Images embedded as `data:image/...;base64,` are not findings.

    Why:
    Nobody reviews a blob, but a model can decode it and follow what it says, or be told to
    decode and run it.

    Fix:
    Remove the blob; if the agent needs the content, commit it in readable form.
    """
    for match, pos in file.search(_BASE64):
        lead = file.text[max(match.start() - 40, 0) : match.start()]
        if "base64," in lead and "data:" in lead:
            continue
        blob = match.group()
        hexadecimal = _HEX.fullmatch(blob) is not None
        preview = "" if hexadecimal else _decoded_preview(blob)
        label = "hex" if hexadecimal else "base64"
        message = f"{len(blob)}-character {label} blob in instructions"
        if preview:
            message += f" decodes to {clip(preview, 80)!r}"
        yield Hit(pos, message, severity="high" if preview else "", why="it decodes to readable text")


_DEPENDENCY_FOLDERS = frozenset({"node_modules", "vendor", ".venv", "site-packages", ".tox", ".nox"})
#: Go module hosts whose module paths name an owner and a repository (github.com/owner/name);
#: other hosts' paths name the module right after the host (gopkg.in/yaml.v3, k8s.io/api).
_GO_OWNER_HOSTS = frozenset({"github.com", "gitlab.com", "bitbucket.org", "codeberg.org", "golang.org", "gitea.com"})
_GO_MAJOR_VERSION = lazy(r"v[2-9]\d{0,2}")
#: Configuration opened only on purpose: VS Code reads a .code-workspace when someone picks
#: "Open Workspace from File", never because it lies in a folder of the workspace.
_OPENED_ON_PURPOSE = (".code-workspace",)


def _package_length(folder: str, rest: list[str]) -> int:
    """How many leading parts of a path inside a dependency folder name the package: an npm
    scope and its package (@scope/pkg), a Go module path in vendor/ (github.com/owner/name,
    with a /v2 major-version folder), a Composer vendor/owner/package, or one folder."""
    if rest[0].startswith("@"):
        return 2
    if folder != "vendor" or len(rest) < 3:
        return 1
    if "." not in rest[0]:
        return 2  # Composer: vendor/owner/package
    length = 3 if rest[0] in _GO_OWNER_HOSTS else 2
    if len(rest) > length and _GO_MAJOR_VERSION.fullmatch(rest[length]):
        length += 1
    return length


def _where_agents_look(path: str) -> bool:
    """Instructions at a package's top (node_modules/pkg/CLAUDE.md,
    vendor/github.com/owner/name/v2/AGENTS.md) or in an agent's hidden folder
    (node_modules/pkg/.cursor/rules/x.mdc); not a page of the package's documentation that shares
    a name (an Agent.md among undici's API pages), which no agent reads as its instructions."""
    parts = path.split("/")
    last = max(i for i, part in enumerate(parts[:-1]) if part in _DEPENDENCY_FOLDERS)
    rest = parts[last + 1 :]
    length = _package_length(parts[last], rest)
    return len(rest) <= length + 1 or any(part.startswith(".") for part in rest[length:-1])


@rule(
    "AI004",
    "agent-file-in-dependency",
    category="agent-instructions",
    severity="high",
    kinds=(AGENT_CONFIG, AGENT_INSTRUCTIONS),
)
def agent_file_in_dependency(file: SourceFile) -> Iterator[Hit]:
    """Agent configuration or instructions sit inside a dependency folder.

    .claude/, .cursor/, .vscode/, .mcp.json, CLAUDE.md, AGENTS.md, rule files and the like
    under node_modules, vendor, .venv or site-packages. Configuration is high, instruction
    files medium. Instruction files count at a package's top folder (a Go module path such
    as vendor/github.com/owner/name/v2, a Composer vendor/owner/package and an npm
    @scope/package are one package) or inside a hidden agent folder; a documentation page
    deeper in a package that shares a name (an API page called Agent.md) is not one. A
    *.code-workspace is not one either: the editor opens it only when someone picks it.

    Why:
    Agents pick up instruction and configuration files from the folders they work in, and
    a package has no business shipping them: a published package that adds a CLAUDE.md or
    an MCP server to node_modules is steering the agents of everyone who installs it.

    Fix:
    Report the package, remove it or pin a clean version, and exclude dependency folders
    from the agent's context.
    """
    if not file.in_dependency or file.path.lower().endswith(_OPENED_ON_PURPOSE):
        return
    if file.kind == AGENT_CONFIG or _where_agents_look(file.path):
        what = "agent configuration" if file.kind == AGENT_CONFIG else "agent instructions"
        yield Hit(
            file.pos_at(0),
            f"{what} inside a dependency folder, where an agent working there picks it up",
            severity="" if file.kind == AGENT_CONFIG else "medium",
            why="instructions are read; configuration is obeyed",
        )
