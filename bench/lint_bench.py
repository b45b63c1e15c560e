"""Benchmark ``sandkit lint`` against Checkov, detect-secrets and plain reading of the files.

Generates repositories of several shapes (``bench/shapes.py``: small config files at each of
--sizes, a lockfile-heavy monorepo, a web application with bundles, source maps, fixtures, logs,
vendored code and binaries; each with a known number of planted findings), takes any existing
folder too (``--tree DIR``), runs every tool on the same tree in one run, and prints a Markdown
table of wall times, ratios and sandkit's peak memory, plus the cost of a pre-commit run on ten
small files (a compose file, a workflow, a Dockerfile ...) beyond the interpreter's own start.

    python bench/lint_bench.py --sizes 1000,10000,100000 --checkov-up-to 10000
    python bench/lint_bench.py --shapes lockfiles --tree ~/src/awesome-compose

Checkov and detect-secrets are looked up on PATH (or given with --checkov/--detect-secrets);
they are benchmark-only tools, not project dependencies. Missing tools are reported as
skipped. Timings include each tool's own start-up, as a user would see it. sandkit, plain
reading and detect-secrets take the best of --repeat runs (other load on a shared machine only
ever adds time); Checkov runs once, as it takes minutes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from shapes import SHAPES

REPO = Path(__file__).resolve().parent.parent
LOCKFILE_FILTER = "detect_secrets.filters.heuristic.is_lock_file"
PLANT_EVERY = 20  # one planted finding per this many files of a kind that can carry one

COMPOSE = """services:
  web{n}:
    image: nginx:1.27
    ports: ["80{d}:80"]
    volumes:
      - ./site{n}:/usr/share/nginx/html:ro
{extra}    environment:
      LOG_LEVEL: info
"""
K8S = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: api-{n}
spec:
  replicas: 2
  template:
    spec:
      containers:
        - name: api
          image: ghcr.io/acme/api:{n}.0
          securityContext:
            privileged: {privileged}
            runAsNonRoot: true
          resources: {{limits: {{cpu: "1", memory: 512Mi}}}}
"""
WORKFLOW = """name: ci-{n}
on: [push]
permissions: {{contents: read}}
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683
      - run: |
          python -m pip install -e .
          pytest -q tests/{n}
"""
DOCKERFILE = """FROM python:3.12-slim
WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt \\
    && useradd -m app{n}
{extra}USER app{n}
CMD ["python", "-m", "app"]
"""
SHELL = """#!/bin/sh
set -eu
echo "building part {n}"
docker build -t acme/part{n}:latest .
docker run --rm {mount}acme/part{n}:latest pytest -q
"""
KIT = """apiVersion: sandkit/v1
kind: Kit
name: agent-{n}
image: {{base: "debian:bookworm-slim", user: agent}}
network:
  egress: {egress}
  allow: [api.anthropic.com, github.com]
agent: {{command: [claude, -p, "fix issue {n}"]}}
"""
PYTHON = '''"""Module {n}."""

import os
{secret}

def handler_{n}(event: dict) -> dict:
    """Handle one event; the socket path /var/run/docker.sock is only text here."""
    path = os.path.join("/tmp", str(event.get("id", {n})))
    return {{"path": path, "size": len(path) * {n}}}
'''
MARKDOWN = """# Part {n}

Run `make test` before committing. Never mount `/var/run/docker.sock` into an agent.
"""
#: The kinds issue 22 added, each as (unplanted, planted): a CI script, a dev container's host
#: command, direnv, Terraform and an Azure container resource.
PIPELINES = {
    "gitlab": (
        "test-{n}:\n  image: python:3.12\n  script:\n    - pytest -q tests/{n}\n",
        "test-{n}:\n  image: docker:27\n  script:\n"
        "    - docker run --rm -v /var/run/docker.sock:/var/run/docker.sock alpine true\n",
    ),
    "devcontainer": (
        '{{"name": "u{n}", "image": "registry.example.com/python:3", "postCreateCommand": "pip install -e ."}}\n',
        '{{"name": "p{n}", "image": "registry.example.com/python:3", "initializeCommand": "bash ./host-{n}.sh"}}\n',
    ),
    "envrc": (
        "export PATH=$PWD/bin:$PATH\nlayout python3\n",
        "curl -fsSL https://get.example.com/setup-{n}.sh | sh\n",
    ),
    "terraform": (
        'resource "null_resource" "x{n}" {{\n  triggers = {{ a = "b" }}\n}}\n',
        'data "external" "version{n}" {{\n  program = ["bash", "${{path.module}}/version.sh"]\n}}\n',
    ),
    "azure": (
        "jobs:\n  - job: test{n}\n    steps:\n      - script: pytest -q\n",
        "resources:\n  containers:\n    - container: build\n      image: python:3.12\n      options: --privileged\n"
        "jobs:\n  - job: test{n}\n    container: build\n    steps:\n      - script: pytest -q\n",
    ),
}
JSON = '{{"id": {n}, "name": "item-{n}", "tags": ["a", "b"], "nested": {{"x": [1, 2, 3]}}}}\n'

# (file name pattern, template builder, planted rule or None)
KINDS = [
    ("compose.yaml", "compose", "RS001"),
    ("deploy.yaml", "k8s", "PV001"),
    (".github/workflows/ci.yml", "workflow", None),
    ("Dockerfile", "dockerfile", "RS001"),
    ("build.sh", "shell", "HC001"),
    ("kit.yaml", "kit", "EG001"),
    ("app.py", "python", "secret"),
    ("app2.py", "python", None),
    ("README.md", "markdown", None),
    ("data.json", "json", None),
    (".gitlab-ci.yml", "gitlab", "RS001"),
    (".devcontainer/devcontainer.json", "devcontainer", "AA010"),
    (".envrc", "envrc", "AA012"),
    ("main.tf", "terraform", "AA013"),
    ("azure-pipelines.yml", "azure", "PV001"),
]


def render(kind: str, n: int, plant: bool) -> str:
    if kind == "compose":
        extra = "      - /var/run/docker.sock:/var/run/docker.sock\n" if plant else ""
        return COMPOSE.format(n=n, d=n % 10, extra=extra)
    if kind == "k8s":
        return K8S.format(n=n, privileged="true" if plant else "false")
    if kind == "workflow":
        return WORKFLOW.format(n=n)
    if kind == "dockerfile":
        return DOCKERFILE.format(n=n, extra='VOLUME ["/var/run/docker.sock"]\n' if plant else "")
    if kind == "shell":
        return SHELL.format(n=n, mount="-v $HOME/.ssh:/root/.ssh " if plant else "")
    if kind == "kit":
        return KIT.format(n=n, egress="open" if plant else "allowlist")
    if kind == "python":
        secret = f'DB_PASSWORD = "k9Xq2mZ7vL4pR8sT{n}"\n' if plant else ""
        return PYTHON.format(n=n, secret=secret)
    if kind == "markdown":
        return MARKDOWN.format(n=n)
    if kind in PIPELINES:
        return PIPELINES[kind][plant].format(n=n)
    return JSON.format(n=n)


def generate(root: Path, files: int, shape: str = "small") -> Counter[str]:
    """Write a tree of ``shape`` (see ``shapes.py``) under ``root``: ``files`` of the usual small
    files for the small shape, the shape's own mix otherwise. Return the planted findings per rule."""
    import random

    from shapes import generate_extras, usual_count

    planted: Counter[str] = Counter()
    for i in range(usual_count(shape, files)):
        name, kind, rule = KINDS[i % len(KINDS)]
        n = i // len(KINDS)
        plant = rule is not None and n % PLANT_EVERY == 0
        if plant and rule:
            planted[rule] += 1
        path = root / f"part{n // 10}" / f"unit{n}" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render(kind, n, plant))
    planted.update(generate_extras(root, shape, random.Random(f"{shape}-{files}")))
    return planted


def generate_elsewhere(root: Path, files: int, shape: str = "small") -> tuple[Counter[str], float, int]:
    """Generate in a child process, so this process stays small; return the planted findings,
    the tree's megabytes and its number of files.

    A child's peak RSS (``ru_maxrss``) starts at its parent's size when it is forked, so a
    bench process that had built a 100k-file tree itself would report its own memory as
    every tool's peak.
    """
    import json

    code = (
        "import json, shutil, sys; sys.path.insert(0, sys.argv[1]); import lint_bench as b; "
        "from pathlib import Path; root = Path(sys.argv[2]); "
        "shutil.rmtree(root, ignore_errors=True); planted = b.generate(root, int(sys.argv[3]), sys.argv[4]);"
        " print(json.dumps(planted))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(Path(__file__).parent), str(root), str(files), shape],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    megabytes, count = measure(root)
    return Counter(json.loads(out)), megabytes, count


def measure(root: Path) -> tuple[float, int]:
    """(megabytes, files) of the regular files under ``root``, symbolic links not followed."""
    size = count = 0
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            if os.path.isfile(path) and not os.path.islink(path):
                size += os.path.getsize(path)
                count += 1
    return size / 1e6, count


READ_ALL = """
import os, sys
total = 0
for folder, dirs, names in os.walk(sys.argv[1]):
    for name in names:
        with open(os.path.join(folder, name), "rb") as handle:
            total += len(handle.read())
print(total)
"""


def run(
    argv: list[str], env: dict[str, str] | None = None, cwd: Path | None = None, capture: bool = True
) -> tuple[float, float, str]:
    """(wall seconds, peak RSS of the largest process in MB, stdout) of one command.

    Output that is not needed is not read: a child's peak RSS starts at this process's size
    when it is forked, so holding Checkov's large report here would inflate later peaks.
    """
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(
            argv, stdout=out if capture else subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=cwd
        )
        _, _, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        proc.returncode = 0
        out.seek(0)
        text = out.read().decode(errors="replace") if capture else ""
    return elapsed, usage.ru_maxrss / 1024, text


def best(
    repeat: int, argv: list[str], env: dict[str, str] | None = None, cwd: Path | None = None
) -> tuple[float, float, str]:
    """The fastest of ``repeat`` runs (the least disturbed by other load on the machine)."""
    return min((run(argv, env, cwd) for _ in range(max(repeat, 1))), key=lambda r: r[0])


def sandkit_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)  # the isolated interpreter finds this checkout through its .pth file
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # measure with compiled bytecode, as installed
    return env


def isolated_python(work: Path) -> str:
    """A virtualenv's interpreter that sees this checkout and the installed dependencies, and
    runs no other start-up code: what pre-commit's own environment for the hook is.

    The interpreter running the bench may execute .pth files at every start (an editable
    install's finder, a CA bundle hook importing certifi, pathlib and re: 30 ms on one machine
    here). Those modules are then already loaded when sandkit starts, so they flatter its
    start-up against ``python -c pass``. A plain path line in a .pth file adds the folder
    without running the .pth files it holds.
    """
    import site
    import venv

    home = work / "python"
    venv.EnvBuilder(with_pip=False, clear=True).create(home)
    python = home / "bin" / "python"
    target = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    folders = [str(REPO), *site.getsitepackages(), site.getusersitepackages()]
    (Path(target) / "sandkit-bench.pth").write_text("\n".join(f for f in folders if os.path.isdir(f)) + "\n")
    return str(python)


#: What a commit typically stages: ten small files of the kinds a pre-commit hook is given.
PRECOMMIT_FILES = {
    "compose.yaml": "services:\n  web:\n    image: nginx:1.25\n    ports: ['8080:80']\n",
    ".github/workflows/ci.yml": (
        "name: ci\non: [push]\npermissions:\n  contents: read\njobs:\n  test:\n    runs-on: ubuntu-latest\n"
        "    steps:\n      - uses: actions/checkout@b4ffde65f46336ab88eb53be808477a3936bae11\n      - run: make test\n"
    ),
    "Dockerfile": 'FROM python:3.12-slim\nCOPY app /app\nCMD ["python", "/app/main.py"]\n',
    "run.sh": "#!/bin/sh\nset -eu\necho hello\n",
    "Makefile": "test:\n\tpytest -q\n",
    "app/main.py": "def main():\n    print('hi')\n",
    "app/util.py": "import os\nX = os.environ.get('X')\n",
    "README.md": "# Demo\nSome text.\n",
    "package.json": '{"name": "demo", "version": "1.0.0"}\n',
    "pyproject.toml": '[project]\nname = "demo"\nversion = "0.1"\n',
}


def wall_and_cpu(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user and system) of one command, output discarded."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, _, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def precommit_cost(python: str, repeat: int = 31) -> tuple[tuple[float, float], tuple[float, float]]:
    """((wall, CPU) seconds of `sandkit lint` on ten small files, the same of `python -c pass`):
    medians of ``repeat`` runs of each, taken in turn, so that load which comes and goes hits both
    alike. On a loaded machine the wall time is mostly waiting for a core; the CPU time is not."""
    env = sandkit_env()
    bare = [python, "-c", "pass"]
    with tempfile.TemporaryDirectory() as folder:
        for rel, text in PRECOMMIT_FILES.items():
            (Path(folder) / rel).parent.mkdir(parents=True, exist_ok=True)
            (Path(folder) / rel).write_text(text)
        # what the console script pre-commit runs does (``python -m`` would add runpy's imports)
        program = [python, "-c", "import sys; from sandkit.cli import entry; sys.exit(entry())"]
        lint = [*program, "lint", *(str(Path(folder) / rel) for rel in PRECOMMIT_FILES)]
        run(lint, env)  # warm the bytecode cache
        pairs = [(wall_and_cpu(lint, env), wall_and_cpu(bare, env)) for _ in range(repeat)]
    return (
        (statistics.median(p[0][0] for p in pairs), statistics.median(p[0][1] for p in pairs)),
        (statistics.median(p[1][0] for p in pairs), statistics.median(p[1][1] for p in pairs)),
    )


def count_findings(json_text: str) -> Counter[str]:
    import json

    try:
        document = json.loads(json_text)
    except ValueError:
        return Counter()
    return Counter(f["rule"] for f in document["findings"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="file counts of the small shape")
    parser.add_argument(
        "--shapes",
        default=",".join(SHAPES),
        help=f"generated shapes to run, of {', '.join(SHAPES)} (empty for none; see bench/shapes.py)",
    )
    parser.add_argument(
        "--tree",
        action="append",
        default=[],
        metavar="DIR",
        help="also benchmark an existing folder (read only; repeatable), e.g. a checkout of your repository",
    )
    parser.add_argument(
        "--checkov-up-to", type=int, default=10000, help="run Checkov only up to this many files (it is slow)"
    )
    parser.add_argument(
        "--detect-secrets-up-to", type=int, default=100000, help="run detect-secrets only up to this many files"
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="best of N runs for sandkit, plain reading and detect-secrets "
        "(detect-secrets once above --checkov-up-to; Checkov always once)",
    )
    parser.add_argument(
        "--no-precommit", dest="precommit", action="store_false", help="leave out the pre-commit measurement"
    )
    parser.add_argument(
        "--detect-secrets-lockfiles",
        action="store_true",
        help="also run detect-secrets once with its lockfile filter off, so it reads what sandkit reads (slow)",
    )
    parser.add_argument("--checkov", default=shutil.which("checkov"))
    parser.add_argument("--detect-secrets", default=shutil.which("detect-secrets"))
    parser.add_argument("--workdir", default=None, help="where to generate (default: a temp dir)")
    args = parser.parse_args()
    shapes = [s for s in args.shapes.split(",") if s]
    unknown = set(shapes) - set(SHAPES) | {t for t in args.tree if not Path(t).is_dir()}
    if unknown:
        parser.error(f"not a shape or a folder: {', '.join(sorted(unknown))}")
    work = Path(args.workdir or tempfile.mkdtemp(prefix="sandkit-bench-"))
    args.python = isolated_python(work)  # sandkit and the bare start are timed with it
    trees: list[tuple[str, Path, Counter[str] | None, float, int]] = []
    for shape in shapes:
        for size in [int(s) for s in args.sizes.split(",")] if shape == "small" else [0]:
            label = f"small {size}" if shape == "small" else shape
            root = work / label.replace(" ", "-")
            planted, megabytes, count = generate_elsewhere(root, size, shape)
            trees.append((label, root, planted, megabytes, count))
            print(f"generated {label}: {count} files, {megabytes:.1f} MB", file=sys.stderr)
    for folder in args.tree:
        root = Path(folder).resolve()
        trees.append((root.name, root, None, *measure(root)))
    load_before = os.getloadavg()[0]
    rows = [bench_tree(args, *tree) for tree in trees]
    if args.detect_secrets and args.detect_secrets_lockfiles:
        for row, (_, root, *_rest) in zip(rows, trees, strict=True):
            detect_secrets_reading_lockfiles(args, row, root)
    print_table(rows)
    if any("detect_locks" in row for row in rows):
        print_lockfile_table(rows)
    if args.precommit:
        (lint_wall, lint_cpu), (bare_wall, bare_cpu) = precommit_cost(args.python)
        print(
            f"\npre-commit, 10 small files (medians of 31 runs each): sandkit {lint_wall * 1000:.0f} ms wall, "
            f"{lint_cpu * 1000:.0f} ms CPU; `python -c pass` {bare_wall * 1000:.0f} ms wall, {bare_cpu * 1000:.0f} ms "
            f"CPU: {1000 * (lint_wall - bare_wall):.0f} ms wall, {1000 * (lint_cpu - bare_cpu):.0f} ms CPU beyond "
            "the interpreter's start"
        )
    print(f"\nload average (1 min) before: {load_before:.2f}, after: {os.getloadavg()[0]:.2f}")
    if not args.workdir:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def bench_tree(
    args: argparse.Namespace, label: str, root: Path, planted: Counter[str] | None, megabytes: float, files: int
) -> dict[str, Any]:
    """One row of the table: every tool on ``root``, from inside it, on "." (detect-secrets scans
    nothing outside its working directory), so paths and work are the same for all of them."""
    env, repeat = sandkit_env(), args.repeat
    read_s = best(repeat, [sys.executable, "-c", READ_ALL, "."], cwd=root)[0]
    lint = [args.python, "-m", "sandkit", "lint", ".", "--format", "json"]
    run(lint, env, root, capture=False)  # warm caches and bytecode
    sandkit_s, peak_mb, out = best(repeat, lint, env, root)
    serial_s = best(repeat, [*lint, "--jobs", "1"], env, root)[0]
    found = count_findings(out)
    row: dict[str, Any] = {
        "tree": label,
        "files": files,
        "mb": megabytes,
        "read": read_s,
        "sandkit": sandkit_s,
        "serial": serial_s,
        "peak": peak_mb,
        "findings": sum(found.values()),
    }
    if planted is not None:
        ours = {rule: count for rule, count in planted.items() if rule != "secret"}
        if any(found[rule] != count for rule, count in ours.items()):
            print(f"warning: {label}: planted {ours} but found {dict(found)}", file=sys.stderr)
        row["planted"] = sum(ours.values())
        row["found"] = sum(found[r] for r in ours)
    if args.checkov and files <= args.checkov_up_to:
        row["checkov"] = run(
            [args.checkov, "-d", ".", "--quiet", "--compact", "-o", "json", "--skip-download"],
            cwd=root,
            capture=False,
        )[0]
    if args.detect_secrets and files <= args.detect_secrets_up_to:
        times = repeat if files <= args.checkov_up_to else 1
        seconds_, _, report = best(times, [args.detect_secrets, "scan", "--all-files", "."], cwd=root)
        row["detect"] = seconds_
        if planted is not None:
            hits = report.count('"type": "Secret Keyword"') + report.count('"type": "Basic Auth Credentials"')
            if hits < planted["secret"] + planted["PS001"]:
                print(f"warning: {label}: detect-secrets missed planted secrets ({hits} found)", file=sys.stderr)
    print(f"done {label}", file=sys.stderr)
    return row


def detect_secrets_reading_lockfiles(args: argparse.Namespace, row: dict[str, Any], root: Path) -> None:
    """detect-secrets once more, with its lockfile filter off. Run after every other measurement:
    its report runs to megabytes of high-entropy integrity hashes, and reading it here would
    inflate the peak memory of every process this one forks afterwards."""
    row["detect_locks"], _, report = run(
        [args.detect_secrets, "scan", "--all-files", "--disable-filter", LOCKFILE_FILTER, "."], cwd=root
    )
    if row["tree"] == "lockfiles" and report.count('"type": "Basic Auth Credentials"') == 0:
        print(f"warning: {row['tree']}: detect-secrets reading lockfiles missed the planted token", file=sys.stderr)


def ratio(row: dict[str, Any], key: str) -> str:
    return f"{row[key] / row['sandkit']:.1f}x" if key in row else "skipped"


def seconds(row: dict[str, Any], key: str) -> str:
    return f"{row[key]:.2f}" if key in row else "-"


def print_lockfile_table(rows: list[dict[str, Any]]) -> None:
    """detect-secrets leaves lockfiles out by name; with that filter off it reads what sandkit reads."""
    print("\n| tree | detect-secrets s, lockfiles read | detect-secrets (lockfiles read) / sandkit |")
    print("| --- | --- | --- |")
    for r in rows:
        print(f"| {r['tree']} | {seconds(r, 'detect_locks')} | {ratio(r, 'detect_locks')} |")


def print_table(rows: list[dict[str, Any]]) -> None:
    print(
        "| tree | files | MB | read s | sandkit s (2 cores) | sandkit s (1 core) | checkov s | "
        "detect-secrets s | checkov / sandkit | detect-secrets / sandkit | "
        "sandkit / read | ms per 1k files | peak MB | planted found |"
    )
    print("|" + " --- |" * 14)
    for r in rows:
        planted = f"{r['found']:.0f}/{r['planted']:.0f}" if "planted" in r else f"- ({r['findings']} findings)"
        print(
            f"| {r['tree']} | {r['files']:.0f} | {r['mb']:.1f} | {r['read']:.2f} | {r['sandkit']:.2f} | "
            f"{r['serial']:.2f} | {seconds(r, 'checkov')} | {seconds(r, 'detect')} | "
            f"{ratio(r, 'checkov')} | {ratio(r, 'detect')} | "
            f"{r['sandkit'] / r['read']:.1f}x | {1000 * r['sandkit'] / r['files'] * 1000:.0f} | "
            f"{r['peak']:.0f} | {planted} |"
        )


if __name__ == "__main__":
    sys.exit(main())
