"""One line per finding without the fix text (``--output-format concise``), for editors and greps."""

from __future__ import annotations

from sandkit.lint.reporters import Report
from sandkit.lint.reporters.text_format import lines


def render(report: Report) -> str:
    return lines(report, with_fix=False)
