"""Machine-readable output, version 1: `version`, `findings` and `summary` (tests/lint/test_reporters.py pins it)."""

from __future__ import annotations

import json

from sandkit.lint.reporters import Report


def render(report: Report) -> str:
    document = {
        "version": 1,
        "findings": [f.as_json() for f in report.findings],
        "summary": report.summary(),
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
