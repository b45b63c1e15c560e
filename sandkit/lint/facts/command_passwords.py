"""Passwords written on a command line: ``oc login -u kubeadmin -p Kx82...``, ``mysql -pKx82...``,
``curl -u user:Kx82...``, in a shell script, a Makefile or justfile recipe, a workflow's ``run:``
or another CI pipeline's script lines, read with the shell reading of :mod:`sandkit.lint.syntax.shell`.

What counts as a literal is for the caller (PS002) to say; this gives each password word as written
with the program and option that take it, leaving out words the shell or the CI system expands
(``$VAR``, ``${{ secrets.X }}``, ``$(cat file)``, backticks).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator
from typing import NamedTuple

from sandkit.lazy_regex import lazy
from sandkit.lint import kinds
from sandkit.lint.facts.containers import ci_scripts
from sandkit.lint.source import SourceFile
from sandkit.lint.syntax.shell import Command, Word
from sandkit.lint.syntax.tree import PMap, Pos, PSeq, PStr


class Option(NamedTuple):
    """How a program takes a password on its command line."""

    #: A subcommand that must come right after the program ("login"), or "" for any.
    subcommand: str
    #: Options whose value is the next word or is joined with ``=`` (``-p X``, ``--password=X``).
    separate: tuple[str, ...] = ()
    #: Options whose value is joined to them, with no space (``-pX``, as mysql takes it).
    joined: tuple[str, ...] = ()
    #: Options whose value is ``user:password`` (curl's ``-u``), next word or joined.
    user_password: tuple[str, ...] = ()
    #: The password is the last word, when this option is given (``htpasswd -b file user pw``).
    last_with: str = ""


_LOGIN = Option("login", separate=("-p", "--password"))
_MYSQL = Option("", joined=("-p",), separate=("--password",))

#: Programs and the options that take a password on their command line.
PASSWORD_OPTIONS: dict[str, tuple[Option, ...]] = {
    # oc login -u USER -p PASSWORD (OpenShift CLI; the token form is --token)
    "oc": (_LOGIN,),
    # docker login -u USER -p PASSWORD (Docker warns and recommends --password-stdin); the same
    # options for Podman, nerdctl, Buildah, Skopeo and `helm registry login`
    "docker": (_LOGIN,),
    "podman": (_LOGIN,),
    "nerdctl": (_LOGIN,),
    "buildah": (_LOGIN,),
    "skopeo": (_LOGIN,),
    "helm": (Option("registry", separate=("-p", "--password")),),
    # mysql -pPASSWORD (joined: a separate word after -p is the database name) or
    # --password=PASSWORD; the same client options for mysqldump, mysqladmin and MariaDB's clients
    "mysql": (_MYSQL,),
    "mysqldump": (_MYSQL,),
    "mysqladmin": (_MYSQL,),
    "mariadb": (_MYSQL,),
    "mariadb-dump": (_MYSQL,),
    # curl -u USER:PASSWORD / --user USER:PASSWORD (with no colon curl asks for the password)
    "curl": (Option("", user_password=("-u", "--user", "--proxy-user", "-U")),),
    # wget --password=X, --http-password=X, --ftp-password=X
    "wget": (Option("", separate=("--password", "--http-password", "--ftp-password", "--proxy-password")),),
    # sshpass -p PASSWORD ssh ... (-pPASSWORD too)
    "sshpass": (Option("", separate=("-p",), joined=("-p",)),),
    # htpasswd -b [-c] FILE USER PASSWORD, htpasswd -nb USER PASSWORD: -b takes it from the command line
    "htpasswd": (Option("", last_with="b"),),
    # redis-cli -a PASSWORD (or --pass PASSWORD)
    "redis-cli": (Option("", separate=("-a", "--pass")),),
    # mongosh / mongo -u USER -p PASSWORD
    "mongosh": (Option("", separate=("-p", "--password")),),
    "mongo": (Option("", separate=("-p", "--password")),),
    # sqlcmd -U USER -P PASSWORD (SQL Server; -p lower-case prints statistics)
    "sqlcmd": (Option("", separate=("-P",)),),
    # az login --service-principal -u APP_ID -p SECRET (Azure CLI)
    "az": (Option("login", separate=("-p", "--password")),),
    # cf login -u USER -p PASSWORD, cf auth USER PASSWORD (Cloud Foundry CLI)
    "cf": (Option("login", separate=("-p",)),),
}


class CommandPassword(NamedTuple):
    """A password word on a command line: what takes it (``oc login -p``), as written, and where."""

    label: str
    value: str
    pos: Pos


#: Kinds whose commands are read: scripts and recipes, workflows, other CI pipelines' scripts.
_SCRIPT_KINDS = (kinds.SHELL, kinds.MAKEFILE, kinds.JUSTFILE)
_WORKFLOW_KINDS = (kinds.WORKFLOW, kinds.ACTION)
_CI_KINDS = (kinds.GITLAB_CI, kinds.CIRCLECI, kinds.AZURE_PIPELINES, kinds.BITBUCKET_PIPELINES)


#: One of the programs as a word followed by a space or tab.
_PROGRAM = lazy(r"(?<![\w.-])(?:" + "|".join(re.escape(name) for name in PASSWORD_OPTIONS) + r")[ \t]")
#: An option's dash after whitespace, and a line's end that no backslash continues.
_OPTION_DASH = lazy(r"(?<=\s)-")
_LINE_END = lazy(r"(?<!\\)\n")
_OPTION_REACH = 2001  # characters after the program in which its first option is looked for


def may_hold_command_password(file: SourceFile) -> bool:
    """A cheap test: the file is read for commands and names one of the programs with an option
    after it on its command line (backslash-newline continuations included), within
    :data:`_OPTION_REACH` characters. Every option and line end is found once and each mention
    looks up the next of each, so a planted line of a program's name repeated stays linear."""
    if file.kind not in (*_SCRIPT_KINDS, *_WORKFLOW_KINDS, *_CI_KINDS):
        return False
    text = file.text
    mentions = [match.end() for match in _PROGRAM.finditer(text)]
    if not mentions:
        return False
    dashes = [match.start() for match in _OPTION_DASH.finditer(text)]
    ends = [match.start() for match in _LINE_END.finditer(text)]
    for after in mentions:
        at = bisect_left(dashes, after)
        if at == len(dashes) or dashes[at] - after > _OPTION_REACH:
            continue
        dash = dashes[at]
        end = bisect_left(ends, after)
        if end == len(ends) or ends[end] >= dash - 1:
            return True  # no line end before the whitespace that leads to the dash
    return False


def command_passwords(file: SourceFile) -> Iterator[CommandPassword]:
    """Every password word on a command line of the file (see the module doc)."""
    if not may_hold_command_password(file):
        return
    for command in _commands(file):
        yield from _passwords(command)


def _commands(file: SourceFile) -> Iterator[Command]:
    if file.kind in _SCRIPT_KINDS:
        yield from file.commands
        return
    scripts = _run_steps(file) if file.kind in _WORKFLOW_KINDS else ci_scripts(file)
    read: set[int] = set()  # a script aliases copy into many jobs is one string: read once
    for script in scripts:
        if id(script) not in read:
            read.add(id(script))
            yield from file.commands_in(script)


def _run_steps(file: SourceFile) -> Iterator[PStr]:
    """The ``run:`` scripts of a workflow's jobs and a composite action's steps, each list of steps
    read once (aliases may give many jobs the same one)."""
    lists: set[int] = set()
    for document in file.documents:
        if not isinstance(document, PMap):
            continue
        table = document.get("jobs")
        specs = [spec for spec in table.values() if isinstance(spec, PMap)] if isinstance(table, PMap) else []
        runs = document.get("runs")
        for steps in [spec.get("steps") for spec in specs] + [runs.get("steps") if isinstance(runs, PMap) else None]:
            if not isinstance(steps, PSeq) or id(steps) in lists:
                continue
            lists.add(id(steps))
            for step in steps:
                if isinstance(step, PMap) and isinstance(run := step.get("run"), PStr):
                    yield run


def _passwords(command: Command) -> Iterator[CommandPassword]:
    name, index = command.program()
    options = PASSWORD_OPTIONS.get(name)
    if not options:
        return
    words = command.words[index + 1 :]
    for option in options:
        args = words
        if option.subcommand:
            if not args or args[0].text != option.subcommand:
                continue
            args = args[1:]
        label = f"{name} {option.subcommand} ".replace("  ", " ")
        yield from _option_values(args, option, label)


def _option_values(args: list[Word], option: Option, label: str) -> Iterator[CommandPassword]:
    if option.last_with:
        flags = [w.text for w in args if w.text.startswith("-") and not w.text.startswith("--")]
        plain = [w for w in args if not w.text.startswith("-")]
        if any(option.last_with in flag for flag in flags) and plain:
            yield _found(f"{label}-{option.last_with}", plain[-1])
        return
    for at, word in enumerate(args):
        text = word.text
        if text == "--":
            return
        nxt = args[at + 1] if at + 1 < len(args) else None
        for flag in option.separate:
            if text == flag and nxt is not None:
                yield _found(f"{label}{flag}", nxt)
            elif flag.startswith("--") and text.startswith(flag + "="):
                yield _found(f"{label}{flag}", _shifted(word, len(flag) + 1))
        for flag in option.joined:
            if text.startswith(flag) and len(text) > len(flag) and not text.startswith("--"):
                yield _found(f"{label}{flag}", _shifted(word, len(flag)))
        for flag in option.user_password:
            given = nxt if text == flag else None
            if given is None and flag.startswith("--") and text.startswith(flag + "="):
                given = _shifted(word, len(flag) + 1)
            elif given is None and not flag.startswith("--") and text.startswith(flag) and len(text) > len(flag):
                given = _shifted(word, len(flag))
            if given is not None and ":" in given.text:
                user = given.text.split(":", 1)[0]
                yield _found(f"{label}{flag}", _shifted(given, len(user) + 1))


def _shifted(word: Word, by: int) -> Word:
    """The rest of ``word`` after its first ``by`` characters (its position moved on, when the
    word was written on one line with no quotes before that point, as it is in these options)."""
    return Word(word.text[by:], Pos(word.pos.line, word.pos.column + by))


def _found(label: str, word: Word) -> CommandPassword:
    return CommandPassword(label.strip(), word.text, word.pos)
