"""``sandkit diff [BASE] [HEAD] [PATH...]``: what a change does to each kit's sandbox, and how risky.

BASE defaults to the merge base of HEAD with the default branch, HEAD to the working tree
(``--staged``: the index, compared with the HEAD commit). ``A...B`` as BASE compares B with the
merge base of A and B, as ``git diff`` does. Kits are paired by path; a kit removed at one path
and added with the same name at another is one kit that moved.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path

from sandkit.errors import UsageError
from sandkit.review.changes import Change, added_kit_baseline, compare
from sandkit.review.revisions import Loaded, Repository, Side, below
from sandkit.review.risks import fails, highest


@dataclass
class KitDiff:
    """One kit's changes; ``status`` is changed, unchanged, added, removed, moved or invalid."""

    path: str
    name: str
    status: str
    changes: list[Change] = field(default_factory=list)
    base_path: str | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def highest(self) -> str | None:
        return highest([c.risk.level for c in self.changes])


@dataclass
class DiffReport:
    base: Side
    head: Side
    kits: list[KitDiff]

    @property
    def highest(self) -> str | None:
        return highest([c.risk.level for k in self.kits for c in k.changes])

    def count(self, level: str) -> int:
        return sum(1 for k in self.kits for c in k.changes if c.risk.level == level)


def _split(repo: Repository, arguments: list[str], staged: bool) -> tuple[list[str], list[str]]:
    """Leading arguments that name commits are revisions (at most two, one with --staged); the rest paths."""
    revisions: list[str] = []
    limit = 1 if staged else 2
    for argument in arguments:
        if len(revisions) == limit or not (repo.commit(argument) or _range(argument)):
            break
        if Path(argument).exists():
            raise UsageError(f"{argument} is both a revision and a path; write ./{argument} for the path")
        revisions.append(argument)
    paths = arguments[len(revisions) :]
    if any(_range(r) for r in revisions) and len(revisions) > 1:
        raise UsageError("A...B already names both sides; give no second revision")
    return revisions, [repo.repo_path(p) for p in paths]


def _range(argument: str) -> tuple[str, str] | None:
    first, dots, second = argument.partition("...")
    return (first or "HEAD", second or "HEAD") if dots else None


def _sides(repo: Repository, revisions: list[str], staged: bool) -> tuple[Side, Side]:
    if revisions and (pair := _range(revisions[0])):
        first, second = (_need_commit(repo, r) for r in pair)
        base = repo.merge_base(first, second)
        return (
            repo.commit_side(base, f"{base[:12]} (the merge base of {pair[0]} and {pair[1]})"),
            repo.commit_side(second, f"{second[:12]} ({pair[1]})"),
        )
    head = repo.index_side() if staged else None
    if len(revisions) == 2:
        commit = _need_commit(repo, revisions[1])
        head = repo.commit_side(commit, f"{commit[:12]} ({revisions[1]})")
    elif head is None:
        head = repo.worktree_side()
    if revisions:
        commit = _need_commit(repo, revisions[0])
        return repo.commit_side(commit, f"{commit[:12]} ({revisions[0]})"), head
    current = repo.commit("HEAD")
    if current is None:
        return repo.empty_side("nothing (the repository has no commit yet)"), head
    if staged:
        return repo.commit_side(current, f"{current[:12]} (HEAD)"), head
    branch = repo.default_branch()
    base = repo.merge_base(current, _need_commit(repo, branch))
    return repo.commit_side(base, f"{base[:12]} (the merge base of HEAD and {branch})"), head


def _check_paths(arguments: list[str], filters: list[str], base: Side, head: Side) -> None:
    """A path that names nothing on either side is a mistyped revision or path, not an empty diff."""
    for argument, wanted in zip(arguments, filters, strict=True):
        if not any(below(name, [wanted]) for side in (base, head) for name in side.names):
            raise UsageError(f"{argument}: neither a revision nor a path in {base.label} or {head.label}")


def _need_commit(repo: Repository, spec: str) -> str:
    commit = repo.commit(spec)
    if commit is None:
        raise UsageError(f"{spec}: not a revision of this repository")
    return commit


def _load_all(side: Side, filters: list[str]) -> dict[str, Loaded]:
    found = {}
    for rel in side.kit_paths(filters):
        loaded = side.load(rel)
        if loaded is not None:
            found[rel] = loaded
    return found


def _kit_diff(path: str, base: Loaded | None, head: Loaded | None) -> KitDiff:
    if head is None:
        assert base is not None
        name = base.policy.name if base.policy else ""
        return KitDiff(path, name, "removed", [Change("kit-removed", "kit", "{} is no longer a kit", (path,))])
    if head.policy is None:
        still = base is not None and base.policy is None and base.problem_key == head.problem_key
        kind, message = (
            ("kit-still-invalid", "{} did not load before either") if still else ("kit-invalid", "{} does not load")
        )
        change = Change(kind, "kit", message, (path,))
        return KitDiff(path, "", "invalid", [change], problems=head.problems)
    policy = head.policy
    if base is None or base.policy is None:
        changes = [Change("kit-added", "kit", "{} is a new kit", (path,))] if base is None else []
        if base is not None:
            changes.append(Change("kit-invalid-in-base", "kit", "{} did not load before", (path,)))
        changes += compare(added_kit_baseline(policy), policy)
        status = "added" if base is None else "changed"
        return KitDiff(path, policy.name, status, changes, problems=base.problems if base else [])
    changes = compare(base.policy, policy)
    return KitDiff(path, policy.name, "changed" if changes else "unchanged", changes)


def _moves(before: dict[str, Loaded], after: dict[str, Loaded]) -> dict[str, str]:
    """New path -> old path, for kits that left one path and arrived at another under the same name."""
    gone = {k.policy.name: p for p, k in before.items() if p not in after and k.policy}
    moved: dict[str, str] = {}
    for path, kit in after.items():
        if path not in before and kit.policy and kit.policy.name in gone:
            moved[path] = gone.pop(kit.policy.name)
    return moved


def diff_sides(base: Side, head: Side, filters: list[str]) -> DiffReport:
    before, after = _load_all(base, filters), _load_all(head, filters)
    moves = _moves(before, after)
    kits: list[KitDiff] = []
    for path in sorted(before.keys() | after.keys()):
        if path in moves.values():
            continue
        if path in moves:
            old = moves[path]
            result = _kit_diff(path, before[old], after[path])
            result.status, result.base_path = "moved", old
            result.changes.insert(0, Change("kit-renamed", "kit", "the kit moved from {} to {}", (old, path)))
        else:
            result = _kit_diff(path, before.get(path), after.get(path))
        kits.append(result)
    return DiffReport(base, head, kits)


def run_diff(args: argparse.Namespace) -> int:
    from sandkit.review.report import render_diff

    repo = Repository(Path.cwd())
    try:
        revisions, filters = _split(repo, list(args.arguments), args.staged)
        base, head = _sides(repo, revisions, args.staged)
        _check_paths(list(args.arguments)[len(revisions) :], filters, base, head)
        report = diff_sides(base, head, filters)
    finally:
        repo.close()
    text = render_diff(report, args.format)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    worst = report.highest
    return 1 if worst is not None and fails(worst, args.fail_on) else 0
