"""Helm chart templates read as the YAML around their directives, without a helm binary.

A template is not YAML until Helm renders it, but what the linter looks for (``hostPath``,
``hostNetwork``, ``privileged: true``) is usually written in the YAML around the directives or
comes from a ``values.yaml`` default. So each ``{{ ... }}`` is masked in place, keeping every
line and the column where each value starts:

- a directive alone on its line (``{{- if ... }}``, ``{{- end }}``, an ``include`` that adds
  lines) becomes an empty line;
- ``{{ .Values.a.b }}`` (with ``| quote``, ``| default``, ``toYaml``/``nindent``) becomes the
  default that values.yaml gives, a mapping or list written in flow style on the same line;
- any other expression becomes ``(template)``, a plain scalar;
- ``{{ if ... }}`` (and ``with``) whose condition values.yaml settles (``.Values`` paths with
  ``not``, ``and``, ``or``, ``eq``, ``ne``, and ``gt``, ``lt``, ``ge``, ``le`` over ``int`` or
  integer values) drops the lines of the branch Helm would not render,
  so a setting that is off by default is not reported.

What cannot be read this way (loops that build lists, templates that render a key) may still
fail to parse; the engine reports that at info severity, not as a broken file.
"""

from __future__ import annotations

import functools
import json
import re
from typing import TYPE_CHECKING

from sandkit.lazy_regex import lazy

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

# `x | default(true)` (Jinja), `default "x" .y` (Go templates): the value when nothing overrides it
_DEFAULT = lazy(r"\bdefault\s*\(?\s*(true|false|True|False|\d+|\"[^\"\n]{0,200}\"|'[^'\n]{0,200}')")
_STATEMENT = lazy(r"\{%.*?%\}|\{#.*?#\}", re.DOTALL)
# A comment first, whole: ``{{/* ... {{ include "x" . }} ... */}}`` holds directives of its own.
_DIRECTIVE = lazy(r"\{\{-?(?P<body>\s*/\*.*?\*/\s*|.*?)-?\}\}", re.DOTALL)
_VALUES_PATH = lazy(r"(?<![\w$])\.Values((?:\.[A-Za-z_][\w-]*)+)")
#: What a directive does, from its first word: "end", "else", "open" (if, range, with, define,
#: block), "assign" ({{ $x := ... }} renders nothing) or "comment" ({{/* ... */}}); else nothing.
_KIND = lazy(
    r"\s*(?:(?P<end>end\b)|(?P<else>else\b)|(?P<open>(?:if|range|with|define|block)\b)|"
    r"(?P<assign>\$\w+\s*:?=)|(?P<comment>/\*.*\*/\s*$))",
    re.DOTALL,
)
_PLAIN = lazy(r"^[A-Za-z0-9_./:@+-]*$")
_BLOCK_OUTPUT = lazy(r"\bn?indent\b|\btoYaml\b")
_INCLUDED = lazy(r"\b(?:include|template)\s+\"([^\"]{1,200})\"")
_INDENT = lazy(r"\bn?indent\s+(\d{1,3})\b")
#: An expression that names the kubelet's root folder and nothing settles (Rook's operator renders
#: ``{{ .KubeletDirPath }}``; a chart's ``{{ .Values.csi.kubeletDirPath }}`` with no default): whatever
#: it is set to, it is that folder, so ``{{ .KubeletDirPath }}/pods`` is read as the kubelet's pods
#: folder. Any other field stays ``(template)``.
_KUBELET_ROOT = lazy(r"(?i)\s*\.(?:\w+\.)*kubelet_?(?:root_?)?dir(?:ectory)?(?:_?path)?\s*")
KUBELET_ROOT = "/var/lib/kubelet"
TEMPLATE_VALUE = "(template)"  # what an expression values.yaml does not settle stands for: a plain scalar
_FLOW_LIMIT = 4000  # characters a value rendered in flow style may take


def lookup(values: Any, path: str) -> Any:
    """The value at ``.Values`` path ``path`` (".a.b"), or None when any step is missing."""
    node = values
    for key in path.strip(".").split("."):
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def flow(value: Any) -> str:
    """``value`` as one line of YAML (flow style for mappings and lists)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        plain = value and _PLAIN.match(value) and value not in ("true", "false", "null", "-", "?", ":")
        return value if plain and not value.startswith("@") and not value.endswith(":") else json.dumps(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{flow(str(k))}: {flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(flow(v) for v in value) + "]"
    return json.dumps(str(value))


def _resolved(body: str, values: Any) -> str | None:
    """What an expression renders to when values.yaml (or its own ``default``) settles it, in
    one line; else None."""
    paths = _VALUES_PATH.findall(body)
    if not paths:
        fallback = _DEFAULT.search(body)
        return fallback.group(1).strip("\"'") if fallback else None
    if len(set(paths)) != 1 or re.search(r"\b(?:tpl|printf|print|len|index|ternary|eq|ne)\b", body):
        return None
    named = _INCLUDED.search(body)
    if named and "render" not in named.group(1).lower():
        return None  # a named template given the value renders something of its own (scrape limits, labels)
    value = lookup(values, paths[0])
    fallback = _DEFAULT.search(body) if _empty(value) else None
    if fallback:
        return fallback.group(1).strip("\"'")
    if value is None or value == "" or value == {} or value == []:
        return None
    if isinstance(value, dict):
        value = {k: v for k, v in value.items() if k != "enabled"}  # bitnami's renderSecurityContext drops it
    text = flow(value)
    return text if len(text) <= _FLOW_LIMIT else None


def _empty(value: Any) -> bool:
    """Whether sprig's ``default`` replaces ``value``: missing, empty, zero or false. So
    ``.Values.cidr | default "0.0.0.0/0"`` renders the default when values.yaml leaves ``cidr``
    empty, and ``.Values.enabled | default true`` renders true even when it says false."""
    return value is None or value is False or value == 0 or value in ("", {}, [])


_CONDITION = lazy(r"^\s*(?:else\s+)?(?:if|with)\s+(?P<expr>.*?)\s*$", re.DOTALL)
_TOKEN = lazy(r'\s*(\(|\)|"(?:[^"\\]|\\.)*"|[^\s()]+)')
_MAX_TOKENS = 64  # a condition longer than this is left undecided


def _condition(body: str, values: Any) -> bool | None:
    """The truth of an ``if`` (or ``with``) condition when values.yaml settles it, else None.

    Reads ``.Values`` paths (missing is false, as in Helm), ``not``, ``and``, ``or``, ``eq``
    and ``ne`` over paths and literals, ``gt``, ``lt``, ``ge`` and ``le`` over integers (``int``
    of a missing or null value is 0), and parentheses; anything else (``include``,
    variables, pipelines) is undecided, and decides ``and``/``or`` only when the other
    arguments settle it: ``and (include "x" .) .Values.psp.create`` is false when
    ``psp.create`` is.
    """
    match = _CONDITION.match(body)
    if match is None or "|" in match.group("expr"):
        return None
    tokens = _TOKEN.findall(match.group("expr"))
    if not tokens or len(tokens) > _MAX_TOKENS:
        return None
    value, rest = _expression(tokens, values)
    return _truth(value) if not rest else None


_UNDECIDED = object()


def _truth(value: Any) -> bool | None:
    return None if value is _UNDECIDED else bool(value)


def _expression(tokens: list[str], values: Any) -> tuple[Any, list[str]]:
    """A function call (``and a b``) or a single argument; what it uses up is removed."""
    head = tokens[0]
    if head in ("and", "or", "not", "eq", "ne", *_COMPARISONS):
        args: list[Any] = []
        rest = tokens[1:]
        while rest and rest[0] != ")":
            arg, rest = _argument(rest, values)
            args.append(arg)
        return _apply(head, args), rest
    return _argument(tokens, values)


def _argument(tokens: list[str], values: Any) -> tuple[Any, list[str]]:
    head, rest = tokens[0], tokens[1:]
    if head == "(":
        if not rest:
            return _UNDECIDED, []
        value, rest = _expression(rest, values)
        return value, rest[1:] if rest and rest[0] == ")" else rest
    if head.startswith(".Values."):
        found = lookup(values, head.removeprefix(".Values"))
        return (found if found is not None else None), rest
    if head in ("int", "int64") and rest:
        value, rest = _argument(rest, values)
        return _as_int(value), rest
    if head.startswith('"'):
        return head[1:-1], rest
    if re.fullmatch(r"-?\d+", head):
        return int(head), rest
    if head in ("true", "false"):
        return head == "true", rest
    if head.startswith("$") or head in ("include", "tpl", "empty", "default", "hasKey", "semverCompare"):
        # a function call we do not evaluate: it takes the arguments up to the closing parenthesis
        while rest and rest[0] != ")":
            _, rest = _argument(rest, values)
        return _UNDECIDED, rest
    return _UNDECIDED, rest


#: Sprig's number comparisons, decided when both sides are integers (``gt (int .Values.n) 0``).
_COMPARISONS = {
    "gt": lambda a, b: a > b,
    "lt": lambda a, b: a < b,
    "ge": lambda a, b: a >= b,
    "le": lambda a, b: a <= b,
}


def _as_int(value: Any) -> Any:
    """Sprig's ``int`` of a values.yaml value: a missing or null value is 0, a number or a
    numeric string its integer; anything else is left undecided."""
    if value is None:
        return 0
    if isinstance(value, bool | int | float):
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d{1,18}\s*", value):
        return int(value)
    return _UNDECIDED


def _apply(function: str, args: list[Any]) -> Any:
    if function in _COMPARISONS:
        numbers = len(args) == 2 and all(isinstance(a, int) and not isinstance(a, bool) for a in args)
        return _COMPARISONS[function](args[0], args[1]) if numbers else _UNDECIDED
    truths = [_truth(a) for a in args]
    if function == "not":
        return _UNDECIDED if len(truths) != 1 or truths[0] is None else not truths[0]
    if function == "and":
        return False if False in truths else (True if truths and None not in truths else _UNDECIDED)
    if function == "or":
        return True if True in truths else (False if truths and None not in truths else _UNDECIDED)
    if len(args) != 2 or _UNDECIDED in args:
        return _UNDECIDED
    return (args[0] == args[1]) == (function == "eq")


def mask_template(text: str, values: Any) -> str:
    """The template with every directive masked (see the module doc); lines and starts kept.

    Jinja statements and comments (``{% ... %}``, ``{# ... #}``) become nothing but their
    newlines; mustache sections (``{{#x}}``, ``{{/x}}``, ``{{^x}}``) alone on a line vanish
    like Helm's control lines, and other ``{{ ... }}`` stand for a plain scalar.
    """
    if "{%" in text or "{#" in text:
        text = _STATEMENT.sub(lambda m: "\n" * m.group().count("\n"), text)
    directives = _directives(text)
    bodies = _scoped_bodies(directives)
    out: list[str] = []
    position = 0
    for (match, kind), body in zip(directives, bodies, strict=True):
        out.append(text[position : match.start()])
        line_start = text.rfind("\n", 0, match.start()) + 1
        line_end = text.find("\n", match.end())
        line_end = len(text) if line_end < 0 else line_end
        alone = not text[line_start : match.start()].strip() and not text[match.end() : line_end].strip()
        if kind:  # a control line, an assignment or a comment: renders nothing
            replacement = ""
        elif alone:
            replacement = (_resolved(body, values) if _opens_value(out) else None) or ""
            indent = _INDENT.search(body)
            if replacement and indent:  # `{{ toYaml .Values.x | indent 4 }}` at column 0: the value sits at 4
                # deeper than its key, too: Helm's block list may share the key's column, a flow one may not
                column = max(int(indent.group(1)), _key_indent(out) + 1)
                replacement = " " * max(0, column - (match.start() - line_start)) + replacement
        elif _BLOCK_OUTPUT.search(body):  # renders lines of its own below the key it follows
            resolved = None if _deeper_next(text, line_end) else _resolved(body, values)
            replacement = resolved or ""
        else:
            resolved = _resolved(body, values)
            if resolved is None and _KUBELET_ROOT.fullmatch(body):
                resolved = KUBELET_ROOT
            replacement = resolved if resolved is not None else TEMPLATE_VALUE
        out.append(replacement + "\n" * match.group().count("\n"))
        position = match.end()
    out.append(text[position:])
    masked = "".join(out)
    dead = _dead_lines(text, directives, values, bodies)
    if not dead:
        return masked
    return "\n".join("" if index in dead else line for index, line in enumerate(masked.split("\n")))


def _deeper_next(text: str, line_end: int) -> bool:
    """Whether the next non-blank, non-directive line is indented deeper than the current one."""
    line_start = text.rfind("\n", 0, line_end) + 1
    indent = len(text[line_start:line_end]) - len(text[line_start:line_end].lstrip())
    for line in text[line_end + 1 : line_end + 4000].split("\n"):
        stripped = line.strip()
        if stripped and not stripped.startswith("{{"):
            return len(line) - len(line.lstrip()) > indent
    return False


def _key_indent(out: list[str]) -> int:
    """The indentation of the last non-empty line so far (the key a directive's value is for)."""
    for part in reversed(out):
        lines = [line for line in part.split("\n") if line.strip()]
        if lines:
            return len(lines[-1]) - len(lines[-1].lstrip())
    return 0


def _opens_value(out: list[str]) -> bool:
    """Whether the last non-empty line so far is a ``key:`` waiting for the directive's value."""
    for part in reversed(out):
        lines = [line for line in part.split("\n") if line.strip()]
        if lines:
            return lines[-1].rstrip().endswith(":")
    return False


def _directives(text: str) -> list[tuple[re.Match[str], str | None]]:
    """Every ``{{ ... }}`` of the text with its kind (see ``_KIND``), each read once."""
    kind_of = _KIND.compiled.match  # some 10,000 directives in a large chart
    found = []
    for match in _DIRECTIVE.finditer(text):
        kind = kind_of(match.group("body"))
        found.append((match, kind.lastgroup if kind is not None else None))
    return found


_WITH_VALUES = lazy(r"^\s*with\s+\.Values((?:\.[A-Za-z_][\w-]*)+)\s*$")
#: The dot of a ``with`` block standing alone (``toYaml .``, ``.privileged``): not a field of
#: something else (``$.x``, ``.a.b``'s second part, ``(x).y``) nor inside a word or a number.
_DOT = lazy(r"(?<![\w$.)\]\"'])\.(?![.\d])(?P<field>[A-Za-z_][\w-]*)?")


def _written_out(dot: str, match: re.Match[str]) -> str:
    """A dot (``.``, ``.field``) of a ``with .Values{dot}`` block as the full values path."""
    return f".Values{dot}" + (f".{match.group('field')}" if match.group("field") else "")


def _scoped_bodies(directives: list[tuple[re.Match[str], str | None]]) -> list[str]:
    """Each directive's body, with the dot of an enclosing ``{{ with .Values.a.b }}`` written
    out: ``toYaml .`` there becomes ``toYaml .Values.a.b`` and ``.privileged`` becomes
    ``.Values.a.b.privileged``, so values.yaml settles them as it settles a path written in
    full. Inside ``range``, ``define``, ``block`` and a ``with`` of anything else the dot is not
    known and is left as written; an ``if`` keeps its block's dot, a ``with``'s ``else`` the
    dot outside it."""
    bodies: list[str] = []
    frames: list[tuple[str, str | None, str | None]] = []  # (opening word, dot inside, dot outside)
    dot: str | None = None  # a .Values path (".a.b"), or None: the root, or not known
    for match, kind in directives:
        body = match.group("body")
        if dot is not None and kind != "comment":
            body = _DOT.sub(functools.partial(_written_out, dot), body)
        bodies.append(body)
        if kind == "end":
            if frames:
                dot = frames.pop()[2]
        elif kind == "else" and frames and frames[-1][0] == "with":
            dot = frames[-1][2]
        elif kind == "open":
            word = body.split(None, 1)[0] if body.strip() else ""
            scoped = _WITH_VALUES.match(body) if word == "with" else None
            inner = scoped.group(1) if scoped else dot if word == "if" else None
            frames.append((word, inner, dot))
            dot = inner
    return bodies


def _dead_lines(
    text: str, directives: list[tuple[re.Match[str], str | None]], values: Any, bodies: list[str]
) -> set[int]:
    """Walk the directives in order and collect the lines between them that are not rendered."""
    dead: set[int] = set()
    frames: list[tuple[bool, bool, bool]] = []
    live = True
    previous_line = line = counted = 0
    for (match, kind), body in zip(directives, bodies, strict=True):
        line += text.count("\n", counted, match.start())  # counted from the last directive on, not from the top
        counted = match.start()
        if not live:
            dead.update(range(previous_line, line + 1))
        previous_line = line
        if kind == "end":
            if frames:
                _, _, live = frames.pop()
        elif kind == "else" and frames:
            taken, _, outer = frames[-1]
            truth = _condition(body, values) if re.match(r"^\s*else\s+if\b", body) else True
            branch = (not taken) and (truth is not False)
            frames[-1] = (taken or (truth is True), branch, outer)
            live = outer and branch
        elif kind == "open":
            truth = _condition(body, values) if re.match(r"^\s*(?:if|with)\b", body) else None
            frames.append((truth is True, truth is not False, live))
            live = live and truth is not False
        if not live:
            dead.add(line)
    if not live:
        dead.update(range(previous_line, text.count("\n") + 1))
    return dead


_SALVAGE_LINES = 12  # lines a template may lose to the masking and still be read


def salvage(masked: str, check: Callable[[str], None]) -> str:
    """The masked template, with the few lines the masking could not turn into YAML blanked.

    ``check`` raises SyntaxProblem where the text stops being YAML. The line it names is
    blanked (or, when it is already blank, the nearest written line above, where the
    unreadable construct usually starts) and the text checked again, up to
    ``_SALVAGE_LINES`` lines; past that the first problem is raised, and the template is
    reported as unread. A line that directives build (``{{ $k }}: {{ $v }}`` in a loop) is what
    gets blanked; the YAML around it, and the values.yaml defaults it brings, are checked.
    """
    from sandkit.lint.syntax.tree import SyntaxProblem

    lines = masked.split("\n")
    first: SyntaxProblem | None = None
    for _ in range(_SALVAGE_LINES + 1):
        try:
            check("\n".join(lines))
        except SyntaxProblem as problem:
            first = first or problem
            index = min(max(problem.pos.line - 1, 0), len(lines) - 1)
            while index > 0 and not lines[index].strip():
                index -= 1
            if not lines[index].strip():
                raise first from None
            lines[index] = ""
            continue
        return "\n".join(lines)
    assert first is not None
    raise first


def load_values(text: str) -> Any:
    """A chart's values.yaml as data (bounded like every parse), or {} when it does not parse."""
    from sandkit.lint.syntax.tree import SyntaxProblem, TreeBudget
    from sandkit.lint.syntax.yaml import compose_nodes, convert_nodes

    try:
        documents = convert_nodes(compose_nodes(text), TreeBudget())
    except SyntaxProblem:
        return {}
    return documents[0] if documents and isinstance(documents[0], dict) else {}


def chart_root(path: str, anywhere: bool = False) -> str | None:
    """The chart folder (holding Chart.yaml) of a file under its ``templates/`` folder, or None.

    With ``anywhere``, of a file in any folder of the chart: charts keep templated YAML
    elsewhere too (``conf/crds/*.yaml``, ``files/*.yaml``, read with ``.Files.Get | tpl``).
    """
    import os

    folder = os.path.dirname(path)
    if anywhere and os.path.isfile(os.path.join(folder, "Chart.yaml")):
        return folder
    for _ in range(8):  # templates/ may have sub-folders
        parent, name = os.path.split(folder)
        if (name == "templates" or anywhere) and os.path.isfile(os.path.join(parent, "Chart.yaml")):
            return parent
        if not name or parent == folder:
            return None
        folder = parent
    return None


# ----- chart files a template renders with tpl ------------------------------------------------------
#: ``.Files.Get "path"`` / ``.Files.Glob "pattern"`` (``$.Files`` too), with the path written out.
_FILES_READ = lazy(r"\bFiles\.(?P<how>Get|Glob)\s+\"(?P<path>[^\"\n]{1,300})\"")
#: ``.Files.Get`` of a path held in a variable or built (``range $path, $_ := .Files.Glob ...``).
_FILES_GET_VARIABLE = lazy(r"\bFiles\.Get\s+\(?\s*[$.]")
_TPL = lazy(r"(?<![\w.$])tpl\b")
_ASSIGNED_GET = lazy(r"^\s*(?P<var>\$\w+)\s*:?=\s*\(?\s*\$?\.Files\.Get\s+\"(?P<path>[^\"\n]{1,300})\"")
_TEMPLATE_SUFFIXES = (".yaml", ".yml", ".tpl", ".txt", ".json")
_TEMPLATE_FILES = 400  # template files of one chart read for what they render with tpl
_TEMPLATE_BYTES = 1_000_000  # bytes of one template read for it
_TPL_INPUTS: dict[str, tuple[dict[str, str], list[tuple[re.Pattern[str], str]]]] = {}


def tpl_reader(path: str) -> str | None:
    """The template (its path in the chart) that renders the chart file at ``path`` with ``tpl``
    (``tpl (.Files.Get "conf/x.json") .``, ``.Files.Glob "conf/*" ... tpl``): such a file holds
    ``{{ }}`` and is not its own syntax until Helm renders it. None outside a chart, or when no
    template does."""
    import os

    root = chart_root(path, anywhere=True)
    if root is None:
        return None
    relative = os.path.relpath(path, root).replace(os.sep, "/")
    if relative.startswith("templates/"):
        return None  # a template itself, read as one
    if root not in _TPL_INPUTS:
        if len(_TPL_INPUTS) > 64:
            _TPL_INPUTS.clear()
        _TPL_INPUTS[root] = _rendered_with_tpl(root)
    exact, globs = _TPL_INPUTS[root]
    if relative in exact:
        return exact[relative]
    return next((reader for pattern, reader in globs if pattern.fullmatch(relative)), None)


def _rendered_with_tpl(root: str) -> tuple[dict[str, str], list[tuple[re.Pattern[str], str]]]:
    """The chart files (exact paths, and glob patterns) its templates pass to ``tpl``, each with
    the template that does."""
    import os

    exact: dict[str, str] = {}
    globs: list[tuple[re.Pattern[str], str]] = []
    seen = 0
    for folder, subfolders, names in os.walk(os.path.join(root, "templates")):
        subfolders.sort()
        for name in sorted(names):
            if not name.endswith(_TEMPLATE_SUFFIXES):
                continue
            seen += 1
            if seen > _TEMPLATE_FILES:
                return exact, globs
            full = os.path.join(folder, name)
            try:
                with open(full, "rb") as handle:
                    text = handle.read(_TEMPLATE_BYTES).decode("utf-8", "replace")
            except OSError:
                continue
            if "Files." not in text or not _TPL.search(text):
                continue
            reader = os.path.relpath(full, root).replace(os.sep, "/")
            for path, how in _tpl_reads(text):
                if how == "Get":
                    exact.setdefault(path.removeprefix("./"), reader)
                else:
                    pattern = _glob_pattern(path.removeprefix("./"))
                    if pattern is not None:
                        globs.append((pattern, reader))
    return exact, globs


def _tpl_reads(text: str) -> list[tuple[str, str]]:
    """(path, Get or Glob) of each chart file a template's text passes to ``tpl``: read in the
    directive that calls ``tpl``; assigned to a variable a later ``tpl $x`` renders; or globbed
    in a template that also renders with ``tpl`` a file whose path it holds in a variable
    (``range $path, $_ := .Files.Glob "x/*"`` then ``tpl ($.Files.Get $path) $``)."""
    found: list[tuple[str, str]] = []
    assigned: dict[str, str] = {}
    bodies = [match.group("body") for match in _DIRECTIVE.finditer(text)]
    renders_variable_path = any(_TPL.search(body) and _FILES_GET_VARIABLE.search(body) for body in bodies)
    for body in bodies:
        has_tpl = _TPL.search(body) is not None
        for read in _FILES_READ.finditer(body):
            how, path = read.group("how"), read.group("path")
            if has_tpl or (how == "Glob" and renders_variable_path):
                found.append((path, how))
        assignment = _ASSIGNED_GET.match(body)
        if assignment is not None and not has_tpl:
            assigned[assignment.group("var")] = assignment.group("path")
        if has_tpl:
            for variable, path in assigned.items():
                if re.search(rf"\btpl\s+\(?\s*{re.escape(variable)}\b", body):
                    found.append((path, "Get"))
    return found


def _glob_pattern(glob: str) -> re.Pattern[str] | None:
    """A regular expression for Helm's ``.Files.Glob`` pattern (``*`` within one folder, ``**``
    across folders, ``?``, ``[...]`` and ``{a,b}``), or None when it is not one."""
    out: list[str] = []
    index, depth = 0, 0
    while index < len(glob):
        char = glob[index]
        if glob.startswith("**", index):
            out.append(".*")
            index += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = glob.find("]", index + 1)
            if end < 0:
                return None
            body = glob[index + 1 : end].replace("\\", "\\\\")
            out.append("[^" + body[1:] + "]" if body.startswith("!") else "[" + body + "]")
            index = end + 1
            continue
        elif char == "{":
            out.append("(?:")
            depth += 1
        elif char == "}" and depth:
            out.append(")")
            depth -= 1
        elif char == "," and depth:
            out.append("|")
        else:
            out.append(re.escape(char))
        index += 1
    if depth:
        return None
    try:
        return re.compile("".join(out))
    except re.error:
        return None
