"""How a kit's clone authenticates: a token for an https repository, a key and pinned host keys for ssh.

The token and the key are names of the kit's secrets, never values. The token never reaches the
repository's URL, a command line or a file of the image: git asks the image's credential helper for
it when the server asks, and the helper answers only for the repository's own host (a redirect
elsewhere gets nothing). An ssh clone trusts the host keys the kit pins and nothing else, so each
line is parsed here (hosts, key type, and a key blob that really is a key of that type) and one must
name the repository's host: a typo would otherwise surface only as a failed clone in the sandbox.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator

from sandkit.kits.fields import no_control, repo_host_port

_USERNAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
#: A known_hosts host: a name or address as ssh writes it, or ``[name]:port`` off port 22.
_HOST = re.compile(r"[a-z0-9][a-z0-9.:-]{0,252}")
_BRACKETED = re.compile(r"\[([a-z0-9][a-z0-9.:-]{0,252})\]:([0-9]{1,5})")
#: The host key types OpenSSH checks a server against (DSA is gone from it).
HOST_KEY_TYPES = frozenset(
    {
        "ssh-ed25519",
        "ssh-rsa",
        "ecdsa-sha2-nistp256",
        "ecdsa-sha2-nistp384",
        "ecdsa-sha2-nistp521",
    }
)
MAX_KNOWN_HOST = 4096
MAX_KNOWN_HOSTS = 32

RepoKind = Literal["https", "http", "ssh", "git"]


def _username(value: str) -> str:
    if not _USERNAME.fullmatch(value):
        raise ValueError("must be a user name of letters, digits, '.', '_' and '-'")
    return value


TokenUsername = Annotated[str, AfterValidator(_username)]


def repo_kind(url: str) -> RepoKind:
    """How a clone of ``url`` connects: ``git@host:path`` is ssh."""
    scheme = urlsplit(url).scheme if "://" in url else "ssh"
    return scheme if scheme in ("https", "http", "git") else "ssh"  # type: ignore[return-value]


def _host_entry(entry: str) -> tuple[str, int]:
    """One host of a known_hosts line: ``name`` (port 22) or ``[name]:port``."""
    if entry.startswith("|"):
        raise ValueError("a hashed host name cannot be checked against workspace.repo; write the host's name")
    if any(c in entry for c in "*?!"):
        raise ValueError(f"{entry!r}: a pinned host is one exact name, not a pattern")
    bracketed = _BRACKETED.fullmatch(entry)
    if bracketed:
        host, port = bracketed.group(1), int(bracketed.group(2))
    elif _HOST.fullmatch(entry):
        host, port = entry, 22
    else:
        raise ValueError(f"{entry!r} is not a host name (lowercase) or [name]:port")
    if not 1 <= port <= 65535:
        raise ValueError(f"port {port} must be from 1 to 65535")
    return host, port


def known_host_hosts(line: str) -> set[tuple[str, int]]:
    """The host:port pairs a valid known_hosts line names."""
    return {_host_entry(entry) for entry in line.split()[0].split(",")}


def _key_type_in(blob: str) -> str | None:
    """The key type written at the start of an ssh public key blob (a length-prefixed string)."""
    try:
        data = base64.b64decode(blob, validate=True)
    except (binascii.Error, ValueError):
        return None
    length = int.from_bytes(data[:4], "big") if len(data) >= 4 else 0
    if not 0 < length <= 64 or len(data) < 4 + length:
        return None
    return data[4 : 4 + length].decode("ascii", errors="replace")


def _known_host(value: str) -> str:
    no_control(value)
    if len(value) > MAX_KNOWN_HOST:
        raise ValueError(f"a known_hosts line has at most {MAX_KNOWN_HOST} characters")
    if value.startswith("@"):
        raise ValueError("markers (@cert-authority, @revoked) are not supported; pin the host's own key")
    parts = value.split()
    if len(parts) < 3:
        raise ValueError("must be a known_hosts line, `HOST KEY-TYPE BASE64-KEY`, as ssh-keyscan prints it")
    known_host_hosts(value)
    key_type, blob = parts[1], parts[2]
    if key_type not in HOST_KEY_TYPES:
        raise ValueError(f"{key_type!r} is not an ssh host key type ({', '.join(sorted(HOST_KEY_TYPES))})")
    if _key_type_in(blob) != key_type:
        raise ValueError(f"the key is not a {key_type} key (its base64 does not decode to one)")
    return value


KnownHost = Annotated[str, AfterValidator(_known_host)]


def token_problem(repo: str | None, token: str | None) -> str | None:
    """What is wrong with ``token`` for ``repo``; ``@token`` in front locates it at its key."""
    if token is None:
        return None
    if repo is None:
        return "@token needs `repo`, the repository to clone"
    kind = repo_kind(repo)
    if kind != "https":
        why = "would cross the network in clear" if kind == "http" else f"is for https repositories, not {kind}"
        return f"@token a token {why}" + ("; an ssh repository takes `ssh_key`" if kind == "ssh" else "")
    parts = urlsplit(repo)
    if parts.username is not None or parts.password is not None:
        return "@token the token replaces a user or password in the URL: take it out of `repo`"
    return None


def ssh_problem(repo: str | None, ssh_key: str | None, known_hosts: list[str]) -> str | None:
    """What is wrong with the ssh settings for ``repo``; ``@key`` in front locates it at its key."""
    if repo is None:
        given = "ssh_key" if ssh_key else "known_hosts" if known_hosts else None
        return f"@{given} needs `repo`, the repository to clone" if given else None
    kind = repo_kind(repo)
    if kind != "ssh":
        if ssh_key:
            return f"@ssh_key an ssh key is for ssh repositories (`ssh://`, `git@host:path`), not {kind}"
        return "@known_hosts applies only to ssh repositories" if known_hosts else None
    host, port = repo_host_port(repo)
    named = host if port == 22 else f"[{host}]:{port}"
    if not known_hosts:
        return (
            f"an ssh clone needs `known_hosts`, the host keys of {named} (`ssh-keyscan -p {port} {host}`, checked "
            "against the fingerprints its owner publishes): ssh trusts no other key"
        )
    if len(known_hosts) > MAX_KNOWN_HOSTS:
        return f"@known_hosts at most {MAX_KNOWN_HOSTS} lines"
    if not any((host, port) in known_host_hosts(line) for line in known_hosts):
        return f"@known_hosts no line names {named}, the host of workspace.repo"
    return None


def credential_host(repo: str) -> str:
    """The ``host`` git names when it asks for the repository's credential: host, and port when the URL gives one."""
    return urlsplit(repo).netloc
