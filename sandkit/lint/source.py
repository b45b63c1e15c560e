"""One file as rules see it: its text, its kind, and its parsed forms, each built on first use.

Parsing is lazy and happens at most once per file: the first rule that asks for
``file.documents`` pays for the parse, the others reuse it; a parse failure is remembered and
raised again as the same :class:`SyntaxProblem`, which the engine turns into one parse-error
finding.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Collection, Iterator
from typing import TYPE_CHECKING, NamedTuple

from sandkit.lazy_regex import AnyPattern, case_folded
from sandkit.lint import kinds
from sandkit.lint.syntax.shell import Command, Word, parse_commands
from sandkit.lint.syntax.tree import BoundHit, Node, PMap, Pos, PStr, SyntaxProblem, TreeBudget, mappings, walk

if TYPE_CHECKING:  # the syntax modules are parsed on first use only: they load lazily
    from typing import Any, TypeVar

    from sandkit.lint.syntax.dockerfile import Instruction
    from sandkit.lint.syntax.envfile import EnvEntry
    from sandkit.lint.syntax.jenkinsfile import Pipeline

    T = TypeVar("T")

_DOCUMENTS: Any = object()  # walk's default root: every document of the file
NOT_PLAIN: Any = object()  # plain_json of a text that is not strict JSON


_HEAD = 65_536  # characters: a text longer than this is read by line only where it must be
_COUNTED = 8  # positions in a large text found without indexing its lines
_FRONT_MATTER_END = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.MULTILINE)


class RuleSettings(NamedTuple):
    """Configuration values rules may read (from ``[tool.sandkit]``)."""

    extra_secret_patterns: tuple[str, ...] = ()
    include_examples: bool = False  # report secrets in tests, fixtures and documentation (at low)


class SourceFile:
    """A scanned file. ``path`` is relative to the scan root, with forward slashes."""

    def __init__(
        self,
        path: str,
        text: str,
        kind: str,
        syntax: str,
        *,
        in_dependency: bool = False,
        settings: RuleSettings | None = None,
        template_values: Any = None,
        origin: str = "",
        root: str = "",
    ) -> None:
        self.path = path
        #: The file's absolute path and the scan's root ("" for text that has no file): where the
        #: files its consumer reads with it are (a Compose file's .env, what it extends).
        self.origin = origin
        self.root = root
        self.template_values = template_values  # a Helm chart's values.yaml, for syntax "helm"
        self.text = text
        self.kind = kind
        self.syntax = syntax
        self.in_dependency = in_dependency
        self.settings = settings or RuleSettings()
        self._memo: dict[str, Any] = {}
        self._line_starts: list[int] | None = None
        self._counted = 0  # positions counted without the index (see pos_at)
        self._budget: TreeBudget | None = None

    # ----- text and positions -------------------------------------------------------------
    @property
    def lines(self) -> list[str]:
        return self.memo("lines", lambda: self.text.splitlines())

    @property
    def lowered(self) -> str:
        """The text as :func:`case_folded` writes it, for cheap pre-checks of case-insensitive
        patterns (made once per file)."""
        return self.memo("lowered", lambda: case_folded(self.text))

    def line_text(self, line: int) -> str:
        """Line ``line`` (1-based) as ``text.splitlines()`` numbers it, "" past the end.

        A line near the top of a large text is read from its head: a lockfile's size finding
        (line 1) need not split two megabytes into lines."""
        if "lines" not in self._memo and len(self.text) > _HEAD:
            head: list[str] = self.memo("head_lines", lambda: self.text[:_HEAD].splitlines())
            if 0 < line < len(head):  # not the last one, which the cut may have shortened
                return head[line - 1]
        lines = self.lines
        return lines[line - 1] if 0 < line <= len(lines) else ""

    def pos_at(self, offset: int) -> Pos:
        """The 1-based position of character ``offset`` of the text.

        In a large text the first few are counted directly (a pass in C up to the offset);
        the index of line starts, a Python object per line, is built from the next one on."""
        starts = self._line_starts
        if starts is None:
            if len(self.text) > _HEAD and self._counted < _COUNTED:
                self._counted += 1
                return Pos(self.text.count("\n", 0, offset) + 1, offset - self.text.rfind("\n", 0, offset))
            starts = self._line_starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        line = bisect.bisect_right(starts, offset)
        return Pos(line, offset - starts[line - 1] + 1)

    def search(self, pattern: AnyPattern) -> Iterator[tuple[re.Match[str], Pos]]:
        """Every match of ``pattern`` in the raw text with its position."""
        for match in pattern.finditer(self.text):
            yield match, self.pos_at(match.start())

    def str_pos(self, value: PStr, offset: int = 0) -> Pos:
        """Position of character ``offset`` inside a parsed string, block scalars included."""
        if value.style in ("|", ">"):
            starts = value.line_starts()
            rel = bisect.bisect_right(starts, offset)
            line = value.pos.line + rel
            start = starts[rel - 1]
            end = value.find("\n", offset)
            own = value[start : end if end >= 0 else len(value)]
            text = self.line_text(line)
            # the block's indentation: the file line's, less what the line keeps of its own
            indent = (len(text) - len(text.lstrip(" "))) - (len(own) - len(own.lstrip(" ")))
            return Pos(line, max(indent, 0) + offset - start + 1)
        return value.pos_at(offset)

    @property
    def budget(self) -> TreeBudget:
        """What this file's data may still cost (made on first use: most files never walk)."""
        if self._budget is None:
            self._budget = TreeBudget()
        return self._budget

    def bounds_met(self) -> list[BoundHit]:
        """Where this file's data met a bound (each bound once), for the engine to report."""
        return list(self._budget.hits.values()) if self._budget is not None else []

    def memo(self, key: str, build: Callable[[], T]) -> T:
        """Compute ``build()`` once per file and key; for facts several rules share."""
        if key not in self._memo:
            try:
                self._memo[key] = build()
            except SyntaxProblem as exc:
                self._memo[key] = exc
        value = self._memo[key]
        if isinstance(value, SyntaxProblem):
            raise value
        built: T = value  # what build() returned for this key
        return built

    def walk(
        self, root: Any = _DOCUMENTS, *, prune: Collection[Any] = (), within: int | None = None, sequences: bool = True
    ) -> Iterator[Node]:
        """Every mapping and sequence under ``root`` (by default, in each document), each once.

        See :func:`sandkit.lint.syntax.tree.walk`; every walk of the file draws on one budget,
        and the engine reports a bound that was met (SK005).
        """
        for top in self.documents if root is _DOCUMENTS else (root,):
            yield from walk(top, self.budget, prune=prune, within=within, sequences=sequences)

    def mappings(
        self, root: Any = _DOCUMENTS, *, prune: Collection[Any] = (), within: int | None = None, sequences: bool = True
    ) -> Iterator[PMap]:
        """The mappings :meth:`walk` visits (the usual question: which mapping has key X?)."""
        if root is not _DOCUMENTS:
            return mappings(root, self.budget, prune=prune, within=within, sequences=sequences)
        return self._each_document(prune, within, sequences)

    def _each_document(self, prune: Collection[Any], within: int | None, sequences: bool) -> Iterator[PMap]:
        for top in self.documents:
            yield from mappings(top, self.budget, prune=prune, within=within, sequences=sequences)

    # ----- parsed forms -------------------------------------------------------------------
    @property
    def documents(self) -> list[Any]:
        """Parsed documents of a YAML (all of a stream), JSON(C) or TOML file."""
        return self.memo("documents", self._parse_documents)

    @property
    def plain_json(self) -> Any:
        """A JSON file's document as the C parser reads it, with no positions (``NOT_PLAIN`` when
        the text is not strict JSON: comments, trailing commas, a byte-order mark, NaN ...).

        Positions cost a pure-Python parse many times slower; a rule can ask this form whether a
        file holds anything for it, and read :attr:`documents` only when it does.
        """
        return self.memo("plain_json", self._plain_json)

    def _plain_json(self) -> Any:
        from sandkit.syntax.jsonc import load_json

        if self.syntax != "json":
            return NOT_PLAIN
        try:
            return load_json(self.text)
        except SyntaxProblem:  # not JSON, NaN or Infinity, a huge integer, nested too deep
            return NOT_PLAIN

    def validate(self) -> None:
        """Raise SyntaxProblem if the file does not parse, doing no more work than that."""
        if self.syntax in ("yaml", "helm", "template"):
            from sandkit.lint.syntax.yaml import check_syntax

            self.memo("yaml_valid", lambda: check_syntax(self.yaml_text, self.budget))
        else:
            self.documents  # noqa: B018

    @property
    def yaml_text(self) -> str:
        """The text the YAML parser reads: a Helm template's with its directives masked
        (:mod:`sandkit.lint.syntax.helm`, lines and value columns kept), else the file's own."""
        from sandkit.lint.syntax.yaml import check_syntax

        if self.syntax not in ("helm", "template"):
            if self.syntax == "yaml" and self.kind in _FILLED_BEFORE_PARSING and any(m in self.text for m in "%@$"):
                return self.memo("yaml_filled", lambda: self._filled_yaml(check_syntax))
            return self.text
        from sandkit.lint.syntax.helm import mask_template, salvage

        def masked() -> str:
            text = mask_template(self.text, self.template_values or {})
            try:
                return salvage(text, lambda candidate: check_syntax(candidate, self.budget))
            except SyntaxProblem:
                return text  # more than a few lines unreadable: the parse reports it (SK001, info)

        return self.memo("helm_masked", masked)

    def _filled_yaml(self, check: Callable[[str, TreeBudget], None]) -> str:
        """The text, or when it is not YAML, the text with its bare placeholders (``%%HOST%%``,
        ``@VERSION@``, which YAML cannot start a plain value with) written as strings of the same
        length: the file as a ``sed`` or a consumer leaves it before it is parsed."""
        if not _BARE_PLACEHOLDER.search(self.text):
            return self.text  # no placeholder: the text is parsed once, by whoever asks
        try:
            check(self.text, self.budget)
        except SyntaxProblem:
            filled = filled_placeholders(self.text)
            if filled is not None:
                return filled
        return self.text

    def _yaml_nodes(self) -> list[Any]:
        from sandkit.lint.syntax.yaml import compose_nodes

        return self.memo("yaml_nodes", lambda: compose_nodes(self.yaml_text, self.budget))

    def _parse_documents(self) -> list[Any]:
        if self.syntax in ("yaml", "helm", "template"):
            from sandkit.lint.syntax.yaml import convert_nodes

            return convert_nodes(self._yaml_nodes(), self.budget)
        if self.syntax == "json":
            from sandkit.lint.syntax.jsonc import load_jsonc

            return [
                _with_placeholders(load_jsonc, self.text)
                if self.kind in _FILLED_BEFORE_PARSING
                else load_jsonc(self.text)
            ]
        if self.syntax == "toml":
            from sandkit.lint.syntax.toml import load_toml

            return [
                _with_placeholders(load_toml, self.text)
                if self.kind in _FILLED_BEFORE_PARSING
                else load_toml(self.text)
            ]
        if self.syntax == "hcl":
            from sandkit.lint.syntax.hcl import load_hcl

            return [load_hcl(self.text)]
        return []

    def embedded(self, value: PStr) -> list[Any]:
        """The YAML (or JSON) documents held in a string of this file, positioned in this file.

        For patches and pod-spec patches written inline (kustomize ``patch: |``, Argo
        ``podSpecPatch``). Text that does not parse gives no documents: a templated string
        (``{{ ... }}``) is often not YAML until its tool fills it in.
        """
        return self.memo(f"embedded:{value.pos}", lambda: self._embedded(value))

    def _embedded(self, value: PStr) -> list[Any]:
        from sandkit.lint.syntax.yaml import compose_nodes, convert_nodes

        try:
            documents = convert_nodes(compose_nodes(str(value)), self.budget)
        except SyntaxProblem:
            return []
        starts = [0] + [m.end() for m in re.finditer("\n", value)]

        def locate(p: Pos) -> Pos:
            return self.str_pos(value, starts[min(p.line, len(starts)) - 1] + p.column - 1)

        moved: set[int] = set()
        for document in documents:
            for node in self.walk(document):
                _move(node, locate, moved)
        return documents

    @property
    def instructions(self) -> list[Instruction]:
        """Dockerfile instructions (:class:`sandkit.lint.syntax.dockerfile.Instruction`)."""
        from sandkit.lint.syntax.dockerfile import parse_dockerfile

        return self.memo("instructions", lambda: parse_dockerfile(self.text))

    @property
    def pipeline(self) -> Pipeline:
        """A Jenkinsfile's shell steps and Docker arguments."""
        from sandkit.lint.syntax.jenkinsfile import parse_jenkinsfile

        return self.memo("pipeline", lambda: parse_jenkinsfile(self.text))

    @property
    def env_entries(self) -> list[EnvEntry]:
        """``NAME=value`` entries of a .env file (:class:`sandkit.lint.syntax.envfile.EnvEntry`)."""
        from sandkit.lint.syntax.envfile import parse_env

        return self.memo("env_entries", lambda: parse_env(self.text))

    @property
    def front_matter_text(self) -> str:
        """A Markdown file's YAML front matter as written, from its first line ``---`` up to the
        next line ``---`` (or ``...``) within the first 64 KiB, or "" without one."""
        return self.memo("front_matter_text", self._front_matter_text)

    def _front_matter_text(self) -> str:
        first = self.text.find("\n", 0, 8)
        if first < 0 or self.text[:first].strip() != "---":
            return ""
        end = _FRONT_MATTER_END.search(self.text, first + 1, _HEAD)
        return self.text[: end.start()] if end is not None else ""

    @property
    def front_matter(self) -> Any:
        """The front matter parsed as YAML (its first document, positioned in the file), or None
        without one or when it is not YAML."""
        return self.memo("front_matter", self._front_matter)

    def _front_matter(self) -> Any:
        from sandkit.lint.syntax.yaml import compose_nodes, convert_nodes

        head = self.front_matter_text
        if not head:
            return None
        try:
            documents = convert_nodes(compose_nodes(head, self.budget), self.budget)
        except SyntaxProblem:
            return None
        return documents[0] if documents else None

    @property
    def commands(self) -> list[Command]:
        """Shell commands of a shell script, Makefile or justfile, Jenkinsfile ``sh`` steps, or Dockerfile RUN lines."""
        return self.memo("commands", self._file_commands)

    def _parsed(self, text: str, locate: Callable[[Pos], Pos], *, expand: bool = False) -> list[Command]:
        """The commands of shell ``text`` positioned in the file by ``locate``; substitutions
        nested past the parser's bound are recorded in the file's budget (SK005)."""
        unread: list[Pos] = []
        commands = _relocate(parse_commands(text, expand=expand, unread=unread), locate)
        if unread:
            self.budget.met("substitutions", locate(unread[0]))
        return commands

    def _file_commands(self) -> list[Command]:
        if self.syntax == "shell":
            return self._parsed(self.text, lambda p: p, expand=True)
        if self.syntax in ("makefile", "justfile"):
            from sandkit.lint.syntax.makefile import justfile_recipes, makefile_recipes

            recipes = (makefile_recipes if self.syntax == "makefile" else justfile_recipes)(self.text)
            out: list[Command] = []
            for recipe in recipes:
                out.extend(self._parsed(recipe.text, _shifted(recipe.pos)))
            return out
        if self.syntax == "jenkinsfile":
            out = []
            for step in self.pipeline.shell_steps:
                out.extend(self._parsed(step.text, _shifted(step.pos)))
            return out
        if self.syntax == "dockerfile":
            out = []
            for ins in self.instructions:
                if ins.keyword == "RUN":
                    out.extend(self.commands_in_instruction(ins))
            return out
        return []

    def commands_in(self, value: PStr) -> list[Command]:
        """Shell commands inside a parsed string (a workflow ``run:``, a kit ``install`` line),
        with whole-word variables the same string assigned read where they are used
        (``flags="--dangerously-skip-permissions"`` then ``claude $flags``), as in a script."""

        starts = value.line_starts()

        def locate(p: Pos) -> Pos:
            offset = starts[min(max(p.line, 1), len(starts)) - 1] + p.column - 1
            return self.str_pos(value, offset)

        return self._parsed(str(value), locate, expand=True)

    def commands_in_instruction(self, ins: Instruction) -> list[Command]:
        """Shell commands of a Dockerfile instruction (RUN, or the shell form of CMD)."""
        starts = [0] + [m.end() for m in re.finditer("\n", ins.args)]
        exec_form = ins.exec_form()
        text = " ".join(_shell_quote(a) for a in exec_form) if exec_form else ins.args
        if exec_form:
            return self._parsed(text, lambda p: ins.pos)
        return self._parsed(text, lambda p: ins.pos_at(starts[min(p.line, len(starts)) - 1] + p.column - 1))


def _move(node: Node, locate: Callable[[Pos], Pos], moved: set[int]) -> None:
    """Re-position a parsed node (and its strings, each once: ``moved``) with ``locate``."""
    node.pos = locate(node.pos)
    if isinstance(node, PMap):
        node.key_pos = {k: locate(p) for k, p in node.key_pos.items()}
        node.value_pos = {k: locate(p) for k, p in node.value_pos.items()}
        values = list(node.values()) + [k for k in node if isinstance(k, PStr)]
    else:
        node.item_pos = [locate(p) for p in node.item_pos]
        values = list(node)
    for item in values:
        if isinstance(item, PStr) and id(item) not in moved:
            moved.add(id(item))
            item.pos = locate(item.pos)


def _shifted(start: Pos) -> Callable[[Pos], Pos]:
    """Map positions in a text that begins at ``start`` of the file."""

    def locate(p: Pos) -> Pos:
        column = start.column + p.column - 1 if p.line == 1 else p.column
        return Pos(start.line + p.line - 1, column)

    return locate


def _shell_quote(word: str) -> str:
    return "'" + word.replace("'", "'\\''") + "'"


def _relocate(commands: list[Command], locate: Callable[[Pos], Pos]) -> list[Command]:
    for command in commands:
        command.words = [Word(w.text, locate(w.pos)) for w in command.words]
        command.assignments = [Word(w.text, locate(w.pos)) for w in command.assignments]
    return commands


#: Kinds of file a text substitution may fill before their consumer parses them: manifests that
#: ``sed`` or ``envsubst`` fill before ``kubectl apply``, and settings of no known tool (Grafana
#: expands ``${VAR}`` in its own files first). Compose, workflows, CI pipelines, dev containers,
#: kits and agents' settings are parsed as written, their variables filled in afterwards, so a
#: bare placeholder there breaks the file for its consumer too (``{privileged: ${PRIV:-true}}``).
_FILLED_BEFORE_PARSING = frozenset({kinds.KUBERNETES, kinds.YAML, kinds.JSON, kinds.TOML, kinds.TEXT})
#: A placeholder a text substitution fills, written bare where a value starts: an environment
#: variable (``port = ${LDAP_PORT}``, ``"port": ${PORT}``: Grafana, envsubst), a sed or
#: token-replacement marker (``%%HOST_NAME%%``, ``@project.version@``, ``__TOKEN__``, ``#{Name}#``,
#: ``<<NAME>>``, ``{{NAME}}``), maybe with more of the value after it (``@REGISTRY@/app:1``). The
#: consumer (or the ``sed ... | kubectl apply`` its README shows) replaces it before it parses the
#: file. Group 1 is the space before it; 2, 3 and 4 a ``${VAR}``'s opening, name and closing; 5, 6
#: and 7 another mark's; 8 the rest of the value.
_BARE_PLACEHOLDER = re.compile(
    r"(?<=[=:\[,-])([ \t]*)"
    r"(?:(\$\{)([A-Za-z_][A-Za-z0-9_]*(?::?[-=?+][^}\n\"']*)?)(\})"
    r"|(%%|%|@|__|#\{|<<|\{\{)[ \t]*([A-Za-z_][A-Za-z0-9_.-]{0,120}?)[ \t]*(%%|%|@|__|\}#|>>|\}\}))"
    r"([^\s\"'\\,\]}#]*)(?=[\s,\]}#]|$)",
    re.MULTILINE,
)
_CLOSING = {"${": "}", "%%": "%%", "%": "%", "@": "@", "__": "__", "#{": "}#", "<<": ">>", "{{": "}}"}
_PLACEHOLDER_MARKS = ("${", "%", "@", "__", "#{", "<<", "{{")


def _fill(match: re.Match[str]) -> str:
    """The placeholder (and the rest of its value) as a quoted string of the same length: the
    opening mark's first character and the closing mark's last become the quotes (``"{VAR"``,
    ``"%HOST%"``, ``"REGISTRY/app:1"``)."""
    space, rest = match.group(1), match.group(8)
    if match.group(2):
        opening, inner, closing = match.group(2), match.group(3), match.group(4)
    else:
        opening, closing = match.group(5), match.group(7)
        inner = match.group(0)[len(space) + len(opening) : len(match.group(0)) - len(rest) - len(closing)]
        if _CLOSING[opening] != closing:
            return match.group(0)  # marks that do not pair (``%%X@``): not a placeholder
    return f'{space}"{opening[1:]}{inner}{closing[:-1]}{rest}"'


def filled_placeholders(text: str) -> str | None:
    """``text`` with every bare placeholder in a value's place written as a string of the same
    length (lines and columns kept), or None when it holds none."""
    if not any(mark in text for mark in _PLACEHOLDER_MARKS) or not _BARE_PLACEHOLDER.search(text):
        return None
    filled = _BARE_PLACEHOLDER.sub(_fill, text)
    return None if filled == text else filled


def _with_placeholders(load: Callable[[str], Any], text: str) -> Any:
    """``load(text)``; when that fails and the text holds bare placeholders in value places (see
    ``_BARE_PLACEHOLDER``), the text with each written as a string of the same length, as the
    file reads once its consumer has filled them in. When even that does not parse, the filled
    text's problem is raised: the one the consumer meets, not the placeholder it fills."""
    try:
        return load(text)
    except SyntaxProblem:
        filled = filled_placeholders(text)
        if filled is None:
            raise
    return load(filled)
