"""Each preset's `sandkit init` kit, built as a user would build it and run in its compose sandbox.

A user's machine pulls the presets' base images from a container registry; this machine reaches no
container registry, only the package registries. So where a base image is missing and cannot be
pulled, a stand-in of the same name is made here from what the package registries serve, shaped like
the official image in what the kit relies on (Debian bookworm, node and npm in /usr/local/bin, a user
of uid 1000), and removed after the session. A base that no registry here can make (Python 3.12:
neither Debian nor PyPI ships that interpreter) skips its preset and says why.
"""

from __future__ import annotations

import platform
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from sandkit.kits.extends import PRESET_DIR
from tests.e2e.helpers import Result, compile_kit, run

#: The host's CA bundle: the package registries are reached through a TLS-inspecting proxy here.
HOST_CA = Path("/etc/ssl/certs/ca-certificates.crt")
#: Each preset's agent and the words that ask it for its version.
VERSION_COMMANDS = {
    "aider": ["aider", "--version"],
    "claude-code": ["claude", "--version"],
    "codex": ["codex", "--version"],
    "gemini-cli": ["gemini", "--version"],
    "openhands": ["openhands", "--version"],
}
#: The Node release and npm the stand-in node image carries (the official image's major version).
NODE_VERSION = "22.23.5"
NPM_VERSION = "10.9.8"
STAND_IN_DOCKERFILE = """\
FROM debian:bookworm-slim
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\
 && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node
"""
#: Preset bases no package registry here can make.
UNMAKEABLE = {
    "python:3.12-slim-bookworm": "the openhands CLI 1.16.0 requires Python ==3.12.* (its wheel's Requires-Python); "
    "of its releases only 1.2.1 and older admit trixie's 3.13, and they have no --headless, -t or --version (their "
    "parser takes --resume and `serve` only); openhands-ai, which admits <3.14, is the server and installs no "
    "command. Python 3.12 is in no Debian release (bookworm has 3.11, trixie 3.13), PyPI and npm ship no "
    "interpreter (the npm portable-python packages and uv's managed Pythons download theirs from GitHub, which "
    "this machine does not reach), and this machine reaches no container registry",
}


@dataclass
class PresetSandbox:
    preset: str
    folder: Path  # the compiled output of the init kit
    project: str
    base: str
    skipped: str = ""  # why this preset could not be built here
    build: Result | None = None
    seconds: float = 0.0

    def compose(self, *args: str, timeout: float = 600) -> Result:
        return run(
            ["docker", "compose", "-f", str(self.folder / "compose.yaml"), "-p", self.project, *args], timeout=timeout
        )

    def version(self) -> Result:
        """The agent's --version, run in the kit's hardened agent service (its entrypoint set aside).

        Without the proxy (no egress is needed for --version) but with the deadline, whose PID namespace
        the agent service joins (without it the engine refuses to start the agent), and host-addresses,
        whose file the deadline's host guard reads before it lets the deadline run."""
        command, *args = VERSION_COMMANDS[self.preset]
        # The deadline runs the host guard first, which reads the addresses host-addresses writes.
        started = self.compose("up", "-d", "--no-deps", "--no-build", "host-addresses", "deadline", timeout=120)
        if started.returncode != 0:
            return started
        return self.compose("run", "--rm", "--no-deps", "-T", "--entrypoint", command, "agent", *args, timeout=180)


@dataclass
class StandIns:
    """Base images made here for the session, removed at its end (never one that was already there)."""

    made: list[str] = field(default_factory=list)

    def remove(self) -> None:
        if self.made:
            run(["docker", "image", "rm", *self.made])


def preset_base(preset: str) -> str:
    text = (PRESET_DIR / f"{preset}.yaml").read_text(encoding="utf-8")
    match = re.search(r"^  base: (\S+)$", text, re.MULTILINE)
    return match.group(1) if match else "debian:bookworm-slim"


def pinned_version(preset: str) -> str:
    """The agent's version as the preset pins it (npm `name@1.2.3` or pip `name==1.2.3`)."""
    text = (PRESET_DIR / f"{preset}.yaml").read_text(encoding="utf-8")
    match = re.search(r'(?:pip|npm): \["[^"]*?(?:@|==)([0-9][^"]*)"\]', text)
    assert match, preset
    return match.group(1)


def have_image(image: str) -> bool:
    """Whether the engine has ``image`` or can pull it."""
    if run(["docker", "image", "inspect", image]).returncode == 0:
        return True
    return run(["docker", "pull", "-q", image], timeout=120).returncode == 0


def _npm_pack(package: str, folder: Path) -> Path:
    """A package's tarball from the npm registry, unpacked into folder/NAME."""
    done = subprocess.run(
        ["npm", "pack", "--silent", package], cwd=folder, capture_output=True, text=True, timeout=300, check=True
    )
    tarball = folder / done.stdout.strip().splitlines()[-1]
    target = folder / package.split("@")[0]
    target.mkdir()
    subprocess.run(["tar", "-xzf", str(tarball), "-C", str(target), "--strip-components=1"], check=True)
    tarball.unlink()
    return target


def make_node_stand_in(image: str, folder: Path) -> None:
    """`image` from debian:bookworm-slim, Node from the npm registry's node-linux-* package, and npm."""
    folder.mkdir(parents=True)
    arch = {"x86_64": "x64", "aarch64": "arm64"}[platform.machine()]
    node = _npm_pack(f"node-linux-{arch}@{NODE_VERSION}", folder)
    shutil.move(str(node / "bin" / "node"), folder / "node")
    shutil.rmtree(node)
    _npm_pack(f"npm@{NPM_VERSION}", folder)
    (folder / "Dockerfile").write_text(STAND_IN_DOCKERFILE, encoding="utf-8")
    run(["docker", "build", "-q", "-t", image, str(folder)], timeout=600, check=True)


WRAPPER = """\
apiVersion: sandkit/v1
kind: Kit
name: {name}
extends: [./init.yaml]
image:
  ca_certificates: [./host-ca.pem]   # the registries are reached through a TLS-inspecting proxy here
"""


def prepare(preset: str, folder: Path, name: str) -> PresetSandbox:
    """`sandkit init --preset` as a user runs it, plus the host's CA bundle, compiled for compose."""
    folder.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "sandkit", "init", "--preset", preset, "init.yaml"],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    shutil.copyfile(HOST_CA, folder / "host-ca.pem")
    (folder / "kit.yaml").write_text(WRAPPER.format(name=name), encoding="utf-8")
    output = compile_kit(folder / "kit.yaml", folder / "sandbox")
    return PresetSandbox(preset, output, name, preset_base(preset))


def build_all(sandboxes: list[PresetSandbox]) -> None:
    """Build the agent images side by side (the work is mostly downloads), timing each."""

    def build(sandbox: PresetSandbox) -> None:
        started = time.monotonic()
        # The agent's image, and the proxy's that the deadline and host-addresses run (shared by every kit).
        sandbox.build = sandbox.compose("build", "agent", "deadline", timeout=1500)
        sandbox.seconds = time.monotonic() - started

    with ThreadPoolExecutor(max_workers=len(sandboxes) or 1) as pool:
        list(pool.map(build, [s for s in sandboxes if not s.skipped]))
