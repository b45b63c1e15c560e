"""Issue 33, the eighth set's CI findings that readers called right with the severity or the message
wrong (docs/lint.md, "Credential files, brace groups and the repository's own reusables (ninth
round)"). Each class from fixtures written here, with the look-alikes that stay findings.

1. CS004: a secret written into a tool's credential file (``~/.npmrc``, ``~/.gitconfig`` by
   ``git config url....insteadOf``, ``~/.netrc``, a key file for a later ``--key``) is low, medium
   when a later step runs a third-party action not pinned to a commit or the file is in the
   workspace and a later step uploads or caches; the log, $GITHUB_OUTPUT and any other file stay high.
2. CS004: output inside a brace group or subshell goes where the group's redirection sends it
   (``{ echo "X=$S"; } >> "$GITHUB_ENV"``), not to the log.
3. CS002: ``secrets: inherit`` to this repository's own workflow named in full is low.
4. PS002: a CI job that starts containers and runs tests in them is a test's, whatever its name,
   when the image it pushes is not built with the values.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lint.helpers import lint_text, lint_tree, workflow_findings, write_tree

_found = workflow_findings


def _steps(*steps: str, env: str = "") -> str:
    """A push workflow whose one job runs ``steps`` (each a step's lines, indented six spaces)."""
    return (
        "on: push\npermissions: {contents: read}\njobs:\n  a:\n    runs-on: ubuntu-latest\n"
        f"{env}    steps:\n      - uses: actions/checkout@v4\n" + "".join(steps)
    )


def _run(*lines: str, env: str = "") -> str:
    body = "".join(f"          {line}\n" for line in lines)
    step = "      - run: |\n" + body
    if env:
        step += f"        env:\n          {env}\n"
    return step


SHA = "0123456789abcdef0123456789abcdef01234567"


# ---- 1. credential files ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "file"),
    [
        (
            'git config --global url."https://x:${{ secrets.T }}@github.com/".insteadOf "https://github.com/"',
            "~/.gitconfig",
        ),
        ('echo "//npm.pkg.github.com/:_authToken=${{ secrets.NPM }}" >> ~/.npmrc', "~/.npmrc"),
        ('echo "//npm.pkg.github.com/:_authToken=${{ secrets.NPM }}" > "$HOME/.npmrc"', "$HOME/.npmrc"),
        ('echo "${{ secrets.COSIGN_KEY }}" > /tmp/cosign.key', "/tmp/cosign.key"),
        ("printf 'machine github.com login x password %s\\n' \"${{ secrets.T }}\" >> ~/.netrc", "~/.netrc"),
        ('echo "{\\"auths\\":{\\"x\\":{\\"auth\\":\\"${{ secrets.D }}\\"}}}" > ~/.docker/config.json', "config.json"),
        ('echo "${{ secrets.KEY }}" | base64 -d > "$RUNNER_TEMP/signing.p12"', "signing.p12"),
        ('npm config set //registry.example.com/:_authToken "${{ secrets.NPM }}"', "npm's configuration file"),
        ('git config url."https://x:${{ secrets.T }}@github.com/".insteadOf https://github.com/', ".git/config"),
        ('echo "//registry.example.com/:_authToken=${{ secrets.NPM }}" >> .npmrc', ".npmrc"),
    ],
)
def test_a_credential_file_a_later_tool_reads_is_low(line: str, file: str) -> None:
    found = _found(_steps(_run(line), "      - run: make release\n"), "CS004")
    assert [s for _, s, _ in found] == ["low"], found
    assert file in found[0][2] and "every later step of the job can read it" in found[0][2]


@pytest.mark.parametrize(
    ("line", "later", "says"),
    [
        # a third-party action not pinned to a commit runs after it
        ('echo "_authToken=${{ secrets.NPM }}" >> ~/.npmrc', "      - uses: changesets/action@v1\n", "changesets"),
        ('echo "${{ secrets.COSIGN_KEY }}" > /tmp/cosign.key', "      - uses: goreleaser/goreleaser-action@v3\n", "v3"),
        (
            'git config --global url."https://${{ secrets.T }}@github.com/".insteadOf "https://github.com/"',
            "      - uses: golangci/golangci-lint-action@main\n",
            "not pinned",
        ),
        # a file in the workspace, and a later step uploads or caches
        ('echo "_authToken=${{ secrets.NPM }}" >> .npmrc', "      - uses: actions/upload-artifact@v4\n", "upload"),
        ('echo "${{ secrets.KEY }}" > certs/app.pem', "      - uses: actions/cache/save@v4\n", "cache"),
    ],
)
def test_a_credential_file_an_unpinned_action_or_an_upload_may_reach_is_medium(
    line: str, later: str, says: str
) -> None:
    found = _found(_steps(_run(line), later), "CS004")
    assert [s for _, s, _ in found] == ["medium"], found
    assert says in found[0][2]


@pytest.mark.parametrize(
    "later",
    [
        f"      - uses: changesets/action@{SHA}\n",  # pinned to a commit
        "      - uses: actions/setup-node@v4\n",  # GitHub's own
        "      - uses: ./.github/actions/publish\n",  # this repository's
        "      - uses: actions/upload-artifact@v4\n",  # uploads, but the file is in the home folder
    ],
)
def test_what_does_not_raise_a_home_credential_file(later: str) -> None:
    found = _found(_steps(_run('echo "_authToken=${{ secrets.NPM }}" >> ~/.npmrc'), later), "CS004")
    assert [s for _, s, _ in found] == ["low"], found


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ('echo "${{ secrets.T }}"', "prints secrets.T to the log"),
        ('echo "token=${{ secrets.T }}" >> "$GITHUB_OUTPUT"', "$GITHUB_OUTPUT"),
        ('echo "t=${{ secrets.T }}" >> $GITHUB_STEP_SUMMARY', "$GITHUB_STEP_SUMMARY"),
        ('echo "T=${{ secrets.T }}" >> "$GITHUB_ENV"', "$GITHUB_ENV"),
        ('echo "${{ secrets.T }}" > token.txt', "to a file"),
        ('echo "API_KEY=${{ secrets.T }}" >> .env', "to a file"),
        ('echo "${{ secrets.T }}" > ~/.npmrc.d/$NAME', "to a file"),  # a name only the run knows
    ],
)
def test_the_log_and_other_files_stay_high(line: str, says: str) -> None:
    found = _found(_steps(_run(line), "      - uses: changesets/action@v1\n"), "CS004")
    assert [s for _, s, _ in found] == ["high"], found
    assert says in found[0][2]


def test_a_minted_token_in_a_credential_file_is_graded_alike() -> None:
    found = _found(_steps(_run("TOKEN=$(gh auth token)", 'echo "_authToken=$TOKEN" >> ~/.npmrc')), "CS004")
    assert [s for _, s, _ in found] == ["low"], found
    assert "gh auth token" in found[0][2]


# ---- 2. brace groups and subshells --------------------------------------------------------------


@pytest.mark.parametrize(
    ("lines", "says"),
    [
        (
            ("{", '  echo "ENVIRONMENT_ID<<EOF"', '  echo "${TOKEN}"', '  echo "EOF"', '} >> "$GITHUB_ENV"'),
            "$GITHUB_ENV",
        ),
        (('{ echo "A=$TOKEN"; echo "B=1"; } >> "$GITHUB_OUTPUT"',), "$GITHUB_OUTPUT"),
        (('( echo "A=$TOKEN"; echo "B=1" ) > out.txt',), "to a file"),
        (("if true; then", "  {", '    echo "$TOKEN"', "  } > token.txt", "fi"), "to a file"),
        (("{", "  {", '    echo "$TOKEN"', "  }", '} >> "$GITHUB_ENV"'), "$GITHUB_ENV"),  # the outer one redirects
        (('{ echo "$TOKEN"; } | tee token.txt',), "to a file"),
        (("{", '  echo "$TOKEN"', "}"), "prints TOKEN to the log"),  # no redirection: the log
        (('{ echo "$TOKEN"; } > token.txt; echo "$TOKEN"',), "to a file"),  # the first is reported
    ],
)
def test_a_groups_redirection_is_where_its_output_goes(lines: tuple[str, ...], says: str) -> None:
    found = _found(_steps(_run(*lines, env="TOKEN: ${{ secrets.TOKEN }}")), "CS004")
    assert len(found) == 1 and says in found[0][2], found
    assert found[0][1] == "high"


@pytest.mark.parametrize(
    "lines",
    [
        ('{ echo "$TOKEN"; } > /dev/null',),
        ("{", '  printf "%s" "$TOKEN"', "} | docker login -u x --password-stdin"),
        ('( echo "$TOKEN" ) | gh auth login --with-token',),
        ('VALUE="$(echo "$TOKEN" | sha256sum)"', 'echo "${VALUE%% *}" > digest.txt'),
    ],
)
def test_a_group_given_to_a_command_or_nowhere_is_not_a_finding(lines: tuple[str, ...]) -> None:
    assert _found(_steps(_run(*lines, env="TOKEN: ${{ secrets.TOKEN }}")), "CS004") == []


def test_an_identifier_written_by_a_group_says_where() -> None:
    lines = ("{", '  echo "ENVIRONMENT_ID=${DEV_ENVIRONMENT_ID}"', '} >> "$GITHUB_ENV"')
    found = _found(_steps(_run(*lines, env="DEV_ENVIRONMENT_ID: ${{ secrets.DEV_ENVIRONMENT_ID }}")), "CS004")
    assert [(s, "$GITHUB_ENV" in m) for _, s, m in found] == [("info", True)], found


# ---- 3. secrets: inherit to this repository's own workflow ---------------------------------------

CALLS = (
    "on: workflow_call\njobs:\n"
    "  own:\n    uses: Acme/tools/.github/workflows/release.yml@v1.28.12\n    secrets: inherit\n"
    "  other:\n    uses: someone/tools/.github/workflows/release.yml@v1.28.12\n    secrets: inherit\n"
    "  branch:\n    uses: acme/tools/.github/workflows/release.yml@main\n    secrets: inherit\n"
    "  local:\n    uses: ./.github/workflows/release.yml\n    secrets: inherit\n"
)
RELEASE = "on: workflow_call\njobs:\n  r:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make\n"


def _cs002(tmp_path: Path, origin: str | None) -> list[tuple[int, str, str]]:
    files = {".github/workflows/umbrella.yml": CALLS, ".github/workflows/release.yml": RELEASE}
    if origin is not None:
        files[".git/config"] = f'[core]\n\tbare = false\n[remote "origin"]\n\turl = {origin}\n'
    write_tree(tmp_path, files)
    found = lint_tree(tmp_path, ("CS002",))
    return [(f.line, f.severity, f.message) for f in found if f.path.endswith("umbrella.yml")]


@pytest.mark.parametrize("origin", ["https://github.com/acme/tools.git", "git@github.com:Acme/tools.git"])
def test_inherit_to_this_repositorys_own_workflow_is_low(tmp_path: Path, origin: str) -> None:
    found = _cs002(tmp_path, origin)
    assert [(line, s) for line, s, _ in found] == [(5, "low"), (8, "medium"), (11, "low")], found
    assert "a workflow of this repository at v1.28.12" in found[0][2]
    assert "least-privilege" in found[0][2]
    assert "this repository" not in found[1][2]


def test_inherit_without_an_origin_stays_medium_and_says_so(tmp_path: Path) -> None:
    found = _cs002(tmp_path, None)
    assert [(line, s) for line, s, _ in found] == [(5, "medium"), (8, "medium"), (11, "medium")], found
    assert all("or this one's" in m for _, _, m in found)


def test_inherit_with_another_origin_stays_medium(tmp_path: Path) -> None:
    found = _cs002(tmp_path, "https://github.com/acme/other.git")
    assert [(line, s) for line, s, _ in found] == [(5, "medium"), (8, "medium"), (11, "medium")], found
    assert not any("or this one's" in m for _, _, m in found)


# ---- 4. a CI job that starts containers and runs tests, then pushes ------------------------------

KEY = "base64:q3Vx8Lm2Pz7Rk9Wt4Yb6Nc1Hd5Jf0Gs2Ae8Uo3Ii7K="
PW = "Kx82mQpz4tLs"
VALUES = f"        env:\n          APP_KEY: {KEY}\n          DB_PASSWORD: {PW}\n"
BUILD = "      - run: docker compose build\n"
UP = "      - name: Start the stack\n        run: docker compose up -d php db\n" + VALUES
TESTS = "      - name: Run the test suites\n        run: docker compose exec -T php vendor/bin/phpunit\n" + VALUES
LOGIN = "      - uses: azure/docker-login@v1\n        with: {login-server: registry.example.com}\n"
PUSH = "      - run: docker compose push php nginx\n"


def _ps002(*steps: str, job: str = "build") -> list[tuple[int, str]]:
    text = (
        f"on: push\njobs:\n  {job}:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - uses: actions/checkout@v4\n" + "".join(steps)
    )
    # Not ci.yml: a workflow of that name whose strings read as prose is taken for a message catalogue.
    return [(f.line, f.severity) for f in lint_text(".github/workflows/build.yml", text) if f.rule == "PS002"]


@pytest.mark.parametrize(
    "steps",
    [
        (BUILD, UP, TESTS, LOGIN, PUSH),  # the eighth set's shape
        (BUILD, UP, "      - run: docker compose exec -T app pytest -q\n" + VALUES, PUSH),
        (BUILD, UP, "      - run: docker compose run --rm app go test ./...\n" + VALUES, PUSH),
        (
            BUILD,
            "      - run: docker run -d -p 5432:5432 postgres:16\n",
            "      - name: Integration suite\n        run: ./ci/run-suite.sh --db localhost:5432\n" + VALUES,
            PUSH,
        ),
    ],
)
def test_a_job_that_tests_against_its_containers_then_pushes_is_a_tests(steps: tuple[str, ...]) -> None:
    found = _ps002(*steps)
    assert found and all(s == "info" for _, s in found), found


@pytest.mark.parametrize(
    "steps",
    [
        (BUILD, UP, LOGIN, PUSH),  # containers, but no tests run in them
        (BUILD, "      - name: Run the test suites\n        run: make test\n" + VALUES, PUSH),  # no containers
        (UP, TESTS, PUSH),  # no image built before: up builds it with the step's values
        (BUILD, UP.replace("up -d", "up --build -d"), TESTS, PUSH),  # rebuilt with them
        (BUILD, UP, TESTS, '      - run: echo "APP_KEY=$APP_KEY" > .env\n' + VALUES, PUSH),  # written for the build
    ],
)
def test_values_that_may_reach_the_pushed_image_or_no_test_stay(steps: tuple[str, ...]) -> None:
    found = _ps002(*steps)
    assert "medium" in {s for _, s in found}, found


def test_a_deploy_job_that_tests_stays() -> None:
    found = _ps002(BUILD, UP, TESTS, "      - run: ssh deploy@app.example.com ./update.sh\n")
    assert found and all(s == "medium" for _, s in found), found


# ---- 1 (continued). the repository owner's own actions --------------------------------------------


@pytest.mark.parametrize(
    ("origin", "later", "severity"),
    [
        ("https://github.com/Acme/tools.git", "acme/tools/src/notify@v1", "low"),  # this repository's action
        ("https://github.com/acme/tools.git", "Acme/other-actions/lint@v2", "low"),  # its owner's
        (None, "acme/tools/src/notify@v1", "medium"),  # no origin: whose it is is not known
        ("https://github.com/acme/tools.git", "someone/notify@v1", "medium"),  # a third party's
    ],
)
def test_the_owners_own_actions_are_not_a_third_party(
    tmp_path: Path, origin: str | None, later: str, severity: str
) -> None:
    text = _steps(_run('echo "_authToken=${{ secrets.NPM }}" >> ~/.npmrc'), f"      - uses: {later}\n")
    files = {".github/workflows/release.yml": text}
    if origin is not None:
        files[".git/config"] = f'[remote "origin"]\n\turl = {origin}\n'
    write_tree(tmp_path, files)
    found = [f for f in lint_tree(tmp_path, ("CS004",))]
    assert [f.severity for f in found] == [severity], found
