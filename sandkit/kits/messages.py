"""pydantic's errors in the words of the kit format: what to give, for this field, and what was found.

"Input should be a valid list" says nothing about the kit; "agent.command: give a list of words,
such as [claude, -p, "Review the pull request"]" does. Messages of sandkit's own validators (the
ValueErrors in fields.py and model.py) already speak the kit's language and pass through.
"""

from __future__ import annotations

import re
from typing import Any

#: What a field holds, by dotted path with list indices written ``[]``: the noun after "give".
FIELD_SHAPES = {
    "agent.command": 'a list of words, such as [claude, -p, "Review the pull request"]',
    "install": "a list of shell commands, one per entry",
    "startup": "a list of shell commands, one per entry",
    "extends": "a list of preset names or paths relative to this kit, such as [claude-code, ./base.yaml]",
    "image.packages.apt": "a list of Debian package names, such as [git, curl]",
    "image.packages.pip": "a list of Python packages, such as [pytest==8.3.2]",
    "image.packages.npm": "a list of npm packages, such as ['@scope/tool@1.2.3']",
    "image.ca_certificates": "a list of PEM files relative to the kit, such as [certs/corp-ca.pem]",
    "network.allow": "a list of hosts, such as [api.example.com, 'example.com:8443']",
    "network.deny": "a list of hosts, such as [gist.example.com]",
    "env": "a mapping of names to plain values, such as {CI: 'true'}",
    "secrets": "a list of secret references, such as [{name: API_KEY}]",
    "files": "a list of files, such as [{path: /etc/tool.conf, content: '...'}]",
    "ports": "a list of ports, such as [{container: 3000}]",
    "triggers": "a list of triggers, such as [{schedule: '0 9 * * 1'}, {manual: {}}]",
    "triggers[]": "one trigger: {schedule: '0 9 * * 1'}, {github: {event: push}} or {manual: {}}",
    "triggers[].manual": "an empty mapping: manual: {}",
    "triggers[].github.types": "a list of activity types, such as [opened, synchronize]",
    "triggers[].github.branches": "a list of branch names",
    "triggers[].github.paths": "a list of path patterns",
    "targets.actions.permissions": "a mapping of scopes to read, such as {issues: read}",
}


def dotted(path: tuple[str | int, ...]) -> str:
    """``files[0].source`` for ``("files", 0, "source")``; ``kit`` for the whole kit."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text or "kit"


def field_key(path: tuple[str | int, ...]) -> str:
    """``triggers[].github.types`` for ``("triggers", 0, "github", "types")``."""
    text = ""
    for part in path:
        text += "[]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


def _found(value: Any) -> str:
    """What the kit holds, briefly: ``12``, ``true``, ``text 'abc'``, ``a list``."""
    if value is None:
        return "nothing (an empty value)"
    if isinstance(value, bool | int | float):
        return _show(value)
    if isinstance(value, str):
        return f"text {_show(value)}" if len(value) <= 40 else "text"
    if isinstance(value, list):
        return "a list"
    return "a mapping" if isinstance(value, dict) else type(value).__name__


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, str) else str(value)


def _give(path: tuple[str | int, ...], default: str) -> str:
    return FIELD_SHAPES.get(field_key(path), default)


def explain(error: dict[str, Any], path: tuple[str | int, ...]) -> str:
    """The message for one pydantic error at ``path``, in the kit's words."""
    kind = error["type"]
    value = error.get("input")
    ctx = error.get("ctx") or {}
    if kind == "literal_error" and path == ("apiVersion",):
        return f"unknown apiVersion {_show(value)}; this sandkit reads kits of apiVersion sandkit/v1"
    if kind == "literal_error":
        choices = re.findall(r"'([^']*)'", str(ctx.get("expected", "")))
        return f"give one of {', '.join(choices)}; found {_found(value)}"
    shape = _SHAPES.get(kind)
    if shape is not None:
        return f"give {_give(path, shape)}; found {_found(value)}" + _quote_hint(kind, value)
    bound = _BOUNDS.get(kind)
    if bound is not None:
        template, key = bound
        limit = ctx.get(key, "")
        found = ctx["actual_length"] if "actual_length" in ctx else _found(value)
        return template.format(limit=limit, s="" if limit == 1 else "s") + f"; found {found}"
    message = str(error["msg"]).removeprefix("Value error, ").removeprefix("Assertion failed, ")
    if message.startswith("Input should be "):  # a pydantic check without words of our own yet
        return f"give {message.removeprefix('Input should be ').split(',')[0]}; found {_found(value)}"
    return message


def _quote_hint(kind: str, value: Any) -> str:
    if kind == "string_type" and isinstance(value, bool | int | float):
        what = "true/false" if isinstance(value, bool) else "a number"
        return f' (YAML reads {_show(value)} as {what}; quote it: "{_show(value)}")'
    return ""


_SHAPES = {
    "list_type": "a list, such as [a, b]",
    "string_type": "text",
    "string_unicode": "text",
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "dict_type": "a mapping of keys to values (key: value)",
    "model_type": "a mapping of keys to values (key: value)",
    "model_attributes_type": "a mapping of keys to values (key: value)",
}
#: Limits: the message and the key of pydantic's context that holds the limit.
_BOUNDS = {
    "too_short": ("give at least {limit} item{s}", "min_length"),
    "too_long": ("give at most {limit} item{s}", "max_length"),
    "greater_than": ("give a number above {limit}", "gt"),
    "greater_than_equal": ("give a number of at least {limit}", "ge"),
    "less_than": ("give a number below {limit}", "lt"),
    "less_than_equal": ("give a number of at most {limit}", "le"),
    "string_too_long": ("give at most {limit} character{s}", "max_length"),
    "string_too_short": ("give at least {limit} character{s}", "min_length"),
}
