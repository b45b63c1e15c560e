"""The diff report as text (a terminal), Markdown (a pull-request comment) and JSON.

Within a kit, changes come most severe first (then in the order the detectors found them); kits
come in path order. Every value from a kit is quoted by :mod:`sandkit.review.quote`. The Markdown
starts with a marker line, so the Action finds and updates its one comment, and is cut to fit a
GitHub comment, saying how much was left out.
"""

from __future__ import annotations

import json
from typing import Any

from sandkit.review.changes import Change
from sandkit.review.diff import DiffReport, KitDiff
from sandkit.review.quote import md_block, md_code, terminal, text
from sandkit.review.risks import LEVELS, RISKS, rank

MARKER = "<!-- sandkit-diff -->"
#: GitHub refuses comments over 65536 characters; leave room for the notice of what was cut.
MARKDOWN_LIMIT = 60_000
_STATUS = {
    "changed": "changed",
    "unchanged": "no policy change",
    "added": "added",
    "removed": "removed",
    "moved": "moved",
    "invalid": "invalid",
}


def ordered(changes: list[Change]) -> list[Change]:
    return sorted(changes, key=lambda c: -rank(c.risk.level))


def _totals(report: DiffReport) -> str:
    statuses = [k.status for k in report.kits]
    parts = [f"{statuses.count(s)} {_STATUS[s]}" for s in _STATUS if s in statuses]
    kits = f"{len(statuses)} kit{'s' if len(statuses) != 1 else ''}" + (": " + ", ".join(parts) if parts else "")
    counts = [f"{report.count(level)} {level}" for level in LEVELS if report.count(level)]
    worst = report.highest
    risk = f"highest risk {worst} ({', '.join(counts)})" if worst else "no policy change"
    return f"{kits}; {risk}"


def _level(change: Change) -> str:
    risk = change.risk
    return f"{risk.level} ({risk.direction})" if risk.direction == "narrows" else risk.level


# ----- text ---------------------------------------------------------------------------------
#: The columns of a text line before the message: level, kind, setting.
Columns = tuple[int, int, int]


def _columns(changes: list[Change]) -> Columns:
    """Each column as wide as its widest cell among one kit's changes, so two columns never touch."""
    widest = [max((len(cell(c)) for c in changes), default=0) for cell in (_level, _kind, _setting)]
    return widest[0], widest[1], widest[2]


def _kind(change: Change) -> str:
    return change.kind


def _setting(change: Change) -> str:
    return change.setting


def _text_kit(kit: KitDiff) -> list[str]:
    name = f" ({kit.name})" if kit.name else ""
    head = f"{terminal(kit.path)}{name}: {_STATUS[kit.status]}"
    if kit.highest and kit.status != "unchanged":
        head += f", highest risk {kit.highest}"
    lines = [head]
    level, kind, setting = _columns(kit.changes)
    for change in ordered(kit.changes):
        cells = f"{_level(change):<{level}}  {change.kind:<{kind}}  {change.setting:<{setting}}"
        lines.append(f"  {cells}  {change.message(terminal)}")
    lines += [f"    {text(problem)}" for problem in kit.problems]
    return lines


def render_text(report: DiffReport) -> str:
    lines = [f"sandkit diff: {text(report.base.title)} -> {text(report.head.title)}"]
    for kit in report.kits:
        lines += _text_kit(kit)
    lines.append(_totals(report))
    return "\n".join(lines) + "\n"


# ----- Markdown -----------------------------------------------------------------------------
def _md_kit(kit: KitDiff) -> list[str]:
    title = f"### {md_code(kit.path, table=False)}" + (f" ({kit.name})" if kit.name else "")
    title += f": {_STATUS[kit.status]}"
    if kit.base_path:
        title += f" from {md_code(kit.base_path, table=False)}"
    if kit.highest and kit.status != "unchanged":
        title += f", highest risk **{kit.highest}**"
    lines = ["", title]
    if kit.changes:
        lines += ["", "| risk | change | setting | what |", "| --- | --- | --- | --- |"]
        for change in ordered(kit.changes):
            level = f"**{change.risk.level}**" if rank(change.risk.level) >= rank("high") else _level(change)
            lines.append(f"| {level} | {change.kind} | {md_code(change.setting)} | {change.message(md_code)} |")
    if kit.problems:
        lines += ["", md_block("\n".join(kit.problems))]
    return lines


def _md_reasons(report: DiffReport) -> list[str]:
    kinds = sorted({c.kind for k in report.kits for c in k.changes}, key=lambda k: (-rank(RISKS[k].level), k))
    if not kinds:
        return []
    lines = ["", "<details><summary>Why these levels</summary>", ""]
    lines += [f"- **{kind}** ({RISKS[kind].level}, {RISKS[kind].direction}): {RISKS[kind].reason}" for kind in kinds]
    return [*lines, "", "</details>"]


def render_markdown(report: DiffReport, limit: int = MARKDOWN_LIMIT) -> str:
    lines = [
        MARKER,
        "## sandkit diff: what this change does to the agents' sandboxes",
        "",
        f"{md_code(report.base.title, table=False)} → {md_code(report.head.title, table=False)}: {_totals(report)}.",
    ]
    shown = 0
    tail = _md_reasons(report)
    size = sum(len(line) + 1 for line in lines + tail)
    for kit in report.kits:
        section = _md_kit(kit)
        cost = sum(len(line) + 1 for line in section)
        if size + cost > limit:
            break
        lines += section
        size += cost
        shown += 1
    if shown < len(report.kits):
        left = report.kits[shown:]
        changes = sum(len(k.changes) for k in left)
        lines += [
            "",
            f"*{len(left)} more kit(s) with {changes} change(s) are not shown here: the comment would be "
            "too long. Run `sandkit diff` on the same revisions for all of them.*",
        ]
    return "\n".join(lines + tail) + "\n"


# ----- JSON ---------------------------------------------------------------------------------
def _change_json(change: Change) -> dict[str, Any]:
    risk = change.risk
    out: dict[str, Any] = {
        "kind": change.kind,
        "level": risk.level,
        "direction": risk.direction,
        "category": risk.category,
        "setting": change.setting,
        "message": change.message(str),
        "values": list(change.values),
        "reason": risk.reason,
    }
    if change.before is not None or change.after is not None:
        out["before"], out["after"] = change.before, change.after
    return out


def _side_json(side: Any) -> dict[str, Any]:
    return {"label": side.label, "title": side.title, "commit": side.commit}


def render_json(report: DiffReport) -> str:
    document = {
        "version": 1,
        "base": _side_json(report.base),
        "head": _side_json(report.head),
        "highest": report.highest,
        "counts": {level: report.count(level) for level in LEVELS},
        "kits": [
            {
                "path": kit.path,
                "name": kit.name,
                "status": kit.status,
                "base_path": kit.base_path,
                "highest": kit.highest,
                "changes": [_change_json(c) for c in ordered(kit.changes)],
                "problems": kit.problems,
            }
            for kit in report.kits
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=True) + "\n"


def render_diff(report: DiffReport, fmt: str) -> str:
    if fmt == "markdown":
        return render_markdown(report)
    if fmt == "json":
        return render_json(report)
    return render_text(report)
