"""docs/lint.md lists every rule exactly as the registry has it (regenerate: see rules_table)."""

from __future__ import annotations

from sandkit.lint.registry import all_rules
from tests.conftest import REPO
from tests.generated import check_generated_section

BEGIN = "<!-- rules table: generated from the registry by tests/lint/test_rules_doc.py -->\n"
END = "<!-- end of rules table -->\n"


def rules_table() -> str:
    rows = ["| ID | category | severity | what it catches |", "| --- | --- | --- | --- |"]
    for rule in sorted(all_rules(), key=lambda r: r.id):
        summary = rule.summary.replace("|", "\\|")
        rows.append(f"| {rule.id} | {rule.category} | {rule.severity} | {summary} |")
    return "\n".join(rows) + "\n"


def test_docs_list_every_rule() -> None:
    check_generated_section(REPO / "docs" / "lint.md", BEGIN, END, rules_table())
