"""Command-line flags of ``sandkit lint``; kept apart so building the parser imports nothing heavy."""

from __future__ import annotations

import argparse

SEVERITIES = ("critical", "high", "medium", "low", "info")
FORMATS = ("text", "json", "sarif", "github")


def add_lint_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "paths", nargs="*", default=[], metavar="PATH", help="files or folders to scan (default: the current folder)"
    )
    p.add_argument("--format", choices=FORMATS, default="text")
    p.add_argument("--output", metavar="FILE", default=None, help="write the report to FILE")
    p.add_argument(
        "--fail-on", choices=SEVERITIES, default=None, help="lowest severity that makes the exit code 1 (default: low)"
    )
    p.add_argument("--select", default=None, metavar="IDS", help="comma-separated rule IDs or categories to run")
    p.add_argument("--ignore", default=None, metavar="IDS", help="comma-separated rule IDs or categories to skip")
    p.add_argument(
        "--config",
        default=None,
        metavar="FILE",
        help="pyproject.toml or .sandkit.toml to read (default: found from the root)",
    )
    p.add_argument("--baseline", default=None, metavar="FILE", help="hide findings whose fingerprints are in FILE")
    p.add_argument(
        "--write-baseline", default=None, metavar="FILE", help="write the fingerprints of the current findings to FILE"
    )
    p.add_argument(
        "--jobs", type=int, default=None, metavar="N", help="worker processes for large scans (default: automatic)"
    )
