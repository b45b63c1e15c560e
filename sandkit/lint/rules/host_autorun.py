"""agent-autorun, on the host: committed files that make a developer's machine run code by itself.

A devcontainer's ``initializeCommand``, package install scripts, git hooks and the git settings
that install them, direnv's ``.envrc`` and Terraform's external data sources all run without
anyone asking. Whoever can edit them (a pull request, or an agent writing to the working tree
from inside its sandbox) gets code run outside the sandbox.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

from sandkit.lint import kinds
from sandkit.lint.facts.agent_commands import DOWNLOAD_THEN_RUN, FETCH_RUN, SEND_SECRETS, matches_by_line
from sandkit.lint.facts.host_autorun import NPM_LIFECYCLE, PACKAGE_MANIFESTS, AutoRun, autoruns
from sandkit.lint.facts.secret_values import is_lockfile
from sandkit.lint.model import Hit, clip
from sandkit.lint.registry import rule
from sandkit.lint.source import NOT_PLAIN, SourceFile
from sandkit.lint.syntax.shell import Command
from sandkit.lint.syntax.tree import PMap, Pos, PSeq, PStr

#: Programs an initializeCommand may run without being reported: making folders and files.
_HARMLESS = frozenset({"mkdir", "touch", "echo", "printf", "true", ":", "test", "[", "cp", "ln", "chmod"})
_LIFECYCLE = ("initializeCommand", "onCreateCommand", "updateContentCommand", "postCreateCommand", "postStartCommand")
_GIT_KEYS = (
    # key pattern, what git then runs, severity ("" for the rule's)
    (re.compile(r"core\.hookspath"), "the hooks there at every commit, checkout and merge", ""),
    (re.compile(r"core\.fsmonitor"), "it at every git status (shell prompts run that)", "high"),
    (re.compile(r"core\.sshcommand"), "it whenever git fetches or pushes over ssh", "high"),
    (re.compile(r"credential\.helper"), "it whenever git fetches or pushes", "high"),
    (re.compile(r"filter\.[^.]+\.(?:clean|smudge|process)"), "it on every checkout and add of matching files", ""),
    (re.compile(r"diff\.[^.]+\.(?:textconv|command)"), "it at every diff of matching files", ""),
    (re.compile(r"merge\.[^.]+\.driver"), "it at every merge of matching files", ""),
    (re.compile(r"gpg\.program|gpg\.\w+\.program"), "it at every signed commit", ""),
    (re.compile(r"include(?:if\.[^.]+)?\.path"), "whatever the included file configures", ""),
)
_SAFE_CREDENTIAL_HELPERS = frozenset({"store", "cache", "osxkeychain", "manager", "manager-core", "libsecret", ""})
#: core.hooksPath values that turn hooks off: git finds no hook there (an empty value too, git 2.39).
_HOOKS_OFF = frozenset({"/dev/null", ""})
#: Options of `git config` that write a file every repository of the user (or machine) reads.
_WIDE_SCOPES = {"--global": "every repository the user works in", "--system": "every repository on the machine"}
_HOOK_MANAGERS = {
    "husky": "husky (which sets core.hooksPath to .husky)",
    "lefthook": "lefthook install",
    "simple-git-hooks": "simple-git-hooks",
    "pre-commit": "pre-commit install",
}


def _position(file: SourceFile, run: AutoRun, offset: int) -> Pos:
    if run.text is None:
        return run.commands[0].pos if run.commands and run.commands[0].words else run.pos
    if run.whole_file:
        return file.pos_at(offset)
    return file.str_pos(run.text, offset)


def _text(run: AutoRun) -> str:
    if run.text is not None:
        return str(run.text)
    return "\n".join(" ".join(word.text for word in command.words) for command in run.commands)


@rule(
    "AA010",
    "devcontainer-initialize-command",
    category="agent-autorun",
    severity="medium",
    kinds=(kinds.DEVCONTAINER,),
    triggers=("initializeCommand",),
)
def devcontainer_initialize_command(file: SourceFile) -> Iterator[Hit]:
    """A devcontainer's `initializeCommand` runs a program on the host.

    VS Code, Codespaces and the devcontainer CLI run `initializeCommand` on the machine that
    opens the folder, before the container exists: outside any sandbox the container would
    give. Commands that only make folders or files (`mkdir`, `touch`, `cp`, `echo`) are not
    findings; downloading and running code there is AA012.

    Why:
    Opening a repository in a container is meant to keep its code in the container. This
    command is the repository's code, run on the host; a pull request (or an agent working in
    the container, which can edit this file) decides what it is.

    Fix:
    Move the work into `onCreateCommand` or `postCreateCommand`, which run inside the
    container; keep `initializeCommand` to creating folders the mounts need.
    """
    for run in autoruns(file):
        if not run.trigger.startswith("initializeCommand"):
            continue
        programs = {command.program()[0] for command in run.commands} - {""}
        if programs and programs <= _HARMLESS:
            continue
        yield Hit(run.pos, f"initializeCommand runs on the host before the container exists: {clip(_text(run))}")


@rule(
    "AA011",
    "git-runs-repository-programs",
    category="agent-autorun",
    severity="medium",
    kinds=(kinds.SHELL, kinds.MAKEFILE, kinds.JUSTFILE, kinds.JSON, kinds.DEVCONTAINER),
    triggers=("git", "husky", "lefthook", "pre-commit"),
)
def git_runs_repository_programs(file: SourceFile) -> Iterator[Hit]:
    """A committed script sets git to run programs from the working tree by itself.

    `git config core.hooksPath DIR` (hooks then run at every commit, checkout and merge),
    `core.fsmonitor` (at every `git status`), a `credential.helper` that is a command,
    filter, diff and merge drivers, `gpg.program` and `include.path` (which pulls in a
    committed configuration), in shell scripts, Makefiles, justfiles, package.json and
    composer.json scripts and devcontainer lifecycle commands. Hook managers started by an
    install script (husky, lefthook, simple-git-hooks, pre-commit) are reported at low
    severity; husky is info where it installs nothing: in a package.json below the top level
    with no `.git` beside it and no `cd` before it (husky installs only from the folder holding
    `.git`). Where
    the hooks themselves download and run code, that is AA012.

    Why:
    The hooks and drivers live in the working tree, which a pull request or an agent in its
    sandbox can rewrite; git then runs them on the developer's machine at the next commit or
    status, outside the sandbox, with the developer's credentials.

    Fix:
    Let developers install hooks themselves after reading them; keep hook code out of the
    folders an agent can write, or run git for agent work only inside the sandbox.
    """
    for command in _script_commands(file):
        yield from _git_config(command)
    if file.kind == kinds.JSON and file.path.rsplit("/", 1)[-1] == "package.json":
        yield from _hook_managers(file)


def _script_commands(file: SourceFile) -> Iterator[Command]:
    if file.kind in (kinds.SHELL, kinds.MAKEFILE, kinds.JUSTFILE):
        yield from file.commands
        return
    if file.kind == kinds.JSON and (is_lockfile(file.path) or not _has_scripts(file)):
        return  # no tool runs a lockfile's scripts; a schema's megabytes are not parsed for nothing
    document = file.documents[0] if file.documents else None
    if not isinstance(document, PMap):
        return
    if file.kind == kinds.JSON:
        scripts = document.get("scripts")
        values = list(scripts.values()) if isinstance(scripts, PMap) else []
    else:
        values = [document.get(key) for key in _LIFECYCLE]
    for value in values:
        items = list(value.values()) if isinstance(value, PMap) else value if isinstance(value, PSeq) else [value]
        for item in items:
            if isinstance(item, PStr):
                yield from file.commands_in(item)


def _has_scripts(file: SourceFile) -> bool:
    """Whether a JSON file may have a ``scripts`` mapping holding a command (the C parser's
    reading answers, where the text is strict JSON)."""
    if '"scripts"' not in file.text and "\\u" not in file.text:
        return False  # no "scripts" key, plain or escaped
    plain = file.plain_json
    if plain is NOT_PLAIN:
        return True
    scripts = plain.get("scripts") if isinstance(plain, dict) else None
    return isinstance(scripts, dict) and any(isinstance(value, str) for value in scripts.values())


def _git_config(command: Command) -> Iterator[Hit]:
    program, index = command.program()
    words = command.words[index + 1 :]
    if program != "git":
        return
    at = next((i for i, w in enumerate(words) if w.text == "config"), None)
    if at is None or any(w.text.startswith("-") and "unset" in w.text for w in words):
        return
    options = [w.text for w in words[at + 1 :] if w.text.startswith("-")]
    rest = [w for w in words[at + 1 :] if not w.text.startswith("-") and w.text not in ("set",)]
    if len(rest) < 2:
        return
    key, value = rest[0], rest[1]
    scope = next((option for option in options if option in _WIDE_SCOPES), "")
    for pattern, runs, severity in _GIT_KEYS:
        if not pattern.fullmatch(key.text.lower()):
            continue
        if key.text.lower() == "credential.helper" and value.text in _SAFE_CREDENTIAL_HELPERS:
            return
        if key.text.lower() == "core.hookspath" and value.text.lower() in _HOOKS_OFF:
            return  # the idiom that turns hooks off: no hook can run from there
        where = f", in {_WIDE_SCOPES[scope]}" if scope else ""
        shown = f"{scope} {key.text}" if scope else key.text
        yield Hit(key.pos, f"git config {shown} {clip(value.text, 60)}: git then runs {runs}{where}", severity=severity)
        return


def _hook_managers(file: SourceFile) -> Iterator[Hit]:
    document = file.documents[0] if file.documents else None
    scripts = document.get("scripts") if isinstance(document, PMap) else None
    if not isinstance(document, PMap) or not isinstance(scripts, PMap):
        return
    for event in NPM_LIFECYCLE:
        value = scripts.get(event)
        if not isinstance(value, PStr):
            continue
        moved = False  # a `cd` earlier in the script: husky then runs where that leads
        for command in file.commands_in(value):
            program = command.program()[0]
            argv = [w.text for w in command.words]
            manager = _HOOK_MANAGERS.get(program)
            if manager and (program in ("husky", "simple-git-hooks") or "install" in argv):
                idle = _husky_idle(file) if program == "husky" and not moved else ""
                if idle:
                    yield Hit(
                        command.pos,
                        f"the {event} script runs husky, which installs no git hooks from here",
                        severity="info",
                        why=idle,
                    )
                    continue
                yield Hit(
                    command.pos,
                    f"the {event} script installs git hooks with {manager}: they run at every commit",
                    severity="low",
                )
            moved = moved or program == "cd"


def _husky_idle(file: SourceFile) -> str:
    """Why a husky command in this package.json's script sets no hooks, or "". Husky installs
    only from the folder holding ``.git`` (husky 8 throws, husky 9 returns, and neither takes a
    ``..`` path), so a package.json below the top level with no ``.git`` beside it installs
    nothing unless its script first does ``cd ..``, whether or not husky is a dependency there (a
    workspace package's scripts run in its own folder too)."""
    folder = os.path.dirname(file.origin) if file.origin else ""
    if "/" in file.path and not (folder and os.path.lexists(os.path.join(folder, ".git"))):
        return "husky installs only from the folder holding .git, and this package.json is below the top level"
    return ""


@rule(
    "AA012",
    "autorun-fetches-or-sends",
    category="agent-autorun",
    severity="high",
    kinds=(kinds.SHELL, kinds.JSON, kinds.DEVCONTAINER, kinds.TERRAFORM),
    reads=lambda file: file.kind != kinds.JSON or file.path.rsplit("/", 1)[-1] in PACKAGE_MANIFESTS,
    triggers=("curl", "wget", "iwr", "irm", "iex", "Invoke-", "nc ", "ncat", "netcat"),
)
def autorun_fetches_or_sends(file: SourceFile) -> Iterator[Hit]:
    """Code that runs by itself downloads and runs code, or sends the environment out.

    Package install scripts (`preinstall`, `install`, `postinstall`, `prepare` and the like,
    and Composer's install and update events), a devcontainer's `initializeCommand`, git
    hooks (files named `pre-commit`, `post-checkout` ...), direnv's `.envrc` and Terraform's
    `data "external"` programs, when they pipe a download into a shell (`curl ... | sh`,
    `bash -c "$(curl ...)"`, `iwr ... | iex`), download a file and run it, or post the
    environment or a credential file (`curl -d "$(env)"`, `env | curl`, `--data-binary @.env`).

    Why:
    These run on the developer's machine or the CI runner as soon as someone installs,
    commits, enters the folder or plans; the downloaded code is reviewed by no one and can
    change at any time, and the environment holds tokens and cloud keys.

    Fix:
    Vendor and review the script, or install the tool as a pinned dependency; never send
    environment variables or credential files to another host from an install step.
    """
    for run in autoruns(file):
        text = _text(run)
        for pattern, what in ((SEND_SECRETS, "sends secrets out"), (FETCH_RUN, "downloads code and runs it")):
            match = next(matches_by_line(pattern, text), None)
            if match is None and pattern is FETCH_RUN:
                match = next(matches_by_line(DOWNLOAD_THEN_RUN, text), None)
            if match is not None:
                start = text.rfind("\n", 0, match.start()) + 1
                end = text.find("\n", match.end())
                line = text[start : end if end >= 0 else len(text)]
                yield Hit(_position(file, run, match.start()), f"{run.trigger} {what}: {clip(line)}")
                break


@rule(
    "AA013",
    "terraform-external-program",
    category="agent-autorun",
    severity="medium",
    kinds=(kinds.TERRAFORM,),
    triggers=("external",),
)
def terraform_external_program(file: SourceFile) -> Iterator[Hit]:
    """A Terraform `data "external"` source runs a program at every plan.

    Terraform runs the `program` of an external data source while planning, and plans are
    what people (and CI, on pull requests) run to see what a change would do.

    Why:
    A plan looks read-only, so it is run on branches nobody has reviewed yet, with the cloud
    credentials of whoever plans; the program can do anything with them.

    Fix:
    Replace the external program with a provider's data source, or compute the value
    outside Terraform and pass it in as a variable.
    """
    for run in autoruns(file):
        if run.trigger.startswith('data "external"'):
            yield Hit(run.pos, f"{run.trigger} runs {clip(_text(run))}")


#: git's configuration syntax, as much as the rule needs: ``[section]``, ``[section "sub"]`` (or the
#: old ``[section.sub]``), and ``key = value`` lines; ``#`` and ``;`` start comments.
_SECTION = re.compile(r'\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]')
_ENTRY = re.compile(r"\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?$")
#: What a nested repository's configuration may name that runs a program on the host (AA015).
_NESTED_KEYS = (
    re.compile(r"core\.(?:fsmonitor|hookspath|sshcommand)"),
    re.compile(r"filter\..+\.(?:clean|smudge|process)"),
    re.compile(r"credential(?:\..+)?\.helper"),
)
#: core.fsmonitor's values that name git's own daemon (or nothing), not a program.
_FSMONITOR_BUILTIN = frozenset({"true", "false", "yes", "no", "on", "off", "1", "0", ""})


def _git_value(raw: str) -> str:
    """A value as git reads it: quotes removed, escapes undone, a comment (``#``, ``;``) outside quotes cut."""
    out: list[str] = []
    quoted = escaped = False
    for char in raw:
        if escaped:
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(char, char))
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == '"':
            quoted = not quoted
        elif char in "#;" and not quoted:
            break
        else:
            out.append(char)
    return "".join(out).strip()


def _nested_git_config(path: str) -> bool:
    """``X/.git/config`` below the scan root: a repository nested inside the one being scanned."""
    return path.endswith("/.git/config") and path != ".git/config"


@rule(
    "AA015",
    "nested-repository-runs-programs",
    category="agent-autorun",
    severity="high",
    kinds=(kinds.TEXT,),
    reads=lambda file: _nested_git_config(file.path),
    triggers=(re.compile(r"(?i)fsmonitor|hookspath|sshcommand|filter|helper"),),
)
def nested_repository_runs_programs(file: SourceFile) -> Iterator[Hit]:
    """A repository nested in the folder has a configuration that makes git run a program.

    The `.git/config` of a repository below the scanned folder (`docs/notes/.git/config`) that
    sets `core.fsmonitor` to a program, `core.hooksPath`, `core.sshCommand`, a filter's
    `clean`, `smudge` or `process` command, or a `credential.helper` that is a command. The
    keys are read as git reads them: case-insensitive sections and names, `[section "sub"]`
    and the older `[section.sub]`. The scanned folder's own `.git` is not read; a nested
    repository's hooks folder is not read either (its config's `core.hooksPath` is).

    Why:
    An agent that can write the folder (sandkit's `workspace: mount`, or any sandbox with the
    folder mounted) can create a repository anywhere in it. The next `git status` run there on
    the host, by a person, a shell prompt that shows the branch, or an editor scanning for
    repositories, runs the program as the developer, outside the sandbox.

    Fix:
    Delete the nested repository (or its `.git`) unless you made it yourself; if you did, remove
    the setting, and check its `hooks` folder before running git there.
    """
    section = ""  # the section's name lowercased, then "." and its subsection as written
    for number, line in enumerate(file.text.splitlines(), 1):
        offset = 0
        header = _SECTION.match(line)
        if header:
            name, sub = header.group(1).lower(), header.group(2)
            section = f"{name}.{sub}" if sub is not None else name
            offset = header.end()
        entry = _ENTRY.match(line[offset:]) if section else None
        if entry is None:
            continue
        key = f"{section}.{entry.group(1).lower()}"
        value = _git_value(entry.group(2) or "")
        if not any(pattern.fullmatch(key) for pattern in _NESTED_KEYS):
            continue
        if key == "core.fsmonitor" and value.lower() in _FSMONITOR_BUILTIN:
            continue
        if key == "core.hookspath" and value.lower() in _HOOKS_OFF:
            continue
        if key.endswith(".helper") and value in _SAFE_CREDENTIAL_HELPERS:
            continue
        column = offset + line[offset:].find(entry.group(1)) + 1
        yield Hit(Pos(number, column), f"{key} = {clip(value, 60)}: git run in this repository runs it")
