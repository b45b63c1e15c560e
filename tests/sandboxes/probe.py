"""Run INSIDE a process sandbox: try what an agent might try and print what happened, as JSON.

Standard library only, and no import of sandkit or the tests (the sandbox sees the host's
python3 and nothing is installed for it). One JSON argument says what to try:

- ``reach``: ``host:port`` names to open through the proxy the sandbox gives its commands
  (``HTTPS_PROXY``), by CONNECT, the way an HTTPS client does; each becomes the first line of what
  the far end answered, or why it failed (the proxy's refusal, or no proxy at all);
- ``direct``: ``ip:port`` addresses to connect to without any proxy;
- ``write``: paths to create; ``read``: paths to read; ``env``: variable names to report;
- ``unix``: a listening Unix socket of the host to connect to (as a command would reach docker.sock).
"""

from __future__ import annotations

import base64
import json
import os
import socket
import sys
import urllib.parse

TIMEOUT = 10


def _proxy() -> tuple[str, int, str | None] | None:
    url = os.environ.get("HTTPS_PROXY") or os.environ.get("https_proxy")
    if not url:
        return None
    parts = urllib.parse.urlsplit(url)
    auth = None
    if parts.username is not None:
        user = urllib.parse.unquote(parts.username)
        password = urllib.parse.unquote(parts.password or "")
        auth = base64.b64encode(f"{user}:{password}".encode()).decode()
    return parts.hostname or "", parts.port or 80, auth


def _read(sock: socket.socket, until: bytes | None, step: int) -> bytes:
    """What the far end sends, up to 64 KiB: until ``until`` (read a byte at a time, so nothing past
    the proxy's answer is taken from the tunnel) or, with None, until it closes."""
    data = b""
    while (until is None or until not in data) and len(data) < 65536:
        chunk = sock.recv(step)
        if not chunk:
            break
        data += chunk
    return data


def reach(target: str) -> str:
    proxy = _proxy()
    if proxy is None:
        return "no proxy"
    host, port, auth = proxy
    try:
        with socket.create_connection((host, port), timeout=TIMEOUT) as sock:
            header = f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n"
            if auth:
                header += f"Proxy-Authorization: Basic {auth}\r\n"
            sock.sendall((header + "\r\n").encode())
            line = _read(sock, b"\r\n\r\n", 1).split(b"\r\n", 1)[0].decode("latin-1")
            if " 200" not in line:
                return f"refused: {line}"
            sock.sendall(f"GET / HTTP/1.1\r\nHost: {target}\r\nConnection: close\r\n\r\n".encode())
            return _read(sock, None, 4096).rsplit(b"\r\n\r\n", 1)[-1].decode("latin-1").strip()
    except OSError as error:
        return f"error: {error.__class__.__name__}: {error}"


def direct(address: str) -> str:
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=TIMEOUT):
            return "connected"
    except OSError as error:
        return f"error: {error.__class__.__name__}"


def write(path: str) -> str:
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("written from inside the sandbox\n")
        return "written"
    except OSError as error:
        return f"error: {error.strerror}"


def read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read(4096)
    except OSError as error:
        return f"error: {error.strerror}"


def unix_socket(path: str) -> str:
    try:
        with socket.socket(socket.AF_UNIX) as sock:
            sock.settimeout(TIMEOUT)
            sock.connect(path)
        return "connected"
    except OSError as error:
        return f"error: {error.strerror}"


def main() -> None:
    asked = json.loads(sys.argv[1])
    found = {
        "reach": {t: reach(t) for t in asked.get("reach", [])},
        "direct": {a: direct(a) for a in asked.get("direct", [])},
        "write": {p: write(p) for p in asked.get("write", [])},
        "read": {p: read(p) for p in asked.get("read", [])},
        "env": {n: os.environ.get(n) for n in asked.get("env", [])},
        "unix": unix_socket(asked["unix"]) if asked.get("unix") else None,
    }
    print(json.dumps(found))


if __name__ == "__main__":
    main()
