"""GitHub Actions workflow commands, so findings show as annotations on the pull request."""

from __future__ import annotations

from sandkit.lint.reporters import Report

_LEVEL = {"critical": "error", "high": "error", "medium": "warning", "low": "notice", "info": "notice"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def render(report: Report) -> str:
    lines = []
    for f in report.findings:
        title = _property(f"{f.rule} ({f.category}, {f.severity})")
        message = f.message + (f"\nFix: {f.fix}" if f.fix else "")
        lines.append(
            f"::{_LEVEL[f.severity]} file={_property(f.path)},line={f.line},"
            f"col={f.column},title={title}::{_data(message)}"
        )
    return "".join(line + "\n" for line in lines)
