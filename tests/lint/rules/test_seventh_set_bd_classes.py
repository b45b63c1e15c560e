"""Issue 33, classes from the seventh held-out set's readers (docs/lint.md, "The seventh set's
classes, fixed afterwards"): each class from fixtures written here, with the look-alikes that stay
as they were.

1. A job that calls a reusable workflow of the same repository, where neither the caller nor the
   called workflow sets permissions: reported in the caller (CP001).
2. A PodSecurityPolicy's ``allowedCapabilities`` and ``defaultAddCapabilities``: it admits pods
   with those capabilities (PV003, one level below a pod's, as PV001 and PV002 on a policy).
"""

from __future__ import annotations

import pytest

from tests.lint.helpers import lint_files, lint_text

# ---- 1. a caller of a reusable workflow that sets no permissions -------------------------------------

STEPS = "    runs-on: ubuntu-latest\n    steps:\n      - run: make\n"
GATE = "on: workflow_call\njobs:\n  lint:\n" + STEPS + "  test:\n" + STEPS
CALLER = "on: pull_request\njobs:\n  gate:\n    uses: ./.github/workflows/gate.yml\n"


def _cp001(files: dict[str, str | bytes], name: str = "caller.yml") -> list[tuple[int, str, str]]:
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
