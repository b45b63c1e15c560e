"""``sandkit completion bash|zsh|fish``: completion scripts written from the argparse parser itself.

The parser is the one source of truth: every sub-command, flag and choice it knows is completed,
and a flag added tomorrow is completed without touching this file. What a value completes to is
read from the action: its ``choices``, or files for metavars FILE, PATH and KIT, folders for DIR;
and the names sandkit itself knows (:func:`known_values`): the bundled presets for ``--preset`` and
``--extends``, the targets for ``--target``, the lint rules' IDs and categories for ``--select``
and its kin and for ``explain``, the categories for ``rules --category``. Those read light sources
(the presets folder, the kit schema, the generated rule index), so sourcing a script stays fast.
A comma-separated list (``--target compose,k``) completes its last item.

Every word written into a script is checked to be a plain option or choice, and descriptions
are stripped of the characters each shell would interpret, so the scripts are safe to source.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass

SHELLS = ("bash", "zsh", "fish")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*|--?[A-Za-z0-9][A-Za-z0-9_-]*")
_FILE_METAVARS = ("FILE", "PATH", "KIT")


@dataclass(frozen=True)
class Option:
    flags: tuple[str, ...]
    help: str
    value: str  # "" (a switch), "file", "dir", "choice", "list" (comma-separated choices), "any"
    choices: tuple[str, ...] = ()


def _presets() -> tuple[str, ...]:
    from sandkit.kits.extends import preset_names

    return tuple(preset_names())


def _targets() -> tuple[str, ...]:
    """The targets, in the kit schema's ``targets`` section (all but ``build``)."""
    import json
    from importlib.resources import files

    schema = json.loads(files("sandkit").joinpath("schemas/kit.schema.json").read_text(encoding="utf-8"))
    return tuple(sorted(name for name in schema["$defs"]["Targets"]["properties"] if name != "build"))


def _categories() -> tuple[str, ...]:
    from sandkit.lint.registry import all_rules

    return tuple(sorted({rule.category for rule in all_rules()}))


def _rule_words() -> tuple[str, ...]:
    """What --select and explain take: rule IDs, then categories (prefixes and names work too)."""
    from sandkit.lint.registry import all_rules

    return (*sorted(rule.id for rule in all_rules()), *_categories())


def known_values(action: argparse.Action) -> tuple[str, tuple[str, ...]]:
    """("choice" or "list", the names) for a value sandkit knows the names of; ("", ()) otherwise."""
    flags = set(action.option_strings)
    metavar = action.metavar if isinstance(action.metavar, str) else ""
    if metavar == "PRESET" or "--preset" in flags:
        return "choice", _presets()
    if "--target" in flags:
        return "list", _targets()
    if metavar == "RULES":
        return "list", _rule_words()
    if metavar == "RULE":
        return "choice", _rule_words()
    if "--category" in flags:
        return "list", _categories()
    return "", ()


@dataclass(frozen=True)
class Command:
    name: str
    help: str
    options: tuple[Option, ...]
    positional: Option | None  # what the words after the flags complete to


def _word(text: str) -> str:
    if not _WORD.fullmatch(text):
        raise ValueError(f"{text!r} is not a plain word; completion scripts only carry plain words")
    return text


def _describe(action: argparse.Action) -> Option:
    help_text = " ".join((action.help or "").split()) if action.help != argparse.SUPPRESS else ""
    flags = tuple(_word(f) for f in action.option_strings)
    if action.nargs == 0:
        return Option(flags, help_text, "")
    if action.choices:
        return Option(flags, help_text, "choice", tuple(_word(str(c)) for c in action.choices))
    kind, names = known_values(action)
    if kind:
        return Option(flags, help_text, kind, tuple(_word(name) for name in names))
    metavar = action.metavar if isinstance(action.metavar, str) else ""
    value = "dir" if metavar == "DIR" else "file" if metavar in _FILE_METAVARS else "any"
    return Option(flags, help_text, value)


def _command(name: str, help_text: str, parser: argparse.ArgumentParser) -> Command:
    options = []
    positional = None
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            continue
        if action.option_strings:
            options.append(_describe(action))
        elif positional is None:
            positional = _describe(action)
    return Command(_word(name), help_text, tuple(options), positional)


def commands(parser: argparse.ArgumentParser) -> tuple[Command, list[Command]]:
    """The top level (its options) and each sub-command, in the parser's order."""
    top = _command("sandkit", parser.description or "", parser)
    subs: list[Command] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
            for name, sub in action.choices.items():
                subs.append(_command(name, helps.get(name, ""), sub))
    return top, subs


def _plain(text: str, limit: int = 80) -> str:
    """A description no shell will interpret: no quotes, brackets, colons, backslashes or $."""
    cleaned = re.sub(r"[^A-Za-z0-9 ,.;()/+=*@%_-]", "", text)
    return cleaned[:limit].rstrip()


def script(parser: argparse.ArgumentParser, shell: str) -> str:
    top, subs = commands(parser)
    if shell == "bash":
        return _bash(top, subs)
    if shell == "zsh":
        return _zsh(top, subs)
    return _fish(top, subs)


# ----- bash ---------------------------------------------------------------------------------
def _bash_values(options: tuple[Option, ...]) -> list[str]:
    lines = []
    for option in options:
        if not option.value:
            continue
        flags = "|".join(option.flags)
        if option.value in ("choice", "list"):
            action = _bash_choices(option)
        elif option.value == "file":
            action = 'COMPREPLY=($(compgen -f -- "$cur"))'
        elif option.value == "dir":
            action = 'COMPREPLY=($(compgen -d -- "$cur"))'
        else:
            action = "COMPREPLY=()"
        lines.append(f"                {flags}) {action}; return ;;")
    return lines


def _bash_choices(option: Option) -> str:
    """compgen over the choices; for a list, over what follows the last comma, the rest kept."""
    words = " ".join(option.choices)
    if option.value == "list":
        return f'_sandkit_list "{words}"'
    return f'COMPREPLY=($(compgen -W "{words}" -- "$cur"))'


def _bash_positional(positional: Option | None) -> str:
    if positional is None or positional.value == "any":
        return "COMPREPLY=()"
    if positional.value in ("choice", "list"):
        return _bash_choices(positional)
    return f'COMPREPLY=($(compgen -{"d" if positional.value == "dir" else "f"} -- "$cur"))'


def _bash(top: Command, subs: list[Command]) -> str:
    top_words = [f for o in top.options for f in o.flags] + [c.name for c in subs]
    cases = []
    for command in subs:
        flags = " ".join(f for o in command.options for f in o.flags)
        values = _bash_values(command.options)
        value_case = ['            case "$prev" in', *values, "            esac"] if values else []
        cases += [
            f"        {command.name})",
            *value_case,
            '            if [[ "$cur" == -* ]]; then',
            f'                COMPREPLY=($(compgen -W "{flags}" -- "$cur"))',
            "            else",
            f"                {_bash_positional(command.positional)}",
            "            fi",
            "            ;;",
        ]
    body = "\n".join(cases)
    return f"""# bash completion for sandkit; generated by `sandkit completion bash`.
# Load it with: source <(sandkit completion bash)
_sandkit_list() {{
    local last="${{cur##*,}}" head=""
    [[ "$cur" == *,* ]] && head="${{cur%,*}},"
    COMPREPLY=($(compgen -P "$head" -W "$1" -- "$last"))
    compopt -o nospace 2>/dev/null
}}
_sandkit() {{
    local cur="${{COMP_WORDS[COMP_CWORD]}}"
    local prev="${{COMP_WORDS[COMP_CWORD-1]}}"
    local command="" i
    for ((i = 1; i < COMP_CWORD; i++)); do
        case "${{COMP_WORDS[i]}}" in
            -*) ;;
            *) command="${{COMP_WORDS[i]}}"; break ;;
        esac
    done
    case "$command" in
        "")
            COMPREPLY=($(compgen -W "{" ".join(top_words)}" -- "$cur"))
            ;;
{body}
    esac
}}
complete -o filenames -F _sandkit sandkit
"""


# ----- zsh ----------------------------------------------------------------------------------
def _zsh_value(option: Option, name: str) -> str:
    if option.value == "choice":
        return f":{name}:({' '.join(option.choices)})"
    if option.value == "list":
        return f":{name}:_sequence compadd - {' '.join(option.choices)}"
    if option.value == "file":
        return f":{name}:_files"
    if option.value == "dir":
        return f":{name}:_files -/"
    return f":{name}: "


def _zsh_specs(command: Command) -> list[str]:
    specs = []
    for option in command.options:
        value = _zsh_value(option, option.flags[-1].lstrip("-")) if option.value else ""
        for flag in option.flags:
            specs.append(f"'{flag}[{_plain(option.help)}]{value}'")
    positional = command.positional
    if positional is not None:
        specs.append(f"'*{_zsh_value(positional, 'argument')}'")
    return specs


def _zsh(top: Command, subs: list[Command]) -> str:
    described = "\n".join(f"        '{c.name}:{_plain(c.help)}'" for c in subs)
    top_specs = " \\\n        ".join(_zsh_specs(Command("sandkit", "", top.options, None)))
    cases = []
    for command in subs:
        specs = " \\\n                ".join(_zsh_specs(command))
        cases.append(f"            {command.name})\n                _arguments {specs}\n                ;;")
    body = "\n".join(cases)
    return f"""#compdef sandkit
# zsh completion for sandkit; generated by `sandkit completion zsh`.
# Save it as _sandkit in a folder on $fpath, or load it with: source <(sandkit completion zsh)
_sandkit() {{
    local curcontext="$curcontext" state line
    typeset -A opt_args
    _arguments -C \\
        {top_specs} \\
        '1: :->command' \\
        '*:: :->argument'
    case $state in
        command)
            local -a commands
            commands=(
{described}
            )
            _describe -t commands 'sandkit command' commands
            ;;
        argument)
            case $line[1] in
{body}
            esac
            ;;
    esac
}}
if [[ "$funcstack[1]" == "_sandkit" ]]; then
    _sandkit "$@"
else
    compdef _sandkit sandkit
fi
"""


# ----- fish ---------------------------------------------------------------------------------
def _fish_option(condition: str, option: Option) -> str:
    parts = ["complete -c sandkit", f"-n '{condition}'"]
    for flag in option.flags:
        parts.append(f"-l {flag[2:]}" if flag.startswith("--") else f"-s {flag[1:]}")
    if option.value == "list":  # fish's own helper completes the item after the last comma
        parts.append(f"""-x -a "(__fish_complete_list , 'string split \\" \\" \\"{" ".join(option.choices)}\\"')\"""")
    elif option.value == "choice":
        parts.append(f"-x -a '{' '.join(option.choices)}'")
    elif option.value in ("file", "dir"):
        parts.append("-r -F")
    elif option.value == "any":
        parts.append("-x")
    parts.append(f"-d '{_plain(option.help)}'")
    return " ".join(parts)


def _fish(top: Command, subs: list[Command]) -> str:
    names = " ".join(c.name for c in subs)
    lines = [
        "# fish completion for sandkit; generated by `sandkit completion fish`.",
        "# Save it as ~/.config/fish/completions/sandkit.fish, or load it with: sandkit completion fish | source",
        "complete -c sandkit -f",
    ]
    first = f"not __fish_seen_subcommand_from {names}"
    lines += [_fish_option(first, o) for o in top.options]
    lines += [f"complete -c sandkit -n '{first}' -a {c.name} -d '{_plain(c.help)}'" for c in subs]
    for command in subs:
        condition = f"__fish_seen_subcommand_from {command.name}"
        lines += [_fish_option(condition, o) for o in command.options]
        positional = command.positional
        if positional is not None and positional.value in ("choice", "list"):
            lines.append(f"complete -c sandkit -n '{condition}' -x -a '{' '.join(positional.choices)}'")
        elif positional is not None and positional.value in ("file", "dir"):
            lines.append(f"complete -c sandkit -n '{condition}' -F")
    return "\n".join(lines) + "\n"
