"""The session record (docs/record.md): what the egress proxy decided, written where the agent cannot write.

compose (and the dev container, which runs the compose project) gives the proxy a volume,
:data:`VOLUME`, that only the proxy and the deadline mount, and that outlives the session. The
proxy's start (:data:`SCRIPT`, a Perl program: perl-base is part of every Debian image) names the
session, writes its start line, points squid's decision lines at a pipe it reads, copies each line
into the session's file up to :data:`MAX_BYTES`, and writes the end line when squid stops. squid
itself decides the reason: every ``http_access`` line ends in an ``annotate_transaction`` ACL
naming it (:data:`REASONS`), and the ``access_log`` lines choose the record's format by what the
transaction carries at its end. The fields the agent's requests control (method, host) are
URL-encoded by squid (``%#``), so no request can end a JSON string or a line.
"""

from __future__ import annotations

#: The named volume that holds the records (compose's ``volumes:``), and where the proxy and the
#: deadline mount it.
VOLUME = "session-record"
DIR = "/var/lib/sandkit-record"
#: The proxy image's program that starts squid with the record (compose's entrypoint runs it first).
SCRIPT = "/usr/local/bin/sandkit-record"
#: Where the program writes squid's record lines at start: a tmpfs compose mounts, owned by squid's
#: user. The image's copy records nothing (Kubernetes and the actions job run squid without it).
CONF_DIR = "/etc/squid/record"
CONF_FILE = f"{CONF_DIR}/record.conf"
#: The pipe squid writes the decision lines to, in the same tmpfs.
PIPE = f"{CONF_DIR}/decisions.pipe"
#: The file the deadline writes when its time is up, read when the proxy writes the end line.
DEADLINE_MARK = f"{DIR}/deadline-reached"
#: One session's file is at most this long: past it, one ``capped`` line says so, and the end line
#: counts the decision lines left out. The volume holds one file per session (``docker volume rm``
#: or ``docker compose down -v`` clears them).
MAX_BYTES = 8 * 1024 * 1024
#: The least cap SANDKIT_RECORD_MAX_BYTES may set (in the proxy's environment; it only lowers the cap).
MIN_BYTES = 64 * 1024
MAX_BYTES_VARIABLE = "SANDKIT_RECORD_MAX_BYTES"
#: A line longer than this from squid is cut there (squid's own lines are a few hundred bytes).
MAX_LINE = 16 * 1024
#: The version of the record's format, in every start line.
FORMAT_VERSION = 1

#: decision ``allowed``: squid forwarded the request.
ALLOWED_REASONS = {"allowlisted": "the host:port pair is in network.allow (an injection host's too)"}
#: decision ``refused``: squid answered 403 (or 400) and connected nowhere.
REFUSED_REASONS = {
    "not-allowlisted": "no network.allow entry names the host",
    "port-not-allowed": "network.allow names the host, but not on this port",
    "denied-host": "a network.deny entry names the host:port (checked before the allowlist)",
    "ip-literal": "the request names an IP address instead of a host name",
    "non-public-address": "an allowed name resolved to an address not globally reachable (private, "
    "loopback, link-local, cloud metadata, ...)",
    "host-address": "an allowed name resolved to an address of the machine running the sandbox",
    "scheme-not-allowed": "neither a plain http:// request nor a CONNECT tunnel (ftp://, squid's manager, ...)",
    "not-sandbox-client": "the client is not on the sandbox network",
    "secret-missing": "an injection host whose secret's file is missing or empty",
    "malformed-request": "squid could not parse the request (no rule was consulted)",
}
#: decision ``failed``: the rules allowed it, but the proxy could not complete it.
FAILED_REASONS = {
    "unresolvable": "the allowed name did not resolve (squid's ERR_DNS_FAIL)",
    "upstream-error": "connecting to, or reading from, the allowed server failed (squid's ERR_CONNECT_FAIL, "
    "ERR_READ_TIMEOUT, ...)",
}
REASONS = {**ALLOWED_REASONS, **REFUSED_REASONS, **FAILED_REASONS}
DECISIONS = ("allowed", "refused", "failed")
#: squid's errors that make an allowed request ``failed`` (``unresolvable`` is ERR_DNS_FAIL alone).
UPSTREAM_ERRORS = (
    "ERR_CONNECT_FAIL",
    "ERR_READ_TIMEOUT",
    "ERR_READ_ERROR",
    "ERR_WRITE_ERROR",
    "ERR_ZERO_SIZE_OBJECT",
    "ERR_GATEWAY_FAILURE",
    "ERR_CANNOT_FORWARD",
    "ERR_LIFETIME_EXP",
    "ERR_SECURE_CONNECT_FAIL",
    "ERR_INVALID_RESP",
)


#: The record's line formats: (squid logformat suffix, decision, reason or the squid code that gives it).
FORMATS = (
    ("allowed", "allowed", "allowlisted"),
    ("refused", "refused", "%{reason}note"),
    ("unresolvable", "failed", "unresolvable"),
    ("upstream", "failed", "upstream-error"),
    ("malformed", "refused", "malformed-request"),
)
#: Which format each transaction gets, by what it carries at its end (squid.conf's ACLs): exactly one
#: of these matches every transaction but the health check's.
ACCESS_LOGS = (
    ("allowed", "decided_allowed !unresolvable !upstream_error"),
    ("unresolvable", "decided_allowed unresolvable"),
    ("upstream", "decided_allowed upstream_error !unresolvable"),
    ("refused", "decided !decided_allowed"),
    # A connection from the proxy's own loopback without a request is squid's test of its TLS peer, not the agent's.
    ("malformed", "!decided !healthcheck"),
)


def access_log_lines() -> list[str]:
    """The lines the start writes into :data:`CONF_FILE`: every decision but the health check's, to the pipe."""
    return [f"access_log stdio:{PIPE} logformat=record_{name} !health_request {acls}" for name, acls in ACCESS_LOGS]


def squid_values() -> dict[str, object]:
    """What squid.conf.j2, record.pl.j2 and the proxy's Dockerfile take from here."""
    return {
        "reasons": sorted(REASONS),
        "record_formats": FORMATS,
        "record_conf": CONF_FILE,
        "record_conf_dir": CONF_DIR,
        "record_dir": DIR,
        "record_pipe": PIPE,
        "record_script": SCRIPT,
        "record_access_logs": access_log_lines(),
        "record_max_bytes": MAX_BYTES,
        "record_max_line": MAX_LINE,
        "record_min_bytes": MIN_BYTES,
        "record_version": FORMAT_VERSION,
        "deadline_mark": DEADLINE_MARK,
        "upstream_errors": UPSTREAM_ERRORS,
    }
