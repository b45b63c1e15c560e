"""image-secret: a secret baked into a container image.

Every layer of an image, and its build history, is readable by whoever pulls it: the agent
inside the sandbox, a registry, anyone the image is shared with.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from fnmatch import fnmatchcase

from sandkit.credentials import TOKEN_HINTS, is_placeholder, is_secret_key
from sandkit.lazy_regex import lazy
from sandkit.lint.facts.secret_values import find_tokens, literal_secret, public_by_design, public_client_setting
from sandkit.lint.kinds import DOCKERFILE
from sandkit.lint.model import Finding, Hit
from sandkit.lint.registry import rule
from sandkit.lint.repository import RepositoryView, repository_pass
from sandkit.lint.source import SourceFile
from sandkit.lint.syntax.shell import parse_commands

TOKEN_HINTS_FLAT = {hint for hints in TOKEN_HINTS.values() for hint in hints}
_SECRET_FILES = (
    ".env",
    ".env.*",
    "*.env",
    "*.pem",
    "*.key",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    ".npmrc",
    ".pypirc",
    ".netrc",
    ".git-credentials",
    "*.p12",
    "*.pfx",
    "*.jks",
    "*.keystore",
    "credentials",
    "credentials.json",
    "service-account*.json",
    "*-sa-key.json",
    "config.json",
    ".htpasswd",
    "secrets.*",
    "*.tfvars",
    "kubeconfig",
    ".dockercfg",
)
_NOT_SECRET = (
    ".env.example",
    ".env.sample",
    ".env.template",
    ".env.dist",
    ".env.defaults",
    "*.pub",
    "*.example",
    "*.sample",
)
_CONTEXT_WIDE = (".", "./", "*", "./*", "/", "")
# ENV/ARG can only hold a secret under a secret-like name or in a known token format.
_ENV_TRIGGERS = tuple(
    sorted(
        {
            *TOKEN_HINTS_FLAT,
            "KEY",
            "Key",
            "key",
            "TOKEN",
            "Token",
            "token",
            "SECRET",
            "Secret",
            "secret",
            "PASS",
            "Pass",
            "pass",
            "PWD",
            "Pwd",
            "pwd",
            "AUTH",
            "Auth",
            "auth",
            "CREDENTIAL",
            "Credential",
            "credential",
        }
    )
)


def _dockerfile_pairs(keyword: str, args: str) -> Iterator[tuple[str, str, int]]:
    """``NAME=value`` items of ENV/ARG (``ARG NAME`` declares one with no default, legacy ``ENV
    NAME value`` sets one to the rest of the line) with their offsets in ``args``.

    Words are split as Docker splits them: at blanks outside quotes, nothing else. A value is
    text, not shell: ``$(...)``, ``&&`` and ``;`` inside it are characters of the value, so
    ``ARG PATCH_SCRIPT="... $(apt-key add -) ..."`` sets PATCH_SCRIPT and nothing called apt-key."""
    words = _instruction_words(args)
    if keyword == "ENV" and words and "=" not in words[0][0] and len(words) > 1:
        yield words[0][0], args[words[1][1] :].strip(), words[0][1]
        return
    for text, offset in words:
        name, equals, value = text.partition("=")
        if keyword == "ENV" and not equals:
            continue  # not a setting: Docker refuses the line
        yield name, value, offset


def _instruction_words(args: str) -> list[tuple[str, int]]:
    """The blank-separated words of an instruction's arguments with their offsets; quotes are
    removed and keep blanks inside a word, a backslash keeps the next character."""
    words: list[tuple[str, int]] = []
    current: list[str] = []
    start = -1
    quote = ""
    i = 0
    while i < len(args):
        char = args[i]
        if not quote and char.isspace():
            if start >= 0:
                words.append(("".join(current), start))
                current, start = [], -1
            i += 1
            continue
        start = i if start < 0 else start
        if char == "\\" and quote != "'" and i + 1 < len(args):
            current.append(args[i + 1])
            i += 2
            continue
        if char in "\"'" and (not quote or quote == char):
            quote = "" if quote else char
        else:
            current.append(char)
        i += 1
    if start >= 0:
        words.append(("".join(current), start))
    return words


@rule(
    "IS001",
    "secret-in-image-env",
    category="image-secret",
    severity="high",
    kinds=(DOCKERFILE,),
    triggers=_ENV_TRIGGERS,
)
def secret_in_image_env(file: SourceFile) -> Iterator[Hit]:
    """ENV or ARG carries a secret into the image, in any build stage.

    An ENV whose name is secret-like (API_KEY, TOKEN, PASSWORD ...) and has a value, even
    `${VAR}` (the value is baked in at build time); an ARG with a secret-like name (build
    arguments are recorded in the image history); and any ENV or ARG value in a known
    credential format. `ENV GPG_KEY=<fingerprint>`, empty values and front-end settings that are
    public by design (`NEXT_PUBLIC_POSTHOG_KEY`, `VITE_*`, `REACT_APP_*`, unless the name says
    SECRET, PASSWORD or PRIVATE) are not findings; a placeholder-looking default (`ENV
    TOKEN=123456`, `ENV API_KEY=changeme`, a hex marker word such as `CAFEBABE`) is info, and a
    secret-named ARG or ENV in a builder stage no image is built from (only `COPY --from` it) is
    low: its history stays in the builder (info when its default, or the default of the ARG it
    is set from, is placeholder-looking).
    Values are read as Docker reads them, as text: the words of a script kept in a value (`ARG
    PATCH_SCRIPT="... apt-key add ..."`) are not names. A Firebase web API key under a
    `FIREBASE_*` name is info (public by design).

    Why:
    ENV values are stored in the image config and visible to `docker inspect` and to every
    process in the container, the agent included; ARG values used by RUN show up in
    `docker history`. Both travel with the image to every registry it is pushed to.

    Fix:
    Use a BuildKit secret (`RUN --mount=type=secret,id=NAME`) for build-time secrets and
    pass run-time secrets when the container starts (a kit `secrets:` entry, `--env-file`).
    """
    shipped = _shipped_stages(file)
    dummy_args: dict[tuple[int, str], str] = {}  # (stage, ARG name): its placeholder-looking default
    for ins in file.instructions:
        if ins.keyword not in ("ENV", "ARG"):
            continue
        for token in find_tokens(ins.args):
            public = public_by_design(ins.args, token)
            yield Hit(
                ins.pos_at(token.start),
                f"{ins.keyword} in build stage {ins.stage + 1} holds a {token.kind} ({token.shown})"
                + (", public by design" if public else ""),
                severity="info" if public else "critical",
                why=public or "",
            )
        for name, value, offset in _dockerfile_pairs(ins.keyword, ins.args):
            if not is_secret_key(name) or public_client_setting(name) or any(find_tokens(value)):
                continue
            pos = ins.pos_at(offset)
            stage = f"build stage {ins.stage + 1}"
            if ins.keyword == "ARG" and _dummy(value):
                dummy_args[(ins.stage, name)] = value.strip()
            referenced = _argument_named(value)
            stand_in = bool(dummy_args.get((ins.stage, referenced))) if referenced else _dummy(value)
            if ins.stage not in shipped:
                if ins.keyword == "ARG" or value.strip("\"'"):
                    yield Hit(
                        pos,
                        f"{ins.keyword} {name} in {stage} holds a secret in a stage no image is built from "
                        "(only files copied from it ship)"
                        + (", with a placeholder-looking default" if stand_in else ""),
                        severity="info" if stand_in else "low",
                        why="the stage's history and config stay in the builder and its cache, not in the image"
                        + ("; the value is a build-time stand-in" if stand_in else ""),
                    )
                continue
            if ins.keyword == "ARG":
                literal = value and not _dummy(value)
                yield Hit(
                    pos,
                    f"ARG {name} in {stage} passes a secret as a build argument"
                    + (" with a literal default" if literal else "")
                    + "; it is recorded in the image history",
                    severity="high" if literal else "medium",
                    why="the default value is written in the Dockerfile" if literal else "no default is written here",
                )
            elif _dummy(value) and not value.strip("\"'").startswith("$"):
                yield Hit(
                    pos,
                    f"ENV {name} in {stage} sets a placeholder-looking default ({value.strip()})",
                    severity="info",
                    why="the value looks like a stand-in to be replaced at run time",
                )
            elif value.strip("\"'"):
                yield Hit(pos, f"ENV {name} in {stage} bakes a secret into the image config")


#: Hexadecimal words programmers write as a marker value (``DEADBEEF``, ``CAFEBABE``, ``0xBAADF00D``),
#: alone or repeated: a build-time stand-in, not key material.
_HEX_WORDS = lazy(
    r"(?i)(?:0x)?(?:dead(?:beef|c0de|babe|f00d)|cafe(?:babe|d00d|f00d)|ba+df00d|feed(?:face|beef)|"
    r"8badf00d|defec8ed|c0ffee|decafbad|abad1dea|badc0de)+"
)
_ARGUMENT = lazy(r"\$\{?([A-Za-z_]\w*)\}?")


def _argument_named(value: str) -> str:
    """The ARG an ENV value is exactly (``"$KEY"``, ``${KEY}``), or ""."""
    match = _ARGUMENT.fullmatch(value.strip().strip("\"'"))
    return match.group(1) if match else ""


def _dummy(value: str) -> bool:
    """A stand-in rather than a credential: a placeholder word, a short number or counting run
    (``123456``), one character repeated, a hexadecimal marker word (``CAFEBABE``)."""
    text = value.strip().strip("\"'")
    if not text:
        return False
    return (
        is_placeholder(text)
        or bool(re.fullmatch(r"\d{1,8}|(.)\1{3,}|0?123456789?0?|abcdef\w{0,4}", text))
        or bool(_HEX_WORDS.fullmatch(text))
    )


def _copy_sources(args: str, exec_form: list[str] | None) -> list[str]:
    words = exec_form if exec_form is not None else [w.text for c in parse_commands(args) for w in c.words]
    if any(w.startswith("--from") for w in words):
        return []
    words = [w for w in words if not w.startswith("--")]
    return words[:-1] if len(words) > 1 else []


def _secret_file(source: str) -> bool:
    name = posixpath.basename(source.rstrip("/"))
    if any(fnmatchcase(name, p) for p in _NOT_SECRET):
        return False
    if name == "config.json":
        return ".docker" in source
    if any(fnmatchcase(name, p) for p in _SECRET_FILES) or "/.ssh/" in f"/{source}" or "/.aws/" in f"/{source}":
        return True
    # A glob (".env*", "*.pem*") that would take in a secret file; the copied-file-content pass
    # then reads what it matches in the build context.
    return any(c in name for c in "*?[") and name not in ("*", ".*") and any(fnmatchcase(e, name) for e in _GLOB_PROBES)


_GLOB_PROBES = (".env", ".env.local", ".env.production", "id_rsa", "id_ed25519", "server.key", "tls.pem", ".npmrc")


@rule(
    "IS002",
    "secret-file-copied",
    category="image-secret",
    severity="high",
    kinds=(DOCKERFILE,),
    triggers=(
        ".env",
        ".pem",
        ".key",
        "id_",
        "npmrc",
        "pypirc",
        "netrc",
        "credentials",
        ".p12",
        ".pfx",
        ".jks",
        ".keystore",
        "config.json",
        ".htpasswd",
        "secrets.",
        ".tfvars",
        "kubeconfig",
        "dockercfg",
        ".ssh",
        ".aws",
        "service-account",
        "-sa-key",
    ),
)
def secret_file_copied(file: SourceFile) -> Iterator[Hit]:
    """COPY or ADD puts a .env file, a private key or a credential file into the image.

    Sources such as .env and .env.*, *.pem, *.key, id_rsa/id_ed25519, .npmrc, .pypirc,
    .netrc, .git-credentials, .docker/config.json, credentials.json, service-account keys,
    .ssh/ and .aws/ folders, and globs that take such files in (`.env*`). What is copied is
    read when it is in the build context (the Dockerfile's folder, or the nearest folder above
    it that has the file): a file that holds no
    credential (a PGP public key named `*.key`, certificates and Diffie-Hellman parameters in a
    `*.pem`, a `.env` of versions and flags, an `.npmrc` with only a registry and install flags) is
    not a finding; one made during the build is. Up to 50 matching files are read (with more,
    the finding stays). A glob inside a folder that matches no file in the scanned tree
    (`COPY library-scripts/*.env`) is low: what it takes in is made before the build or never
    committed, and cannot be read; a plain name (`COPY .env .`) or a glob at the top of the
    context (`COPY .env* ./`) that matches nothing keeps its severity, since a developer's
    checkout keeps exactly those files untracked. `.env.example`-style templates, public keys
    and `COPY --from` (another build stage) are not findings.

    Why:
    A file copied into a layer stays in the image even if a later step deletes it, and
    everything in the container, the agent included, can read it.

    Fix:
    Keep the file out of the image: mount it at build time with `RUN --mount=type=secret`
    or at run time, and list it in .dockerignore.
    """
    for ins in file.instructions:
        if ins.keyword not in ("COPY", "ADD"):
            continue
        for source in _copy_sources(ins.args, ins.exec_form()):
            if _secret_file(source):
                offset = max(ins.args.find(source), 0)
                yield Hit(ins.pos_at(offset), f"{ins.keyword} {source} puts a credential file into the image")


@rule(
    "IS003",
    "context-copy-without-dockerignore",
    category="image-secret",
    severity="medium",
    kinds=(DOCKERFILE,),
    triggers=(" . ", " ./ ", " * ", " ./* ", '"."', '"./"', '"*"', "\t.", " .\n", " /\n"),
)
def context_copy_without_dockerignore(file: SourceFile) -> Iterator[Hit]:
    """`COPY . .` copies the whole build context and no .dockerignore keeps .env out.

    Checked for every `COPY .`/`ADD .` (or `*`) of the build context in a stage that is shipped
    (the last stage, a stage nothing else uses, and the stages they are built FROM; a builder
    stage only copied from hands on the paths it names): the finding stays only
    when neither `<Dockerfile>.dockerignore` next to the Dockerfile nor the nearest
    .dockerignore in its folder or a parent folder (up to the scan root) excludes `.env`.
    The .dockerignore is read with Docker's rules: the last matching line wins, `!` re-includes,
    and a leading `*` followed by `!` lines is an allowlist.

    Why:
    Developers keep untracked .env files, keys and cloud credentials in their checkout; a
    context-wide COPY bakes them into the image on the first local build, where the agent and
    everyone who pulls the image can read them.

    Fix:
    Add a .dockerignore with `.env`, `.env.*`, `*.pem`, `.git` (or an allowlist: `*` then
    `!src`), or copy only the folders the image needs.
    """
    kept = _shipped_stages(file)
    for ins in file.instructions:
        if ins.keyword not in ("COPY", "ADD") or ins.stage not in kept:
            continue  # a builder stage nothing ships: its files reach an image only through COPY --from
        sources = _copy_sources(ins.args, ins.exec_form())
        wide = [s for s in sources if s in _CONTEXT_WIDE]
        if wide:
            yield Hit(
                ins.pos_at(max(ins.args.find(wide[0]), 0)), f"{ins.keyword} {wide[0]} copies the whole build context"
            )


_FROM_WORDS = lazy(r"(?i)^\s*(?:--\S+\s+)*(\S+)(?:\s+as\s+(\S+))?")
_FROM_STAGE = lazy(r"(?i)(?:--|[,\s])from=([^\s,]+)")


def _shipped_stages(file: SourceFile) -> set[int]:
    """The build stages whose files end up in an image someone runs: the last stage and every
    stage no other stage builds on or copies from (each can be a ``--target``), with the stages
    they are built FROM. A builder stage that is only copied from (``COPY --from=build /app/dist``)
    hands on the paths named, not the build context it was given."""
    bases: dict[int, int] = {}
    names: dict[str, int] = {}
    used: set[int] = set()
    for ins in file.instructions:
        if ins.keyword == "FROM":
            match = _FROM_WORDS.match(ins.args)
            if match is None:
                continue
            base = names.get(match.group(1).lower())
            if base is not None:
                bases[ins.stage] = base
                used.add(base)
            names[(match.group(2) or str(ins.stage)).lower()] = ins.stage
            names.setdefault(str(ins.stage), ins.stage)
        elif ins.keyword in ("COPY", "ADD", "RUN"):
            for reference in _FROM_STAGE.findall(ins.args):
                stage = names.get(reference.strip("\"'").lower())
                used.add(stage if stage is not None else -1)
    last = max((ins.stage for ins in file.instructions), default=0)
    kept: set[int] = set()
    for stage in [last, *(s for s in range(last) if s not in used)]:
        while stage not in kept:
            kept.add(stage)
            if stage not in bases:
                break
            stage = bases[stage]
    return kept


def _ignores(text: str, name: str) -> bool:
    """Whether a .dockerignore excludes ``name`` at the top of the context."""
    excluded = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        pattern = line.lstrip("!").strip().lstrip("/")
        while pattern.startswith("**/"):
            pattern = pattern[3:]
        if pattern in ("**", "*") or fnmatchcase(name, pattern.rstrip("/")):
            excluded = not negate
    return excluded


@repository_pass("dockerignore")
def keep_context_copies_without_ignore(findings: list[Finding], repo: RepositoryView) -> list[Finding]:
    """Settle IS003: drop it where a .dockerignore keeps .env out of the build context."""
    out: list[Finding] = []
    for finding in findings:
        if finding.rule != "IS003":
            out.append(finding)
            continue
        ignore_path, text = _nearest_dockerignore(finding.path, repo)
        if text is not None and _ignores(text, ".env"):
            continue
        if text is not None:
            finding = finding._replace(message=f"{finding.message} and {ignore_path} does not exclude .env")
        else:
            finding = finding._replace(message=f"{finding.message} and no .dockerignore keeps .env and keys out")
        out.append(finding)
    return out


def _nearest_dockerignore(dockerfile: str, repo: RepositoryView) -> tuple[str, str | None]:
    folder = posixpath.dirname(dockerfile)
    own = f"{dockerfile}.dockerignore"
    text = repo.read(own)
    if text is not None:
        return own, text
    while True:
        candidate = posixpath.join(folder, ".dockerignore") if folder else ".dockerignore"
        text = repo.read(candidate)
        if text is not None:
            return candidate, text
        if not folder:
            return "", None
        folder = posixpath.dirname(folder)


@repository_pass("copied-file-content")
def keep_copies_that_hold_secrets(findings: list[Finding], repo: RepositoryView) -> list[Finding]:
    """Settle IS002 by reading what is copied: drop it when every matching file in the build
    context is there and holds no secret (a PGP public key named *.key, a .env of versions), and
    lower it to low when a glob in a folder matches no file at all (see :func:`_settle_copy`)."""
    out: list[Finding] = []
    for finding in findings:
        settled = _settle_copy(finding, repo) if finding.rule == "IS002" else finding
        if settled is not None:
            out.append(settled)
    return out


_COPY_MESSAGE = lazy(r"^(?:COPY|ADD) (\S+) puts a credential file")
_MOST_COPIED = 50  # matching files read per source; with more, the finding stays


def _settle_copy(finding: Finding, repo: RepositoryView) -> Finding | None:
    """The IS002 finding as it stands after reading what its source matches, or None.

    Files that match are read (up to _MOST_COPIED): none holds a credential, no finding. Nothing
    matching in any folder the build context can be: a plain name (``.env``, ``id_rsa``) or a
    glob at the context's top (``COPY .env* ./``) stays as it is, since a developer's checkout
    keeps exactly those files untracked; a glob inside a folder (``library-scripts/*.env``) is
    low: the scan cannot see what it would take in (files made before the build, or never
    committed), and a build with nothing matching copies nothing (or fails)."""
    match = _COPY_MESSAGE.match(finding.message)
    if match is None:
        return finding
    source = match.group(1).removeprefix("./").lstrip("/")
    context = posixpath.dirname(finding.path)
    while True:  # the build context is the Dockerfile's folder or one above it (docker build -f x/Dockerfile .)
        folder, _, pattern = posixpath.join(context, source).rpartition("/")
        files = repo.matching(folder, pattern, limit=_MOST_COPIED + 1)
        if files:
            if len(files) > _MOST_COPIED or not all(_holds_no_secret(p, repo.read(p, 200_000)) for p in files):
                return finding
            return None
        if not context:
            break
        context = posixpath.dirname(context)
    if "/" not in source or not any(c in posixpath.basename(source) for c in "*?["):
        return finding
    return finding.regraded(
        "low",
        f"{finding.message} (low: the pattern matches no file in the scanned tree, so what it "
        "would copy, made before the build or never committed, is not known)",
    )


def _holds_no_secret(path: str, text: str | None) -> bool:
    """True only when the file's content can be read and shows no credential."""
    if text is None:
        return False
    if "PRIVATE KEY" in text or any(True for _ in find_tokens(text)):
        return False
    name = path.rsplit("/", 1)[-1].lower()
    blocks = _PEM_BLOCK.findall(text)
    if "PUBLIC KEY" in text or name.endswith(".pub") or (blocks and all(b in _PUBLIC_BLOCKS for b in blocks)):
        return True  # public keys, certificates, Diffie-Hellman parameters: nothing secret in them
    if name.startswith(".env") or name.endswith(".env") or name in _SETTINGS_FILES:
        # .env, and npm/yarn/pip/gem settings whose lines are name=value (or name: value) pairs:
        # a registry address and install flags are no credential, an _authToken or password is.
        separator = ":" if name in (".yarnrc.yml", ".gemrc") else "="
        pairs = [
            line.split(separator, 1)
            for line in text.splitlines()
            if separator in line and not line.lstrip().startswith(("#", ";"))
        ]
        names = [(k.strip().removeprefix("export ").strip().rsplit(":", 1)[-1], v.strip()) for k, v in pairs]
        return not any(literal_secret(k, v) or (_AUTH_SETTING.search(k) and v) for k, v in names)
    return False


_PEM_BLOCK = lazy(r"-----BEGIN ([A-Z0-9 ]{1,40})-----")
_PUBLIC_BLOCKS = frozenset({"CERTIFICATE", "DH PARAMETERS", "X509 CRL", "TRUSTED CERTIFICATE", "EC PARAMETERS"})
_SETTINGS_FILES = frozenset({".npmrc", ".yarnrc", ".yarnrc.yml", ".pypirc", ".gemrc"})
#: Settings of those files that hold a credential whatever their value looks like.
_AUTH_SETTING = lazy(r"(?i)_auth(?:token)?$|_password$|^password$|npmauthtoken$|^token$|^:?(?:rubygems_)?api_key$")
