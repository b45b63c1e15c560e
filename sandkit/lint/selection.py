"""Which rules run: selectors from the command line and the config, resolved like ruff resolves them.

A selector names rules by ID (``RS001``), ID prefix (``RS``, ``rs0``, ``A``), rule name
(``runtime-socket-mount``) or category (``runtime-socket``), in any case; ``ALL`` names every
rule. ``--select`` replaces the configured selection, ``--extend-select`` adds to it, and every
ignore (config, ``--ignore``, ``--extend-ignore``) is taken away from the result.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from sandkit.errors import UsageError
from sandkit.lazy_regex import lazy
from sandkit.lint.registry import Rule

if TYPE_CHECKING:
    from typing import TypeVar

    R = TypeVar("R", bound=Rule)

ALL = "ALL"
_PREFIX = lazy(r"[A-Z]{1,2}|[A-Z]{2}\d{1,2}")


def split_list(value: str | None) -> tuple[str, ...]:
    """``"a, b,,c"`` -> ``("a", "b", "c")``: a comma-separated command-line value."""
    return tuple(v.strip() for v in (value or "").split(",") if v.strip())


def rule_matches(rule: Rule, key: str) -> bool:
    """A selector names a rule by ID, ID prefix, name or category, in any case; ALL names every rule."""
    upper = key.strip().upper()
    if upper in (ALL, rule.id):
        return True
    if _PREFIX.fullmatch(upper) and rule.id.startswith(upper):
        return True
    return key.strip().lower() in (rule.name, rule.category)


def matching(rules: Iterable[R], key: str) -> list[R]:
    return [r for r in rules if rule_matches(r, key)]


def select_rules(rules: list[R], select: Sequence[str], ignore: Sequence[str]) -> list[R]:
    """The rules ``select`` names (every rule when it is empty) less those ``ignore`` names."""
    chosen = [r for r in rules if not select or any(rule_matches(r, k) for k in select)]
    return [r for r in chosen if not any(rule_matches(r, k) for k in ignore)]


class Selectors(NamedTuple):
    """Selectors with the place each came from, so an unknown one is reported where it is written."""

    select: tuple[tuple[str, str], ...]  # (selector, where)
    ignore: tuple[tuple[str, str], ...]

    def resolve(self, rules: list[R]) -> list[R]:
        for key, where in (*self.select, *self.ignore):
            if not matching(rules, key):
                raise UsageError(f"{where}: error: '{key}' matches no rule ID, prefix, name or category")
        return select_rules(rules, [k for k, _ in self.select], [k for k, _ in self.ignore])


def combine(
    config_select: Sequence[str],
    config_ignore: Sequence[str],
    config_path: str,
    select: str | None = None,
    extend_select: str | None = None,
    ignore: str | None = None,
    extend_ignore: str | None = None,
) -> Selectors:
    """Config and command line together (see the module docstring for the order)."""
    chosen = [(k, "--select") for k in split_list(select)] or [(k, config_path) for k in config_select]
    extra = [(k, "--extend-select") for k in split_list(extend_select)]
    if extra:
        chosen = (chosen or [(ALL, "default")]) + extra  # with no selection every rule runs already
    ignored = [(k, config_path) for k in config_ignore]
    ignored += [(k, "--ignore") for k in split_list(ignore)]
    ignored += [(k, "--extend-ignore") for k in split_list(extend_ignore)]
    return Selectors(tuple(chosen), tuple(ignored))
