"""What the process-sandbox tests share: where the sandboxes are, a stand-in for the outside world,
folders of a pretend host, and one way to run the probe under a sandbox.

The sandboxes are those scripts/setup-sandboxes.sh installs (srt and the Codex CLI from the npm
registry at the versions of scripts/sandboxes/package-lock.json; bubblewrap, socat and ripgrep
from Debian) under $SANDKIT_SANDBOXES_DIR (/opt/sandkit-sandboxes).

The outside world is one local server, :class:`World`. srt's proxy decides by host name and then
dials the host itself, refusing a name that resolves to this machine (its resolved-address check);
given an upstream proxy in its own environment (HTTPS_PROXY, as behind a corporate proxy) it hands
every connection it allows to that proxy instead, by name. The World is that upstream proxy and
answers for every host itself ("reached HOST:PORT"), recording what it was asked for. So a test
proves srt's decision (what it lets out and what it refuses, by the kit's names and ports) and that
nothing leaves the sandbox except through srt; it does not exercise srt dialing a real address, or
its resolved-address check, which only a real network would.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import socket
import socketserver
import subprocess
import tempfile
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

SANDBOXES_DIR = Path(os.environ.get("SANDKIT_SANDBOXES_DIR", "/opt/sandkit-sandboxes"))
BIN = SANDBOXES_DIR / "node_modules" / ".bin"
PROBE = Path(__file__).with_name("probe.py")
#: Folders a sandbox lets its commands write (/tmp, $TMPDIR) must not hold the pretend host, or every
#: write would succeed for that reason alone: the tests' folders live here instead.
HOST_ROOT = Path("/var/tmp")
#: How long one sandboxed probe may take (srt starts in about half a second, Codex in less).
RUN_TIMEOUT = 120


@functools.cache
def unavailable() -> str | None:
    """Why the process sandboxes cannot run here (None when they can)."""
    for tool in ("srt", "codex", "node"):
        if not (BIN / tool).exists():
            return f"{BIN / tool} is missing: run scripts/setup-sandboxes.sh"
    for tool in ("bwrap", "socat", "rg", "python3"):
        if shutil.which(tool) is None:
            return f"{tool} is not on PATH: run scripts/setup-sandboxes.sh"
    probe = subprocess.run(
        ["bwrap", "--ro-bind", "/", "/", "--unshare-all", "--", "true"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if probe.returncode != 0:
        return f"bubblewrap cannot create its namespaces here (user namespaces off?): {probe.stderr.strip()}"
    return None


def tool_env(**extra: str) -> dict[str, str]:
    """A clean environment for a sandbox tool: the installed tools first on PATH, no proxy but ``extra``."""
    keep = {k: v for k, v in os.environ.items() if k in ("LANG", "LC_ALL", "TERM")}
    path = os.pathsep.join([str(BIN), "/usr/local/bin", "/usr/bin", "/bin"])
    return {**keep, "PATH": path, **extra}


class _WorldHandler(socketserver.StreamRequestHandler):
    server: _WorldServer

    def handle(self) -> None:
        head = self.rfile.readline(8192).decode("latin-1").split()
        while self.rfile.readline(8192) not in (b"\r\n", b"\n", b""):
            pass
        if len(head) < 2:
            return
        method, target = head[0], head[1]
        if method == "CONNECT":
            self.server.seen.append(target)
            self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            while self.rfile.readline(8192) not in (b"\r\n", b"\n", b""):  # the request inside the tunnel
                pass
        else:  # a plain request in absolute form: http://host[:port]/path
            rest = target.split("://", 1)[-1].split("/", 1)[0]
            target = rest if ":" in rest else rest + ":80"
            self.server.seen.append(target)
        body = f"reached {target}\n".encode()
        self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(body), body))


class _WorldServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    seen: list[str]


@dataclass
class World:
    """The outside: an upstream proxy on 127.0.0.1 that answers for every host:port it is asked for."""

    server: _WorldServer

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def seen(self) -> list[str]:
        return self.server.seen


@contextmanager
def world() -> Iterator[World]:
    server = _WorldServer(("127.0.0.1", 0), _WorldHandler)
    server.seen = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield World(server)
    finally:
        server.shutdown()
        server.server_close()


#: What a credential file of the pretend host holds: a probe that reads it prints this.
SECRET_TEXT = "pretend-private-key\n"


#: The credential files of the pretend home (under the folders the settings deny).
CREDENTIAL_FILES = (".ssh/id_ed25519", ".aws/credentials", ".config/gh/hosts.yml", ".kube/config", ".netrc")


@dataclass
class Host:
    """A pretend developer host outside /tmp: a home with credential folders, a project, a folder beside.

    ``owner``: the uid the sandbox runs as (None: this process's); the tree is handed to it, and every
    file is readable by it, so a refused read is the sandbox's doing, not the file's mode.
    """

    root: Path
    owner: int | None = None
    home: Path = field(init=False)
    project: Path = field(init=False)
    elsewhere: Path = field(init=False)
    probe: Path = field(init=False)
    #: A file the probe may create in /tmp (removed with the host).
    in_tmp: Path = field(init=False)
    #: A Unix socket of the host, listening (as a Docker daemon's would be).
    unix_socket: Path = field(init=False)

    def __post_init__(self) -> None:
        self.in_tmp = Path("/tmp") / f"{self.root.name}-probe"
        self.home = self.root / "home"
        self.project = self.root / "project"
        self.elsewhere = self.root / "elsewhere"
        for folder in (self.home, self.project, self.elsewhere):
            folder.mkdir(parents=True)
        for path in self.credentials:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(SECRET_TEXT, encoding="utf-8")
        (self.project / "README.md").write_text("the project\n", encoding="utf-8")
        self.probe = self.root / "probe.py"
        shutil.copyfile(PROBE, self.probe)
        self.unix_socket = self.root / "daemon.sock"
        self._listener = socket.socket(socket.AF_UNIX)
        self._listener.bind(str(self.unix_socket))
        self._listener.listen(8)

    @property
    def writes(self) -> list[str]:
        """Where the probe tries to write: the project, a folder beside it, the home, /tmp."""
        return [str(p) for p in (self.project / "written.txt", self.elsewhere / "x", self.home / "x", self.in_tmp)]

    @property
    def credentials(self) -> list[Path]:
        return [self.home / relative for relative in CREDENTIAL_FILES]

    def hand_over(self) -> None:
        """Give the tree to its owner, readable by it (call once the test has written its files); the
        socket is open to everyone, so a refused connection is the sandbox's doing."""
        for path in [self.root, *self.root.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o777 if path.is_socket() else 0o644)
            if self.owner is not None:
                os.chown(path, self.owner, self.owner)

    def close(self) -> None:
        self._listener.close()

    def as_owner(self) -> list[str]:
        """The prefix that runs a command as the owner (none for this process's own uid)."""
        if self.owner is None or self.owner == os.geteuid():
            return []
        return ["setpriv", f"--reuid={self.owner}", f"--regid={self.owner}", "--clear-groups", "--"]


@contextmanager
def pretend_host(owner: int | None = None) -> Iterator[Host]:
    root = Path(tempfile.mkdtemp(prefix="sandkit-host-", dir=HOST_ROOT))
    host = Host(root, owner)
    try:
        yield host
    finally:
        host.close()
        shutil.rmtree(root, ignore_errors=True)
        host.in_tmp.unlink(missing_ok=True)


def run_probe(
    prefix: Sequence[str], asked: dict[str, Any], *, cwd: Path, env: dict[str, str], probe: Path = PROBE
) -> dict[str, Any]:
    """Run the probe (the host's python3) as ``prefix + probe``; what it found, or a failure with the output."""
    done = subprocess.run(
        [*prefix, "python3", str(probe), json.dumps(asked)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        pytest.fail(f"{' '.join(prefix)} exited {done.returncode}\nstdout: {done.stdout}\nstderr: {done.stderr}")
    found: dict[str, Any] = json.loads(lines[-1])
    return found
