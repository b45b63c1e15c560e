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
import posixpath
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from sandkit.lazy_regex import lazy
from sandkit.lint.facts.agent_commands import FETCH_RUN, FETCH_WORDS, LINE_LIMIT, matches_by_line
from sandkit.lint.kinds import AGENT_CONFIG, AGENT_INSTRUCTIONS
from sandkit.lint.model import Finding, Hit, clip
from sandkit.lint.registry import rule
from sandkit.lint.repository import RepositoryView, repository_pass
from sandkit.lint.source import SourceFile
from sandkit.lint.syntax.tree import Pos

if TYPE_CHECKING:  # read only when a repository pass needs it
    from sandkit.lint.gitignored import GitignoreRules

_HIDDEN_SCRIPT = lazy(
    r"(?:^|[\s`(\"'])(?:bash|sh|zsh|source|python3?|node|deno|pwsh|\.)[ \t]+(?:\./)?"
    r"(\.(?!github/|devcontainer/|(?:venv|tox|nox|direnv|env)/|\.)[A-Za-z0-9_-]{1,40}/[^\s`\"')]{1,200})"
)
_DOWNLOAD = lazy(r"(?i)\b(?:curl|wget|iwr|invoke-webrequest)\b")
_ACTIVATE = lazy(r"/(?:bin|Scripts)/activate(?:\.\w{1,4})?$")
_TARGET = lazy(r"://|\w\.[A-Za-z]{2,}\b|\$")  # a URL, a host name or a variable
_NEGATED = lazy(
    r"(?i)\b(?:never|don'?t|do not|avoid|instead of|rather than|not)\b"
    r"(?!\s+(?:forget|skip|hesitate|miss|fail)\b)"  # "don't forget to run ...": an order
)
#: Words that present a command as an attack shown to warn against it: where the text before a
#: download on its line, or the line that leads to it, says so, the command is a counter-example.
_ATTACK = lazy(
    r"(?i)\b(?:attack(?:s|ers?)?|malicious|evil|inject(?:s|ed|ion)?|exploit(?:s|ed)?|payload"
    r"|(?<![-\w])insecure|unsafe|dangerous|anti-?pattern|counter-?example|bad example|what not to do)\b"
)
#: A host named as an attacker's (``evil.com``, ``attacker.example``): a demonstration.
_ATTACK_HOST = lazy(r"(?i)(?:://|\s|@)[\w.-]*(?:evil|attacker|malicious)[\w-]*\.")
#: The agent is told to hand the command to its user rather than run it ("tell the user to run
#: ...", "ask the user: ...", "the user should run ...").
_TO_USER = lazy(
    r"(?i)\b(?:(?:tell|ask|instruct|guide|advise|direct|remind|invite|prompt)\s+(?:the\s+|your\s+)?users?"
    r"(?:\s+to\b|\s*:|\s+that\s+they\b|\s+they\s+(?:should|can|must|need)\b)"
    r"|(?:suggest|recommend|print|display|output)(?:s|ing)?\s+(?:to\s+)?(?:the\s+|your\s+)?users?\b"
    r"|users?\s+(?:should|can|must|may|needs?\s+to|will\s+need\s+to|has\s+to)\s+(?:run|install|execute|paste|type)"
    r"|for\s+the\s+user\s+to\s+(?:run|install|execute|paste|copy))"
)
_HEADING = lazy(r"^ {0,3}#{1,6}\s")
_COMMENT_LINE = lazy(r"^\s*(?:#|//|--|;|<!--|rem\b|::)", re.IGNORECASE)
_LEAD_STEPS = 4  # code lines stepped over, upwards, to reach a block's comment or lead-in
_HEADING_WITHIN = 15
TO_USER_WHY = "the agent is told to give the command to its user, not to run it"
#: Fetching a named package or repository at whatever revision it has today and running it: ``go
#: install|run MODULE@latest`` (or a branch), ``npx pkg@latest`` and the other one-shot runners
#: given a moving tag, and installs straight from a source repository at no fixed revision
#: (``cargo install --git URL``, ``pip install git+URL``, a global npm install of a git source,
#: ``npx github:owner/repo``). Checked further by :func:`_unpinned_source`.
_UNPINNED_RUN = lazy(
    r"(?i)\bgo\s+(?:install|run)(?:\s+-[\w.=-]+)*\s+[\"']?[a-z0-9][\w.-]*\.[a-z]{2,}(?:/[\w.~+-]+)+"
    r"@(?:latest|master|main|head|dev|develop|trunk|tip)\b"
    r"|\b(?:npx|bunx|pnpx|(?:pnpm|yarn)\s+dlx|bun\s+x|uvx|pipx\s+run)(?:\s+-[\w=-]+)*\s+[\"']?"
    r"(?:@[\w.-]+/)?[\w.-]+@(?:latest|next|canary|nightly|beta|alpha|dev)\b"
    r"|\b(?:npx|bunx|pnpx|(?:pnpm|yarn)\s+dlx)(?:\s+-[\w=-]+)*\s+[\"']?(?:github:|git\+|https?://)\S+"
    r"|\bcargo\s+(?:\+\S+\s+)?install\b[^\n`;&|]*\s--git[\s=]\S+[^\n`;&|]*"
    r"|\b(?:pip3?|python3?\s+-m\s+pip|uv\s+pip|pipx|uv\s+tool)\s+install\b[^\n`;&|]*?git\+[a-z]+://\S+"
    r"|\b(?:npm\s+(?:install|i|add)|pnpm\s+(?:add|install|i)|yarn\s+global\s+add|bun\s+(?:add|install|i))\b"
    r"[^\n`;&|]*?\s(?:-g|--global)\b[^\n`;&|]*?\s[\"']?(?:github:|git\+[a-z]+://)\S+"
)
_UNPINNED_WORDS: tuple[str, ...] = ("go", "npx", "bunx", "pnpx", "dlx", "x", "uvx", "pipx", "cargo", "pip", "pip3")
_UNPINNED_WORDS += ("uv", "npm", "pnpm", "yarn", "bun", "python", "python3")
#: A fixed revision: a commit (7 to 40 hex digits) or a version tag (``v1.2.3``, ``1.4``).
_FIXED_REVISION = lazy(r"(?i)[0-9a-f]{7,40}|v?\d+(?:\.\d+)+(?:[-+][\w.]+)?")
_GIT_SOURCE = lazy(r"(?i)(?:git\+[a-z]+://|github:)([^\s\"'`]+)")
_URL = lazy(r"(?i)\bhttps?://[^\s\"'`)>]+")
_DOWNLOADERS = frozenset({"curl", "wget", "invoke-webrequest", "iwr"})
#: Running a file at a command's start (a line, a list item or prompt, or after ``&&``, ``;``,
#: ``|``, a backtick, ``(``, or "run"): through an interpreter, or by a path to it.
_RUN_FILE = lazy(
    r"(?i)(?:^\s*(?:[-*+]\s+|\d+[.)]\s+|[$>#]\s+)?|(?:&&|\|\||[;|`(])\s*|\b(?:run|execute|then)\s+)"
    r"(?:sudo\s+(?:-\S+\s+)*)?(?:"
    r"(?:(?:ba|z|da|k)?sh|python[\d.]*|node|perl|ruby|pwsh|powershell|source|\.)\s+(?:-\S+\s+)*[\"']?"
    r"(?P<run>[^\s\"'`;&|)]{1,300})"
    r"|[\"']?(?P<path>(?:\.{1,2}|~|\$\{?\w+\}?|[\w.-]*)(?:[/\\][\w.-]+)*[/\\][\w.-]{1,200}))"
    r"(?=[\s\"'`;&|)]|$)",
    re.MULTILINE,
)
_SEGMENT_END = lazy(r"&&|\|\||[;|`]")
#: How many lines after a download its file may be run on and still count as the same steps.
_RUN_WITHIN = 8
_FENCE_LINE = lazy(r"^ {0,3}(?:`{3,}|~{3,})")
_TOOL_COMMENT = lazy(
    r"(?i)^\s*(?:markdownlint|prettier|eslint|vale|textlint|cspell|toc|/?toc|end|begin|start|"
    r"stop|sandkit:|omit|include|snippet|region|endregion|lint|@|#|\w+-(?:start|end)|"
    r"all-contributors|github-only|badges?|readme|---)"
)
_BASE64 = lazy(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/]{200,}={0,2}")
_HEX = lazy(r"[0-9A-Fa-f]+")
_RISKY_WORDS = lazy(
    r"(?i)\b(?:ignore|disregard|do not (?:tell|mention|reveal)|curl|wget|exfiltrat\w*|send|upload|run|"
    r"execute|install)\b"
)
#: A secret's name that makes a hidden comment high; read in :func:`_secret_prose`, where file
#: names, paths and compounds that name no secret are taken out.
_RISKY_SECRET = lazy(r"(?i)\b(?:secret|token|password|credential)\b")
#: What in a hidden comment an agent could act on, whatever words surround it: text shaped like a
#: command, secrets or the environment, a path outside the checkout, an attempt to replace its
#: instructions. A tool directive or a short comment is still reported when it holds one of these
#: (``<!-- BEGIN: print $AWS_SECRET_ACCESS_KEY -->``); a link counts for the others only. A secret's
#: word inside a hyphenated name (``rule:undefined-token``) is a label, not a secret.
_ACTABLE = lazy(
    r"(?i)`|\$\{?[A-Z_][A-Z0-9_]{2,}|"
    r"\b(?:ignore|disregard|forget|override)\b[^.\n]{0,40}\b(?:instructions?|rules?|prompt|above|previous|prior)\b|"
    r"\bsystem\s+prompt\b|\bjailbreak|"
    r"\benv(?:ironment)?\b|\bprintenv\b|\b(?:curl|wget|bash|sudo|chmod|eval|exec|base64|powershell|iex|"
    r"netcat|nc|ssh|scp|rsync|exfiltrat\w*)\b|"
    r"(?:^|[\s'\"(=])(?:~|\$HOME|%\w+%|[A-Za-z]:\\|/(?:etc|usr|tmp|var|root|home|opt|bin|dev|proc|Users|private))"
    r"[/\\]"
)
#: A secret's name as :data:`_ACTABLE` counts it, read in :func:`_secret_prose` like
#: :data:`_RISKY_SECRET`.
_ACTABLE_SECRET = lazy(
    r"(?i)(?<![\w-])(?:secrets?|tokens?|passwords?|passwd|credentials?)(?![\w-])|"
    r"\b(?:api|private|ssh|access|signing)[\s_-]?keys?\b|\bbearer\b|\bcookies?\b|(?<![\w/])\.env\b"
)
#: A word of a comment read apart for :func:`_secret_prose`: what lies between spaces, quotes and
#: brackets.
_WORD = lazy(r"[^\s`'\"()<>\[\]{},;|*]+")
_FILE_NAME = lazy(r"[^/\\]*\w\.[A-Za-z][A-Za-z0-9]{0,7}")
#: File names (their last part, without leading dots and extensions) that hold a secret: a path
#: or file name ending so is a secret's name (``config/secrets.yaml``, ``~/.config/gh/token``).
#: ``tokens`` is not one of them: ``tokens.json``, ``tokens.css`` are a design system's tokens.
_SECRET_FILES = frozenset(
    {"secret", "secrets", "token", "credential", "credentials", "password", "passwords", "passwd", "htpasswd"}
    | {"apikey", "api_key", "api-key", "private_key", "private-key", "id_rsa", "id_ed25519", "id_ecdsa", "id_dsa"}
    | {"netrc", "npmrc", "pypirc", "git-credentials", "pgpass", "env"}
)
#: A path that starts outside the checkout: a drive, or a system folder from the root (a path
#: starting with "/" elsewhere is read as the repository's, as Markdown links write them).
_OUTSIDE_CHECKOUT = lazy(
    r"(?i)[a-z]:[\\/]|/(?:etc|usr|tmp|var|root|home|opt|bin|dev|proc|users|private|run|mnt|srv)(?:/|$)"
)
_KEY_FILE_ENDINGS = (".pem", ".key", ".p12", ".pfx", ".ppk", ".jks", ".keystore", ".kdbx")
_SECRET_FOLDERS = frozenset({".ssh", ".aws", ".gnupg", ".docker", ".kube"})
#: "token" in a compound that names no secret: design tokens, a model's input or output tokens, a
#: token budget, count or limit, "4k tokens". Not when a secret's qualifier stands before it ("the
#: API token count"): see :func:`_secret_prose`.
_TOKEN_COMPOUND = lazy(
    r"(?i)\b(?:design|input|output|prompt|completion|context|max(?:imum)?|llm|model|cached|thinking|"
    r"reasoning)[\s_-]+tokens?\b|"
    r"\btokens?[\s_-]+(?:budgets?|counts?|counting|counter|limits?|usage|costs?|windows?|efficien\w*|economy|"
    r"spend(?:ing)?|estimates?|savings?|consumption|per)\b|"
    r"\b\d[\d,.]*\s*[km]?\s+tokens\b"
)
_SECRET_QUALIFIER = lazy(
    r"(?i)\b(?:api|access|auth|bearer|refresh|session|oauth|personal|github|gh|gitlab|npm|pypi|jwt|csrf|id|"
    r"secret|deploy|service|bot|app)[\s_-]*$"
)
_LINK = lazy(r"(?i)://|\bwww\.")
#: Words addressed to the assistant: "you", or its name.
_ADDRESSED = lazy(
    r"(?i)\b(?:you|your|yourself|you'(?:re|ll))\b|"
    r"\b(?:assistants?|agents?|ai|llms?|models?|claude|copilot|gemini|codex|chatgpt|gpt|cursor|bots?)\b"
)
#: An order in a hidden comment: a modal or a "from now on" anywhere, or a verb of saying, writing,
#: changing or running something at the start of a sentence, clause or list item ("TODO: add ...",
#: "then delete ...", "TODO add ..."); the same words as nouns inside a sentence ("this copy is kept in sync") are
#: not. Searched after :data:`_PROVENANCE` and paths are taken out.
_ORDER = lazy(
    r"(?i)\b(?:must|should|shall|always|never|do\s+not|don'?t|make\s+sure|ensure|remember|instead|"
    r"from\s+now\s+on|pretend|act\s+as|you\s+(?:are|will|now))\b|"
    r"(?:^|[.!?;:,(\u2014\u2013]|\s[-*>]|\b(?:then|and|also|please|first|next|now))[\s*_#>`-]*"
    r"(?:(?:todo|fixme|note|nb|xxx|hack|important|warning|reminder|action)\b[\s:*_-]*)?"
    r"(?:respond|reply|answer|say|tell|output|print|write|add|remove|delete|replace|change|modify|insert|"
    r"append|create|use|call|import|open|read|load|fetch|download|post|commit|push|merge|approve|disable|"
    r"enable|skip|bypass|prefer|set|copy|paste|move|rename|grant|allow|trust|edit|update|include|exclude|"
    r"follow|obey|comply|report|submit|publish|deploy|start|stop|kill|launch|invoke|visit|browse|email|"
    r"message|contact|pip|npm|npx|git|docker|python\d?|node)\b"
)
#: Paths (``agents/a11y/SKILL.md``, ``.claude/skills/x``): taken out before words addressed to the
#: assistant and orders are looked for, so a folder named after an agent addresses no one.
_PATH_TEXT = lazy(r"(?<![\w.~$%@-])[\w.~$%@-]*(?:[/\\][\w.~$%@-]+)+[/\\]?")
#: A note on where a file comes from and where to change it: "generated from", "synced from",
#: "canonical source", "do not edit (this file)", "edit the canonical source (at PATH)". Taken
#: out of the comment before :data:`_ORDER` is searched, so an order beside it still counts.
_PROVENANCE = lazy(
    r"(?i)\b(?:do\s+not|don'?t|never|please\s+do\s+not)\s+(?:edit|modify|change|update)\b"
    r"(?:\s+(?:this|the)\s+(?:file|section|copy|page|block))?(?:\s+(?:directly|manually|by\s+hand|here))?|"
    r"\b(?:edit|modify|change|update)\s+(?:the\s+)?(?:canonical|upstream|original|source|template|master)"
    r"(?:\s+(?:source|file|copy|template|version))?(?:\s+(?:at|in)\s+[\w./-]{1,120})?(?:\s+instead)?|"
    r"\b(?:auto-?)?generated\s+(?:by|from|with)\b|\bsynced?\s+from\b|\bcopied\s+from\b|"
    r"\bchanges?\s+(?:here|to\s+this\s+file)\s+(?:will\s+be|are|get)\s+(?:lost|overwritten)\b"
)


def _comment_grade(body: str) -> str:
    """The severity of a hidden comment: high when it talks about secrets, ignoring instructions
    or running commands; medium when it carries something an agent could act on
    (:data:`_ACTABLE`), a link, words addressed to it, or an order (:data:`_ORDER`, provenance
    notes taken out); info otherwise: a note that orders nothing and names nothing to act on
    ("AUTHORING NOTE: this page mirrors the skills list; kept short on purpose")."""
    secrets = _secret_prose(body)
    if _RISKY_WORDS.search(body) or _RISKY_SECRET.search(secrets) or FETCH_RUN.search(body):
        return "high"
    if _ACTABLE.search(body) or _ACTABLE_SECRET.search(secrets) or _LINK.search(body):
        return ""
    prose = _PATH_TEXT.sub(" ", _PROVENANCE.sub(" ", body))
    return "" if _ADDRESSED.search(prose) or _ORDER.search(prose) else "info"


def _secret_prose(body: str) -> str:
    """``body`` with what names no secret blanked out, for :data:`_RISKY_SECRET` and
    :data:`_ACTABLE_SECRET`: file names and paths (``DESIGN-TOKENS.md``, ``guide/token-spec.md``,
    ``src/tokens/colors.ts``) unless they end in a secret's file (``secrets.yaml``, ``token``,
    ``.env``, a key file), lie outside the checkout (``~/``, ``$HOME``, ``/etc``) or are a link;
    and compounds such as "design tokens", "token budget", "4k tokens" unless a secret's qualifier
    stands before them ("API token count"). A secret's name in the prose around them still
    counts."""
    pieces: list[str] = []
    last = 0
    for word in _WORD.finditer(body):
        text = word.group().rstrip(".:!?")
        if _names_no_secret_file(text):
            pieces += [body[last : word.start()], " " * len(text)]
            last = word.start() + len(text)
    prose = "".join(pieces) + body[last:] if pieces else body
    if "oken" not in prose and "OKEN" not in prose:
        return prose
    return _TOKEN_COMPOUND.sub(lambda m: _compound_blank(prose, m), prose)


def _names_no_secret_file(word: str) -> bool:
    """Whether a word of a comment is a path or file name in the checkout that names no secret."""
    if "/" not in word and "\\" not in word and not _FILE_NAME.fullmatch(word):
        return False
    if "://" in word or word[:1] in ("~", "$", "%", "\\") or _OUTSIDE_CHECKOUT.match(word):
        return False
    parts = [part for part in word.replace("\\", "/").split("/") if part]
    if not parts or any(part.lower() in _SECRET_FOLDERS or part.lower().startswith(".env") for part in parts):
        return False
    name = parts[-1].lower()
    return name.lstrip(".").split(".", 1)[0] not in _SECRET_FILES and not name.endswith(_KEY_FILE_ENDINGS)


def _compound_blank(prose: str, match: re.Match[str]) -> str:
    """A compound of :data:`_TOKEN_COMPOUND` blanked out, unless a secret's qualifier is before it."""
    if _SECRET_QUALIFIER.search(prose, max(match.start() - 24, 0), match.start()):
        return match.group()
    return " " * len(match.group())


def _instruction(file: SourceFile, pos: Pos, offset: int) -> bool:
    """A download aimed at something (a URL, a host, a variable) and not a warning about one."""
    line = file.line_text(pos.line)[:4000]
    return bool(_TARGET.search(line, pos.column - 1)) and _context(file, pos) != "warning"


def _context(file: SourceFile, pos: Pos) -> str:
    """What the text around a command at ``pos`` makes of it: "warning" when it is shown to warn
    against it, "user" when the agent is told to hand it to its user, "" for an instruction.

    A warning is a negation or an attack word before the command on its line, or an attacker's
    host in it; an attack word in the lead line's last sentence, or a negation there that
    introduces the command (a comment of its block, or ending in ":"); an attack word in the
    nearest heading above (not "never": such a section often goes on to the safe way). The lead
    line is the nearest line above that is not blank, a fence or code: a comment of the same
    code block, or the prose before the block (see :func:`_lead_lines`)."""
    line = file.line_text(pos.line)[:LINE_LIMIT]
    before = line[: pos.column - 1]
    if _NEGATED.search(before) or _ATTACK.search(before) or _ATTACK_HOST.search(line, pos.column - 1):
        return "warning"
    lead, heading, lead_line = _lead_lines(file, pos.line)
    lead = re.split(r"[.!?;]\s+(?=\S)", lead)[-1]  # its last sentence is what leads to the command
    if lead and (_ATTACK.search(lead) or (_NEGATED.search(lead) and _introduces(lead, file, pos.line))):
        return "warning"
    if heading and _ATTACK.search(heading):
        return "warning"
    if _TO_USER.search(before) or (lead and _TO_USER.search(lead)) or _alternative_for_user(file, lead, lead_line):
        return "user"
    return ""


#: A lead line that offers its command as another way to do what the block above did ("Or via
#: the standalone installer:", "Alternatively, ...").
_ALTERNATIVE = lazy(r"(?i)^[\s>*_-]*(?:or|alternatively|otherwise)\b")
_ALTERNATIVES_FOLLOWED = 3


def _alternative_for_user(file: SourceFile, lead: str, lead_line: int) -> bool:
    """Whether a lead line that offers another way ("Or via the installer:") follows a block the
    agent was told to hand to its user ("guide the user:"): the alternative is handed over too."""
    for _ in range(_ALTERNATIVES_FOLLOWED):
        if not lead or not _ALTERNATIVE.match(lead):
            return False
        lead, _, lead_line = _lead_lines(file, lead_line)
        lead = re.split(r"[.!?;]\s+(?=\S)", lead)[-1]
        if lead and _TO_USER.search(lead):
            return True
    return False


def _introduces(lead: str, file: SourceFile, line: int) -> bool:
    """Whether a lead line with a negation introduces the command as a counter-example: a comment
    inside its code block, or a line ending in a colon ("Never do this:")."""
    languages = file.memo("AI001 fence languages", lambda: _fence_languages(file))
    in_block = line <= len(languages) and languages[line - 1] is not None
    return (in_block and bool(_COMMENT_LINE.match(lead))) or lead.rstrip(" *_").endswith(":")


def _lead_lines(file: SourceFile, line: int) -> tuple[str, str, int]:
    """The lead line of ``line`` (see :func:`_context`), the nearest Markdown heading above it
    within :data:`_HEADING_WITHIN` lines ("" for none), and the lead line's number."""
    languages = file.memo("AI001 fence languages", lambda: _fence_languages(file))
    lead, steps, number = "", 0, line - 1
    while number >= 1 and not lead and steps <= _LEAD_STEPS:
        text = file.line_text(number)[:LINE_LIMIT]
        in_block = number <= len(languages) and languages[number - 1] is not None
        if not text.strip() or _FENCE_LINE.match(text):
            number -= 1
            continue
        if in_block and not _COMMENT_LINE.match(text):
            steps += 1  # a code line above: the block's comment or lead-in is further up
            number -= 1
            continue
        if not in_block and _HEADING.match(text):
            return "", text, number
        lead = text
    heading = ""
    for above in range(line - 1, max(line - _HEADING_WITHIN, 0), -1):
        text = file.line_text(above)[:LINE_LIMIT]
        if _HEADING.match(text) and (above > len(languages) or languages[above - 1] is None):
            heading = text
            break
    return lead, heading, number


#: Fenced code blocks' languages whose code a program runs, not the agent: a shell command in
#: one of their string literals (``sandbox.exec("curl ... | sh")`` in a ```ts block) is an
#: argument the example program passes on. Shells, consoles and config formats are not here.
_PROGRAM_LANGUAGES = frozenset(
    {
        *("ts", "typescript", "tsx", "js", "javascript", "jsx", "mjs", "cjs", "python", "py", "python3"),
        *("go", "golang", "rust", "rs", "java", "kotlin", "kt", "c", "cpp", "c++", "cs", "csharp"),
        *("ruby", "rb", "php", "swift", "scala", "dart", "elixir", "ex", "lua", "julia", "groovy"),
    }
)
_FENCE_OPEN = lazy(r"^ {0,3}(`{3,}|~{3,})\s*([^\s`{]*)")


def _fence_languages(file: SourceFile) -> list[str | None]:
    """For each line, the language named by the fenced code block it is inside (lowercased, ""
    for an unlabelled block), or None outside any block and on the fences themselves."""
    result: list[str | None] = []
    marker, language = "", ""
    for number in range(1, len(file.lines) + 1):
        fence = _FENCE_OPEN.match(file.line_text(number)[:LINE_LIMIT])
        if marker and fence and fence.group(1)[0] == marker[0] and len(fence.group(1)) >= len(marker):
            marker = ""
            result.append(None)
        elif not marker and fence:
            marker, language = fence.group(1), fence.group(2).lower().lstrip(".")
            result.append(None)
        else:
            result.append(language if marker else None)
    return result


def _program_string(file: SourceFile, pos: Pos) -> bool:
    """Whether ``pos`` is inside a string literal on a line of a fenced block of a programming
    language: code the example program runs (in its own sandbox, container or CI), not an
    instruction to the agent. A ```bash, ```sh, ```console or unlabelled block is not."""
    languages = file.memo("AI001 fence languages", lambda: _fence_languages(file))
    if pos.line > len(languages) or languages[pos.line - 1] not in _PROGRAM_LANGUAGES:
        return False
    before = file.line_text(pos.line)[: pos.column - 1]
    return any((before.count(quote) - before.count("\\" + quote)) % 2 == 1 for quote in ('"', "'", "`"))


def _unpinned_source(command: str) -> bool:
    """Whether a match of :data:`_UNPINNED_RUN` runs code at no fixed revision: a cargo install
    from git without ``--rev`` or ``--tag``, a git source or URL without a commit or version after
    its ``@`` (pip) or ``#`` (npm); go's and the runners' moving versions always are."""
    if command[:5].lower() == "cargo":
        return not re.search(r"(?i)\s--(?:rev|tag)\b", command)
    source = _GIT_SOURCE.search(command) or _URL.search(command)
    return source is None or not _FIXED_REVISION.fullmatch(_revision(source.group()))


def _registry_release(command: str) -> bool:
    """Whether an unpinned run takes a registry's release (``npx pkg@latest``, ``uvx tool@latest``, a
    dist-tag such as ``@next``, ``go install MOD@latest``, which the module proxy resolves to the
    newest tagged version) rather than a source repository's branch (``go install MOD@main``, a git
    source, ``cargo install --git``). A release is what an install by name, which is no finding,
    fetches too, and once published its code does not change; a branch is whatever was pushed last."""
    if _GIT_SOURCE.search(command) or _URL.search(command) or re.search(r"(?i)\s--git\b", command):
        return False
    if command[:2].lower() == "go":
        return command.lower().rstrip("\"'`").endswith("@latest")
    return True


def _revision(source: str) -> str:
    """The revision a git source names: after ``@`` in its path (pip) or after ``#`` (npm)."""
    path = source.split("://", 1)[-1].split(":", 1)[-1]
    path = path.split("/", 1)[1] if "/" in path else path
    ref = path.rsplit("@", 1)[1] if "@" in path else ""
    if not ref and "#" in path:
        ref = path.split("#", 1)[1]
    return ref.split("#", 1)[0].strip("\"'`")


def _saved_name(segment: str) -> str:
    """The name of the file a curl, wget or Invoke-WebRequest command line saves its download as
    ("" when it writes to standard output, or when no name can be told)."""
    words = [w.strip("\"'") for w in segment.split()[:64]]
    program = words[0].lower() if words else ""
    name, remote = "", program == "wget"  # wget saves under the URL's last part unless told otherwise
    for index, word in enumerate(words[1:], start=1):
        following = words[index + 1] if index + 1 < len(words) else ""
        if program in ("invoke-webrequest", "iwr"):
            name = following if word.lower() == "-outfile" else name
        elif word.startswith(("--output=", "--output-document=")):
            name = word.split("=", 1)[1]
        elif word in ("--output", "--output-document"):
            name = following
        elif word in ("--remote-name", "--remote-name-all"):
            remote = True
        elif word.startswith("-") and not word.startswith("--") and len(word) > 1:
            flag = "o" if program == "curl" else "O"  # wget's -o names its log, curl's -O the URL's name
            cluster = word[1:]
            if flag in cluster:
                name = cluster[cluster.index(flag) + 1 :] or following
            elif program == "curl" and "O" in cluster:
                remote = True
    if name == "-" or not (name or remote):
        return ""
    if not name:
        url = _URL.search(segment)
        name = url.group().split("?", 1)[0].split("#", 1)[0].rstrip("/") if url else ""
    return name.replace("\\", "/").rsplit("/", 1)[-1]


def _saved_then_run(file: SourceFile, line: int) -> Iterator[tuple[int, str]]:
    """(column, command) of each download on ``line`` that saves a file which the same line, or one
    of the next few lines of the same code block, then runs (``curl -o x URL && ./x``, ``wget URL``
    and on a later line ``bash install.sh``)."""
    text = file.line_text(line)[:LINE_LIMIT]
    for download in _DOWNLOAD.finditer(text):
        rest = text[download.start() :]
        end = _SEGMENT_END.search(rest)
        segment = rest[: end.start()] if end else rest
        words = segment.split()
        if not words or words[0].lower() not in _DOWNLOADERS or not _TARGET.search(segment):
            continue
        name = _saved_name(segment)
        if name and (name in _run_files(rest[len(segment) :]) or name in _runs_after(file, line)):
            yield download.start() + 1, segment


def _run_files(text: str) -> set[str]:
    """The names (last path parts) of the files ``text`` runs (see :data:`_RUN_FILE`)."""
    found = set()
    for match in _RUN_FILE.finditer(text):
        target = match.group("run") or match.group("path") or ""
        found.add(target.replace("\\", "/").rsplit("/", 1)[-1])
    return found


def _runs_after(file: SourceFile, line: int) -> set[str]:
    """What the few lines after ``line`` run, up to the end of a code block. Every line of the
    file is read once, the first time a download asks (a file of many downloads costs one pass)."""
    by_line = file.memo("AI001 runs", lambda: _lines_runs(file))
    found: set[str] = set()
    for number in range(line + 1, min(line + 1 + _RUN_WITHIN, len(file.lines) + 1)):
        ran = by_line[number - 1]
        if ran is None:
            break  # a fence: the code block (or the text before one) ends here
        found |= ran
    return found


def _lines_runs(file: SourceFile) -> list[set[str] | None]:
    """For each line, the files it runs, or None for a code fence."""
    result: list[set[str] | None] = []
    for number in range(1, len(file.lines) + 1):
        text = file.line_text(number)[:LINE_LIMIT]
        result.append(None if _FENCE_LINE.match(text) else _run_files(text) if text.strip() else set())
    return result


@rule(
    "AI001",
    "instructions-fetch-and-execute",
    category="agent-instructions",
    severity="high",
    kinds=(AGENT_INSTRUCTIONS,),
    triggers=(
        *("curl", "wget", "irm", "iwr", "iex", "Invoke-WebRequest", "invoke-webrequest", "bash", "sh ", "source"),
        *("python", "node", ". .", "@", "git+", "github:", "--git", "://"),
    ),
)
def instructions_fetch_and_execute(file: SourceFile) -> Iterator[Hit]:
    """An instruction file tells the agent to download and run code, or to run a hidden script.

    `curl ... | sh` (wget, PowerShell `irm | iex`, `bash <(curl ...)`, piping into python or node),
    also with the pipe escaped in a Markdown table cell (`\\|`, or an HTML reference such as `&#124;`);
    a download saved to a file that the same line, or one of the next eight lines of the same code
    block, runs by its path or through an interpreter (`curl -fsSLo i.sh URL && sudo bash i.sh`,
    `wget URL` then `sh install.sh`, `iwr URL -OutFile i.ps1; .\\i.ps1`); code fetched by name at no
    fixed version and run: at medium from a source repository's branch (`go install|run
    MODULE@main`, `cargo install --git URL` without `--rev`/`--tag`, `pip install git+URL` without a
    commit or version, a global npm install or `npx` of a git source without a commit), at info from
    a registry's newest release (`npx pkg@latest` and the other one-shot runners given a dist-tag,
    `go install MODULE@latest`: what an install by name fetches too, a published version's code
    being fixed); and running a script from a hidden folder (`bash .cache/setup.sh`, `node
    .vscode/x.js`; .github and .devcontainer are not counted, nor folders that tools make in the
    checkout: `source .venv/bin/activate`, `.tox/`, `.nox/`, `.direnv/`).
    A hidden script is medium (committed, not downloaded), and info when the instruction file is
    in the same hidden folder (`.claude/skills/x/SKILL.md` running
    `python .claude/skills/x/scripts/sync.py`): the script is then exactly as visible as the
    instructions that name it, like `./scripts/test.sh` named from the top. Info too when a
    skill's file (`skills/x/SKILL.md`, `plugins/p/skills/x/SKILL.md`) runs its own script where
    the skill is installed (`.claude/skills/x/scripts/y.py`, any hidden path ending in the same
    `skills/x/...`, with no `..`), and when the repository's .gitignore files ignore the script's
    hidden folder (`node .gitnexus/run.cjs analyze` with `.gitnexus/` ignored: a folder a tool
    writes into the checkout, as `.venv/` is), read as git reads them from the top and from the
    instruction file's project folder; a script in an ignored folder that is on disk and that git
    tracks (or cannot say it does not: `git add -f`) stays medium.
    Ordinary instructions such as "run `pytest -q`", "`npm test`", `go test ./...`, `pip install
    -e .`, `npm ci`, installs by name from a registry (`cargo install ripgrep`, `npx prettier`:
    often the project's own tool), pinned ones (`go install x@v0.24.0`, `pip install
    git+URL@<commit>`), a download that is only read (`curl -o data.json URL`, a tarball
    unpacked), and warnings ("never pipe `curl ... | sh`"), are not findings. Nor is an attack
    shown to warn against it: a negation or an attack word (attacker, malicious, evil, injection,
    exploit, payload, anti-pattern ...) before the command on its line, an attacker's host
    (`evil.com`), an attack word in the line that leads to it (the comment above it in its code
    block, or the last sentence before the block), a negation there when it introduces the command
    ("# Never do this", "Never do this:"), or an attack word in the nearest heading above. A command
    the agent is told to hand to its user ("tell the user to run ...", "ask the user: ...", "the
    user should run ...") is info. Scripts in an agent's folders
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
        if _instruction(file, pos, match.start()) and pos.line not in seen and not _program_string(file, pos):
            seen.add(pos.line)
            yield _download_hit(file, pos, f"download code and run it: {clip(match.group())}")
    for start, end in _entity_pipes(file) if any(word in file.lowered for word in FETCH_WORDS) else ():
        pos = file.pos_at(start)
        if _instruction(file, pos, start) and pos.line not in seen and not _program_string(file, pos):
            seen.add(pos.line)
            yield _download_hit(file, pos, f"download code and run it: {clip(file.text[start:end])}")
    handled: set[int] = set()  # lines whose downloads were read (all of a line's at once)
    for _match, pos in file.search(_DOWNLOAD):
        if pos.line in seen or pos.line in handled:
            continue
        handled.add(pos.line)
        for column, command in _saved_then_run(file, pos.line):
            at = Pos(pos.line, column)
            if _instruction(file, at, 0) and not _program_string(file, at):
                seen.add(pos.line)
                yield _download_hit(file, at, f"download a file and run it: {clip(command)}")
                break
    for match in matches_by_line(_UNPINNED_RUN, file.text, _UNPINNED_WORDS):
        pos = file.pos_at(match.start())
        if pos.line in seen or not _unpinned_source(match.group()) or _program_string(file, pos):
            continue
        context = _context(file, pos)
        if context == "warning":
            continue
        seen.add(pos.line)
        message = f"instructions tell the agent to fetch code at no fixed version and run it: {clip(match.group())}"
        if context == "user":
            yield Hit(pos, message, severity="info", why=TO_USER_WHY)
        elif _registry_release(match.group()):
            why = "a registry's newest release, as an install by name fetches it: a published version's code is fixed"
            yield Hit(pos, message, severity="info", why=why)
        else:
            why = "a named repository's branch, not an arbitrary download: whatever its owner pushed last runs"
            yield Hit(pos, message, severity="medium", why=why)
    for match, _pos in file.search(_HIDDEN_SCRIPT):
        pos = file.pos_at(match.start(1))
        if _ACTIVATE.search(match.group(1)):
            continue  # a virtual environment's activate script: made by the tool, not committed
        if pos.line not in seen:
            seen.add(pos.line)
            own = _own_folder(file.path, match.group(1))
            skill = "" if own else _own_skill(file.path, match.group(1))
            if own:
                why = f"the script is in {own}/ like these instructions: committed, as visible as they are"
            elif skill:
                why = f"the skill's own script, where its {skill}/ folder is installed"
            else:
                why = "a committed script, not a download"
            yield Hit(
                pos,
                f"instructions tell the agent to run {match.group(1)} from a hidden folder",
                severity="info" if own or skill else "medium",
                why=why,
            )


#: A pipe written as an HTML character reference, as a Markdown table cell may hold one
#: (``curl URL &#124; sh``): read as the pipe it shows. Each is replaced by a pipe and spaces, so
#: offsets stay those of the file.
_ENTITY_PIPE = lazy(r"(?i)&(?:#124|#x7c|vert|verbar|VerticalLine);")


def _entity_pipes(file: SourceFile) -> list[tuple[int, int]]:
    """Where FETCH_RUN matches once the pipes written as character references are read as pipes
    (start and end offsets in the file's text); empty when the file writes none."""
    if "&" not in file.text or _ENTITY_PIPE.search(file.text) is None:
        return []
    shown = _ENTITY_PIPE.sub(lambda m: "|" + " " * (len(m.group()) - 1), file.text)
    return [
        (m.start(), m.end()) for m in FETCH_RUN.finditer(shown) if _ENTITY_PIPE.search(file.text, m.start(), m.end())
    ]


def _download_hit(file: SourceFile, pos: Pos, what: str) -> Hit:
    """A download run at ``pos``: info when the agent is told to hand it to its user."""
    message = f"instructions tell the agent to {what}"
    if _context(file, pos) == "user":
        return Hit(pos, message, severity="info", why=TO_USER_WHY)
    return Hit(pos, message)


def _own_folder(path: str, script: str) -> str:
    """The hidden folder ``script`` starts with (``.claude``) when the instruction file at ``path``
    is inside it too (``.claude/skills/x/SKILL.md`` running ``.claude/skills/x/scripts/y.py``): a
    skill or command running the script committed beside it; "" otherwise."""
    parts = script.split("/")
    return parts[0] if parts[0] in path.split("/")[:-1] and ".." not in parts else ""


def _own_skill(path: str, script: str) -> str:
    """``skills/X`` when the instruction file is directly in a skill's folder ``.../skills/X``
    (``plugins/p/skills/x/SKILL.md``, ``skills/x/SKILL.md``) and ``script`` runs a file of the same
    skill where an agent installs it (``.claude/skills/x/scripts/y.py``,
    ``.claude/plugins/p/skills/x/scripts/y.py``): the skill's own script, committed beside it; ""
    otherwise (another skill's script, a path climbing out with ``..``)."""
    folder = path.split("/")[:-1]
    parts = script.split("/")
    if len(folder) < 2 or folder[-2] != "skills" or ".." in parts:
        return ""
    found = any(parts[i] == "skills" and parts[i + 1] == folder[-1] for i in range(1, len(parts) - 2))
    return f"skills/{folder[-1]}" if found else ""


_HIDDEN_RUN = lazy(r"^instructions tell the agent to run (\S+) from a hidden folder \(medium: ")


@repository_pass("ignored-hidden-script")
def lower_scripts_git_ignores(findings: list[Finding], repo: RepositoryView) -> list[Finding]:
    """Settle AI001's hidden scripts by the repository's .gitignore files: a script in a hidden
    folder that they ignore (``node .gitnexus/run.cjs analyze``, ``.gitnexus/`` ignored) is what a
    tool writes into the checkout, not a script committed there, and is info (see
    :func:`_tool_output`); one that is committed, or could be, stays medium."""
    if not any(f.rule == "AI001" and f.severity == "medium" for f in findings):
        return findings
    from sandkit.lint.gitignored import GitignoreRules

    rules = GitignoreRules(repo.read)
    asked: dict[str, bool | None] = {}  # what git said of each script on disk, at most _GIT_ASKED
    out = []
    for finding in findings:
        match = _HIDDEN_RUN.match(finding.message) if finding.rule == "AI001" and finding.severity == "medium" else None
        why = _tool_output(finding.path, match.group(1), rules, repo, asked) if match else ""
        if match and why:
            finding = finding.regraded(
                "info",
                f"instructions tell the agent to run {match.group(1)} from a hidden folder (info: {why})",
            )
        out.append(finding)
    return out


def _tool_output(
    instructions: str, script: str, rules: GitignoreRules, repo: RepositoryView, asked: dict[str, bool | None]
) -> str:
    """Why the hidden ``script`` that the file at ``instructions`` runs is no committed script, or
    "". The command may run from the top of the checkout or from the instruction file's own
    project folder (the folder it is in, above any hidden one: ``sub/`` for ``sub/AGENTS.md`` and
    ``sub/.claude/skills/x/SKILL.md``); the script must be ignored from each, and where it is on
    disk git must say it does not track it (a file added with ``git add -f`` inside an ignored
    folder is committed all the same; with no git to ask, it may be). Git is asked about
    :data:`_GIT_ASKED` scripts at most in a scan; the others are taken as tracked."""

    path = script.rstrip(".,:;!?")
    parts = path.split("/")
    if path.startswith("/") or ".." in parts:
        return ""
    folder: list[str] = []
    for part in instructions.split("/")[:-1]:
        if part.startswith("."):
            break
        folder.append(part)
    said = ""
    for base in dict.fromkeys(["", "/".join(folder)]):
        at = posixpath.normpath(posixpath.join(base, path))
        ignore, ignored = rules.ignoring(at)
        if not ignore or (repo.exists(at) and _tracked(repo.root, at, asked) is not False):
            return ""
        said = said or f"{ignore} ignores {ignored}{'/' if ignored != at else ''}"
    return f"{said}: the output of a tool run in the checkout, not a committed script"


_GIT_ASKED = 32


def _tracked(root: str, path: str, asked: dict[str, bool | None]) -> bool | None:
    """Whether git tracks ``path``, asked once per path and of :data:`_GIT_ASKED` paths at most
    (None: not known)."""
    from sandkit.lint.gitignored import git_tracked

    if path not in asked:
        asked[path] = git_tracked(root, path) if len(asked) < _GIT_ASKED else None
    return asked[path]


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
    `<!-- toc -->`, `<!-- BEGIN ... -->` markers, sandkit suppression comments) and short notes
    are not findings unless they hold a command, a secret or variable, a path outside the
    checkout, "ignore previous instructions", or an order addressed to the assistant (the
    directive's name is chosen by whoever wrote the comment). High when the comment talks about
    secrets, ignoring instructions, or running commands; medium when it holds something an agent
    could act on (a link, a code span or command, a path outside the checkout, the environment,
    words addressed to "you" or the assistant, or an order: a modal such as "must" or "always",
    or a verb such as "add" or "delete" starting a clause, after a "TODO" too); info when it
    holds none of these: a note to maintainers ("CANONICAL SOURCE: agents/x/SKILL.md; edit the
    canonical source", "generated from ...", "do not edit this file directly"), still reported
    because the text is hidden. A secret's name counts as such (token, API, access, auth or bearer
    token, secret, password, credential, API, private or SSH key, `.env`), not inside a file name
    or a path in the checkout (`DESIGN-TOKENS.md`, `guide/design-token-spec.md`, `src/tokens/`)
    unless the file is one that holds a secret (`secrets.yaml`, `token`, `.env.local`, `*.pem`)
    or the path is outside the checkout, and not in a compound naming no secret ("design tokens",
    "input tokens", "token budget", "token count", "4k tokens", "tokenizer") unless a secret's
    qualifier stands before it ("API token count").

    Only files a viewer renders as Markdown are read: names ending in a Markdown extension
    (`.md`, `.mdc`, `.mdx`, `.markdown` ...) and instruction files with no extension
    (`.cursorrules`, `.windsurfrules`, `.clinerules`). A web page, an XML or SVG template, a text,
    JSON or YAML file kept in a skill's folder (`skills/x/templates/viewer.html`) is shown as
    source, and read by the agent as a file: a comment there is in plain sight.

    Why:
    GitHub and every Markdown viewer hide the comment, so a reviewer approves what they see,
    while the agent reads the raw file, comment included.

    Fix:
    Move the text into the visible part of the file (so it is reviewed), or delete it.
    """
    if not rendered_as_markdown(file.path):
        return  # shown as source (a web page, a template): the comment hides nothing
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
        quiet = _TOOL_COMMENT.match(body) or (len(words) < 6 and "://" not in body)
        if quiet and not _worth_reading(body):
            continue  # a tool directive or a short note, holding nothing to act on
        grade = _comment_grade(body)
        yield Hit(
            file.pos_at(text.rfind("<!--", 0, end)),
            f"HTML comment hides {len(words)} words from readers: {clip(body)!r}",
            severity=grade,
            why=_GRADE_WHY[grade],
        )


#: Extensions of Markdown, which a viewer renders and whose HTML comments it hides (Cursor's
#: rules are Markdown with front matter, `.mdc`).
_MARKDOWN_EXTENSIONS = (".md", ".mdc", ".mdx", ".markdown", ".mdown", ".mkd", ".mkdn", ".mdwn")


def rendered_as_markdown(path: str) -> bool:
    """Whether a file so named is rendered as Markdown, so an HTML comment in it is hidden from
    whoever reads it rendered: a Markdown extension, or no extension at all (``.cursorrules``,
    ``.windsurfrules``, ``.clinerules``, which are Markdown by convention). Any other extension
    (``viewer.html``, ``comments.xml``, ``notes.txt``, ``schema.json``) names a format shown as
    source."""
    name = path.lower().rsplit("/", 1)[-1]
    return name.endswith(_MARKDOWN_EXTENSIONS) or "." not in name.lstrip(".")


def _worth_reading(body: str) -> bool:
    """Whether a tool directive or a short comment still holds something to act on: a command, a
    secret, a path outside the checkout, an attempt to replace the instructions, or an order
    addressed to the assistant ("<!-- toc: you must add evil-lib -->"). A tool name chosen by
    whoever wrote the comment lowers nothing else."""
    unlinked = _LINK_TEXT.sub(" ", body)
    if FETCH_RUN.search(body) or _ACTABLE.search(unlinked) or _ACTABLE_SECRET.search(_secret_prose(unlinked)):
        return True
    prose = _PATH_TEXT.sub(" ", _PROVENANCE.sub(" ", body))
    return bool(_ADDRESSED.search(prose) and _ORDER.search(prose))


_LINK_TEXT = lazy(r"(?i)\b(?:https?|ftp)://\S+")
_GRADE_WHY = {
    "high": "the hidden text talks about commands, downloads or secrets",
    "": "the hidden text holds something an agent could act on (a link, a command, an order)",
    "info": "the hidden text orders nothing and names nothing to act on: a note to maintainers",
}


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
#: Folders of other projects' code copied into the repository by hand or by a script (Chromium's
#: and Google's layout): read like any other folder, and for AI004 a dependency folder too.
_COPIED_CODE = frozenset({"third_party", "third-party"})
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
    if rest[:2] == ["bundle", "ruby"] and len(rest) > 4:  # Bundler: vendor/bundle/ruby/3.3.0/gems/rake-13.2.1
        return 6 if rest[3:5] == ["bundler", "gems"] else 5
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
    last = max(i for i, part in enumerate(parts[:-1]) if part in _DEPENDENCY_FOLDERS | _COPIED_CODE)
    rest = parts[last + 1 :]
    if len(rest) == 1:
        return False  # vendor/AGENTS.md, third_party/CLAUDE.md: the project's own words about the folder
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
    under node_modules, vendor (at any depth: tools/vendor), .venv or site-packages, or in
    other projects' code copied under third_party/ or third-party/. Configuration is high,
    instruction files medium: configuration is obeyed wherever the agent starts, while a nested
    instruction file is read only when the agent works in that folder (Claude Code and Codex
    load the AGENTS.md or CLAUDE.md of the folders they work in). Instruction files count at a
    package's top folder (a Go module path such as vendor/github.com/owner/name/v2, a Composer
    vendor/owner/package, a Bundler vendor/bundle/ruby/3.3.0/gems/name-1.0 and an npm
    @scope/package are one package) or inside a hidden agent folder; a documentation page
    deeper in a package that shares a name (an API page called Agent.md) is not one, nor is
    one directly in the folder (vendor/AGENTS.md, third_party/CLAUDE.md: the project's own
    words about it). A *.code-workspace is not one either: the editor opens it only when
    someone picks it.

    Why:
    Agents pick up instruction and configuration files from the folders they work in, and
    a package has no business shipping them: a published package that adds a CLAUDE.md or
    an MCP server to node_modules is steering the agents of everyone who installs it.

    Fix:
    Report the package, remove it or pin a clean version, and exclude dependency folders
    from the agent's context.
    """
    copied = any(part in _COPIED_CODE for part in file.path.split("/")[:-1])
    if not (file.in_dependency or copied) or file.path.lower().endswith(_OPENED_ON_PURPOSE):
        return
    if file.kind == AGENT_CONFIG or _where_agents_look(file.path):
        what = "agent configuration" if file.kind == AGENT_CONFIG else "agent instructions"
        yield Hit(
            file.pos_at(0),
            f"{what} inside a dependency folder, where an agent working there picks it up",
            severity="" if file.kind == AGENT_CONFIG else "medium",
            why="instructions are read; configuration is obeyed",
        )
