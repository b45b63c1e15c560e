"""The egress allowlist proxy (squid from Debian's packages), shared by compose and kubernetes.

Both targets run the same image built from egress/Dockerfile with the same squid.conf, so one
allowlist decision holds everywhere; only how the agent is forced through it differs per target.
"""

from __future__ import annotations

from sandkit.compiler.addresses import NON_PUBLIC_V4, NON_PUBLIC_V6, SANDBOX_CLIENTS
from sandkit.compiler.plan import PROXY_BASE_IMAGE, PROXY_PORT, Destination, Plan
from sandkit.compiler.render import render_template
from sandkit.kits.hosts import wildcard_regex

SQUID_CONF = "egress/squid.conf"
DOCKERFILE = "egress/Dockerfile"
NO_PROXY = "localhost,127.0.0.1,::1"


def squid_match(destination: Destination) -> str:
    """A squid ACL body for one host: exact name, or exactly one label before a wildcard's domain."""
    if destination.wildcard:
        return f"dstdom_regex -n -i {wildcard_regex(destination.host)}"
    return f"dstdomain -n {destination.host}"


def proxy_image(plan: Plan) -> str:
    """The proxy image's tag: the kit's name and the first 12 hex digits of its normalised sha256."""
    return f"sandkit/{plan.name}-egress:{plan.config_sha256[:12]}"


def proxy_files(plan: Plan, header: str) -> dict[str, str]:
    """egress/squid.conf and egress/Dockerfile (the proxy image's build context); header is commented."""
    values = {
        "p": plan,
        "header": header.rstrip("\n"),
        "port": PROXY_PORT,
        "base": PROXY_BASE_IMAGE,
        "match": squid_match,
        "sandbox_clients": SANDBOX_CLIENTS,
        "non_public_v4": NON_PUBLIC_V4,
        "non_public_v6": NON_PUBLIC_V6,
    }
    return {
        SQUID_CONF: render_template("squid.conf.j2", **values),
        DOCKERFILE: render_template("egress.Dockerfile.j2", **values),
    }


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
