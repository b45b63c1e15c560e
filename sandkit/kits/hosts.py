"""What an allowlist entry's host means: one implementation for the model, the plan and every target.

``*.example.com`` covers exactly one label in front of ``example.com`` (``a.example.com``, never
``example.com`` itself nor ``a.b.example.com``), like a TLS wildcard certificate. The kit model's
check of ``workspace.repo``, the plan's deny-over-allow, harden-runner's endpoint list and the
Cilium check ask :func:`host_matches`; the squid proxy gets :func:`wildcard_regex`, which a test
holds to the same answers.
"""

from __future__ import annotations

import re

#: One DNS label as the allowlist accepts it (letters, digits, '-' and '_'), case-insensitive.
LABEL = "[a-z0-9_-]+"
_LABEL = re.compile(LABEL, re.IGNORECASE)


def wildcard_domain(pattern: str) -> str | None:
    """``example.com`` for ``*.example.com``; None when ``pattern`` names one host."""
    return pattern[2:] if pattern.startswith("*.") else None


def host_matches(pattern: str, host: str) -> bool:
    """Whether ``host`` is ``pattern`` itself, or one label in front of a wildcard pattern's domain."""
    pattern, host = pattern.lower(), host.lower()
    domain = wildcard_domain(pattern)
    if domain is None:
        return host == pattern
    label, dot, rest = host.partition(".")
    return bool(dot) and rest == domain and _LABEL.fullmatch(label) is not None


def wildcard_regex(pattern: str) -> str:
    """A case-insensitive, anchored regular expression with the answers of :func:`host_matches`."""
    domain = wildcard_domain(pattern)
    if domain is None:
        return "^" + re.escape(pattern) + "$"
    return f"^{LABEL}" + re.escape("." + domain) + "$"
