"""Where an injecting egress proxy keeps its secrets and its certificate authority (docs/secrets.md).

The proxy terminates TLS only toward the hosts a secret is injected on. Its authority is made at
every start by the proxy's start script, inside a tmpfs only squid's user can read (Kubernetes: once
per Deployment, by a Job, kept in a Secret only squid's container mounts); the certificate
alone goes to a volume the agent mounts read-only, and the agent's entrypoint adds it to the
bundle that the system store and the usual variables point to. Compose and the devcontainer
share these paths; the Dockerfile templates name them through ``PATHS``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sandkit.kits.inject import VALUE_SLOT

if TYPE_CHECKING:
    from sandkit.compiler.plan import Plan


@dataclass(frozen=True)
class InjectPaths:
    #: The proxy's private tmpfs: the authority's key, squid's generated certificates, the header lines.
    dir: str = "/run/sandkit-egress"
    #: The folder (a volume) where the proxy puts the authority's certificate for the agent.
    public: str = "/run/sandkit-egress-ca"
    #: Where the agent mounts that volume, read-only.
    agent_ca: str = "/run/sandkit-proxy-ca"
    #: Kubernetes: where squid's container mounts the authority's Secret (made once per Deployment).
    stored: str = "/run/sandkit-egress-authority"
    #: The bundle the agent's entrypoint writes at start: the image's authorities and the proxy's.
    bundle: str = "/tmp/sandkit-ca-certificates.crt"
    #: The image's own bundle, kept aside when the system store is pointed at ``bundle``.
    image_store: str = "/etc/ssl/certs/sandkit-image-ca-certificates.crt"
    store: str = "/etc/ssl/certs/ca-certificates.crt"
    start_script: str = "/usr/local/bin/sandkit-egress-start"

    @property
    def conf(self) -> str:
        """The squid lines the start script writes from the secrets' files."""
        return f"{self.dir}/inject.conf"

    @property
    def agent_ca_file(self) -> str:
        return f"{self.agent_ca}/ca.pem"


PATHS = InjectPaths()
#: The injecting proxy's second port, on loopback only: it terminates TLS toward the injection hosts.
TLS_PORT = 3129
#: The volume that carries the authority's certificate from the proxy to the agent.
CA_VOLUME = "egress-ca"
#: The key of the Kubernetes ConfigMap that carries the authority's certificate to the agent pods.
CA_KEY = "ca.pem"
#: Lists the secrets the proxy injects, so the agent's entrypoint neither loads nor requires them.
INJECTED_VARIABLE = "SANDKIT_PROXY_INJECTS"
#: The variables TLS clients read their trusted authorities from, all pointed at the bundle.
CA_VARIABLES = (
    "SSL_CERT_FILE",
    "REQUESTS_CA_BUNDLE",
    "NODE_EXTRA_CA_CERTS",
    "CURL_CA_BUNDLE",
    "GIT_SSL_CAINFO",
    "PIP_CERT",
)


def prefix(fmt: str) -> str:
    """The header value's text before the secret."""
    return fmt.split(VALUE_SLOT, 1)[0]


def suffix(fmt: str) -> str:
    """The header value's text after the secret."""
    return fmt.split(VALUE_SLOT, 1)[1]


def agent_env(plan: Plan) -> dict[str, str]:
    """What the agent gets in place of the secrets the proxy injects: placeholders, and trust in the proxy."""
    if not plan.proxy_injects:
        return {}
    return {
        INJECTED_VARIABLE: " ".join(plan.injected_secrets),
        **dict.fromkeys(CA_VARIABLES, PATHS.bundle),
        **dict(plan.placeholders),
    }
