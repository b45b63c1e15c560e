"""The consumers are the oracle: the linter's security facts against the programs that run the files.

Compose: every service's privileged mode, host namespaces, capabilities, devices, security
options and runtime-socket mounts as the linter reads them (``facts.containers``) against
``docker compose config --format json`` (compose-go itself), on the repository's own Compose
files and on seeded random projects that spell the same settings every way compose-go accepts:
boolean spellings, quoting, flow and block style, interpolation with and without a ``.env``,
anchors and merge keys, ``extends``.

Kubernetes: hostNetwork/hostPID/hostIPC, privileged, allowPrivilegeEscalation, added
capabilities and hostPath volumes of every workload kind against a small Go program built from
Debian's packages (tests/lint/oracles/build.sh) that converts each manifest with
sigs.k8s.io/yaml, as the API server's decoder does, and reads the facts with core/v1's field
types (k8s.io/api itself is not packaged; see tests/lint/oracles/k8s_yaml/main.go).

Every disagreement found while writing these became a case in tests/lint/test_consumers.py.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from sandkit.lint.discovery import Candidate
from sandkit.lint.engine import ScanOptions, source_of
from sandkit.lint.facts.containers import containers
from sandkit.lint.facts.host_paths import normalize, runtime_socket

REPO = Path(__file__).resolve().parents[2]
ORACLES = Path(__file__).parent / "oracles"
SEED = int(os.environ.get("SANDKIT_ORACLE_SEED", "32"))
_NAMESPACES = {"network": "network_mode", "pid": "pid", "ipc": "ipc", "uts": "uts", "userns": "userns_mode"}
_NAMESPACES["cgroupns"] = "cgroup"

pytestmark = pytest.mark.docker


# ----- the linter's side --------------------------------------------------------------------------
def linter_containers(root: Path, path: Path) -> list[Any]:
    relative = path.relative_to(root).as_posix()
    source = source_of(Candidate(str(path), relative, False), path.read_bytes(), ScanOptions(()))
    return containers(source)


def _socket(path: str) -> str | None:
    return normalize(path) if path and runtime_socket(path) == "socket" else None


def linter_compose_facts(root: Path, path: Path) -> dict[str, dict[str, Any]]:
    """Per service, the facts the linter holds (the first container of each service label)."""
    out: dict[str, dict[str, Any]] = {}
    for box in linter_containers(root, path):
        if not box.label.startswith('service "') or not box.label.endswith('"'):
            continue
        name = box.label[len('service "') : -1]
        if name in out:
            continue
        out[name] = {
            "privileged": bool(box.setting("privileged")),
            "host": sorted({n for n in _NAMESPACES for s in box.setting(n) if s.value.strip().lower() == "host"}),
            "caps": sorted({s.value.strip().upper().removeprefix("CAP_") for s in box.setting("cap-add")}),
            "devices": sorted({s.value.split(":")[0] for s in box.setting("device")}),
            "security_opt": sorted({s.value for s in box.setting("security-opt")}),
            "sockets": sorted({p for m in box.mounts if (p := _socket(m.source)) is not None}),
        }
    return out


# ----- compose-go's side --------------------------------------------------------------------------
def compose_config(folder: Path, file: str = "compose.yaml") -> dict[str, Any] | str:
    """``docker compose config --format json`` of a project (its error text when it refuses)."""
    # a home under /home: the linter reads ~ and /home/USER as the same place
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/home/oracle", "DOCKER_CONFIG": str(folder)}
    if "DOCKER_HOST" in os.environ:
        env["DOCKER_HOST"] = os.environ["DOCKER_HOST"]
    run = subprocess.run(
        ["docker", "compose", "-f", file, "config", "--format", "json"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if run.returncode != 0:
        return (run.stderr.strip().splitlines() or [f"exit {run.returncode}"])[-1]
    config: dict[str, Any] = json.loads(run.stdout)
    return config


def compose_facts(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for name, service in (config.get("services") or {}).items():
        devices = {d["source"] if isinstance(d, dict) else str(d).split(":")[0] for d in service.get("devices") or ()}
        binds = [v.get("source", "") for v in service.get("volumes") or () if v.get("type") == "bind"]
        out[name] = {
            "privileged": service.get("privileged") is True,
            "host": sorted({n for n, key in _NAMESPACES.items() if service.get(key) == "host"}),
            "caps": sorted({c.upper().removeprefix("CAP_") for c in service.get("cap_add") or ()}),
            "devices": sorted(devices),
            "security_opt": sorted(service.get("security_opt") or ()),
            "sockets": sorted({p for source in binds if (p := _socket(source)) is not None}),
        }
    return out


# ----- seeded random Compose projects -------------------------------------------------------------
_TRUE_WORDS = ["true", "True", "TRUE", "yes", "Yes", "YES", "y", "Y", "on", "On", "ON"]
_FALSE_WORDS = ["false", "False", "FALSE", "no", "No", "NO", "n", "N", "off", "Off", "OFF"]
_SOCKETS = ["/var/run/docker.sock", "/run/docker.sock", "/run/containerd/containerd.sock", "/run/podman/podman.sock"]
_PLAIN_DIRS = ["/srv/data", "/opt/cache", "/tmp/work"]


class _Project:
    """One generated project: its compose.yaml lines, its .env lines, a counter for names."""

    def __init__(self, rng: random.Random, index: int) -> None:
        self.rng = rng
        self.index = index
        self.env: dict[str, str] = {}
        self.anchors: list[str] = []
        self.services: list[str] = []
        self.count = 0

    def variable(self) -> str:
        self.count += 1
        return f"SKV{self.index}_{self.count}"

    def spelled(self, word: str, *, boolean: bool) -> str:
        """``word`` written one of the ways compose-go reads as ``word``: plain (a word YAML
        types itself or not), quoted, or through a variable (unset with a default, set in .env,
        set empty in .env with ``:-``, nested defaults); mixed case for booleans."""
        rng = self.rng
        if boolean and rng.random() < 0.15:
            word = "".join(c.upper() if rng.random() < 0.5 else c.lower() for c in word)
        form = rng.randrange(9)
        if form == 0:
            return word
        if form == 1:
            return f'"{word}"'
        if form == 2:
            return f"'{word}'"
        name = self.variable()
        if form == 3:
            return f'"${{{name}:-{word}}}"'
        if form == 4:
            return f'"${{{name}-{word}}}"'
        if form == 5:
            self.env[name] = word
            return f'"${{{name}}}"'
        if form == 6:
            self.env[name] = word
            return f'"${name}"'
        if form == 7:
            self.env[name] = ""
            return f'"${{{name}:-{word}}}"'
        inner = self.variable()
        if rng.random() < 0.5:
            self.env[inner] = word
            return f'"${{{name}:-${{{inner}}}}}"'
        return f'"${{{name}:-${{{inner}:-{word}}}}}"'

    def boolean(self) -> str:
        return self.spelled(self.rng.choice(_TRUE_WORDS + _FALSE_WORDS), boolean=True)

    def settings(self, number: int) -> dict[str, str]:
        """A service's keys (as YAML text for a flow mapping), each present or not."""
        rng = self.rng
        keys: dict[str, str] = {}
        if rng.random() < 0.6:
            keys["privileged"] = self.boolean()
        for key, values in (
            ("network_mode", ["host", "bridge", "none"]),
            ("pid", ["host"]),
            ("ipc", ["host", "private", "shareable"]),
            ("uts", ["host"]),
            ("userns_mode", ["host"]),
            ("cgroup", ["host", "private"]),
        ):
            if rng.random() < 0.25:
                keys[key] = self.spelled(rng.choice(values), boolean=False)
        if keys.get("network_mode", "").strip("\"'") == "none":
            keys.pop("network_mode")
        if rng.random() < 0.4:
            caps = rng.sample(
                ["SYS_ADMIN", "NET_ADMIN", "CAP_SYS_PTRACE", "CHOWN", "SYS_MODULE", "BPF"], rng.randint(1, 3)
            )
            keys["cap_add"] = "[" + ", ".join(self.spelled(c, boolean=False) for c in caps) + "]"
        if rng.random() < 0.3:
            devices = rng.sample(
                ["/dev/fuse:/dev/fuse", "/dev/kvm:/dev/kvm", "/dev/sda:/dev/xvda:rwm"], rng.randint(1, 2)
            )
            keys["devices"] = "[" + ", ".join(self.spelled(d, boolean=False) for d in devices) + "]"
        if rng.random() < 0.3:
            options = rng.sample(
                ["seccomp:unconfined", "apparmor=unconfined", "label:disable", "no-new-privileges:true"], 2
            )
            keys["security_opt"] = "[" + ", ".join(self.spelled(o, boolean=False) for o in options) + "]"
        if rng.random() < 0.5:
            keys["volumes"] = self.volumes(number)
        return keys

    def no_repeats(self, keys: dict[str, str]) -> None:
        """compose refuses a security option written twice, which extends and merge keys would
        add up: a service that extends, and the anchors, write none."""
        keys.pop("security_opt", None)

    def volumes(self, number: int) -> str:
        rng = self.rng
        items = []
        for target in range(rng.randint(1, 3)):
            source = rng.choice(_SOCKETS + _PLAIN_DIRS)
            where = f"/mnt/{number}-{target}"
            form = rng.randrange(4)
            if form == 0:
                items.append(f'"{source}:{where}"')
            elif form == 1:
                name = self.variable()
                self.env[name] = source
                items.append(f'"${{{name}}}:{where}:ro"')
            elif form == 2:
                items.append(f'"${{{self.variable()}:-{source}}}:{where}"')
            else:
                read_only = self.boolean()
                items.append(
                    f"{{type: bind, source: {self.spelled(source, boolean=False)}, target: {where}, read_only: {read_only}}}"
                )
        return "[" + ", ".join(items) + "]"

    def service(self, number: int) -> str:
        rng = self.rng
        name = f"s{number}"
        keys = self.settings(number)
        keys["image"] = "alpine"
        if self.anchors and rng.random() < 0.2:
            keys["<<"] = "*" + rng.choice(self.anchors)
        if self.services and rng.random() < 0.2:
            base = rng.choice(self.services)
            keys["extends"] = base if rng.random() < 0.5 else f"{{service: {base}}}"
            self.no_repeats(keys)
        self.services.append(name)
        if rng.random() < 0.5:  # flow style
            return f"  {name}: {{" + ", ".join(f"{k}: {v}" for k, v in keys.items()) + "}"
        body = "".join(f"\n    {k}: {v}" for k, v in keys.items())
        return f"  {name}:{body}"

    def text(self, services: int) -> str:
        lines = []
        for index in range(2):
            name = f"base{index}"
            self.anchors.append(name)
            keys = self.settings(100 + index)
            keys.pop("volumes", None)  # a mount target per service: not shared through an anchor
            self.no_repeats(keys)
            lines.append(f"x-{name}: &{name} {{" + ", ".join(f"{k}: {v}" for k, v in keys.items()) + "}")
        lines.append("services:")
        lines.extend(self.service(number) for number in range(services))
        return "\n".join(lines) + "\n"


def generated_projects(root: Path, count: int, services: int) -> Iterator[Path]:
    rng = random.Random(SEED)
    for index in range(count):
        folder = root / f"p{index}"
        folder.mkdir()
        project = _Project(rng, index)
        (folder / "compose.yaml").write_text(project.text(services), encoding="utf-8")
        if project.env or rng.random() < 0.5:
            (folder / ".env").write_text("".join(f"{k}={v}\n" for k, v in project.env.items()), encoding="utf-8")
        yield folder


def _compare(root: Path, folder: Path, file: str = "compose.yaml") -> tuple[int, list[str]]:
    """(services compared, disagreements) for one project; compose refusing it is a disagreement
    for a generated project (the generator writes only what compose accepts)."""
    config = compose_config(folder, file)
    if isinstance(config, str):
        return 0, [f"{folder / file}: docker compose refused it: {config}"]
    expected = compose_facts(config)
    found = linter_compose_facts(root, folder / file)
    problems = []
    for name, facts in expected.items():
        mine = found.get(name)
        if mine != facts:
            problems.append(f"{folder / file} service {name}: linter {mine} != compose {facts}")
    return len(expected), problems


@pytest.fixture(scope="module")
def compose_available() -> None:
    if shutil.which("docker") is None:
        pytest.fail("docker is not on PATH")
    version = subprocess.run(["docker", "compose", "version"], capture_output=True, text=True, check=False)
    if version.returncode != 0:
        pytest.fail(f"docker compose does not answer: {version.stderr}")


def test_compose_oracle_on_generated_projects(compose_available: None) -> None:
    """Seeded random projects (SANDKIT_ORACLE_SEED picks another seed): about 900 services."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folders = list(generated_projects(root, 36, 25))
        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(lambda folder: _compare(root, folder), folders))
    compared = sum(count for count, _ in results)
    problems = [problem for _, found in results for problem in found]
    assert not problems, f"{len(problems)} disagreements (seed {SEED}):\n" + "\n".join(problems[:20])
    assert compared >= 800


def _corpus_compose_files() -> list[Path]:
    found = []
    for top in (REPO / "tests" / "lint" / "corpus", REPO / "examples", REPO / "sandbox"):
        for path in sorted(top.rglob("*.y*ml")):
            if "compose" in path.name and "node_modules" not in path.parts:
                found.append(path)
    return found


def test_compose_oracle_on_the_repository_corpus(compose_available: None) -> None:
    """The repository's own Compose files, copied with their folder: those compose accepts
    (a broken fixture, or one whose env_file is left out, is not a test of reading) agree."""
    files = _corpus_compose_files()
    compared, problems, refused = 0, [], []
    with tempfile.TemporaryDirectory() as tmp:
        for index, path in enumerate(files):
            folder = Path(tmp) / str(index)
            shutil.copytree(path.parent, folder, symlinks=True)
            count, found = _compare(Path(tmp), folder, path.name)
            if count == 0:
                refused.append(path)
                continue
            compared += count
            problems.extend(found)
    assert not problems, "\n".join(problems)
    assert compared >= 20 and len(refused) < len(files) // 2, (compared, refused)


# ----- Kubernetes ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def k8s_oracle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Go oracle, built from Debian's packages (.ci/run installs them). A failed build fails
    the test where CI requires the Docker-marked tests (SANDKIT_REQUIRE_DOCKER=1), and skips it on
    a developer's machine without Go."""
    binary = tmp_path_factory.mktemp("oracle") / "k8s_yaml"
    build = subprocess.run(
        ["bash", str(ORACLES / "build.sh"), str(binary)], capture_output=True, text=True, timeout=600, check=False
    )
    if build.returncode != 0:
        reason = f"the Kubernetes oracle could not be built: {build.stderr.strip()}"
        if os.environ.get("SANDKIT_REQUIRE_DOCKER") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    return binary


def k8s_oracle_facts(binary: Path, documents: list[str]) -> list[dict[str, Any]]:
    run = subprocess.run(
        [str(binary)], input=json.dumps(documents), capture_output=True, text=True, timeout=120, check=True
    )
    facts: list[dict[str, Any]] = json.loads(run.stdout)
    return facts


_POD_PATH = {
    "Pod": "spec",
    "Deployment": "spec.template.spec",
    "StatefulSet": "spec.template.spec",
    "DaemonSet": "spec.template.spec",
    "ReplicaSet": "spec.template.spec",
    "Job": "spec.template.spec",
    "ReplicationController": "spec.template.spec",
    "CronJob": "spec.jobTemplate.spec.template.spec",
}
_API = {"Pod": "v1", "ReplicationController": "v1", "Job": "batch/v1", "CronJob": "batch/v1"}
_HOST_KEYS = {"network": "hostNetwork", "pid": "hostPID", "ipc": "hostIPC"}


def linter_k8s_facts(root: Path, path: Path) -> dict[str, Any]:
    """The facts of the one workload in ``path``, as the oracle prints them."""
    host: set[str] = set()
    members: dict[str, dict[str, Any]] = {}
    paths: list[str] = []
    for box in linter_containers(root, path):
        if box.label.startswith("pod of "):
            host |= {_HOST_KEYS[s.name] for s in box.settings if s.name in _HOST_KEYS and s.value == "host"}
            paths += [m.source for m in box.mounts if m.how == "hostPath"]
        elif " of " in box.label and '"' in box.label:
            name = box.label.split('"')[1]
            members[name] = {
                "name": name,
                "privileged": bool(box.setting("privileged")),
                "allowPrivilegeEscalation": bool(box.setting("allow-privilege-escalation")),
                "capAdd": [s.value for s in box.setting("cap-add")],
            }
    return {
        "host": sorted(host),
        "containers": sorted(members.values(), key=lambda c: c["name"]),
        "hostPaths": sorted(paths),
    }


def _oracle_view(fact: dict[str, Any]) -> dict[str, Any]:
    return {
        "host": sorted(fact["host"]),
        "containers": sorted(fact["containers"], key=lambda c: c["name"]),
        "hostPaths": sorted(fact["hostPaths"]),
    }


_YAML11_TRUE = ["y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"]
_YAML11_FALSE = ["n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"]


def _k8s_boolean(rng: random.Random) -> str:
    word = rng.choice(_YAML11_TRUE + _YAML11_FALSE)
    spelling = rng.random()
    if spelling < 0.85:
        return word
    if spelling < 0.92:
        return f'"{word}"'  # quoted: the API server refuses the object
    if spelling < 0.97:
        quote = rng.choice(["", "'", '"'])
        return f"!!bool {quote}{word}{quote}"  # the tag, not the quotes, types it
    return f'!!str "{word}"'  # a string again, whatever the word


def generated_manifest(rng: random.Random, index: int) -> str:
    kind = rng.choice(list(_POD_PATH))
    spec_lines: list[str] = []
    for key in ("hostNetwork", "hostPID", "hostIPC"):
        if rng.random() < 0.4:
            spec_lines.append(f"{key}: {_k8s_boolean(rng)}")
    containers_text: list[str] = []
    for number in range(rng.randint(1, 3)):
        context = []
        if rng.random() < 0.6:
            context.append(f"privileged: {_k8s_boolean(rng)}")
        if rng.random() < 0.4:
            context.append(f"allowPrivilegeEscalation: {_k8s_boolean(rng)}")
        if rng.random() < 0.3:
            caps = rng.sample(["SYS_ADMIN", "NET_ADMIN", "SYS_PTRACE", "CHOWN"], 2)
            context.append("capabilities: {add: [" + ", ".join(caps) + "]}")
        entry = f"- name: c{number}\n  image: alpine"
        if number and rng.random() < 0.3 and "&sc" in containers_text[0]:  # an alias, or a merge key over one
            if rng.random() < 0.5:
                entry += "\n  securityContext: *sc"
            else:
                entry += "\n  securityContext: {<<: *sc" + "".join(f", {c}" for c in context) + "}"
        elif context:
            anchor = "&sc " if number == 0 and rng.random() < 0.5 else ""
            if rng.random() < 0.5:
                entry += f"\n  securityContext: {anchor}{{" + ", ".join(context) + "}"
            else:
                entry += f"\n  securityContext: {anchor}" + "".join(f"\n    {line}" for line in context)
        containers_text.append(entry)
    group = rng.choice(["containers", "initContainers"])
    spec_lines.append(f"{group}:")
    spec_lines += ["  " + line for entry in containers_text for line in entry.splitlines()]
    if group == "initContainers":
        spec_lines += ["containers:", "  - name: main", "    image: alpine"]
    if rng.random() < 0.4:
        path = rng.choice(_SOCKETS + _PLAIN_DIRS)
        spec_lines += ["volumes:", f"  - name: v\n    hostPath: {{path: {path}}}"]
    if rng.random() < 0.15 and any(line.startswith("host") for line in spec_lines):
        first = next(line for line in spec_lines if line.startswith("host"))
        spec_lines.insert(0, first.split(":")[0] + ": " + rng.choice(_YAML11_FALSE))  # written twice
    depth = _POD_PATH[kind].split(".")
    text = [f"apiVersion: {_API.get(kind, 'apps/v1')}", f"kind: {kind}", f"metadata: {{name: w{index}}}"]
    indent = ""
    for part in depth:
        text.append(f"{indent}{part}:")
        indent += "  "
    text += [indent + line for chunk in spec_lines for line in chunk.splitlines()]
    return "\n".join(text) + "\n"


def test_kubernetes_oracle_on_generated_manifests(k8s_oracle: Path) -> None:
    rng = random.Random(SEED)
    manifests = [generated_manifest(rng, index) for index in range(400)]
    verdicts = k8s_oracle_facts(k8s_oracle, manifests)
    problems, compared = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for index, (text, verdict) in enumerate(zip(manifests, verdicts, strict=True)):
            if verdict.get("error") or verdict.get("rejected"):
                continue  # the API server refuses it: nothing runs
            path = root / f"m{index}.yaml"
            path.write_text(text, encoding="utf-8")
            mine = linter_k8s_facts(root, path)
            if mine != _oracle_view(verdict):
                problems.append(f"{text}\nlinter {mine}\noracle {_oracle_view(verdict)}")
            compared += 1
    assert not problems, f"{len(problems)} disagreements (seed {SEED}):\n" + "\n".join(problems[:5])
    assert compared >= 250


def test_kubernetes_oracle_on_the_repository_corpus(k8s_oracle: Path) -> None:
    """Every workload document of the corpus's and the examples' manifests, each in a file of
    its own (Helm templates are rendered by Helm, not read here)."""
    documents = []
    for top in (REPO / "tests" / "lint" / "corpus", REPO / "examples", REPO / "sandbox"):
        for path in sorted(top.rglob("*.y*ml")):
            if "templates" in path.parts:
                continue
            text = path.read_text(encoding="utf-8")
            documents += [d for d in re.split(r"(?m)^---[ \t]*$", text) if re.search(r"(?m)^kind:", d)]
    verdicts = k8s_oracle_facts(k8s_oracle, documents)
    compared, problems = 0, []
    with tempfile.TemporaryDirectory() as tmp:
        for index, (text, verdict) in enumerate(zip(documents, verdicts, strict=True)):
            if verdict.get("error") or verdict.get("rejected") or verdict.get("kind") not in _POD_PATH:
                continue
            path = Path(tmp) / f"d{index}.yaml"
            path.write_text(text, encoding="utf-8")
            mine = linter_k8s_facts(Path(tmp), path)
            if mine != _oracle_view(verdict):
                problems.append(f"{text}\nlinter {mine} != oracle {_oracle_view(verdict)}")
            compared += 1
    assert not problems, "\n".join(problems)
    assert compared >= 5, compared
