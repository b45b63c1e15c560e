"""The scan: discover files, read each once, run the rules that want its kind, collect findings.

Small scans run in this process. Large ones (many files, or fewer that hold a lot: lockfiles,
bundles, logs) are split into chunks for a process pool, because parsing is CPU-bound and the GIL
would serialise threads. A chunk ends at a number of files or of bytes, so a large file does not
hold back the files after it, and the largest of the first files go first. Each worker reads,
checks and drops one file at a time, so memory stays flat whatever the size of the tree.
"""

from __future__ import annotations

import functools
import itertools
import os
import stat
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from sandkit.lazy_regex import lazy
from sandkit.lint import engine_rules, kinds
from sandkit.lint.consumers.duplicates import CONSUMER_VERDICT, duplicate_hits
from sandkit.lint.discovery import Candidate, Matcher, discover
from sandkit.lint.grading import graded
from sandkit.lint.kinds import CONTENT_FAMILIES, STRUCTURED, Kind, is_shell_script, kind_by_content
from sandkit.lint.model import Finding, Hit, size_text
from sandkit.lint.registry import Rule, all_rules
from sandkit.lint.source import RuleSettings, SourceFile
from sandkit.lint.suppress import SUPPRESSION_MARK, covers, find_suppressions
from sandkit.lint.syntax.tree import Pos, SyntaxProblem
from sandkit.literal_search import LARGE_TEXT as LARGE_TEXT  # where a file's trigger words take one pass
from sandkit.literal_search import LiteralSet
from sandkit.syntax.tree import MAX_BYTES

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

BINARY_PROBE = 8192
DEFAULT_MAX_BYTES = MAX_BYTES
PARALLEL_THRESHOLD = 400  # files, or
PARALLEL_BYTES = 4_000_000  # bytes among fewer files, that make a process pool worth its start
CHUNK = 50  # files: the last chunks are short, so both workers finish together (200 left one idle for 40 ms)
CHUNK_BYTES = 500_000  # a chunk ends after this much content (a large file is a chunk of its own)
IN_FLIGHT_PER_WORKER = 2  # chunks queued per worker: one being checked, one waiting


class ScanOptions(NamedTuple):
    rules: tuple[str, ...]  # IDs of the rules to run
    settings: RuleSettings = RuleSettings()
    max_bytes: int = DEFAULT_MAX_BYTES


class Skipped(NamedTuple):
    """A file the scan read only in part: a fact about the scan, shown in the report's summary
    (``reason`` is a stable word: ``file-too-large``; ``size`` its bytes on disk)."""

    path: str
    reason: str
    size: int


class FileResult:
    """Findings, internal errors, how many files were read and which were read only in part (of
    one file or a chunk)."""

    __slots__ = ("crashes", "findings", "scanned", "skipped")

    def __init__(
        self, findings: list[Finding] | None = None, crashes: list[str] | None = None, scanned: int = 0
    ) -> None:
        self.findings = findings if findings is not None else []
        self.crashes = crashes if crashes is not None else []
        self.scanned = scanned
        self.skipped: list[Skipped] = []


class ScanResult(NamedTuple):
    findings: list[Finding]
    files: int
    crashes: list[str]
    skipped: Sequence[Skipped] = ()


def scan(
    targets: list[str],
    root: str,
    options: ScanOptions,
    exclude: Matcher | None = None,
    jobs: int | None = None,
    progress: Callable[[int], None] | None = None,
    walks_skip: Matcher | None = None,
) -> ScanResult:
    """Scan ``targets`` and return every finding (suppressions applied, baseline not).

    ``progress`` is called with the number of files read so far, as results come in;
    ``walks_skip`` leaves paths out of folder walks only (files named in ``targets`` are read).
    """
    discovered = discover(targets, root, exclude, walks_skip)
    head = list(itertools.islice(discovered, PARALLEL_THRESHOLD))
    workers = jobs if jobs is not None else (os.cpu_count() or 1)
    sizes = {c.abspath: _size(c, options.max_bytes) for c in head} if workers > 1 else {}
    if workers > 1 and (len(head) >= PARALLEL_THRESHOLD or sum(sizes.values()) >= PARALLEL_BYTES):
        head.sort(key=lambda c: sizes[c.abspath], reverse=True)  # the longest work starts first
        sized = itertools.chain(
            ((c, sizes[c.abspath]) for c in head), ((c, _size(c, options.max_bytes)) for c in discovered)
        )
        results: Iterable[FileResult] = _parallel(_chunks(sized), options, workers)
    else:
        checker = _Checker(options)
        results = (checker.check(c) for c in itertools.chain(head, discovered))
    findings: list[Finding] = []
    crashes: list[str] = []
    skipped: list[Skipped] = []
    files = 0
    for result in results:
        findings.extend(result.findings)
        crashes.extend(result.crashes)
        skipped.extend(result.skipped)
        files += result.scanned
        if progress is not None:
            progress(files)
    # workers finish in any order
    return _with_passes(findings, files, sorted(crashes), root)._replace(skipped=sorted(skipped))


def scan_bytes(path: str, raw: bytes, root: str, options: ScanOptions, *, in_dependency: bool = False) -> ScanResult:
    """Check one file's bytes that are not on disk as such (standard input, a fixed text).

    ``path`` (relative to ``root``) decides the kind and is the path findings carry; the
    repository passes run as in a scan of ``root``.
    """
    result = _Checker(options).check_bytes(Candidate(os.path.join(root, path), path, in_dependency), raw)
    return _with_passes(result.findings, result.scanned, result.crashes, root)._replace(skipped=result.skipped)


def _with_passes(findings: list[Finding], files: int, crashes: list[str], root: str) -> ScanResult:
    """The findings once the repository passes have seen them (a pass works over findings: with
    none there is nothing to pass)."""
    if not findings:
        return ScanResult(findings, files, crashes)
    from sandkit.lint.repository import RepositoryView, run_passes
    from sandkit.lint.rules import FAMILIES

    all_rules()  # the families register their passes
    findings, pass_crashes = run_passes(findings, RepositoryView(root), FAMILIES)
    return ScanResult(findings, files, crashes + pass_crashes)


def _size(candidate: Candidate, max_bytes: int) -> int:
    """The bytes of the file a check reads (0 for what it cannot stat: the check reports that)."""
    try:
        return min(os.stat(candidate.abspath).st_size, max_bytes)
    except (OSError, ValueError):
        return 0


def _chunks(sized: Iterable[tuple[Candidate, int]]) -> Iterator[list[Candidate]]:
    """Candidates in chunks of at most ``CHUNK`` files, each ending once it holds ``CHUNK_BYTES``."""
    chunk: list[Candidate] = []
    total = 0
    for candidate, size in sized:
        chunk.append(candidate)
        total += size
        if len(chunk) >= CHUNK or total >= CHUNK_BYTES:
            yield chunk
            chunk, total = [], 0
    if chunk:
        yield chunk


def _parallel(chunks: Iterator[list[Candidate]], options: ScanOptions, workers: int) -> Iterator[FileResult]:
    """Check chunks in a process pool (``concurrent.futures``) while discovery is still walking
    the tree, results in the order they finish; at most ``IN_FLIGHT_PER_WORKER`` chunks per
    worker are queued, so memory does not grow with the tree and a worker that is done takes the
    next chunk while a long one is still being checked. Workers are forked where the system can
    (they start from this process's imports, the rules already registered), spawned elsewhere.

    A worker that dies (killed, out of memory, a crash in a C extension) breaks the pool; the
    chunks that were queued are then checked again one at a time, each in a pool of its own, so
    only the chunk that kills its worker is lost (an internal error for each of its files).
    """
    import multiprocessing  # with concurrent.futures: only for a large scan

    all_rules()  # once, before the workers start from this process
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    start = functools.partial(_pool, context=multiprocessing.get_context(method), options=options)
    pending: dict[Future[FileResult], list[Candidate]] = {}
    pool = start(workers)
    try:
        for chunk in chunks:
            pending[_submit(pool, chunk)] = chunk
            while len(pending) >= IN_FLIGHT_PER_WORKER * workers:
                results, pool = _finished(pending, pool, start, workers)
                yield from results
        while pending:
            results, pool = _finished(pending, pool, start, workers)
            yield from results
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _pool(workers: int, context: Any, options: ScanOptions) -> ProcessPoolExecutor:
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_start_worker, initargs=(options,))


def _submit(pool: ProcessPoolExecutor, chunk: list[Candidate]) -> Future[FileResult]:
    """The chunk's future; a pool broken since the last result gives a future that says so."""
    from concurrent.futures import Future
    from concurrent.futures.process import BrokenProcessPool

    try:
        return pool.submit(_check_chunk, chunk)
    except BrokenProcessPool as exc:
        broken: Future[FileResult] = Future()
        broken.set_exception(exc)
        return broken


def _finished(
    pending: dict[Future[FileResult], list[Candidate]],
    pool: ProcessPoolExecutor,
    start: Callable[[int], ProcessPoolExecutor],
    workers: int,
) -> tuple[list[FileResult], ProcessPoolExecutor]:
    """The results of the chunks that are done once one is, and the pool to go on with (a fresh
    one once a worker died: then every queued chunk is checked alone, see :func:`_parallel`)."""
    from concurrent.futures import FIRST_COMPLETED, wait
    from concurrent.futures.process import BrokenProcessPool

    done, _ = wait(pending, return_when=FIRST_COMPLETED)
    results: list[FileResult] = []
    for future in done:
        error = future.exception()
        if isinstance(error, BrokenProcessPool):
            pool.shutdown(wait=True, cancel_futures=True)
            suspects = list(pending.values())
            pending.clear()
            return [*results, *(_alone(suspect, start) for suspect in suspects)], start(workers)
        chunk = pending.pop(future)
        if error is None:
            results.append(future.result())
        else:  # a bug in checking: this chunk is lost, not the scan
            results.append(_lost(chunk, f"checking it failed: {type(error).__name__}: {error}"))
    return results, pool


def _alone(chunk: list[Candidate], start: Callable[[int], ProcessPoolExecutor]) -> FileResult:
    """A chunk checked in a pool of one worker of its own (lost if that worker dies too)."""
    from concurrent.futures.process import BrokenProcessPool

    pool = start(1)
    try:
        return pool.submit(_check_chunk, chunk).result()
    except BrokenProcessPool:
        return _lost(chunk, "its worker process ended")
    except Exception as exc:
        return _lost(chunk, f"checking it failed: {type(exc).__name__}: {exc}")
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _merged(results: Iterable[FileResult]) -> FileResult:
    merged = FileResult()
    for result in results:
        merged.findings.extend(result.findings)
        merged.crashes.extend(result.crashes)
        merged.scanned += result.scanned
        merged.skipped.extend(result.skipped)
    return merged


def _lost(chunk: list[Candidate], why: str) -> FileResult:
    """A chunk whose worker could not return it: an internal error for each file (exit code 2)."""
    return FileResult(crashes=[f"{candidate.path}: not checked: {why}" for candidate in chunk])


_worker_checker: _Checker | None = None


def _start_worker(options: ScanOptions) -> None:
    global _worker_checker
    _worker_checker = _Checker(options)


def _check_chunk(chunk: list[Candidate]) -> FileResult:
    assert _worker_checker is not None
    return _worker_checker.check_chunk(chunk)


class _Checker:
    """Runs the selected rules over one file at a time.

    A rule reads a file of its kinds only when the file holds one of its triggers (or it has
    none), so most files skip most rules without being parsed.
    """

    def __init__(self, options: ScanOptions) -> None:
        wanted = set(options.rules)
        every = all_rules()
        self.rules = [r for r in every if r.id in wanted and r.check is not None]
        self.options = options
        self.known_keys = {k for r in every for k in (r.id, r.name, r.category)}
        self.wanted_kinds = {k for r in self.rules for k in r.kinds}
        self.report_engine = {r.id for r in every if r.check is None} & wanted
        self.by_kind: dict[str, list[Rule]] = {}
        self.word_search: dict[str, LiteralSet] = {}

    def wants(self, candidate: Candidate) -> bool:
        """Whether any selected rule could care about this file (decided before reading it)."""
        kind, wanted = candidate.kind, self.wanted_kinds
        if "*" in wanted or kind.kind in STRUCTURED or kind.kind in wanted:
            return True
        family = CONTENT_FAMILIES.get(kind)
        if family is not None:
            return bool(wanted & family)  # its content may make it a kit, a workflow, a Nomad job ...
        name = candidate.path.rsplit("/", 1)[-1]
        return kind.kind == "text" and "." not in name and "shell" in wanted  # a shebang?

    def _rules_for(self, kind: str) -> list[Rule]:
        rules = self.by_kind.get(kind)
        if rules is None:
            rules = self.by_kind[kind] = [r for r in self.rules if r.wants(kind)]
        return rules

    def _trigger_words_in(self, kind: str, text: str) -> frozenset[str] | None:
        """Which trigger words of the kind's rules a large text holds, and whether it holds the
        suppression mark, found in one pass (each rule testing its own words is a pass per
        word: dozens over a lockfile's megabytes). None for a small text, where the rules' own
        tests are cheaper."""
        if len(text) < LARGE_TEXT:
            return None
        if kind not in self.word_search:
            words = {word for rule in self._rules_for(kind) for word in rule.trigger_words}
            self.word_search[kind] = LiteralSet(sorted(words | {SUPPRESSION_MARK}))
        return self.word_search[kind].present(text)

    def check_chunk(self, chunk: list[Candidate]) -> FileResult:
        """One merged result per chunk: pickling a result per file costs more than checking it."""
        return _merged(self.check(candidate) for candidate in chunk)

    def check(self, candidate: Candidate) -> FileResult:
        if candidate.problem and candidate.problem.startswith("is a folder"):
            return self._unreadable(candidate, candidate.problem)
        if not self.wants(candidate):
            return FileResult()
        if candidate.problem:
            return self._unreadable(candidate, candidate.problem)
        raw = _read(candidate.abspath, self.options.max_bytes)
        if isinstance(raw, str):
            return FileResult() if raw == _NOT_REGULAR else self._unreadable(candidate, raw)
        cut = len(raw) > self.options.max_bytes
        return self.check_bytes(candidate, raw, _size_on_disk(candidate, len(raw)) if cut else None)

    def _unreadable(self, candidate: Candidate, problem: str) -> FileResult:
        """A file the scan should have read and could not: an error finding (exit code 2)."""
        if engine_rules.UNREADABLE.id not in self.report_engine:
            return FileResult()
        rule = engine_rules.UNREADABLE
        finding = Finding(
            path=candidate.path,
            line=1,
            column=1,
            rule=rule.id,
            category=rule.category,
            severity=rule.severity,
            message=f"this path {problem}",
            fix=rule.fix,
            fingerprint=fingerprint(rule.id, candidate.path, "", 0),
        )
        return FileResult(findings=[finding])

    def check_bytes(self, candidate: Candidate, raw: bytes, size: int | None = None) -> FileResult:
        """Check ``raw`` (at most ``max_bytes + 1`` bytes) as the content of ``candidate``;
        ``size`` is the file's on disk (for text that is no file, at least what was read)."""
        result = FileResult()
        if b"\0" in raw[:BINARY_PROBE]:
            return result
        source = source_of(candidate, raw, self.options)
        text, kind = source.text, source.kind
        result.scanned = 1
        hits: list[tuple[Rule, Hit]] = []
        cut = len(raw) > self.options.max_bytes
        if cut and not (configures(source) and engine_rules.FILE_TOO_LARGE.id in self.report_engine):
            result.skipped.append(Skipped(candidate.path, "file-too-large", size or len(raw)))
        elif cut:
            hits.append(
                (
                    engine_rules.FILE_TOO_LARGE,
                    Hit(Pos(), f"file is larger than {self.options.max_bytes} bytes; only its beginning was checked"),
                )
            )
        problem = self._parse_problem(source)
        if source.syntax == "yaml" and not cut and _DIRECTIVE.search(source.text) and _broken(source, problem):
            # Jinja, gomplate or mustache directives in a file named like plain YAML (an Ansible
            # role's manifest template): read it as its renderer would leave it, directives masked
            source = _as_template(source)
            problem = self._parse_problem(source)
        tpl_input = not cut and _may_be_tpl_input(source) and _broken(source, problem)  # one that parses is read as is
        reader = _tpl_reader(candidate, source) if tpl_input else None
        if reader is not None and source.syntax == "json":
            # a chart file a template renders with tpl (`tpl (.Files.Get "conf/x.json") .`): JSON
            # only once Helm fills its directives in; read, masked, as the YAML it is a subset of
            source = _as_template(source)
            problem = _problem_of(source)
        if source.syntax in ("helm", "template"):
            text = source.yaml_text  # values.yaml defaults can bring what a trigger looks for
        elif kind == kinds.COMPOSE:
            from sandkit.lint.consumers.compose import trigger_text

            text = trigger_text(source)  # so can its .env and the files it extends or includes
        if "\\" in text:
            from sandkit.lint.consumers.escapes import unescaped_text

            spelled = unescaped_text(source)  # "\u0070rivileged": true holds no trigger word
            if spelled:
                text = f"{text}\n{spelled}"
        budget = source.budget  # its clock starts now: parsing and rules share the file's time
        words_in_text = self._trigger_words_in(kind, text)
        may_suppress = words_in_text is None or text is not source.text or SUPPRESSION_MARK in words_in_text
        for candidate_rule in self._rules_for(kind):
            if budget.out_of_time():
                break
            try:
                rule = _rule_to_run(candidate_rule, source, text, words_in_text)
                if rule is None:
                    continue
                assert rule.check is not None
                hits.extend((rule, hit) for hit in rule.check(source))
            except SyntaxProblem as exc:
                problem = problem or exc
            except Exception as exc:  # a rule bug must not stop the scan
                result.crashes.append(f"{candidate.path}: rule {candidate_rule.id} failed: {type(exc).__name__}: {exc}")
        if problem is not None and cut:
            # cut at the scan limit, the text stops mid-value: that is no parse error of the file's
            # own, and SK002 (above) or the summary's skipped list says so
            if hits and hits[0][0] is engine_rules.FILE_TOO_LARGE:
                rule, hit = hits[0]
                hits[0] = (rule, hit._replace(message=f"{hit.message} (its text only: cut there, it does not parse)"))
        elif problem is not None:
            # an empty file (a 0-byte .vscode/settings.json, which VS Code reads as no settings)
            # holds nothing a rule could miss: no parse error
            if source.text.strip("\ufeff \t\r\n"):
                hits.append((engine_rules.PARSE_ERROR, _parse_hit(source, problem, reader)))
        elif kind in CONSUMER_VERDICT:
            hits.extend((engine_rules.PARSE_ERROR, hit) for hit in duplicate_hits(source))
        for bound in source.bounds_met():
            hits.append((engine_rules.WALK_BOUND, Hit(bound.pos, bound.message)))
        result.findings = self._finish(source, graded(source, _fixture_workflow_hits(source, hits)), may_suppress)
        if result.skipped:
            # read in part, with no SK002 finding to say so: each finding says it, so none reads as
            # if the whole file had been searched (a secret past the limit is not found)
            part = f" (file read in part: its first {size_text(self.options.max_bytes)} only)"
            result.findings = [f._replace(message=f.message + part) for f in result.findings]
        return result

    @staticmethod
    def _parse_problem(source: SourceFile) -> SyntaxProblem | None:
        if source.kind not in STRUCTURED:
            return None
        try:
            source.validate()  # a broken file is reported even when no rule needs its data
        except SyntaxProblem as exc:
            return exc
        return None

    def _finish(self, source: SourceFile, hits: list[tuple[Rule, Hit]], may_suppress: bool) -> list[Finding]:
        suppressions = find_suppressions(source.text) if may_suppress else []
        for s in suppressions:
            if not s.reason:
                hits.append(
                    (
                        engine_rules.UNEXPLAINED_SUPPRESSION,
                        Hit(
                            Pos(s.line, s.column),
                            f"suppression of {', '.join(s.keys) or 'nothing'} has no reason, so it is ignored",
                        ),
                    )
                )
            unknown = [k for k in s.keys if k not in self.known_keys and k.upper() not in self.known_keys]
            if unknown:
                hits.append(
                    (
                        engine_rules.UNKNOWN_SUPPRESSION,
                        Hit(Pos(s.line, s.column), f"suppression names unknown rule {', '.join(unknown)}"),
                    )
                )
        findings: dict[Finding, None] = {}  # insertion-ordered, and a repeat costs one lookup
        seen: dict[tuple[str, str], int] = {}
        for rule, hit in sorted(hits, key=lambda rh: (rh[1].pos, rh[0].id, rh[1].message)):
            if rule.check is None and rule.id not in self.report_engine:
                continue
            keys = (rule.id, rule.name, rule.category)
            if any(covers(s, hit.pos.line, keys) for s in suppressions):
                continue
            line_text = source.line_text(hit.pos.line).strip()
            occurrence = seen.get((rule.id, line_text), 0)
            seen[(rule.id, line_text)] = occurrence + 1
            finding = Finding(
                path=source.path,
                line=max(hit.pos.line, 1),
                column=max(hit.pos.column, 1),
                rule=rule.id,
                category=rule.category,
                severity=hit.severity or rule.severity,
                message=_with_reason(hit, rule),
                fix=hit.fix or rule.fix,
                fingerprint=fingerprint(rule.id, source.path, line_text, occurrence),
            )
            findings.setdefault(finding)
        return list(findings)


def _rule_to_run(rule: Rule, source: SourceFile, text: str, words_in_text: frozenset[str] | None) -> Rule | None:
    """The rule, when its pre-filters (``reads``, then the triggers) let it read this file."""
    if rule.reads is not None and not rule.reads(source):
        return None
    if rule.triggers and not rule.triggered_by(text, words_in_text):
        return None
    return rule


#: Template directives a tool fills in before the text is YAML: Go/Helm and mustache ``{{ x }}``
#: (not an Actions ``${{ }}`` expression), Jinja ``{% for %}`` and ``{# #}``.
_DIRECTIVE = lazy(r"(?<![$\w])\{\{[^\n]*?\}\}|\{%-?\s*\w|\{#[^\n]*#\}")


def _parse_hit(source: SourceFile, problem: SyntaxProblem, reader: str | None = None) -> Hit:
    if reader is not None:
        return Hit(
            problem.pos,
            f"this chart file is rendered with tpl by {reader} and is not {_SYNTAX_NAMES.get(source.syntax, 'parsed')} "
            f"until Helm fills its directives in ({problem.message}), so it was not checked",
            severity="info",
            why="a Helm tpl input: its consumer reads what Helm renders, not the file",
        )
    if (
        source.syntax == "yaml"
        and problem.message.startswith("invalid YAML")
        and _directive_near(source, problem.pos.line)
    ):
        return Hit(
            problem.pos,
            f"this file holds template directives and is not YAML until they are filled in ({problem.message}), "
            "so it was not checked",
            severity="info",
            why="a template named like plain YAML (a snapshot of rendered output, an Ansible or deploy template)",
        )
    if source.syntax not in ("helm", "template"):
        return Hit(problem.pos, problem.message)
    what = "Helm template" if source.syntax == "helm" else "template"
    return Hit(
        problem.pos,
        f"this {what} is not YAML once its directives are masked ({problem.message}), so it was not checked",
        severity="info",
        why="a template engine renders it; only what can be read around the directives is checked",
    )


def _with_reason(hit: Hit, rule: Rule) -> str:
    """The message, saying why when the hit's severity is not the rule's documented one."""
    if not hit.severity or hit.severity == rule.severity:
        return hit.message
    why = hit.why or f"the rule's default is {rule.severity}"
    return f"{hit.message} ({hit.severity}: {why})"


def _extensionless(path: str) -> bool:
    """A name with no extension that is not itself an instruction file's (``.cursorrules``)."""
    name = path.rsplit("/", 1)[-1]
    return "." not in name.lstrip(".") and kinds.kind_by_name(name).kind != kinds.AGENT_INSTRUCTIONS


def source_of(candidate: Candidate, raw: bytes, options: ScanOptions) -> SourceFile:
    """The file as rules see it: decoded, its kind decided by name, then shebang and content."""
    kind = candidate.kind
    if kind.kind == "text" and is_shell_script(raw[:200]):
        kind = Kind("shell", "shell")
    elif kind == Kind(kinds.AGENT_INSTRUCTIONS, "text") and raw.startswith(b"#!") and _extensionless(candidate.path):
        # a script in an instruction folder (a skill's scripts/run): code, not prose. Only without
        # an extension: a CLAUDE.md or SKILL.md stays instructions whatever its first line says
        kind = Kind("shell", "shell") if is_shell_script(raw[:200]) else Kind(kinds.TEXT, "text")
    text = raw[: options.max_bytes].decode("utf-8", errors="replace")
    kind = kind_by_content(kind, text[:4096], text, candidate.path.rsplit("/", 1)[-1].lower())
    values = None
    if kind.syntax == "yaml" and "{{" in text and _templated(candidate.path, text):
        chart = _chart_values(candidate.abspath, options.max_bytes, "templates/" not in candidate.path)
        if chart is not None:
            kind, values = Kind(kinds.KUBERNETES if kind.kind == kinds.KUBERNETES else kinds.YAML, "helm"), chart
    return SourceFile(
        candidate.path,
        text,
        kind.kind,
        kind.syntax,
        in_dependency=candidate.in_dependency,
        settings=options.settings,
        template_values=values,
        origin=candidate.abspath,
        root=_scan_root(candidate),
    )


#: Kinds that are data or prose to the rules (read for secrets or hidden characters, not for what
#: they configure): a file of these kinds cut at the scan limit is listed in the report's summary,
#: not reported as a finding.
_DATA_KINDS = frozenset({kinds.YAML, kinds.JSON, kinds.TOML, kinds.TEXT})


def configures(source: SourceFile) -> bool:
    """Whether a rule reads the file as configuration or instructions (a workflow, a Compose
    file, a manifest or a Helm template, a Dockerfile, a devcontainer, agent configuration and
    instructions, a .env file, a kit, a shell script ...): there a part left unread hides what
    the rules look for, and SK002 is a finding."""
    return source.kind not in _DATA_KINDS or source.syntax in ("helm", "template")


def _size_on_disk(candidate: Candidate, read: int) -> int:
    """The file's size in bytes (what was read, for text that is not a file on disk)."""
    try:
        return os.stat(candidate.abspath).st_size
    except (OSError, ValueError):
        return read


_SYNTAX_NAMES = {"json": "JSON", "template": "JSON", "toml": "TOML"}  # what a tpl input is not, yet


def _may_be_tpl_input(source: SourceFile) -> bool:
    """A file of a syntax other than YAML (JSON, TOML) holding ``{{``: it may be a chart file a
    template renders with ``tpl``."""
    return source.syntax in ("json", "toml") and "{{" in source.text


def _problem_of(source: SourceFile) -> SyntaxProblem | None:
    """Why the file does not parse, or None."""
    try:
        source.validate()
    except SyntaxProblem as exc:
        return exc
    return None


def _tpl_reader(candidate: Candidate, source: SourceFile) -> str | None:
    """The chart template that renders this file with ``tpl`` (a Helm template input), or None."""
    if not candidate.abspath:
        return None
    from sandkit.lint.syntax.helm import tpl_reader

    try:
        return tpl_reader(candidate.abspath)
    except (OSError, ValueError, RecursionError):
        return None


def _broken(source: SourceFile, problem: SyntaxProblem | None) -> bool:
    """Whether the file does not parse (known already for the kinds the engine validates)."""
    if problem is not None or source.kind in STRUCTURED:
        return problem is not None
    try:
        source.validate()
    except SyntaxProblem:
        return True
    return False


def _as_template(source: SourceFile) -> SourceFile:
    """``source`` read as a template: its directives masked before the YAML parser reads it."""
    return SourceFile(
        source.path,
        source.text,
        source.kind,
        "template",
        in_dependency=source.in_dependency,
        settings=source.settings,
        origin=source.origin,
        root=source.root,
    )


def _scan_root(candidate: Candidate) -> str:
    """The folder the candidate's path is relative to (what a Compose file may read is confined to it)."""
    suffix = os.sep + candidate.path.replace("/", os.sep)
    if candidate.abspath.endswith(suffix):
        return candidate.abspath[: -len(suffix)] or os.sep
    return os.path.dirname(candidate.abspath)


def _directive_near(source: SourceFile, line: int) -> bool:
    """A template directive on the line the parser gave up on or the line before or after it:
    what broke the YAML is then most likely the directive, not a mistake."""
    return any(_DIRECTIVE.search(source.line_text(n)) for n in (line - 1, line, line + 1) if n >= 1)


_CHART_VALUES: dict[str, Any] = {}  # chart folder -> its values.yaml, per process (a few charts at a time)


_GO_DIRECTIVE = lazy(r"\{\{-?\s*(?:if|range|with|include|define|end|template|toYaml|\.Values|\.Release|\$)")


def _templated(path: str, text: str) -> bool:
    """A chart's template: under ``templates/``, or a YAML file elsewhere in a chart (not its
    values) that holds Go template directives (``{{- if .Values.crds.create }}``)."""
    if "templates/" in path:
        return True
    name = path.rsplit("/", 1)[-1].lower()
    return not name.startswith(("values", "chart.")) and _GO_DIRECTIVE.search(text) is not None


def _chart_values(path: str, max_bytes: int, anywhere: bool = False) -> Any:
    """The values of the Helm chart whose ``templates/`` hold ``path`` (with ``anywhere``, whose
    any folder does), or None outside a chart."""
    from sandkit.lint.syntax.helm import chart_root, load_values

    root = chart_root(path, anywhere)
    if root is None:
        return None
    if root not in _CHART_VALUES:
        if len(_CHART_VALUES) > 64:
            _CHART_VALUES.clear()
        raw = _read(os.path.join(root, "values.yaml"), max_bytes)
        text = raw[:max_bytes].decode("utf-8", errors="replace") if isinstance(raw, bytes) else ""
        _CHART_VALUES[root] = load_values(text)
    return _CHART_VALUES[root]


def fingerprint(rule_id: str, path: str, line_text: str, occurrence: int) -> str:
    """Stable across edits elsewhere in the file: rule, path, the line's text, which repeat."""
    import hashlib  # OpenSSL's start-up: only for a run with findings

    data = "\0".join((rule_id, path, " ".join(line_text.split()), str(occurrence)))
    return hashlib.sha256(data.encode("utf-8", errors="surrogatepass")).hexdigest()[:32]


_NOT_REGULAR = "not a regular file"


def _read(path: str, max_bytes: int) -> bytes | str:
    """Up to ``max_bytes + 1`` bytes (one more tells a capped file), unbuffered; or why not.

    Opened without blocking and checked to be a regular file, so a FIFO or device swapped in
    after the walk is passed over (``_NOT_REGULAR``) instead of hanging the scan. The buffer is
    sized from the file (a 2 MB buffer per small file costs page faults).
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                return _NOT_REGULAR
            want = min(info.st_size, max_bytes) + 1
            parts = [os.read(fd, want)]
            while len(parts[-1]) == want and sum(map(len, parts)) <= max_bytes:
                parts.append(os.read(fd, max_bytes + 1 - sum(map(len, parts))))
        finally:
            os.close(fd)
        return parts[0] if len(parts) == 1 else b"".join(parts)
    except OSError as exc:
        return f"cannot be read: {exc.strerror or exc}"


#: What a workflow's own run does to this repository's token and secrets: meaningless for a
#: workflow kept as a test fixture (GitHub runs only the top .github/workflows).
_RUN_CATEGORIES = frozenset({"ci-permissions", "ci-secret-exposure"})


def _fixture_workflow_hits(source: SourceFile, hits: list[tuple[Rule, Hit]]) -> list[tuple[Rule, Hit]]:
    """CI permission and secret findings in a test fixture (``testdata/``, ``fixtures/`` ...) are
    left out, or low with ``include-examples``: act's 139 fixture workflows were 130 CP001s."""
    from sandkit.lint.facts.secret_values import is_fixture_path

    if not hits or not is_fixture_path(source.path):
        return hits
    if not source.settings.include_examples:
        return [(rule, hit) for rule, hit in hits if rule.category not in _RUN_CATEGORIES]
    why = "a workflow kept as a test fixture, which GitHub does not run here"
    return [
        (rule, hit._replace(severity="low", why=why) if rule.category in _RUN_CATEGORIES else hit) for rule, hit in hits
    ]
