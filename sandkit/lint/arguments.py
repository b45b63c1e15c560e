"""Command-line flags of ``sandkit lint``; kept apart so building the parser imports nothing heavy.

The flags follow ruff, hadolint and zizmor where those tools agree, so that habits carry over:
``--output-format`` (``--format`` kept as an alias), ``--exit-zero``, ``--statistics``,
``--select``/``--extend-select``/``--ignore``/``--extend-ignore``, ``--exclude``/
``--extend-exclude``, ``--min-severity``, ``--fix``/``--diff`` and ``-`` with
``--stdin-filename`` for editors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

from sandkit.config import SEVERITIES as SEVERITIES

#: Output formats; the reporter of each is ``sandkit.lint.reporters.<name>_format``.
FORMATS = ("text", "concise", "json", "sarif", "github", "gitlab", "junit")
#: Formats read by people; only these get colour, progress and notes on standard error.
HUMAN_FORMATS = ("text", "concise")


def add_lint_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "paths",
        nargs="*",
        default=[],
        metavar="PATH",
        help="files or folders to scan (default: the current folder); - reads one file from standard input",
    )
    report = p.add_argument_group("report")
    report.add_argument(
        "--output-format",
        "--format",
        dest="format",
        choices=FORMATS,
        default="text",
        help="text (default), concise (without fix text), json, sarif, github (annotations), "
        "gitlab (Code Quality), junit (JUnit XML)",
    )
    report.add_argument("-o", "--output", metavar="FILE", default=None, help="write the report to FILE")
    report.add_argument(
        "--statistics", action="store_true", help="print how many findings each rule has instead of the findings"
    )
    report.add_argument(
        "-q", "--quiet", action="store_true", help="print the findings only: no summary line, notes or progress"
    )
    report.add_argument(
        "--no-color",
        action="store_true",
        help="no colour even on a terminal (colour is also off when NO_COLOR is set; FORCE_COLOR forces it)",
    )
    report.add_argument(
        "--min-severity",
        choices=SEVERITIES,
        default=None,
        help="report only findings of this severity or above (a display filter; hidden findings cannot fail the run)",
    )
    report.add_argument(
        "--fail-on", choices=SEVERITIES, default=None, help="lowest severity that makes the exit code 1 (default: low)"
    )
    report.add_argument(
        "--exit-zero", action="store_true", help="exit 0 even when findings are reported (2 still means an error)"
    )
    rules = p.add_argument_group(
        "rule selection (IDs, ID prefixes, names or categories, in any case; ALL for every rule)"
    )
    rules.add_argument(
        "--select", default=None, metavar="RULES", help="comma-separated rules to run (replaces the config)"
    )
    rules.add_argument("--extend-select", default=None, metavar="RULES", help="rules to run besides the selection")
    rules.add_argument("--ignore", default=None, metavar="RULES", help="rules to skip (added to the config's ignore)")
    rules.add_argument("--extend-ignore", default=None, metavar="RULES", help="the same as --ignore (flake8 habit)")
    rules.add_argument(
        "--include-examples",
        action="store_true",
        help="report secrets in tests, fixtures and documentation too (at low severity; they are left out by default)",
    )
    paths = p.add_argument_group("paths (globs read like .gitignore, relative to the current folder)")
    paths.add_argument(
        "--exclude", default=None, metavar="GLOBS", help="comma-separated paths not to scan (replaces the config's)"
    )
    paths.add_argument(
        "--extend-exclude", default=None, metavar="GLOBS", help="paths not to scan besides the config's exclude"
    )
    paths.add_argument(
        "--respect-gitignore",
        action="store_true",
        help="skip what the repository's .gitignore files exclude (off by default: planted files are often ignored)",
    )
    paths.add_argument(
        "--root",
        default=None,
        metavar="DIR",
        help="report paths relative to DIR (default: the current folder; SARIF: the repository's top folder)",
    )
    paths.add_argument(
        "--stdin-filename",
        default=None,
        metavar="PATH",
        help="with -: the path the text on standard input has (its kind, and the path in the report)",
    )
    fixes = p.add_argument_group("fixes")
    fixes.add_argument(
        "--fix",
        action="store_true",
        help="apply the safe, mechanical fixes (hidden Unicode removed, MCP packages pinned to a locked version)",
    )
    fixes.add_argument(
        "--diff", action="store_true", help="show the fixes as a unified diff instead of writing them (exit 1 if any)"
    )
    other = p.add_argument_group("other")
    other.add_argument(
        "--config",
        default=None,
        metavar="FILE",
        help="pyproject.toml or .sandkit.toml to read (default: found from the root)",
    )
    other.add_argument("--baseline", default=None, metavar="FILE", help="hide findings whose fingerprints are in FILE")
    other.add_argument(
        "--write-baseline", default=None, metavar="FILE", help="write the fingerprints of the current findings to FILE"
    )
    other.add_argument(
        "--jobs", type=int, default=None, metavar="N", help="worker processes for large scans (default: automatic)"
    )
