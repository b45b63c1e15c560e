"""``sandkit lint``: arguments in, report out, exit code back.

The steps: resolve the configuration and the rule selection, scan (paths, or one text from
standard input), optionally fix, then filter what is shown (per-path ignores, baseline,
``--min-severity``) and report. Exit 0: nothing at or above ``--fail-on`` (or ``--exit-zero``);
1: findings (or, with ``--diff``, fixes to make); 2: a usage error or an internal error.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from sandkit import __version__
from sandkit.console import Progress, color_enabled
from sandkit.errors import SandkitError, UsageError
from sandkit.lint.arguments import HUMAN_FORMATS
from sandkit.lint.config import LintConfig, find_config, load_config
from sandkit.lint.discovery import AnyOf, Matcher, PathPatterns, in_dependency
from sandkit.lint.model import Finding, at_least
from sandkit.lint.registry import Rule, all_rules
from sandkit.lint.selection import combine, rule_matches, split_list

if TYPE_CHECKING:
    import argparse
    from typing import TextIO

    from sandkit.lint.engine import ScanOptions

STDIN = "-"
UNREADABLE_ID = "SK006"


def _fail(message: str) -> int:
    print(message, file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except SandkitError as exc:
        return _fail(str(exc))
    except OSError as exc:  # --output, --write-baseline or a fixed file cannot be written
        return _fail(f"{exc.filename or 'sandkit'}: error: {exc.strerror or exc}")


def _check_combinations(args: argparse.Namespace) -> None:
    if STDIN in args.paths and len(args.paths) > 1:
        raise UsageError("sandkit lint: error: - reads one file from standard input; give no other path with it")
    if args.stdin_filename and args.paths != [STDIN]:
        raise UsageError("sandkit lint: error: --stdin-filename goes with - (the text read from standard input)")
    if args.statistics:
        from sandkit.lint.reporters.statistics import FORMATS as STATISTICS_FORMATS

        if args.format not in STATISTICS_FORMATS:
            formats = ", ".join(STATISTICS_FORMATS)
            raise UsageError(f"sandkit lint: error: --statistics prints {formats}, not {args.format}")
    if args.write_baseline and (args.fix or args.diff):
        raise UsageError("sandkit lint: error: --write-baseline records findings; run it without --fix or --diff")


class Lint(NamedTuple):
    """One run's settings, resolved from the command line and the configuration."""

    args: argparse.Namespace
    root: str
    config: LintConfig
    rules: list[Rule]
    active: list[Rule]
    prefix: str
    config_exclude: PathPatterns = PathPatterns()
    command_line_exclude: PathPatterns = PathPatterns()
    known_prints: frozenset[str] | None = None
    ignored_by_git: Matcher = PathPatterns()  # --respect-gitignore, folder walks only

    @property
    def human(self) -> bool:
        return self.args.format in HUMAN_FORMATS and not self.args.statistics

    @property
    def exclude(self) -> AnyOf:
        return AnyOf(self.config_exclude, self.command_line_exclude)

    def excluded_by(self, rel: str) -> str | None:
        """Which setting excludes ``rel`` (relative to the root), if one does."""
        if self.command_line_exclude.match(rel):
            return "--exclude/--extend-exclude"
        if self.config_exclude.match(rel):
            return f"{self.config.path} (exclude)"
        return None

    def options(self) -> ScanOptions:
        from sandkit.lint.engine import ScanOptions
        from sandkit.lint.source import RuleSettings

        return ScanOptions(
            tuple(r.id for r in self.active),
            RuleSettings(self.config.extra_secret_patterns, self.args.include_examples or self.config.include_examples),
            self.config.max_file_size,
        )

    def shown(self, findings: list[Finding]) -> tuple[list[Finding], int]:
        """The findings to report, and how many the baseline hid."""
        findings = _drop_per_path(findings, self.config.per_path_ignores, self.rules, self.prefix)
        baselined = 0
        if self.known_prints is not None:
            kept = [f for f in findings if f.fingerprint not in self.known_prints]
            baselined, findings = len(findings) - len(kept), kept
        if self.args.min_severity:
            findings = [f for f in findings if at_least(f.severity, self.args.min_severity)]
        return findings, baselined

    def note(self, message: str) -> None:
        """Something the user should know that is not a finding (on stderr, unless --quiet)."""
        if not self.args.quiet:
            print(f"sandkit: {message}", file=sys.stderr)


def _run(args: argparse.Namespace) -> int:
    _check_combinations(args)
    from_stdin = args.paths == [STDIN]
    targets = [] if from_stdin else (list(args.paths) or ["."])
    for target in targets:
        if not os.path.exists(target):
            return _fail(f"{target}: error: no such file or folder")
    root = targets[0] if len(targets) == 1 and os.path.isdir(targets[0]) else "."
    start = root
    if from_stdin:  # the configuration that applies where the text's file lives
        start = os.path.dirname(args.stdin_filename or "") or "."
    config = load_config(args.config) if args.config else _found_config(start)
    lint = _prepare(args, root, config)
    if from_stdin:
        return _lint_stdin(lint)
    return _lint_paths(lint, targets)


def _found_config(root: str) -> LintConfig:
    path = find_config(root)
    return load_config(path) if path else LintConfig()


def _prepare(args: argparse.Namespace, root: str, config: LintConfig) -> Lint:
    rules = all_rules()
    selectors = combine(
        config.select,
        config.ignore,
        str(config.path),
        args.select,
        args.extend_select,
        args.ignore,
        args.extend_ignore,
    )
    active = selectors.resolve(rules)
    prefix = _config_prefix(config, root)
    configured = [] if args.exclude is not None else list(config.exclude)
    command_line = [*split_list(args.exclude), *split_list(args.extend_exclude)]
    known_prints = None
    if args.baseline:
        from sandkit.lint.baseline import read_baseline

        known_prints = frozenset(read_baseline(args.baseline))
    return Lint(
        args,
        root,
        config,
        rules,
        active,
        prefix,
        PathPatterns(configured, prefix),
        PathPatterns(command_line, _cwd_prefix(root)),
        known_prints,
    )


def _lint_paths(lint: Lint, targets: list[str]) -> int:
    from sandkit.lint.engine import scan

    args = lint.args
    if args.respect_gitignore:
        lint = _skip_git_ignored(lint)
    progress = Progress(sys.stderr, "scanned files:", enabled=lint.human and not args.quiet)
    result = scan(targets, lint.root, lint.options(), lint.exclude, args.jobs, progress.update, lint.ignored_by_git)
    progress.finish()
    _say_excluded_targets(lint, targets)
    if args.write_baseline:
        from sandkit.lint.baseline import write_baseline

        findings = _drop_per_path(result.findings, lint.config.per_path_ignores, lint.rules, lint.prefix)
        write_baseline(args.write_baseline, findings)
        lint.note(f"wrote {len(findings)} fingerprints to {args.write_baseline}")
        return _crashed(result.crashes) or 0
    if args.fix or args.diff:
        from sandkit.lint.fixing import fix_files

        shown, _ = lint.shown(result.findings)
        outcome = fix_files(lint, shown, targets, write=not args.diff)
        if args.diff:
            return _show_diff(lint, outcome.diff, outcome.fixed, outcome.files, result.crashes)
        _say_fixed(lint, outcome.fixed, outcome.files, would=False)
        if outcome.files:
            result = scan(targets, lint.root, lint.options(), lint.exclude, args.jobs, walks_skip=lint.ignored_by_git)
    return _report(lint, result.findings, result.files, result.crashes, result.skipped)


def _skip_git_ignored(lint: Lint) -> Lint:
    """``--respect-gitignore``: folder walks pass over what git ignores under the scan root (files
    named on the command line are read all the same); when git cannot say, nothing is skipped."""
    from sandkit.lint.gitignored import git_ignored

    ignored, why = git_ignored(lint.root)
    if ignored is None:
        lint.note(f"--respect-gitignore: {why}; no file is skipped for it")
        return lint
    return lint._replace(ignored_by_git=ignored)


def _lint_stdin(lint: Lint) -> int:
    """One text from standard input, named by --stdin-filename (its kind and its path in the report)."""
    from sandkit.lint.engine import scan_bytes

    args = lint.args
    options = lint.options()
    raw = sys.stdin.buffer.read(options.max_bytes + 1)
    rel = _stdin_path(args.stdin_filename, lint.root)
    where = lint.excluded_by(rel)
    if where is not None:
        lint.note(f"{args.stdin_filename} is excluded by {where}; nothing checked")
        if args.fix:
            sys.stdout.buffer.write(raw)
        return 0
    result = scan_bytes(rel, raw, lint.root, options, in_dependency=in_dependency(rel))
    if args.fix or args.diff:
        from sandkit.lint.fixing import fix_stdin

        fixed, diff, count = fix_stdin(lint, rel, raw)
        if args.diff:
            return _show_diff(lint, diff, count, 1 if diff else 0, result.crashes)
        sys.stdout.buffer.write(fixed)  # editors replace the buffer with standard output
        sys.stdout.flush()
        _say_fixed(lint, count, 1 if count else 0, would=False)
        result = scan_bytes(rel, fixed, lint.root, options, in_dependency=in_dependency(rel))
        return _report(lint, result.findings, result.files, result.crashes, result.skipped, to_stderr=True)
    return _report(lint, result.findings, result.files, result.crashes, result.skipped)


def _show_diff(lint: Lint, diff: str, fixed: int, files: int, crashes: list[str]) -> int:
    """The patch instead of the report (to --output when given); exit 1 when there is one."""
    _write(diff, lint.args.output)
    _say_fixed(lint, fixed, files, would=True)
    return _crashed(crashes) or (1 if diff and not lint.args.exit_zero else 0)


def _stdin_path(name: str | None, root: str) -> str:
    """The path findings carry: --stdin-filename relative to the root, or "-"."""
    if not name:
        return STDIN
    rel = os.path.relpath(os.path.abspath(name), os.path.abspath(root))
    return (name if rel.startswith("..") else rel).replace(os.sep, "/")


def _report(
    lint: Lint,
    findings: list[Finding],
    files: int,
    crashes: list[str],
    skipped: Sequence[tuple[str, str, int]] = (),
    *,
    to_stderr: bool = False,
) -> int:
    from sandkit.lint.reporters import Report, render

    args = lint.args
    shown, baselined = lint.shown(findings)
    stream = sys.stderr if to_stderr else sys.stdout
    color = lint.human and args.output is None and color_enabled(stream, no_color=args.no_color)
    base = os.path.abspath(args.root or os.curdir)
    shown = [f._replace(path=_report_path(f.path, lint.root, base)) for f in shown]
    report = Report(
        shown,
        lint.rules,
        files=files,
        baselined=baselined,
        tool_version=__version__,
        color=color,
        quiet=args.quiet,
        base=base,
        source_root=_source_root(lint.root),
        skipped=[(_report_path(path, lint.root, base), reason, size) for path, reason, size in skipped],
        max_bytes=lint.config.max_file_size,
    )
    if args.statistics:
        from sandkit.lint.reporters.statistics import render_statistics

        text = render_statistics(report, args.format)
    else:
        text = render(report, args.format)
    _write(text, args.output, stream)
    if crashed := _crashed(crashes):
        return crashed
    if any(f.rule == UNREADABLE_ID for f in shown):
        return 2  # the scan did not see everything it was asked to: an error, not a finding count
    if args.exit_zero:
        return 0
    fail_on = args.fail_on or lint.config.fail_on
    return 1 if any(at_least(f.severity, fail_on) for f in shown) else 0


def _report_path(path: str, root: str, base: str) -> str:
    """A finding's path (relative to the scan root) as the report shows it: relative to ``base``
    (the working folder or --root), or absolute when the two share nothing but "/"."""
    if path == STDIN or os.path.isabs(path):
        return path
    full = os.path.normpath(os.path.join(os.path.abspath(root), path))
    if os.path.commonpath([full, base]) == os.path.dirname(os.sep):
        return full.replace(os.sep, "/")
    return os.path.relpath(full, base).replace(os.sep, "/")


def _source_root(root: str) -> str:
    """The repository's top folder (the nearest folder above the scan root holding .git), which
    SARIF paths are relative to; the scan root itself outside a repository."""
    start = os.path.abspath(root)
    folder = start
    while True:
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return start
        folder = parent


def _crashed(crashes: list[str]) -> int:
    for crash in crashes:
        print(f"sandkit: internal error: {crash}", file=sys.stderr)
    return 2 if crashes else 0


def _say_fixed(lint: Lint, fixed: int, files: int, *, would: bool) -> None:
    if fixed or would:
        verb = "would fix" if would else "fixed"
        lint.note(f"{verb} {fixed} finding{'s' if fixed != 1 else ''} in {files} file{'s' if files != 1 else ''}")


def _say_excluded_targets(lint: Lint, targets: list[str]) -> None:
    """A path given on the command line but excluded is skipped: say so, never silently."""
    for target in targets:
        rel = os.path.relpath(os.path.abspath(target), os.path.abspath(lint.root)).replace(os.sep, "/")
        where = None if rel.startswith("..") else lint.excluded_by("" if rel == "." else rel)
        if where is not None:
            print(f"sandkit: {target} is excluded by {where}; nothing scanned there", file=sys.stderr)


def _config_prefix(config: LintConfig, root: str) -> str:
    """The scan root's path from the config file's folder (config globs are relative to it)."""
    if not config.path:
        return ""
    return _prefix_from(os.path.dirname(os.path.abspath(config.path)), root)


def _cwd_prefix(root: str) -> str:
    """The scan root's path from the working folder (command-line globs are relative to it)."""
    return _prefix_from(os.getcwd(), root)


def _prefix_from(base: str, root: str) -> str:
    prefix = os.path.relpath(os.path.abspath(root), base)
    return "" if prefix.startswith("..") else prefix.replace(os.sep, "/")


def _drop_per_path(
    findings: list[Finding], per_path: Mapping[str, tuple[str, ...]], rules: list[Rule], prefix: str
) -> list[Finding]:
    if not per_path:
        return findings
    by_id = {r.id: r for r in rules}
    globs = [(PathPatterns([glob], prefix), keys) for glob, keys in per_path.items()]
    kept = []
    for f in findings:
        rule = by_id.get(f.rule)
        hidden = rule is not None and any(
            patterns.match(f.path) and any(rule_matches(rule, k) for k in keys) for patterns, keys in globs
        )
        if not hidden:
            kept.append(f)
    return kept


def _write(text: str, output: str | None, stream: TextIO | None = None) -> None:
    """UTF-8 always; a character UTF-8 cannot carry (a lone surrogate from an undecodable file
    name) is written as a backslash escape, which JSON and XML readers take as text."""
    data = text.encode("utf-8", "backslashreplace")
    if output:
        with open(output, "wb") as handle:
            handle.write(data)
        return
    target = stream if stream is not None else sys.stdout
    target.flush()
    buffer = getattr(target, "buffer", None)
    if buffer is None:
        target.write(data.decode("utf-8"))
    else:
        buffer.write(data)
        buffer.flush()
