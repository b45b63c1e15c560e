"""Containers that systemd starts: Podman Quadlet units (``.container``, ``.pod``, ``.kube``)
and services whose ``ExecStart`` runs ``docker run`` or ``podman run``.

A Quadlet key is a ``podman run`` flag by another name (``Volume=`` is ``--volume``,
``SecurityLabelDisable=true`` is ``--security-opt label=disable``), so each unit is turned into
the flags it stands for, at the place each value was written, and read like any ``docker run``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sandkit.lazy_regex import lazy
from sandkit.lint.facts.container_model import Container, Setting
from sandkit.lint.facts.docker_cli import container_from_args, from_commands, global_host
from sandkit.lint.source import SourceFile
from sandkit.lint.syntax.ini import Entry, parse_unit
from sandkit.lint.syntax.shell import Command, Word, parse_commands

#: Quadlet keys that are one ``podman run`` flag taking the value as written.
_FLAG = {
    "Volume": "--volume",
    "Mount": "--mount",
    "AddDevice": "--device",
    "AddHost": "--add-host",
    "Network": "--network",
    "UserNS": "--userns",
}
#: Quadlet keys that become ``--security-opt`` with the value after a prefix.
_SECURITY_OPT = {
    "SeccompProfile": "seccomp=",
    "AppArmor": "apparmor=",
    "SecurityLabelType": "label=type:",
    "Unmask": "unmask=",
    "Mask": "mask=",
}
_QUADLET_SECTIONS = ("Container", "Pod", "Kube")
_EXEC_KEYS = ("ExecStart", "ExecStartPre", "ExecStartPost", "ExecReload", "ExecStop", "ExecStopPost", "ExecCondition")
_EXEC_PREFIXES = "-@:+!"
_TRUE = ("true", "yes", "1", "on")
#: systemd specifiers in paths: the user's home, runtime folder and ID (a user unit's values; in a
#: system unit %t is /run, whose sockets are the rootful ones, which are reported too).
_SPECIFIERS = {"%h": "$HOME", "%t": "$XDG_RUNTIME_DIR", "%U": "$UID", "%%": "%"}
_SPECIFIER = lazy("|".join(re.escape(s) for s in _SPECIFIERS))
_SHELLS = ("sh", "bash", "dash", "zsh")


def unit_entries(file: SourceFile) -> list[Entry]:
    return file.memo("unit_entries", lambda: parse_unit(file.text))


def _words(entry: Entry) -> list[Word]:
    """The value's words (systemd quoting reads like the shell's here), each where it was written."""
    return [
        Word(w.text, entry.pos_at(w.pos.column - 1) if w.pos.line == 1 else entry.pos)
        for command in parse_commands(entry.value)
        for w in (*command.assignments, *command.words)
    ]


def unit_containers(file: SourceFile) -> Iterator[Container]:
    """The container of a Quadlet unit, and those its services start with ``docker|podman run``."""
    entries = unit_entries(file)
    name = file.path.rsplit("/", 1)[-1]
    for section in _QUADLET_SECTIONS:
        own = [entry for entry in entries if entry.section == section]
        if own:
            yield _quadlet(own, f'Quadlet {section.lower()} "{name}"')
    yield from from_commands(service_commands(file))


def _quadlet(entries: list[Entry], label: str) -> Container:
    flags: list[Word] = []
    globals_: list[Word] = []
    image, command = "", None
    for entry in entries:
        at = entry.pos
        if entry.key in _FLAG:
            flags += [Word(_FLAG[entry.key], at), Word(entry.value, at)]
        elif entry.key in _SECURITY_OPT:
            flags += [Word("--security-opt", at), Word(_SECURITY_OPT[entry.key] + entry.value, at)]
        elif entry.key == "SecurityLabelDisable" and entry.value.lower() in _TRUE:
            flags += [Word("--security-opt", at), Word("label=disable", at)]
        elif entry.key == "AddCapability":
            flags += [w for word in _words(entry) for w in (Word("--cap-add", word.pos), word)]
        elif entry.key == "Environment":
            flags += [w for word in _words(entry) for w in (Word("--env", word.pos), word)]
        elif entry.key == "PodmanArgs":
            flags += _words(entry)
        elif entry.key == "GlobalArgs":
            globals_ += _words(entry)
        elif entry.key in ("Image", "Yaml"):
            image = entry.value
        elif entry.key == "Exec":
            command = entry
    flags = [Word(_SPECIFIER.sub(lambda m: _SPECIFIERS[m.group()], w.text), w.pos) for w in flags]
    box = container_from_args(flags, label, entries[0].key_pos, image_known=image or "image")
    if command is not None:
        box.command, box.command_pos = command.value, command.pos
    box.env.extend(global_host(globals_))
    return box


def service_commands(file: SourceFile) -> list[Command]:
    """The command lines of a unit's ``Exec*=`` keys, without systemd's ``-@:+!`` prefixes."""
    return file.memo("service_commands", lambda: list(_service_commands(unit_entries(file))))


def _service_commands(entries: list[Entry]) -> Iterator[Command]:
    for entry in entries:
        if entry.section != "Service" or entry.key not in _EXEC_KEYS:
            continue
        words = _words(entry)
        if words:
            first = words[0]
            words[0] = Word(first.text.lstrip(_EXEC_PREFIXES), first.pos)
        words = [w for w in words if w.text]
        yield Command(words=words)
        yield from _shell_c(words)


def _shell_c(words: list[Word]) -> Iterator[Command]:
    """``/bin/sh -c "docker run ..."``: the commands of the script argument, at that argument."""
    if len(words) > 2 and words[0].text.rsplit("/", 1)[-1] in _SHELLS and words[1].text == "-c":
        script = words[2]
        for command in parse_commands(script.text):
            command.words = [Word(w.text, script.pos) for w in command.words]
            yield command


def unit_environment(file: SourceFile) -> Iterator[Setting]:
    """``Environment=`` of a service (its own processes, ``docker`` among them)."""
    for entry in unit_entries(file):
        if entry.section == "Service" and entry.key == "Environment":
            for word in _words(entry):
                name, eq, value = word.text.partition("=")
                if eq:
                    yield Setting(name, value, word.pos)
