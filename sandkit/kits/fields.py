"""Strictly validated string types for the kit model.

Every field that ends up as a name, host, image reference, URL, path or cron line in generated
output is checked here, so that no target has to defend itself against a newline in a host name.
Free-text fields (env values, instructions, command arguments) are plain ``str`` in the model.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Annotated

from pydantic import AfterValidator, BeforeValidator, Field, WithJsonSchema

_CONTROL = re.compile(r"[\x00-\x1f\x7f\u0080-\u009f\u2028\u2029]")
_DNS_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")
_HOST_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?|[a-z0-9_]")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_USER_NAME = re.compile(r"[a-z_][a-z0-9_-]{0,31}")
_DURATION = re.compile(r"(?:(\d{1,6})h)?(?:(\d{1,6})m)?(?:(\d{1,9})s)?")
_QUANTITY = re.compile(r"(\d{1,15})(?:\.(\d{1,6}))?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?")
_IMAGE = re.compile(
    r"(?:(?P<registry>[a-zA-Z0-9.-]+(?::\d{1,5})?)/)?"
    r"(?P<name>[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*)"
    r"(?::(?P<tag>[\w][\w.-]{0,127}))?"
    r"(?:@(?P<digest>sha256:[a-f0-9]{64}))?"
)
_PACKAGE_APT = re.compile(r"[a-z0-9][a-z0-9+.-]{0,127}(?:=[A-Za-z0-9.+~:-]{1,128})?")
_PACKAGE_PIP = re.compile(
    r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}(?:\[[A-Za-z0-9._,-]{1,128}\])?"
    r"(?:(?:==|>=|<=|~=|!=|<|>)[A-Za-z0-9.*+!_-]{1,64}(?:,(?:==|>=|<=|~=|!=|<|>)[A-Za-z0-9.*+!_-]{1,64}){0,4})?"
)
_PACKAGE_NPM = re.compile(
    r"(?:@[a-z0-9][a-z0-9._-]{0,127}/)?[a-z0-9][a-z0-9._-]{0,213}(?:@[A-Za-z0-9.^~<>=*+_-]{1,64})?"
)
_GIT_REF = re.compile(r"[A-Za-z0-9._/+-]{1,255}")
_OCTAL_MODE = re.compile(r"0?[0-7]{3}")
_SAFE_PATH = re.compile(r"[A-Za-z0-9._@+=,~/-]+")
_SCP_URL = re.compile(r"[A-Za-z0-9._-]{1,64}@[A-Za-z0-9.-]{1,253}:[A-Za-z0-9._/~-]{1,1024}")

UNIT_FACTORS = {
    None: 1,
    "k": 10**3,
    "M": 10**6,
    "G": 10**9,
    "T": 10**12,
    "P": 10**15,
    "E": 10**18,
    "Ki": 2**10,
    "Mi": 2**20,
    "Gi": 2**30,
    "Ti": 2**40,
    "Pi": 2**50,
    "Ei": 2**60,
}


def no_control(value: str) -> str:
    """Refuse newlines and other control characters in a structured field."""
    if _CONTROL.search(value):
        raise ValueError("must not contain a newline or any other control character")
    if value != value.strip():
        raise ValueError("must not start or end with whitespace")
    if not value:
        raise ValueError("must not be empty")
    return value


def _dns_label(value: str) -> str:
    if not _DNS_LABEL.fullmatch(value):
        raise ValueError(
            "must be a DNS-1123 label: lowercase letters, digits and '-', at most 63 characters, "
            "starting and ending with a letter or digit"
        )
    return value


def _env_name(value: str) -> str:
    if not _ENV_NAME.fullmatch(value):
        raise ValueError("must be an environment variable name: letters, digits and '_', not starting with a digit")
    return value


def _user_name(value: str) -> str:
    if value == "root":
        raise ValueError("the agent never runs as root; choose a non-root user such as 'agent'")
    if not _USER_NAME.fullmatch(value):
        raise ValueError("must be a POSIX user name: lowercase letters, digits, '_' and '-', at most 32")
    return value


def _is_ip_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def check_host(host: str) -> str:
    """A DNS host name (lowercase), never an IP literal."""
    if _is_ip_literal(host) or re.fullmatch(r"[0-9.]+", host):
        raise ValueError(f"{host!r} is an IP literal; the egress proxy refuses IP destinations, so allow a host name")
    if len(host) > 253:
        raise ValueError("a host name has at most 253 characters")
    labels = host.split(".")
    if not all(_HOST_LABEL.fullmatch(label) for label in labels):
        raise ValueError(f"{host!r} is not a valid host name (lowercase letters, digits and '-', dot-separated)")
    if host == "localhost" or host.endswith(".localhost"):
        raise ValueError("localhost is never reachable from the sandbox; it is not an egress destination")
    return host


def _split_port(entry: str) -> tuple[str, int | None]:
    if entry.count(":") == 1:
        host, port_text = entry.split(":")
        if not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
            raise ValueError(f"port {port_text!r} must be a number from 1 to 65535")
        return host, int(port_text)
    return entry, None


def host_pattern(value: str) -> str:
    """``host``, ``*.host`` (one label), each optionally with ``:port``."""
    no_control(value)
    _not_url(value)
    if value.strip("*.:") == "" or value.startswith("*:"):
        raise ValueError("'*' would allow every host; say `egress: open` if that is really meant")
    host, _port = _split_port(value)
    if host.startswith("*."):
        rest = host[2:]
        if "*" in rest:
            raise ValueError("a wildcard may cover one label only, as in '*.example.com'")
        if rest.count(".") < 1:
            raise ValueError(
                f"'{host}' covers a whole top-level domain; a wildcard needs at least two labels after '*.'"
            )
        check_host(rest)
    elif "*" in host:
        raise ValueError("a wildcard is allowed only as the whole first label, as in '*.example.com'")
    else:
        check_host(host)
    return value


def _not_url(value: str) -> None:
    """A URL or a path where a host belongs: say which host to write instead."""
    from urllib.parse import urlsplit

    if "://" in value:
        parts = urlsplit(value)
        try:
            port = parts.port or {"http": 80}.get(parts.scheme, 443)
        except ValueError:
            port = 443
        host = (parts.hostname or "example.com") + ("" if port == 443 else f":{port}")
        raise ValueError(f"give a host, not a URL: {host!r} (port 443 is implied; add ':PORT' for another)")
    if "/" in value:
        raise ValueError(f"give a host without a path: {value.split('/', 1)[0]!r}")


def _duration(value: str | int) -> str:
    text = str(value)
    match = _DURATION.fullmatch(text)
    if not text or not match or not any(match.groups()):
        raise ValueError("must be a duration such as 90s, 15m, 2h or 1h30m")
    if duration_seconds(text) <= 0:
        raise ValueError("must be longer than zero")
    return text


def duration_seconds(text: str) -> int:
    match = _DURATION.fullmatch(text)
    assert match is not None
    hours, minutes, seconds = (int(g) if g else 0 for g in match.groups())
    return hours * 3600 + minutes * 60 + seconds


def _quantity(value: str | int) -> str:
    text = str(value)
    if not _QUANTITY.fullmatch(text):
        raise ValueError("must be a quantity such as 512Mi, 4Gi, 10G or a number of bytes")
    if quantity_bytes(text) <= 0:
        raise ValueError("must be larger than zero")
    return text


def quantity_bytes(text: str) -> int:
    match = _QUANTITY.fullmatch(text)
    assert match is not None
    whole, fraction, unit = match.groups()
    factor = UNIT_FACTORS[unit]
    value = int(whole) * factor
    if fraction:
        value += int(fraction) * factor // 10 ** len(fraction)
    return value


def _image_ref(value: str) -> str:
    no_control(value)
    match = _IMAGE.fullmatch(value)
    if not match:
        raise ValueError(
            "must be an image reference such as debian:bookworm-slim or "
            "registry.example.com/team/image:1.2@sha256:<64 hex digits>"
        )
    return value


def _abs_path(value: str) -> str:
    no_control(value)
    if not value.startswith("/"):
        raise ValueError("must be an absolute path inside the sandbox, starting with '/'")
    if any(part == ".." for part in value.split("/")):
        raise ValueError("must not contain '..'")
    if "//" in value or not _SAFE_PATH.fullmatch(value):
        raise ValueError("must be a plain POSIX path of letters, digits and . _ @ + = , ~ / -")
    return value.rstrip("/") or "/"


def _rel_path(value: str) -> str:
    """Kit-relative paths; the loader has already made them absolute and checked their form."""
    return no_control(value)


def _workspace_file(value: str) -> str:
    no_control(value)
    if value.startswith("/") or any(p in ("..", "", ".") for p in value.split("/")):
        raise ValueError("must be a file name, or a relative path below the workspace without '..'")
    if not _SAFE_PATH.fullmatch(value):
        raise ValueError("must be a file name of letters, digits and . _ @ + = , ~ / -")
    return value


def _url(value: str) -> str:
    from urllib.parse import urlsplit

    no_control(value)
    if " " in value:
        raise ValueError("must not contain spaces")
    if value.startswith("-") or "://-" in value:
        raise ValueError("must not start its user or host with '-', which ssh would read as an option")
    if _SCP_URL.fullmatch(value):
        return value
    parts = urlsplit(value)
    if parts.scheme not in ("https", "http", "ssh", "git") or not parts.hostname:
        raise ValueError("must be an https://, http://, ssh:// or git@host:path repository URL")
    if parts.password:
        raise ValueError("must not carry a password; give the credential through `secrets`")
    if not _is_ip_literal(parts.hostname):
        check_host(parts.hostname)
    return value


def repo_host_port(url: str) -> tuple[str, int]:
    """The host and port a clone of ``url`` connects to."""
    from urllib.parse import urlsplit

    if _SCP_URL.fullmatch(url):
        return url.split("@", 1)[1].split(":", 1)[0], 22
    parts = urlsplit(url)
    default = {"https": 443, "http": 80, "ssh": 22, "git": 9418}[parts.scheme]
    return parts.hostname or "", parts.port or default


def _package(pattern: re.Pattern[str], example: str) -> AfterValidator:
    def check(value: str) -> str:
        no_control(value)
        if not pattern.fullmatch(value):
            raise ValueError(f"is not a package specification like {example}")
        return value

    return AfterValidator(check)


def _reject_int_mode(value: object) -> object:
    if isinstance(value, int):
        raise ValueError('write the mode as a quoted octal string such as "0644"')
    return value


def _octal_mode(value: str) -> str:
    if not _OCTAL_MODE.fullmatch(value):
        raise ValueError('must be an octal mode such as "0644" or "0755"')
    return value.zfill(4)


def _git_ref(value: str) -> str:
    no_control(value)
    if not _GIT_REF.fullmatch(value) or value.startswith("-") or ".." in value:
        raise ValueError("must be a branch, tag or commit name")
    return value


def _str_or_int(value: object) -> object:
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


# Editors get the same shapes as JSON Schema patterns (the validators above give the messages).
KitName = Annotated[
    str,
    AfterValidator(_dns_label),
    Field(max_length=63),
    WithJsonSchema({"type": "string", "pattern": "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$"}),
]
EnvName = Annotated[
    str, AfterValidator(_env_name), WithJsonSchema({"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"})
]
UserName = Annotated[str, AfterValidator(_user_name)]
HostPattern = Annotated[
    str,
    AfterValidator(host_pattern),
    WithJsonSchema(
        {
            "type": "string",
            "pattern": "^(\\*\\.)?[a-z0-9_.-]+(:[0-9]{1,5})?$",
            "examples": ["api.anthropic.com", "github.com:443", "*.githubusercontent.com"],
        }
    ),
]
Duration = Annotated[
    str,
    BeforeValidator(_str_or_int),
    AfterValidator(_duration),
    WithJsonSchema(
        {"type": "string", "pattern": "^([0-9]+h)?([0-9]+m)?([0-9]+s)?$", "examples": ["90s", "15m", "2h", "1h30m"]}
    ),
]
Quantity = Annotated[
    str,
    BeforeValidator(_str_or_int),
    AfterValidator(_quantity),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "string", "pattern": "^[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$"},
                {"type": "integer", "minimum": 1},
            ],
            "examples": ["512Mi", "4Gi"],
        }
    ),
]
ImageRef = Annotated[str, AfterValidator(_image_ref)]
AbsPath = Annotated[str, AfterValidator(_abs_path)]
RelPath = Annotated[str, AfterValidator(_rel_path)]
WorkspaceFile = Annotated[str, AfterValidator(_workspace_file)]
RepoURL = Annotated[str, AfterValidator(_url)]
GitRef = Annotated[str, AfterValidator(_git_ref)]
OctalMode = Annotated[
    str,
    BeforeValidator(_reject_int_mode),
    AfterValidator(_octal_mode),
    WithJsonSchema({"type": "string", "pattern": "^0?[0-7]{3}$", "examples": ["0644"]}),
]
AptPackage = Annotated[str, _package(_PACKAGE_APT, "git or git=1:2.39.5-0+deb12u1")]
PipPackage = Annotated[str, _package(_PACKAGE_PIP, "pytest==8.3.2")]
NpmPackage = Annotated[str, _package(_PACKAGE_NPM, "@scope/name@1.2.3")]
PlainName = Annotated[str, AfterValidator(no_control)]
