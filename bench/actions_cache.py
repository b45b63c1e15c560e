"""The GitHub Actions job, played: time to the agent's first command, cold and warm (the image cache).

The generated workflow's steps from the image builder to the agent run as tests/compiler/test_actions_docker.py
plays them: `run:` steps as written, the two build actions with the engine's own builder and a folder
standing in for the Actions cache (tests/compiler/buildx_play.py says what that stand-in is and is not).
A kit on the Debian base installs one package (curl) and runs with no network. Each round takes a new uid,
so every layer after FROM is its own: the cold run finds nothing (no cache entry, no image, no builder
record of its steps) and writes the cache; then the image and the builder's records go, as on a fresh
runner, and the warm run has only the cache. The time runs from the first build step to the agent's
first line; the base image is on the engine in both (a runner pulls it in both). Medians of ``--runs``.

    python bench/actions_cache.py [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from ruamel.yaml import YAML  # noqa: E402

from tests.compiler import buildx_play  # noqa: E402

MARKER = "SKBENCH-AGENT-FIRST"
KIT = """\
apiVersion: sandkit/v1
name: {name}
image: {{base: "debian:bookworm-slim", uid: {uid}, packages: {{apt: [curl]}}}}
agent: {{command: [bash, -c, "echo {marker}"]}}
network: {{egress: none}}
workspace: {{mode: none}}
resources: {{cpus: 1, memory: 256Mi, timeout: 5m}}
triggers: [{{manual: {{}}}}]
"""


def _runner(folder: Path) -> dict[str, str]:
    temp = folder / "runner-temp"
    temp.mkdir(parents=True, exist_ok=True)
    (folder / "event.json").write_text("{}", encoding="utf-8")
    (folder / "output").touch()
    return {
        "GITHUB_EVENT_NAME": "workflow_dispatch",
        "GITHUB_EVENT_PATH": str(folder / "event.json"),
        "GITHUB_OUTPUT": str(folder / "output"),
        "GITHUB_STEP_SUMMARY": str(folder / "summary.md"),
        "RUNNER_TEMP": str(temp),
    }


def _command(step: dict[str, Any], runner: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    own = {k: buildx_play.OUTPUTS.get(str(v), str(v)) for k, v in step.get("env", {}).items()}
    return ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]], {**os.environ, **runner, **own}


def _until_first_line(step: dict[str, Any], runner: dict[str, str], cwd: Path) -> float:
    """Start the agent's step; the moment its output shows the agent's first line."""
    argv, env = _command(step, runner)
    process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    seen = None
    for line in process.stdout:
        if seen is None and MARKER in line:
            seen = time.monotonic()
    process.wait(300)
    if seen is None:
        raise SystemExit(f"the agent's step ended ({process.returncode}) without the agent's first line")
    return seen


def play(steps: list[dict[str, Any]], cwd: Path, runner: dict[str, str], cache: Path) -> tuple[float, str]:
    """The job from the builder to the agent's first line (seconds), and the builds' output."""
    start = next(i for i, s in enumerate(steps) if buildx_play.is_build_action(s))
    agent = next(i for i, s in enumerate(steps) if s["name"] == "Run the agent in its sandbox")
    began, log = time.monotonic(), ""
    try:
        for step in steps[start:agent]:
            if "vars." in str(step.get("if", "")):  # sandkit verify's probe step: off unless a variable says
                continue
            if buildx_play.is_build_action(step):
                done = buildx_play.play(step, cwd, cache)
            else:
                argv, env = _command(step, runner)
                done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
            log += done.stdout + done.stderr
            if done.returncode != 0:
                raise SystemExit(f"{step['name']} failed:\n{done.stdout}{done.stderr}")
        return _until_first_line(steps[agent], runner, cwd) - began, log
    finally:
        cleanup = next(s for s in steps if s["name"] == "Remove the sandbox")
        argv, env = _command(cleanup, runner)
        subprocess.run(argv, cwd=cwd, env=env, capture_output=True, check=False)


def one_round(folder: Path) -> tuple[float, float]:
    name = f"skbench-{secrets.token_hex(3)}-cache"
    kit = KIT.format(name=name, uid=20000 + secrets.randbelow(30000), marker=MARKER)
    (folder / "kit.yaml").write_text(kit, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    subprocess.run(
        [sys.executable, "-m", "sandkit", "build", "kit.yaml", "-o", "out", "-q", "--target", "actions"],
        cwd=folder,
        env=env,
        check=True,
    )
    steps = YAML(typ="safe").load((folder / f"out/{name}/workflows/{name}.yml").read_text())["jobs"]["agent"]["steps"]
    build = next(s for s in steps if buildx_play.is_build_action(s) and "cache-to" in s.get("with", {}))
    image, dockerfile = str(build["with"]["tags"]), folder / str(build["with"]["file"])
    cache = folder / "cache"
    cache.mkdir()
    times = []
    start = set(buildx_play.build_records())
    try:
        for run in ("cold", "warm"):
            before = set(buildx_play.build_records())
            seconds, log = play(steps, folder, _runner(folder / run), cache)
            cached = buildx_play.vertices(log)
            if not cached or set(cached.values()) != {run == "warm"}:  # every RUN from the cache, or none
                raise SystemExit(f"the {run} run's steps were not as expected: {cached}")
            times.append(seconds)
            buildx_play.forget([image], [dockerfile], before)
    finally:
        buildx_play.forget([image, buildx_play.cache_tag(buildx_play.scope(build))], [dockerfile], start)
    return times[0], times[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    arguments = parser.parse_args()
    load = os.getloadavg()
    rounds = []
    for _ in range(arguments.runs):
        with tempfile.TemporaryDirectory(prefix="skbench-cache-") as folder:
            rounds.append(one_round(Path(folder)))
            print(f"cold {rounds[-1][0]:.1f} s, warm {rounds[-1][1]:.1f} s", flush=True)
    cold, warm = (statistics.median(r[i] for r in rounds) for i in (0, 1))
    summary = {
        "runs": arguments.runs,
        "cold_median_s": round(cold, 1),
        "warm_median_s": round(warm, 1),
        "load_average_start": [round(x, 2) for x in load],
        "load_average_end": [round(x, 2) for x in os.getloadavg()],
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
