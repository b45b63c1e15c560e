"""Human-readable output: one line per finding, then a one-line summary."""

from __future__ import annotations

from sandkit.lint.reporters import Report


def _one_line(text: str) -> str:
    return " ".join(text.split())


def render(report: Report) -> str:
    lines = []
    for f in report.findings:
        line = f"{f.path}:{f.line}:{f.column}: {f.severity} {f.rule} {_one_line(f.message)}"
        if f.fix:
            line += f" [fix: {_one_line(f.fix)}]"
        lines.append(line)
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
    lines.append(tail + ".")
    return "\n".join(lines) + "\n"
