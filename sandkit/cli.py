"""The ``sandkit`` command line.

Each sub-command imports its machinery only when it runs, so that ``sandkit --version`` and
``sandkit validate`` stay fast (no jinja2, no compiler target, no linter).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from sandkit import __version__
from sandkit.errors import SandkitError, UsageError

if TYPE_CHECKING:
    import argparse

    Runner = Callable[[argparse.Namespace], int]


def _run_validate(args: argparse.Namespace) -> int:
    from sandkit.kits.commands import validate

    return validate(args.kits, quiet=args.quiet, root=args.root, fmt=args.format, stdin_filename=args.stdin_filename)


def _run_init(args: argparse.Namespace) -> int:
    from sandkit.kits.init import init

    return init(args.path, preset=args.preset, force=args.force)


def _run_schema(args: argparse.Namespace) -> int:
    from sandkit.kits.schema import schema_text

    sys.stdout.write(schema_text())
    return 0


def _run_build(args: argparse.Namespace) -> int:
    from sandkit.compiler.command import build

    _build_settings_from_config(args)
    return build(args)


def _build_settings_from_config(args: argparse.Namespace) -> None:
    """Kits and output folder from ``[tool.sandkit]`` (or .sandkit.toml) where the command line
    gives none, so the pre-commit hook `sandkit build --check` works without arguments."""
    if args.kits and args.output is not None:
        return
    from sandkit.config import LintConfig, find_config, load_config

    found = find_config(".")
    config = load_config(found) if found else LintConfig()
    if not args.kits:
        if not config.kits:
            where = found or "pyproject.toml [tool.sandkit] or .sandkit.toml"
            raise UsageError(f"sandkit build: error: no kits given: name kit files or folders, or set kits in {where}")
        args.kits = [config.relative(k) for k in config.kits]
    if args.output is None:
        args.output = config.relative(config.output) if config.output else "sandbox"


def _run_lint(args: argparse.Namespace) -> int:
    from sandkit.lint.command import run

    return run(args)


def _run_rules(args: argparse.Namespace) -> int:
    from sandkit.lint.catalogue import run_rules

    return run_rules(args)


def _run_explain(args: argparse.Namespace) -> int:
    from sandkit.lint.catalogue import run_explain

    return run_explain(args)


def _add_root(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--root",
        default=None,
        metavar="DIR",
        help="the folder kits may read files from (default: each kit's git top level, or its folder outside git)",
    )


def _run_completion(args: argparse.Namespace) -> int:
    from sandkit.completion import script

    sys.stdout.write(script(build_parser(), args.shell))
    return 0


if TYPE_CHECKING:
    Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]


def _command(sub: Subparsers, name: str, help_text: str, run: Runner) -> argparse.ArgumentParser:
    """A sub-command; abbreviated long flags are refused, so scripts keep working as flags are added."""
    p = sub.add_parser(name, help=help_text, description=help_text, allow_abbrev=False, formatter_class=_formatter())
    p.set_defaults(run=run)
    return p


def _run_import(args: argparse.Namespace) -> int:
    from sandkit.importer.command import run

    return run(args)


def _add_import(sub: Subparsers) -> None:
    p = _command(
        sub,
        "import",
        "make a kit from a Docker Sandboxes spec.yaml (schemaVersion 2, with its files/ folder) or a "
        "devcontainer.json (with its compose file); every setting with no kit equivalent is reported, on stderr "
        "and at the top of the kit",
        _run_import,
    )
    p.add_argument("file", metavar="FILE", help="spec.yaml, devcontainer.json, or a folder holding one")
    p.add_argument(
        "-o", "--output", default="sandkit.yaml", metavar="KIT", help="the kit to write (default: sandkit.yaml)"
    )
    p.add_argument(
        "--extends",
        action="append",
        default=[],
        metavar="PRESET",
        help="add a preset (or kit file) to extends, e.g. the agent a dev container should run (repeatable)",
    )
    p.add_argument("--force", action="store_true", help="overwrite the kit and its files if they exist")
    _add_root(p)


def _add_build(sub: Subparsers) -> None:
    p = _command(sub, "build", "compile kits into sandbox artefacts", _run_build)
    p.add_argument(
        "kits",
        nargs="*",
        metavar="KIT",
        help="kit files, or directories of kits (default: `kits` in [tool.sandkit] of pyproject.toml or .sandkit.toml)",
    )
    p.add_argument(
        "-o",
        "--output",
        default=None,
        metavar="DIR",
        help="output folder; each kit gets DIR/NAME/ (default: output under [tool.sandkit], else sandbox)",
    )
    p.add_argument(
        "--target",
        default=None,
        metavar="LIST",
        help="comma-separated targets (default: every target that is available)",
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 with a diff when the output on disk is stale"
    )
    mode.add_argument(
        "--dry-run",
        action="store_true",
        help="write nothing; list every file the build would create, update, rewrite unchanged or remove",
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
    p.add_argument("-q", "--quiet", action="store_true", help="do not print the fidelity report")
    p.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="print every setting of the fidelity report, not only those some target does not fully enforce",
    )
    _add_root(p)


def _run_summary(args: argparse.Namespace) -> int:
    from sandkit.review.summary import run_summary

    return run_summary(args)


def _run_diff(args: argparse.Namespace) -> int:
    from sandkit.review.diff import run_diff

    return run_diff(args)


def _add_review(sub: Subparsers) -> None:
    from sandkit.review.arguments import add_diff_arguments, add_summary_arguments

    add_summary_arguments(
        _command(
            sub, "summary", "one kit's policy on a page: reach, secrets, triggers, writes, enforcement", _run_summary
        )
    )
    add_diff_arguments(
        _command(sub, "diff", "the policy changes of kits between two git revisions, with risk levels", _run_diff)
    )


def _add_lint(sub: Subparsers) -> None:
    from sandkit.lint.arguments import add_lint_arguments

    add_lint_arguments(_command(sub, "lint", "scan a repository for what breaks a sandbox", _run_lint))


def _add_rules(sub: Subparsers) -> None:
    r = _command(sub, "rules", "list the linter's rules", _run_rules)
    r.add_argument(
        "--category", default=None, metavar="LIST", help="comma-separated categories to list (any case; default: all)"
    )
    r.add_argument(
        "--output-format",
        "--format",
        dest="format",
        choices=["text", "json", "markdown"],
        default="text",
        help="text (default), json, or markdown (the table in docs/lint.md)",
    )


def _add_explain(sub: Subparsers) -> None:
    e = _command(sub, "explain", "show the documentation of lint rules", _run_explain)
    e.add_argument("rules", nargs="+", metavar="RULE", help="a rule ID, ID prefix, rule name or category (any case)")


def _add_validate(sub: Subparsers) -> None:
    v = _command(sub, "validate", "check kits and report every problem with its place", _run_validate)
    v.add_argument(
        "kits", nargs="+", metavar="KIT", help="kit files, or directories of kits; - reads one kit from standard input"
    )
    v.add_argument("-q", "--quiet", action="store_true", help="print only problems")
    _add_root(v)
    v.add_argument(
        "--output-format",
        "--format",
        dest="format",
        choices=["text", "json"],
        default="text",
        help="text (default), or json: every kit with its problems, on standard output",
    )
    v.add_argument(
        "--stdin-filename",
        default=None,
        metavar="PATH",
        help="with -: the kit's path (for messages, and what its relative extends and files are read from)",
    )


def _add_init(sub: Subparsers) -> None:
    i = _command(sub, "init", "write a new, commented kit", _run_init)
    i.add_argument("path", nargs="?", default="sandkit.yaml", metavar="PATH")
    i.add_argument(
        "--preset", default=None, metavar="NAME", help="start from a bundled agent preset (claude-code, codex, ...)"
    )
    i.add_argument("--force", action="store_true", help="overwrite an existing file")


def _add_schema(sub: Subparsers) -> None:
    _command(sub, "schema", "print the kit JSON Schema", _run_schema)


def _add_verify(sub: Subparsers) -> None:
    from sandkit.verify.command import add_arguments, run

    add_arguments(_command(sub, "verify", "probe a running sandbox from inside: does what the kit says hold?", run))


def _run_record(args: argparse.Namespace) -> int:
    from sandkit.record import run

    return run(args)


def _add_record(sub: Subparsers) -> None:
    p = _command(
        sub,
        "record",
        "read a session record: what a sandbox reached, was refused and why, grouped by host",
        _run_record,
    )
    p.add_argument(
        "source",
        metavar="SOURCE",
        help="a session's file (session-*.jsonl), a folder of them, or a compiled compose sandbox (sandbox/KIT), "
        "whose record volume is read through docker",
    )
    p.add_argument(
        "-p", "--project", default=None, metavar="NAME", help="with a sandbox: its compose project (default: its name)"
    )
    p.add_argument(
        "--session",
        default="latest",
        metavar="ID",
        help="which session: its id (or a unique start of it), latest (default) or all",
    )
    p.add_argument(
        "--output-format",
        "--format",
        dest="format",
        choices=["text", "json"],
        default="text",
        help="text (default), or json: each session with its hosts and problems, on standard output",
    )


def _add_completion(sub: Subparsers) -> None:
    c = _command(sub, "completion", "print a shell completion script (bash, zsh or fish)", _run_completion)
    c.add_argument("shell", choices=["bash", "zsh", "fish"], help="the shell to complete sandkit in")


#: The sub-commands in the order ``sandkit --help`` lists them, with what adds each group.
_SUBCOMMANDS: tuple[tuple[tuple[str, ...], Callable[[Subparsers], None]], ...] = (
    (("validate",), _add_validate),
    (("init",), _add_init),
    (("schema",), _add_schema),
    (("build",), _add_build),
    (("import",), _add_import),
    (("lint",), _add_lint),
    (("rules",), _add_rules),
    (("explain",), _add_explain),
    (("summary", "diff"), _add_review),
    (("verify",), _add_verify),
    (("record",), _add_record),
    (("completion",), _add_completion),
)


def _formatter() -> type[argparse.HelpFormatter]:
    """argparse's help formatter, measuring the terminal as ``shutil.get_terminal_size`` does
    without importing shutil (and the bz2 and lzma modules it brings): argparse builds a
    formatter for every argument it adds, so every run paid that import, a few ms of a
    pre-commit run. Made when a parser is first built, as argparse is imported then."""
    global _formatter_class
    if _formatter_class is None:
        import argparse

        class HelpFormatter(argparse.HelpFormatter):
            def __init__(
                self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None
            ):
                super().__init__(prog, indent_increment, max_help_position, _columns() - 2 if width is None else width)

        _formatter_class = HelpFormatter
    return _formatter_class


_formatter_class: type[argparse.HelpFormatter] | None = None


def _columns() -> int:
    """$COLUMNS when it is a positive number, else the width of the terminal on standard output, else 80."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns > 0:
        return columns
    try:
        columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        columns = 0
    return columns if columns > 0 else 80


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line; given a sub-command's name, with that sub-command's group only (what
    :func:`main` parses with: building every sub-command's arguments, and importing what they
    need, was a good part of a pre-commit ``sandkit lint``'s start)."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="sandkit",
        description="Run AI coding agents unattended, safely: kits in, sandboxes out.",
        allow_abbrev=False,
        formatter_class=_formatter(),
    )
    parser.add_argument("-V", "--version", action="version", version=f"sandkit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for names, add in _SUBCOMMANDS:
        if command is None or command in names:
            add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    named = words[0] if words and any(words[0] in names for names, _ in _SUBCOMMANDS) else None
    parser = build_parser(named)  # an unknown word gets the whole parser, and its list of commands
    try:
        args = parser.parse_args(words)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help/--version
        return int(exc.code or 0)
    if getattr(args, "run", None) is None:
        parser.print_help(sys.stderr)
        return 2
    run: Runner = args.run
    try:
        code = run(args)
        sys.stdout.flush()  # a reader that went away shows here, not after the exit code is decided
        return code
    except SandkitError as exc:
        print(str(exc), file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return _broken_pipe()


#: New objects between two runs of the collector's youngest generation (Python's default: 700).
COLLECT_AFTER = 20_000


def entry(argv: Sequence[str] | None = None) -> int:
    """The ``sandkit`` program (console script and ``python -m sandkit``): :func:`main` in a
    process of its own, set up for a short life.

    - The collector runs after ``COLLECT_AFTER`` new objects rather than 700. A run's imports made
      it run some twenty times over classes and functions that live to the end (2 ms of a
      pre-commit lint); a long scan still collects, with the same work per object.
    - At exit the interpreter collects every reference cycle it can, which for the classes and
      functions a run has imported means freeing them one by one: a fifth of a pre-commit lint's
      CPU time. Frozen objects are left out of collections (``gc.freeze``), so the process ends
      without freeing them. Nothing depends on their collection: the commands close what they
      write before returning, and the standard streams are flushed at exit all the same.

    Callers of :func:`main` in a longer-lived process keep their collector as it was.
    """
    import gc

    gc.set_threshold(COLLECT_AFTER, *gc.get_threshold()[1:])
    code = main(argv)
    gc.freeze()
    return code


def _broken_pipe() -> int:
    """The reader of standard output went away (``| head -1``): not a success, and no traceback.

    Exit 141, what a shell reports for a command a broken pipe ended (128 + SIGPIPE), so that
    ``set -o pipefail`` and CI see it; standard output goes to /dev/null so that Python's own
    flush at exit cannot fail again.
    """
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 141


if __name__ == "__main__":
    sys.exit(entry())
