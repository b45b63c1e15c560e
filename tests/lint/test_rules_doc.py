"""docs/lint.md's rule table is what ``sandkit rules --output-format markdown`` prints, byte for byte.

Regenerate after adding or changing a rule: ``SANDKIT_UPDATE_GOLDEN=1 pytest tests/lint/test_rules_doc.py``.
"""

from __future__ import annotations

import pytest

from sandkit.cli import main
from tests.conftest import REPO
from tests.generated import check_generated_section

BEGIN = "<!-- rules table: the output of `sandkit rules --output-format markdown` (tests/lint/test_rules_doc.py) -->\n"
END = "<!-- end of rules table -->\n"


def test_docs_rule_table_is_the_command_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--output-format", "markdown"]) == 0
    check_generated_section(REPO / "docs" / "lint.md", BEGIN, END, capsys.readouterr().out)


def test_the_measured_precision_table_names_rules_that_exist() -> None:
    import re

    from sandkit.lint.registry import all_rules

    text = (REPO / "docs" / "lint.md").read_text()
    table = text.split("### Measured precision", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"^\| ([A-Z]{2}\d{3}(?:, [A-Z]{2}\d{3})*)", table, re.MULTILINE))
    ids = {rule_id for group in named for rule_id in group.split(", ")}
    assert len(ids) >= 15 and ids <= {rule.id for rule in all_rules()}
