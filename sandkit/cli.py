"""The ``sandkit`` command line.

Each sub-command imports its machinery only when it runs, so that ``sandkit --version`` and
``sandkit validate`` stay fast (no jinja2, no compiler target, no linter).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from sandkit import __version__
from sandkit.errors import SandkitError

Runner = Callable[[argparse.Namespace], int]


def _run_validate(args: argparse.Namespace) -> int:
    from sandkit.kits.commands import validate

    return validate(args.kits, quiet=args.quiet, root=args.root)


def _run_init(args: argparse.Namespace) -> int:
    from sandkit.kits.commands import init

    return init(args.path, preset=args.preset, force=args.force)


def _run_schema(args: argparse.Namespace) -> int:
    from sandkit.kits.schema import schema_text

    sys.stdout.write(schema_text())
    return 0


def _run_build(args: argparse.Namespace) -> int:
    from sandkit.compiler.command import build

    return build(args)


def _run_lint(args: argparse.Namespace) -> int:
    from sandkit.lint.command import run

    return run(args)


def _run_rules(args: argparse.Namespace) -> int:
    from sandkit.lint.command import run_rules

    return run_rules(args)


def _run_explain(args: argparse.Namespace) -> int:
    from sandkit.lint.command import run_explain

    return run_explain(args)


def _add_root(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--root",
        default=None,
        metavar="DIR",
        help="the folder kits may read files from (default: each kit's git top level, or its folder outside git)",
    )


def _add_build(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("build", help="compile kits into sandbox artefacts")
    p.add_argument("kits", nargs="+", metavar="KIT", help="kit files, or directories of kits")
    p.add_argument(
        "-o",
        "--output",
        default="sandbox",
        metavar="DIR",
        help="output folder; each kit gets DIR/NAME/ (default: sandbox)",
    )
    p.add_argument(
        "--target",
        default=None,
        metavar="LIST",
        help="comma-separated targets (default: every target that is available)",
    )
    p.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 with a diff when the output on disk is stale"
    )
    p.add_argument(
        "--strict", action="store_true", help="fail when a requested setting is unsupported by a requested target"
    )
    p.add_argument(
        "--actions-dir",
        default=None,
        metavar="DIR",
        help="also write the actions workflow into DIR (e.g. .github/workflows)",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="do not print the fidelity table")
    _add_root(p)
    p.set_defaults(run=_run_build)


def _add_lint(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from sandkit.lint.arguments import add_lint_arguments

    p = sub.add_parser("lint", help="scan a repository for what breaks a sandbox")
    add_lint_arguments(p)
    p.set_defaults(run=_run_lint)
    r = sub.add_parser("rules", help="list the linter's rules")
    r.add_argument("--format", choices=["text", "json"], default="text")
    r.set_defaults(run=_run_rules)
    e = sub.add_parser("explain", help="show the documentation of a lint rule")
    e.add_argument("rule", metavar="ID")
    e.set_defaults(run=_run_explain)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sandkit",
        description="Run AI coding agents unattended, safely: kits in, sandboxes out.",
    )
    parser.add_argument("--version", action="version", version=f"sandkit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    v = sub.add_parser("validate", help="check kits and report every problem with its place")
    v.add_argument("kits", nargs="+", metavar="KIT", help="kit files, or directories of kits")
    v.add_argument("-q", "--quiet", action="store_true", help="print only problems")
    _add_root(v)
    v.set_defaults(run=_run_validate)

    i = sub.add_parser("init", help="write a new, commented kit")
    i.add_argument("path", nargs="?", default="sandkit.yaml", metavar="PATH")
    i.add_argument(
        "--preset", default=None, metavar="NAME", help="start from a bundled agent preset (claude-code, codex, ...)"
    )
    i.add_argument("--force", action="store_true", help="overwrite an existing file")
    i.set_defaults(run=_run_init)

    s = sub.add_parser("schema", help="print the kit JSON Schema")
    s.set_defaults(run=_run_schema)

    _add_build(sub)
    _add_lint(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help/--version
        return int(exc.code or 0)
    run: Runner | None = getattr(args, "run", None)
    if run is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return run(args)
    except SandkitError as exc:
        print(str(exc), file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
