"""``--statistics``: how many findings each rule has, most frequent first (text or JSON)."""

from __future__ import annotations

import json
from collections import Counter

from sandkit.lint.registry import fixer_for
from sandkit.lint.reporters import Report

FORMATS = ("text", "concise", "json")


def render_statistics(report: Report, fmt: str) -> str:
    counts = Counter(f.rule for f in report.findings)
    by_id = {r.id: r for r in report.rules}
    order = sorted(counts, key=lambda rule_id: (-counts[rule_id], rule_id))
    rows = [
        {
            "rule": rule_id,
            "name": by_id[rule_id].name if rule_id in by_id else "",
            "category": by_id[rule_id].category if rule_id in by_id else "",
            "count": counts[rule_id],
            "fixable": fixer_for(rule_id) is not None,
        }
        for rule_id in order
    ]
    if fmt == "json":
        return json.dumps(rows, indent=2) + "\n"
    width = max((len(str(row["count"])) for row in rows), default=1)
    lines = [f"{row['count']:>{width}}  {row['rule']}  {'[*] ' if row['fixable'] else ''}{row['name']}" for row in rows]
    return "".join(line + "\n" for line in lines)
