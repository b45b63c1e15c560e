"""plaintext-secret: a credential value written into a file an agent (or anyone) can read.

An agent reads the repository it works on. A token in a config file is a token in the agent's
context, one planted prompt away from being sent out.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from sandkit.lazy_regex import lazy
from sandkit.lint import kinds
from sandkit.lint.facts.ci_jobs import CI_JOB_KINDS
from sandkit.lint.facts.command_passwords import command_passwords, may_hold_command_password
from sandkit.lint.facts.containers import environment
from sandkit.lint.facts.secret_context import (
    ci_variable,
    job_container_password,
    printed_text,
    says_test,
    shell_variable,
    stand_in_comment,
    test_role,
)
from sandkit.lint.facts.secret_values import (
    ScannerReport,
    Token,
    catalogue_file,
    chart_secret_name_places,
    example_block_places,
    find_configured,
    guessable_default,
    is_example_path,
    is_lockfile,
    literal_secret,
    live_vendor_key,
    public_by_design,
    public_client_setting,
    sample_context,
    scanner_report,
    secret_reference_places,
    short_lived,
    tokens_of,
    tool_default,
)
from sandkit.lint.model import Finding, Hit
from sandkit.lint.registry import rule
from sandkit.lint.repository import RepositoryView, repository_pass
from sandkit.lint.source import NOT_PLAIN, SourceFile
from sandkit.lint.syntax.tree import MAX_DEPTH, MAX_VALUES, PMap, Pos, PStr, SyntaxProblem
from sandkit.literal_search import LiteralSet

if TYPE_CHECKING:
    from typing import Any

_INI_NAMES = (
    ".npmrc",
    ".pypirc",
    ".ini",
    ".cfg",
    ".properties",
    ".netrc",
    ".yarnrc",
    ".gemrc",
    ".s3cfg",
    ".pgpass",
    "credentials",
)
_INI_LINE = lazy(
    r"(?m)^[ \t]*(?:export[ \t]+)?([A-Za-z_/:.][A-Za-z0-9_./:@-]{0,120})"
    r"[ \t]*[=:][ \t]*(\S[^\n]{0,500})$"
)
_NETRC_PASSWORD = lazy(r"\bpassword[ \t]+(\S{1,256})")
# A secret-like word right before ":" or "=" (a key), or after "name:" (Kubernetes env lists).
# Whether a file holds one decides whether it is worth parsing for PS002 at all.
_KEY_HINT = (
    r"(?:key|token|secret|pass(?:word|wd|phrase)?|pwd?|auth|credentials?)[\"']?[ \t]*[:=]|"
    r"name[\"']?[ \t]*:[ \t]*[\"']?[\w.-]{0,64}?(?:key|token|secret|pass|pw|auth|credential)"
)
_SECRET_KEY_HINT = lazy(_KEY_HINT, re.IGNORECASE)
_LOWER_KEY_HINT = lazy(_KEY_HINT)
_KEY_HINT_WORDS = LiteralSet(("key", "token", "secret", "pass", "pw", "auth", "credential", "name"))
_STRUCTURED = (
    kinds.COMPOSE,
    kinds.KUBERNETES,
    kinds.WORKFLOW,
    kinds.ACTION,
    kinds.DEVCONTAINER,
    kinds.KIT,
    kinds.GITLAB_CI,
    kinds.CIRCLECI,
    kinds.AZURE_PIPELINES,
    kinds.BITBUCKET_PIPELINES,
    kinds.YAML,
    kinds.JSON,
    kinds.TOML,
    kinds.AGENT_CONFIG,
)
_ENV_LIKE = (kinds.ENV, kinds.SHELL, kinds.MAKEFILE, kinds.JUSTFILE)
#: CI pipelines other than GitHub's: their ``variables:``/``environment:`` are read as settings too
#: (GitLab's ``NAME: {value: ...}``, Azure's ``- name: X`` / ``value: Y`` lists).
_OTHER_CI = (kinds.GITLAB_CI, kinds.CIRCLECI, kinds.AZURE_PIPELINES, kinds.BITBUCKET_PIPELINES)


def claimed_lines(file: SourceFile) -> set[int]:
    """Lines another category reports secrets on: Dockerfile ENV/ARG (image-secret) and MCP
    server env and headers (agent-mcp); plaintext-secret leaves them to those rules."""

    def build() -> set[int]:
        lines: set[int] = set()
        if file.kind == kinds.DOCKERFILE:
            for ins in file.instructions:
                if ins.keyword in ("ENV", "ARG"):
                    end = ins.pos_at(len(ins.args)).line if ins.args else ins.pos.line
                    lines.update(range(ins.pos.line, end + 1))
        elif file.kind == kinds.AGENT_CONFIG:
            from sandkit.lint.facts.mcp_servers import mcp_servers  # agent configs only: most runs have none

            for server in mcp_servers(file):
                lines.update(item.pos.line for item in server.env)
        return lines

    return file.memo("secret_claimed_lines", build)


# No triggers: the token search looks for the formats' prefixes itself, once per file (a trigger
# would search for them a second time).
@rule("PS001", "known-credential-format", category="plaintext-secret", severity="high", kinds=("*",))
def known_credential_format(file: SourceFile) -> Iterator[Hit]:
    """A value in a known credential format is written in a file.

    AWS access key IDs, GitHub (classic and fine-grained) and GitLab tokens, Slack tokens
    (``xox?-``, app-level ``xapp-``) and webhook URLs, Stripe live keys, OpenAI and Anthropic
    API keys, Google API keys and OAuth client secrets, npm, PyPI, Hugging Face, Docker Hub,
    SendGrid and DigitalOcean tokens, Azure storage keys, private key blocks, JSON Web Tokens
    and URLs with a password, in any text file (.env files, YAML, JSON, scripts, Markdown,
    source). A secret scanner's committed report or baseline that holds the secrets it found
    written out (gitleaks' JSON report, trufflehog's JSON lines) is one finding for the file,
    saying how many secrets it holds and of which kinds (medium when trufflehog verified none).

    Not a finding: placeholders and documented examples (AKIAIOSFODNN7EXAMPLE, ghp_xxxx...,
    ``<token>``), bodies with one character class or counting sequences, the jwt.io sample
    token, Supabase ``anon`` keys (public by design), the storage emulator's published key,
    values after "e.g.", "eg" or "such as", key headers with no key after them, a key block
    holding only the start of a key (its body, decoded, says more bytes follow than are there:
    a recogniser's test string `-----BEGIN PRIVATE KEY-----\\nMIGTAgEAMBMG...`; an unencrypted
    OpenSSH key, whose opening repeats `A`, is judged by its fields and stays a finding),
    URLs whose password is a stand-in, a `${VAR}`, a word and a number (`abc123`), capitals words
    (`STRONG_DB_PASSWORD`) or the user name, maybe in leetspeak (`postgres:p0stgr3s`), tokens shown
    truncated (`ghp_1a2B...`), and a credential URL on a comment line that says it is an
    example (`# e.g. --routes=` then a URL with `ruser:T0pS3cr3t`) or whose password is made of
    sample words (`supersecretpassword`). A URL's user and password hold no space, quote or
    backtick. Dockerfile ENV/ARG lines are image-secret (IS001) and MCP
    server env is agent-mcp (AM003). Test fixtures, samples and documentation (folders such as
    tests/, fixtures/, testdata/, examples/, docs/, test source sets such as src/androidTest/;
    `*_test.*`, `*.spec.*`, `fixtures.ts`, `tests.rs`, `*.example`, Markdown), the value of a
    name that says it is a stand-in (`TEST_FAKE_RSA_KEY_2`, `fakeToken`, `DUMMY_KEY`) and a Rust
    file's `#[cfg(test)] mod tests {` are left out: their credentials are fake on purpose;
    `--include-examples` (or `include-examples = true`) reports them at low severity. A token in
    a comment of program source (`// const pkcs8 = "-----BEGIN ...`) is low: usually a
    documented example, sometimes a real one commented out. A Google API key of a Firebase web
    app's configuration (beside `authDomain`, `messagingSenderId`, or under a `FIREBASE_*`
    name) or of a Maps JavaScript API script URL is info: public by design, it ships to every
    browser and is guarded by its referrer and API restrictions. An AWS access key ID of
    temporary credentials (`ASIA...`, issued by STS) is info: it expires within hours; so is a
    JSON Web Token whose `exp` claim has passed (the message says when). In a CI
    job (GitHub Actions, GitLab CI, CircleCI, Azure Pipelines, Bitbucket Pipelines; jobs read as
    for PS002), a URL to the runner or a container beside it (`localhost`, `postgres`) whose password the same
    job gives the containers it starts (`POSTGRES_PASSWORD` of its `services:`, of a `.env` it
    writes for `docker compose up`, a `docker run -e`) is left out (low with `--include-examples`):
    a throwaway database's; not in a job that deploys (an `environment:`, a deploy's name, `ssh`,
    `kubectl apply`, a deploy action). A job that pushes an image (`docker push`, `push: true`,
    a registry login) deploys it only for the values it hands to the build (`build-args`,
    `--build-arg`, a build's `secrets:`, a file it writes): a step's `env:` read at run time is not
    in the image.

    Why:
    Whatever the repository holds, an agent working on it can read and, told to by text it
    read, send elsewhere. A committed credential is also in every clone and in git history.

    Fix:
    Revoke the credential, remove it from the file (and history), and pass it at run time:
    a kit `secrets:` entry, a CI secret, or an environment variable read by the program.
    """
    example = _example(file, any_part=False)  # a live-looking token in `.env.sample.prod` is still reported
    if example is None or _is_json_schema(file):
        return  # a schema's examples document formats
    report = scanner_report(file)
    if report is not None:
        yield from _scanner_report_hit(report, example)
        return  # one finding for the file, not one a token
    claimed = claimed_lines(file) if file.kind in (kinds.DOCKERFILE, kinds.AGENT_CONFIG) else ()
    for token in tokens_of(file):
        pos = file.pos_at(token.start)
        if pos.line in claimed:
            continue
        public = public_by_design(file.text, token)
        if public is not None:
            yield Hit(
                pos,
                f"{token.kind} written in plain text ({token.shown}), public by design",
                severity="info",
                why=public,
            )
            continue
        expires = short_lived(token)
        if expires is not None:
            yield Hit(pos, f"{token.kind} written in plain text ({token.shown})", severity="info", why=expires)
            continue
        stand_in = None if example else sample_context(file, token.start)
        if stand_in is not None:
            why, test_value = stand_in
            if test_value and not file.settings.include_examples:
                continue
            yield Hit(pos, f"{token.kind} written in plain text ({token.shown})", severity="low", why=why)
            continue
        throwaway = _throwaway_ci_password(file, token) if not example else None
        if throwaway is not None:
            if file.settings.include_examples:
                yield Hit(pos, f"{token.kind} written in plain text ({token.shown})", severity="low", why=throwaway)
            continue
        yield Hit(pos, f"{token.kind} written in plain text ({token.shown})", **example)


_REPORT_FIX = (
    "Revoke the secrets the report lists (each is in the report and in git history), delete the "
    "report from the repository and from its history (git filter-repo), keep scanner output out of "
    "the tree (.gitignore), and re-run the scanner with redaction (gitleaks --redact; trufflehog's "
    "Redacted field, not Raw) when a report or baseline must be kept."
)
_KINDS_SHOWN = 5


def _scanner_report_hit(report: ScannerReport, example: dict[str, str]) -> Iterator[Hit]:
    """One finding for a secret scanner's report that holds the secrets it found written out."""
    if not report.secrets:
        return  # every secret redacted: the report names findings, it holds no secret
    ranked = sorted(report.kinds.items(), key=lambda item: (-item[1], item[0]))
    kinds_text = ", ".join(f"{kind} {count:,}" for kind, count in ranked[:_KINDS_SHOWN])
    if len(ranked) > _KINDS_SHOWN:
        kinds_text += f" and {len(ranked) - _KINDS_SHOWN} more kinds"
    secrets = "1 secret" if report.secrets == 1 else f"{report.secrets:,} secrets"
    message = (
        f"a {report.scanner} report holds {secrets} it found written out, not redacted ({kinds_text}); "
        "each is a leak if it is still live"
    )
    if report.verified is not None:
        message += f"; {report.scanner} verified {report.verified:,} of them as live"
    if example:
        yield Hit(Pos(report.line, 1), message, fix=_REPORT_FIX, **example)
    elif report.verified == 0:
        why = f"{report.scanner} verified none of them as live; unverified findings are often not secrets"
        yield Hit(Pos(report.line, 1), message, fix=_REPORT_FIX, severity="medium", why=why)
    else:
        yield Hit(Pos(report.line, 1), message, fix=_REPORT_FIX)


#: A URL's password (after ``scheme://user:``) and the host after its ``@``.
_URL_PASSWORD = lazy(r"://[^:]*:(.*)@$")
_URL_HOST = lazy(r"\[[0-9A-Fa-f:]*\]|[^\s:/?#\"'`]{1,253}")


def _throwaway_ci_password(file: SourceFile, token: Token) -> str | None:
    """Why a URL's password in a CI workflow is a container's the same job starts for a test
    (:func:`job_container_password`), or None."""
    if file.kind not in CI_JOB_KINDS or token.kind != "URL with a password":
        return None
    password = _URL_PASSWORD.search(token.text)
    host = _URL_HOST.match(file.text, token.end)
    if password is None or host is None:
        return None
    return job_container_password(file, file.pos_at(token.start), password.group(1), host.group())


def _example(file: SourceFile, *, any_part: bool = True) -> dict[str, str] | None:
    """How to report a secret in this file: normally (``{}``), at low severity in a test fixture or
    documentation example when ``include-examples`` is on, or not at all (None). ``any_part``: as
    :func:`is_example_path` takes it."""
    if not is_example_path(file.path, any_part=any_part):
        return {}
    if not file.settings.include_examples:
        return None
    return {"severity": "low", "why": "in a test fixture or documentation example, where values are usually fake"}


@rule(
    "PS002",
    "secret-named-literal",
    category="plaintext-secret",
    severity="medium",
    kinds=(*_STRUCTURED, *_ENV_LIKE, kinds.TEXT),
)
def secret_named_literal(file: SourceFile) -> Iterator[Hit]:
    """A secret-named key (PASSWORD, API_KEY, TOKEN, clientSecret ...) has a literal value.

    Reads .env files, shell and Makefile assignments and exports, Compose, Kubernetes,
    devcontainer, workflow and kit environment, the variables and environment of GitLab CI
    (`.gitlab-ci.yml`, `.gitlab/ci/`), CircleCI, Azure Pipelines and Bitbucket Pipelines files,
    every key/value pair of YAML, JSON and TOML files, and INI-like credential files (.npmrc,
    .pypirc, .netrc, *.ini, *.cfg, *.properties). Key names in any case style count (``DB_PASSWORD``, ``dbPassword``,
    ``db-password``). A ConfigMap's ``data:`` value that holds a whole file (in a manifest or a
    Helm template) is read as that file: by its key's extension (``config.yaml``, ``app.ini``,
    ``settings.json``, ``application.properties``, ``app.env``, ``init.sh``) or, with none, by its
    content (a JSON object, INI sections or ``key=value`` lines, YAML ``key:`` lines), graded as the
    same file standing alone and reported at its line and column in the manifest (up to 64 values
    of a manifest, each up to 256 KiB). A password written on a command line of a script, a
    Makefile or justfile recipe, a workflow's ``run:`` or another CI pipeline's script is read as a
    secret's value: ``oc``, ``docker``, ``podman``, ``nerdctl``, ``buildah``, ``skopeo`` and ``az``
    ``login -p``, ``helm registry login -p``, ``cf login -p``, ``mysql -pX`` and ``--password=X``
    (mysqldump, mysqladmin, mariadb too), ``curl -u user:X``, ``wget --password=X``, ``sshpass -p X``,
    ``htpasswd -b file user X``, ``redis-cli -a X``, ``mongosh -p X``, ``sqlcmd -P X``; a word the
    shell or the CI system expands (``$VAR``, ``${{ secrets.X }}``, ``$(cat file)``) is not a literal.

    Not a finding: references and expressions the consumer evaluates (`${VAR}`, `$VAR`,
    `$(var)`, `${{ secrets.X }}`, `{{ template }}`, in those CI files a value holding `$VAR`
    anywhere (`gitlab-ci-token:$CI_JOB_TOKEN`) or GitLab's escaped `$$VAR`, CircleCI's
    `<< pipeline.parameters.x >>`, `{% %}`, `<%= %>`, Azure Resource Manager `[parameters('x')]`,
    `@Microsoft.KeyVault(...)`, `#{Name}#`, `__Name__`, `((name))`,
    `/run/secrets/...`, `op://`, `vault:`, secret-store URIs such as `urn:k8s:secret:name:key`,
    `aws-secretsmanager:`, `gcp:secretmanager:`, `berglas://`), placeholders (changeme, example, `<token>`,
    xxxx, `your-secret-here`, instructions in capitals (`DEFINED-IN-REGION-SECRETS`, `SET-ME`,
    `FROM_SECRET_STORE`), a schema validator's rule (Yamale's `str(required=False)`,
    `enum("a", "b")`), empty or very short values, one piece repeated such as
    `privatekeyprivatekey`, counting runs such as `0123456789abcdef`, a hex identifier's shape
    with letters hex has not, and base64 of a placeholder such as `cGFzc3dvcmQ=`), prose with
    spaces, the name of another variable, a shell expansion (`x="?$x"`, `PASS=pre$SUFFIX`, a
    command in backticks; not inside single quotes) and a variable of another language's code in a here-document
    (`token=token,` in `python - <<'PY'`), a call (`sha256(masterId)`), a record's composite key
    (`216214CDS|cutaneous`), the Azure Cosmos DB and storage emulators' published keys,
    paths, numbers and booleans; lower-case words as an identifier (`soccer_league_two`) under
    a name that is not a password's; keys that name non-secrets (`key`, `cache_key`,
    `public_key`, `publishable_key`, a data structure's `$$hashKey`, `sortKey`, `partitionKey`,
    SonarQube's `ruleKey` and `sonar.projectKey`, a .NET `PublicKeyToken`), a password's hash by its
    name (`hashedPassword`, `password_digest`), a
    key that takes ten or more different values in one JSON or YAML file (a data set's column,
    `"identityKey"` in each of hundreds of records);
    words of a natural language (`Contraseña`, `パスワード`)
    and message catalogues (translations kept in `locales/`, `i18n/`, `de.json`,
    `messages_fr.properties` ..., whose values are mostly prose); values that name where a secret is kept
    (`adminPasswordKey: postgres-password`, `passwordKey: adminPassword`, `existingSecret:
    db-creds`, `existingSecretAdminPassword: harbor-admin`, `auth-secret: ns/name`, not a vendor's
    prefix before a long piece of letters and digits such as `chakra-zjob8k2m9xq3p...`; the key's own
    name such as `API_KEY: .API_KEY` or
    `smtpPassword: smtp-password`), version ranges and regular expressions; lockfiles (package names such as
    `path-key` and their versions) and JSON Schemas; encrypted values (SOPS `ENC[AES256_GCM,
    data:...]`, Ansible Vault) and password hashes (bcrypt `$2y$...`, `$6$...`, argon2, `{SSHA}`,
    Django's `pbkdf2_sha256$...`, Spring's `{bcrypt}...`, Compose's `$$2y$$...`, an htpasswd
    `user:$apr1$...`, ASP.NET Core Identity's `AQAAAA...`).
    Values in a known format are PS001. Test fixtures and documentation (Ansible Molecule's
    `molecule/` scenarios and a chart's test values, `ci/*-values.yaml`, any YAML in
    `charts/NAME/ci/`, `test-values/`, `ci-values.yaml`, too) are left out as for PS001, and so
    is a value that says it is a test's (`test-jwt-secret-for-ci`, `ci-e2e-secret-not-for-production-use`,
    `synthetic-password`) in a test's script (`*-e2e-test.sh`, `simulate-*.sh`, `*smoke*`) or a
    CI job that starts its own services, is named (or, in GitLab, staged) as a test, or starts
    containers and runs tests in them (a step named as a test, `phpunit`, `pytest`, `go test`), and
    deploys nothing (an `environment:`, a deploy's name or stage, a deploy command; an image it
    pushes counts only for values handed to the build, as for PS001); one of the two alone is info.
    A CI job is a GitHub Actions job, a GitLab job (its `services:`, `environment:` and `stage`
    read through its `extends:` within the file, `default:` services too), a CircleCI job (images
    after the first of its `docker:` list, or of its executor's, are its services), an Azure job or
    deployment, or a Bitbucket step (`deployment:` deploys; `services:` other than `docker`). A
    definition several jobs share (a hidden GitLab job such as `.postgres:`, a CircleCI executor,
    an Azure `resources.containers` entry, a Bitbucket `definitions.services` entry) is a test's
    when every job of the file that uses it is, and read alone when none does. A
    front-end setting that is public by design (`NEXT_PUBLIC_*`, `VITE_*`, `REACT_APP_*` unless
    it says SECRET, PASSWORD or PRIVATE) is info. In a committed `.env` file (not
    `.env.example`), a word set as a secret's default (`RPC_SHARED_SECRET=supersecret`) is a
    finding too: whatever deploys with the file and sets nothing else runs with it. So is a
    Compose variable with a literal default (`API_KEY: ${API_KEY:-s3cr3t-k3y}`, `${X-v}` too)
    when the `.env` beside the file does not set the variable: `docker compose up` runs with the
    default (low: a fallback the operator replaces by setting the variable). It is a secret's
    when the variable names one, wherever it is used (under `ME_CONFIG_MONGODB_ADMINPASSWORD`,
    in a URL, in a `command:`), or when it is the whole value of a key that names one; every
    line that sets it is a finding of its own. A finding in an `.env.<name>` file (`.env.prod`) that
    no other file of the repository names and beside which no framework reads `.env.<mode>` by
    itself (`package.json`, `composer.json`) is info: Compose reads only `.env` by itself, so
    nothing here reads that file. So is one in an env file the framework beside it loads only when
    it runs its tests: Laravel's `.env.testing` (its phpunit.xml sets `APP_ENV` to `testing`),
    Symfony's `.env.test` (`APP_ENV` `test`), `.env.test` of a Next.js, Vite, Vitest, dotenv-flow
    or Create React App project (not when a script builds or serves with `--mode test` or
    `NODE_ENV=test`) and of a Rails project with dotenv.
    In a file named as an example (`.env.example`, `.example.env.local`, `config.sample.json`;
    not one in an example or test folder), which is otherwise left out, a live-looking vendor key
    is still medium: a short lower-case prefix (`chakra-`, `acme_live_`) before 20 characters
    or more a generator made (letters mixed with three digits or more, or letters drawn at
    random), not a placeholder. A random key of 24 small letters or more (few vowels, no run
    counting the alphabet) is key material, not a word.
    Also not a finding: a namespaced identifier under a key's name (`decision_key:
    AUTO:ActionCandidate.roadmap:proposed_only`, three pieces or more joined by `:`);
    a placeholder in leetspeak (`Ple4seCh4ngeThisN0tAVerySecretV4lue`,
    `R3pl4c3M3`: digits read as letters); a value whose own comment, after it on its line or alone
    on the line above, says it is a dummy or placeholder or to replace it (`PASSWORD=abc123  #
    dummy, replace me`, `# replace with your own`, `[MUST CHANGE]`; not `# do not change this`),
    low with `--include-examples`; a description of a value in its place (`somevalue`, `some-password`,
    `any_token`, three or more hyphen-joined words ending in the key's own word such as
    `cf-usb-sidecar-mysql-admin-password`); base64 that decodes to password hashes (an htpasswd
    file under a Secret's `tls.key`); a chart's value its own templates use as a Secret's or a
    Secret key's name (`key: {{ .Values.db.password }}` under `secretKeyRef:`); the values of
    resources that name where a secret is kept or hold it sealed
    (an ExternalSecret's or PushSecret's `secretKey` and `remoteRef.key`, Vault Secrets Operator,
    SecretProviderClass, SealedSecret `encryptedData`; not what their `template` renders); an
    assignment in a script's help text (a `cat <<EOF` here-document in a `usage` or `help`
    function or after a `Usage:`/`EXAMPLES` heading); a password in a block switched off
    (`enabled: false`) whose values use reserved example names (`ldap.example.com`,
    `dc=example`). Info: `changeit` under a keystore's, truststore's or key's password (the JDK's
    documented default) and other text a script prints with `cat <<EOF`.

    Why:
    A password or key in a tracked file is readable by every agent and person with the
    repository, and usually ends up in images and logs too.

    Fix:
    Reference the secret instead (`${DB_PASSWORD}`, a CI or kit secret, a secret store), and
    rotate the value that was committed.
    """
    yield from _named_literals(file)
    if file.kind == kinds.KUBERNETES:
        yield from _embedded_configuration(file)


def named_example(path: str) -> bool:
    """A file an example by its own name (``.env.example``, ``.example.env.local``,
    ``config.sample.yaml``), in a folder that is none (not ``tests/``, ``examples/``, ``docs/``):
    what a user copies to make the working file."""
    folder, _, name = path.replace(os.sep, "/").rpartition("/")
    return is_example_path(name) and not is_example_path(f"{folder}/settings.conf" if folder else "settings.conf")


def _example_file_keys(file: SourceFile) -> Iterator[Hit]:
    """PS002 in a file named as an example when examples are not reported: only a live-looking
    vendor key (``CHAKRA_API_KEY=chakra-zjob8k2m9x...``), which no format of PS001 knows."""
    if not named_example(file.path) or not (file.kind == kinds.ENV or file.syntax in ("json", "yaml")):
        return
    if not has_secret_key_hint(file.text):
        return
    known = {file.pos_at(t.start).line for t in tokens_of(file)}
    claimed = claimed_lines(file) if file.kind == kinds.AGENT_CONFIG else set()
    for name, value, pos in _pairs(file):
        if pos.line in known or pos.line in claimed or not isinstance(value, str):
            continue
        if live_vendor_key(value) and literal_secret(name, value) and not public_client_setting(name):
            yield _live_key_hit(name, pos)


def _live_key_hit(name: str, pos: Pos) -> Hit:
    return Hit(
        pos,
        f"{name} is set to a live-looking key in a file named as an example",
        severity="medium",
        why="a vendor's prefix before random key material, not a placeholder: an example file is "
        "copied by everyone who sets the project up, and this value is most likely a working key pasted in",
    )


def _named_literals(file: SourceFile) -> Iterator[Hit]:
    """PS002's findings in one file (a manifest, or a file a ConfigMap embeds)."""
    if file.kind == kinds.TEXT and not file.path.lower().endswith(_INI_NAMES):
        return
    if is_lockfile(file.path):
        return  # lockfiles pair package names ("path-key") with versions
    if file.syntax == "json" and scanner_report(file) is not None:
        return  # a secret scanner's report: PS001 reports it once, with what it holds
    example = _example(file)
    if example is None:
        yield from _example_file_keys(file)
        return
    interpolated = file.kind == kinds.COMPOSE and "${" in file.text  # a secret's default may be inside any value
    commanded = may_hold_command_password(file)
    if not (has_secret_key_hint(file.text) or interpolated or commanded or "\\u" in file.text or "\\x" in file.text):
        return  # no secret-like name before a ":" or "=" (nor an escape that could spell one): nothing to parse for
    if _is_json_schema(file):
        return
    if file.kind == kinds.JSON and not _may_hold_a_literal(file.plain_json):
        return  # the C parser's reading holds no candidate: the positioned parse would find none
    if catalogue_file(file):
        return  # translations: "password": "Passwort" labels a field, it is not one
    known = {file.pos_at(t.start).line for t in tokens_of(file)}
    claimed = claimed_lines(file) if file.kind == kinds.AGENT_CONFIG else set()
    seen: set[Pos] = set()
    pairs = list(_pairs(file))
    columns = data_columns(pairs) if file.syntax in ("json", "yaml") else set()
    shown: dict[Pos, str] = {}  # what a password on a command line is given to, for messages
    for given in command_passwords(file) if commanded else ():
        if "$" not in given.value and "`" not in given.value:  # an expansion is no literal
            pairs.append(("password", given.value, given.pos))
            shown[given.pos] = f"the password of `{given.label}`"
    referenced = secret_reference_places(file) if file.kind == kinds.KUBERNETES else set()
    if file.syntax == "yaml" and file.kind != kinds.KUBERNETES:
        referenced = chart_secret_name_places(file)  # a chart's value its templates name a Secret's key with
    for name, value, pos in pairs:
        if pos in seen or pos.line in known or pos.line in claimed or name in columns or pos in referenced:
            continue
        seen.add(pos)
        literal = literal_secret(name, value) and not shell_variable(file, name, pos) and not ci_variable(file, value)
        if literal and public_client_setting(name):
            yield Hit(
                pos,
                f"{shown.get(pos, name)} is set to a literal value, a front-end setting that is public by design",
                severity="info",
                why="the framework inlines it into the code it sends to every browser",
            )
        elif literal and not example and (default_why := tool_default(name, str(value))):
            yield Hit(
                pos,
                f"{shown.get(pos, name)} is set to a tool's documented default password",
                severity="info",
                why=default_why,
            )
        elif literal and not example and (printed := printed_text(file, pos)):
            if printed == "help":
                if file.settings.include_examples:
                    why = "in the help text the script prints, where values are examples"
                    yield Hit(
                        pos,
                        f"{shown.get(pos, name)} is set to a literal value in the script's help text",
                        severity="low",
                        why=why,
                    )
            else:
                why = "text the script prints for a person to read, not an assignment it runs"
                yield Hit(
                    pos,
                    f"{shown.get(pos, name)} is set to a literal value in text the script prints",
                    severity="info",
                    why=why,
                )
        elif literal and not example and pos in example_block_places(file):
            if file.settings.include_examples:
                why = "in a block that is switched off and whose values use reserved example names (example.com)"
                yield Hit(
                    pos,
                    f"{shown.get(pos, name)} is set to a literal value in an example block",
                    severity="low",
                    why=why,
                )
        elif literal and not example and stand_in_comment(file, pos):
            if file.settings.include_examples:
                why = "its own comment says it is a dummy or placeholder to replace"
                yield Hit(
                    pos,
                    f"{shown.get(pos, name)} is set to a literal value its comment calls a stand-in",
                    severity="low",
                    why=why,
                )
        elif literal and not example:
            test = _test_value(file, str(value), pos)
            if test is None:
                yield Hit(pos, f"{shown.get(pos, name)} is set to a literal value in plain text")
            elif test[0] == "info" or file.settings.include_examples:
                severity, why, what = test
                yield Hit(
                    pos,
                    f"{shown.get(pos, name)} is set to a literal value in plain text, {what}",
                    severity=severity,
                    why=why,
                )
        elif literal and named_example(file.path) and live_vendor_key(str(value)):
            yield _live_key_hit(name, pos)
        elif literal:
            yield Hit(pos, f"{shown.get(pos, name)} is set to a literal value in plain text", **example)
        elif not example and (default := _compose_secret_default(file, name, value)):
            variable, operator, whole = default
            yield Hit(
                pos,
                f"{shown.get(pos, name)} {'defaults to' if whole else 'holds'} a literal value in plain text "
                f"(${{{variable}{operator}...}}), which Compose uses where {variable} is not set",
                severity="low",
                why=f"a fallback: `docker compose up` runs with it unless {variable} is set, which the .env beside "
                "the file does not do",
            )
        elif (
            file.kind == kinds.ENV
            and isinstance(value, str)
            and guessable_default(name, value)
            and (example or not stand_in_comment(file, pos))
        ):
            yield Hit(
                pos,
                f"{shown.get(pos, name)} defaults to the word {value.strip()!r} in a committed environment file",
                **(example or {"why": "whatever reads the file and sets nothing else runs with it"}),
            )


#: The embedded file's kind and syntax by its data key's extension (``config.yaml``, ``app.ini``).
_EMBEDDED_BY_EXTENSION = {
    ".yaml": (kinds.YAML, "yaml"),
    ".yml": (kinds.YAML, "yaml"),
    ".json": (kinds.JSON, "json"),
    ".toml": (kinds.TOML, "toml"),
    ".env": (kinds.ENV, "env"),
    ".sh": (kinds.SHELL, "shell"),
    **{name: (kinds.TEXT, "text") for name in _INI_NAMES if name.startswith(".")},
}
#: Extensions whose text is no configuration the readers here know (a template, a script of
#: another language, a certificate): such a value is not read by its content either.
_EMBEDDED_SKIPPED = (".tpl", ".j2", ".py", ".js", ".lua", ".rb", ".pem", ".crt", ".xml", ".html", ".sql", ".md")
_EMBEDDED_MOST = 64  #: data values of one manifest read as files; the rest are left as they are
_EMBEDDED_BYTES = 262_144  #: a larger value is not read as a file
#: Content that is an INI or .properties file: a ``[section]`` line, or ``key=value`` lines only.
_INI_SECTION = lazy(r"(?m)^[ \t]*\[[\w .:\"'-]{1,120}\][ \t]*$")
_PROPERTIES_LINE = lazy(r"[ \t]*(?:[#;!].*|[A-Za-z_][\w.\-]{0,120}[ \t]*=.*|)")
_YAML_LINE = lazy(r"(?m)^[ \t]*(?:- )?[\w.\-\"']{1,120}:(?:[ \t]|$)")


def _embedded_configuration(file: SourceFile) -> Iterator[Hit]:
    """PS002 in the files a ConfigMap embeds: each multi-line ``data:`` value read as the file its
    key names (``config.yaml``, ``application.properties``, ``app.env``, ``settings.json``) or,
    with no known extension, as its content looks, graded as that file would be, each finding
    placed at its line and column in the manifest. A Secret's ``data`` and ``stringData`` are not
    read this way."""
    try:
        documents = file.documents
    except SyntaxProblem:
        return
    left = _EMBEDDED_MOST
    for document in documents:
        if not isinstance(document, PMap) or document.get("kind") != "ConfigMap":
            continue
        data = document.get("data")
        if not isinstance(data, PMap):
            continue
        for key, value in data.items():
            if not isinstance(value, PStr) or value.style == ">" or len(value) > _EMBEDDED_BYTES:
                continue  # a folded value's lines are joined: no file's lines are left in it
            left -= 1
            if left < 0:
                return
            embedded = _embedded_file(file, str(key), str(value))
            if embedded is None:
                continue
            try:
                hits = list(_named_literals(embedded))
            except SyntaxProblem:
                continue  # not the syntax its name or content says: nothing read from it
            for hit in hits:
                yield hit._replace(pos=_manifest_pos(file, value, embedded, hit.pos))


def _embedded_file(file: SourceFile, key: str, text: str) -> SourceFile | None:
    """The file a ConfigMap's data value holds, named under the manifest's path, or None when
    neither its key's extension nor its content says which syntax it is in."""
    name = key.strip().lower()
    path = posixpath.join(file.path, key.strip())
    found = None
    if name.endswith(".env") or name.startswith(".env"):
        found = (kinds.ENV, "env")
    elif name.endswith(_EMBEDDED_SKIPPED):
        return None
    else:
        found = next((kind for end, kind in _EMBEDDED_BY_EXTENSION.items() if name.endswith(end)), None)
    if found is None:
        if "\n" not in text.strip() and not text.lstrip().startswith("{"):
            return None  # one line under a key with no extension: a setting of its own, not a file
        found, suffix = _embedded_by_content(text)
        if found is None:
            return None
        path += suffix
    kind, syntax = found
    return SourceFile(path, text, kind, syntax, settings=file.settings, root=file.root)


def _embedded_by_content(text: str) -> tuple[tuple[str, str] | None, str]:
    """(kind, syntax) and a suffix for the name of an embedded file with no known extension:
    JSON (an object), INI (a ``[section]`` line, or ``key=value`` lines only) or YAML
    (``key: value`` lines); (None, "") for other text (a script, an nginx configuration)."""
    head = text.lstrip()
    if head.startswith("{"):
        return (kinds.JSON, "json"), ".json"
    lines = text.splitlines()
    if _INI_SECTION.search(text) or all(_PROPERTIES_LINE.fullmatch(line) for line in lines):
        return (kinds.TEXT, "text"), ".ini"
    if _YAML_LINE.search(text) and not head.startswith(("#!", "<")):
        return (kinds.YAML, "yaml"), ".yaml"
    return None, ""


def _manifest_pos(file: SourceFile, value: PStr, embedded: SourceFile, pos: Pos) -> Pos:
    """Where position ``pos`` of the embedded file is in the manifest: inside the block scalar
    (its indentation added) or the quoted string that holds the file."""
    offset = sum(len(line) for line in embedded.text.splitlines(keepends=True)[: pos.line - 1]) + pos.column - 1
    return file.str_pos(value, min(max(offset, 0), len(value)))


#: A variable with a default in a Compose value: ``${NAME:-word}`` or ``${NAME-word}``.
_COMPOSE_DEFAULT = lazy(r"\$\{([A-Za-z_]\w{0,120})(:?-)([^${}]{1,256})\}")


def _compose_secret_default(file: SourceFile, name: str, value: object) -> tuple[str, str, bool] | None:
    """(variable, ``:-`` or ``-``, whether it is the whole value) of the first default in a
    Compose value that is a literal secret, where the ``.env`` beside the file does not set the
    variable: the value the service gets from ``docker compose up``. A default is a secret's when
    the variable's own name says so (``${MONGO_INITDB_ROOT_PASSWORD:-mongopass123}``, wherever it
    is used: under ``ME_CONFIG_MONGODB_ADMINPASSWORD``, inside a URL or a command), or when it is
    the whole value of a key whose name says so (``API_KEY: ${KEY_FROM_VAULT:-s3cr3t-k3y}``)."""
    if file.kind != kinds.COMPOSE or not isinstance(value, str) or "${" not in value:
        return None
    whole = value.strip()
    found = list(_COMPOSE_DEFAULT.finditer(whole))
    if not found:
        return None
    from sandkit.lint.consumers.compose import project_of

    env = project_of(file).env(needed=True)
    for match in found:
        variable, operator, default = match.group(1), match.group(2), match.group(3).strip()
        if variable in env:
            continue  # the .env sets it: its value is what runs, and it is read in the .env
        alone = match.group() == whole
        if literal_secret(variable, default) or (alone and literal_secret(name, default)):
            return variable, operator, alone
    return None


def _test_value(file: SourceFile, value: str, pos: Pos) -> tuple[str, str, str] | None:
    """How sure a literal is a test's, as (severity, why, what), or None when nothing says so.

    Both the place (a test's script, a CI job with its own services) and the value
    (``ci-e2e-secret-not-for-production-use``) saying so: a test fixture, left out unless examples
    are included (then low). One of them: info, since a test script may log in to a shared service
    with a real password, and a value that says "test" may still be what a deployment runs with."""
    role = test_role(file, pos, value)
    marked = says_test(value, loose=role is not None)
    if role is not None and marked:
        return "low", f"{role}, and the value says it is a test's", "a test's value"
    if role is not None:
        why = f"{role}: usually a throwaway value, though a real credential here is still a leak"
        return "info", why, "in a test"
    if marked:
        why = "the value says it is a test's; whatever deploys with it runs with a published secret"
        return "info", why, "a value that says it is a test's"
    return None


#: How many different literal values one key may take in a file before it is a data set's column.
COLUMN_VALUES = 10


def data_columns(pairs: list[tuple[str, Any, Pos]]) -> set[str]:
    """Keys that take COLUMN_VALUES or more different values in one JSON or YAML file: a column of a
    data set (``"identityKey": "153101ACH|oral"`` in each of hundreds of records), not a setting.
    Configuration gives a secret's key one value, or one per environment or component."""
    values: dict[str, set[str]] = {}
    for name, value, _pos in pairs:
        if isinstance(value, str):
            values.setdefault(name, set()).add(value)
    return {name for name, seen in values.items() if len(seen) >= COLUMN_VALUES}


def has_secret_key_hint(text: str) -> bool:
    """Whether ``_SECRET_KEY_HINT`` occurs in ``text``.

    A case-insensitive pattern with no literal start is tried at every character (about 20 MB/s);
    every match starts with one of a few words, so in ASCII text (lowered: there case-insensitive
    means just that) the words are found in one pass and the pattern is tried only where they are.
    Other text keeps the pattern, whose Unicode case folding also reads "ſ" as "s" and "K" as "k".
    """
    if not text.isascii():
        return _SECRET_KEY_HINT.search(text) is not None
    lowered = text.lower()
    return any(_LOWER_KEY_HINT.match(lowered, at) for _, at in _KEY_HINT_WORDS.occurrences(lowered))


def _is_json_schema(file: SourceFile) -> bool:
    """A JSON Schema describes secret-named keys (``"password": {"type": "string"}``); it holds none."""
    if file.syntax not in ("json", "yaml") or "$schema" not in file.text[:2000]:
        return False
    top = file.plain_json
    if top is NOT_PLAIN:
        documents = file.documents
        top = documents[0] if documents else None
    return isinstance(top, dict) and "json-schema.org" in str(top.get("$schema", ""))


def _may_hold_a_literal(top: Any) -> bool:
    """False only when no mapping of a plain JSON document pairs a secret-named key with a
    literal, and a positioned walk of it would meet none of its bounds (depth, values)."""
    if top is NOT_PLAIN:
        return True
    values_left = MAX_VALUES // 4  # other rules' walks of the file draw on the same budget
    stack: list[tuple[Any, int]] = [(top, 0)]
    while stack:
        node, depth = stack.pop()
        values_left -= len(node) if isinstance(node, (dict, list)) else 0
        if depth >= MAX_DEPTH or values_left < 0:
            return True
        if isinstance(node, dict):
            for key, value in node.items():
                if isinstance(value, str):
                    if literal_secret(str(key), value):
                        return True
                elif isinstance(value, (dict, list)):
                    stack.append((value, depth + 1))
        elif isinstance(node, list):
            stack.extend((item, depth + 1) for item in node if isinstance(item, (dict, list)))
    return False


def _pairs(file: SourceFile) -> Iterator[tuple[str, Any, Pos]]:
    if file.kind == kinds.TEXT:
        lower = file.path.lower()
        if lower.endswith((".netrc", "_netrc")):
            for match, _pos in file.search(_NETRC_PASSWORD):
                yield "password", match.group(1), file.pos_at(match.start(1))
        elif lower.endswith(_INI_NAMES):
            for match, _pos in file.search(_INI_LINE):
                name = match.group(1).rsplit(":", 1)[-1]
                value = match.group(2).strip().strip("\"'")
                yield name, value, file.pos_at(match.start(2))
        return
    if file.kind == kinds.ENV:
        for entry in file.env_entries:
            yield str(entry.name), str(entry.value), entry.value.pos
        return
    if file.kind in _ENV_LIKE or file.kind in (
        kinds.COMPOSE,
        kinds.KUBERNETES,
        kinds.DEVCONTAINER,
        kinds.WORKFLOW,
        kinds.KIT,
        *_OTHER_CI,
    ):
        for setting in environment(file):
            yield setting.name, setting.value, setting.pos
    if file.syntax in ("yaml", "json", "toml"):
        for node in file.mappings():
            for key, value in node.items():
                if isinstance(value, str):
                    yield str(key), value, node.pos_of(key)


@rule("PS003", "configured-secret-pattern", category="plaintext-secret", severity="high", kinds=("*",))
def configured_secret_pattern(file: SourceFile) -> Iterator[Hit]:
    """A value matches one of the configuration's own secret patterns.

    ``extra-secret-patterns`` in ``[tool.sandkit]`` (or .sandkit.toml) lists regular
    expressions for an organisation's own token formats (``ACME-[0-9a-f]{32}``). Patterns that
    do not compile are ignored. Like every pattern here, write them anchored on a fixed prefix
    with bounded repetition, so they stay fast on any input.

    Why:
    Internal tokens are as dangerous in a repository as public ones, and no generic scanner
    knows their shape.

    Fix:
    Revoke the credential, remove it from the file (and history), and pass it at run time.
    """
    patterns = file.settings.extra_secret_patterns
    example = _example(file, any_part=False)  # as PS001: a token in a known format
    if not patterns or example is None:
        return
    for token in find_configured(file.text, patterns):
        yield Hit(file.pos_at(token.start), f"value matches {token.kind} ({token.shown})", **example)


#: Files beside which a framework reads ``.env.<mode>`` by itself, with no file naming it: Vite,
#: Next.js and dotenv-flow (package.json), Symfony and Laravel (composer.json, artisan), Rails (Gemfile).
_FRAMEWORK_FILES = ("package.json", "composer.json", "artisan", "Gemfile")
#: Folders a search for a file's name skips: tools' and packages' copies, not the project's own.
_SKIPPED_FOLDERS = frozenset({".git", "node_modules", "vendor", ".venv", "venv", "__pycache__", ".tox", "dist"})
_MOST_SEARCHED = 5000  # files read when looking for a name; with more, the finding stays
_SEARCHED_BYTES = 262_144  # of each
_SEARCHED_TOTAL = 64_000_000  # bytes read in all; with more, the finding stays


@repository_pass("unread-env-file")
def lower_unread_env_files(findings: list[Finding], repo: RepositoryView) -> list[Finding]:
    """Settle PS002 in an ``.env.<name>`` file (``.env.prod``, ``.env.dev``): Compose reads only
    ``.env`` by itself, so such a file is read only where something names it (a service's
    ``env_file``, ``--env-file``, a script, a workflow, a document's instructions). When no other
    file of the repository holds its name and no framework beside it reads ``.env.<mode>`` by
    itself, the finding is info: nothing read here uses the file."""
    candidates = {
        f.path
        for f in findings
        if f.rule == "PS002"
        and f.severity != "info"
        and not named_example(f.path)  # nothing is meant to read it: the key is leaked by the commit itself
        and _unnamed_env_candidate(f.path, repo)
    }
    if not candidates:
        return findings
    named = _names_found(repo.root, {posixpath.basename(p) for p in candidates}, candidates)
    if named is None:
        return findings  # too many files to search: the findings stay as they are
    out: list[Finding] = []
    for finding in findings:
        if finding.path in candidates and posixpath.basename(finding.path) not in named and finding.severity != "info":
            finding = finding.regraded(
                "info",
                f"{finding.message} (info: nothing in the repository names "
                f"{posixpath.basename(finding.path)}, no Compose env_file, script or framework here reads it)",
            )
        out.append(finding)
    return out


def _unnamed_env_candidate(path: str, repo: RepositoryView) -> bool:
    """An ``.env.<name>`` file with no framework that reads such files by itself in its folder
    or one above it."""
    name = posixpath.basename(path)
    if not name.startswith(".env.") or len(name) <= len(".env."):
        return False
    folder = posixpath.dirname(path)
    while True:
        if any(repo.exists(posixpath.join(folder, f) if folder else f) for f in _FRAMEWORK_FILES):
            return False
        if not folder:
            return True
        folder = posixpath.dirname(folder)


def _names_found(root: str, names: set[str], own: set[str]) -> set[str] | None:
    """Which of ``names`` some file under ``root`` holds, besides the files in ``own``, other
    ``.env*`` files and ignore lists (which name a file to leave out, not to read); None when
    there are more than _MOST_SEARCHED files or _SEARCHED_TOTAL bytes to read."""
    found: set[str] = set()
    wanted = {name: name.encode() for name in names}
    left = _MOST_SEARCHED
    bytes_left = _SEARCHED_TOTAL
    real_root = os.path.realpath(root)
    for folder, dirs, files in os.walk(real_root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED_FOLDERS)
        for file_name in sorted(files):
            if file_name.startswith(".env") or file_name.endswith("ignore"):
                continue
            path = os.path.join(folder, file_name)
            if os.path.islink(path) or os.path.relpath(path, real_root).replace(os.sep, "/") in own:
                continue
            left -= 1
            if left < 0:
                return None
            try:
                with open(path, "rb") as handle:
                    raw = handle.read(_SEARCHED_BYTES)
            except OSError:
                continue
            bytes_left -= len(raw)
            if bytes_left < 0:
                return None
            found.update(name for name, data in wanted.items() if data in raw)
            if len(found) == len(wanted):
                return found
    return found


#: Env files a framework loads only in its test mode, by the framework that does so.
_TEST_MODE_FILES = {".env.testing": ("laravel",), ".env.test": ("symfony", "node", "rails")}

#: A phpunit.xml line that runs the tests in Laravel's ``testing`` or Symfony's ``test`` mode.
_PHPUNIT_MODE = lazy(r"""name=["']APP_ENV["'][^>]*value=["'](testing|test)["']""")
#: package.json dependencies that load ``.env.test`` by themselves when the mode is ``test``
#: (``NODE_ENV=test``, Vitest's default mode): Next.js, Vite and Vitest, dotenv-flow, Create React App.
_NODE_TEST_LOADERS = lazy(r'"(next|vite|vitest|dotenv-flow|react-scripts|@next/env)"\s*:')
#: A package.json script that builds or serves in the ``test`` mode: then ``.env.test`` is a
#: deployed stage's (``vite build --mode test``, ``NODE_ENV=test next build``), not a test run's.
_TEST_MODE_SERVED = lazy(
    r"""(?m)^\s*"[^"\n]*"\s*:\s*"(?![^"\n]*\b(?:vitest|jest|playwright|cypress|mocha)\b)[^"\n]*"""
    r"""(?:--mode[= ]test\b|NODE_ENV=test\b)[^"\n]*"\s*,?\s*$"""
)

#: A Gemfile's dotenv, which loads ``.env.test`` in Rails' test environment.
_DOTENV_GEM = lazy(r"""gem\s+["']dotenv(?:-rails)?["']""")


@repository_pass("test-mode-env-file")
def lower_test_mode_env_files(findings: list[Finding], repo: RepositoryView) -> list[Finding]:
    """Settle PS002 in an env file that a framework beside it loads only when it runs its tests:
    Laravel's ``.env.testing`` (phpunit.xml sets ``APP_ENV`` to ``testing``), Symfony's
    ``.env.test`` (phpunit.xml sets it to ``test``), ``.env.test`` of a Node project whose loader
    reads it in the test mode (Next.js, Vite, Vitest, dotenv-flow, Create React App; not when a
    script builds or serves in that mode) and of a Rails project with dotenv. Its values are a
    test run's: the finding is info, as a test script's are."""
    out: list[Finding] = []
    settled: dict[str, str | None] = {}
    for finding in findings:
        if finding.rule == "PS002" and finding.severity != "info":
            if finding.path not in settled:
                settled[finding.path] = _test_mode_loader(finding.path, repo)
            loader = settled[finding.path]
            if loader is not None:
                name = posixpath.basename(finding.path)
                finding = finding.regraded(
                    "info",
                    f"{finding.message} (info: {loader} loads {name} only when it runs its tests)",
                )
        out.append(finding)
    return out


def _test_mode_loader(path: str, repo: RepositoryView) -> str | None:
    """The framework that loads the env file at ``path`` only in its test mode, or None: found
    in the file's folder or the nearest one above it with a project file."""
    name = posixpath.basename(path)
    frameworks = _TEST_MODE_FILES.get(name)
    if frameworks is None:
        return None
    folder = posixpath.dirname(path)
    while True:
        found = _test_mode_framework(folder, frameworks, repo)
        if found is not None:
            return found or None
        if not folder:
            return None
        folder = posixpath.dirname(folder)


def _test_mode_framework(folder: str, frameworks: tuple[str, ...], repo: RepositoryView) -> str | None:
    """The test-mode loader of the project in ``folder`` (``""`` when the folder holds a project
    that has none), or None when the folder holds no project file."""

    def here(name: str) -> str:
        return posixpath.join(folder, name) if folder else name

    composer, package, gemfile = (
        repo.read(here("composer.json")),
        repo.read(here("package.json")),
        repo.read(here("Gemfile")),
    )
    artisan = repo.exists(here("artisan"))
    if composer is None and package is None and gemfile is None and not artisan:
        return None
    phpunit = repo.read(here("phpunit.xml")) or repo.read(here("phpunit.xml.dist")) or ""
    modes = {m.group(1) for m in _PHPUNIT_MODE.finditer(phpunit)}
    if "laravel" in frameworks and "testing" in modes and (artisan or '"laravel/framework"' in (composer or "")):
        return "Laravel"
    if "symfony" in frameworks and "test" in modes and '"symfony/' in (composer or ""):
        return "Symfony"
    loader = _NODE_TEST_LOADERS.search(package) if "node" in frameworks and package else None
    if loader is not None and not _TEST_MODE_SERVED.search(package or ""):
        return loader.group(1)
    if "rails" in frameworks and gemfile and _DOTENV_GEM.search(gemfile):
        return "dotenv (Rails)"
    return ""
