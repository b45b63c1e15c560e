"""``sandkit rules`` and ``sandkit explain``: the rules' own documentation, as text, JSON or Markdown.

docs/lint.md's rule table is ``sandkit rules --output-format markdown``, kept in sync by a test.
"""

from __future__ import annotations

import argparse
import json
import sys

from sandkit.errors import UsageError
from sandkit.lint.model import CATEGORIES
from sandkit.lint.registry import Rule, all_rules, fixer_for
from sandkit.lint.selection import matching, split_list

FORMATS = ("text", "json", "markdown")


def _categories(value: str | None) -> tuple[str, ...]:
    chosen = tuple(c.lower() for c in split_list(value))
    unknown = [c for c in chosen if c not in CATEGORIES]
    if unknown:
        raise UsageError(
            f"sandkit rules: error: unknown category {', '.join(unknown)}; categories: {', '.join(CATEGORIES)}"
        )
    return chosen


def _as_json(rule: Rule) -> dict[str, object]:
    return {
        "id": rule.id,
        "name": rule.name,
        "category": rule.category,
        "severity": rule.severity,
        "kinds": sorted(rule.kinds),
        "summary": rule.summary,
        "fix": rule.fix,
        "fixable": fixer_for(rule.id) is not None,
    }


def markdown_table(rules: list[Rule]) -> str:
    rows = ["| ID | category | severity | what it catches | `--fix` |", "| --- | --- | --- | --- | --- |"]
    for rule in rules:
        summary = rule.summary.replace("\\", "\\\\").replace("|", "\\|")
        fixable = "yes" if fixer_for(rule.id) else ""
        rows.append(f"| {rule.id} | {rule.category} | {rule.severity} | {summary} | {fixable} |")
    return "\n".join(rows) + "\n"


def run_rules(args: argparse.Namespace) -> int:
    categories = _categories(args.category)
    rules = [r for r in all_rules() if not categories or r.category in categories]
    if args.format == "json":
        sys.stdout.write(json.dumps([_as_json(r) for r in rules], indent=2) + "\n")
    elif args.format == "markdown":
        sys.stdout.write(markdown_table(rules))
    else:
        for r in rules:
            mark = " [*]" if fixer_for(r.id) else ""
            sys.stdout.write(f"{r.id}  {r.severity:<8}  {r.category:<18}  {r.name}{mark}: {r.summary}\n")
    return 0


def explain(rule: Rule) -> str:
    kinds = ", ".join(sorted(rule.kinds)) or "(reported by the engine)"
    fix = "; `sandkit lint --fix` repairs it" if fixer_for(rule.id) else ""
    return (
        f"{rule.id} {rule.name}\ncategory: {rule.category}; default severity: "
        f"{rule.severity}; files: {kinds}{fix}\n\n{rule.doc.strip()}\n"
    )


def run_explain(args: argparse.Namespace) -> int:
    """Each rule the selectors name (ID, ID prefix, name or category, in any case)."""
    rules = all_rules()
    chosen: list[Rule] = []
    for key in args.rules:
        found = matching(rules, key)
        if not found:
            print(f"sandkit: error: no rule or category '{key}' (see `sandkit rules`)", file=sys.stderr)
            return 2
        chosen += [r for r in found if r not in chosen]
    sys.stdout.write("\n".join(explain(r) for r in chosen))
    return 0
