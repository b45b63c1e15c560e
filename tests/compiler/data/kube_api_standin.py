"""A stand-in for the Kubernetes API calls of sandkit's egress authority Job (tests/compiler/test_kubernetes_docker.py).

It answers ``GET`` and ``PATCH`` (a JSON merge patch) of ``/api/v1/namespaces/NS/configmaps/NAME`` and
``.../secrets/NAME`` over TLS, as the API server does, after the checks the API server makes for those
calls: the bearer token is the pod's ServiceAccount token, and the generated Role allows the verb on
that resource and name (RBAC's rules for a namespaced core resource; no aggregation, no cluster roles).
It keeps the ConfigMaps and Secrets in store.json (by name; a name's kind must match the resource),
which the test reads as the API server's state. What it does not play: authentication by a signed
token, admission, resourceVersion conflicts, watch. Every request is logged on stdout.

The folder STANDIN_DIR holds token, rules.json, store.json and, once the test has made it for this
container's address, server.pem and server.key (it waits for them).
"""

from __future__ import annotations

import hmac
import http.server
import json
import os
import re
import ssl
import sys
import time
from pathlib import Path
from typing import Any

FOLDER = Path(os.environ["STANDIN_DIR"])
NAMESPACE = os.environ["STANDIN_NAMESPACE"]
PATH = re.compile(r"/api/v1/namespaces/([a-z0-9-]{1,63})/(configmaps|secrets)/([a-z0-9.-]{1,253})")
KINDS = {"configmaps": "ConfigMap", "secrets": "Secret"}


def allowed(verb: str, resource: str, name: str) -> bool:
    rules: list[dict[str, Any]] = json.loads((FOLDER / "rules.json").read_text())
    return any(
        "" in rule.get("apiGroups", [])
        and resource in rule.get("resources", [])
        and verb in rule.get("verbs", [])
        and (not rule.get("resourceNames") or name in rule["resourceNames"])
        for rule in rules
    )


def merge(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch."""
    if not isinstance(patch, dict):
        return patch
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge(result.get(key), value)
    return result


class Handler(http.server.BaseHTTPRequestHandler):
    def do_PATCH(self) -> None:
        found = self._authorized("patch")
        if found is None:
            return
        store, name = found
        if self.headers.get("Content-Type") != "application/merge-patch+json":
            self._reply(415, {"reason": "UnsupportedMediaType"})
            return
        patch = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        store[name] = merge(store[name], patch)
        (FOLDER / "store.json.new").write_text(json.dumps(store))
        (FOLDER / "store.json.new").replace(FOLDER / "store.json")
        self._reply(200, store[name])

    def do_GET(self) -> None:
        found = self._authorized("get")
        if found is not None:
            store, name = found
            self._reply(200, store[name])

    def _authorized(self, verb: str) -> tuple[dict[str, Any], str] | None:
        """The store and the object's name when the token and the Role allow ``verb`` on it; else the refusal."""
        token = (FOLDER / "token").read_text().strip()
        given = self.headers.get("Authorization", "")
        if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
            self._reply(401, {"reason": "Unauthorized"})
            return None
        match = PATH.fullmatch(self.path)
        if match is None or match[1] != NAMESPACE:
            self._reply(404, {"reason": "NotFound"})
            return None
        resource, name = match[2], match[3]
        if not allowed(verb, resource, name):
            self._reply(403, {"reason": "Forbidden"})
            return None
        store: dict[str, Any] = json.loads((FOLDER / "store.json").read_text())
        if store.get(name, {}).get("kind") != KINDS[resource]:
            self._reply(404, {"reason": "NotFound"})
            return None
        return store, name

    def do_PUT(self) -> None:
        self._reply(405, {"reason": "MethodNotAllowed"})

    do_POST = do_DELETE = do_PUT

    def _reply(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        sys.stdout.write(f"standin {format % args}\n")
        sys.stdout.flush()


def main() -> None:
    deadline = time.monotonic() + 60
    while not (FOLDER / "server.key").exists():
        if time.monotonic() > deadline:
            raise SystemExit("no certificate arrived")
        time.sleep(0.2)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(FOLDER / "server.pem", FOLDER / "server.key")
    server = http.server.ThreadingHTTPServer(("0.0.0.0", 6443), Handler)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    print("standin listening", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
