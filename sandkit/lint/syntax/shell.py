"""Shell command lines as words with positions: quoting, escapes and line continuations.

This is not a shell: it splits text into simple commands (on ``;``, ``&``, ``|``, ``&&``,
``||``, newlines and parentheses), unquotes each word and drops redirections and comments.
Reserved words (``if``, ``then``, ``do``, ``{`` ...) before a command are skipped, and the
commands inside ``$(...)`` and backticks are read too (:data:`MAX_SUBSTITUTION_DEPTH` deep),
positioned where they are written.
That is what rules need to read ``docker run -v ...`` wherever it is written, and it never
fails: unterminated quotes simply end at the end of the text.

Array assignments (``args=(--rm -v "$HOME/.ssh:/k")``, ``args+=(...)``) are read as arrays, not
as commands. With ``expand=True`` a word that is a whole variable reference (``$opts``,
``"${args[@]}"``) is replaced by the words the script last assigned to it, in text order, so
``docker run "${args[@]}" image`` is read with the flags the array holds, at the place each was
written; a reference inside a word (``-v "$SOCK:/sock"``) takes the variable's value when it is
one word (up to :data:`MAX_EXPANDED_CHARS`). The commands inside a substitution see the arrays
assigned before it (``out=$("${CMD[@]}" "$prompt")``). An array holding an agent's command line
(``CLAUDE_CMD=(claude -p ...)``) is also read as a command where it is written, however the script
runs it later (``tmux new-session "${CLAUDE_CMD[*]}"``). A ``docker|podman run`` command line exported in a
variable (``export CMD='docker run ...'``, for another program to run) is read as a command where
it is written. Variables are bounded (:data:`MAX_VARIABLE_WORDS` words each).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from sandkit.agents import CATALOGUE
from sandkit.lazy_regex import lazy
from sandkit.lint.syntax.tree import MAX_SUBSTITUTIONS, Pos

_OPERATOR_CHARS = ";&|()\n"
_REDIRECT_CHARS = "<>"
_WRAPPERS = frozenset({"sudo", "exec", "command", "time", "nohup", "env", "doas", "xargs"})
#: Wrappers that run the command after them with a limit or a setting, some taking one bare
#: number first (``timeout 600 docker run ...``, ``nice -n 10 claude -p ...``, ``chrt 5 ...``).
TIMING_WRAPPERS = frozenset({"timeout", "nice", "ionice", "chrt", "stdbuf", "setsid", "unbuffer", "xvfb-run"})
#: Options of ``command`` with which it prints where a program is instead of running it.
_LOOKUP_ONLY = frozenset({"-v", "-V", "-pv", "-pV"})
#: The bare number or duration a timing wrapper takes before the command (``600``, ``10m``, ``1.5h``).
_WRAPPER_VALUE = lazy(r"^[+-]?\d+(?:\.\d+)?[smhd]?$")
#: Options of the timing wrappers whose value is the next word (``timeout -s KILL``, ``ionice -c 3``).
_VALUED_OPTIONS = frozenset({"-s", "--signal", "-k", "--kill-after", "-n", "--adjustment", "-c", "--class"})


class Quoting(NamedTuple):
    """One character of a shell line with the quoting it is read under."""

    at: int
    char: str
    #: ``"syntax"`` (the shell acts on it), ``"delimiter"`` (a quote opening or closing),
    #: ``"quoted"`` (inside quotes) or ``"escaped"`` (a backslash escape, or what it escapes).
    role: str
    #: The quote open after this character ("" when none).
    quote: str


def quoting(text: str) -> Iterator[Quoting]:
    """Each character of ``text`` with its role under shell quoting: one reading of quotes and
    backslashes that the line-level rules share, so that they agree on what is text and what is
    syntax (single quotes take backslashes literally; an unterminated quote runs to the end)."""
    quote = ""
    escaping = False
    for at, char in enumerate(text):
        if escaping:
            escaping = False
            yield Quoting(at, char, "escaped", quote)
        elif char == "\\" and quote != "'":
            escaping = True
            yield Quoting(at, char, "escaped", quote)
        elif quote:
            role = "delimiter" if char == quote else "quoted"
            quote = "" if char == quote else quote
            yield Quoting(at, char, role, quote)
        elif char in "'\"":
            quote = char
            yield Quoting(at, char, "delimiter", quote)
        else:
            yield Quoting(at, char, "syntax", quote)


def open_quote(text: str) -> str:
    """The quote character still open at the end of ``text`` ("" when none)."""
    last = ""
    for item in quoting(text):
        last = item.quote
    return last


def program_index(words: list[str]) -> int:
    """The index of the program a simple command runs: the first word after its ``NAME=value``
    settings and the wrappers before it (sudo, env, exec ..., and :data:`TIMING_WRAPPERS` with
    their options and number), or ``len(words)``: also when the command only looks a program up
    (``command -v claude``, ``command -V docker`` print where it is and run nothing)."""
    timing = skip_value = False
    for index, word in enumerate(words):
        name = word.rsplit("/", 1)[-1]
        if name == "command" and _looks_up(words[index + 1 :]):
            return len(words)
        if skip_value:
            skip_value = False
        elif name in _WRAPPERS or name in TIMING_WRAPPERS:
            timing = timing or name in TIMING_WRAPPERS
        elif index > 0 and name.startswith("-"):
            skip_value = timing and name in _VALUED_OPTIONS
        elif "=" not in name and not (timing and _WRAPPER_VALUE.match(name)):
            return index
    return len(words)


def _looks_up(arguments: list[str]) -> bool:
    """Whether ``command`` given these arguments only looks the program up: one of its options
    before the program's name is ``-v`` or ``-V`` (alone or with ``-p``: ``-pv``)."""
    for word in arguments:
        if not word.startswith("-") or word == "--":
            return False
        if word in _LOOKUP_ONLY:
            return True
    return False


_DECLARERS = frozenset({"export", "local", "declare", "typeset", "readonly"})
_ARRAY_START = lazy(r"[A-Za-z_]\w*\+?=")
_REFERENCE = lazy(r"\$(?:([A-Za-z_]\w*)|\{([A-Za-z_]\w*)(?:\[[@*]\])?\})")
#: A plain reference inside a word (``"$SOCK:/var/run/docker.sock"``, ``${DIR}/x``).
_PART_REFERENCE = lazy(r"\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))")
#: Programs whose command line a script keeps in a variable for something else to run
#: (``export GATEWAY_COMMAND='docker run ... -v ...'``): the value is read as a command too.
_STORED_PROGRAMS = frozenset({"docker", "podman", "nerdctl"})
_STORED_SUBCOMMANDS = frozenset({"run", "create"})
#: Agent commands and packages (sandkit/agents.py): an array starting one is read as a command.
_AGENT_NAMES = frozenset(name for agent in CATALOGUE for name in agent.names)
#: Programs that start the package or command after them (``npx @anthropic-ai/claude-code``).
_LAUNCHERS = frozenset({"npx", "bunx", "pnpx", "uvx", "pipx", "dlx"})
#: How much of a substitution's text is searched for the variables it refers to.
MAX_SEEN_CHARS = 20_000
MAX_VARIABLE_WORDS = 1000
#: A word a reference inside it expands past this is kept as written (``A="$A$A"`` doubles).
MAX_EXPANDED_CHARS = 4096
#: Words that open or close a compound command (``if x; then docker run ...; fi``); a command
#: starting with one is read from the word after it.
_RESERVED = frozenset({"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "{", "}", "!"})
#: Command substitutions (``$(...)``, backticks) inside substitutions read as commands, this deep.
MAX_SUBSTITUTION_DEPTH = MAX_SUBSTITUTIONS


class Word(NamedTuple):
    """One unquoted word and where its first character is in the text."""

    text: str
    pos: Pos


class Command:
    """A simple command: its words, with leading ``NAME=value`` assignments kept apart."""

    __slots__ = ("assignments", "words")

    def __init__(self, words: list[Word] | None = None, assignments: list[Word] | None = None) -> None:
        self.words = words if words is not None else []
        self.assignments = assignments if assignments is not None else []

    @property
    def pos(self) -> Pos:
        first = self.words or self.assignments
        return first[0].pos if first else Pos()

    def argv(self) -> list[str]:
        return [w.text for w in self.words]

    def program(self) -> tuple[str, int]:
        """The program's base name and its index, looking through sudo/env/exec wrappers."""
        index = program_index([word.text for word in self.words])
        return (self.words[index].text.rsplit("/", 1)[-1], index) if index < len(self.words) else ("", index)


def parse_commands(
    text: str, *, expand: bool = False, unread: list[Pos] | None = None, _depth: int = 0
) -> list[Command]:
    """Split shell text into simple commands; positions are 1-based within ``text``.

    With ``expand``, whole-word variable references are replaced by what the text assigned
    to them before (see the module doc). Where substitutions nest deeper than
    :data:`MAX_SUBSTITUTION_DEPTH`, the place of the first one not read goes to ``unread``.
    """
    commands: list[Command] = []
    current = Command()
    drop_next = False
    variables = _Variables(text) if expand else None
    substitutions: list[tuple[str, Pos]] = []
    tokens = list(_tokens(text, substitutions))
    #: The variables each substitution can see, taken as the text is read (with ``expand``).
    seen_by: list[_Variables | None] = []
    i = 0
    while i < len(tokens):
        kind, word = tokens[i]
        if variables is not None:
            _snapshot_passed(substitutions, seen_by, word.pos, variables)
        i += 1
        if kind == "word" and not (current.words or current.assignments) and word.text in _RESERVED:
            continue
        if kind == "op":
            _finish(current, commands, variables)
            current = Command()
        elif kind == "redirect":
            drop_next = True
        elif drop_next:
            drop_next = False
        elif _opens_array(word, tokens, i) and (not current.words or current.program()[0] in _DECLARERS):
            i, value = _read_array(word, tokens, i + 1, variables)
            if _starts_agent_array(value):
                commands.append(Command(value))
        elif not current.words and _is_assignment(word.text):
            current.assignments.append(word)
        elif variables is not None and not current.words and variables.ran_already(word):
            current.words.append(word)  # ``$CMD`` of a command read where it was exported: once is enough
        else:
            current.words.extend(variables.expand(word) if variables is not None else (word,))
    _finish(current, commands, variables)
    if variables is not None:
        _snapshot_passed(substitutions, seen_by, None, variables)
    if _depth >= MAX_SUBSTITUTION_DEPTH:
        if substitutions and unread is not None:
            unread.append(substitutions[0][1])
        return commands
    for index, (inner, at) in enumerate(substitutions):
        deeper: list[Pos] = []
        seen = seen_by[index] if index < len(seen_by) else None
        for command in parse_commands(inner, unread=deeper, _depth=_depth + 1):
            moved = _moved(command, at)
            if seen is not None:
                moved.words = [w for word in moved.words for w in _expanded_once(seen, word)]
            commands.append(moved)
        if unread is not None:
            unread.extend(_moved_pos(pos, at) for pos in deeper)
    return commands


def _snapshot_passed(
    substitutions: list[tuple[str, Pos]], seen_by: list[_Variables | None], before: Pos | None, variables: _Variables
) -> None:
    """Give each substitution that starts before ``before`` (all of them when None) and has none
    yet the variables assigned so far that its text refers to: ``out=$("${CMD[@]}" "$p")`` runs
    the array the script built above it (its words keep the places they were written)."""
    while len(seen_by) < len(substitutions):
        inner, at = substitutions[len(seen_by)]
        if before is not None and (at.line, at.column) >= (before.line, before.column):
            return
        seen_by.append(variables.seen_from(inner))


def _expanded_once(variables: _Variables, word: Word) -> list[Word]:
    """A word of a substitution with the variables it refers to expanded (one read where it was
    exported as a command stays as written, as at the top level)."""
    return [word] if variables.ran_already(word) else variables.expand(word)


def _starts_agent_array(words: list[Word]) -> bool:
    """An array holding an agent's command line (``CLAUDE_CMD=(claude -p --model x)``, ``(npx
    @openai/codex exec)``): a script keeps one to run it (``"${CLAUDE_CMD[@]}" "$prompt"``, or as
    a string, ``tmux new-session "${CMD[*]}"``), so it is read as a command where it is written."""
    if len(words) < 2:
        return False
    index = program_index([word.text for word in words])
    for word in words[index : index + 2]:
        text = word.text
        base = "@" + text[1:].split("@", 1)[0] if text.startswith("@") else text.rsplit("/", 1)[-1].split("@", 1)[0]
        if base in _AGENT_NAMES:
            return True
        if base not in _LAUNCHERS:
            return False
    return False


def _moved_pos(pos: Pos, at: Pos) -> Pos:
    """A position in text that starts at ``at``, in the outer text."""
    return Pos(at.line, at.column + pos.column - 1) if pos.line == 1 else Pos(at.line + pos.line - 1, pos.column)


def _moved(command: Command, at: Pos) -> Command:
    """A command parsed from text that starts at ``at``, positioned in the outer text."""
    return Command(
        [Word(w.text, _moved_pos(w.pos, at)) for w in command.words],
        [Word(w.text, _moved_pos(w.pos, at)) for w in command.assignments],
    )


def _finish(command: Command, commands: list[Command], variables: _Variables | None) -> None:
    if not (command.words or command.assignments):
        return
    commands.append(command)
    if variables is None:
        return
    program, index = command.program()
    if not command.words or program in _DECLARERS:
        exported = program == "export" or (program in ("declare", "typeset") and _has_flag(command, index, "x"))
        for word in (*command.assignments, *command.words[index + 1 :]):
            if _is_assignment(word.text):
                value = variables.assign_scalar(word)
                stored = _stored_command(value) if exported else None
                if stored is not None:
                    commands.append(stored)
                    variables.stored.add(word.text.partition("=")[0])


def _has_flag(command: Command, index: int, letter: str) -> bool:
    return any(w.text.startswith("-") and letter in w.text[1:] for w in command.words[index + 1 :])


def _stored_command(words: list[Word]) -> Command | None:
    """A container command line exported in a variable (``export CMD='docker run -v ...'``) for
    another program to run: a command where it is written, since what runs it runs these words."""
    stored = Command(words)
    program, index = stored.program()
    rest = {w.text for w in words[index + 1 : index + 4]}
    return stored if program in _STORED_PROGRAMS and rest & _STORED_SUBCOMMANDS else None


def _opens_array(word: Word, tokens: list[tuple[str, Word]], nxt: int) -> bool:
    """``NAME=(`` or ``NAME+=(``, the parenthesis right after the equals sign."""
    if nxt >= len(tokens) or not _ARRAY_START.fullmatch(word.text):
        return False
    kind, paren = tokens[nxt]
    return kind == "op" and paren.text == "(" and paren.pos == Pos(word.pos.line, word.pos.column + len(word.text))


def _read_array(
    name_word: Word, tokens: list[tuple[str, Word]], i: int, variables: _Variables | None
) -> tuple[int, list[Word]]:
    """Read the words of an array up to its ``)``; returns the index after it and the array's
    value (with an append, ``NAME+=(...)``, the whole value when variables are followed)."""
    words: list[Word] = []
    while i < len(tokens):
        kind, word = tokens[i]
        i += 1
        if kind == "op" and word.text == ")":
            break
        if kind == "word":
            words.extend(variables.expand(word) if variables is not None else (word,))
    if variables is None:
        return i, words
    name = name_word.text.rstrip("=").rstrip("+")
    variables.assign(name, words, append=name_word.text.endswith("+="))
    variables.arrays.add(name)
    return i, variables.values[name]


class _Variables:
    """What a script has assigned so far: name -> the words of its value."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.values: dict[str, list[Word]] = {}
        #: Variables whose value was read as a command where it was assigned (an exported one).
        self.stored: set[str] = set()
        #: Variables last assigned as arrays (``NAME=(...)``, ``NAME+=(...)``).
        self.arrays: set[str] = set()
        self._line_starts: list[int] | None = None

    def assign(self, name: str, words: list[Word], *, append: bool = False) -> None:
        value = [*self.values.get(name, []), *words] if append else list(words)
        self.values[name] = value[:MAX_VARIABLE_WORDS]

    def assign_scalar(self, word: Word) -> list[Word]:
        """``NAME=value``: the value's words (as unquoted word splitting would give them), with
        the variables assigned before expanded in them, as the shell does at the assignment."""
        name, _, value = word.text.partition("=")
        self.arrays.discard(name)
        start = self._offset(word.pos) + len(name) + 1
        quoted = self.text[start : start + 1] in ("'", '"')
        column = word.pos.column + len(name) + 1 + quoted
        # Expanding splits a value at blanks only: parentheses in it are text (``"Bash(git:*)"``),
        # unless it holds a command substitution, read as one.
        escaped = value if "$(" in value or "`" in value else _PAREN.sub(r"\\\g<0>", value)
        added = [m.start() for m in _PAREN.finditer(value)] if escaped is not value else []
        words = [
            expanded
            for kind, w in _tokens(escaped)
            if kind == "word"
            for expanded in self.expand(
                Word(
                    w.text,
                    Pos(word.pos.line, column + _unescaped(added, w.pos.column - 1)) if w.pos.line == 1 else word.pos,
                )
            )
        ]
        self.assign(name, words)
        return self.values[name]

    def expand(self, word: Word) -> list[Word]:
        """A whole-word reference becomes the words its variable holds; a reference inside a
        word (``"$SOCK:/sock"``) is replaced where its variable holds one word; unknown ones stay."""
        match = _REFERENCE.fullmatch(word.text)
        if match:
            name = match.group(1) or match.group(2)
            return list(self.values[name]) if name in self.values else [word]
        if "$" not in word.text:
            return [word]
        expanded = _PART_REFERENCE.sub(self._single, word.text)
        return [Word(expanded, word.pos)] if len(expanded) <= MAX_EXPANDED_CHARS else [word]

    def seen_from(self, text: str) -> _Variables | None:
        """The arrays ``text`` refers to, as they are now (None when it refers to none held): what
        a command substitution written here sees when it is read after the whole text. Only
        arrays: a script builds one to run (``out=$(claude "${args[@]}")``), while the scalars a
        substitution reads are mostly its function's arguments and outputs."""
        names = {m.group(1) or m.group(2) for m in _REFERENCE.finditer(text, 0, MAX_SEEN_CHARS)}
        held = {name: self.values[name] for name in names if name in self.arrays and name in self.values}
        if not held:
            return None
        seen = _Variables("")
        seen.values = held
        seen.stored = self.stored & held.keys()
        return seen

    def ran_already(self, word: Word) -> bool:
        """A whole-word reference to a variable whose command was read where it was assigned."""
        match = _REFERENCE.fullmatch(word.text)
        return match is not None and (match.group(1) or match.group(2)) in self.stored

    def _single(self, match: re.Match[str]) -> str:
        value = self.values.get(match.group(1) or match.group(2) or "")
        return value[0].text if value is not None and len(value) == 1 else match.group(0)

    def _offset(self, pos: Pos) -> int:
        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        starts = self._line_starts
        return starts[min(pos.line, len(starts)) - 1] + pos.column - 1


#: A parenthesis not already escaped.
_PAREN = lazy(r"(?<!\\)[()]")


def _unescaped(added: list[int], offset: int) -> int:
    """The offset in a value of ``offset`` in the value with a backslash added before each
    parenthesis at ``added`` (offsets in the value)."""
    moved = 0
    for at in added:
        if at + moved >= offset:
            break
        moved += 1
    return offset - moved


def _is_assignment(text: str) -> bool:
    name, eq, _ = text.partition("=")
    return bool(eq) and name.replace("_", "a").isalnum() and not name[0].isdigit()


def _tokens(text: str, substitutions: list[tuple[str, Pos]] | None = None) -> Iterator[tuple[str, Word]]:
    """Yield ("word"|"op"|"redirect", Word) pairs; the text of each command substitution met,
    with where it starts, is added to ``substitutions``."""
    subs = substitutions if substitutions is not None else []
    i, n, line, col = 0, len(text), 1, 1
    buf: list[str] = []
    start: Pos | None = None

    def flush() -> Iterator[tuple[str, Word]]:
        nonlocal buf, start
        if start is not None:
            yield "word", Word("".join(buf), start)
        buf, start = [], None

    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n:
            if text[i + 1] == "\n":
                i, line, col = i + 2, line + 1, 1
                continue
            start = start or Pos(line, col)
            buf.append(text[i + 1])
            i, col = i + 2, col + 2
            continue
        if ch in " \t\r":
            yield from flush()
            i, col = i + 1, col + 1
            continue
        if ch == "#" and start is None:
            end = text.find("\n", i)
            end = n if end < 0 else end
            col += end - i
            i = end
            continue
        if ch in _OPERATOR_CHARS:
            yield from flush()
            yield "op", Word(ch, Pos(line, col))
            if ch == "\n":
                line, col = line + 1, 1
            else:
                col += 1
            i += 1
            continue
        if ch in _REDIRECT_CHARS:
            digits_only = start is not None and "".join(buf).isdigit()
            if digits_only:
                buf, start = [], None
            yield from flush()
            j = i
            while j < n and text[j] in "<>&":
                j += 1
            yield "redirect", Word(text[i:j], Pos(line, col))
            col += j - i
            i = j
            continue
        start = start or Pos(line, col)
        if ch in "'\"`":
            i, line, col = _quoted(text, i, line, col, buf, subs)
            continue
        if ch == "$" and text.startswith("$(", i):
            i, line, col = _substitution(text, i, line, col, buf, subs)
            continue
        buf.append(ch)
        i, col = i + 1, col + 1
    yield from flush()


def _quoted(
    text: str, i: int, line: int, col: int, buf: list[str], subs: list[tuple[str, Pos]]
) -> tuple[int, int, int]:
    """Consume a quoted run starting at text[i]; returns the new index, line and column."""
    quote, n = text[i], len(text)
    i, col = i + 1, col + 1
    if quote == "`":
        end = text.find("`", i)
        subs.append((text[i : n if end < 0 else end], Pos(line, col)))
    while i < n and text[i] != quote:
        ch = text[i]
        if quote == '"' and ch == "$" and text.startswith("$(", i):
            i, line, col = _substitution(text, i, line, col, buf, subs)
            continue
        if quote != "'" and ch == "\\" and i + 1 < n:
            nxt = text[i + 1]
            if nxt == "\n":
                i, line, col = i + 2, line + 1, 1
                continue
            buf.append(nxt if nxt in '"\\$`' else ch + nxt)
            i, col = i + 2, col + 2
            continue
        buf.append(ch)
        if ch == "\n":
            line, col = line + 1, 1
        else:
            col += 1
        i += 1
    return i + 1, line, col + 1


def _substitution(
    text: str, i: int, line: int, col: int, buf: list[str], subs: list[tuple[str, Pos]]
) -> tuple[int, int, int]:
    """Keep ``$( ... )`` as literal word text, balancing parentheses; its inside goes to ``subs``."""
    depth, n = 0, len(text)
    start, at = i + 2, Pos(line, col + 2)
    while i < n:
        ch = text[i]
        buf.append(ch)
        i += 1
        if ch == "\n":
            line, col = line + 1, 1
            continue
        col += 1
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                break
    subs.append((text[start : i - 1 if depth == 0 else i], at))
    return i, line, col
