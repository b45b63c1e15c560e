"""Generated sections of committed docs: compare them with what the code generates, and rewrite
them on purpose with SANDKIT_UPDATE_GOLDEN=1 (as the golden files)."""

from __future__ import annotations

import os
from pathlib import Path


def check_generated_section(path: Path, begin: str, end: str, generated: str) -> None:
    """Fail unless the text between the ``begin`` and ``end`` marker lines of ``path`` is ``generated``."""
    text = path.read_text(encoding="utf-8")
    start, stop = text.index(begin), text.index(end) + len(end)
    wanted = text[:start] + begin + generated + end + text[stop:]
    if os.environ.get("SANDKIT_UPDATE_GOLDEN") == "1":
        path.write_text(wanted, encoding="utf-8")
    assert text == wanted, f"{path.name}'s generated section is stale: run the test with SANDKIT_UPDATE_GOLDEN=1"
