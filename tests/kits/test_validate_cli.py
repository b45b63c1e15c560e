"""``sandkit validate --output-format json`` and ``sandkit validate -`` through the real command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sandkit.cli import main
from tests.conftest import REPO

GOOD = "apiVersion: sandkit/v1\nname: good\nagent: {command: ['true']}\n"
BAD = "apiVersion: sandkit/v1\nname: Bad Name\nagent: {command: ['true']}\nnetwrok: {}\n"


def _validate(args: list[str], stdin: bytes, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "sandkit", "validate", *args], input=stdin, capture_output=True, cwd=cwd, check=False
    )


def test_json_lists_every_kit_with_its_problems(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "good.yaml").write_text(GOOD)
    (tmp_path / "bad.yaml").write_text(BAD)
    assert main(["validate", "--output-format", "json", str(tmp_path)]) == 1
    document = json.loads(capsys.readouterr().out)
    assert document["version"] == 1
    assert document["summary"] == {"kits": 2, "valid": 1, "invalid": 1}
    bad, good = document["kits"]
    assert good == {
        "path": f"{tmp_path.as_posix()}/good.yaml",
        "valid": True,
        "kind": "Kit",
        "name": "good",
        "problems": [],
    }
    assert bad["valid"] is False
    messages = {(p["line"], p["column"], p["message"].split(":")[0]) for p in bad["problems"]}
    assert (4, 1, "unknown key `netwrok`") in messages
    assert any(p["line"] == 2 and "name" in p["message"] for p in bad["problems"])
    assert main(["validate", "--format", "json", str(tmp_path / "good.yaml")]) == 0
    assert json.loads(capsys.readouterr().out)["summary"] == {"kits": 1, "valid": 1, "invalid": 0}


def test_a_kit_from_standard_input(tmp_path: Path) -> None:
    (tmp_path / "mixins").mkdir()
    (tmp_path / "mixins" / "base.yaml").write_text("apiVersion: sandkit/v1\nkind: Mixin\nenv: {A: '1'}\n")
    kit = GOOD + "extends: [../mixins/base.yaml]\n"
    done = _validate(["-", "--stdin-filename", "kits/k.yaml", "--root", "."], kit.encode(), tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == b"kits/k.yaml: ok (Kit good)\nsandkit validate: 1 kit, valid\n"
    confined = _validate(["-", "--stdin-filename", "kits/k.yaml"], kit.encode(), tmp_path)
    assert confined.returncode == 1 and b"leads outside the kit's repository" in confined.stderr
    unnamed = _validate(["-", "--format", "json"], BAD.encode(), tmp_path)
    assert unnamed.returncode == 1
    problems = json.loads(unnamed.stdout)["kits"][0]["problems"]
    assert {p["path"] for p in problems} == {"<stdin>"}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"apiVersion: sandkit/v1\nname: \xff\n", b"<stdin>:2:7: error: file is not valid UTF-8"),
        (b"a" * (1024 * 1024 + 10), b"a kit may be at most"),
        (b"- just\n- a list\n", b"a kit must be a YAML mapping"),
    ],
    ids=["not-utf8", "too-large", "a-list"],
)
def test_bad_standard_input_is_a_located_error(tmp_path: Path, data: bytes, message: bytes) -> None:
    done = _validate(["-"], data, tmp_path)
    assert done.returncode == 1
    assert message in done.stderr and b"Traceback" not in done.stderr


def test_standard_input_goes_alone(tmp_path: Path) -> None:
    assert _validate(["-", "x.yaml"], b"", tmp_path).returncode == 2
    (tmp_path / "k.yaml").write_text(GOOD)
    assert _validate(["k.yaml", "--stdin-filename", "k.yaml"], b"", tmp_path).returncode == 2


def test_validate_json_and_stdin_stay_light() -> None:
    code = (
        "import sys; from sandkit.cli import main\ntry: main(sys.argv[1:])\n"
        "finally: print('\\n'.join(sys.modules), file=sys.stderr)"
    )
    for argv in (["validate", "--format", "json", "tests/golden/init/plain.yaml"], ["validate", "-"]):
        done = subprocess.run(
            [sys.executable, "-c", code, *argv],
            input=GOOD,
            capture_output=True,
            text=True,
            cwd=REPO,
            check=False,
            env={**os.environ},
        )
        modules = set(done.stderr.split())
        assert "jinja2" not in modules
        assert not any(m.startswith(("sandkit.compiler", "sandkit.lint.engine", "sandkit.lint.rules")) for m in modules)


ROUNDS = """\
apiVersion: sandkit/v1
name: rounds
agent: {command: [agent]}
image: {user: root}
network: {alow: [x.example.com]}
env: {FOO: bar}
secrets: [{name: FOO}]
workspace: {mode: clone, repo: "https://github.com/a/b.git", token: NOPE}
resources: {cpus: 0}
"""


def test_one_round_names_meaning_and_structural_problems(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A new user fixes a kit in one round: structural problems (a root user, a misspelt key, no
    CPU) come with the kit-wide ones (a name both in env and secrets, a token that is no secret),
    all of them, and a closing count. The clone's host check is left out: `network.alow` leaves
    `network.allow` empty, so it may be only the misspelling's doing."""
    (tmp_path / "rounds.yaml").write_text(ROUNDS)
    (tmp_path / "good.yaml").write_text(GOOD)
    assert main(["validate", str(tmp_path)]) == 1
    out, err = capsys.readouterr()
    shown = err.replace(f"{tmp_path.as_posix()}/", "")
    assert shown.splitlines() == [
        "rounds.yaml:1:1: error: kit: FOO is both an env value and a secret",
        "rounds.yaml:4:15: error: image.user: the agent never runs as root; choose a non-root user such as 'agent'",
        "rounds.yaml:5:11: error: unknown key `network.alow` (did you mean `allow`?)",
        "rounds.yaml:8:69: error: workspace.token: NOPE is not one of `secrets` (a run-time one, not `build: true`)",
        "rounds.yaml:9:19: error: resources.cpus: give a number above 0.0; found 0",
        "sandkit validate: 2 kits, 1 invalid: 5 problems (above)",
    ]
    assert out == f"{tmp_path.as_posix()}/good.yaml: ok (Kit good)\n"
    fixed = ROUNDS.replace("user: root", "user: agent").replace("alow", "allow").replace("cpus: 0", "cpus: 1")
    (tmp_path / "rounds.yaml").write_text(fixed.replace("FOO: bar", "BAR: bar").replace("NOPE", "FOO"))
    assert main(["validate", str(tmp_path / "rounds.yaml")]) == 1  # what was held back: the clone's host
    assert capsys.readouterr().err.splitlines()[1:] == ["sandkit validate: 1 kit, 1 invalid: 1 problem (above)"]
