"""docs/review.md's risk table is the one in sandkit/review/risks.py, byte for byte.

Regenerate after changing a level or a reason: ``SANDKIT_UPDATE_GOLDEN=1 pytest tests/review/test_docs.py``.
"""

from __future__ import annotations

from sandkit.review.risks import risks_markdown
from tests.conftest import REPO
from tests.generated import check_generated_section

BEGIN = "<!-- risk table: sandkit.review.risks.risks_markdown() (tests/review/test_docs.py) -->\n"
END = "<!-- end of risk table -->\n"


def test_the_risk_table_in_the_docs_is_the_code() -> None:
    check_generated_section(REPO / "docs" / "review.md", BEGIN, END, risks_markdown())
