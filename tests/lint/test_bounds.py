"""Planted files cannot stall the scan: every walk is bounded, a bound met is a finding (SK005),
and the rest of the file and of the scan is still checked."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sandkit.lint import source
from sandkit.lint.syntax.tree import TreeBudget
from tests.conftest import cpu_seconds
from tests.lint.helpers import lint_files, write_tree
from tests.lint.test_tree import alias_bomb


def lint_json(root: Path, *args: str, timeout: float) -> tuple[list[dict[str, object]], float]:
    """``sandkit lint`` in a child process (so a hang fails the test instead of stalling it), and the CPU
    seconds it spent (a bound that holds whatever else the machine runs)."""
    started = cpu_seconds()
    done = subprocess.run(
        [sys.executable, "-m", "sandkit", "lint", "--format", "json", "--fail-on", "critical", *args, "."],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)["findings"], cpu_seconds() - started


def test_alias_bomb_with_a_trigger_word_in_a_comment_does_not_hang_the_agent_autorun_rules(tmp_path: Path) -> None:
    """The reproduction from issue 20 / 13: 1.3 KB, and the word that wakes AA008 in a comment."""
    workflow = (
        "# run: agent --yolo\non: push\n"
        + alias_bomb()
        + "jobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
        + "      - run: claude -p task --dangerously-skip-permissions\n"
        + "        with: *a11\n"
    )
    assert len(workflow) < 1400
    write_tree(tmp_path, {".github/workflows/bomb.yml": workflow})
    findings, seconds = lint_json(tmp_path, "--select", "AA", timeout=60)
    assert [(f["rule"], f["line"]) for f in findings] == [("AA008", 19)]
    assert seconds < 30


def test_aliases_that_copy_a_big_step_list_into_every_job_are_cut_and_reported(tmp_path: Path) -> None:
    """Rules loop over jobs and steps directly; the copies aliases make are what bounds them."""
    lines = ["on: push", "steps: &steps"]
    lines += [f"  - run: docker run --rm -v ./data{i}:/data img" for i in range(300)]
    lines += ["jobs:"] + [f"  j{j}: {{runs-on: x, steps: *steps}}" for j in range(4000)]
    lines += ["  last:", "    runs-on: x", "    container: {image: x, options: --privileged}", "    steps: []"]
    write_tree(tmp_path, {".github/workflows/copies.yml": "\n".join(lines) + "\n"})
    findings, seconds = lint_json(tmp_path, timeout=120)  # before the bound: minutes
    bounds = [f for f in findings if f["rule"] == "SK005"]
    assert [(f["line"], f["column"]) for f in bounds] == [(2, 8)]  # the anchor the references copy
    assert "aliases add more than 100000 values" in str(bounds[0]["message"])
    assert any(f["rule"] == "PV001" and f["line"] == 4306 for f in findings)  # the rest is still checked
    assert seconds < 30


def test_data_nested_past_the_depth_bound_is_reported_and_the_rest_checked() -> None:
    deep = "[" * 150 + "]" * 150
    manifest = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n"
        f"  labels: {{x: '1'}}\nextra: {deep}\n"
        "spec:\n  containers:\n    - name: c\n      image: x\n      securityContext: {privileged: true}\n"
    )
    findings = lint_files({"pod.yaml": manifest})
    bound = [f for f in findings if f.rule == "SK005"]
    assert [(f.line, f.column) for f in bound] == [(6, 8 + 100)]  # the first list past 100 levels
    assert "nested more than 100 levels deep" in bound[0].message
    assert bound[0].severity == "medium" and bound[0].category == "parse-error"
    assert any(f.rule == "PV001" for f in findings)


def test_when_the_values_bound_is_spent_the_file_says_so_and_the_scan_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(source, "TreeBudget", lambda: TreeBudget(values=40))
    services = "".join(f"  s{i}:\n    image: x\n    environment: {{A: '1', DB_PASSWORD: $P}}\n" for i in range(20))
    compose = "services:\n  first:\n    image: x\n    privileged: true\n" + services
    findings = lint_files({"compose.yaml": compose, "other/compose.yaml": compose})
    bound = [(f.path, f.rule) for f in findings if f.rule == "SK005"]
    assert bound == [("compose.yaml", "SK005"), ("other/compose.yaml", "SK005")]  # each file its own budget
    assert {f.path for f in findings if f.rule == "PV001"} == {"compose.yaml", "other/compose.yaml"}


def test_aliases_that_make_data_loop_back_on_itself_neither_hang_nor_crash_a_rule() -> None:
    """YAML lets an anchor refer to itself, which makes the parsed data cyclic."""
    findings = lint_files(
        {
            ".continue/config.yaml": "mcp: &a {servers: *a, command: npx, args: [x]}\n"
            "mcpServers: &b [{name: s, command: npx, args: [*b]}]\n",
            ".github/workflows/w.yml": "on: push\nx: &a {run: claude --yolo, env: *a, steps: [*a]}\n"
            "jobs:\n  j: &j {runs-on: x, steps: [*a, {run: echo}], env: *a, container: *j, services: {s: *j}}\n",
            "compose.yaml": "services: &s\n  a: {image: x, volumes: *s, environment: *s}\n  b: *s\n",
            "k8s.yaml": "apiVersion: v1\nkind: Pod\nmetadata: &m {name: p, annotations: *m}\n"
            "spec: &p {containers: [{name: c, image: x, env: *p}], template: *p, volumes: [*p]}\n",
        }
    )  # lint_files fails on any rule's internal error (before: RecursionError in AM001)
    assert {(f.path, f.rule) for f in findings} >= {
        (".continue/config.yaml", "AM001"),
        (".github/workflows/w.yml", "AA008"),
    }


def test_a_file_nested_past_the_parsers_own_limits_is_a_parse_error_or_a_bound_not_a_crash() -> None:
    """A 10 KB planted .codex/config.toml of nested arrays crashed the whole scan (RecursionError)."""
    deep = "[" * 5000 + "]" * 5000
    findings = lint_files(
        {
            ".codex/config.toml": f"a = {deep}\n",
            ".mcp.json": deep,
            ".continue/config.yaml": f"a: {deep}\nb: {{command: npx}}\n",  # a word that makes rules read it
            "compose.yaml": "services:\n  a:\n    image: x\n    privileged: true\n",
        }
    )
    assert {(f.path, f.rule) for f in findings if f.rule in ("SK001", "SK005")} == {
        (".codex/config.toml", "SK001"),
        (".mcp.json", "SK001"),
        (".continue/config.yaml", "SK005"),  # YAML: the inside past 100 levels is left out, the rest read
    }
    assert any(f.path == "compose.yaml" and f.rule == "PV001" for f in findings)  # the scan went on


def test_a_yaml_line_nested_past_the_parsers_stack_is_cut_and_the_rest_checked(tmp_path: Path) -> None:
    """400 KB of ``- - - ...`` overflowed libyaml's composer: the process died (SIGSEGV), every
    finding of the scan lost."""
    compose = "services:\n  a:\n    privileged: true\n    x:\n      " + "- " * 200_000 + "a\n    ipc: host\n"
    write_tree(tmp_path, {"compose.yaml": compose, "other/compose.yaml": "services:\n  b:\n    pid: host\n"})
    findings, seconds = lint_json(tmp_path, timeout=120)
    assert [(f["line"], f["column"]) for f in findings if f["rule"] == "SK005"] == [(5, 1001)]
    bound = next(f for f in findings if f["rule"] == "SK005")
    assert "past column 1000" in str(bound["message"])
    assert {(f["path"], f["rule"], f["line"]) for f in findings if f["rule"] != "SK005"} >= {
        ("compose.yaml", "PV001", 3),
        ("compose.yaml", "PV002", 6),  # after the cut line
        ("other/compose.yaml", "PV002", 3),
    }
    assert seconds < 30


def test_flow_collections_nested_past_the_depth_bound_are_not_parsed(tmp_path: Path) -> None:
    """libyaml's scanner pays per token for every open flow level: 200,000 ``[`` (400 KB) ran for
    more than five minutes; the inside past 100 levels is blanked before it is parsed."""
    deep = "[" * 200_000 + "]" * 200_000
    compose = f"services:\n  a:\n    x: {deep}\n    y: '[[[['\n    privileged: true\n"
    write_tree(tmp_path, {"compose.yaml": compose})
    findings, seconds = lint_json(tmp_path, timeout=120)
    assert [(f["rule"], f["line"], f["column"]) for f in findings] == [("SK005", 3, 8 + 100), ("PV001", 5, 17)]
    assert seconds < 30


def test_bound_nesting_keeps_lines_and_columns_and_cannot_be_fooled_by_quotes() -> None:
    from sandkit.lint.syntax.yaml import bound_nesting

    nested = "[" * 120 + "x" + "]" * 120
    bounded, hits = bound_nesting(f"a: {nested}\nb: {{c: [d]}}\n")
    assert hits == [("depth", 3 + 100)]
    assert bounded == "a: " + "[" * 101 + " " * 39 + "]" * 101 + "\nb: {c: [d]}\n"  # the rest is read
    # Brackets count inside quotes too: a quote the scan misread could otherwise hide depth from it.
    # Open brackets in a string that never close blank the rest of the file (lines kept), never less.
    text = "a: '" + "[" * 150 + "'\nb: [x,\n  " + "[" * 10 + "y" + "]" * 10 + "]\n"
    bounded, hits = bound_nesting(text)
    assert hits == [("depth", 4 + 100)]
    assert bounded == "a: '" + "[" * 101 + "".join(" " if c != "\n" else c for c in text[105:])
    assert bound_nesting("a: [b, {c: d}]\n") == ("a: [b, {c: d}]\n", [])
    for text, index in ((" " * 1000 + "- a\nb: 1\n", 1000), ("b: 1\n" + "- " * 600 + "a\n", 5 + 1000)):
        bounded, hits = bound_nesting(text)  # on the first line and on a later one
        assert hits == [("column", index)] and bounded.endswith("\n") and "a" not in bounded.split("\n")[-2]


def test_a_planted_exec_form_or_token_nested_past_json_s_limits_is_no_crash() -> None:
    """``RUN [[[[...`` and a JWT whose payload is nested arrays made json raise RecursionError:
    the rules reading them crashed and the agent flag on the next line went unreported."""
    import base64

    def b64(data: str) -> str:
        return base64.urlsafe_b64encode(data.encode()).decode().rstrip("=")

    token = b64('{"alg":"HS256"}') + "." + b64('{"a":' + "[" * 2900 + "]" * 2900 + "}") + "." + "k" * 40
    findings = lint_files(  # lint_files fails on any rule's internal error
        {
            "Dockerfile": "FROM alpine\nRUN " + "[" * 5000 + "]" * 5000 + " docker.sock\n"
            "RUN claude --dangerously-skip-permissions\n",
            ".env": f"TOKEN={token}\n",
        }
    )
    assert ("Dockerfile", "AA008", 3) in {(f.path, f.rule, f.line) for f in findings}


def test_a_file_that_takes_too_long_is_sk005_and_the_scan_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    from sandkit.syntax import tree

    monkeypatch.setattr(tree, "MAX_SECONDS", 0.0)
    findings = lint_files(
        {"compose.yaml": "services:\n  a:\n    privileged: true\n", "pod.yaml": "apiVersion: v1\nkind: Pod\n"}
    )
    bounds = [f for f in findings if f.rule == "SK005"]
    assert {f.path for f in bounds} == {"compose.yaml", "pod.yaml"}
    assert all("took more than 0 seconds" in f.message for f in bounds)
    assert not [f for f in findings if f.rule == "PV001"]  # its rules were not run


def test_the_clock_is_read_during_long_walks(monkeypatch: pytest.MonkeyPatch) -> None:
    from sandkit.lint.syntax import tree

    budget = tree.TreeBudget(seconds=0.0)
    data = tree.PSeq(tree.Pos())
    data.extend(tree.PMap(tree.Pos(2, 1)) for _ in range(10_000))
    visited = sum(1 for _ in tree.walk(data, budget))
    assert visited < tree._CLOCK_EVERY + 1 and "time" in budget.hits


def test_a_command_hidden_in_deep_substitutions_is_named_and_shallow_ones_are_found() -> None:
    findings = lint_files(
        {
            "run.sh": "#!/bin/sh\n" + "echo $(" * 50 + "docker run --privileged x" + ")" * 50 + "\n",
            "ok.sh": '#!/bin/sh\nif [ -n "$X" ]; then\n  echo "$(docker run -v /var/run/docker.sock:/s x)"\nfi\n',
        }
    )
    assert [(f.path, f.rule, f.line, f.column) for f in findings] == [
        ("ok.sh", "RS001", 3, 25),
        ("run.sh", "SK005", 2, 64),
    ]
    assert "substitutions nested more than 8 deep" in findings[1].message


_SECRET = "Zq9vLm2Xp4Rt"
_LONG = "9" * 5000  # Python converts at most 4,300 decimal digits to an int


@pytest.mark.parametrize(
    ("name", "text", "rule"),
    [
        ("data.json", f'{{"n": {_LONG}, "password": "{_SECRET}"}}', "PS002"),
        ("values.yaml", f"n: {_LONG}\npassword: {_SECRET}\n", "PS002"),
        ("main.tf", f'resource "docker_container" "a" {{\n  memory = {_LONG}\n  privileged = true\n}}\n', "PV001"),
    ],
    ids=["json", "yaml", "hcl"],
)
def test_an_integer_longer_than_python_converts_does_not_hide_the_rest(name: str, text: str, rule: str) -> None:
    """A planted longer number made the rules fail on the file (internal errors) and left what
    else it holds unreported."""
    assert [f.rule for f in lint_files({name: text})] == [rule]


def test_a_toml_integer_longer_than_python_converts_is_a_located_parse_error() -> None:
    """tomllib has no hook for integers, so such a file cannot be read: it says so, where."""
    findings = lint_files({"pyproject.toml": f'a = 1\nn = {_LONG}\npassword = "{_SECRET}"\n'})
    assert [(f.rule, f.line, f.column) for f in findings] == [("SK001", 2, 5)]


def test_a_secret_name_spelled_with_escapes_is_still_read() -> None:
    """The key-name pre-check reads the raw text; "\\u0070assword" is "password" once parsed."""
    findings = lint_files({"data.json": f'{{"\\u0070assword": "{_SECRET}"}}'})
    assert [f.rule for f in findings] == ["PS002"]
