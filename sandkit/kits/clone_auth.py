"""How a kit's clone authenticates: a token for an https repository, by the name of one of its secrets.

The token never reaches the repository's URL, a command line or a file of the image: git asks the
image's credential helper for it when the server asks, and the helper answers only for the
repository's own host (a redirect elsewhere gets nothing).
"""

from __future__ import annotations

import re
from typing import Annotated
from urllib.parse import urlsplit

from pydantic import AfterValidator

_USERNAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def _username(value: str) -> str:
    if not _USERNAME.fullmatch(value):
        raise ValueError("must be a user name of letters, digits, '.', '_' and '-'")
    return value


TokenUsername = Annotated[str, AfterValidator(_username)]


def token_problem(repo: str | None, token: str | None) -> str | None:
    """What is wrong with ``token`` for ``repo``; ``@token`` in front locates it at its key."""
    if token is None:
        return None
    if repo is None:
        return "@token needs `repo`, the repository to clone"
    parts = urlsplit(repo) if "://" in repo else None
    if parts is None or parts.scheme != "https":
        kind = parts.scheme if parts is not None else "ssh"
        why = "would cross the network in clear" if kind == "http" else f"is for https repositories, not {kind}"
        return f"@token a token {why}"
    if parts.username is not None or parts.password is not None:
        return "@token the token replaces a user or password in the URL: take it out of `repo`"
    return None


def credential_host(repo: str) -> str:
    """The ``host`` git names when it asks for the repository's credential: host, and port when the URL gives one."""
    return urlsplit(repo).netloc
