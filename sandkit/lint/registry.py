"""The rule registry: every rule is a decorated function in a family module of ``rules``.

See :mod:`sandkit.lint.rules` for the rule author's contract. The families are named in one
explicit list, :data:`sandkit.lint.rules.FAMILIES`, and :func:`all_rules` imports them all: every
run sees every rule, however few files it reads and whatever it read before.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from typing import NamedTuple

from sandkit.lazy_regex import lazy
from sandkit.lint.model import CATEGORIES, SEVERITIES, Edit, Finding, FixContext, Hit
from sandkit.lint.source import SourceFile

Check = Callable[[SourceFile], Iterable[Hit]]
#: A fix: the edits that repair the given findings of one file (see :mod:`sandkit.lint.fixing`).
Fixer = Callable[[SourceFile, Sequence[Finding], FixContext], Iterable[Edit]]

_ID = lazy(r"[A-Z]{2}\d{3}")
_TITLES = "Why|Fix|Example|Examples|Not a finding"  # the documentation's section titles
_SECTION = lazy(rf"^({_TITLES}):\s*$", re.MULTILINE)
#: The Fix section read from the docstring as written (indented): a finding needs only that, with
#: its whitespace folded, and dedenting every rule's documentation costs a run textwrap's import.
_FIX_SECTION = lazy(rf"^[ \t]*Fix:[ \t]*\n(.*?)(?=^[ \t]*(?:{_TITLES}):[ \t]*$|\Z)", re.M | re.S)


class Rule(NamedTuple):
    """A registered rule. ``kinds`` holds file kinds (see :mod:`sandkit.lint.kinds`) or "*"."""

    id: str
    name: str
    category: str
    severity: str
    kinds: frozenset[str]
    docstring: str  # as written; ``doc`` and ``sections`` are made from it when first asked for (once)
    check: Check | None = None
    triggers: tuple[str, ...] = ()
    trigger_words: tuple[str, ...] = ()
    trigger_patterns: tuple[re.Pattern[str], ...] = ()
    #: Which files of its kinds the rule reads at all, decided from the file's name or kind before
    #: any trigger is searched for (None: every file of its kinds).
    reads: Callable[[SourceFile], bool] | None = None

    @property
    def doc(self) -> str:
        """The documentation: the docstring without its common indentation."""
        return _clean_doc(self.docstring)

    @property
    def sections(self) -> dict[str, str]:
        """The documentation's parts by title (``Summary``, ``Why``, ``Fix`` ...)."""
        return _sections(self.doc)

    @property
    def summary(self) -> str:
        return self.doc.strip().splitlines()[0] if self.doc.strip() else self.name

    @property
    def fix(self) -> str:
        return _fix_text(self.docstring)

    def wants(self, kind: str) -> bool:
        return kind in self.kinds or "*" in self.kinds

    def triggered_by(self, text: str, words_in_text: frozenset[str] | None = None) -> bool:
        """False when no trigger occurs in ``text`` (so the rule cannot fire).

        Words are tested with ``in`` (a fast substring search; in ``words_in_text`` instead, when
        the engine found which ones a large text holds in one pass), patterns only after them.
        """
        if not self.triggers:
            return True
        if _holds_a_word(self.trigger_words, text, words_in_text):
            return True
        return any(p.search(text) for p in self.trigger_patterns)


def _holds_a_word(words: tuple[str, ...], text: str, words_in_text: frozenset[str] | None) -> bool:
    if words_in_text is not None:
        return not words_in_text.isdisjoint(words)
    return any(word in text for word in words)


_REGISTRY: dict[str, Rule] = {}
_loaded = False


Trigger = str | re.Pattern[str]


def rule(
    rule_id: str,
    name: str,
    *,
    category: str,
    severity: str,
    kinds: Iterable[str],
    triggers: Iterable[Trigger] = (),
    reads: Callable[[SourceFile], bool] | None = None,
) -> Callable[[Check], Check]:
    """Register the decorated function as rule ``rule_id``; its docstring is the documentation."""

    def register(check: Check) -> Check:
        add_rule(
            rule_id,
            name,
            category=category,
            severity=severity,
            kinds=kinds,
            doc=check.__doc__ or "",
            check=check,
            triggers=triggers,
            reads=reads,
        )
        return check

    return register


def add_rule(
    rule_id: str,
    name: str,
    *,
    category: str,
    severity: str,
    kinds: Iterable[str],
    doc: str,
    check: Check | None = None,
    triggers: Iterable[Trigger] = (),
    reads: Callable[[SourceFile], bool] | None = None,
) -> Rule:
    if not _ID.fullmatch(rule_id):
        raise ValueError(f"rule ID {rule_id!r} must be two capitals and three digits")
    if rule_id in _REGISTRY:
        raise ValueError(f"rule ID {rule_id} is registered twice")
    if category not in CATEGORIES:
        raise ValueError(f"{rule_id}: unknown category {category!r}")
    if severity not in SEVERITIES:
        raise ValueError(f"{rule_id}: unknown severity {severity!r}")
    if not doc.strip() or "Fix:" not in doc:
        raise ValueError(f"{rule_id}: the docstring must document the rule and have a Fix: part")
    chosen = tuple(triggers)
    if not all(isinstance(t, str | re.Pattern) for t in chosen):
        raise ValueError(f"{rule_id}: a trigger is a string or a compiled pattern (re.compile, not lazy)")
    new = Rule(
        rule_id,
        name,
        category,
        severity,
        frozenset(kinds),
        doc,
        check,
        tuple(t if isinstance(t, str) else t.pattern for t in chosen),
        tuple(t for t in chosen if isinstance(t, str)),
        tuple(t for t in chosen if isinstance(t, re.Pattern)),
        reads,
    )
    _REGISTRY[rule_id] = new
    return new


@cache
def _clean_doc(doc: str) -> str:
    """A docstring without its common indentation (``inspect`` is too heavy to import)."""
    import textwrap

    first, _, rest = doc.strip("\n").partition("\n")
    return (first.strip() + "\n" + textwrap.dedent(rest)).strip() + "\n"


@cache
def _fix_text(docstring: str) -> str:
    """``sections["Fix"]`` with its whitespace folded to single spaces ("" when there is none)."""
    match = _FIX_SECTION.search(docstring)
    return " ".join(match.group(1).split()) if match else ""


@cache
def _sections(doc: str) -> dict[str, str]:

    parts = _SECTION.split(doc)
    sections = {"Summary": parts[0].strip()}
    for title, body in zip(parts[1::2], parts[2::2], strict=True):
        sections[title] = body.strip()
    return sections


def all_rules() -> list[Rule]:
    """Every rule, engine rules included, sorted by ID; imports the families once."""
    global _loaded
    if not _loaded:
        import sandkit.lint.engine_rules  # noqa: F401  (registers the engine's own rules)
        from sandkit.lint.rules import FAMILIES

        for family in FAMILIES:
            importlib.import_module(f"sandkit.lint.rules.{family}")
        _loaded = True
    return sorted(_REGISTRY.values(), key=lambda r: r.id)


_FIXERS: dict[str, Fixer] = {}


def fixer(*rule_ids: str) -> Callable[[Fixer], Fixer]:
    """Register the decorated function as the ``--fix`` of rules ``rule_ids``.

    A fixer is given a file and those of its reported findings that its rules made, and returns
    edits of the file's text. It fixes only what is mechanical and safe; a finding it cannot
    fix gets no edit (and, where a person would wonder why, a note through the context).
    """

    def register(function: Fixer) -> Fixer:
        for rule_id in rule_ids:
            if rule_id in _FIXERS:
                raise ValueError(f"rule {rule_id} has two fixers")
            _FIXERS[rule_id] = function
        return function

    return register


def fixer_for(rule_id: str) -> Fixer | None:
    all_rules()  # fixers register when their family module is imported
    return _FIXERS.get(rule_id)


def find_rule(key: str) -> Rule | None:
    """A rule by ID (any case) or by name."""
    rules = all_rules()
    for candidate in rules:
        if key.upper() == candidate.id or key == candidate.name:
            return candidate
    return None
