"""Evasions found by red-teaming the linter: files the real consumer runs privileged, on a host
namespace or with the runtime socket, that the linter read as harmless.

Each project here was run through ``docker compose config`` first (the docker-marked test below
does so again, with the oracle comparison of tests/lint/test_consumer_oracles.py); the fast tests
hold the linter's findings.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sandkit.lint.consumers.compose import read_dotenv
from tests.lint.helpers import lint_files, write_tree

_SERVICE = """\
services:
  a:
    image: busybox
    network_mode: ${NET}
    privileged: ${PRIV}
    volumes: ["${SOCK}:/s"]
"""

#: name -> (files, the rules the consumer's reading must raise)
EVASIONS: dict[str, tuple[dict[str, str], set[str]]] = {
    # a quoted .env value followed by a comment, and dotenv's YAML-like "NAME: value"
    "dotenv_quotes_and_comments": (
        {
            "compose.yaml": _SERVICE,
            ".env": "NET=\"host\" # the host network\nPRIV='true' # yes\nSOCK: /var/run/docker.sock\n",
        },
        {"PV001", "PV002", "RS001"},
    ),
    # a double-quoted value spanning lines and escapes; export with several blanks
    "dotenv_multiline_and_export": (
        {
            "compose.yaml": _SERVICE,
            ".env": 'X="a\nb"\nexport   NET=host\nPRIV="\\"ignored\\"" \nPRIV="t\\rue"\nPRIV=true\nSOCK="/var/run/\\docker.sock"\n',
        },
        {"PV001", "PV002"},
    ),
    # include's env_file: compose interpolates the included file with it
    "include_env_file": (
        {
            "compose.yaml": "include:\n  - path: sub/svc.yml\n    env_file: sub/vars.env\n    project_directory: sub\n"
            "services:\n  main: {image: busybox}\n",
            "sub/svc.yml": "services:\n  s:\n    image: busybox\n    network_mode: ${NET:-bridge}\n"
            "    privileged: ${PRIV:-false}\n    volumes: ['${SOCK:-/tmp}:/s']\n",
            "sub/vars.env": "NET=host\nPRIV=true\nSOCK=/var/run/docker.sock\n",
        },
        {"PV001", "PV002", "RS001"},
    ),
    # the including project's variables win over the included file's own .env
    "include_parent_env_wins": (
        {
            "compose.yaml": "include:\n  - sub/svc.yml\nservices:\n  main: {image: busybox}\n",
            "sub/svc.yml": "services:\n  s:\n    image: busybox\n    network_mode: ${NET:-bridge}\n",
            ".env": "NET=host\n",
            "sub/.env": "NET=bridge\n",
        },
        {"PV002"},
    ),
    # an extended file is interpolated with the project's .env, not the one beside it
    "extends_project_env": (
        {
            "compose.yaml": "services:\n  main:\n    extends: {file: a/b/two.yml, service: two}\n",
            "a/b/two.yml": "services:\n  two:\n    image: busybox\n    pid: ${P:-private}\n",
            ".env": "P=host\n",
            "a/b/.env": "P=private\n",
        },
        {"PV002"},
    ),
    # a variable set nowhere is blank to compose-go (it warns): ho${UNSET}st is host
    "unset_variable_is_blank": (
        {
            "compose.yaml": "services:\n  a:\n    image: busybox\n    network_mode: ho${NOWHERE}st\n"
            "    privileged: ${NOWHERE}true\n    cap_add: ['SYS_${NOWHERE}ADMIN']\n"
            "    volumes: ['/data${NOWHERE}:/s']\n",
        },
        {"PV001", "PV002", "PV003"},
    ),
    # a key spelled with YAML escapes holds no trigger word, and compose-go decodes it
    "escaped_key": (
        {
            "compose.yaml": 'services:\n  a:\n    image: busybox\n    "\\x70rivileged": true\n'
            '    "network_mode": "\\x68o\\\n      st"\n'
        },
        {"PV001", "PV002"},
    ),
}


@pytest.mark.parametrize(
    ("name", "text", "rules"),
    [
        (
            "pod.json",
            '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"\\u0068ostPID":true,'
            '"containers":[{"name":"c","image":"busybox","securityContext":{"\\u0070rivileged":true}}]}}',
            ["PV001", "PV002"],
        ),
        (
            "pod.yaml",
            'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  "\\x68ostNetwork": true\n  containers:\n'
            '  - name: c\n    image: busybox\n    securityContext: {"\\x70rivileged": true}\n',
            ["PV001", "PV002"],
        ),
        (".devcontainer/devcontainer.json", '{"image": "busybox", "runArgs": ["--\\u0070rivileged"]}', ["PV001"]),
        # the safe look-alike: escapes that spell nothing a rule looks for
        ("pod.json", '{"kind":"Pod","spec":{"containers":[{"name":"\\u0063","image":"busybox"}]}}', []),
    ],
)
def test_escaped_words_reach_the_rules(name: str, text: str, rules: list[str]) -> None:
    """JSON's \\u and YAML's \\x escapes decode to the word (the Go oracle of
    tests/lint/oracles reads hostPID and privileged from both manifests)."""
    assert sorted(f.rule for f in lint_files({name: text})) == rules


def test_extended_file_default_overridden_by_the_project_env() -> None:
    """The other way round: the project's .env turns the extended file's host default off."""
    files = {
        "compose.yaml": "services:\n  main:\n    extends: {file: a/two.yml, service: two}\n",
        "a/two.yml": "services:\n  two:\n    image: busybox\n    pid: ${P:-host}\n",
        ".env": "P=private\n",
    }
    assert not [f for f in lint_files(files) if f.path == "compose.yaml"]


@pytest.mark.parametrize("name", sorted(EVASIONS))
def test_evasion_is_reported(name: str) -> None:
    files, rules = EVASIONS[name]
    found = {f.rule for f in lint_files(files)}
    assert rules <= found, (name, found)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('V="host" # c\n', {"V": "host"}),
        ("V='host' # c\n", {"V": "host"}),
        ("V=host # c\nW=host#c\nX=a\t#t\n", {"V": "host", "W": "host#c", "X": "a\t#t"}),
        ("export   V=e\nW : f\n", {"V": "e", "W": "f"}),
        ('V="a\\"b"\nW="a\\nb"\nX="a\\\\b"\nY="a\\qb"\n', {"V": 'a"b', "W": "a\nb", "X": "a\\b", "Y": "a\\qb"}),
        ("V='a\\'b'\nW=a\\nb\n", {"V": "a'b", "W": "a\\nb"}),
        ('V="x\ny"\nW=${V3:-d}\n', {"V": "x\ny", "W": "d"}),
        ('V=host\nW=\'${V}\'\nX="${V}"\nY="$${V}"\n', {"V": "host", "W": "${V}", "X": "host", "Y": "${V}"}),
        ("V=1\nA B=2\nW=3\n", {"V": "1"}),  # compose-go refuses the rest of the file
    ],
)
def test_dotenv_as_compose_go_reads_it(text: str, expected: dict[str, str]) -> None:
    """Each case checked with ``docker compose config`` (values shown through labels)."""
    assert read_dotenv(text) == expected


@pytest.mark.docker
@pytest.mark.parametrize("name", sorted(EVASIONS))
def test_evasion_against_compose(name: str, tmp_path: Path) -> None:
    """The linter's facts of each project equal what ``docker compose config`` makes of it."""
    from tests.lint.test_consumer_oracles import _compare

    files, _ = EVASIONS[name]
    write_tree(tmp_path, files)
    compared, problems = _compare(tmp_path, tmp_path, next(n for n in files if n.endswith(".yaml")))
    assert compared and not problems, problems


_PERSISTENT_VOLUME = """\
apiVersion: v1
kind: PersistentVolume
metadata: {name: sock}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  hostPath: {path: PATH, type: Socket}
"""


def test_a_persistent_volume_on_the_socket_is_a_socket_mount() -> None:
    """A PersistentVolume's hostPath reaches every pod that claims it, though no pod spec names it."""
    findings = lint_files({"deploy/pv.yaml": _PERSISTENT_VOLUME.replace("PATH", "/var/run/docker.sock")})
    assert [(f.rule, f.line) for f in findings] == [("RS001", 7)], findings
    assert "PersistentVolume/sock" in findings[0].message
    # a data folder stays quiet
    assert not lint_files({"deploy/pv.yaml": _PERSISTENT_VOLUME.replace("PATH", "/srv/data")})


_POD = """\
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  securityContext:
    seLinuxOptions: {type: @POD@}
  containers:
  - name: c
    image: busybox
    securityContext:
      procMount: @PROC@
      @SELINUX@
"""


@pytest.mark.parametrize(
    ("values", "lines"),
    [
        ({"PROC": "Unmasked", "SELINUX": "runAsNonRoot: true", "POD": "container_t"}, [11]),
        ({"PROC": "Default", "SELINUX": 'seLinuxOptions: {level: "s0:c1", type: spc_t}', "POD": "container_t"}, [12]),
        ({"PROC": "Default", "SELINUX": "runAsNonRoot: true", "POD": "spc_t"}, [6]),
        ({"PROC": "Default", "SELINUX": "seLinuxOptions: {type: container_t}", "POD": "container_t"}, []),
    ],
)
def test_kubernetes_unmasked_proc_and_unconfined_selinux(values: dict[str, str], lines: list[int]) -> None:
    """Kubernetes' spellings of ``unmask=ALL`` and ``label=type:spc_t``, which PV004 reports for Docker."""
    text = _POD
    for key, value in values.items():
        text = text.replace(f"@{key}@", value)
    assert [f.line for f in lint_files({"pod.yaml": text}) if f.rule == "PV004"] == lines


_JOINS = """\
services:
  h:
    image: busybox
    pid: host
    network_mode: host
    volumes: [/var/run/docker.sock:/var/run/docker.sock]
  a:
    image: busybox
    pid: "service:h"
    network_mode: "service:h"
    ipc: "service:h"
    volumes_from: ["h:ro"]
  b:
    image: busybox
    pid: "service:a"
    volumes_from: [container:h]
"""
_FIRST = (
    "services:\n  b:\n    image: busybox\n    pid: service:a\n" + _JOINS.removeprefix("services:\n").split("  b:")[0]
)


def test_joining_a_host_namespace_or_its_volumes() -> None:
    """``pid: "service:h"`` where ``h`` has ``pid: host`` puts the container in the host's PID
    namespace (shown with docker run --pid container:X: /proc/1 is the host's init); volumes_from
    copies the socket mount. Reported at the joining service's own key; b joins a, which joins
    h (a chain, followed whatever the order), and ``container:`` names a container, not a service."""
    findings = lint_files({"compose.yaml": _JOINS})
    lines = sorted((f.rule, f.line) for f in findings if 'service "a"' in f.message or 'service "b"' in f.message)
    assert lines == [("PV002", 9), ("PV002", 10), ("PV002", 15), ("RS001", 12)], findings
    assert 'joins the pid namespace of service "h"' in next(f.message for f in findings if f.line == 9)
    quiet = _JOINS.replace("pid: host", "pid: private").replace("network_mode: host", "network_mode: bridge")
    quiet = quiet.replace("/var/run/docker.sock:", "/srv/data:")
    assert not lint_files({"compose.yaml": quiet})
    assert ("PV002", 4) in {(f.rule, f.line) for f in lint_files({"compose.yaml": _FIRST})}


_SECRETS = """\
services:
  a:
    image: busybox
    secrets: [key, {source: sock, target: /var/run/docker.sock}]
    configs: [aws]
  b:
    image: busybox
    secrets: [safe]
secrets:
  key:
    file: ~/.ssh/id_rsa
  sock:
    file: /var/run/docker.sock
  safe:
    file: ./secrets/token.txt
  unused:
    file: /var/run/docker.sock
configs:
  aws:
    file: ${HOME}/.aws/credentials
"""


def test_secret_and_config_files_are_mounts() -> None:
    """compose bind-mounts a secret's or config's ``file`` into the service, read-only (shown by
    ``docker compose run``: /run/secrets/sock is the socket, /run/secrets/key the key); a
    read-only socket still takes connections. A secret no service uses, and a project file, stay
    quiet."""
    findings = lint_files({"compose.yaml": _SECRETS})
    assert sorted((f.rule, f.line) for f in findings) == [("HC001", 11), ("HC001", 20), ("RS001", 13)], findings
    assert all('service "a"' in f.message for f in findings)


@pytest.mark.docker
def test_compose_mounts_a_secret_file(tmp_path: Path) -> None:
    """The consumer's reading: the service gets the secret whose file is the socket."""
    from tests.lint.test_consumer_oracles import compose_config

    (tmp_path / "compose.yaml").write_text(_SECRETS, encoding="utf-8")
    config = compose_config(tmp_path)
    assert isinstance(config, dict), config
    assert config["secrets"]["sock"]["file"] == "/var/run/docker.sock"
    assert {s["source"] for s in config["services"]["a"]["secrets"]} == {"key", "sock"}


_BOUND = """\
services:
  a:
    image: busybox
    volumes:
      - runtime:/host-run
      - type: volume
        source: homes
        target: /h
      - data:/data
volumes:
  runtime:
    driver: local
    driver_opts: {type: none, o: bind, device: /var/run}
  homes:
    driver_opts:
      type: none
      o: "bind,ro"
      device: ${HOME}/.ssh
  data:
    driver_opts: {type: nfs, o: "addr=10.0.0.1,rw", device: ":/var/run"}
"""


def test_named_volume_bound_to_a_host_folder() -> None:
    """The local driver with ``o: bind`` mounts its ``device`` (``docker compose run`` lists the
    host's docker.sock in /host-run); an NFS volume is not a host path."""
    findings = lint_files({"compose.yaml": _BOUND})
    assert sorted((f.rule, f.line) for f in findings) == [("HC001", 18), ("RS001", 13)], findings


_TAGGED_POD = """\
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  hostPID: @PID@
  containers:
  - name: c
    image: busybox
    securityContext: {privileged: @PRIV@}
"""


@pytest.mark.parametrize(
    ("pid", "priv", "rules"),
    [
        ('!!bool "true"', "false", ["PV002"]),
        ("!!bool 'yes'", "false", ["PV002"]),  # go-yaml v2 (sigs.k8s.io/yaml) reads yes as true
        ("false", '!!bool "true"', ["PV001"]),
        ('!!str "true"', '!!str "false"', []),  # a string in a boolean field: the API server refuses it
        ('"true"', "false", []),
    ],
)
def test_an_explicit_core_tag_types_a_quoted_scalar(pid: str, priv: str, rules: list[str]) -> None:
    """`!!bool "true"` is a boolean to every YAML consumer: the tag, not the quotes, decides."""
    text = _TAGGED_POD.replace("@PID@", pid).replace("@PRIV@", priv)
    assert sorted(f.rule for f in lint_files({"deploy/pod.yaml": text})) == rules
