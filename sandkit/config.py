"""sandkit's configuration: ``[tool.sandkit]`` in pyproject.toml, or the top level of .sandkit.toml,
read by the linter and by ``sandkit build`` (through the parse layer's TOML reader).

The linter's keys

Keys (``-`` and ``_`` are interchangeable)::

    select = ["RS", "privileged"]        # rule IDs, ID prefixes, names or categories to run
    ignore = ["EG004"]                   # ... to skip
    per-path-ignores = {"tests/**" = ["RS001"]}   # glob -> rules skipped for matching paths
    fail-on = "medium"                   # lowest severity that fails the run
    exclude = ["tests/lint/corpus"]      # globs of paths not scanned at all
    extra-secret-patterns = ["acme_[0-9a-f]{32}"]   # more credential formats (regexes)
    max-file-size = 2000000              # bytes read per file; the rest is not read (listed or SK002)
    include-examples = false             # report secrets in tests, fixtures and docs (at low)

``sandkit build`` reads two keys of the same table, so that ``sandkit build --check`` (the
pre-commit hook) needs no arguments::

    kits = ["kits/"]                     # kit files or folders, when the command line names none
    output = "sandbox"                   # where build writes (-o), when the command line says not

Paths are relative to the folder of the file that holds them. A bad file is a located error,
never a traceback.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from sandkit.errors import Location, Problem, UsageError
from sandkit.syntax.tree import MAX_BYTES, PMap, Pos, SyntaxProblem

#: Finding and change severities, highest first (``fail-on``, ``--fail-on``, ``--min-severity``).
SEVERITIES = ("critical", "high", "medium", "low", "info")
CONFIG_NAMES = (".sandkit.toml", "pyproject.toml")
_LISTS = ("select", "ignore", "exclude", "extra-secret-patterns", "kits")


class ConfigError(UsageError):
    """The configuration is wrong; the message names the file, line and column."""


class LintConfig(NamedTuple):
    """The settings of one configuration file (the defaults when there is none)."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_path_ignores: Mapping[str, tuple[str, ...]] = {}
    fail_on: str = "low"
    exclude: tuple[str, ...] = ()
    extra_secret_patterns: tuple[str, ...] = ()
    max_file_size: int = MAX_BYTES
    include_examples: bool = False
    kits: tuple[str, ...] = ()
    output: str | None = None
    path: str | None = None

    def relative(self, path: str) -> str:
        """``path`` as written in this file, from the working folder."""
        folder = os.path.dirname(os.path.abspath(self.path)) if self.path else os.getcwd()
        return os.path.relpath(os.path.normpath(os.path.join(folder, path)))


def find_config(start: str) -> str | None:
    """The nearest .sandkit.toml, or pyproject.toml with a [tool.sandkit] table, upwards."""
    folder = os.path.abspath(start)
    while True:
        for name in CONFIG_NAMES:
            candidate = os.path.join(folder, name)
            if os.path.isfile(candidate) and (name != "pyproject.toml" or _has_table(candidate)):
                return candidate
        if os.path.isdir(os.path.join(folder, ".git")):
            return None
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _has_table(path: str) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return "[tool.sandkit" in handle.read()
    except OSError:
        return False


def load_config(path: str) -> LintConfig:
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: error: cannot read the configuration: {exc}") from None
    try:
        return _settings(path, text, located=False)
    except ConfigError:  # read again with every key located, for the error's line and column
        return _settings(path, text, located=True)


def _settings(path: str, text: str, located: bool) -> LintConfig:
    """The configuration; keys are located (a pattern compiled for each) only when ``located``,
    since a position is only ever shown in an error."""
    from sandkit.syntax.toml import load_toml, load_toml_value  # tomllib: only where a file configures

    try:
        if os.path.basename(path) == "pyproject.toml":
            data = load_toml_value(text, ("tool", "sandkit"), located)
        else:
            data = load_toml(text, located)
    except SyntaxProblem as exc:
        raise _error(path, exc.pos, exc.message) from None
    return LintConfig(path=path) if data is None else _build(path, data)


def _error(path: str, pos: Pos, message: str, hint: str = "") -> ConfigError:
    return ConfigError(str(Problem(Location(path, pos.line, pos.column), message, hint)))


def _build(path: str, data: PMap) -> LintConfig:
    settings: dict[str, Any] = {}
    for raw_key, value in data.items():
        key = str(raw_key).replace("_", "-")
        pos = data.pos_of(raw_key)
        if key in _LISTS:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise _error(path, pos, f"'{raw_key}' must be a list of strings")
            settings[key.replace("-", "_")] = tuple(value)
        elif key in ("per-path-ignores", "per-file-ignores"):
            settings["per_path_ignores"] = _per_path(path, value, pos)
        elif key == "fail-on":
            if value not in SEVERITIES:
                raise _error(path, pos, f"fail-on must be one of {', '.join(SEVERITIES)}")
            settings["fail_on"] = str(value)
        elif key == "output":
            if not isinstance(value, str) or not value:
                raise _error(path, pos, "output must be a folder path (a string)")
            settings["output"] = value
        elif key == "include-examples":
            if not isinstance(value, bool):
                raise _error(path, pos, "include-examples must be true or false")
            settings["include_examples"] = value
        elif key == "max-file-size":
            if not isinstance(value, int) or isinstance(value, bool) or value < 1024:
                raise _error(path, pos, "max-file-size must be a number of bytes >= 1024")
            settings["max_file_size"] = value
        else:
            raise _error(path, data.pos_of_key(raw_key), f"unknown key '{raw_key}'", _did_you_mean(key))
    config = LintConfig(**settings, path=path)
    for pattern in config.extra_secret_patterns:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise _error(
                path,
                data.pos_of("extra-secret-patterns"),
                f"extra secret pattern {pattern!r} is not a valid regex: {exc}",
            ) from None
    return config


def _per_path(path: str, value: Any, pos: Pos) -> dict[str, tuple[str, ...]]:
    if not isinstance(value, dict):
        raise _error(path, pos, "per-path-ignores must map path globs to lists of rules")
    result: dict[str, tuple[str, ...]] = {}
    for glob, rules in value.items():
        if not isinstance(rules, list) or not all(isinstance(r, str) for r in rules):
            raise _error(
                path,
                value.pos_of(glob) if isinstance(value, PMap) else pos,
                f"per-path-ignores['{glob}'] must be a list of rule IDs",
            )
        result[str(glob)] = tuple(rules)
    return result


def _did_you_mean(key: str) -> str:
    import difflib

    known = [*_LISTS, "per-path-ignores", "fail-on", "max-file-size", "include-examples", "output"]
    close = difflib.get_close_matches(key, known, n=1)
    return f"did you mean '{close[0]}'?" if close else f"known keys: {', '.join(known)}"
