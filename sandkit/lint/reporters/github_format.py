"""GitHub Actions workflow commands, so findings show as annotations on the pull request."""

from __future__ import annotations

from sandkit.lazy_regex import lazy
from sandkit.lint.reporters import Report

# Control characters other than line breaks (which are %-escaped) would reach the log raw.
_CONTROL = lazy("[\x00-\x09\x0b\x0c\x0e-\x1f\x7f-\x9f]")

_LEVEL = {"critical": "error", "high": "error", "medium": "warning", "low": "notice", "info": "notice"}


def _data(text: str) -> str:
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
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
    if report.skipped:  # no file's annotation: a notice on the run, as the text format's last line
        lines.append(f"::notice title=sandkit (files read in part)::{_data(report.skipped_line())}")
    return "".join(line + "\n" for line in lines)
