"""``sandkit build --dry-run``: every file a build would write or remove, and nothing written.

One line per file, ``create``, ``update``, ``same`` (rewritten with the bytes it already has) or
``remove`` (made by an earlier build of the kit, no longer made), in the order a build writes
them; then a count on standard error. The exit code is 0: a dry run is a question, not a check
(``--check`` fails on stale output).
"""

from __future__ import annotations

import sys
from collections import Counter

from sandkit.compiler.writes import RootPlan, actions


def dry_run(plans: list[RootPlan], kits: int) -> int:
    plan = actions(plans)
    sys.stdout.write("".join(f"{action:<6}  {path.as_posix()}\n" for action, path in plan))
    counts = Counter(action for action, _ in plan)
    summary = ", ".join(f"{counts[a]} {a}" for a in ("create", "update", "same", "remove") if counts[a])
    print(f"sandkit build --dry-run: {kits} kit(s), {summary or 'no files'}; nothing written", file=sys.stderr)
    return 0
