#!/usr/bin/env python3
"""Refresh the pinned actions table (sandkit/compiler/targets/action_pins.py) from `git ls-remote`.

For each action in the table it lists the repository's tags, takes the highest release tag of the
form vX.Y.Z (no pre-releases), and writes that tag's commit (the peeled one for annotated tags)
and version back into the table. Run it on a machine that reaches GitHub, review the diff (read the
release notes of every version that moved), regenerate the golden workflows and commit:

    python scripts/refresh-action-pins.py            # rewrite the table
    python scripts/refresh-action-pins.py --check    # exit 1 if a newer release exists
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

TABLE = Path(__file__).resolve().parent.parent / "sandkit/compiler/targets/action_pins.py"
RELEASE = re.compile(r"refs/tags/(v(\d+)\.(\d+)\.(\d+))(\^\{\})?")
ENTRY = re.compile(
    r'^    "(?P<action>[\w.-]+/[\w.-]+)": Pin\("(?P<sha>[0-9a-f]{40})", "(?P<version>[^"]+)"\),$', re.MULTILINE
)


def latest_release(ls_remote: str) -> tuple[str, str]:
    """(sha, version) of the highest vX.Y.Z tag in `git ls-remote --tags` output."""
    commits: dict[str, str] = {}
    peeled: dict[str, str] = {}
    for line in ls_remote.splitlines():
        sha, _, ref = line.partition("\t")
        match = RELEASE.fullmatch(ref.strip())
        if match and re.fullmatch(r"[0-9a-f]{40}", sha):
            (peeled if match.group(5) else commits)[match.group(1)] = sha
    if not commits:
        raise ValueError("no vX.Y.Z release tag found")
    version = max(commits, key=lambda v: tuple(int(n) for n in v[1:].split(".")))
    return peeled.get(version, commits[version]), version


def rewrite(table: str, pins: dict[str, tuple[str, str]]) -> str:
    """The table module's text with each listed action's SHA and version replaced."""

    def replace(match: re.Match[str]) -> str:
        sha, version = pins.get(match["action"], (match["sha"], match["version"]))
        return f'    "{match["action"]}": Pin("{sha}", "{version}"),'

    return ENTRY.sub(replace, table)


def current(table: str) -> dict[str, tuple[str, str]]:
    return {m["action"]: (m["sha"], m["version"]) for m in ENTRY.finditer(table)}


def repository_url(action: str) -> str:
    return "https://github.com/" + "/".join(action.split("/")[:2]) + ".git"  # owner/name of owner/name/sub


def ls_remote(url: str) -> str:
    done = subprocess.run(["git", "ls-remote", "--tags", url], capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"git ls-remote {url} failed: {done.stderr.strip()}")
    return done.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a pin is behind")
    args = parser.parse_args(argv)
    text = TABLE.read_text(encoding="utf-8")
    pinned = current(text)
    try:
        latest = {action: latest_release(ls_remote(repository_url(action))) for action in pinned}
    except (RuntimeError, ValueError, OSError, subprocess.TimeoutExpired) as error:
        print(f"refresh-action-pins: {error}", file=sys.stderr)
        return 2
    moved = {a: latest[a] for a in pinned if latest[a] != pinned[a]}
    for action, (sha, version) in sorted(moved.items()):
        print(f"{action}: {pinned[action][1]} {pinned[action][0]} -> {version} {sha}")
    if args.check:
        return 1 if moved else 0
    if moved:
        TABLE.write_text(rewrite(text, moved), encoding="utf-8")
        print("rewrote the table; now run `sandkit build` for every kit and review the diff")
    return 0


if __name__ == "__main__":
    sys.exit(main())
