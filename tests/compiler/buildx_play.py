"""The generated workflow's image builds, played with the real engine where GitHub is not.

On GitHub, setup-buildx-action starts a BuildKit container (the docker-container driver) and
build-push-action runs `docker buildx build --load` on it with the Actions cache (``type=gha``). Neither
is here: no runner's cache service, and no BuildKit image for the docker-container driver (nothing is
pulled). So the play stands in for the two actions with the engine's own builder (buildx's docker
driver, BuildKit inside dockerd) and the same inputs, and for the cache service with a folder:

- ``cache-to: type=gha,...`` becomes ``--cache-to type=inline`` (the only cache export the docker driver
  has; inline holds the image's own layers, what ``mode=min`` writes), and once the build succeeds the
  image is saved into the folder under its scope, as the cache service would keep the entry;
- ``cache-from: type=gha,scope=S`` loads scope S's entry from the folder, if there is one, under a tag
  of its own and hands it to the build as ``--cache-from``; the build's own tag is never a cache source.

What the stand-in shares with the real thing is BuildKit's cache import: a layer the cache holds is
taken (``CACHED``) and its instruction does not run. What it does not play: the cache service's token
and scopes (GitHub's own), and the builder's removal (there is no builder of the job's to remove, so
``steps.buildx.outputs.name`` is empty, as the removal step allows).
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

SETUP_BUILDX = "docker/setup-buildx-action@"
BUILD_PUSH = "docker/build-push-action@"
#: The expressions of the build steps the play gives a value, as the runner would.
OUTPUTS = {"${{ steps.buildx.outputs.name }}": ""}


def is_build_action(step: dict[str, Any]) -> bool:
    return str(step.get("uses", "")).startswith((SETUP_BUILDX, BUILD_PUSH))


def runs_for(step: dict[str, Any], event: str) -> bool:
    """Whether a build step's ``if:`` (an event-name test of sandkit's own, or none) holds for ``event``."""
    condition = str(step.get("if", ""))
    if not condition:
        return True
    body = condition.removeprefix("${{ ").removesuffix(" }}")
    if " == " in body:
        return any(part.split(" == ")[1].strip("'") == event for part in body.split(" || "))
    return all(part.split(" != ")[1].strip("'") != event for part in body.split(" && "))


def scope(step: dict[str, Any]) -> str:
    """The cache scope a build step reads (``type=gha,scope=S``)."""
    attributes = dict(item.split("=", 1) for item in str(step["with"]["cache-from"]).split(","))
    assert attributes["type"] == "gha", step["with"]
    return attributes["scope"]


def cache_tag(name: str) -> str:
    return f"sandkit-play-cache/{name}:entry"


def play(step: dict[str, Any], cwd: Path, cache: Path | None) -> subprocess.CompletedProcess[str]:
    """One of the two build actions as it would act (see the module docstring); ``cache``: the folder that
    stands in for the Actions cache (None: a build with no cache at all)."""
    if str(step["uses"]).startswith(SETUP_BUILDX):
        return subprocess.CompletedProcess(["setup-buildx"], 0, "", "")
    given = step["with"]
    command = ["docker", "buildx", "build", "--builder", "default", "--load", "--progress", "plain"]
    command += ["--provenance=false", "--tag", str(given["tags"]), "--file", str(given["file"])]
    name = scope(step)
    entry = cache / f"{name}.tar" if cache is not None else None
    if entry is not None and entry.is_file():
        subprocess.run(["docker", "load", "--quiet", "--input", str(entry)], check=True, capture_output=True)
        command += ["--cache-from", f"type=registry,ref={cache_tag(name)}"]
    writes = "cache-to" in given and entry is not None
    if writes:
        command += ["--cache-to", "type=inline"]
    try:
        done = subprocess.run(
            [*command, "--", str(given["context"])], cwd=cwd, capture_output=True, text=True, timeout=1200
        )
        if writes and done.returncode == 0:
            assert entry is not None
            subprocess.run(["docker", "tag", str(given["tags"]), cache_tag(name)], check=True, capture_output=True)
            subprocess.run(["docker", "save", "--output", str(entry), cache_tag(name)], check=True)
    finally:
        subprocess.run(["docker", "rmi", cache_tag(name)], capture_output=True, check=False)
    return done


def build_records() -> dict[str, str]:
    """The engine builder's cache records: ID to description."""
    listing = subprocess.run(
        ["docker", "buildx", "du", "--builder", "default", "--verbose"], capture_output=True, text=True, check=True
    ).stdout
    records, current = {}, ""
    for line in listing.splitlines():
        key, _, value = line.partition(":")
        if key == "ID":
            current = value.strip()
        elif key == "Description" and current:
            records[current] = value.strip()
    return records


def instructions(dockerfile: Path) -> list[str]:
    """How BuildKit's records describe the Dockerfile's steps: the start of each RUN's command (its first
    line), and each COPY or WORKDIR as written (a record taken from a cache holds the image's history)."""
    out = []
    for line in dockerfile.read_text(encoding="utf-8").splitlines():
        if line.startswith("RUN "):
            out.append(line[4:].split("\\")[0].strip())
        elif line.startswith(("COPY ", "WORKDIR ")):  # the history leaves out COPY's flags
            out.append(" ".join(word for word in line.split() if not word.startswith("--"))[:40])
    return out


#: How the builder describes the result of a COPY or WORKDIR it ran.
FILE_STEP = "fileop target"


def forget(images: list[str], dockerfiles: list[Path], before: set[str]) -> None:
    """What a fresh runner would not have: the built images, and the builder's records made since
    ``before`` (the record IDs then) of the Dockerfiles' steps. A record of a later step alone would let
    BuildKit skip the earlier ones, so every step's goes (another build's COPY made meanwhile too)."""
    subprocess.run(["docker", "rmi", "--force", *images], capture_output=True, check=False)
    texts = [FILE_STEP, *(text for dockerfile in dockerfiles for text in instructions(dockerfile))]
    left: set[str] = set()
    for _ in range(6):  # a record goes only once the records made on it have gone: the last step's first
        records = build_records()
        ours = {r for r, description in records.items() if r not in before and any(t in description for t in texts)}
        if not ours or ours == left:  # what is still in use (another build's meanwhile) stays; the test's
            return  # run without the cache entry shows whether anything of this build stayed
        left = ours
        for record in ours:  # one filter value a call (the engine refuses more)
            subprocess.run(["docker", "builder", "prune", "--force", "--filter", f"id={record}"], capture_output=True)


def vertices(log: str) -> dict[str, bool]:
    """From a plain-progress build log: each RUN instruction and whether BuildKit took it from a cache."""
    steps: dict[str, str] = {}
    cached: set[str] = set()
    for line in log.splitlines():
        number, _, rest = line.partition(" ")
        if not number.startswith("#"):
            continue
        if rest.startswith("[") and "] RUN " in rest:
            steps[number] = rest.split("] RUN ", 1)[1]
        elif rest == "CACHED":
            cached.add(number)
    return {command: number in cached for number, command in steps.items()}
