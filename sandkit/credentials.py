"""What a credential looks like: secret-bearing names and well-known token formats.

Shared by the kit model (which refuses secrets in ``env``) and the linter. Every pattern is anchored
on a fixed prefix and uses bounded, non-nested quantifiers, so matching stays linear-time on hostile
input.
"""

from __future__ import annotations

import re

_SECRET_NAME = re.compile(
    r"(?:^|_)(?:API_?KEY|ACCESS_?KEY|SECRET(?:_?KEY)?|TOKEN|PASSWORD|PASSWD|PWD|PASSPHRASE|"
    r"CREDENTIALS?|PRIVATE_?KEY|AUTH|SESSION_?KEY|CLIENT_?SECRET|KEY)$",
    re.IGNORECASE,
)

#: (kind, pattern) of credential formats whose shape alone identifies them.
TOKEN_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("AWS access key ID", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b")),
    ("GitHub token", re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b")),
    ("GitHub fine-grained token", re.compile(r"\bgithub_pat_[A-Za-z0-9_]{22,255}\b")),
    ("GitLab token", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,64}\b")),
    ("Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,255}\b")),
    ("Stripe secret key", re.compile(r"\b[sr]k_live_[A-Za-z0-9]{16,255}\b")),
    ("Anthropic API key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,255}")),
    ("OpenAI API key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,255}")),
    ("Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("private key block", re.compile(r"-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----")),
    (
        "JSON Web Token",
        re.compile(r"\beyJ[A-Za-z0-9_-]{8,4096}\.eyJ[A-Za-z0-9_-]{8,8192}\.[A-Za-z0-9_-]{8,4096}"),
    ),
    ("URL with a password", re.compile(r"\b[a-z][a-z0-9+.-]{1,20}://[^\s:/@]{1,256}:[^\s/@]{1,256}@")),
)


def is_secret_name(name: str) -> bool:
    """True for names such as ``GITHUB_TOKEN``, ``DB_PASSWORD`` or ``OPENAI_API_KEY``."""
    return bool(_SECRET_NAME.search(name))


def credential_kind(value: str) -> str | None:
    """The kind of credential ``value`` contains (e.g. "GitHub token"), or None."""
    for kind, pattern in TOKEN_PATTERNS:
        if pattern.search(value):
            return kind
    return None
