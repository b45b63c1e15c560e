"""The tenth held-out set's misses in agent configuration (issue 33, after the tenth set):
approval-skipping flags kept in a shell array, Claude Code settings kept under another name that
declare the settings schema, instruction files that start another agent with approval off, and a
download piped into a shell inside a Markdown table cell."""

from __future__ import annotations

import json

import pytest

from sandkit.lint.syntax.shell import parse_commands
from tests.lint.helpers import lint_files, lint_text


def _aa008(name: str, text: str) -> list[tuple[int, str]]:
    return [(f.line, f.message.split(":", 1)[0]) for f in lint_text(name, text, ("AA008",))]


# ----- 1. AA008: a flag in a bash array -------------------------------------------------------


@pytest.mark.parametrize(
    ("script", "line", "said"),
    [
        # the array run as a whole inside a command substitution
        (
            'CLAUDE_CMD=(claude -p --dangerously-skip-permissions --model x)\nout=$("${CLAUDE_CMD[@]}" "go")\n',
            1,
            "claude --dangerously-skip-permissions",
        ),
        # flags appended to an array, then the agent run with it inside a substitution
        (
            'args=()\n[[ -n "$AUTO" ]] && args+=(--yolo)\nresult=$(gemini -p "$p" "${args[@]}")\n',
            2,
            "gemini --yolo",
        ),
        # the array handed to tmux as one string: read where it is written
        (
            'AGENT=(\n  claude\n  -p  # print mode\n  --dangerously-skip-permissions\n)\ntmux new -d "${AGENT[*]} x"\n',
            4,
            "claude --dangerously-skip-permissions",
        ),
        # run through eval, or never run in this file (another script sources it)
        ('CMD=(codex exec --dangerously-bypass-approvals-and-sandbox)\neval "${CMD[*]} task"\n', 1, "codex"),
        ("readonly GEM=(gemini --approval-mode yolo)\n", 1, "gemini --approval-mode"),
        # behind a launcher and a path
        ("CMD=(npx @openai/codex exec --yolo)\n", 1, "@openai/codex --yolo"),
        ("CMD=(/usr/local/bin/claude --dangerously-skip-permissions)\n", 1, "claude"),
        # a local array in a function, with the agent started in a pipeline's substitution
        (
            'f() {\n  local -a c=(claude --permission-mode bypassPermissions -p)\n  echo "$(echo x | "${c[@]}")"\n}\n',
            2,
            "claude --permission-mode",
        ),
    ],
)
def test_an_agent_array_with_a_skip_flag_is_reported(script: str, line: int, said: str) -> None:
    found = _aa008("run.sh", "#!/bin/bash\n" + script)
    assert [(n, m) for n, m in found if m.startswith(said)] and found[0][0] == line + 1, found


@pytest.mark.parametrize(
    "script",
    [
        # an agent array without a skip flag, run in a substitution
        'CMD=(claude -p --model x)\nout=$("${CMD[@]}" go)\n',
        # a list of agent names, looped over
        'AGENTS=(claude codex gemini)\nfor a in "${AGENTS[@]}"; do command -v "$a"; done\n',
        # flags in an array no agent is run with
        'FORBIDDEN=(--dangerously-skip-permissions --yolo)\nfor f in "${FORBIDDEN[@]}"; do grep -q -- "$f" x; done\n',
        'n=$(printf "%s\\n" "${FORBIDDEN[@]}" | wc -l)\n',
        # one word: the agent's name alone
        'BIN=(claude)\n"${BIN[@]}" --version\n',
        # a scalar of the same name read inside a substitution stays as it was
        'CMD=(claude --yolo)\nCMD="echo"\nout=$($CMD hi)\n',
    ],
)
def test_look_alike_arrays_stay_quiet(script: str) -> None:
    found = _aa008("run.sh", "#!/bin/bash\n" + script)
    if script.startswith("CMD=(claude --yolo)"):
        assert [line for line, _ in found] == [2], found  # the array itself, where it is written
    else:
        assert found == [], found


def test_a_substitution_sees_the_array_as_it_was_then() -> None:
    commands = parse_commands(
        'a=(--one)\nx=$(claude "${a[@]}")\na=(--two)\ny=$(claude "${a[@]}")\n',
        expand=True,
    )
    runs = [" ".join(c.argv()) for c in commands if c.argv() and c.argv()[0] == "claude"]
    assert runs == ["claude --one", "claude --two"], runs


def test_array_words_keep_the_place_they_were_written() -> None:
    commands = parse_commands('A=(--rm -v /x:/y)\nout=$(docker run "${A[@]}" img)\n', expand=True)
    run = next(c for c in commands if c.argv()[:2] == ["docker", "run"])
    assert [(w.text, w.pos.line) for w in run.words][2:5] == [("--rm", 1), ("-v", 1), ("/x:/y", 1)]


def test_an_agent_array_in_a_workflow_step() -> None:
    workflow = (
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: |\n"
        "          CMD=(claude -p --dangerously-skip-permissions)\n"
        '          out=$("${CMD[@]}" "review")\n'
    )
    found = [(f.rule, f.line) for f in lint_text(".github/workflows/a.yml", workflow, ("AA008",))]
    assert found == [("AA008", 7)], found


# ----- 2. Claude Code settings kept under another name ------------------------------------------

_SCHEMA = "https://json.schemastore.org/claude-code-settings.json"


def _settings(schema: str = _SCHEMA, **more: object) -> str:
    body: dict[str, object] = {"$schema": schema} if schema else {}
    body.update(
        {
            "permissions": {"allow": ["Bash(*)"]},
            "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "bash setup.sh"}]}]},
        }
    )
    body.update(more)
    return json.dumps(body, indent=2)


def _aa(files: dict[str, str | bytes]) -> list[tuple[str, str, str]]:
    return sorted((f.path, f.rule, f.severity) for f in lint_files(files) if f.rule.startswith("AA"))


@pytest.mark.parametrize(
    ("name", "copy"),
    [
        ("templates/settings.template.json", "cp templates/settings.template.json .claude/settings.json"),
        ("claude-settings.json", 'ln -sf "$PWD/claude-settings.json" "$HOME/.claude/settings.json"'),
        ("config/claude/settings.json.example", "cp config/claude/settings.json.example .claude/settings.local.json"),
        (
            "setup/settings.base.json",
            'envsubst < setup/settings.base.json \\\n  > "$CLAUDE_DIR/settings.json"',
        ),
    ],
)
def test_a_template_a_script_copies_is_as_strong_as_the_settings(name: str, copy: str) -> None:
    files: dict[str, str | bytes] = {name: _settings(), "scripts/setup.sh": f"#!/bin/sh\nset -e\n{copy}\n"}
    found = [f for f in lint_files(files) if f.path == name and f.rule in ("AA001", "AA004")]
    assert {f.rule for f in found} == {"AA001", "AA004"}, found
    assert all(f.severity == "high" and "scripts/setup.sh:3 copies" in f.message for f in found), found


@pytest.mark.parametrize(
    "name",
    ["settings.template.json", "docs/claude-settings.json", ".claude/settings.template.json"],
)
def test_a_template_nothing_copies_is_a_step_lower(name: str) -> None:
    files: dict[str, str | bytes] = {
        name: _settings(),
        # a script that names the template without putting it in place
        "scripts/check.sh": f"#!/bin/sh\njq . {name.rsplit('/', 1)[-1]} >/dev/null\n",
    }
    found = [f for f in lint_files(files) if f.path == name and f.rule in ("AA001", "AA004")]
    assert {f.rule for f in found} == {"AA001", "AA004"}, found
    assert all(f.severity == "medium" and "no script of the repository copies" in f.message for f in found), found


def test_the_schema_projects_write_on_code_claude_com_is_read_too() -> None:
    found = _aa(
        {"user/templates/vibe/settings.template.json": _settings("https://code.claude.com/schemas/settings.json")}
    )
    assert ("user/templates/vibe/settings.template.json", "AA001", "medium") in found, found


@pytest.mark.parametrize(
    ("name", "text"),
    [
        # no schema and an odd name: nothing says whose settings these are
        ("settings_json", _settings("")),
        ("settings.template.json", _settings("")),
        # the schema itself, or another schema
        (
            "schemas/claude-code-settings.json",
            json.dumps({"$schema": "http://json-schema.org/draft-07/schema#", "$id": _SCHEMA, "properties": {}}),
        ),
        ("app.settings.json", _settings("https://json.schemastore.org/appsettings.json")),
        # the schema named below the top, in a document about settings
        ("docs/example.json", json.dumps({"example": {"$schema": _SCHEMA, "permissions": {"allow": ["Bash"]}}})),
    ],
)
def test_files_that_do_not_declare_the_schema_stay_unread(name: str, text: str) -> None:
    found = [f for f in _aa({name: text}) if f[1] in ("AA001", "AA002", "AA004")]
    assert found == [], found


def test_another_agents_file_by_its_path_keeps_its_own_reading() -> None:
    """Gemini's settings with Claude's schema: Claude's hooks are not read there (the permission
    rules every agent's configuration may borrow are, as before)."""
    found = _aa({".gemini/settings.json": _settings()})
    assert [f for f in found if f[1] == "AA001"] == [], found
