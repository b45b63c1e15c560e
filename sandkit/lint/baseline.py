"""Baselines: accept today's findings, report only new ones, by stable fingerprint.

A fingerprint hashes the rule, the path and the text of the finding's line (plus which repeat
of that line it is), so findings keep their identity when lines move.
"""

from __future__ import annotations

import json

from sandkit.errors import UsageError
from sandkit.lint.model import Finding


def write_baseline(path: str, findings: list[Finding]) -> None:
    entries = [
        {"fingerprint": f.fingerprint, "rule": f.rule, "path": f.path}
        for f in sorted(findings, key=lambda f: (f.path, f.rule, f.fingerprint))
    ]
    with open(path, "w", encoding="utf-8") as handle:
        json.dump({"version": 1, "findings": entries}, handle, indent=2)
        handle.write("\n")


def read_baseline(path: str) -> set[str]:
    from sandkit.syntax.jsonc import load_json
    from sandkit.syntax.tree import SyntaxProblem

    try:
        with open(path, encoding="utf-8") as handle:
            data = load_json(handle.read())
    except OSError as exc:
        raise UsageError(f"{path}: error: cannot read the baseline: {exc.strerror}") from None
    except (ValueError, SyntaxProblem) as exc:  # not UTF-8, or not JSON
        where = f" (line {exc.pos.line}, column {exc.pos.column})" if isinstance(exc, SyntaxProblem) else ""
        raise UsageError(f"{path}: error: the baseline is not valid JSON: {exc}{where}") from None
    entries = data.get("findings") if isinstance(data, dict) else None
    if not isinstance(entries, list) or data.get("version") != 1:
        raise UsageError(f"{path}: error: not a sandkit baseline (version 1 with 'findings')")
    return {e["fingerprint"] for e in entries if isinstance(e, dict) and "fingerprint" in e}
