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
