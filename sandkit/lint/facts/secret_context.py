"""Where a secret-named literal is written, read for what the text around it says it is.

Two questions for PS002 that the value alone cannot answer:

- :func:`test_role`: is the file, or the CI job, a test's? A script named as a test
  (``chain-e2e-test.sh``, ``simulate-payment.sh``, ``smoke.yml``) or a GitHub Actions job that
  starts its own service containers or is named as a test (``test-e2e``) sets up a throwaway
  world: its passwords open the database it started a minute ago. :func:`says_test` reads whether
  the value itself says it is a test's (``test-jwt-secret-min-32-chars-for-ci``,
  ``ci-e2e-secret-not-for-production-use``, ``synthetic-password``).
- :func:`shell_variable`: is a shell assignment's value a variable after all? ``x="?$x"`` expands
  ``$x``, and ``token=token,`` inside ``python - <<'PY'`` is a Python keyword argument passing a
  variable; the shell parser unquotes words, so both are read again from the text as written.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from sandkit.lazy_regex import lazy
from sandkit.lint import kinds
from sandkit.lint.facts.run_scripts import HereDoc, script_lines
from sandkit.lint.syntax.tree import PMap

if TYPE_CHECKING:
    from sandkit.lint.source import SourceFile
    from sandkit.lint.syntax.tree import Pos

#: Words of a file's name or a CI job's id or name that make it a test's.
_TEST_ROLE_WORDS = frozenset({"test", "tests", "testing", "e2e", "smoke", "simulate", "simulation", "integration"})
#: Words of a value that say it is a test's: split at separators, case changes and digits.
_TEST_VALUE_WORDS = frozenset(
    {"test", "tests", "testing", "ci", "e2e", "synthetic", "mock", "mocked", "stub", "fixture", "nonprod", "insecure"}
)
#: A value that says it is not for production (``not-for-production``, ``not_for_prod``, ``do-not-use``).
_NOT_FOR_PRODUCTION = lazy(r"(?i)not[-_. ]?for[-_. ]?prod|do[-_. ]?not[-_. ]?use|non[-_. ]?prod")
_VALUE_WORDS = lazy(r"[Ee]2[Ee]|[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def _words(text: str) -> set[str]:
    return {w.lower() for w in _VALUE_WORDS.findall(text)}


def says_test(value: str, *, loose: bool = False) -> bool:
    """The value says it is a test's: one of its words is a test's (``test-jwt-secret``,
    ``SimTestPass123!``, ``ci-e2e-...``) or it says "not for production". ``loose`` (in a file or
    job that is a test's already) also counts "test" inside a word (``lvtestpass123456``)."""
    if _words(value) & _TEST_VALUE_WORDS or _NOT_FOR_PRODUCTION.search(value):
        return True
    return loose and "test" in value.lower()


def test_role(file: SourceFile, pos: Pos) -> str | None:
    """Why the file, or the CI job holding ``pos``, is a test's; None when nothing says so.

    A script, workflow or Compose file whose name has a test's word (``chain-e2e-test.sh``,
    ``simulate-payment.sh``, ``android-completion-smoke.yml``, ``docker-compose.e2e.yml``), and in a GitHub Actions
    workflow the job whose lines hold ``pos`` when it starts service containers (``services:``)
    or its id or name has such a word (``test-e2e``, ``Integration tests``)."""
    name = file.path.rsplit("/", 1)[-1]
    stem = name.rsplit(".", 1)[0] if "." in name else name
    if file.kind in _NAMED_ROLE_KINDS and set(re.split(r"[-_.]+", stem.lower())) & _TEST_ROLE_WORDS:
        return f"in {name}, a test's script or configuration"
    if file.kind == kinds.WORKFLOW:
        for first, last, why in _test_jobs(file):
            if first <= pos.line <= last:
                return why
    return None


#: Files whose name says what they do: scripts, workflows, Compose files. A settings file named for
#: an environment (``values-test.yaml``, ``appsettings.Test.json``, ``config/test.toml``) is not one:
#: "test" is also the name of a stage that is deployed.
_NAMED_ROLE_KINDS = (kinds.SHELL, kinds.MAKEFILE, kinds.JUSTFILE, kinds.WORKFLOW, kinds.COMPOSE)


def _test_jobs(file: SourceFile) -> list[tuple[int, int, str]]:
    """(first line, last line, why) of each job of a workflow that is a test's."""

    def build() -> list[tuple[int, int, str]]:
        out: list[tuple[int, int, str]] = []
        documents = file.documents
        top = documents[0] if documents else None
        jobs = top.get("jobs") if isinstance(top, PMap) else None
        if not isinstance(jobs, PMap):
            return out
        starts = sorted((jobs.pos_of(job_id).line, str(job_id), job) for job_id, job in jobs.items())
        ends = [line - 1 for line, _, _ in starts[1:]] + [len(file.lines)]
        for (first, job_id, job), last in zip(starts, ends, strict=True):
            why = _test_job(job_id, job)
            if why is not None:
                out.append((first, last, why))
        return out

    return file.memo("secret_test_jobs", build)


def _test_job(job_id: str, job: object) -> str | None:
    if not isinstance(job, PMap):
        return None
    services = job.get("services")
    if isinstance(services, PMap) and len(services) > 0:
        return f"in CI job {job_id}, which starts its own service containers for a test"
    title = f"{job_id} {job.get('name') if isinstance(job.get('name'), str) else ''}"
    if _words(title) & _TEST_ROLE_WORDS:
        return f"in CI job {job_id}, a test's"
    return None


#: Interpreters of other languages a here-document is fed to (``python - <<'PY'``, ``node <<EOF``),
#: or a source file it is written to (``cat > app.py <<EOF``): its body is that language's code.
_INTERPRETER = lazy(
    r"(?:^|[\s/;|&(])(?:python[\d.]*|pypy[\d.]*|node|nodejs|ruby|perl|php|deno|bun|lua|Rscript|julia|groovy|"
    r"jshell|osascript)(?=\s|$)|>\s*['\"]?\S+\.(?:py|js|mjs|cjs|ts|rb|pl|php|lua|r|jl|groovy)['\"]?(?=\s|$)|"
    r"\btee\s+(?:-a\s+)?['\"]?\S+\.(?:py|js|mjs|cjs|ts|rb|pl|php|lua|r|jl|groovy)['\"]?(?=\s|$)"
)
#: An unquoted identifier as a value, maybe before the ``,`` or ``)`` of an argument list: a variable
#: in the languages above (``token=token,``, ``password=db_password)``).
_IDENTIFIER_VALUE = lazy(r"[A-Za-z_][\w.]*[,;)]*")
#: A shell expansion: ``$name``, ``${...}``, ``$(...)``, ``$1``, ``$@`` (``$$`` as a Makefile writes it).
_EXPANSION = lazy(r"\$+[A-Za-z_{(\d@*#?]")
_SHELL_KINDS = (kinds.SHELL, kinds.MAKEFILE, kinds.JUSTFILE)


def shell_variable(file: SourceFile, name: str, pos: Pos) -> bool:
    """Whether the shell assignment of ``name`` at ``pos`` takes its value from a variable: the
    value as written holds an expansion outside single quotes (``feed_credential="?$feed_credential"``,
    ``PASS=pre$SUFFIX``), or the line is in a here-document given to another language's interpreter
    and the value is an unquoted identifier there (``token=token,`` in ``python - <<'PY'``)."""
    if file.kind not in _SHELL_KINDS:
        return False
    line = file.line_text(pos.line)
    at = pos.column - 1
    while at < len(line) and line[at] in "\"'" and not line.startswith(name, at):
        at += 1  # a quoted assignment word (``"NAME=value"``) starts at its quote
    if not line.startswith(name, at) or line[at + len(name) : at + len(name) + 1] != "=":
        return False
    raw = _raw_word(line, at + len(name) + 1)
    if _expands(raw):
        return True
    doc = _here_documents(file).get(pos.line)
    return (
        doc is not None
        and _INTERPRETER.search(doc.line[: doc.at]) is not None
        and bool(_IDENTIFIER_VALUE.fullmatch(raw))
    )


def _raw_word(line: str, start: int) -> str:
    """The rest of a shell word from ``start`` as written, quotes kept (bounded by the line)."""
    quote = ""
    escaped = False
    end = start
    while end < len(line):
        char = line[end]
        if escaped:
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char.isspace() or char in ";&|<>":
            break
        end += 1
    return line[start:end]


def _expands(raw: str) -> bool:
    """``raw`` (a word as written) holds a ``$`` expansion or a backtick command substitution
    outside single quotes, not escaped."""
    quote = ""
    escaped = False
    for index, char in enumerate(raw):
        if escaped:
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif char == "'" and quote != '"':
            quote = "" if quote == "'" else "'"
        elif char == '"' and quote != "'":
            quote = "" if quote == '"' else '"'
        elif char == "$" and quote != "'" and _EXPANSION.match(raw, index):
            return True
        elif char == "`" and quote != "'":
            return True  # a command substitution written with backticks (``PWD=`get-random-password```)
    return False


def _here_documents(file: SourceFile) -> dict[int, HereDoc]:
    """The here-document each body line of a shell script belongs to, by line number."""

    def build() -> dict[int, HereDoc]:
        text = file.text
        if "<<" not in text:
            return {}
        out: dict[int, HereDoc] = {}
        number, counted = 1, 0
        for line in script_lines(text):
            number, counted = number + text.count("\n", counted, line.start), line.start
            if line.heredoc is not None:
                out[number] = line.heredoc
        return out

    return file.memo("secret_here_documents", build)


#: The command part of a line that opens a here-document printed to the terminal: ``cat <<EOF``,
#: ``cat >&2 <<EOF``, ``command cat <<-'EOF'``: nothing before ``cat`` (no ``$(``, no ``x=``).
_PRINTING_CAT = lazy(r"\s*(?:command\s+)?cat(?:\s+-[A-Za-z]+)*(?:\s+[12]?>&[12])?\s*")
#: What may follow the delimiter word on that line: a redirection to standard error, a comment.
_PRINTED_TAIL = lazy(r"\s*(?:[12]?>&[12]\s*)?(?:;?\s*(?:#.*)?)?")
#: A function that prints a script's help (``usage()``, ``show_help``, ``function print_usage {``).
_FUNCTION = lazy(r"(?m)^[ \t]*(?:function[ \t]+([\w:.-]+)[ \t]*(?:\([ \t]*\))?|([\w:.-]+)[ \t]*\([ \t]*\))[ \t]*\{?")
_HELP_WORDS = frozenset({"usage", "help", "synopsis", "examples", "example"})
#: A heading of help text before the line: ``Usage:``, ``EXAMPLES``, ``Example:``, ``SYNOPSIS``.
_HELP_HEADING = lazy(r"(?i)[\s#*=-]*(?:\$\{\w+\})?\s*(?:usage|examples?|synopsis)\s*(?:\$\{\w+\}\s*)?(?::|$)")


def printed_text(file: SourceFile, pos: Pos) -> str | None:
    """Whether the shell line at ``pos`` is text the script prints rather than runs: a line of a
    here-document given to ``cat`` with nothing but the terminal (or standard error) to write to.
    ``"help"`` when it is the script's help (inside a ``usage``/``help`` function, or after a
    ``Usage:``/``EXAMPLES`` heading in the same here-document), ``"printed"`` otherwise, None when
    the line is not printed text (``cat > .env <<EOF``, ``cat <<EOF | kubectl apply -f -``,
    ``x=$(cat <<EOF``)."""
    if file.kind not in _SHELL_KINDS:
        return None
    doc = _here_documents(file).get(pos.line)
    if doc is None or not _PRINTING_CAT.fullmatch(doc.line[: doc.at]):
        return None
    after = re.match(r"<<-?\s*(?:'[^']*'|\"[^\"]*\"|\\?[\w.-]+)", doc.line[doc.at :])
    if after is None or not _PRINTED_TAIL.fullmatch(doc.line[doc.at + after.end() :]):
        return None
    text = file.text
    first = file.pos_at(doc.start + doc.at).line + 1
    if any(_HELP_HEADING.match(file.line_text(line)) for line in range(max(first, pos.line - 200), pos.line)):
        return "help"
    last = None
    for match in _FUNCTION.finditer(text, max(0, doc.start - 20_000), doc.start + 1):
        last = match
    if last is not None:
        name = last.group(1) or last.group(2) or ""
        if set(re.split(r"[-_.:]+", name.lower())) & _HELP_WORDS:
            return "help"
    return "printed"
