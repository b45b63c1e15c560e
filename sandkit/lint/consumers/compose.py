"""Compose files as compose-go (the library inside ``docker compose``) reads them.

What it follows (compose-go v2, ``loader/interpolate.go``, ``template/template.go``,
``dotenv/``, ``loader/extends.go`` and ``loader/include.go``):

- Interpolation: ``$VAR``, ``${VAR}``, ``${VAR:-default}``, ``${VAR-default}``, ``${VAR:?err}``,
  ``${VAR?err}``, ``${VAR:+alt}``, ``${VAR+alt}``, defaults nested in defaults, and ``$$`` for a
  literal ``$``. Variables come from the ``.env`` file beside the Compose file (the shell's
  environment, which wins over it, is not known to a linter). A variable that is in neither
  is read as compose-go reads it: its default, or blank (``ho${UNSET}st`` is ``host``), and the
  finding says which variable decides (``Substitution.decided_by``). A mount's source uses the
  ``.env`` only: a default there is already read by :func:`~sandkit.lint.facts.host_paths.normalize`,
  which also knows that ``$HOME`` is the user's home.
- Booleans: compose-go casts every string at a boolean field (``privileged``, ``read_only``,
  a long volume's ``read_only`` ...) with ``toBoolean``: true, false, y, yes, on, n, no, off in any
  case; anything else is an error (the file does not run, so no fact is taken from it).
- ``extends`` (a service of this file, or of another file under the repository) and
  ``include``: bounded (:data:`MAX_EXTENDS` levels, :data:`MAX_FILES` files, :data:`MAX_BYTES`
  each) and confined to the scanned repository, through :class:`Project`.

YAML's own anchors and merge keys (``<<``) are resolved by the parser, as go-yaml v3 resolves
them; a key written twice is refused by go-yaml v3 (see the engine's SK007).
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, NamedTuple

from sandkit.lint.syntax.tree import PMap, Pos, PSeq, PStr, SyntaxProblem

if TYPE_CHECKING:
    from typing import Any

    from sandkit.lint.source import SourceFile

MAX_EXTENDS = 8  # levels of extends followed
MAX_FILES = 16  # other files (extended, included, .env) one Compose file may read
MAX_BYTES = 1_000_000  # of each of those files
_MAX_NESTING = 8  # defaults nested in defaults
_NAME = re.compile(r"[_A-Za-z][_A-Za-z0-9]*")
_TRUE = frozenset({"true", "y", "yes", "on"})
_FALSE = frozenset({"false", "n", "no", "off"})
_OPERATORS = (":-", ":?", ":+", "-", "?", "+")


class Substitution(NamedTuple):
    """A string after interpolation, and what decided it: ("PRIV", "default") for a default
    used because PRIV is not in .env, ("PRIV", ".env") for a value the .env gave."""

    text: str
    decided_by: tuple[tuple[str, str], ...] = ()

    def note(self) -> str:
        """What a finding says about the variables that decided it ("" when none did)."""
        if not self.decided_by:
            return ""
        parts = [
            f"${{{name}}} from the .env file"
            if where == ".env"
            else f"${{{name}}} read as blank, unset in .env"
            if where == "unset"
            else f"the default of ${{{name}}}, unset in .env"
            for name, where in self.decided_by
        ]
        return "set by " + ", ".join(parts) + "; the shell's environment may change it"


class _Invalid(Exception):
    """compose-go would refuse the text (an invalid template, or ``${VAR:?err}`` unset)."""


def interpolate(text: str, env: Mapping[str, str], *, defaults: bool = True) -> Substitution | None:
    """``text`` as compose-go interpolates it with ``env`` (None: compose would refuse it, or
    it cannot be known without the shell's environment; the caller keeps the text as written).

    With ``defaults=False`` a variable that ``env`` lacks is left as written, default and all.
    """
    if "$" not in text:
        return Substitution(text)
    decided: list[tuple[str, str]] = []
    try:
        result = _expand(text, env, defaults, decided, 0)
    except _Invalid:
        return None
    return Substitution(result, tuple(dict.fromkeys(decided)))


def _expand(text: str, env: Mapping[str, str], defaults: bool, decided: list[tuple[str, str]], depth: int) -> str:
    if depth > _MAX_NESTING:
        raise _Invalid
    out: list[str] = []
    at = 0
    while True:
        dollar = text.find("$", at)
        if dollar < 0:
            out.append(text[at:])
            return "".join(out)
        out.append(text[at:dollar])
        following = text[dollar + 1 : dollar + 2]
        if following == "$":
            out.append("$")
            at = dollar + 2
        elif following == "{":
            end = _closing(text, dollar + 2)
            body = text[dollar + 2 : end]
            out.append(_braced(body, text[dollar : end + 1], env, defaults, decided, depth))
            at = end + 1
        else:
            name = _NAME.match(text, dollar + 1)
            if name is None:  # compose-go's pattern does not match a lone "$": it stays
                out.append("$")
                at = dollar + 1
                continue
            out.append(_variable(name.group(), text[dollar : name.end()], env, defaults, decided))
            at = name.end()


def _closing(text: str, start: int) -> int:
    """Index of the ``}`` closing a ``${`` whose body starts at ``start``."""
    depth = 1
    for index in range(start, len(text)):
        if text[index] == "{":
            depth += 1
        elif text[index] == "}":
            depth -= 1
            if depth == 0:
                return index
    raise _Invalid


def _variable(name: str, written: str, env: Mapping[str, str], defaults: bool, decided: list[tuple[str, str]]) -> str:
    if name in env:
        decided.append((name, ".env"))
        return env[name]
    if not defaults:
        return written  # only the shell's environment decides: keep what is written
    # compose-go reads a variable set nowhere as blank (with a warning): ho${UNSET}st is host
    decided.append((name, "unset"))
    return ""


def _braced(
    body: str, written: str, env: Mapping[str, str], defaults: bool, decided: list[tuple[str, str]], depth: int
) -> str:
    name_match = _NAME.match(body)
    if name_match is None:
        raise _Invalid
    name, rest = name_match.group(), body[name_match.end() :]
    if not rest:
        return _variable(name, written, env, defaults, decided)
    operator = next((op for op in _OPERATORS if rest.startswith(op)), None)
    if operator is None:
        raise _Invalid  # ${VAR:0:2} and the like: compose-go refuses them
    argument = rest[len(operator) :]
    known = name in env
    value = env.get(name, "")
    if known:
        decided.append((name, ".env"))
    if operator in (":-", "-"):
        if known and (value or operator == "-"):
            return value
        if not known and not defaults:  # the default stays a default, what the .env gives filled in
            return "${" + name + operator + _expand(argument, env, defaults, decided, depth + 1) + "}"
        if not known:
            decided.append((name, "default"))
        return _expand(argument, env, defaults, decided, depth + 1)
    if operator in (":?", "?"):
        if known and (value or operator == "?"):
            return value
        if not known:
            return written  # required: the shell must set it, or compose refuses the file
        raise _Invalid
    # :+ and +: the alternative when set
    if not known:
        return written if not defaults else ""
    return _expand(argument, env, defaults, decided, depth + 1) if (value or operator == "+") else ""


def to_boolean(value: Any) -> bool | None:
    """compose-go's ``toBoolean`` on a boolean field's value (None: not a boolean, an error)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        lowered = value.lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
    return None


# ----- .env files as compose-go's dotenv reads them ------------------------------------------------
_DOTENV_BLANK = " \t\v\f\r\x85\xa0"  # dotenv's isSpace: white space that does not end a line
_DOTENV_ESCAPE = re.compile(r"\\(.)")


def read_dotenv(text: str) -> dict[str, str]:
    """The variables of a ``.env`` file as compose-go's ``dotenv`` parser reads them (checked
    against ``docker compose config``): ``export`` prefixes, ``NAME=value`` or ``NAME: value``,
    a value in single or double quotes that may span lines and ends at its closing quote (what
    follows on the line, a comment, is not part of it), ``\\n``, ``\\"`` and ``\\\\`` in double
    quotes, an unquoted value cut at `` #``; later lines see earlier ones in ``${VAR}``, single
    quotes keep ``$`` literal.

    Where compose-go refuses the file (a space in a name, an unterminated quote), the variables
    read so far are kept: the linter leans towards reading a value rather than dropping it.
    """
    env: dict[str, str] = {}
    at, end = 0, len(text)
    while True:
        while at < end and (text[at].isspace() or text[at] == "#"):  # blank lines and comments
            if text[at] == "#":
                newline = text.find("\n", at)
                at = end if newline < 0 else newline
            else:
                at += 1
        if at >= end:
            return env
        if text.startswith("export", at):
            at += len("export")
        at = _skip_blank(text, at)
        stop = at
        while stop < end and (text[stop].isalnum() or text[stop] in "_." or text[stop] in _DOTENV_BLANK):
            stop += 1
        key = text[at:stop].rstrip()
        if stop >= end or text[stop] not in "=:\n" or not key or " " in key:
            return env  # compose-go refuses the rest
        if text[stop] == "\n":  # a bare name: the shell's value, unknown here
            at = stop + 1
            continue
        at = _skip_blank(text, stop + 1)
        value, at = _dotenv_value(text, at, env)
        if at < 0:
            return env  # an unterminated quote
        env[key] = value


def _skip_blank(text: str, at: int) -> int:
    while at < len(text) and text[at] in _DOTENV_BLANK:
        at += 1
    return at


def _dotenv_value(text: str, at: int, env: dict[str, str]) -> tuple[str, int]:
    """(the value starting at ``at``, where the next statement starts; -1 when unterminated)."""
    quote = text[at] if at < len(text) and text[at] in "'\"" else ""
    if not quote:
        newline = text.find("\n", at)
        stop = len(text) if newline < 0 else newline
        value = text[at:stop].split(" #", 1)[0].rstrip()
        return _dotenv_expand(value, env), stop
    close = at + 1
    while close < len(text) and (text[close] != quote or text[close - 1] == "\\"):
        close += 1
    if close >= len(text):
        return "", -1
    raw = text[at + 1 : close]
    if quote == "'":
        return raw.replace("\\'", "'"), close + 1
    return _dotenv_expand(_DOTENV_ESCAPE.sub(_unescape, raw), env), close + 1


def _unescape(match: re.Match[str]) -> str:
    char = match.group(1)
    return {"n": "\n", "r": "\r", '"': '"', "\\": "\\", "$": "$$"}.get(char, match.group())


def _dotenv_expand(value: str, env: dict[str, str]) -> str:
    expanded = interpolate(value, env)
    return expanded.text if expanded is not None else value


# ----- the project around a Compose file ----------------------------------------------------------
class Project:
    """What a Compose file reads besides itself: the ``.env`` beside it, and the files its
    ``extends`` and ``include`` name, each read at most once, within the repository root."""

    def __init__(self, origin: str, root: str, *, interpolates: bool = True) -> None:
        self.origin = origin  # absolute path of the Compose file ("" when it has none: text given inline)
        self.root = root
        self.interpolates = interpolates  # the file has a "$" or extends: its .env may matter
        self._real_root = ""
        self.files_left = MAX_FILES
        self._documents: dict[str, list[Any] | None] = {}
        self._env: dict[str, dict[str, str]] = {}
        self.texts: list[str] = []  # what was read, for the rules' trigger words
        self.heads: dict[str, str] = {}  # the start of each YAML file read, which decides its kind

    @property
    def folder(self) -> str:
        return os.path.dirname(self.origin)

    def env(self, folder: str = "", *, needed: bool = False) -> dict[str, str]:
        """The variables of the ``.env`` file in ``folder`` (the Compose file's by default), as
        compose-go's dotenv reads them (:func:`read_dotenv`). The Compose file's own is read only
        when it interpolates, or when ``needed`` (a file it extends or includes interpolates)."""
        folder = folder or self.folder
        if folder == self.folder and not self.interpolates and not needed:
            return {}  # nothing in the file to interpolate: the .env is not read
        return self.dotenv(os.path.join(folder, ".env")) if folder else {}

    def dotenv(self, path: str) -> dict[str, str]:
        """The variables of the dotenv file at ``path`` (read once; empty when unreadable)."""
        if path not in self._env:
            text = self.read(path)
            self._env[path] = read_dotenv(text or "")
        return self._env[path]

    def read(self, path: str) -> str | None:
        """A file's text if it is a regular file under the root, within the bounds; else None."""
        if not self.root or self.files_left <= 0 or not os.path.isfile(path):
            return None
        if not self._real_root:
            self._real_root = os.path.realpath(self.root)
        real = os.path.realpath(path)
        if real != self._real_root and not real.startswith(self._real_root + os.sep):
            return None  # outside the repository: not read
        self.files_left -= 1
        try:
            with open(real, "rb") as handle:
                if not os.path.isfile(real):
                    return None
                raw = handle.read(MAX_BYTES + 1)
        except OSError:
            return None
        text = raw[:MAX_BYTES].decode("utf-8", errors="replace")
        self.texts.append(text)
        return text

    def documents(self, relative: str, base: str = "") -> tuple[str, list[Any]] | None:
        """(absolute path, YAML documents) of a file named relative to ``base`` (the Compose
        file's folder by default); None when it cannot be read or parsed."""
        if not relative or "://" in relative:
            return None  # a remote include (git, oci) is not fetched
        path = os.path.normpath(os.path.join(base or self.folder, os.path.expanduser(relative)))
        if path not in self._documents:
            text = self.read(path)
            self._documents[path] = _parse(text) if text is not None else None
            self.heads[path] = (text or "")[:4096]
        documents = self._documents[path]
        return (path, documents) if documents is not None else None

    def relative(self, path: str) -> str:
        """``path`` as findings name it: relative to the root."""
        return os.path.relpath(path, self.root) if self.root else path


def project_of(file: SourceFile) -> Project:
    """What a Compose file reads besides itself (made once per file)."""
    # a file it extends may interpolate with this file's .env: read it then too
    text = file.text
    return file.memo(
        "compose_project", lambda: Project(file.origin, file.root, interpolates="$" in text or "extends" in text)
    )


def trigger_text(file: SourceFile) -> str:
    """The text the rules' trigger words are looked for in: the file's, and, when it
    interpolates, extends or includes, the texts those bring in (a ``.env`` can say ``host``
    where the file only says ``${MODE}``), and the file as compose-go interpolates it
    (``ho${UNSET}st`` says ``host`` only then)."""
    text = file.text
    if "$" not in text and "extends" not in text and "include" not in text:
        return text
    project = project_of(file)
    interpolated = interpolate(text, project.env()) if "$" in text else None
    if "extends" in text or "include" in text:
        from sandkit.lint.facts.containers import containers

        with contextlib.suppress(SyntaxProblem):  # reported as the file's parse error
            containers(file)  # reads what it extends and includes
    return "\n".join((text, *project.texts, interpolated.text if interpolated is not None else ""))


def _parse(text: str) -> list[Any] | None:
    from sandkit.lint.syntax.yaml import load_documents

    try:
        return load_documents(text)
    except SyntaxProblem:
        return None


def services_of(documents: list[Any]) -> PMap | None:
    """The ``services`` mapping of a file's first document that has one."""
    for document in documents:
        services = document.get("services") if isinstance(document, PMap) else None
        if isinstance(services, PMap):
            return services
    return None


class Include(NamedTuple):
    """One file a top-level ``include`` names, with the environment its entry sets."""

    path: str
    pos: Pos
    env_files: tuple[str, ...] = ()  # ``env_file`` (relative to the including file)
    project_directory: str = ""  # ``project_directory`` (idem)


def include_entries(document: Any) -> Iterator[Include]:
    """Each file a top-level ``include`` names (short syntax, or ``path:`` of the long one, a
    string or a list), where it is written and the ``env_file``/``project_directory`` of its entry."""
    include = document.get("include") if isinstance(document, PMap) else None
    if not isinstance(include, PSeq):
        return
    for index, entry in enumerate(include):
        paths = entry.get("path") if isinstance(entry, PMap) else entry
        env_files: tuple[str, ...] = ()
        directory = ""
        if isinstance(entry, PMap):
            written = entry.get("env_file")
            items = written if isinstance(written, PSeq) else [written]
            env_files = tuple(str(item) for item in items if isinstance(item, str))
            directory = str(entry.get("project_directory") or "")
        for path in paths if isinstance(paths, PSeq) else [paths]:
            if isinstance(path, str):
                at = path.pos if isinstance(path, PStr) else include.pos_of(index)
                yield Include(path, at, env_files, directory)


def extends_of(service: PMap) -> tuple[str, str, Pos] | None:
    """(service, file or "", where) that ``service`` extends, or None."""
    extends = service.get("extends")
    at = service.pos_of("extends")
    if isinstance(extends, str):
        return extends, "", at
    if isinstance(extends, PMap) and isinstance(extends.get("service"), str):
        file = extends.get("file")
        return str(extends["service"]), str(file) if isinstance(file, str) else "", at
    return None
