"""Where a secret-named literal is written, read for what the text around it says it is.

Two questions for PS002 that the value alone cannot answer:

- :func:`test_role`: is the file, or the CI job, a test's? A script named as a test
  (``chain-e2e-test.sh``, ``simulate-payment.sh``, ``smoke.yml``) or a GitHub Actions job that
  starts its own service containers or is named as a test (``test-e2e``) sets up a throwaway
  world: its passwords open the database it started a minute ago, unless the job also deploys
  (:func:`deploys`: a job that reaches a real host keeps real credentials). :func:`says_test` reads whether
  the value itself says it is a test's (``test-jwt-secret-min-32-chars-for-ci``,
  ``ci-e2e-secret-not-for-production-use``, ``synthetic-password``).
- :func:`job_container_password`: does a URL's password in a CI test job open a container the
  same job starts (its ``services:``, or a ``docker compose up`` fed by a ``.env`` the job writes)?
  Then it is that container's throwaway password (PS001).
- :func:`shell_variable`: is a shell assignment's value a variable after all? ``x="?$x"`` expands
  ``$x``, and ``token=token,`` inside ``python - <<'PY'`` is a Python keyword argument passing a
  variable; the shell parser unquotes words, so both are read again from the text as written.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from sandkit.credentials import is_secret_name
from sandkit.lazy_regex import lazy
from sandkit.lint import kinds
from sandkit.lint.facts.ci_jobs import CI_JOB_KINDS, JobSpan, job_at
from sandkit.lint.facts.run_scripts import HereDoc, script_lines
from sandkit.lint.syntax.shell import quoting

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


def test_role(file: SourceFile, pos: Pos, value: str = "") -> str | None:
    """Why the file, or the CI job holding ``pos``, is a test's; None when nothing says so.

    A script, workflow or Compose file whose name has a test's word (``chain-e2e-test.sh``,
    ``simulate-payment.sh``, ``android-completion-smoke.yml``, ``docker-compose.e2e.yml``), and in a GitHub Actions
    workflow the job whose lines hold ``pos`` when it starts service containers (``services:``),
    its id or name has such a word (``test-e2e``, ``Integration tests``), or it starts containers
    on the runner and a step of it runs tests (:func:`_test_job`), unless it deploys
    (:func:`deploys`, which reads a push as a deploy only for a ``value`` that reaches the image built)."""
    name = file.path.rsplit("/", 1)[-1]
    stem = name.rsplit(".", 1)[0] if "." in name else name
    if file.kind in _NAMED_ROLE_KINDS and set(re.split(r"[-_.]+", stem.lower())) & _TEST_ROLE_WORDS:
        return f"in {name}, a test's script or configuration"
    span = _job_at(file, pos)
    if span is None:
        return None
    if span.used_by:
        return _used_by_tests(file, span, value)
    if deploys(file, span, pos, value) is None:
        return _test_job(file, span)
    return None


def _used_by_tests(file: SourceFile, span: JobSpan, value: str) -> str | None:
    """Why a definition (a hidden GitLab job others extend, a service or container defined once)
    is a test's: every job of the file that uses it is a test's and deploys nothing (a push counts,
    whatever the value: the definition's place in the build is not followed)."""
    for user in span.used_by:
        if deploys(file, user, None, value) is not None or _test_job(file, user) is None:
            return None
    users = ", ".join(user.job_id for user in span.used_by[:3]) + (", ..." if len(span.used_by) > 3 else "")
    return f"in {span.job_id}, which only test jobs use ({users})"


#: Files whose name says what they do: scripts, workflows, Compose files. A settings file named for
#: an environment (``values-test.yaml``, ``appsettings.Test.json``, ``config/test.toml``) is not one:
#: "test" is also the name of a stage that is deployed.
_NAMED_ROLE_KINDS = (kinds.SHELL, kinds.MAKEFILE, kinds.JUSTFILE, kinds.COMPOSE, *CI_JOB_KINDS)


def _job_at(file: SourceFile, pos: Pos) -> JobSpan | None:
    return job_at(file, pos) if file.kind in CI_JOB_KINDS else None


def _job_text(file: SourceFile, span: JobSpan) -> str:
    return "\n".join(file.lines[span.first - 1 : span.last])


#: Words of a job's id or name that say it deploys or publishes.
_DEPLOY_WORDS = frozenset({"deploy", "deployment", "deploys", "provision", "rollout", "production", "prod", "publish"})
#: Actions that log in to an image registry only (to push): read as a push, not as a deploy.
_REGISTRY_LOGIN = (
    r"(?:docker/login-action|aws-actions/amazon-ecr-login|redhat-actions/podman-login|azure/docker-login)\b"
)
#: A command or action, in a job's text, that reaches a host beyond the runner: a remote shell or
#: copy, a cluster or cloud change, a site published, a platform's deploy command, a cloud login.
_DEPLOYS = lazy(
    r"(?m)(?:^|[\s;&|(\"'])(?:ssh|scp|sshpass|ansible-playbook|heroku)\s|"
    r"\bkubectl\s+(?:[-\w=.]+\s+){0,4}(?:apply|create|replace|patch|set|rollout|delete|scale)\b|"
    r"\bhelm\s+(?:[-\w=.]+\s+){0,4}(?:upgrade|install)\b|\b(?:terraform|tofu|pulumi)\s+(?:apply|up)\b|"
    r"\bdocker(?:-compose|\s+compose)?\s+(?:-H|--host|--context)[\s=]|"
    r"\bDOCKER_HOST\s*[=:]\s*[\"']?(?:ssh|tcp)://|\b(?:fly|flyctl|netlify|wrangler|firebase|serverless|sls|railway)\s+"
    r"(?:deploy|publish|up)\b|\bvercel\b|\bcf\s+push\b|\b(?:gcloud|az|aws)\s[^\n]{0,80}\b(?:deploy|update-service|"
    r"update-function-code|webapp|containerapp|functionapp)\b|\baws\s+s3\s+(?:cp|sync)\b|"
    rf"^\s*(?:-\s+)?uses:\s*[\"']?(?!{_REGISTRY_LOGIN})[\w.-]*/[^\s@]*(?:deploy|ssh|scp|rsync|kubectl|helm|k8s|"
    r"terraform|ecs|heroku|vercel|netlify|firebase|pages|webapp|lambda|login|credentials|auth)",
    re.I,
)
#: An image pushed to a registry: a push command, a build action's ``push: true``, ``buildx build
#: --push``, a registry's login action.
_PUSHES = lazy(
    r"(?m)\b(?:docker|podman)\s+(?:image\s+)?push\b|^\s*push:\s*[\"']?true\b|\bbuildx\s+build\b[^\n]*\s--push\b|"
    r"\b(?:docker[- ]compose|podman[- ]compose)\s(?:[^\n;&|]{0,120}\s)?push\b|"
    rf"^\s*(?:-\s+)?uses:\s*[\"']?{_REGISTRY_LOGIN}",
    re.I,
)
#: A push of an image built before it on the runner (not one a build action builds itself).
_LOCAL_PUSH = lazy(
    r"\b(?:docker|podman)\s+(?:image\s+)?push\b|\b(?:docker[- ]compose|podman[- ]compose)\s(?:[^\n;&|]{0,120}\s)?push\b"
)
#: A Compose command that may build the services' images (``up`` builds an image it lacks), whose
#: build arguments may be read from the job's environment.
_COMPOSE_BUILDS = lazy(r"\b(?:docker[- ]compose|podman[- ]compose)\s(?:[^\n;&|]{0,120}\s)?(?:up|build|run|create)\b")
#: A step that builds an image, pushes one or logs in to a registry: an action named so, or a command.
_BUILD_STEP = lazy(
    r"(?im)^\s*(?:-\s+)?uses:\s*[\"']?[\w.-]*/[^\s@]*(?:build|push|login|kaniko|buildah|image)|"
    r"\b(?:docker|podman|nerdctl|buildah)\s+(?:[-\w=.]+\s+){0,3}(?:build|bud|push|login)\b|--build-arg\b|"
    r"--secret\b|\bkaniko\b|\b(?:ko|pack)\s+(?:build|publish)\b"
)
#: A command that writes a file (a redirect, ``tee``, ``sed -i``, ``envsubst``): a file in the build
#: context may be copied into the image.
#: ``docker cp`` (``podman cp``, ``docker compose cp``) copies into a container, not into the build context.
_WRITES_FILE = lazy(
    r"(?<![\d&<>=-])>{1,2}(?![&=])|\btee\b|\bsed\s+-i|\benvsubst\b|(?<!docker )(?<!podman )(?<!compose )\bcp\s"
)
#: A command that writes the whole environment to a file (``printenv > .env``, ``env >> .env``).
_DUMPS_ENVIRONMENT = lazy(r"\b(?:printenv|env|export\s+-p|set)\s*>{1,2}(?!&)")


def deploys(file: SourceFile, span: JobSpan, at: Pos | None = None, value: str = "") -> str | None:
    """Why the job reaches a host beyond the runner, or None: a job ``environment:``, an id or
    name that says deploy or publish, or a command or action that deploys or logs in to a
    remote host. Such a job's credentials are kept as real even when it also runs tests.

    A job that pushes an image (``docker push``, a build action's ``push: true``, a registry
    login) deploys what it builds, and the build takes only what is passed to it: given ``at``
    (where a value set in the job is, ``value`` its text), the push counts only when the value
    reaches the build (:func:`reaches_build`); an ``env:`` value the job's tests read at run time
    is not in the image pushed."""
    if span.environment:
        return f"job {span.job_id} deploys to an environment"
    if _words(span.title) & _DEPLOY_WORDS:
        return f"job {span.job_id} is named as a deploy"
    text = _job_text(file, span)
    found = _DEPLOYS.search(text)
    if found is None:
        found = _PUSHES.search(text)
        if found is None or (at is not None and not reaches_build(file, span, at, value)):
            return None
    return f"job {span.job_id} deploys ({found.group().strip()[:40]})"


def reaches_build(file: SourceFile, span: JobSpan, at: Pos, value: str) -> bool:
    """Whether the value set at ``at`` in the job may be built into an image the job pushes. It
    does not only when it is an ``env:`` setting of the job (its own, a step's, a service's or
    its container's) and no step hands it to a build: no step that builds, pushes or logs in to a
    registry names it or holds its value (``build-args``, ``--build-arg``, a build's ``secrets:``,
    a build step's own ``env:``), no command writes it into a file (which the build context may
    copy), no command writes the whole environment to one, and the image pushed is not one
    Compose may have built from the job's environment (``docker compose up`` then ``docker push``)."""
    names = span.env_lines.get(at.line)
    if names is None:
        return True
    text = _job_text(file, span)
    if _DUMPS_ENVIRONMENT.search(text) or (_LOCAL_PUSH.search(text) and _compose_builds_with(file, span, at)):
        return True
    mention = re.compile(
        "|".join([rf"(?<![\w]){re.escape(n)}(?![\w])" for n in names] + ([re.escape(value)] if len(value) >= 4 else []))
    )
    for first, last in _step_lines(span):
        step = "\n".join(file.lines[first - 1 : last])
        if _BUILD_STEP.search(step) and mention.search(step):
            return True
        rest = (
            "\n".join(file.lines[first - 1 : at.line - 1] + file.lines[at.line : last])
            if first <= at.line <= last
            else step
        )
        if mention.search(rest) and _WRITES_FILE.search(rest):
            return True
    return False


def _compose_builds_with(file: SourceFile, span: JobSpan, at: Pos) -> bool:
    """Whether a Compose command of the job may build an image with the environment that holds
    the value set at ``at``. A step's own ``env:`` reaches only that step's commands, and there
    ``up``, ``run`` and ``create`` build only an image not built yet: not when an earlier step of
    the job ran ``compose ... build`` (without the value), unless they say ``--build``. A value of
    the job's ``env:``, its container's or a service's reaches every step."""
    steps = _step_lines(span)
    holder = next((index for index, (first, last) in enumerate(steps) if first <= at.line <= last), None)
    if holder is None:
        return _COMPOSE_BUILDS.search(_job_text(file, span)) is not None
    first, last = steps[holder]
    text = "\n".join(file.lines[first - 1 : last])
    if _COMPOSE_BUILD.search(text) or _COMPOSE_REBUILD.search(text):
        return True
    if _COMPOSE_BUILDS.search(text) is None:
        return False
    built = "\n".join(file.lines[steps[0][0] - 1 : first - 1])
    return _COMPOSE_BUILD.search(built) is None


#: ``compose build``, and ``up`` or ``run`` told to build (``--build``).
_COMPOSE_BUILD = lazy(r"\b(?:docker[- ]compose|podman[- ]compose)\s(?:[^\n;&|]{0,120}\s)?build\b")
_COMPOSE_REBUILD = lazy(
    r"\b(?:docker[- ]compose|podman[- ]compose)\s(?:[^\n;&|]{0,160}\s)?(?:up|run)\s[^\n;&|]*--build\b"
)


def _step_lines(span: JobSpan) -> list[tuple[int, int]]:
    """The lines each step of the job takes (from its first line to the line before the next)."""
    return [(step.first, step.last) for step in span.steps]


#: A command in a job's text that starts containers on the runner.
_STARTS_CONTAINERS = lazy(
    r"\b(?:docker[- ]compose|podman[- ]compose)\s(?:[^\n;&|]{0,120}\s)?(?:up|run|start|create)\b|"
    r"\b(?:docker|podman)\s+(?:container\s+)?(?:run|create|start)\b"
)
#: ``NAME=value``, ``NAME: value`` or ``-e NAME=value`` in a job's text (a step's ``env:``, a service's,
#: a ``.env`` written by a here-document or ``echo``, a ``docker run`` option).
_ASSIGNMENT = lazy(r"(?<![\w$.-])([A-Za-z_][A-Za-z0-9_]{0,80})\s*[=:][ \t]*[\"']?([^\s\"'`#]{1,256})")
#: A host that is the runner or a container beside it: a loopback address or one label (a
#: service's or a Compose service's name, ``postgres``, ``db``).
_LOCAL_HOST = lazy(r"(?i)localhost|127(?:\.\d{1,3}){3}|0\.0\.0\.0|\[::1?\]|host\.docker\.internal|[a-z][\w-]{0,62}")


def job_container_password(file: SourceFile, pos: Pos, password: str, host: str) -> str | None:
    """Why a URL's ``password`` (to ``host``) at ``pos`` in a workflow is the throwaway password of
    a container the same job starts, or None.

    All of: the job starts containers (``services:``, or ``docker compose up``, ``docker run``);
    the password is the value of a password-named setting in the job's own lines
    (``POSTGRES_PASSWORD: testpass`` under ``services:``, ``POSTGRES_PASSWORD=pocpass`` in a
    ``.env`` the job writes for ``docker compose up``, ``-e POSTGRES_PASSWORD=...``); the host is
    the runner or a container beside it; and the job deploys nothing (:func:`deploys`)."""
    if not _LOCAL_HOST.fullmatch(host):
        return None
    span = _job_at(file, pos)
    if span is None or span.used_by or deploys(file, span, pos, password) is not None:
        return None
    text = _job_text(file, span)
    if not span.services and _STARTS_CONTAINERS.search(text) is None:
        return None
    for found in _ASSIGNMENT.finditer(text):
        if found.group(2) == password and is_secret_name(found.group(1)):
            where = "its service containers" if span.services else "the containers it starts"
            return (
                f"in CI job {span.job_id}, the password {found.group(1)} gives {where}: a throwaway "
                "database or service started for the job and gone with it"
            )
    return None


def _test_job(file: SourceFile, span: JobSpan) -> str | None:
    """Why a job (that deploys nothing) is a test's: it starts service containers, its id or name
    says test, or it starts containers on the runner (``docker compose up``, ``docker run``) and a
    step of it is named as a test or runs a test runner (``phpunit``, ``pytest``, ``go test``)."""
    job_id = span.job_id
    if span.services:
        return f"in CI job {job_id}, which starts its own service containers for a test"
    if _words(span.title) & _TEST_ROLE_WORDS:
        return f"in CI job {job_id}, a test's"
    if _STARTS_CONTAINERS.search(_job_text(file, span)) is None:
        return None
    for step in span.steps:
        named = bool(_words(step.name) & _TEST_ROLE_WORDS)
        runner = _TEST_RUNNER.search(step.run)
        if named or runner is not None:
            said = f'step "{step.name}"' if named else f"`{runner.group().strip()}`" if runner else ""
            return f"in CI job {job_id}, which starts its own containers and runs tests in them ({said})"
    return None


#: A command that runs a test suite.
_TEST_RUNNER = lazy(
    r"\b(?:phpunit|pest|pytest|py\.test|jest|vitest|mocha|rspec|tox|nox|ctest|(?:go|cargo|dotnet|deno|bun)\s+test|"
    r"(?:npm|pnpm|yarn)\s+(?:run\s+)?test(?::[\w:-]+)?|artisan\s+test|make\s+(?:test|check)|"
    r"(?:mvn|mvnw|gradle|gradlew)\s+(?:[-\w:.=]+\s+){0,4}(?:test|verify|check))\b"
)


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


#: A variable a CI system (or the job's shell) expands in a value, anywhere in it: ``$NAME``,
#: ``${NAME}``, ``$(NAME)``, and ``$$NAME``, GitLab's escaped dollar that leaves ``$NAME`` for the
#: script's shell (``gitlab-ci-token:$CI_JOB_TOKEN``, ``pre$$SUFFIX``).
_CI_EXPANSION = lazy(r"\$+(?:[A-Za-z_]|\{[A-Za-z_]|\([A-Za-z_])")
_OTHER_CI_KINDS = (kinds.GITLAB_CI, kinds.CIRCLECI, kinds.AZURE_PIPELINES, kinds.BITBUCKET_PIPELINES)


def ci_variable(file: SourceFile, value: object) -> bool:
    """Whether a value in a CI pipeline other than GitHub's holds a variable the pipeline or its
    shell expands (:data:`_CI_EXPANSION`): not a literal, wherever in the value it is. GitLab and
    Bitbucket expand ``$NAME`` inside a value (a literal dollar is written ``$$``); CircleCI's
    ``environment:`` and Azure's ``variables:`` do not, but a password holding ``$`` and a name
    is rare enough that it is read as a reference there too."""
    return file.kind in _OTHER_CI_KINDS and isinstance(value, str) and _CI_EXPANSION.search(value) is not None


def _raw_word(line: str, start: int) -> str:
    """The rest of a shell word from ``start`` as written, quotes kept (bounded by the line)."""
    for item in quoting(line[start:]):
        if item.role == "syntax" and (item.char.isspace() or item.char in ";&|<>"):
            return line[start : start + item.at]
    return line[start:]


def _expands(raw: str) -> bool:
    """``raw`` (a word as written) holds a ``$`` expansion or a backtick command substitution
    outside single quotes, not escaped (``PWD=`get-random-password```)."""
    return any(
        (item.char == "`" or (item.char == "$" and _EXPANSION.match(raw, item.at)))
        and (item.role == "syntax" or (item.role == "quoted" and item.quote == '"'))
        for item in quoting(raw)
    )


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


#: A comment that says the value beside or below it is a stand-in to replace: it is a dummy, a
#: placeholder, a fake or not real (``# dummy, replace me``), or tells the reader to put theirs in
#: its place (``# replace with your own``, ``# change me``, ``[MUST CHANGE]``). Not "change it" or
#: "change this" alone: ``# The initial password of Harbor admin. Change it from portal after
#: launching`` is the password a deployment runs with until someone does.
_STAND_IN_COMMENT = lazy(
    r"(?i)\b(?:dummy|placeholder|fake|stand-?in|not\s+(?:a\s+)?real|(?:example|sample)\s+"
    r"(?:value|password|key|token|secret))\b|\breplace(?:d)?\s+(?:me|this|with|by)\b|"
    r"\bchange\s*me\b|\bmust\s+(?:be\s+)?change|\byour\s+own\b|\bto\s+be\s+replaced\b"
)
#: ... unless it says not to (``# do not change this``, ``# never replace it``).
_KEEP_COMMENT = lazy(r"(?i)\b(?:not|never|n't)\s+(?:\w+\s+)?(?:change|replace)")
#: Where a comment starts on a line of YAML, an env file, a shell script, TOML or INI: ``#``, or
#: ``;`` and ``//`` at a line's start, after a space or at the start of the line.
_COMMENT_START = lazy(r"(?:^|\s)(?:#|//)|^\s*;")


def stand_in_comment(file: SourceFile, pos: Pos) -> bool:
    """Whether the value at ``pos`` has a comment of its own that says it is a stand-in to replace:
    after it on its line (``PASSWORD=abc123  # dummy, replace me``) or alone on the line above it
    (``# replace with your own``)."""
    line = file.line_text(pos.line)
    mark = _COMMENT_START.search(line, max(pos.column - 1, 0))
    if mark is not None and _says_stand_in(line[mark.end() :]):
        return True
    above = file.line_text(pos.line - 1).strip() if pos.line > 1 else ""
    starts = _COMMENT_START.match(above)
    return starts is not None and _says_stand_in(above[starts.end() :])


def _says_stand_in(comment: str) -> bool:
    return bool(_STAND_IN_COMMENT.search(comment)) and not _KEEP_COMMENT.search(comment)
