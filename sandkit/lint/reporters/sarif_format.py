"""SARIF 2.1.0 for GitHub code scanning: rules with help text, results with fingerprints."""

from __future__ import annotations

import json
import os
from urllib.parse import quote

from sandkit.lint.registry import Rule
from sandkit.lint.reporters import Report, size_text

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
#: sandkit's home (the kit schema's ``$id`` lives there too); each rule's page is ``rules/ID`` under it,
#: what ``sandkit explain ID`` prints, as GitHub's alert links to ``helpUri``.
HOME = "https://sandkit.dev/"
_LEVEL = {"critical": "error", "high": "error", "medium": "warning", "low": "note", "info": "note"}
# GitHub ranks code-scanning alerts by this number (CVSS-like, 0.0 - 10.0).
_SECURITY_SEVERITY = {"critical": "9.5", "high": "8.0", "medium": "5.5", "low": "3.0", "info": "1.0"}


def _rule(rule: Rule) -> dict[str, object]:
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": " ".join(rule.sections.get("Summary", "").split())},
        "help": {"text": rule.doc, "markdown": rule.doc},
        "helpUri": f"{HOME}rules/{rule.id}",
        "defaultConfiguration": {"level": _LEVEL[rule.severity]},
        "properties": {
            "category": rule.category,
            "tags": ["security", rule.category],
            "security-severity": _SECURITY_SEVERITY[rule.severity],
        },
    }


def _uri(path: str) -> str:
    """A relative URI; a file name that is not UTF-8 keeps its bytes, percent-encoded."""
    return quote(path, errors="surrogateescape")


def _base_ids(report: Report) -> dict[str, object]:
    if not report.source_root:
        return {}
    uri = "file://" + _uri(report.source_root.replace(os.sep, "/").rstrip("/")) + "/"
    return {"originalUriBaseIds": {"%SRCROOT%": {"uri": uri}}}


def _invocations(report: Report) -> dict[str, object]:
    """Files read only in part, as tool execution notifications (not results: nothing is wrong
    with the file), each at its location with its reason and size."""
    if not report.skipped:
        return {}
    notes = [
        {
            "level": "note",
            "message": {
                "text": f"larger than max-file-size ({size} bytes); read in part (the first "
                f"{size_text(report.max_bytes) if report.max_bytes else 'part, up to the limit'}), "
                "and findings in it come from that part only"
            },
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(report.source_path(path)), "uriBaseId": "%SRCROOT%"}
                    }
                }
            ],
            "descriptor": {"id": reason},
            "properties": {"reason": reason, "size": size},
        }
        for path, reason, size in report.skipped
    ]
    return {"invocations": [{"executionSuccessful": True, "toolExecutionNotifications": notes}]}


def render(report: Report) -> str:
    used = sorted({f.rule for f in report.findings})
    by_id = {r.id: r for r in report.rules}
    rules = [by_id[i] for i in used if i in by_id]
    index = {r.id: n for n, r in enumerate(rules)}
    results = []
    for f in report.findings:
        text = f.message + (f" Fix: {f.fix}" if f.fix else "")
        results.append(
            {
                "ruleId": f.rule,
                "ruleIndex": index.get(f.rule, -1),
                "level": _LEVEL[f.severity],
                "message": {"text": text},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": _uri(report.source_path(f.path)), "uriBaseId": "%SRCROOT%"},
                            "region": {"startLine": f.line, "startColumn": f.column},
                        }
                    }
                ],
                "partialFingerprints": {"sandkit/v1": f.fingerprint},
                "properties": {
                    "category": f.category,
                    "severity": f.severity,
                    "base_severity": f.severity_before_passes,
                },
            }
        )
    document = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "sandkit",
                        "version": report.tool_version,
                        "informationUri": HOME,
                        "rules": [_rule(r) for r in rules],
                    }
                },
                **_base_ids(report),
                **_invocations(report),
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
