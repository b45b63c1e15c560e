"""ci-secret-exposure: CI secrets handed to more code than the step that needs them.

An agent that opens a pull request, or a planted instruction that makes it edit a workflow,
runs code in CI. Every secret that code can see is one it can send out.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import NamedTuple

from sandkit.lazy_regex import lazy
from sandkit.lint.facts.expressions import EVERY_SECRET, SECRET_REF, exposed_secret_refs, secret_name
from sandkit.lint.facts.run_scripts import (
    REDIRECT,
    ScriptLine,
    Segment,
    program,
    script_lines,
    segment_at,
    segments,
    structure,
)
from sandkit.lint.facts.workflows import (
    BRANCH_ONLY_WHY,
    FULL_NAME,
    UNTRUSTED_TRIGGERS,
    jobs,
    named,
    names_this_repository,
    never_runs,
    own_name,
    repository_base,
    secret_refs,
    triggers,
    untrusted_checkout,
    workflow,
)
from sandkit.lint.kinds import WORKFLOW
from sandkit.lint.model import Hit
from sandkit.lint.registry import rule
from sandkit.lint.source import SourceFile
from sandkit.lint.syntax.shell import open_quote
from sandkit.lint.syntax.tree import PMap, Pos, PStr

_TOKEN_ONLY = frozenset({"GITHUB_TOKEN"})
# A secret whose name ends in one of these holds an identifier, not a credential: a Docker Hub
# user name, an Azure subscription or tenant id, an access key's id, an organisation or region
# kept in secrets only to keep it out of logs. Knowing it lets nobody in.
# A name a person or bot goes by is one too, however its words are joined: `USERNAME`, `USER_NAME`,
# `user-name`, `LOGIN_NAME`, `COMMITTER_NAME`, `AUTHOR_NAME`, `ACCOUNT_NAME` (and their e-mail, `EMAIL`).
_IDENTIFIER = lazy(
    r"(?:(?:^|_)(?:USER|LOGIN|E?MAIL|ORG|ORGANI[SZ]ATION|OWNER|NAMESPACE|REGION|PROJECT|ACCOUNT)|"
    r"(?:USER|LOGIN|COMMITTER|AUTHOR|ACCOUNT|DISPLAY)_?NAME)$"
)
#: A camel-cased name's words (``gitUserName``, ``botEmail``): a capital after a small letter or digit
#: starts a word, as ``_`` does.
_CAMEL = lazy(r"(?<=[a-z0-9])(?=[A-Z])")
# An id or ids, last or followed by up to two words saying where it is used (`VERCEL_PROJECT_ID_WEB`,
# `APP_ID_PROD_2`, `ALLOWED_CHAT_IDS`): an identifier too, unless it is a secret's or a session's id
# (Vault's AppRole `SECRET_ID` is half of a login; `CLIENT_SECRET_ID` may hold either) or a word after
# it names a credential (`GOOGLE_ID_TOKEN`, `ID_RSA`, `CLIENT_ID_JSON`).
_ID = lazy(r"(?:^|_)(?<!SECRET_)(?<!SESSION_)IDS?((?:_[A-Z0-9]+){0,2})$")
_CREDENTIAL_WORDS = frozenset(
    {"TOKEN", "TOKENS", "SECRET", "SECRETS", "KEY", "KEYS", "APIKEY", "PASSWORD", "PASSWD", "PASS", "PWD"}
    | {"PASSPHRASE", "PIN", "OTP", "TOTP", "MFA", "CREDENTIAL", "CREDENTIALS", "CREDS", "CERT", "CERTS"}
    | {"CERTIFICATE", "PAT", "AUTH", "ACCESS", "PRIVATE", "SIGNING", "SIG", "HMAC", "JWT", "COOKIE", "SESSION"}
    | {"SALT", "HASH", "PEM", "P12", "PFX", "JKS", "KEYSTORE", "RSA", "DSA", "ECDSA", "ED25519", "SSH", "GPG"}
    | {"PGP", "JSON", "FILE", "BASE64", "B64", "DATA", "CONTENT", "CONFIG", "KUBECONFIG", "DSN", "URL", "URI"}
    | {"WEBHOOK", "HOOK", "CONNECTION", "CONN", "STRING", "SA"}
)
# `uses: $/...` is GitHub's reference to the workflow's own repository at the running commit.
_SAME_REPOSITORY = ("./", "$/")
_MASK = "::add-mask::"


# An AWS role's ARN (`AWS_ROLE_ARN`, `*_ROLE_TO_ASSUME`, any `*_ARN`): what OIDC's assume-role is
# given, a name; the job's OIDC token is the credential.
_ARN = lazy(r"(?:^|_)(?:ARN|ROLE|ROLE_TO_ASSUME|ROLE_NAME)$")
# An address: a host, a domain, an endpoint, a registry or server URL (`HARBOR_REGISTRY_URL`,
# `*_SYNC_ENDPOINT`, `SMTP_HOST`). Not a webhook URL, which is the credential (whoever has it can
# post), nor a database's or queue's URL, which usually holds the password: those names hold none of
# these words, or a word of `_CREDENTIAL_WORDS` or `_HOLDS_LOGIN` besides.
_ADDRESS = lazy(
    r"(?:^|_)(?:(?:ENDPOINT|HOST|HOSTNAME|DOMAIN|FQDN|ADDRESS|ADDR|IP|SERVER|REGISTRY)(?:_(?:URL|URI))?|"
    r"(?:API|BASE|SITE|INSTANCE)_(?:URL|URI))$"
)
#: Last words that say a name holds an identifier whatever words come before (``SSH_HOST``,
#: ``SSH_PORT``, ``DEPLOY_PATH``, ``SSH_KEY_PATH``, ``DB_HOSTNAME``): a host, a port, a path or folder,
#: an id, a region or an address. Not ``URL``, ``URI`` or ``ENDPOINT``, which may hold a login or be
#: the credential (a webhook's, a database's URL): `_ADDRESS` reads those; nor a bare ``NAME``
#: (``KEY_NAME``, ``BOT_NAME``): `_IDENTIFIER` reads the names a person or bot goes by.
_IDENTIFIER_LAST = frozenset(
    {"HOST", "HOSTNAME", "PORT", "PATH", "DIR", "DIRECTORY", "FOLDER", "ID", "IDS", "REGION", "EMAIL"}
    | {"USER", "USERNAME", "DOMAIN", "FQDN", "IP", "ADDR"}
)
#: An id that is half of a login or a session's: Vault's AppRole ``SECRET_ID``, ``CLIENT_SECRET_ID``,
#: ``SESSION_ID`` (see `_ID`).
_SECRETS_ID = lazy(r"(?:^|_)(?:SECRET|SESSION)_IDS?$")
_HOLDS_LOGIN = frozenset({"DATABASE", "DB", "REDIS", "MONGO", "MONGODB", "AMQP", "RABBITMQ", "POSTGRES", "MYSQL"})
_HOLDS_LOGIN |= {"PROXY", "SIGNED", "PRESIGNED", "GIT", "REPO", "CLONE", "FEED", "INVITE", "SHARE", "CALLBACK"}
# A project's mapping file that names a project and holds no login: clasp's `.clasp.json` (a script
# id and a folder; its login is `.clasprc.json`, `CLASPRC_JSON`) and Firebase's `.firebaserc`.
_MAPPING_FILE = lazy(r"(?:^|_)(?:CLASP|CLASP_PROJECT|FIREBASERC)(?:_JSON)?$")


def _identifier_name(name: str) -> bool:
    """Whether a secret's (or a variable's) name says it holds an identifier, not a credential: a
    user, account, region or id, a role's ARN, an address (host, endpoint, registry URL) or a
    project's mapping file. A hyphen, or a capital in a camel-cased name, parts words as an
    underscore does (``github-username``, ``gitUserName``: ``GIT_USER_NAME``)."""
    upper = _CAMEL.sub("_", name).upper().replace("-", "_")
    if _IDENTIFIER.search(upper) or _ARN.search(upper) or _MAPPING_FILE.search(upper):
        return True
    if upper.rsplit("_", 1)[-1] in _IDENTIFIER_LAST and not _SECRETS_ID.search(upper):
        return True  # ``SSH_HOST``, ``SSH_PORT``, ``DEPLOY_PATH``, ``SSH_KEY_PATH``: the last word says what it holds
    words = set(upper.split("_"))
    if _ADDRESS.search(upper):
        return not words & ((_CREDENTIAL_WORDS - {"URL", "URI"}) | _HOLDS_LOGIN)
    found = _ID.search(upper)
    return found is not None and not set(found.group(1).split("_")) & _CREDENTIAL_WORDS


def _says_nothing(secret: str) -> bool:
    """Whether a secret's name holds no word of a credential (`..._SERVICE_PRINCIPAL`, `AZURE_SP`
    says neither): then the name of the variable it is put in tells what it holds."""
    words = set(secret.upper().replace("-", "_").split("_"))
    return not words & (_CREDENTIAL_WORDS | {"PRIVATEKEY", "APITOKEN", "PASSWORDS", "ADMIN"})


def _identifier_by_variable(variable: str, secret: str) -> bool:
    """A secret whose own name says nothing, put in a variable whose name says identifier
    (`ARM_CLIENT_ID: ${{ secrets.REPO_AZURE_TERRAFORM_USER_SERVICE_PRINCIPAL }}`)."""
    return _identifier_name(variable) and _says_nothing(secret) and secret not in (*_TOKEN_ONLY, EVERY_SECRET)


def _env_secrets(env: object) -> Iterator[tuple[str, str, PStr]]:
    """(variable, secret, value) for env entries whose value holds a secret: not one set to an
    expression that only tests it (``HAS_TOKEN: ${{ secrets.TOKEN != '' }}`` is true or false)."""
    if isinstance(env, PMap):
        for name, value in env.items():
            if isinstance(value, PStr):
                for match in exposed_secret_refs(value):
                    yield str(name), secret_name(match), value


@rule(
    "CS001",
    "secrets-in-broad-env",
    category="ci-secret-exposure",
    severity="medium",
    kinds=(WORKFLOW,),
    triggers=("secrets",),
)
def secrets_in_broad_env(file: SourceFile) -> Iterator[Hit]:
    """A secret is put in workflow-level or job-level `env`, so every step sees it.

    Workflow-level env reaches every step of every job, third-party actions included;
    job-level env reaches every step of the job. GITHUB_TOKEN is info: it is the workflow's own
    token, scoped by `permissions` and expiring with the job, and actions are handed it by
    default (`github.token`) anyway. A secret whose name says it holds an identifier, not a
    credential (`DOCKERHUB_USERNAME`, `AZURE_SUBSCRIPTION_ID`, `AWS_ACCESS_KEY_ID`, `*_ORG`,
    `*_REGION`, `*_EMAIL`), is not reported, nor an id followed by up to two words saying where it
    is used or a list of ids (`VERCEL_PROJECT_ID_WEB`, `ALLOWED_CHAT_IDS`); a secret's or a
    session's id (`VAULT_SECRET_ID`, `CLIENT_SECRET_ID`, `SESSION_ID`) and an id followed by a
    credential's word (`GOOGLE_ID_TOKEN`, `ID_RSA`) stay reported. Nor is a role's ARN
    (`AWS_ROLE_ARN`, `*_ROLE_TO_ASSUME`, any `*_ARN`), a name whose last word is a host, port,
    path, folder, id, region or address whatever its other words (`SSH_HOST`, `SSH_PORT`,
    `DEPLOY_PATH`, `SSH_KEY_PATH`; `SSH_PRIVATE_KEY` ends in a key), an address (`*_HOST`, `*_ENDPOINT`,
    `*_DOMAIN`, `*_REGISTRY_URL`, `*_SERVER_URL`, `*_API_URL`) or a project's mapping file
    (`CLASP_JSON`, `.clasp.json`; its login `CLASPRC_JSON` stays): a webhook URL, a database's,
    queue's or proxy's URL and any name with a credential's word stay reported. A secret whose
    own name says nothing (`..._SERVICE_PRINCIPAL`) put in a variable named as an identifier
    (`ARM_CLIENT_ID`) is info, with that reason. An expression that only tests
    a secret (`${{ secrets.X != '' }}`, `!secrets.X`, `contains(secrets.X, 'a')`,
    `secrets.X && 'yes' || 'no'`) becomes true, false or a literal, not the secret, and is not
    reported; `secrets.X || 'default'` is the secret. Step-level env is the intended place and is
    not a finding.

    Why:
    Every action and script in scope can read the secret from its environment, and a single
    compromised or malicious action (or a command an agent added) can send it out.

    Fix:
    Move the secret to the `env:` (or `with:`) of the one step that uses it.
    """
    doc = workflow(file)
    if doc is None:
        return
    scopes = [("workflow-level env", doc.get("env"), "every job")]
    scopes += [
        (f'env of job "{job.name}"', job.spec.get("env"), f'every step of job "{job.name}"') for job in jobs(doc)
    ]
    for label, env, reach in scopes:
        for name, secret, value in _env_secrets(env):
            if _identifier_name(secret):
                continue
            if _identifier_by_variable(name, secret):
                yield Hit(
                    value.pos,
                    f"{label} exposes secrets.{secret} (as {name}) to {reach}, an identifier rather than a credential",
                    severity="info",
                    why=f"{name} names an identifier (an id, user, role, address), and secrets.{secret} names "
                    "no credential",
                )
                continue
            yield Hit(
                value.pos,
                f"{label} exposes secrets.{secret} (as {name}) to {reach}",
                severity="info" if secret in _TOKEN_ONLY else "",
                why="the workflow's own token, scoped by its permissions and expiring with the job",
            )


@rule(
    "CS002",
    "secrets-inherit",
    category="ci-secret-exposure",
    severity="medium",
    kinds=(WORKFLOW,),
    triggers=("inherit",),
)
def secrets_inherit(file: SourceFile) -> Iterator[Hit]:
    """A reusable workflow is called with `secrets: inherit`, passing every secret.

    A reusable workflow of the same repository (`uses: ./.github/workflows/...`, or the
    `$/.github/workflows/...` form, which names the workflow's own repository at the running
    commit) is not reported: its file is reviewed and changed with the caller's, it reads only
    the secrets its own text names, and whoever can edit it can as well pass any secret
    explicitly; `inherit` hands it nothing an inlined job would not have. One of the same
    repository called by its full name (`OWNER/REPO/.github/workflows/x.yml@v1.2.3`, as an umbrella
    or compatibility workflow calls its siblings at a release tag) is low when `OWNER/REPO` is the
    `origin` remote in the checkout's `.git/config` (as for CP002): the secrets stay in the
    repository's own code, at the ref it names, which the same maintainers write; passing only the
    ones it needs is a least-privilege nit. A workflow of another repository, at any ref, is
    reported; when no origin remote says whose the checkout is and the checkout has a file at the
    path named, the message says the call may be this repository's own.

    Why:
    The called workflow gets all repository, environment and organisation secrets, not the
    one or two it needs; a change to it (or to a remote one at a moving ref) can use them all.

    Fix:
    Pass the secrets the called workflow declares: `secrets: {NPM_TOKEN: ${{ secrets.NPM_TOKEN }}}`.
    """
    doc = workflow(file)
    if doc is None:
        return
    for job in jobs(doc):
        value = job.spec.get("secrets")
        if isinstance(value, PStr) and value == "inherit":
            uses = str(job.spec.get("uses") or "").strip()
            if uses.startswith(_SAME_REPOSITORY):
                continue
            target = uses or "a reusable workflow"
            message = f'job "{job.name}" passes every secret to {target} (secrets: inherit)'
            base = repository_base(file)
            full = FULL_NAME.fullmatch(uses)
            if full is not None and base is not None and names_this_repository(base, uses):
                yield Hit(
                    value.pos,
                    f"{message}, a workflow of this repository at {full.group(4)}",
                    severity="low",
                    why="the secrets stay in the repository's own code, at the ref it names: passing only "
                    "those it needs is a least-privilege nit",
                )
                continue
            if full is not None and base is not None and own_name(base) is None and _here(base, full.group(3)):
                message += (
                    ": another repository's, or this one's (no origin remote here says; it has a file of that path)"
                )
            yield Hit(value.pos, message)


def _here(base: str, relative: str) -> bool:
    """Whether the repository at ``base`` has a file at ``relative`` (a workflow's path)."""
    if ".." in relative.split("/"):
        return False
    try:
        return os.path.isfile(os.path.join(base, *relative.split("/")))
    except (OSError, ValueError):
        return False


@rule(
    "CS003",
    "secrets-with-untrusted-code",
    category="ci-secret-exposure",
    severity="critical",
    kinds=(WORKFLOW,),
    triggers=("pull_request_target", "workflow_run"),
)
def secrets_with_untrusted_code(file: SourceFile) -> Iterator[Hit]:
    """A pull_request_target or workflow_run job checks out untrusted code and has secrets.

    The job checks out the pull request's head (`ref: ${{ github.event.pull_request.head.sha }}`,
    `refs/pull/...`, the head repository, or workflow_run's `head_sha`, `head_commit.id` or
    `head_repository`) and references a secret anywhere (its env, steps, `secrets: inherit`) or
    inherits one from workflow-level env. A branch name alone (`github.head_ref`,
    `pull_request.head.ref`, workflow_run's `head_branch`) with no `repository:` input, or with the
    workflow's own, fetches the base repository's branch of that name, which only those with push
    access write (a fork's branch is not there): low. A secret only tested in an expression
    (`${{ secrets.X != '' }}`) is not held.

    Why:
    These triggers run in the base repository's context with its secrets, even for a pull
    request from a fork. Once the fork's code is checked out, its build scripts, tests or
    package hooks run with those secrets within reach.

    Fix:
    Use `pull_request` for building untrusted code; keep privileged steps in a separate
    workflow that never checks out the pull request's code, and pass data as artifacts.
    """
    doc = workflow(file)
    if doc is None:
        return
    risky = triggers(doc) & set(UNTRUSTED_TRIGGERS)
    if not risky:
        return
    inherited = {name for name, _ in secret_refs(file, doc.get("env"))}
    for job in jobs(doc):
        found = [c for c in map(untrusted_checkout, job.steps) if c is not None]
        if not found:
            continue
        checkout = next((c for c in found if not c.branch_only), found[0])  # the fork's code first
        names = sorted({s for s, _ in secret_refs(file, job.spec)} | inherited)
        names = [n for n in names if n != "GITHUB_TOKEN"] or names
        if not names:
            continue
        on = "/".join(sorted(risky))
        if checkout.branch_only:
            yield Hit(
                checkout.value.pos,
                f'job "{job.name}" runs on {on}, checks out the base repository\'s branch named by the '
                f"pull request ({checkout.value}) and has secrets ({named(names, 4)})",
                severity="low",
                why=BRANCH_ONLY_WHY,
            )
            continue
        yield Hit(
            checkout.value.pos,
            f'job "{job.name}" runs on {on}, checks '
            f"out untrusted code ({checkout.value}) and has secrets "
            f"({named(names, 4)})",
        )


@rule(
    "CS004",
    "secret-printed-or-written",
    category="ci-secret-exposure",
    severity="high",
    kinds=(WORKFLOW,),
    triggers=(
        "secrets",
        *("auth token", "access_tokens", "ACTIONS_ID_TOKEN", "-token", "get-login-password", "create token"),
        *("vault ", "op read", "bw get", "token create", "assume-role", ".outputs."),
    ),
)
def secret_printed_or_written(file: SourceFile) -> Iterator[Hit]:
    """A `run:` step echoes a secret or writes it to a file.

    A line of a `run:` script that prints `${{ secrets.X }}` (`${{ toJSON(secrets) }}` is every
    secret; `secrets.X` outside `${{ }}` is text, not a reference) or a variable set from a
    secret in the step, job or workflow env, with echo/printf (or edits it into text with sed,
    awk, jq, yq), a here-document or here-string holding it given to cat, tee or base64, and
    where that output goes: the log, or a file by `>`, `>>` or `| tee FILE`, $GITHUB_ENV and
    $GITHUB_OUTPUT included. A secret given to a command that stores it in a configuration file
    is written too: `npm config set '//host/:_authToken' "$NPM_TOKEN"` (and `npm set`, `pnpm`
    and `yarn config set`, `pip config set`), `git config` with the secret in the key or value
    (`url."https://x:${{ secrets.PAT }}@github.com/".insteadOf`), `aws configure set`, `kubectl
    config set-credentials`, `poetry config http-basic.*|pypi-token.*`, `composer config`,
    `bundle config`; a `'$NAME'` in single quotes stores the placeholder, which the tool expands
    when it reads it, and is not a finding. Piping into a command (`echo "$TOKEN" | docker login
    --password-stdin`), `::add-mask::`, `> /dev/null`, logins (`docker login`, `npm login`: the
    tool's credential store) and a secret passed as an argument of any other command are not
    findings: `gpg --passphrase '${{ secrets.X }}' --export-secret-key > key.asc` writes the key
    gpg makes, not the passphrase. `sed -i` (and `-i.bak`, `--in-place`) writes what it edits in
    to its file. A secret whose name, and the name of the variable holding it, says it holds an
    identifier (`CF_ZONE_ID: ${{ secrets.CLOUDFLARE_ZONE_ID }}`, `secrets.VERCEL_PROJECT_ID_WEB`, as
    for CS001: an ARN, an address, a project's mapping file; or a secret named for nothing held in
    a variable named as an identifier; a user's name in any spelling, `USER_NAME`, `user-name`,
    `gitUserName`, `COMMITTER_NAME`; a name whose last word is a host, port, path, folder, id,
    region or address, whatever its other words: `SSH_HOST`, `SSH_PORT`, `DEPLOY_PATH`,
    `SSH_KEY_PATH`, not `SECRET_ID`) is info. What `git config user.name` or `user.email` (and
    `author.*`, `committer.*`) stores is who commits, shown in every commit: info whatever feeds
    it, unless the secret's or variable's name holds a credential's word (`BOT_TOKEN`,
    `PASSWORD`). Commands that pass their input on re-encoded are
    followed like cat: `echo "$KEY" | gpg --dearmor > key.gpg` (and `-o FILE`), `base64 -d`,
    `openssl base64 -d`, `openssl enc -a -d` with no cipher, `xxd -r`, `tr`, `gunzip`; gpg
    decrypting or importing, openssl with a cipher, make something else. The script is read in
    bash's lines: a command continued with a backslash
    (`printf '%s' "$TOKEN" \\` then `| docker login --password-stdin`) is one command, and a
    here-document opened inside `"$(...)"` is one. A variable set to, or a line holding, an
    expression that only tests a secret (`HAS_TOKEN: ${{ secrets.X != '' }}`, then
    `echo "has=$HAS_TOKEN" >> $GITHUB_OUTPUT`) prints true or false, not the secret. A variable
    the script sets to a credential it mints is a secret too (`TOKEN=$(gh auth token)`, an App
    installation token from `/access_tokens`, the job's OIDC token, `gcloud auth
    print-access-token`, `az account get-access-token`, `aws ecr get-login-password`, `aws sts
    assume-role`, `kubectl create token`, `vault read`, `op read`): GitHub masks none of them in
    the log unless the script adds `::add-mask::`; so is a variable set from an action's
    output named as a credential (`APP_TOKEN: ${{ steps.app.outputs.token }}` after
    `actions/create-github-app-token`), which the action masks in the log but not in a file.
    Output sent to stdout inside a brace group or subshell goes where the group's redirection or
    pipe sends it (`{ echo "X=$ID"; ...; } >> "$GITHUB_ENV"`, over several lines too; `{ ...; } |
    docker login --password-stdin` is a command's input). A secret written into a file a tool reads
    its credential from is low, the usual way to hand that tool its token: `~/.npmrc`, `.npmrc`,
    `.yarnrc.yml`, `~/.netrc`, `.pypirc`, `pip.conf`, `~/.gitconfig` and `.git/config` (also by
    `git config url."https://x:TOKEN@github.com/".insteadOf`, `npm config set` and the other
    configuration commands above), `.git-credentials`, `~/.docker/config.json`, `~/.m2/settings.xml`,
    `~/.gradle/gradle.properties`, `~/.aws/credentials`, `~/.kube/config`, `~/.cargo/credentials`,
    any file directly under `~/.ssh/` (`id_*`, `deploy_key`, `config`), or a key file (`*.key`,
    `*.pem`, `*.p12`, `*.jks`, `*.gpg`, `*.asc`: `echo "$KEY" > /tmp/cosign.key` for a later
    `--key`). What stays is that every later step can read the file: medium when a later step of the
    job runs a third-party action (not `actions/*` or `github/*`, not a local one, not one of this
    repository's owner when its `origin` remote says who that is) not pinned to a 40-character
    commit, or when the file is in the workspace (a relative path, `$GITHUB_WORKSPACE/...`; `~`,
    `$HOME`, `$RUNNER_TEMP`, `/tmp` and other absolute paths are outside) and a later step uploads
    an artifact or saves a cache. `git config --file PATH` (`-f PATH`, `--file=PATH`) writes PATH,
    not the checkout's `.git/config`: the message names it and its path places it. A file a later
    step removes (`rm -f "$RUNNER_TEMP/gitconfig"`, in a step with no `if:` or one run `always()`) is
    graded by the steps before that one; one the writing step removes later in its own script is
    info, since no later step can read it. A variable made from secrets and more text
    (`IMAGE_NAME: ${{ secrets.DOCKER_USERNAME }}/app`) carries their grade: info when each names
    an identifier. A job or step whose `if:` is always false is not read. The message names the
    file and the risk. The log,
    `$GITHUB_OUTPUT`, `$GITHUB_STEP_SUMMARY`, `$GITHUB_ENV` and any other file (`.env`, `token.txt`)
    keep high.

    Why:
    Masking in logs is best-effort (encoded or split values escape it), and a file in the
    workspace is picked up by caches, artifacts and every later step or action.

    Fix:
    Pass the secret to the command through its environment or stdin (npm and yarn read
    `${NPM_TOKEN}` in .npmrc and .yarnrc.yml themselves), and never store it in the workspace or
    in $GITHUB_ENV.
    """
    doc = workflow(file)
    if doc is None:
        return
    top = {name: secret for name, secret, _ in _env_secrets(doc.get("env"))}
    base = repository_base(file)
    own = (own_name(base) or "") if base is not None else ""
    top_derived = _derived_identifiers(doc.get("env"))
    for job in jobs(doc):
        job_vars = {**top, **{name: secret for name, secret, _ in _env_secrets(job.spec.get("env"))}}
        job_derived = {**top_derived, **_derived_identifiers(job.spec.get("env"))}
        minting = _minting_steps(job.steps)
        for index, step in enumerate(job.steps):
            run = step.get("run")
            if not isinstance(run, PStr) or never_runs(step):
                continue  # ``if: false``: a step switched off prints and writes nothing
            step_vars = {name: secret for name, secret, _ in _env_secrets(step.get("env"))}
            names = {**job_vars, **step_vars, **_minted(run), **_from_outputs(step.get("env"), minting)}
            derived = {**job_derived, **_derived_identifiers(step.get("env"))}
            later = _Later.of(job.steps[index + 1 :], own.split("/", 1)[0])
            yield from _leaks(file, run, names, later, frozenset(n for n, ids in derived.items() if ids))


def _derived_identifiers(env: object) -> dict[str, bool]:
    """For each env variable made from secrets and more (``IMAGE_NAME: ${{ secrets.DOCKER_USERNAME
    }}/app``, ``${{ secrets.ORG }}-${{ secrets.REGION }}``): whether every secret it holds is an
    identifier, so that it carries their grade whatever it is called. A variable set to one secret
    whole is not among them (its own name is read with the secret's, as before), nor one whose name
    says it holds a credential. A later scope's variable replaces an earlier one's (False, when it
    is not derived from identifiers)."""
    found: dict[str, bool] = {}
    if not isinstance(env, PMap):
        return found
    for name, value in env.items():
        if not isinstance(value, PStr):
            continue
        refs = exposed_secret_refs(value)
        if not refs:
            continue
        rest = _WHOLE_EXPRESSION.sub("", str(value)).strip()
        whole = len(refs) == 1 and not rest
        found[str(name)] = (
            not whole
            and not _says_credential(str(name))
            and all(_identifier_name(secret_name(ref)) and secret_name(ref) not in _TOKEN_ONLY for ref in refs)
        )
    return found


#: A ``${{ ... }}`` expression, whole.
_WHOLE_EXPRESSION = lazy(r"\$\{\{.*?\}\}")


#: A command whose output is a credential made while the job runs: GitHub's CLI token, an App
#: installation token, the job's OIDC token, a cloud CLI's access token or registry password, a
#: Kubernetes service-account token, a secret read from a vault or password manager. GitHub masks
#: none of them unless the script says ``::add-mask::``.
_MINTS = lazy(
    r"(?i)\bgh\s+auth\s+token\b|/access_tokens\b|\$\{?ACTIONS_ID_TOKEN_REQUEST_URL\b|"
    r"\bgcloud\s+auth\s+(?:application-default\s+)?print-(?:access|identity)-token\b|"
    r"\baz\s+account\s+get-access-token\b|\baws\s+(?:ecr(?:-public)?\s+get-login-password|"
    r"codeartifact\s+get-authorization-token|sts\s+(?:get-session-token|assume-role\S*))\b|"
    r"\bkubectl\s+create\s+token\b|\bvault\s+(?:kv\s+get|read|token\s+create|login)\b|"
    r"\bop\s+read\b|\bbw\s+get\s+password\b|\bnpm\s+token\s+create\b"
)
#: ``NAME=$(...)`` (also after ``export``, ``local``, ``readonly`` or ``declare``): a variable
#: set to a command's output, up to where the substitution's line ends.
_SET_FROM_COMMAND = lazy(r"(?:^\s*|[;&|]\s*|\b(?:export|local|readonly|declare(?:\s+-\w+)*)\s+)([A-Za-z_]\w*)=\"?\$\(")


_MINTED = "a credential minted by"
#: An action's output that holds a credential it made: ``token``, ``access_token``, ``id_token``,
#: ``password``, ``secret`` (``app-id`` and ``token-expiry`` name none).
_CREDENTIAL_OUTPUT = lazy(r"(?i)^(?:[\w-]*[_-])?(?:token|password|secret|credentials?)$")
_STEP_OUTPUT = lazy(r"\$\{\{\s*steps\.([\w-]+)\.outputs\.([\w-]+)")


def _minting_steps(steps: list[PMap]) -> dict[str, str]:
    """The ids of a job's steps that run an action (``uses:``), with the action: their outputs
    named as credentials (:data:`_CREDENTIAL_OUTPUT`) are tokens the action minted
    (``actions/create-github-app-token``'s ``token``, ``google-github-actions/auth``'s
    ``access_token``)."""
    return {
        str(step.get("id")): str(step.get("uses")).split("@", 1)[0]
        for step in steps
        if isinstance(step.get("id"), PStr) and isinstance(step.get("uses"), PStr)
    }


def _from_outputs(env: object, minting: dict[str, str]) -> dict[str, str]:
    """A step's env variables set from a credential output of an earlier step's action."""
    found: dict[str, str] = {}
    if isinstance(env, PMap) and minting:
        for name, value in env.items():
            for output in _STEP_OUTPUT.finditer(str(value)) if isinstance(value, PStr) else ():
                action = minting.get(output.group(1))
                if action and _CREDENTIAL_OUTPUT.match(output.group(2)):
                    found[str(name)] = f"{_MINTED} `{action}` (its output {output.group(2)})"
    return found


def _minted(run: PStr) -> dict[str, str]:
    """Variables a step's script sets to a credential it mints (:data:`_MINTS`), with what minted
    it, so printing or writing them is read as printing a secret (``TOKEN=$(gh auth token)``, then
    ``echo "token=$TOKEN" >> $GITHUB_OUTPUT``)."""
    if not _MINTS.search(run):
        return {}
    minted: dict[str, str] = {}
    for line in script_lines(run):
        if line.heredoc is not None:
            continue
        for setting in _SET_FROM_COMMAND.finditer(line.text):
            made = _MINTS.search(line.text, setting.end())
            if made:
                minted[setting.group(1)] = f"{_MINTED} `{' '.join(made.group().split())}`"
    return minted


#: Commands whose output holds the text of their arguments: printing them, or a script that
#: edits text (``sed "s/x/$TOKEN/"``, ``jq --arg t "$TOKEN" ...``).
_ARGUMENT_PRINTERS = frozenset({"echo", "printf", "sed", "awk", "gawk", "jq", "yq"})
#: Commands whose output holds what they read on stdin (a here-document, a here-string, a pipe).
#: Those that change its encoding pass it on too: what comes out is the secret, re-encoded
#: (``base64 -d``, ``xxd -r``, ``gunzip``).
_STDIN_PASSERS = frozenset({"cat", "tee", "base64", "base32", "basenc", "tr", "envsubst", "gzip", "xxd", "rev"})
_STDIN_PASSERS |= {"gunzip", "zcat", "bzip2", "bunzip2", "xz", "unxz", "zstd", "iconv", "dos2unix", "unix2dos", "fold"}
#: gpg passes its input on, re-encoded, only when it changes the armour (``gpg --dearmor``: the key
#: it reads, as binary); openssl when it only encodes (``openssl base64 -d``, ``openssl enc -a -d``
#: with no cipher). Decrypting or signing makes something else.
_GPG_ARMOUR = frozenset({"--dearmor", "--dearmour", "--enarmor", "--enarmour"})
_OPENSSL_ENCODING = frozenset({"-a", "-A", "-base64", "-d", "-e", "-in", "-out"})
#: Their options that name the file the output goes to.
_OUTPUT_OPTIONS = frozenset({"-o", "--output", "-out"})
_HERESTRING = lazy(r"<<<")
_NOT_FILES = frozenset({"/dev/stderr", "/dev/stdout", "/dev/tty"})
#: sed's in-place option: ``-i``, ``-i.bak``, ``-i''``, ``--in-place``, or ``i`` among short options (``-Ei``).
_IN_PLACE = lazy(r"(?<!\S)(?:-[A-Za-z]*i\S*|--in-place\S*)(?!\S)")


def _leaks(
    file: SourceFile, run: PStr, names: dict[str, str], later: _Later, derived: frozenset[str] = frozenset()
) -> Iterator[Hit]:
    """Where a secret reaches the log or a file: as an argument of a command whose output holds
    it (echo, printf, sed, jq ...), or as the text of a here-document or here-string given to
    one that passes its input on (cat, tee, base64 ...), followed through pipes of such commands
    to where the output goes. A secret passed to any other command (``gpg --passphrase X
    --export-secret-key > key.asc``, ``curl -H "token: X" -o out.json``) is that command's input,
    not its output: the file gets what the command makes. The script is read in bash's lines:
    a command continued with a backslash onto the next line (``printf '%s' "$TOKEN" \\`` then
    ``| docker login --password-stdin``) is one command. Output a command sends to stdout inside a
    brace group or subshell goes where the group's own redirection sends it (``{ echo "X=$S"; }
    >> "$GITHUB_ENV"``, over several lines too)."""
    lines = list(script_lines(run))
    groups = _groups(lines)
    bodies: dict[tuple[int, int], str] = {}  # (opening line, its <<) -> where the here-document goes
    for line in lines:
        doc = line.heredoc
        if doc is not None:
            used = _secret_in(line.text, {} if doc.quoted else names)
            if used is None:
                continue
            key = (doc.start, doc.at)
            if key not in bodies:
                shell = structure(doc.line)
                parts = segments(shell)
                goes = _destination(shell, doc.line, parts, segment_at(parts, doc.at), passes_input=True)
                bodies[key] = _through_groups(goes, groups, doc.start + doc.at)
            if bodies[key] == "log" or bodies[key].startswith(_FILE):
                yield _hit(file, run, line.start + used.start(), used.group(), bodies[key], names, later, derived)
            continue
        if _MASK in line.text:
            continue
        found = _secrets_in(line.text, names)
        if not found:
            continue  # most lines: nothing to read closer
        shell = structure(line.text)
        parts = segments(shell)
        for used in found:
            goes = _through_groups(
                _where_it_goes(shell, line.text, parts, used.start(), str(run)[: line.start]),
                groups,
                line.start + used.start(),
            )
            if goes == "log" or goes.startswith((_FILE, _CONFIG, _GIT_IDENTITY)):
                yield _hit(file, run, line.start + used.start(), used.group(), goes, names, later, derived)
                break


#: Where a destination string says a file is written: ``file:TARGET`` (TARGET as written, maybe
#: empty) and ``config:PLACE:WHAT`` (a tool's configuration file; PLACE ``w`` in the workspace,
#: ``h`` outside it).
_FILE = "file:"
_CONFIG = "config:"


class _Group(NamedTuple):
    """A brace group or subshell of a script: its opening and closing offsets, and where the
    output of its commands goes (the group's redirection or pipe; "log" when it has none)."""

    start: int
    end: int
    goes: str


#: Words after which a new command starts, as after ``;``.
_COMMAND_KEYWORDS = frozenset({"then", "do", "else", "elif", "if", "while", "until", "!", "time"})
_WORD_END = frozenset(" \t;&|()<>")


def _groups(lines: list[ScriptLine]) -> list[_Group]:
    """The brace groups (``{ ...; }``) and subshells (``( ... )``) of a script's command lines,
    innermost first, with where their output goes. A ``{`` or ``(`` opens one only where a command
    starts (``${X}``, ``$(...)``, ``$((...))`` and ``{a,b}`` do not); a ``)`` closing a
    ``$(``, ``((`` or a function's ``()`` is not a subshell's end. Groups left open are dropped."""
    found: list[_Group] = []
    stack: list[tuple[str, int]] = []  # the opening character and its offset in the script
    for line in lines:
        if line.heredoc is not None:
            continue
        shell = structure(line.text)
        plain = 0  # parentheses open that are not subshells
        starts = True  # a command starts at the next word
        at = 0
        while at < len(shell):
            char = shell[at]
            if char in " \t":
                at += 1
                continue
            if char in ";&|":
                starts, at = True, at + 1
                continue
            if char in "<>":
                starts, at = False, at + 1
                continue
            if char == "(":
                if starts and shell[at + 1 : at + 2] != "(":
                    stack.append(("(", line.start + at))
                else:
                    plain += 1
                at += 1
                continue
            if char == ")":
                if plain:
                    plain -= 1
                elif stack and stack[-1][0] == "(":
                    found.append(_closed(stack.pop()[1], line, shell, at))
                starts, at = True, at + 1
                continue
            end = at
            while end < len(shell) and shell[end] not in _WORD_END:
                end += 1
            word = shell[at:end]
            if starts and word == "{":
                stack.append(("{", line.start + at))
            elif starts and word == "}" and stack and stack[-1][0] == "{":
                found.append(_closed(stack.pop()[1], line, shell, at))
                starts = False
            else:
                starts = word in _COMMAND_KEYWORDS
            at = end
    return sorted(found, key=lambda group: group.end - group.start)


def _closed(start: int, line: ScriptLine, shell: str, at: int) -> _Group:
    """The group opened at ``start`` and closed at offset ``at`` of ``line``: its redirection, or
    the pipe its output is given to, read after the closing character."""
    parts = segments(shell)
    index = segment_at(parts, at)
    segment = parts[index]
    goes = _redirected(shell, line.text, Segment(at + 1, segment.end, segment.piped))
    if goes is None:
        piped = segment.piped and index + 1 < len(parts)
        goes = _destination(shell, line.text, parts, index + 1, passes_input=True) if piped else "log"
    return _Group(start, line.start + at, goes)


def _through_groups(goes: str, groups: list[_Group], at: int) -> str:
    """Where output that a command at script offset ``at`` sends to stdout (``goes`` "log") ends:
    the innermost group holding it that redirects or pipes it, else the log."""
    if goes != "log":
        return goes
    for group in groups:
        if group.start <= at <= group.end and group.goes != "log":
            return group.goes
    return goes


def _where_it_goes(shell: str, line: str, parts: list[Segment], at: int, before: str = "") -> str:
    """Where a secret written at ``at`` ends up: "file", "log", or "command" (used, not output).
    ``before``: the script before this line, where a variable naming a file may be set."""
    index = segment_at(parts, at)
    segment = parts[index]
    name = program(line[segment.start : segment.end])
    here = _HERESTRING.search(shell, segment.start, at)
    if name in _ARGUMENT_PRINTERS and here is None:
        if name == "sed" and _IN_PLACE.search(line, segment.start, segment.end):
            # ``sed -i "s/KEY=.*/KEY=$TOKEN/" .env`` edits the secret into its file (the last word), prints nothing
            words = [m for m in re.finditer(r"\S+", shell[segment.start : segment.end])]
            last = words[-1] if words else None
            return _FILE + (line[segment.start + last.start() : segment.start + last.end()] if last else "")
        return _destination(shell, line, parts, index, passes_input=False)
    if here is not None:
        return _destination(shell, line, parts, index, passes_input=True)
    identity = _git_identity_key(line[segment.start : segment.end])
    if identity:
        return _GIT_IDENTITY + identity
    stored = _config_file(line[segment.start : segment.end], before + line[: segment.start])
    if stored and not (line[at : at + 3] != "${{" and _single_quoted(line, at)):
        return _CONFIG + stored  # a '$NAME' in single quotes is written as a placeholder, not the secret
    return "command"


#: Commands that store a value they are given in a configuration file, as ``echo ... >> ~/.npmrc``
#: does: (program, its subcommand words) -> the file. Logins (``docker login``, ``npm login``,
#: ``gh auth login``) are not among them: they use the tool's credential store, a helper or a
#: keychain where one is set up.
_CONFIG_WRITERS = {
    ("npm", ("config", "set")): "npm's configuration file (~/.npmrc)",
    ("npm", ("c", "set")): "npm's configuration file (~/.npmrc)",
    ("npm", ("set",)): "npm's configuration file (~/.npmrc)",
    ("pnpm", ("config", "set")): "pnpm's configuration file",
    ("pnpm", ("set",)): "pnpm's configuration file",
    ("yarn", ("config", "set")): "yarn's configuration file (.yarnrc.yml or ~/.yarnrc)",
    ("pip", ("config", "set")): "pip's configuration file (pip.conf)",
    ("pip3", ("config", "set")): "pip's configuration file (pip.conf)",
    ("poetry", ("config",)): "poetry's auth.toml (unless a keyring takes it)",
    ("composer", ("config",)): "composer's auth.json or composer.json",
    ("bundle", ("config",)): "bundler's configuration file (.bundle/config)",
    ("git", ("config",)): "git's configuration file",
    ("aws", ("configure", "set")): "the AWS credentials or config file (~/.aws/)",
    ("kubectl", ("config", "set-credentials")): "the kubeconfig file",
    ("kubectl", ("config", "set")): "the kubeconfig file",
}
#: Which file git config writes: the checkout's, the user's (``--global``) or the system's.
_GIT_CONFIG_FILES = {
    "w:": "the checkout's git configuration (.git/config)",
    "h:": "git's global configuration file (~/.gitconfig)",
    "h:--system": "git's system configuration file (/etc/gitconfig)",
}
#: How a message names a file ``git config --file PATH`` writes, before PATH.
_GIT_FILE_NAMED = "the git configuration file "


def _git_config_file(rest: list[str]) -> tuple[str, list[str]]:
    """The file a ``git config`` command's ``-f PATH``, ``--file PATH`` or ``--file=PATH`` names
    (quotes dropped; "" when none), and the command's words without that option."""
    for index, word in enumerate(rest):
        if word in ("-f", "--file") and index + 1 < len(rest):
            return rest[index + 1].strip("\"'"), rest[:index] + rest[index + 2 :]
        if word.startswith("--file="):
            return word[len("--file=") :].strip("\"'"), rest[:index] + rest[index + 1 :]
    return "", rest


#: A path that is one variable, ``$NAME`` or ``${NAME}``.
_PATH_VARIABLE = lazy(r"^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$")


def _assigned_path(path: str, before: str) -> str:
    """``path``, or what the script set the variable ``path`` is (``CFG="$RUNNER_TEMP/x"``, the
    last such assignment before the command) when it is one variable."""
    variable = _PATH_VARIABLE.match(path)
    if variable is None:
        return path
    name = re.escape(variable.group(1))
    assignments = re.findall(
        rf"(?:^|[\s;&|(])(?:export\s+|local\s+|readonly\s+)?{name}=(\"[^\"\n]*\"|'[^'\n]*'|\S+)", before
    )
    return assignments[-1].strip("\"'") if assignments else path


#: Subcommands and options that read or remove a setting rather than store one.
_CONFIG_READS = frozenset(
    {"get", "list", "unset", "delete", "rm", "--get", "--get-all", "--get-regexp", "-l", "--list"}
)
_CONFIG_READS |= {"--unset", "--unset-all", "--remove-section", "--show-origin", "--edit", "-e", "--unset-key"}


#: Tools whose ``config set`` writes the project's file by default (yarn's .yarnrc.yml, composer's
#: auth.json beside composer.json, git's .git/config), with the options that send it home instead;
#: the others write the user's file unless told to write the project's.
_PROJECT_BY_DEFAULT = {"yarn": {"-H", "--home"}, "composer": {"-g", "--global"}, "git": {"--global", "--system"}}
_PROJECT_OPTIONS = {"npm": {"--location=project"}, "pnpm": {"--location=project"}, "bundle": {"--local"}}


def _config_file(text: str, before: str = "") -> str:
    """The configuration file a simple command stores its arguments in ("" for any other command),
    after ``w:`` when that file is in the workspace (the project's) or ``h:`` when it is not.
    ``before``: the script before the command, where a variable naming the file may be set."""
    words = text.split()
    command = program(text)
    if command not in {name for name, _ in _CONFIG_WRITERS}:
        return ""
    rest = words[[w.rsplit("/", 1)[-1] for w in words].index(command) + 1 :][:40]
    if command == "git":  # git's own options before the subcommand: -C DIR, -c NAME=VALUE (one-off)
        while rest and rest[0] in ("-C", "--git-dir", "--work-tree"):
            rest = rest[2:]
    options = set(rest)
    if command in _PROJECT_BY_DEFAULT:
        place = "h:" if options & _PROJECT_BY_DEFAULT[command] else "w:"
    else:
        project = _PROJECT_OPTIONS.get(command, set())
        place = "w:" if options & project or ("--location" in rest and "project" in rest) else "h:"
    named_file = ""
    if command == "git" and rest[:1] == ["config"]:
        named_file, rest = _git_config_file(rest)
        if named_file:  # ``git config --file PATH``: PATH is written, wherever it is
            path = _assigned_path(named_file, before)
            place = "h:" if _OUTSIDE.match(path) else "w:"
            if path != named_file:
                named_file = f"{named_file} ({path})"
    rest = [w for w in rest if w not in ("-g", "--global", "--local", "--system", "-H", "--home")]
    for (name, subcommand), stored in _CONFIG_WRITERS.items():
        if name == command and tuple(rest[: len(subcommand)]) == subcommand:
            if any(w.split("=", 1)[0] in _CONFIG_READS for w in rest[len(subcommand) :][:2]):
                return ""
            if command == "poetry" and not any(w.startswith(("http-basic.", "pypi-token.")) for w in rest):
                return ""
            if command == "git" and named_file:
                stored = _GIT_FILE_NAMED + named_file
            elif command == "git":
                stored = _GIT_CONFIG_FILES.get(place + ("--system" if "--system" in options else ""), stored)
            return place + stored
    return ""


#: git's settings that hold who makes a commit: a name and an address, shown in every commit made.
_GIT_IDENTITY_KEYS = frozenset(f"{who}.{what}" for who in ("user", "author", "committer") for what in ("name", "email"))
_GIT_IDENTITY = "identity:"
#: git config's options that take a value as the next word.
_GIT_CONFIG_VALUED = frozenset({"-f", "--file", "--blob", "--type", "--default", "--comment", "--value"})
#: Words of a secret's or a variable's name that say it holds a credential, whatever it is given to.
_SAYS_CREDENTIAL = frozenset(
    {"TOKEN", "SECRET", "KEY", "APIKEY", "PASSWORD", "PASSWD", "PASS", "PWD", "PASSPHRASE", "PAT", "CREDENTIAL"}
    | {"CREDENTIALS", "CREDS", "PRIVATEKEY", "APITOKEN", "COOKIE", "JWT"}
)


def _git_identity_key(text: str) -> str:
    """The identity setting a ``git config`` command stores (``user.name``, ``user.email``,
    ``author.name`` ...; also ``git config set user.name X``), or "" for any other command or key."""
    words = text.split()
    if program(text) != "git":
        return ""
    rest = words[[w.rsplit("/", 1)[-1] for w in words].index("git") + 1 :][:40]
    while rest and rest[0] in ("-C", "--git-dir", "--work-tree"):
        rest = rest[2:]
    if rest[:1] != ["config"]:
        return ""
    rest = rest[1:]
    if rest[:1] == ["set"]:
        rest = rest[1:]
    while rest and rest[0].startswith("-"):
        rest = rest[2:] if rest[0] in _GIT_CONFIG_VALUED else rest[1:]
    key = rest[0].strip("\"'").lower() if rest else ""
    return key if key in _GIT_IDENTITY_KEYS else ""


def _single_quoted(line: str, at: int) -> bool:
    """Whether offset ``at`` of a shell line is inside single quotes (where ``$NAME`` stays text)."""
    return open_quote(line[:at]) == "'"


def _hit(
    file: SourceFile,
    run: PStr,
    at: int,
    used: str,
    goes: str,
    names: dict[str, str],
    later: _Later,
    derived: frozenset[str] = frozenset(),
) -> Hit:
    secret = SECRET_REF.match(used)
    # ``secrets['deploy-key']`` is named as ``secrets.deploy-key``, whole (the match stops at its quote).
    name = f"secrets.{secret_name(secret)}" if secret else used.strip("${ ")
    if name == f"secrets.{EVERY_SECRET}":
        name = "every secret (the secrets context whole)"
    if goes.startswith(_GIT_IDENTITY):
        message = f"run step writes {name} to git's configuration file as {goes[len(_GIT_IDENTITY) :]}"
    elif goes.startswith(_CONFIG):
        message = f"run step writes {name} to {goes[len(_CONFIG) + 2 :]}"
    elif goes.startswith(_FILE):
        target = goes[len(_FILE) :]
        message = f"run step writes {name} to {_file_named(target)}"
    else:
        message = f"run step prints {name} to the log"
    held = secret_name(secret) if secret else names.get(name.strip("{}"), "")
    if held.startswith(_MINTED):
        return _credential_file_hit(
            file.str_pos(run, at), f"{message}, {held}", goes, later, _removed_here(run, at, goes)
        )
    variable = name.strip("{}")
    if goes.startswith(_GIT_IDENTITY) and not _says_credential(held) and not _says_credential(variable):
        # ``git config user.name "$GIT_USER"``: whatever feeds it, the value is who commits, shown in
        # every commit the job makes. A secret named as a credential put there still is one.
        return Hit(
            file.str_pos(run, at),
            message + ", an identifier rather than a credential",
            severity="info",
            why=f"git's {goes[len(_GIT_IDENTITY) :]} holds the name or address commits are made under, "
            "shown in every commit, not a credential",
        )
    if not secret and variable in derived and held:
        # ``IMAGE_NAME: ${{ secrets.DOCKER_USERNAME }}/app``: made only of identifiers, it is one.
        return Hit(
            file.str_pos(run, at),
            message + ", made from identifiers rather than credentials",
            severity="info",
            why=f"{variable} is made from secrets whose names say they hold identifiers (secrets.{held}), "
            "not credentials",
        )
    if (_identifier_name(held) and (secret or _identifier_name(variable))) or (
        not secret and held and _identifier_by_variable(variable, held)
    ):
        # The variable and its secret both name an identifier (``CF_ZONE_ID`` from
        # ``secrets.CLOUDFLARE_ZONE_ID``): kept out of logs by choice, it lets nobody in.
        return Hit(
            file.str_pos(run, at),
            message + ", an identifier rather than a credential",
            severity="info",
            why=(
                f"{variable} names an identifier (an id, user, role, address) and secrets.{held} no credential"
                if not _identifier_name(held)
                else f"{held} names an identifier (an id, user, role, address, project file), not a credential"
            ),
        )
    return _credential_file_hit(file.str_pos(run, at), message, goes, later, _removed_here(run, at, goes))


def _removed_here(run: PStr, at: int, goes: str) -> bool:
    """Whether the script writing at offset ``at`` removes the file it writes later on."""
    path = _written_path(goes)
    return bool(path) and _removes(str(run), path, _line_end(str(run), at))


def _line_end(script: str, at: int) -> int:
    """Where the command written at offset ``at`` of a script ends: its line's end, or the next ``;``
    or ``&&`` on it (a removal after the write on the same line counts)."""
    end = script.find("\n", at)
    end = len(script) if end < 0 else end
    joins = [i for i in (script.find(";", at, end), script.find("&&", at, end)) if i >= 0]
    return min(joins) if joins else end


#: Files GitHub Actions reads between steps, named in a message as they are.
_RUNNER_FILES = {
    "GITHUB_ENV": "every later step's environment",
    "GITHUB_OUTPUT": "the step's outputs",
    "GITHUB_STEP_SUMMARY": "the run's summary page",
    "GITHUB_PATH": "every later step's PATH",
}
_RUNNER_FILE = lazy(r"^\$\{?(GITHUB_ENV|GITHUB_OUTPUT|GITHUB_STEP_SUMMARY|GITHUB_PATH)\}?$")


def _file_named(target: str) -> str:
    """How a message names the file a secret is written to: ``$GITHUB_ENV`` and its kin by name
    and what they are, a credential file by its path, any other as "a file"."""
    runner = _RUNNER_FILE.match(target)
    if runner:
        return f"${runner.group(1)} ({_RUNNER_FILES[runner.group(1)]})"
    return target if _credential_file(target) is not None else "a file"


#: A tool's credential or configuration file, by the end of its path: what npm, yarn, pip, twine,
#: git, curl and the rest read a token from on their own.
_CREDENTIAL_PATH = lazy(
    r"(?:^|/)(?:\.npmrc|\.yarnrc(?:\.yml)?|\.netrc|_netrc|\.pypirc|pip\.conf|\.gitconfig|\.git-credentials|"
    r"\.pgpass|\.terraformrc|credentials\.tfrc\.json|\.docker/config\.json|\.m2/settings\.xml|"
    r"\.gradle/gradle\.properties|\.aws/(?:credentials|config)|\.kube/config|kubeconfig(?:\.ya?ml)?|"
    r"\.cargo/credentials(?:\.toml)?|\.gem/credentials|\.git/config|\.config/gh/hosts\.yml|"
    r"\.ssh/[\w.-]+)$"
)
#: A key file a signing, SSH or TLS tool is pointed at (``cosign sign --key /tmp/cosign.key``).
_KEY_FILE = lazy(
    r"(?i)(?:^|/)[\w.-]*\.(?:key|pem|p8|p12|pfx|jks|keystore|gpg|asc)$|(?:^|/)id_(?:rsa|ed25519|ecdsa|dsa)$"
)
#: Where a path outside the workspace starts: the home folder, the runner's temporary folder, /tmp,
#: any other absolute path.
_OUTSIDE = lazy(
    r"^(?:~/|\$\{?HOME\}?/|\$\{?RUNNER_TEMP\}?/|\$\{\{\s*runner\.temp\s*\}\}/|"
    r"\$\{\{\s*env\.HOME\s*\}\}/|/(?!github/workspace/))"
)


def _credential_file(target: str) -> bool | None:
    """Whether ``target`` (a path as the script writes it) is a credential file some tool reads on
    its own, or a key file: None when it is neither; True when it is in the workspace (a relative
    path, ``$GITHUB_WORKSPACE/...``), False when it is not (the home folder, ``/tmp``,
    ``$RUNNER_TEMP``, any other absolute path)."""
    path = target.strip("\"'")
    if not path or "$" in path.rsplit("/", 1)[-1]:
        return None
    if _CREDENTIAL_PATH.search(path) is None and _KEY_FILE.search(path) is None:
        return None
    return _OUTSIDE.match(path) is None


class _Later(NamedTuple):
    """What the steps after a writing step run: the first third-party action not pinned to a
    commit, and the first step that uploads an artifact or saves a cache ("" when none); and those
    steps, with this repository's owner, to read again up to a step that removes the file."""

    unpinned: str
    uploads: str
    steps: tuple[PMap, ...] = ()
    owner: str = ""

    @classmethod
    def of(cls, steps: list[PMap] | tuple[PMap, ...], owner: str = "") -> _Later:
        """From the steps after the writing one; ``owner`` (lower case) is this repository's
        owner when its origin remote says it, whose actions are not a third party's."""
        unpinned = uploads = ""
        for step in steps:
            uses = step.get("uses")
            if not isinstance(uses, PStr):
                continue
            action = str(uses).strip()
            name, _, ref = action.partition("@")
            if not uploads and _UPLOADS.search(name):
                uploads = action
            if not unpinned and _third_party(name, owner) and not _COMMIT.fullmatch(ref):
                unpinned = action
        return cls(unpinned, uploads, tuple(steps), owner)

    def until_removed(self, path: str) -> tuple[_Later, str]:
        """What the later steps run before the first of them whose script removes ``path`` (a step
        with no ``if:``, or one run ``always()``), and how a message names that step (its
        ``name:``, else its place: "step 2 after it"; "" when none removes it, and then this,
        unchanged)."""
        for index, step in enumerate(self.steps):
            run, condition = step.get("run"), step.get("if")
            runs = condition is None or "always()" in str(condition)  # ``if: failure()`` may never run
            if isinstance(run, PStr) and runs and _removes(str(run), path):
                name = step.get("name")
                label = (
                    f'step "{name}"' if isinstance(name, PStr) and str(name).strip() else f"step {index + 1} after it"
                )
                return _Later.of(self.steps[:index], self.owner), label
        return self, ""


#: Paths whose removal would remove every file under them, too broad to be read as a cleanup.
_ROOTS = frozenset({"/", "~", "$HOME", "${HOME}", "/tmp", "$RUNNER_TEMP", "${RUNNER_TEMP}", ".", "*"})


def _removes(script: str, path: str, after: int = 0) -> bool:
    """Whether a command of ``script`` from offset ``after`` on removes ``path`` (``rm -f PATH``,
    ``rm -rf DIR`` of a folder holding it), the path written as the writing command wrote it."""
    if "rm" not in script[after:]:
        return False
    for line in script_lines(script):
        if line.heredoc is not None or line.start + len(line.text) < after:
            continue
        text = line.text[max(0, after - line.start) :]
        shell = structure(text)
        for segment in segments(shell):
            words = text[segment.start : segment.end].split()
            if program(text[segment.start : segment.end]) != "rm":
                continue
            for word in words[[w.rsplit("/", 1)[-1] for w in words].index("rm") + 1 :]:
                target = word.strip("\"'").rstrip("/")
                if word.startswith("-") or not target:
                    continue
                if target == path or (target not in _ROOTS and path.startswith(target + "/")):
                    return True
    return False


#: GitHub's own actions' owners: not a third party's code.
_FIRST_PARTY = frozenset({"actions", "github"})
_COMMIT = lazy(r"[0-9a-fA-F]{40}")
#: An action that uploads files as an artifact or saves them to a cache another run restores.
_UPLOADS = lazy(r"(?i)(?:^|/)(?:upload-artifact|cache)(?:/save)?$|^actions/cache/save$")


def _third_party(name: str, owner: str = "") -> bool:
    """An action of another owner than GitHub or ``owner`` (this repository's, from its origin
    remote; "" when not known) (``owner/repo[/path]``); not a local action (``./...``), the same
    repository's (``$/...``) or a ``docker://`` image."""
    if name.startswith((*_SAME_REPOSITORY, "docker://")) or "/" not in name:
        return False
    return name.split("/", 1)[0].lower() not in _FIRST_PARTY | ({owner} if owner else set())


def _written_path(goes: str) -> str:
    """The path of the file a destination writes, as the script wrote it ("" for the log, a
    command's input or a tool's configuration file named by no path)."""
    if goes.startswith(_FILE):
        return goes[len(_FILE) :].strip("\"'")
    described = goes[len(_CONFIG) + 2 :] if goes.startswith(_CONFIG) else ""
    if not described.startswith(_GIT_FILE_NAMED):
        return ""
    return described[len(_GIT_FILE_NAMED) :].split(" (", 1)[0]  # ``$CFG ($RUNNER_TEMP/x)``: as written


def _credential_file_hit(pos: Pos, message: str, goes: str, later: _Later, removed_here: bool = False) -> Hit:
    """A secret written into a tool's credential file is graded by what can still read it there:
    low, or medium when a later step of the job runs a third-party action not pinned to a commit
    or the file is in the workspace and a later step uploads or caches. A file a later step
    removes is graded by the steps before that one; a file the writing step itself removes (later
    in its script) is info: no later step can read it. Any other file, the log, $GITHUB_ENV and
    $GITHUB_OUTPUT keep the rule's severity."""
    if goes.startswith(_CONFIG):
        inside: bool | None = goes[len(_CONFIG)] == "w"
    elif goes.startswith(_FILE):
        inside = _credential_file(goes[len(_FILE) :])
    else:
        inside = None
    if inside is None:
        return Hit(pos, message)
    where = "in the workspace" if inside else "outside the workspace"
    why = "a credential file written for the tool that reads it, the usual way to hand a tool its token"
    if removed_here:
        return Hit(
            pos,
            f"{message}, a credential file {where} that the same step removes before any later step runs",
            severity="info",
            why="the step that writes the file removes it: no later step, action or upload can read it",
        )
    path = _written_path(goes)
    later, removed_by = later.until_removed(path) if path else (later, "")
    reach = (
        f"every later step of the job before {removed_by}, which removes it,"
        if removed_by
        else "every later step of the job"
    )
    risk = f"a credential file {where} that a later step's tool reads: {reach} can read it too"
    if later.unpinned:
        message = f"{message}, {risk}, {later.unpinned} (a third-party action not pinned to a commit) among them"
        return Hit(pos, message, severity="medium", why=why)
    if inside and later.uploads:
        message = f"{message}, {risk}, and {later.uploads} may upload or cache it"
        return Hit(pos, message, severity="medium", why=why)
    return Hit(pos, f"{message}, {risk}", severity="low", why=why)


def _says_credential(name: str) -> bool:
    """Whether a secret's or a variable's name holds a word of a credential (``BOT_TOKEN``,
    ``deploy-key``, ``gitPassword``)."""
    return bool(set(_CAMEL.sub("_", name).upper().replace("-", "_").split("_")) & _SAYS_CREDENTIAL)


def _secret_in(line: str, names: dict[str, str]) -> re.Match[str] | None:
    return next(iter(_secrets_in(line, names)), None)


def _secrets_in(line: str, names: dict[str, str]) -> list[re.Match[str]]:
    """Every ``secrets.X`` and ``$NAME`` of a secret-holding variable in ``line``, in order."""
    found = exposed_secret_refs(line)  # not ``${{ secrets.X != '' }}``, which becomes true or false
    for name in sorted(names):
        found.extend(re.finditer(r"\$\{?" + re.escape(name) + r"\b", line))
    return sorted(found, key=lambda m: m.start())


def _destination(shell: str, line: str, parts: list[Segment], index: int, *, passes_input: bool) -> str:
    """Where the output of ``segments[index]`` ends: "file", "log", "nowhere" (/dev/null) or
    "command" (the stdin of a command that does not pass it on, ``... | docker login
    --password-stdin``, which ends the chain). Pipes are followed one segment at a time."""
    while True:
        segment = parts[index]
        text = line[segment.start : segment.end]
        if index > 0 or passes_input:
            name = program(text)
            if not _passes_input(name, text):
                return "command"
            words = text.split()
            if name in ("gpg", "gpg2", "openssl") and _OUTPUT_OPTIONS & set(words):
                # ``gpg --dearmor -o key.gpg``, ``openssl base64 -d -out key``
                option = next(i for i, w in enumerate(words) if w in _OUTPUT_OPTIONS)
                return _FILE + (words[option + 1].strip("\"'") if option + 1 < len(words) else "")
            named = [i for i, w in enumerate(words) if w.rsplit("/", 1)[-1] == name][:1]
            files = [w for w in words[named[0] + 1 :] if not w.startswith(("-", "<", ">"))] if named else []
            if name == "tee" and files:
                return _FILE + files[0].strip("\"'")  # tee writes its input to its file arguments (and passes it on)
        goes = _redirected(shell, line, segment)
        if goes is not None:
            return goes
        if not (segment.piped and index + 1 < len(parts)):
            return "log"
        index += 1


def _passes_input(name: str, text: str) -> bool:
    """Whether the command ``text`` (whose program is ``name``) writes out what it reads on stdin,
    as it is or re-encoded."""
    if name in _STDIN_PASSERS or name in _ARGUMENT_PRINTERS:
        return True
    words = text.split()
    if name in ("gpg", "gpg2"):
        return bool(_GPG_ARMOUR & set(words))
    if name == "openssl":
        rest = words[[w.rsplit("/", 1)[-1] for w in words].index("openssl") + 1 :]
        if rest[:1] == ["base64"]:
            return True
        options = [w for w in rest[1:] if w.startswith("-")]
        return rest[:1] == ["enc"] and bool({"-a", "-base64"} & set(options)) and set(options) <= _OPENSSL_ENCODING
    return False


def _redirected(shell: str, line: str, segment: Segment) -> str | None:
    """Where a segment's own redirection sends its stdout, or None when it has none."""
    for redirect in REDIRECT.finditer(shell, segment.start, segment.end):
        if redirect.group(5) is not None:  # N>&M
            if (redirect.group(4) or "1") == "1":
                return "log"  # stdout onto stderr: the log
            continue
        if (redirect.group(1) or "1") != "1" and "&" not in redirect.group(2):
            continue  # stderr (2>file) holds no echoed text
        target = line[redirect.start(3) : redirect.end(3)].strip("\"'")
        if target == "/dev/null":
            return "nowhere"
        return "log" if target in _NOT_FILES else _FILE + target
    return None
