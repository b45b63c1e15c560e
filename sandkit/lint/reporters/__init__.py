"""Output formats. Each reporter is a module with ``render(report: Report) -> str``."""

from __future__ import annotations

import importlib
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from sandkit.lint.model import CATEGORIES, SEVERITIES, Finding
from sandkit.lint.model import size_text as size_text
from sandkit.lint.registry import Rule


class Report(NamedTuple):
    """What every reporter receives: the findings to show and the numbers behind them."""

    findings: list[Finding]
    rules: Sequence[Rule]
    files: int = 0
    suppressed: int = 0
    baselined: int = 0
    tool_version: str = ""
    extra: Mapping[str, int] = {}
    color: bool = False  # ANSI colour (text formats, on a terminal)
    quiet: bool = False  # the findings only, without a summary line
    base: str = ""  # the absolute folder the findings' paths are relative to
    source_root: str = ""  # the repository's top folder (SARIF locations are relative to it)
    #: Files read only in part and not reported as a finding, as (path, reason, size in bytes):
    #: ``file-too-large`` for a file over the scan limit (``max_bytes``) that no rule reads as
    #: configuration or instructions (those are SK002 findings, unless SK002 is not selected).
    skipped: Sequence[tuple[str, str, int]] = ()
    max_bytes: int = 0

    def source_path(self, path: str) -> str:
        """``path`` (as reported) relative to the repository's top folder, for formats that read
        paths from there (SARIF's %SRCROOT%, GitLab); absolute when the file lies outside it."""
        if not self.base or not self.source_root:
            return path
        full = os.path.normpath(os.path.join(self.base, path))
        rel = os.path.relpath(full, self.source_root)
        return full if rel.startswith("..") else rel.replace(os.sep, "/")

    def summary(self) -> dict[str, object]:
        severities = Counter(f.severity for f in self.findings)
        categories = Counter(f.category for f in self.findings)
        return {
            "files": self.files,
            "findings": len(self.findings),
            "by_severity": {s: severities[s] for s in SEVERITIES if severities[s]},
            "by_category": {c: categories[c] for c in CATEGORIES if categories[c]},
            "baselined": self.baselined,
            # files read in part: what was read is said (``read_bytes``); ``skipped`` is the same
            # list under its older name, which reads as if the file had not been read at all
            "read_in_part": [
                {"path": path, "size": size, "read_bytes": min(size, self.max_bytes) if self.max_bytes else None}
                for path, _reason, size in self.skipped
            ],
            "skipped": [{"path": path, "reason": reason, "size": size} for path, reason, size in self.skipped],
        }

    def skipped_line(self, limit: int = 5) -> str:
        """One sentence naming the files read only up to the scan limit ("" when there are none)."""
        if not self.skipped:
            return ""
        count = len(self.skipped)
        names = ", ".join(path for path, _, _ in self.skipped[:limit])
        if count > limit:
            names += f" and {count - limit} more"
        over = size_text(self.max_bytes) if self.max_bytes else "the scan limit"
        were = "file over {over} was" if count == 1 else "files over {over} were"
        first = f"the first {over}" if self.max_bytes else "up to the scan limit"
        return (
            f"{count} {were.format(over=over)} read in part ({first}; findings in "
            f"{'it' if count == 1 else 'them'} come from that part only): {names} "
            f"(raise max-file-size in [tool.sandkit] to read {'it' if count == 1 else 'them'} whole)"
        )


def render(report: Report, fmt: str) -> str:
    module = importlib.import_module(f"sandkit.lint.reporters.{fmt}_format")
    text: str = module.render(report)
    return text
