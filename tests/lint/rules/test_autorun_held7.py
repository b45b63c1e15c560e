"""agent-autorun classes from the seventh held-out set's readers (issue 33): allow rules for
programs that run anything, spelled with `.exe` or as a package manager; settings `env` that makes
the Bash tool run a script; agent command lines that are test data; husky outside the top level."""

from __future__ import annotations

import json

import pytest

from sandkit.lint.model import Finding
from tests.lint.helpers import lint_files, lint_text


def _of(findings: list[Finding], rule: str) -> list[Finding]:
    return [f for f in findings if f.rule == rule]


def _allow(entry: str) -> list[Finding]:
    settings = json.dumps({"permissions": {"allow": ["Read", entry]}}, indent=2)
    return _of(lint_text(".claude/settings.local.json", settings), "AA004")


@pytest.mark.parametrize(
    "entry",
    [
        "Bash(powershell.exe:*)",
        "Bash(cmd.exe:*)",
        "Bash(pwsh.exe -Command:*)",
        "Bash(PowerShell.EXE -Command *)",
        "Bash(bash.exe:*)",
        "Bash(python3.11.exe *)",
        "Bash(cmd /c:*)",
        "Bash(npm:*)",
        "Bash(npm *)",
        "Bash(npm exec:*)",
        "Bash(pnpm:*)",
        "Bash(pnpm dlx *)",
        "Bash(yarn:*)",
        "Bash(yarn exec:*)",
        "Bash(uv:*)",
        "Bash(uv run:*)",
        "Bash(uv tool run *)",
        "Bash(poetry run:*)",
        "Bash(wsl:*)",
        "Bash(wsl.exe *)",
        "Bash(claude:*)",
        "Bash(source:*)",
        "Bash(docker:*)",
        "Bash(docker run:*)",
        "Bash(docker-compose:*)",
        "Bash(timeout 60 uv run:*)",
    ],
)
def test_programs_that_run_anything_allowed_with_any_argument(entry: str) -> None:
    hits = _allow(entry)
    assert len(hits) == 1
    assert hits[0].severity == "high"
    assert "runs any command (" in hits[0].message


@pytest.mark.parametrize("entry", ["Bash(docker exec:*)", "Bash(docker compose exec *)", "Bash(podman exec:*)"])
def test_running_anything_inside_a_container_is_medium(entry: str) -> None:
    hits = _allow(entry)
    assert [h.severity for h in hits] == ["medium"]


@pytest.mark.parametrize(
    "entry",
    [
        "Bash(npm test:*)",
        "Bash(npm run:*)",
        "Bash(npm run build)",
        "Bash(npm.exe test:*)",
        "Bash(pnpm run build:*)",
        "Bash(yarn run:*)",
        "Bash(uv pip:*)",
        "Bash(uv sync:*)",
        "Bash(poetry install:*)",
        "Bash(docker ps:*)",
        "Bash(docker build:*)",
        "Bash(docker logs *)",
        "Bash(claude --version)",
        "Bash(wslpath:*)",
        "Bash(npmx:*)",
        "Bash(sourcemap:*)",
        "Bash(powershell.exe -File build.ps1)",
        "Bash(cmd.exe /c dir)",
    ],
)
def test_narrow_prefixes_of_those_programs_stay_quiet(entry: str) -> None:
    assert _allow(entry) == []


# ---- AA008: an agent command line that is a test's input data --------------------------------

_FLAG = "--dangerously-skip-permissions"


@pytest.mark.parametrize(
    ("name", "source"),
    [
        (
            "scripts/test_hooks.py",
            f'def test_denies():\n    runaway = (\n        "cd x && y",\n        "claude {_FLAG} -p \'/go\'",\n    )\n'
            "    for cmd in runaway:\n        assert hook(json.dumps({'command': cmd})) == 'deny'\n",
        ),
        ("tests/test_guard.py", f'def test_x():\n    payload = json.dumps({{"command": "claude {_FLAG} -p hi"}})\n'),
        ("tests/test_guard.py", f'@pytest.mark.parametrize("cmd", ["claude {_FLAG}", "ls"])\ndef test_x(cmd): ...\n'),
        (
            "src/guard.test.ts",
            f"const inputs = ['claude {_FLAG} -p x', 'ls'];\nexpect(guard(inputs[0])).toBe(false);\n",
        ),
        (
            "guard/guard_test.go",
            f'func TestGuard(t *testing.T) {{\n\tcases := []string{{"claude {_FLAG}"}}\n\t_ = cases\n}}\n',
        ),
        ("tests/test_guard.py", f'def test_x():\n    assert not cmd.startswith(("claude {_FLAG}", "x"))\n'),
    ],
)
def test_agent_command_lines_that_are_test_data_are_not_findings(name: str, source: str) -> None:
    assert _of(lint_text(name, source), "AA008") == []


@pytest.mark.parametrize(
    ("name", "source"),
    [
        ("tests/test_cli.py", f'def test_x():\n    subprocess.run(["claude", "{_FLAG}", "-p", "hi"], check=True)\n'),
        ("tests/test_cli.py", f'def test_x():\n    subprocess.run(shlex.split("claude {_FLAG} -p hi"))\n'),
        ("src/cli.test.ts", f"spawn('claude', ['-p', prompt, '{_FLAG}']);\n"),
        ("src/cli.spec.js", f"execSync('claude {_FLAG} -p hi');\n"),
        ("cli/cli_test.go", f'func TestCli(t *testing.T) {{\n\tcmd := exec.Command("claude", "{_FLAG}")\n}}\n'),
        ("tests/test_cli.py", f'def test_x():\n    run_agent(["claude", "{_FLAG}"])\n'),
    ],
)
def test_tests_that_start_the_agent_stay_low(name: str, source: str) -> None:
    assert [h.severity for h in _of(lint_text(name, source), "AA008")] == ["low"]


def test_the_same_data_outside_a_test_is_still_read() -> None:
    source = f'COMMANDS = (\n    "claude {_FLAG} -p x",\n)\nsubprocess.run(COMMANDS[0], shell=True)\n'
    assert [h.severity for h in _of(lint_text("scripts/agent.py", source), "AA008")] == ["high"]


# ---- AA002: settings env that makes every Bash tool call run something first ------------------


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("BASH_ENV", "/home/me/repos/config/scripts/claude-bash-env.sh"),
        ("BASH_ENV", "./.claude/env.sh"),
        ("ZDOTDIR", ".claude/zsh"),
        ("CLAUDE_CODE_SHELL_PREFIX", ".claude/wrap.sh"),
        ("CLAUDE_CODE_SHELL", "./tools/agent-shell"),
        ("CLAUDE_CODE_SHELL", "C:\\tools\\wrapper.exe"),
    ],
)
def test_settings_env_that_runs_a_command_first(key: str, value: str) -> None:
    settings = json.dumps({"env": {"FOO": "1", key: value}}, indent=2)
    hits = _of(lint_text(".claude/settings.local.json", settings), "AA002")
    assert [(h.line, h.severity) for h in hits] == [(4, "high")]
    assert f"env.{key}" in hits[0].message


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("ENV", "./.claude/env.sh"),
        ("PROMPT_COMMAND", "source ./x.sh"),
        ("BASH_ENV", ""),
        ("BASH_ENV", "/dev/null"),
        ("CLAUDE_CODE_SHELL", "/opt/homebrew/bin/bash"),
        ("CLAUDE_CODE_SHELL", "C:\\Program Files\\PowerShell\\7\\pwsh.exe"),
        ("NODE_ENV", "production"),
    ],
)
def test_settings_env_that_runs_nothing(key: str, value: str) -> None:
    settings = json.dumps({"env": {key: value}})
    assert _of(lint_text(".claude/settings.json", settings), "AA002") == []


def test_env_bash_env_outside_claude_settings_is_not_read() -> None:
    text = json.dumps({"env": {"BASH_ENV": "./x.sh"}})
    assert _of(lint_text("config/app.json", text), "AA002") == []
    assert _of(lint_text(".claude/settings.json", json.dumps({"env": ["BASH_ENV=./x.sh"]})), "AA002") == []


# ---- AA011: husky where it installs nothing ----------------------------------------------------


def _package(prepare: str, husky: bool) -> str:
    manifest: dict[str, object] = {"name": "x", "scripts": {"prepare": prepare}}
    if husky:
        manifest["devDependencies"] = {"husky": "^9.0.0"}
    return json.dumps(manifest, indent=2)


def _aa011(files: dict[str, str]) -> list[tuple[str, str]]:
    return [(f.path, f.severity) for f in lint_files(files) if f.rule == "AA011"]


@pytest.mark.parametrize(
    "files",
    [
        {".github/workflows/extra/package.json": _package("husky install", husky=False), "README.md": "x\n"},
        {"frontend/package.json": _package("husky", husky=True), "frontend/.husky/pre-commit": "npx lint-staged\n"},
        {"packages/web/package.json": _package("husky install && tsc", husky=True)},
    ],
)
def test_husky_that_installs_no_hooks_is_info(files: dict[str, str]) -> None:
    assert [severity for _, severity in _aa011(files)] == ["info"]


@pytest.mark.parametrize(
    "files",
    [
        {"package.json": _package("husky", husky=True)},
        {"package.json": _package("husky install", husky=False)},
        {"package.json": _package("husky install", husky=False), ".husky/pre-commit": "npm test\n"},
        {"frontend/package.json": _package("cd .. && husky install frontend/.husky", husky=True)},
        {"tools/hooks/package.json": _package("lefthook install", husky=False)},
        {"apps/web/package.json": _package("husky", husky=True), "apps/web/.git": "gitdir: ../../.git/modules/web\n"},
    ],
)
def test_husky_that_installs_hooks_stays_low(files: dict[str, str]) -> None:
    assert [severity for _, severity in _aa011(files)] == ["low"]
