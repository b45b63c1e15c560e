"""The positioned parsers: YAML (libyaml), JSONC, TOML, Dockerfile, shell, Makefile."""

from __future__ import annotations

import pytest

from sandkit.lint.facts.run_scripts import structure
from sandkit.lint.syntax import yaml as yaml_syntax
from sandkit.lint.syntax.dockerfile import parse_dockerfile
from sandkit.lint.syntax.jsonc import load_jsonc
from sandkit.lint.syntax.makefile import justfile_recipes, makefile_recipes
from sandkit.lint.syntax.shell import open_quote, parse_commands, quoting
from sandkit.lint.syntax.toml import load_toml
from sandkit.lint.syntax.tree import Pos, SyntaxProblem

YAML_TEXT = (
    'on: push\nn: 010\nh: 0x1f\ns: !!str 12\nf: 1.5\nz: ~\nw: yes\nq: "1"\n'
    "base: &b {k: 1}\nm:\n  <<: *b\n  z: 2\nblock: |\n  one\n  two\n---\n- a\n"
)
EXPECTED = [
    {
        "on": "push",
        "n": 10,
        "h": 31,
        "s": "12",
        "f": 1.5,
        "z": None,
        "w": "yes",
        "q": "1",
        "base": {"k": 1},
        "m": {"k": 1, "z": 2},
        "block": "one\ntwo\n",
    },
    ["a"],
]


def test_yaml_values_are_typed_by_the_core_schema() -> None:
    documents = yaml_syntax.load_documents(YAML_TEXT)
    assert documents == EXPECTED
    first = documents[0]
    assert first.pos_of("h") == Pos(3, 4)
    assert first["m"].pos_of("z") == Pos(12, 6)
    assert first["block"].style == "|"


def test_yaml_errors_are_located() -> None:
    with pytest.raises(SyntaxProblem) as caught:
        yaml_syntax.load_documents("a: b\nc: d: e\n")
    assert caught.value.pos.line == 2
    with pytest.raises(SyntaxProblem) as caught:
        yaml_syntax.check_syntax("a: b\nc: d: e\n")
    assert caught.value.pos.line == 2
    with pytest.raises(SyntaxProblem):  # an undefined alias is only found by composing
        yaml_syntax.check_syntax("a: *nowhere\n")
    yaml_syntax.check_syntax("a: &x 1\nb: *x\n")


def test_jsonc_positions_comments_and_trailing_commas() -> None:
    data = load_jsonc('// c\n{"a": [1, 2,], /* x */ "b": {"c": "x\\ny"},}')
    assert data == {"a": [1, 2], "b": {"c": "x\ny"}}
    assert data.pos_of("b") == Pos(2, 29)
    assert data["b"]["c"].pos == Pos(2, 35)
    with pytest.raises(SyntaxProblem):
        load_jsonc('{"a": 1 "b": 2}')


def test_toml_keys_are_located() -> None:
    data = load_toml('[mcp_servers.docs]\ncommand = "npx"\nargs = ["x"]\n')
    assert data["mcp_servers"]["docs"].pos_of("args") == Pos(3, 1)
    with pytest.raises(SyntaxProblem) as caught:
        load_toml("a = \n")
    assert caught.value.pos.line == 1


def test_dockerfile_continuations_comments_and_heredocs() -> None:
    instructions = parse_dockerfile("FROM a AS b\nRUN one \\\n  # note\n  two\nRUN <<EOF\ndocker run x\nEOF\nfrom c\n")
    assert [(i.keyword, i.stage) for i in instructions] == [("FROM", 0), ("RUN", 0), ("RUN", 0), ("FROM", 1)]
    assert instructions[1].args == "one    two"
    assert instructions[1].pos_at(7) == Pos(4, 3)
    assert "docker run x" in instructions[2].args


def test_shell_words_quotes_continuations_and_operators() -> None:
    commands = parse_commands(
        "A=1 sudo docker run \\\n  -v \"$HOME/x:/y\" img > out && echo '# not a comment' # comment\n"
    )
    assert [c.argv() for c in commands] == [
        ["sudo", "docker", "run", "-v", "$HOME/x:/y", "img"],
        ["echo", "# not a comment"],
    ]
    assert commands[0].assignments[0].text == "A=1"
    assert commands[0].words[4].pos == Pos(2, 6)
    assert commands[0].program() == ("docker", 1)


def test_make_and_just_recipes() -> None:
    recipes = makefile_recipes("all:\n\t@docker run \\\n\t  -v $$HOME:/h x\nX = 1\n")
    assert [(r.text, r.pos) for r in recipes] == [("docker run \\\n  -v $HOME:/h x", Pos(2, 3))]
    assert justfile_recipes("a:\n    -echo hi\n")[0].text == "echo hi"


def test_shell_arrays_and_variables_expand_where_they_are_used() -> None:
    text = (
        "args=(--rm\n  -v \"$HOME/.ssh:/k\")\nargs+=(--privileged)\nOPTS='--network host'\n"
        'docker run "${args[@]}" $OPTS "${unknown[@]}" img\n'
    )
    (docker,) = parse_commands(text, expand=True)[1:]
    assert [(w.text, w.pos) for w in docker.words] == [
        ("docker", Pos(5, 1)),
        ("run", Pos(5, 8)),
        ("--rm", Pos(1, 7)),
        ("-v", Pos(2, 3)),
        ("$HOME/.ssh:/k", Pos(2, 6)),
        ("--privileged", Pos(3, 8)),
        ("--network", Pos(4, 7)),
        ("host", Pos(4, 17)),
        ("${unknown[@]}", Pos(5, 31)),
        ("img", Pos(5, 47)),
    ]
    # without expansion the array is still an assignment, never a command of its own
    assert [c.argv()[:1] for c in parse_commands(text)] == [[], ["docker"]]


def test_shell_variables_are_bounded() -> None:
    doubling = "a=(x)\n" + 'a=("${a[@]}" "${a[@]}")\n' * 40 + 'run "${a[@]}"\n'
    (run,) = [c for c in parse_commands(doubling, expand=True) if c.words]
    assert len(run.words) == 1 + 1000


HCL_TEXT = """# comment
job "web" {
  datacenters = ["dc1", "dc2",]
  group "g" {
    task "t" {
      driver = "docker"
      config {
        image = "nginx:${var.tag}"   // interpolation stays as written
        privileged = true
        count = 2
        labels = { owner = "ops", "dotted.key" = "x" }
        cmd = var.enabled ? "a" : "b"
        script = <<-EOT
          echo "hi"
          EOT
      }
    }
  }
}
/* a block
   comment */
"""


def test_hcl_blocks_attributes_and_positions() -> None:
    from sandkit.lint.syntax.hcl import blocks, load_hcl

    body = load_hcl(HCL_TEXT)
    ((job_labels, job, job_pos),) = blocks(body["job"], 1)
    assert job_labels == ("web",) and job_pos == Pos(2, 5)
    assert job["datacenters"] == ["dc1", "dc2"] and job["datacenters"].pos_of(1) == Pos(3, 25)
    ((_, task, _),) = blocks(blocks(job["group"], 1).__next__()[1]["task"], 1)
    ((_, config, config_pos),) = blocks(task["config"], 0)
    assert config_pos == Pos(7, 14)
    assert config["image"] == "nginx:${var.tag}" and config["image"].pos == Pos(8, 17)
    assert config["privileged"] is True and config.pos_of("privileged") == Pos(9, 22)
    assert config["count"] == 2
    assert dict(config["labels"]) == {"owner": "ops", "dotted.key": "x"}
    assert config["cmd"] == 'var.enabled ? "a" : "b"'
    assert config["script"] == 'echo "hi"\n'


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('job "x" {\n  a = 1\n', Pos(1, 1)),
        ('a = "open\n', Pos(1, 5)),
        ("a = <<EOT\nnever closed\n", Pos(1, 5)),
        ("a = [1, 2\n", Pos(1, 5)),
        ("}\n", Pos(1, 1)),
        ("a {" * 100 + "}" * 100, Pos(1, 1)),
    ],
)
def test_hcl_errors_are_located(text: str, where: Pos) -> None:
    from sandkit.lint.syntax.hcl import load_hcl

    with pytest.raises(SyntaxProblem) as error:
        load_hcl(text)
    assert error.value.pos.line == where.line


@pytest.mark.parametrize(
    ("value", "read"),
    [
        # HCL 2: a string inside ${ } is a template of its own, braces and quotes included.
        ('"${replace(var.x, "}", "")}"', '${replace(var.x, "}", "")}'),
        ('"${templatefile("x.tpl", { name = "a" })}"', '${templatefile("x.tpl", { name = "a" })}'),
        ('"${ {a = "}"}["a"] }"', '${ {a = "}"}["a"] }'),
        ('"${upper("${var.x}}")}"', '${upper("${var.x}}")}'),
        ('"%{ if var.x == "}" }on%{ else }off%{ endif }"', '%{ if var.x == "}" }on%{ else }off%{ endif }'),
        ('"${merge(\n  {a = 1},\n  {b = 2})}"', "${merge(\n  {a = 1},\n  {b = 2})}"),
        ('"${var.x # a comment }\n}"', "${var.x # a comment }\n}"),
        # HCL 1 (Terraform 0.11): the quotes inside ${ } were escaped.
        (r'"${replace(var.x, \"}\", \"b\")}"', r"${replace(var.x, \"}\", \"b\")}"),
        (r'"${templatefile("x.tpl", { name = \"a\" })}"', r'${templatefile("x.tpl", { name = \"a\" })}'),
        # A heredoc's sequences are kept as written.
        ('<<-EOT\n  ${f("}")}\n  %{ if x }y%{ endif }\n  EOT', '${f("}")}\n%{ if x }y%{ endif }\n'),
        # Literal parts are unescaped; $${ stays written as it is (it is not a sequence).
        (r'"${var.x} \"q\" $${y}"', '${var.x} "q" $${y}'),
    ],
)
def test_hcl_strings_inside_template_sequences(value: str, read: str) -> None:
    """Every value here is one Terraform 1.11 (HCL 2) or 0.11 (HCL 1) reads; the attribute after
    it must still be read, on its own line."""
    from sandkit.lint.syntax.hcl import load_hcl

    body = load_hcl(f"a = {value}\nb = true\n")
    assert body["a"] == read and body["b"] is True
    assert body.pos_of("b").line == 2 + value.count("\n")


def test_terraform_with_nested_template_strings_is_not_sk001() -> None:
    """The file is read to its end: no SK001, and PV001 still sees the attribute after the strings."""
    from tests.lint.helpers import lint_files

    text = (
        'resource "docker_container" "a" {\n'
        '  user_data = "${templatefile("x.tpl", { close = "}" })}"\n'
        '  legacy = "${replace(var.x, \\"}\\", \\"\\")}"\n'
        "  privileged = true\n}\n"
    )
    assert [(f.rule, f.line) for f in lint_files({"main.tf": text})] == [("PV001", 4)]


@pytest.mark.parametrize(
    "value",
    ['"${var.x"', '"${var.x)}"', r'"${f(\"a}"', '"${f("a)}"', '"${a}'],
)
def test_hcl_template_sequences_left_open_are_errors(value: str) -> None:
    from sandkit.lint.syntax.hcl import load_hcl

    with pytest.raises(SyntaxProblem) as error:
        load_hcl(f"x = 1\na = {value}\n")
    assert error.value.pos == Pos(2, 5)


def test_unit_and_properties_entries_keep_positions_across_continuations() -> None:
    from sandkit.lint.syntax.ini import parse_properties, parse_unit

    unit = parse_unit("# c\n[Service]\n; c\nExecStart=/usr/bin/docker run \\\n    -v /a:/b img\nEmpty=\n")
    exec_start, empty = unit
    assert (exec_start.section, exec_start.key) == ("Service", "ExecStart")
    assert exec_start.value == "/usr/bin/docker run      -v /a:/b img"
    assert exec_start.pos_at(exec_start.value.index("-v")) == Pos(5, 5)
    assert (empty.value, empty.pos) == ("", Pos(6, 7))
    props = parse_properties("! c\ndocker.host = tcp://h:2375\nlist: a, \\\n    b\nflag\n")
    assert [(e.key, e.value) for e in props] == [("docker.host", "tcp://h:2375"), ("list", "a, b"), ("flag", "")]
    assert props[0].pos == Pos(2, 15) and props[1].pos_at(3) == Pos(4, 5)


def test_jsonc_string_positions_see_through_escapes() -> None:
    value = load_jsonc('{"a": "x \\"q\\" \\u00e9 y"}')["a"]
    assert value == 'x "q" é y'
    assert value.pos_at(value.index("y")) == Pos(1, 23)
    assert value.pos_at(0) == Pos(1, 8)


def test_commands_inside_compound_commands_and_substitutions_are_read_where_written() -> None:
    """``if ...; then docker run ...; fi``, ``{ ...; }``, ``$(...)`` and backticks hid the
    command from every rule (it was read as the program ``then``, or as one word)."""
    text = (
        'if true; then docker run --privileged x; fi\n{ docker ps; }\necho "$(docker run -v /:/h x)" `docker info`\n'
        "while docker ps; do ! docker run y; done\n"
    )
    found = [(c.argv()[:2], c.pos) for c in parse_commands(text) if c.argv()[:1] == ["docker"]]
    assert found == [
        (["docker", "run"], Pos(1, 15)),
        (["docker", "ps"], Pos(2, 3)),
        (["docker", "ps"], Pos(4, 7)),
        (["docker", "run"], Pos(4, 23)),
        (["docker", "run"], Pos(3, 9)),
        (["docker", "info"], Pos(3, 33)),
    ]


def test_substitutions_nested_past_the_bound_are_named_not_read() -> None:
    from sandkit.lint.syntax.shell import MAX_SUBSTITUTION_DEPTH

    text = "echo $(" * 30 + "docker run x" + ")" * 30
    unread: list[Pos] = []
    commands = parse_commands(text, unread=unread)
    assert len(commands) == MAX_SUBSTITUTION_DEPTH + 1  # the outer echo and one per level read
    assert unread == [Pos(1, 7 * (MAX_SUBSTITUTION_DEPTH + 1) + 1)]


def test_toml_keys_of_a_later_array_table_entry_are_located_in_that_entry() -> None:
    text = '[[runners]]\nname = "a"\n[runners.docker]\nprivileged = false\n\n[[runners]]\nname = "b"\n[runners.docker]\nprivileged = true\n'
    data = load_toml(text)
    first, second = data["runners"]
    assert first["docker"].pos_of("privileged").line == 4
    assert second["docker"].pos_of("privileged").line == 9  # was 4: the first entry's line
    assert second.pos_of("name").line == 7 and second.pos_of("docker").line == 8
    nested = load_toml('[mcp_servers.docs]\ncommand = "npx"\n')
    assert nested.pos_of("mcp_servers").line == 1 and nested["mcp_servers"].pos_of("docs").line == 1


@pytest.mark.parametrize(
    "text",
    [
        '{"a": "\\ud83d\\ude00x", "\\ud83d\\ude00": 1}',  # a pair is one character, in values and keys
        '{"a": "\\ud83dx"}',  # a lone high surrogate stays one
        '{"a": "\\ude00\\ud83d"}',  # a low before a high is no pair
        '{"a": "\\ud83d\\u0041"}',  # a high before a letter is no pair
    ],
)
def test_jsonc_reads_unicode_escapes_as_the_json_module_does(text: str) -> None:
    import json

    assert load_jsonc(text) == json.loads(text)


@pytest.mark.parametrize(
    ("text", "roles", "still_open"),
    [
        ("a 'b\\' c", "ssdqqdss", ""),  # a backslash is text inside single quotes
        ('a "b\\"c', "ssdqeeq", '"'),  # and escapes inside double quotes
        ("x\\'y", "sees", ""),  # an escaped quote opens nothing
        ("\"it's\" '", "dqqqqdsd", "'"),  # one quote kind is text inside the other
    ],
)
def test_shell_quoting_is_read_once_for_every_line_rule(text: str, roles: str, still_open: str) -> None:
    """The roles of each character and the quote left open, which the line-level readers
    (the structure of a run script, the open quote before a secret) share."""
    assert "".join(item.role[0] for item in quoting(text)) == roles
    assert open_quote(text) == still_open
    assert structure(text) == "".join("x" if r in "qe" else c for c, r in zip(text, roles, strict=True))
