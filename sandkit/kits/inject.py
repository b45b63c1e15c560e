"""``secrets[].inject``: a secret the egress proxy adds to requests, so the agent never holds it.

The proxy terminates TLS for the named hosts only and sets the header there, replacing whatever
the agent sent; the agent sees the secret's ``placeholder`` (or nothing). Each piece checked here
ends up in the proxy's configuration (squid.conf and the start script that writes the header
line), so it is held to a shape that no configuration syntax can misread: a header name is an
HTTP token, a format is printable ASCII without quotes, backslashes or percent signs, and a host
is one exact name (a wildcard would send the secret to every name under it).
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, WithJsonSchema

from sandkit.kits.fields import host_pattern

#: The one slot a format must hold: the secret's value goes there.
VALUE_SLOT = "{value}"
_HEADER = re.compile(r"[A-Za-z0-9!#$&'*+.^_`|~-]{1,64}")
#: Printable ASCII except what squid.conf's quoted values or its log format codes would interpret.
_FORMAT_CHAR = re.compile(r"[\x20-\x21\x23-\x24\x26-\x5b\x5d-\x7e]")
#: Headers that frame or route the request, or belong to the proxy: setting them breaks HTTP, not auth.
RESERVED_HEADERS = frozenset(
    {
        "host",
        "content-length",
        "transfer-encoding",
        "connection",
        "keep-alive",
        "te",
        "trailer",
        "upgrade",
        "proxy-authorization",
        "proxy-authenticate",
        "proxy-connection",
        "via",
        "forwarded",
        "x-forwarded-for",
    }
)
MAX_FORMAT = 256
MAX_PLACEHOLDER = 256


def _header(value: str) -> str:
    if not _HEADER.fullmatch(value):
        raise ValueError(
            "must be an HTTP header name: letters, digits and !#$&'*+.^_`|~-, at most 64 characters (`x-api-key`)"
        )
    if value.lower() in RESERVED_HEADERS:
        raise ValueError(f"{value} frames or routes the request; the proxy injects credentials, not {value}")
    return value


def _format(value: str) -> str:
    if value.count(VALUE_SLOT) != 1:
        raise ValueError(f"must contain {VALUE_SLOT} exactly once, where the secret goes (`Bearer {VALUE_SLOT}`)")
    if len(value) > MAX_FORMAT:
        raise ValueError(f"at most {MAX_FORMAT} characters")
    bad = sorted({c for c in value.replace(VALUE_SLOT, "") if not _FORMAT_CHAR.fullmatch(c)})
    if bad:
        shown = ", ".join(repr(c) for c in bad)
        raise ValueError(f"may hold printable ASCII except '\"', '\\' and '%'; found {shown}")
    return value


def _exact_host(value: str) -> str:
    host_pattern(value)
    if value.startswith("*"):
        raise ValueError("give one exact host: a wildcard would send the secret to every name under it")
    return value


def _placeholder(value: str) -> str:
    if not value or len(value) > MAX_PLACEHOLDER or not all(" " < c < "\x7f" for c in value):
        raise ValueError(f"must be 1 to {MAX_PLACEHOLDER} printable ASCII characters without spaces")
    return value


HeaderName = Annotated[
    str,
    AfterValidator(_header),
    WithJsonSchema({"type": "string", "pattern": "^[A-Za-z0-9!#$&'*+.^_`|~-]{1,64}$", "examples": ["x-api-key"]}),
]
HeaderFormat = Annotated[
    str,
    AfterValidator(_format),
    WithJsonSchema({"type": "string", "pattern": "\\{value\\}", "examples": ["{value}", "Bearer {value}"]}),
]
InjectHost = Annotated[
    str,
    AfterValidator(_exact_host),
    WithJsonSchema({"type": "string", "pattern": "^[a-z0-9_.-]+(:[0-9]{1,5})?$", "examples": ["api.anthropic.com"]}),
]
Placeholder = Annotated[
    str, AfterValidator(_placeholder), WithJsonSchema({"type": "string", "pattern": "^[!-~]{1,256}$"})
]


def header_value(fmt: str, value: str) -> str:
    """The header's value for ``value``: the format with its one slot filled."""
    return fmt.replace(VALUE_SLOT, value, 1)
