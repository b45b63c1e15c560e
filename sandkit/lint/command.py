"""``sandkit lint``, ``sandkit rules`` and ``sandkit explain``: arguments in, exit code out."""

from __future__ import annotations

import argparse
import json
import os
import sys

from sandkit import __version__
from sandkit.errors import SandkitError
from sandkit.lint.config import LintConfig, find_config, load_config
from sandkit.lint.discovery import PathPatterns
from sandkit.lint.model import Finding, at_least
from sandkit.lint.registry import Rule, all_rules, find_rule


def _split(value: str | None) -> tuple[str, ...]:
    return tuple(v.strip() for v in (value or "").split(",") if v.strip())


def rule_matches(rule: Rule, key: str) -> bool:
    """A key names a rule by ID, ID prefix ("RS"), name or category."""
    return (
        key.upper() == rule.id
        or (key.isalpha() and key.isupper() and rule.id.startswith(key))
        or key in (rule.name, rule.category)
    )


def select_rules(rules: list[Rule], select: tuple[str, ...], ignore: tuple[str, ...]) -> list[Rule]:
    chosen = [r for r in rules if not select or any(rule_matches(r, k) for k in select)]
    return [r for r in chosen if not any(rule_matches(r, k) for k in ignore)]


def _fail(message: str) -> int:
    print(message, file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    targets = list(args.paths) or ["."]
    for target in targets:
        if not os.path.exists(target):
            return _fail(f"{target}: error: no such file or folder")
    root = targets[0] if len(targets) == 1 and os.path.isdir(targets[0]) else "."
    try:
        config = load_config(args.config) if args.config else _found_config(root)
        return _lint(args, targets, root, config)
    except SandkitError as exc:
        return _fail(str(exc))
    except OSError as exc:  # --output or --write-baseline cannot be written
        return _fail(f"{exc.filename or 'sandkit'}: error: {exc.strerror or exc}")


def _found_config(root: str) -> LintConfig:
    path = find_config(root)
    return load_config(path) if path else LintConfig()


def _lint(args: argparse.Namespace, targets: list[str], root: str, config: LintConfig) -> int:
    from sandkit.lint.baseline import read_baseline, write_baseline
    from sandkit.lint.engine import ScanOptions, scan
    from sandkit.lint.reporters import Report, render
    from sandkit.lint.source import RuleSettings

    rules = all_rules()
    select = _split(args.select) or config.select
    ignore = _split(args.ignore) + config.ignore
    for key in (*select, *ignore):
        if not any(rule_matches(r, key) for r in rules):
            where = "--select/--ignore" if key in _split(args.select) + _split(args.ignore) else str(config.path)
            raise SandkitError(f"{where}: error: '{key}' matches no rule ID, name or category")
    active = select_rules(rules, select, ignore)
    options = ScanOptions(tuple(r.id for r in active), RuleSettings(config.extra_secret_patterns), config.max_file_size)
    prefix = _config_prefix(config, root)
    excluded = PathPatterns(config.exclude, prefix)
    result = scan(targets, root, options, excluded, args.jobs)
    _say_excluded_targets(targets, root, excluded, config)
    findings = _drop_per_path(result.findings, config.per_path_ignores, rules, prefix)
    if args.write_baseline:
        write_baseline(args.write_baseline, findings)
        print(f"sandkit: wrote {len(findings)} fingerprints to {args.write_baseline}", file=sys.stderr)
        return 2 if result.crashes else 0
    baselined = 0
    if args.baseline:
        known_prints = read_baseline(args.baseline)
        kept = [f for f in findings if f.fingerprint not in known_prints]
        baselined, findings = len(findings) - len(kept), kept
    report = Report(findings, rules, files=result.files, baselined=baselined, tool_version=__version__)
    _write(render(report, args.format), args.output)
    for crash in result.crashes:
        print(f"sandkit: internal error: {crash}", file=sys.stderr)
    if result.crashes:
        return 2
    fail_on = args.fail_on or config.fail_on
    return 1 if any(at_least(f.severity, fail_on) for f in findings) else 0


def _say_excluded_targets(targets: list[str], root: str, excluded: PathPatterns, config: LintConfig) -> None:
    """A path given on the command line but excluded by the config is skipped: say so, never silently."""
    for target in targets:
        rel = os.path.relpath(os.path.abspath(target), os.path.abspath(root)).replace(os.sep, "/")
        if not rel.startswith("..") and excluded.match("" if rel == "." else rel):
            print(f"sandkit: {target} is excluded by {config.path} (exclude); nothing scanned there", file=sys.stderr)


def _config_prefix(config: LintConfig, root: str) -> str:
    """The scan root's path from the config file's folder (config globs are relative to it)."""
    if not config.path:
        return ""
    prefix = os.path.relpath(os.path.abspath(root), os.path.dirname(os.path.abspath(config.path)))
    return "" if prefix.startswith("..") else prefix.replace(os.sep, "/")


def _drop_per_path(
    findings: list[Finding], per_path: dict[str, tuple[str, ...]], rules: list[Rule], prefix: str
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


def _write(text: str, output: str | None) -> None:
    if output:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)


def run_rules(args: argparse.Namespace) -> int:
    rules = all_rules()
    if args.format == "json":
        entries = [
            {
                "id": r.id,
                "name": r.name,
                "category": r.category,
                "severity": r.severity,
                "kinds": sorted(r.kinds),
                "summary": r.summary,
                "fix": r.fix,
            }
            for r in rules
        ]
        sys.stdout.write(json.dumps(entries, indent=2) + "\n")
        return 0
    for r in rules:
        sys.stdout.write(f"{r.id}  {r.severity:<8}  {r.category:<18}  {r.name}: {r.summary}\n")
    return 0


def run_explain(args: argparse.Namespace) -> int:
    found = find_rule(args.rule)
    if found is None:
        return _fail(f"sandkit: error: no rule '{args.rule}' (see `sandkit rules`)")
    kinds = ", ".join(sorted(found.kinds)) or "(reported by the engine)"
    sys.stdout.write(
        f"{found.id} {found.name}\ncategory: {found.category}; default severity: "
        f"{found.severity}; files: {kinds}\n\n{found.doc.strip()}\n"
    )
    return 0
