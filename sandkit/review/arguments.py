"""Command-line flags of ``sandkit summary`` and ``diff``; kept apart so building the parser imports nothing heavy."""

from __future__ import annotations

import argparse

from sandkit.config import SEVERITIES

FORMATS = ("text", "markdown", "json")


def add_diff_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "arguments",
        nargs="*",
        metavar="[BASE] [HEAD] [PATH]",
        help="revisions (BASE default: the merge base with the default branch; HEAD default: the working "
        "tree), then kit files or folders to limit the diff to",
    )
    parser.add_argument("--staged", action="store_true", help="compare the index with HEAD (for pre-commit)")
    _format_and_output(parser)
    parser.add_argument(
        "--fail-on",
        choices=SEVERITIES,
        default=None,
        metavar="LEVEL",
        help="exit 1 when a change is at this level or above (critical, high, medium, low, info)",
    )


def add_summary_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("kits", nargs="+", metavar="KIT", help="kit files, or directories of kits")
    _format_and_output(parser)
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="what every target enforces, not only the kit's own (targets.build)",
    )


def _format_and_output(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--output-format",
        "--format",
        dest="format",
        choices=FORMATS,
        default="text",
        help="text (default), markdown or json",
    )
    parser.add_argument("-o", "--output", default=None, metavar="FILE", help="write to FILE instead of standard output")
