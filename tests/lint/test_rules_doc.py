"""docs/lint.md lists every rule exactly as the registry has it (regenerate: see rules_table)."""

from __future__ import annotations

import os

from sandkit.lint.registry import all_rules
from tests.conftest import REPO

BEGIN = "<!-- rules table: generated from the registry by tests/lint/test_rules_doc.py -->\n"
END = "<!-- end of rules table -->\n"


def rules_table() -> str:
    rows = ["| ID | category | severity | what it catches |", "| --- | --- | --- | --- |"]
    for rule in sorted(all_rules(), key=lambda r: r.id):
        summary = rule.summary.replace("|", "\\|")
        rows.append(f"| {rule.id} | {rule.category} | {rule.severity} | {summary} |")
    return BEGIN + "\n".join(rows) + "\n" + END


def test_docs_list_every_rule() -> None:
    path = REPO / "docs" / "lint.md"
    text = path.read_text(encoding="utf-8")
    start, end = text.index(BEGIN), text.index(END) + len(END)
    wanted = text[:start] + rules_table() + text[end:]
    if os.environ.get("SANDKIT_UPDATE_GOLDEN") == "1":
        path.write_text(wanted, encoding="utf-8")
    assert text == wanted, "docs/lint.md's rule table is stale: run with SANDKIT_UPDATE_GOLDEN=1"
