"""Issue 33, classes from the seventh held-out set's readers (docs/lint.md, "The seventh set's
classes, fixed afterwards"): each class from fixtures written here, with the look-alikes that stay
as they were.

1. A job that calls a reusable workflow of the same repository, where neither the caller nor the
   called workflow sets permissions: reported in the caller (CP001).
2. A PodSecurityPolicy's ``allowedCapabilities`` and ``defaultAddCapabilities``: it admits pods
   with those capabilities (PV003, one level below a pod's, as PV001 and PV002 on a policy).
3. A chart file a template renders with ``tpl`` (``tpl (.Files.Get "conf/x.json") .``, a
   ``.Files.Glob`` the template renders with ``tpl``): a Helm template input, read with its
   directives masked, not reported as a broken file (SK001).
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from tests.lint.helpers import lint_files, lint_text

# ---- 1. a caller of a reusable workflow that sets no permissions -------------------------------------

STEPS = "    runs-on: ubuntu-latest\n    steps:\n      - run: make\n"
GATE = "on: workflow_call\njobs:\n  lint:\n" + STEPS + "  test:\n" + STEPS
CALLER = "on: pull_request\njobs:\n  gate:\n    uses: ./.github/workflows/gate.yml\n"


def _cp001(files: Mapping[str, str | bytes], name: str = "caller.yml") -> list[tuple[int, str, str]]:
    tree = {f".github/workflows/{path}": text for path, text in files.items()}
    return [
        (f.line, f.severity, f.message) for f in lint_files(tree, ("CP001",)) if f.path.endswith(f"workflows/{name}")
    ]


@pytest.mark.parametrize(
    ("caller", "called", "names"),
    [
        (CALLER, GATE, "lint, test"),
        # the caller has jobs of its own too (reported on jobs:, as before): the call is its own finding
        (CALLER + "  deploy:\n" + STEPS, GATE, "lint, test"),
        # a called workflow setting permissions on one job of two
        (CALLER, GATE.replace("  test:\n", "  test:\n    permissions: {contents: read}\n"), "lint"),
        # an @ref tail, quotes, and a called file named .yaml
        (CALLER.replace("gate.yml", "gate.yaml@main"), GATE, "lint, test"),
        (CALLER.replace("./.github/workflows/gate.yml", "'./.github/workflows/gate.yml'"), GATE, "lint, test"),
        # on push, with a flow-style job
        ("on: push\njobs:\n  gate: {uses: ./.github/workflows/gate.yml, secrets: inherit}\n", GATE, "lint, test"),
    ],
)
def test_cp001_a_caller_of_a_reusable_without_permissions(caller: str, called: str, names: str) -> None:
    target = "gate.yaml" if "gate.yaml" in caller else "gate.yml"
    found = [f for f in _cp001({"caller.yml": caller, target: called}) if "calls" in f[2]]
    assert len(found) == 1
    line, severity, message = found[0]
    assert line == caller.splitlines().index(next(x for x in caller.splitlines() if "gate.y" in x)) + 1
    assert severity == "low"
    assert f"./.github/workflows/{target}" in message and f"job(s) {names}:" in message


def test_cp001_follows_a_reusable_through_the_one_it_calls() -> None:
    middle = "on: workflow_call\njobs:\n  inner:\n    uses: ./.github/workflows/gate.yml\n"
    found = _cp001({"caller.yml": CALLER.replace("gate.yml", "middle.yml"), "middle.yml": middle, "gate.yml": GATE})
    assert [(line, "job(s) lint, test" in message) for line, _, message in found] == [(4, True)]
    # the middle one, run only by workflow_call, is left to its caller
    assert _cp001({"middle.yml": middle, "gate.yml": GATE}, "middle.yml") == []


def test_cp001_a_loop_of_reusables_does_not_hang() -> None:
    loop = "on: workflow_call\njobs:\n  again:\n    uses: ./.github/workflows/gate.yml\n"
    assert _cp001({"caller.yml": CALLER, "gate.yml": loop}) == []


@pytest.mark.parametrize(
    ("caller", "files"),
    [
        # the called workflow sets permissions at its top, or on every job
        (CALLER, {"gate.yml": GATE.replace("jobs:", "permissions: {contents: read}\njobs:")}),
        (CALLER, {"gate.yml": GATE.replace("jobs:", "permissions: {}\njobs:")}),
        (CALLER, {"gate.yml": GATE.replace(STEPS, "    permissions: read-all\n" + STEPS)}),
        # the caller sets them, at its top or on the calling job
        (CALLER.replace("jobs:", "permissions: {contents: read}\njobs:"), {"gate.yml": GATE}),
        (CALLER + "    permissions: {contents: read}\n", {"gate.yml": GATE}),
        # another repository's reusable, or one that cannot be read
        (CALLER.replace("./.github/workflows/gate.yml", "org/repo/.github/workflows/gate.yml@v1"), {"gate.yml": GATE}),
        (CALLER, {}),
        (CALLER, {"gate.yml": "on: [\n"}),
        (CALLER, {"gate.yml": b"\xff\x00jobs: {}"}),
        (CALLER, {"gate.yml": "[" * 5000}),
        (CALLER, {"gate.yml/x": "x"}),
        (CALLER.replace("./.github/workflows/gate.yml", "./../gate.yml"), {"gate.yml": GATE}),
        # a called file that is not a workflow
        (CALLER, {"gate.yml": "just: text\n"}),
    ],
)
def test_cp001_a_caller_that_stays_quiet(caller: str, files: dict[str, str | bytes]) -> None:
    assert [f for f in _cp001({"caller.yml": caller, **files}) if "calls" in f[2]] == []


def test_cp001_a_caller_run_only_by_workflow_call_is_left_to_its_caller() -> None:
    caller = CALLER.replace("on: pull_request", "on: workflow_call")
    assert _cp001({"caller.yml": caller, "gate.yml": GATE}) == []


# ---- 2. a PodSecurityPolicy's capabilities -----------------------------------------------------------


def _psp(spec: str, api: str = "policy/v1beta1") -> str:
    return f"apiVersion: {api}\nkind: PodSecurityPolicy\nmetadata:\n  name: p\nspec:\n{spec}"


def _pv003(text: str) -> list[tuple[int, str, str]]:
    return [(f.line, f.severity, f.message) for f in lint_text("k8s/psp.yaml", text, ("PV003",))]


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("  allowedCapabilities:\n    # CSI\n    - SYS_ADMIN\n", [(8, "medium", "lets pods add capability SYS_ADMIN")]),
        ("  allowedCapabilities: [SYS_ADMIN, CHOWN]\n", [(6, "medium", "lets pods add capability SYS_ADMIN")]),
        ("  allowedCapabilities: ['*']\n", [(6, "medium", "lets pods add any capability (*)")]),
        ("  allowedCapabilities: [CAP_SYS_MODULE]\n", [(6, "medium", "lets pods add capability SYS_MODULE")]),
        ("  allowedCapabilities: [ALL]\n", [(6, "medium", "lets pods add capability ALL")]),
        (
            "  defaultAddCapabilities:\n  - SYS_ADMIN\n",
            [(7, "medium", "adds capability SYS_ADMIN to every pod it admits")],
        ),
        # reach as in a pod, one level lower: NET_ADMIN low, SYS_PTRACE info, unless the policy
        # also admits the host's network or PID namespace
        ("  allowedCapabilities: [NET_ADMIN]\n", [(6, "low", "lets pods add capability NET_ADMIN")]),
        (
            "  hostNetwork: true\n  allowedCapabilities: [NET_ADMIN]\n",
            [(7, "medium", "lets pods add capability NET_ADMIN")],
        ),
        ("  allowedCapabilities: [SYS_PTRACE]\n", [(6, "info", "lets pods add capability SYS_PTRACE")]),
        (
            "  hostPID: true\n  allowedCapabilities: [SYS_PTRACE]\n",
            [(7, "medium", "lets pods add capability SYS_PTRACE")],
        ),
    ],
)
def test_pv003_a_policy_that_admits_capabilities(spec: str, expected: list[tuple[int, str, str]]) -> None:
    found = _pv003(_psp(spec))
    assert [(line, severity) for line, severity, _ in found] == [(line, sev) for line, sev, _ in expected]
    for (_, _, message), (_, _, words) in zip(found, expected, strict=True):
        assert message.startswith(f"PodSecurityPolicy/p {words} (")


@pytest.mark.parametrize(
    "spec",
    [
        "  allowedCapabilities: [CHOWN, NET_BIND_SERVICE]\n",  # harmless ones
        "  allowedCapabilities: []\n",
        "  allowedCapabilities: SYS_ADMIN\n",  # not a list: the API server rejects it
        "  requiredDropCapabilities: [SYS_ADMIN, ALL]\n",  # dropped, not added
        "  defaultAddCapabilities: [{name: SYS_ADMIN}]\n",
    ],
)
def test_pv003_a_policy_that_admits_nothing_dangerous(spec: str) -> None:
    assert _pv003(_psp(spec)) == []


def test_pv003_the_same_lists_outside_a_policy_stay_as_they_were() -> None:
    # a Deployment's own field named allowedCapabilities is not a policy's; its container's add stays
    text = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  template:\n    spec:\n"
        "      allowedCapabilities: [SYS_ADMIN]\n      containers:\n      - name: c\n        image: x\n"
        "        securityContext:\n          capabilities:\n            add: [SYS_ADMIN]\n"
    )
    without = text.replace("      allowedCapabilities: [SYS_ADMIN]\n", "      hostname: d\n")
    assert [line for line, _, _ in _pv003(text)] == [14]
    assert _pv003(text) == _pv003(without)


# ---- 3. chart files a template renders with tpl --------------------------------------------------------

CHART = "apiVersion: v2\nname: c\nversion: 1.0.0\n"
SECRET = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n"
# "auth" makes a rule read the file: a JSON data file is parsed (and SK001 due) only then
BROKEN_JSON = '{\n  "hostname": "{{ template "c.signer" . }}",\n  "auth": {"type": "token"}\n}\n'
UNQUOTED_JSON = '{\n  "port": {{ .Values.port }},\n  "hosts": {{ toJson .Values.hosts }},\n  "auth": {}\n}\n'


def _sk001(files: Mapping[str, str | bytes], name: str) -> list[tuple[int, str, str]]:
    # every rule selected: a data file is parsed only when some rule reads it
    return [(f.line, f.severity, f.message) for f in lint_files(files) if f.rule == "SK001" and f.path.endswith(name)]


@pytest.mark.parametrize(
    ("template", "target"),
    [
        ('  server.json: {{ tpl (.Files.Get "conf/server.json") . | b64enc }}\n', "conf/server.json"),
        (
            '  server.json: {{ .Files.Get "conf/server.json" | tpl . | b64enc }}\n'.replace("| tpl .", "| tpl"),
            "conf/server.json",
        ),
        ('  server.json: {{ tpl ($.Files.Get "./conf/server.json") $ | b64enc }}\n', "conf/server.json"),
        (
            '{{- $cfg := .Files.Get "conf/server.json" }}\n  server.json: {{ tpl $cfg . | b64enc }}\n',
            "conf/server.json",
        ),
        (
            '{{- range $path, $_ := .Files.Glob "files/*.json" }}\n'
            "  {{ base $path }}: {{ tpl ($.Files.Get $path) $ | b64enc }}\n{{- end }}\n",
            "files/server.json",
        ),
        ('{{ tpl ((.Files.Glob "files/**.json").AsSecrets) . | indent 2 }}\n', "files/deep/server.json"),
        ('{{ tpl ((.Files.Glob "files/{server,client}.json").AsSecrets) . | indent 2 }}\n', "files/server.json"),
    ],
)
@pytest.mark.parametrize("text", [BROKEN_JSON, UNQUOTED_JSON])
def test_sk001_a_chart_file_rendered_with_tpl_is_read_as_a_template(template: str, target: str, text: str) -> None:
    files = {"chart/Chart.yaml": CHART, "chart/templates/secret.yaml": SECRET + template, f"chart/{target}": text}
    assert _sk001(files, target) == []
    # the same file, read by no template, or outside a chart, stays a broken file
    alone = {"chart/Chart.yaml": CHART, f"chart/{target}": text}
    assert [severity for _, severity, _ in _sk001(alone, target)] == ["medium"]
    no_chart = {"chart/templates/secret.yaml": SECRET + template, f"chart/{target}": text}
    assert [severity for _, severity, _ in _sk001(no_chart, target)] == ["medium"]


@pytest.mark.parametrize(
    ("template", "target"),
    [
        # read, but not rendered with tpl: Helm hands the text on as it is
        ('  server.json: {{ .Files.Get "conf/server.json" | b64enc }}\n', "conf/server.json"),
        ('  other.json: {{ tpl (.Files.Get "conf/other.json") . | b64enc }}\n', "conf/server.json"),
        # a glob's * stays in one folder
        ('{{ tpl ((.Files.Glob "files/*.json").AsSecrets) . | indent 2 }}\n', "files/deep/server.json"),
        # globs that are no pattern: nothing matched, nothing raised
        ('{{ tpl ((.Files.Glob "conf/[").AsSecrets) . }}\n', "conf/server.json"),
        ('{{ tpl ((.Files.Glob "conf/{a,b").AsSecrets) . }}\n', "conf/server.json"),
        # tpl of another variable than the one the file was read into
        (
            '{{- $cfg := .Files.Get "conf/server.json" }}{{- $x := "y" }}\n  a: {{ tpl $x . }}\n  b: {{ $cfg }}\n',
            "conf/server.json",
        ),
    ],
)
def test_sk001_a_chart_file_not_rendered_with_tpl_stays(template: str, target: str) -> None:
    files = {
        "chart/Chart.yaml": CHART,
        "chart/templates/secret.yaml": SECRET + template,
        f"chart/{target}": BROKEN_JSON,
    }
    assert [(line, severity) for line, severity, _ in _sk001(files, target)] == [(2, "medium")]


def test_sk001_a_tpl_input_broken_without_directives_stays() -> None:
    template = '  server.json: {{ tpl (.Files.Get "conf/server.json") . | b64enc }}\n'
    files = {
        "chart/Chart.yaml": CHART,
        "chart/templates/secret.yaml": SECRET + template,
        "chart/conf/server.json": '{"a": 1,, "auth": {}}\n',
    }
    assert [severity for _, severity, _ in _sk001(files, "conf/server.json")] == ["medium"]


def test_sk001_a_toml_tpl_input_is_info_naming_the_template() -> None:
    template = '  config.toml: {{ tpl (.Files.Get "files/config.toml") . | b64enc }}\n'
    files = {
        "chart/Chart.yaml": CHART,
        "chart/templates/secret.yaml": SECRET + template,
        "chart/files/config.toml": 'name = "x"\nport = {{ .Values.port }}\n[auth]\ntoken = "x"\n',
    }
    found = _sk001(files, "files/config.toml")
    assert [(line, severity) for line, severity, _ in found] == [(2, "info")]
    assert "rendered with tpl by templates/secret.yaml" in found[0][2] and "not TOML" in found[0][2]


def test_sk001_a_tpl_input_is_still_read_by_the_rules() -> None:
    # masked, not skipped: a token written in it stays a finding, and SK001 does not
    template = '  server.json: {{ tpl (.Files.Get "conf/server.json") . | b64enc }}\n'
    text = '{\n  "host": "{{ template "c.db" . }}",\n  "token": "ghp_R7vK2mQ9xL4pW8nT3yB6cJ1dF5hG0sZ2aE4u"\n}\n'
    files = {
        "chart/Chart.yaml": CHART,
        "chart/templates/secret.yaml": SECRET + template,
        "chart/conf/server.json": text,
    }
    found = [(f.rule, f.line) for f in lint_files(files) if f.path.endswith("conf/server.json")]
    assert found == [("PS001", 3)]
