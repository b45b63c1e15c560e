"""The egress allowlist proxy (squid from Debian's packages), shared by compose and kubernetes.

Both targets run the same image built from egress/Dockerfile with the same squid.conf, so one
allowlist decision holds everywhere; only how the agent is forced through it differs per target.
"""

from __future__ import annotations

import hashlib
from typing import Any

from sandkit.compiler.addresses import NON_PUBLIC_V4, SANDBOX_CLIENTS, squid_non_public_v6
from sandkit.compiler.engine import SMALL, compose_hardening
from sandkit.compiler.output import DO_NOT_EDIT
from sandkit.compiler.plan import PROXY_BASE_IMAGE, PROXY_PORT, Destination, Plan, high_uid
from sandkit.compiler.render import render_template
from sandkit.kits.hosts import wildcard_regex

SQUID_CONF = "egress/squid.conf"
DOCKERFILE = "egress/Dockerfile"
INJECT_SH = "egress/inject.sh"
#: The injecting image also holds squid.conf as it is without injection, for a target whose proxy
#: does not inject (the actions job): there squid runs on it, not the start script.
PLAIN_SQUID_CONF = "egress/squid-plain.conf"
SQUID_CONF_PATH = "/etc/squid/squid.conf"
PLAIN_SQUID_CONF_PATH = "/etc/squid/squid-plain.conf"
#: Debian's proxy user, which runs squid unless it injects secrets (then the agent's uid: see inject.py).
PROXY_UID = 13
#: The uid Kubernetes runs the proxy pod as (the image's sandkit-egress account): no node's user holds it.
PROXY_CLUSTER_UID = high_uid(PROXY_UID)
NO_PROXY = "localhost,127.0.0.1,::1"
HOST_ADDRESSES_SH = "egress/host-addresses.sh"
#: Where squid reads the Docker host's own addresses from (an ACL line that squid.conf includes; a
#: missing file stops squid, so a sandbox never runs with the host's addresses unknown), and the
#: image's script that writes them (run in the host's network namespace, where /proc/net lists them,
#: as PROXY_UID, which owns the folder whichever uid runs squid).
HOST_ADDRESSES_SERVICE = "host-addresses"  # compose's service (and its volume) that writes them
HOST_ADDRESSES_DIR = "/etc/squid/host"
HOST_ADDRESSES_FILE = f"{HOST_ADDRESSES_DIR}/addresses.conf"
HOST_ADDRESSES_SCRIPT = "/usr/local/bin/sandkit-host-addresses"
HOST_GUARD_SH = "egress/host-guard.sh"
#: The image's script that refuses a sandbox network on which this machine holds an address (run
#: in a container that is on that network alone: compose's host-guard service, the actions start step).
HOST_GUARD_SERVICE = "host-guard"
HOST_GUARD_SCRIPT = "/usr/local/bin/sandkit-host-guard"
#: The session record's writer (sandkit/compiler/record.py), compose's first step of the proxy's start.
RECORD_PL = "egress/record.pl"
LISTEN_SH = "egress/listen.sh"
LISTEN_CONF = "egress/listen.conf"
#: Where squid.conf takes the agent port's listeners and the sandbox_network ACL from. The image's copy
#: listens on every address and admits every client (the pod's one interface on Kubernetes); compose
#: mounts a tmpfs over the folder, and LISTEN_SCRIPT writes there the sandbox network's address and
#: subnet, found at start, before it runs squid.
LISTEN_DIR = "/etc/squid/listen"
LISTEN_FILE = f"{LISTEN_DIR}/listen.conf"
LISTEN_SCRIPT = "/usr/local/bin/sandkit-egress-listen"
#: The health check's request: an IP literal, so squid resolves nothing for it (a name sent every two
#: seconds to the host's resolver, from every running sandbox, is DNS traffic leaving the machine).
#: 0.0.0.1 is in 0.0.0.0/8, "this network", which no packet may be sent to.
HEALTHCHECK_HOST = "0.0.0.1"
#: compose's proofs that the agent may start (docs/compose.md): a tmpfs volume the proxy and the host
#: guard write and the agent mounts read-only. LISTEN_SCRIPT --ready writes READY_PROXY once squid
#: answers the probe above with its refusal; HOST_GUARD_SCRIPT --stay writes READY_GUARD once it has
#: passed. The agent's entrypoint runs nothing of the session before both are there. Being a tmpfs,
#: the volume is empty again when the session's last container using it stops.
READY_VOLUME = "ready"
READY_DIR = "/run/sandkit-ready"
READY_PROXY = f"{READY_DIR}/proxy"
READY_GUARD = f"{READY_DIR}/guard"
#: What each writes instead when it refuses to start (its reason), so that the agent stops at once.
PROXY_REFUSED = f"{READY_DIR}/proxy-refused"
GUARD_REFUSED = f"{READY_DIR}/guard-refused"
#: Set (to ``wait``) in the agent's environment by compose alone: its entrypoint then waits for both.
READY_VARIABLE = "SANDKIT_READY"
#: How long the agent's entrypoint waits for them, in steps of 20 ms (two minutes, a loaded machine's start).
READY_STEPS = 6000


def probe_command() -> str:
    """The proxy's health check (a bash command): squid answers a request from loopback with its own 403."""
    return (
        f"exec 3<>/dev/tcp/127.0.0.1/{PROXY_PORT} && printf 'GET http://{HEALTHCHECK_HOST}/ HTTP/1.0\\r\\n\\r\\n' >&3"
        ' && read -r -t 2 _ code _ <&3 && [ "$code" = 403 ]'
    )


def squid_match(destination: Destination) -> str:
    """A squid ACL body for one host: exact name, or exactly one label before a wildcard's domain."""
    if destination.wildcard:
        return f"dstdom_regex -n -i {wildcard_regex(destination.host)}"
    return f"dstdomain -n {destination.host}"


#: The proxy image's repository: one for every kit of a machine, each image tagged by what it holds.
PROXY_REPOSITORY = "sandkit/egress"


def proxy_image(plan: Plan) -> str:
    """The proxy image's tag: the first 12 hex digits of the sha256 of its build context (egress/).

    Nothing of the kit but its proxy's configuration is in that context (no kit name, path or digest:
    :func:`proxy_header`; the session record and the authority's name take the kit from the
    environment, :func:`proxy_identity_env`), so kits whose proxies are the same share one image.
    """
    digest = hashlib.sha256()
    for name, content in sorted(proxy_build_context(plan).items()):
        digest.update(f"{name}\0{len(content)}\0".encode())
        digest.update(content)
    return f"{PROXY_REPOSITORY}:{digest.hexdigest()[:12]}"


def proxy_header(plan: Plan) -> str:
    """The egress files' header: the version, not the kit (its path and digest would make each kit's
    image its own)."""
    version = plan.header_fields[0]
    return f"# Generated by sandkit {version}: the egress proxy of every kit with this proxy.\n# {DO_NOT_EDIT}\n"


def proxy_identity_env(plan: Plan) -> dict[str, str]:
    """What the shared proxy image learns of its kit when it starts: the session record's start line
    (docs/record.md) and the injecting proxy's authority name take them from these variables, which
    every target sets on the proxy's container (sandkit-record refuses to start without them)."""
    return {
        "SANDKIT_KIT_NAME": plan.name,
        "SANDKIT_KIT_SHA256": plan.config_sha256,
        "SANDKIT_AGENT_IMAGE": plan.image_tag,
        "SANDKIT_PROXY_IMAGE": proxy_image(plan),
    }


def proxy_files(plan: Plan, header: str = "", *, inject_secrets: bool = False) -> dict[str, str]:
    """egress/squid.conf, egress/Dockerfile, egress/host-addresses.sh and egress/host-guard.sh (the proxy
    image's build context). ``header`` (the kit's) is not used: the files carry :func:`proxy_header`,
    so that what the image holds names no kit; the parameter stays for the targets that pass it.

    ``inject_secrets``: the target runs the proxy so that it can inject the kit's secrets (it gets
    its start script too, and the kit's certificate authorities from :func:`proxy_ca_files`).
    """
    from sandkit.compiler import inject, record

    del header  # the kit's header: the files carry proxy_header's, which leaves the kit out
    injecting = inject_secrets and plan.proxy_injects
    values = {
        "p": plan,
        "header": proxy_header(plan).rstrip("\n"),
        "port": PROXY_PORT,
        "base": PROXY_BASE_IMAGE,
        "match": squid_match,
        "sandbox_clients": SANDBOX_CLIENTS,
        "non_public_v4": NON_PUBLIC_V4,
        "non_public_v6": squid_non_public_v6(),
        "injecting": injecting,
        "proxy_uid": plan.uid if injecting else PROXY_UID,
        "inject": inject.PATHS,
        "bump_port": inject.TLS_PORT,
        "prefix": inject.prefix,
        "suffix": inject.suffix,
        "plain_squid_conf": PLAIN_SQUID_CONF_PATH,
        "host_addresses_uid": PROXY_UID,
        "cluster_uid": PROXY_CLUSTER_UID,
        "host_addresses_dir": HOST_ADDRESSES_DIR,
        "host_addresses_file": HOST_ADDRESSES_FILE,
        "host_addresses_script": HOST_ADDRESSES_SCRIPT,
        "host_guard_script": HOST_GUARD_SCRIPT,
        "listen_file": LISTEN_FILE,
        "listen_dir": LISTEN_DIR,
        "listen_script": LISTEN_SCRIPT,
        "healthcheck_host": HEALTHCHECK_HOST,
        "probe": probe_command(),
        "ready_proxy": READY_PROXY,
        "ready_guard": READY_GUARD,
        "proxy_refused": PROXY_REFUSED,
        "guard_refused": GUARD_REFUSED,
        "record_volume": record.VOLUME,
        "proxy_repository": PROXY_REPOSITORY,
        **record.squid_values(),
    }
    files = {
        SQUID_CONF: render_template("squid.conf.j2", **values),
        DOCKERFILE: render_template("egress.Dockerfile.j2", **values),
        HOST_ADDRESSES_SH: render_template("host-addresses.sh.j2", **values),
        HOST_GUARD_SH: render_template("host-guard.sh.j2", **values),
        LISTEN_SH: render_template("listen.sh.j2", **values),
        LISTEN_CONF: render_template("listen.conf.j2", **values),
        RECORD_PL: render_template("record.pl.j2", **values),
    }
    if injecting:
        files[INJECT_SH] = render_template("egress-inject.sh.j2", **values)
    return files


def proxy_build_context(plan: Plan, header: str = "") -> dict[str, bytes]:
    """egress/, the one proxy image compose and kubernetes both build: the injecting proxy's when the kit
    injects (with its start script, and the kit's certificate authorities, since it opens TLS to servers).

    Kubernetes runs the same image in two steps (the start script's ``authority`` and ``serve``); the
    actions job runs squid on :data:`PLAIN_SQUID_CONF_PATH`, which does not inject.
    """
    files = {name: text.encode() for name, text in proxy_files(plan, header, inject_secrets=True).items()}
    if plan.proxy_injects:
        files.update({f"egress/ca/{ca.context_name}": ca.content for ca in plan.ca_certificates})
        files[PLAIN_SQUID_CONF] = proxy_files(plan, header)[SQUID_CONF].encode()
    return files


def squid_conf_path(plan: Plan) -> str:
    """Where the proxy image holds the squid.conf of a proxy that does not inject."""
    return PLAIN_SQUID_CONF_PATH if plan.proxy_injects else SQUID_CONF_PATH


def proxy_env(url: str) -> dict[str, str]:
    """The variables that send an agent's HTTP and HTTPS clients through the proxy at ``url``."""
    return {
        "HTTP_PROXY": url,
        "HTTPS_PROXY": url,
        "http_proxy": url,
        "https_proxy": url,
        "NO_PROXY": NO_PROXY,
        "no_proxy": NO_PROXY,
    }


def ready_gate_service(plan: Plan) -> dict[str, Any]:
    """A Compose service that exits 0 once the proxy and the host guard have written their proofs of readiness.

    For a start whose first process no entrypoint precedes (the dev container's editor runs its server
    through ``docker exec`` once the agent's container runs): the agent's container there depends on
    this one having completed successfully. It checks the files every 20 ms, as the entrypoint does,
    where a health check would be probed once an interval and then polled by Compose. It exits non-zero
    (and so the agent's container is never started) on a helper's refusal, printing its reason, or after
    two minutes. No network, no capability, a read-only root, the proofs' volume read-only.
    """
    refused = "".join(
        f"if [ -e {path} ]; then head -c 2000 {path} >&2; exit 1; fi; " for path in (PROXY_REFUSED, GUARD_REFUSED)
    )
    script = f"until [ -e {READY_PROXY} ] && [ -e {READY_GUARD} ]; do {refused}sleep 0.02; done"
    return {
        "image": proxy_image(plan),
        "entrypoint": ["timeout", "120", "sh", "-c", script],
        "user": f"{PROXY_UID}:{PROXY_UID}",
        **compose_hardening(read_only=True),
        **SMALL,
        "network_mode": "none",
        "volumes": [{"type": "volume", "source": READY_VOLUME, "target": READY_DIR, "read_only": True}],
    }
