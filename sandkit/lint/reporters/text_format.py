"""Human-readable output: one line per finding, then a one-line summary.

Paths and messages quote the scanned files, which may be hostile: control characters (an
escape sequence in a file name could drive the terminal) and invisible format characters are
shown as escapes, never written raw.
"""

from __future__ import annotations

from sandkit.lazy_regex import lazy
from sandkit.lint.model import Finding
from sandkit.lint.reporters import Report

_UNSAFE = lazy(
    "[\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb"
    "\ud800-\udfff\U000e0000-\U000e007f]"
)
RESET = "\x1b[0m"
BOLD = "\x1b[1m"
DIM = "\x1b[2m"
SEVERITY_STYLE = {
    "critical": "\x1b[1;31m",
    "high": "\x1b[31m",
    "medium": "\x1b[33m",
    "low": "\x1b[36m",
    "info": "\x1b[2m",
}


def printable(text: str) -> str:
    """``text`` on one line, with every control or invisible character shown as an escape."""
    flat = " ".join(text.split())
    return _UNSAFE.sub(lambda m: _escape(m.group()), flat)


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def style(text: str, code: str, color: bool) -> str:
    return f"{code}{text}{RESET}" if color else text


def finding_line(f: Finding, *, color: bool, with_fix: bool) -> str:
    where = style(f"{printable(f.path)}:{f.line}:{f.column}:", BOLD, color)
    line = f"{where} {style(f.severity, SEVERITY_STYLE[f.severity], color)} {style(f.rule, BOLD, color)}"
    line += f" {printable(f.message)}"
    if with_fix and f.fix:
        line += " " + style(f"[fix: {printable(f.fix)}]", DIM, color)
    return line


def summary_line(report: Report) -> str:
    summary = report.summary()
    counts = summary["by_severity"]
    assert isinstance(counts, dict)
    detail = ", ".join(f"{n} {s}" for s, n in counts.items())
    total = len(report.findings)
    tail = f"{total} finding{'s' if total != 1 else ''}"
    if detail:
        tail += f" ({detail})"
    tail += f" in {report.files} file{'s' if report.files != 1 else ''}"
    if report.baselined:
        tail += f"; {report.baselined} hidden by the baseline"
    return tail + "."


def lines(report: Report, *, with_fix: bool) -> str:
    out = [finding_line(f, color=report.color, with_fix=with_fix) for f in report.findings]
    if not report.quiet:
        out.append(summary_line(report))
        if report.skipped:
            out.append(printable(report.skipped_line()))
    return "".join(line + "\n" for line in out)


def render(report: Report) -> str:
    return lines(report, with_fix=True)
