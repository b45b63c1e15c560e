"""``--fix`` and ``--diff``: apply the rules' fixers file by file, until nothing is left to fix.

Only findings that would be reported are fixed (suppressions, per-path ignores, the baseline
and ``--min-severity`` apply first). Each file is checked again after every round of edits, so
a fix counts only when it is made, and a round whose edits would break the file (a parse error
it did not have) is undone with a note. Files are read whole and strictly as UTF-8 (anything
else is left alone), and written atomically with their mode kept, only inside the scan root
(or when named on the command line), and only when their bytes are still those that were read.
"""

from __future__ import annotations

import difflib
import os
import re
import stat
import tempfile
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from sandkit.lint.discovery import Candidate, in_dependency
from sandkit.lint.engine import scan_bytes, source_of
from sandkit.lint.engine_rules import PARSE_ERROR
from sandkit.lint.lockfiles import LockedVersions
from sandkit.lint.model import Edit, Finding
from sandkit.lint.registry import Fixer, fixer_for

if TYPE_CHECKING:
    from sandkit.lint.command import Lint

MAX_ROUNDS = 8


class FixOutcome:
    """The patch of a fix run, and how many fixes it made in how many files (added up as files are fixed)."""

    __slots__ = ("diff", "files", "fixed")

    def __init__(self) -> None:
        self.diff = ""
        self.fixed = 0
        self.files = 0


def apply_edits(text: str, edits: Sequence[Edit]) -> tuple[str, int]:
    """``text`` with ``edits`` made; an edit overlapping one before it is left out. Returns the
    text and how many edits were made."""
    out: list[str] = []
    position = 0
    made = 0
    for edit in sorted(set(edits)):
        if edit.start < position or not 0 <= edit.start <= edit.end <= len(text):
            continue
        out += [text[position : edit.start], edit.text]
        position = edit.end
        made += 1
    out.append(text[position:])
    return "".join(out), made


def fix_text(lint: Lint, rel: str, text: str, context: LockedVersions) -> tuple[str, int]:
    """The fixed text of the file ``rel`` and how many findings its fixes addressed."""
    options = lint.options()
    dependency = in_dependency(rel)
    current, previous, fixed, made = text, text, 0, 0
    broken: int | None = None
    for round_number in range(MAX_ROUNDS + 1):
        data = current.encode("utf-8")
        result = scan_bytes(rel, data, lint.root, options, in_dependency=dependency)
        shown, _ = lint.shown(result.findings)
        parse_errors = sum(1 for f in result.findings if f.rule == PARSE_ERROR.id)
        if broken is None:
            broken = parse_errors
        elif parse_errors > broken:
            context.note(f"{rel}: a fix would make the file unreadable; that fix was not made")
            return previous, fixed - made
        by_fixer: dict[Fixer, list[Finding]] = {}
        for finding in shown:
            if (fixer := fixer_for(finding.rule)) is not None:
                by_fixer.setdefault(fixer, []).append(finding)
        if not by_fixer or round_number == MAX_ROUNDS:
            break
        source = source_of(Candidate(os.path.join(lint.root, rel), rel, dependency), data, options)
        edits = [edit for fixer, findings in by_fixer.items() for edit in fixer(source, findings, context)]
        previous = current
        current, made = apply_edits(current, edits)
        if not made or current == previous:
            break
        fixed += made
    return current, fixed


def fix_files(lint: Lint, findings: list[Finding], targets: list[str], *, write: bool) -> FixOutcome:
    """Fix every file that has a finding a fixer repairs; write them, or only diff them.

    A file is changed when it is inside the scan root or was named on the command line.
    """
    context = LockedVersions(lint.root, lint.note)
    outcome = FixOutcome()
    root_real = os.path.realpath(lint.root)
    named = {os.path.realpath(t) for t in targets if os.path.isfile(t)}
    for rel in sorted({f.path for f in findings if fixer_for(f.rule) is not None}):
        path = os.path.realpath(os.path.join(lint.root, rel))
        if path not in named and not path.startswith(root_real.rstrip(os.sep) + os.sep):
            lint.note(f"{rel}: outside the scan root; not fixed")
            continue
        original = _read_whole(path, lint.options().max_bytes, rel, lint.note)
        if original is None:
            continue
        text, fixed = fix_text(lint, rel, original.decode("utf-8"), context)
        if not fixed:
            continue
        outcome.diff += unified_diff(rel, original.decode("utf-8"), text)
        if write and not _replace(path, original, text.encode("utf-8"), rel, lint.note):
            continue
        outcome.fixed += fixed
        outcome.files += 1
    return outcome


def fix_stdin(lint: Lint, rel: str, raw: bytes) -> tuple[bytes, str, int]:
    """(fixed bytes, diff, number fixed) for a text read from standard input."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        lint.note(f"{rel}: not UTF-8 text; not fixed")
        return raw, "", 0
    if len(raw) > lint.options().max_bytes:
        lint.note(f"{rel}: larger than max-file-size; not fixed")
        return raw, "", 0
    fixed_text, fixed = fix_text(lint, rel, text, LockedVersions(lint.root, lint.note))
    return fixed_text.encode("utf-8"), unified_diff(rel, text, fixed_text), fixed


def _read_whole(path: str, max_bytes: int, rel: str, note: Callable[[str], None]) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        note(f"{rel}: cannot read it to fix it: {exc.strerror}")
        return None
    if len(data) > max_bytes:
        note(f"{rel}: larger than max-file-size; not fixed")
        return None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        note(f"{rel}: not UTF-8 text; not fixed")
        return None
    return data


def _replace(path: str, original: bytes, data: bytes, rel: str, note: Callable[[str], None]) -> bool:
    """Write ``data`` over ``path`` atomically, unless the file changed since it was read."""
    try:
        with open(path, "rb") as handle:
            if handle.read(len(original) + 1) != original:
                note(f"{rel}: changed while it was being fixed; not written")
                return False
        mode = stat.S_IMODE(os.stat(path).st_mode)
        handle_fd, temporary = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", dir=os.path.dirname(path))
        try:
            with os.fdopen(handle_fd, "wb") as stream:
                stream.write(data)
            os.chmod(temporary, mode)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError as exc:
        note(f"{rel}: cannot write the fix: {exc.strerror}")
        return False
    return True


def _lines(text: str) -> list[str]:
    """Lines split at "\\n" only (``splitlines`` also splits at U+2028 and friends, which a
    patch tool does not)."""
    return [line for line in re.split(r"(?<=\n)", text) if line]


def unified_diff(rel: str, before: str, after: str) -> str:
    """A patch ``patch -p1`` or ``git apply`` can apply, in git's notation for a missing final newline."""
    out = []
    for line in difflib.unified_diff(_lines(before), _lines(after), f"a/{rel}", f"b/{rel}"):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)
