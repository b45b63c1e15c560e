"""``sandkit build --dry-run``: every file a build would write or remove, and nothing written.

One line per file, ``create``, ``update``, ``same`` (rewritten with the bytes it already has) or
``remove`` (made by an earlier build of the kit, no longer made), in the order a build writes
them; then a count on standard error. The exit code is 0: a dry run is a question, not a check
(``--check`` fails on stale output).
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from sandkit.compiler.command import KitOutput, stale_names


def _action(path: Path, data: bytes) -> str:
    try:
        return "same" if path.read_bytes() == data else "update"
    except FileNotFoundError:
        return "create"
    except OSError:
        return "update"  # present but unreadable (a folder, no permission): the build replaces it


def planned(results: list[KitOutput]) -> list[tuple[str, Path]]:
    """(action, path) for everything the build of ``results`` would do."""
    plan: list[tuple[str, Path]] = []
    for result in results:
        plan += [("remove", result.folder / name) for name in stale_names(result)]
        plan += [(_action(result.folder / n, d), result.folder / n) for n, d in sorted(result.files.items())]
        plan += [(_action(path, data), path) for path, data in sorted(result.extra.items())]
    return plan


def dry_run(results: list[KitOutput]) -> int:
    plan = planned(results)
    sys.stdout.write("".join(f"{action:<6}  {path.as_posix()}\n" for action, path in plan))
    counts = Counter(action for action, _ in plan)
    summary = ", ".join(f"{counts[a]} {a}" for a in ("create", "update", "same", "remove") if counts[a])
    print(f"sandkit build --dry-run: {len(results)} kit(s), {summary or 'no files'}; nothing written", file=sys.stderr)
    return 0
