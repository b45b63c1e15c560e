"""A stand-in for the internet in the end-to-end tests.

Answers every HTTP request on port 8080 (and HTTPS on 8443 when /certs holds a key pair) with its
own name and the Host header it was asked for, and serves /srv/git as a dumb-HTTP git server, so a
test can tell which server (if any) a request from the sandbox reached. /srv/private is served the
same way to a request that carries the token in PRIVATE_TOKEN_FILE as its Basic password (a private
repository, as a forge serves one over https); any other gets 401 and a Basic challenge, as git
expects. Every request is logged to stdout, which the tests read to prove that a refused request
never arrived.
"""

from __future__ import annotations

import base64
import hmac
import http.server
import os
import ssl
import sys
import threading
from pathlib import Path

SERVER_ID = os.environ.get("SERVER_ID", "outside")
GIT_ROOT = "/srv"
CERT, KEY = Path("/certs/server.pem"), Path("/certs/server.key")
LOG_LOCK = threading.Lock()
PRIVATE_TOKEN_FILE = Path(os.environ.get("PRIVATE_TOKEN_FILE", "/run/outside/private-token"))


class Handler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, directory=GIT_ROOT, **kwargs)  # type: ignore[arg-type]

    def do_GET(self) -> None:
        if self.path.startswith("/private/") and not self._authorised():
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="private"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if self.path.startswith(("/git/", "/private/")):
            super().do_GET()
            return
        if self.path.startswith("/headers"):  # what arrived, for the injection tests
            self._reply("".join(f"header {name.lower()}: {value}\n" for name, value in self.headers.items()))
            return
        host = self.headers.get("Host", "")
        self._reply(f"sandkit-e2e-outside server={SERVER_ID} host={host} path={self.path}\n")

    def _reply(self, text: str) -> None:
        body = text.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _authorised(self) -> bool:
        """Whether the request's Basic password is the private token (any user name, as GitHub's)."""
        try:
            token = PRIVATE_TOKEN_FILE.read_text().strip()
        except OSError:
            return False
        scheme, _, encoded = self.headers.get("Authorization", "").partition(" ")
        if scheme.lower() != "basic" or not token:
            return False
        try:
            password = base64.b64decode(encoded, validate=True).decode().partition(":")[2]
        except ValueError:
            return False
        return hmac.compare_digest(password, token)

    def log_message(self, format: str, *args: object) -> None:
        line = f"request server={SERVER_ID} client={self.client_address[0]} {format % args}\n"
        with LOG_LOCK:  # one write per line: requests on several threads must not interleave in the log
            sys.stdout.write(line)
            sys.stdout.flush()


def serve(port: int, context: ssl.SSLContext | None) -> None:
    server = http.server.ThreadingHTTPServer(("0.0.0.0", port), Handler)
    if context is not None:
        server.socket = context.wrap_socket(server.socket, server_side=True)
    server.serve_forever()


def main() -> None:
    threads = [threading.Thread(target=serve, args=(8080, None), daemon=True)]
    if CERT.exists() and KEY.exists():
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(CERT, KEY)
        threads.append(threading.Thread(target=serve, args=(8443, context), daemon=True))
    for thread in threads:
        thread.start()
    print(f"listening server={SERVER_ID}", flush=True)
    for thread in threads:
        thread.join()


if __name__ == "__main__":
    main()
