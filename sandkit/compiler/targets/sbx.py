"""sbx: a Docker Sandboxes kit, sbx/spec.yaml in the schemaVersion 2 grammar.

The grammar is docker/sbx-kits-contrib spec/SPEC-v2.md (commit cc502cd9; sandkit's schema of it is
sandkit/schemas/sbx-spec-v2.schema.json). sbx runs each sandbox in a microVM whose only way out is a
proxy on the host, which applies the spec's allow and deny rules and injects credentials, so secrets
become proxy-managed API keys: the sandbox sees a sentinel, never the key.

By default (``targets.sbx.image_from: compiled``) sbx runs the image docker's Dockerfile builds: the
packages, install commands, CA certificates and files outside the home folder are in it. sbx does not
run that image's entrypoint, so what the entrypoint does at start comes from the spec's own blocks
(startup, files in the home folder, the instruction file). With ``image_from: base`` sbx runs
``image.base`` and runs the kit's install commands itself when it creates the sandbox.
"""

from __future__ import annotations

from typing import Any

from sandkit.compiler.fidelity import (
    PROVEN_STATICALLY,
    Fidelity,
    Setting,
    manual_only_trigger_row,
    webhook_unsupported_rows,
)
from sandkit.compiler.output import commented_header
from sandkit.compiler.plan import Destination, PlacedFile, Plan, SbxCredential, SbxInject
from sandkit.compiler.target import Files, RenderContext
from sandkit.compiler.yamlout import dump_yaml

NAME = "sbx"
REQUIRES = ("docker",)  # the compiled image's build context, which sandbox.build points at
FILE = "sbx/spec.yaml"
#: sbx's agent (SPEC-v2 9.1): a user "agent", uid 1000, home /home/agent, with passwordless sudo.
SBX_USER, SBX_UID, SBX_HOME = "agent", 1000, "/home/agent"
#: Variables the sbx runtime reserves or may override (SPEC-v2 5.5).
RESERVED_PREFIXES = ("DASH_", "SBX_", "DOCKER_")
OVERRIDDEN = frozenset({"HOME", "USER", "SHELL", "PATH", "LD_PRELOAD", "LD_LIBRARY_PATH"})
_GIB, _MIB, _KIB = 2**30, 2**20, 2**10


def render(plan: Plan, context: RenderContext) -> Files:
    header = commented_header("#", *plan.header_fields)
    files: Files = {FILE: (header + dump_yaml(spec(plan))).encode()}
    for placed in _binary_home_files(plan):
        files[f"sbx/files/home/{placed.path[len(plan.home) + 1 :]}"] = placed.content
    return files


def spec(plan: Plan) -> dict[str, Any]:
    """The spec.yaml document, keys in the order SPEC-v2 lists them."""
    document: dict[str, Any] = {"schemaVersion": "2", "kind": "sandbox", "name": plan.name}
    if plan.description:
        document["description"] = plan.description
    document["sandbox"] = _sandbox(plan)
    if plan.instructions is not None:
        document["agentInstructions"] = _instructions(plan)
    network = _network(plan)
    if network:
        document["permissions"] = {"network": network}
    if plan.ports:
        document["ports"] = [{"container": port.container, "protocol": port.protocol} for port in plan.ports]
    if plan.sbx.credentials:
        document["credentials"] = [_credential(c) for c in plan.sbx.credentials]
    if plan.env:
        document["environment"] = {"variables": dict(plan.env)}
    setup = _setup(plan)
    if setup:
        document["setup"] = setup
    return document


def image_reference(plan: Plan) -> str:
    if plan.sbx.image_from == "base":
        return plan.base_image
    return plan.sbx.image or plan.image_tag


def _sandbox(plan: Plan) -> dict[str, Any]:
    sandbox: dict[str, Any] = {"image": image_reference(plan)}
    if plan.sbx.image_from == "compiled":
        sandbox["build"] = {"context": "..", "dockerfile": "Dockerfile"}  # relative to spec.yaml
    sandbox["entrypoint"] = [plan.command[0]]
    if len(plan.command) > 1:
        sandbox["command"] = list(plan.command[1:])
    sandbox["resources"] = {"cpu": plan.cpus, "memory": memory_size(plan.memory_bytes)}
    return sandbox


def memory_size(size: int) -> str:
    """Bytes as a go-units size (RAMInBytes reads k, m and g as powers of 1024)."""
    for unit, factor in (("g", _GIB), ("m", _MIB), ("k", _KIB)):
        if size % factor == 0:
            return f"{size // factor}{unit}"
    return str(size)


def _instructions(plan: Plan) -> dict[str, Any]:
    block: dict[str, Any] = {}
    if plan.instructions_file:
        block["filename"] = plan.instructions_file
    block["content"] = plan.instructions
    return block


def _entry(destination: Destination) -> str:
    return destination.host if destination.port == 443 else str(destination)


def _network(plan: Plan) -> dict[str, Any]:
    network: dict[str, Any] = {}
    if plan.allow:
        network["allow"] = [_entry(d) for d in plan.allow]
    if plan.deny:
        network["deny"] = [_entry(d) for d in plan.deny]
    return network


def _credential(credential: SbxCredential) -> dict[str, Any]:
    entry: dict[str, Any] = {"service": credential.service}
    if credential.description:
        entry["description"] = credential.description
    entry["required"] = credential.required
    api_key: dict[str, Any] = {"name": credential.secret}
    if credential.proxy_managed:
        api_key["proxyManaged"] = True
    if credential.inject:
        api_key["inject"] = [_inject(rule) for rule in credential.inject]
    entry["apiKey"] = api_key
    return entry


def _inject(rule: SbxInject) -> dict[str, Any]:
    fields = {"domain": rule.domain, "header": rule.header, "format": rule.format}
    fields |= {"scheme": rule.scheme, "username": rule.username}
    return {key: value for key, value in fields.items() if value is not None}


def _text_files(plan: Plan) -> list[PlacedFile]:
    """The files setup.files writes: the home folder's (compiled) or all of them (base), when text."""
    placed = plan.home_files if plan.sbx.image_from == "compiled" else (*plan.files, *plan.home_files)
    return [p for p in placed if _text(p.content) is not None]


def _binary_home_files(plan: Plan) -> list[PlacedFile]:
    """Home files that are not UTF-8 text travel byte for byte in the kit's files/home folder."""
    return [p for p in plan.home_files if _text(p.content) is None]


def _text(content: bytes) -> str | None:
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _setup(plan: Plan) -> dict[str, Any]:
    setup: dict[str, Any] = {}
    if plan.sbx.image_from == "base" and plan.install:
        setup["install"] = [{"command": command} for command in plan.install]
    if plan.startup:
        setup["startup"] = [{"command": ["sh", "-c", command]} for command in plan.startup]
    files = [{"path": p.path, "content": _text(p.content), "mode": p.mode} for p in _text_files(plan)]
    if files:
        setup["files"] = files
    return setup


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


#: The static proofs of what the spec says (sbx itself does not run here).
MAPPING_PROOF = "tests/compiler/test_new_targets.py::test_sbx_maps_the_kit_onto_the_spec"
BASE_PROOF = "tests/compiler/test_new_targets.py::test_sbx_base_mode_runs_install_itself"
VM_PROOF = "tests/compiler/test_new_targets.py::test_sbx_spec_asks_for_no_privilege"
INJECT_PROOF = "tests/compiler/test_new_targets.py::test_sbx_injects_where_the_kit_s_secrets_say"


def _static(setting: Setting, reason: str, proof: str = MAPPING_PROOF, requested: bool = True) -> Fidelity:
    return Fidelity(setting, "enforced", f"{reason}; {PROVEN_STATICALLY}", requested=requested, proven_by=proof)


def fidelity(plan: Plan) -> list[Fidelity]:
    rows = [
        _egress_row(plan),
        _static(
            "network.deny",
            "sbx's host proxy refuses a host matching a deny rule, whatever allows it",
            requested=bool(plan.deny),
        ),
        _secrets_row(plan),
        *_inject_rows(plan),
        _static(
            "isolation.runtime",
            "sbx runs every sandbox in a microVM with its own kernel, more isolation than the kit asks for, and "
            "the spec asks for no privilege",
            VM_PROOF,
        ),
        Fidelity(
            "image.user",
            "best-effort",
            f"sbx runs the agent as {SBX_USER} (uid {SBX_UID}) with passwordless sudo inside the microVM "
            "(SPEC-v2 9.1): the VM boundary holds, not the user",
        ),
        Fidelity(
            "capabilities",
            "unsupported",
            "sbx's agent has passwordless sudo inside the microVM; there is no capability setting",
            requested=False,
        ),
        Fidelity(
            "isolation.read_only_root",
            "unsupported",
            "sbx has no read-only root: the agent can write anywhere in the microVM (with sudo)",
            requested="isolation.read_only_root" in plan.explicit,
        ),
        Fidelity(
            "resources.cpus",
            "best-effort",
            "sandbox.resources.cpu is accepted, and SPEC-v2 (1.4) says its enforcement is best-effort or pending",
        ),
        Fidelity(
            "resources.memory",
            "best-effort",
            "sandbox.resources.memory is accepted, and SPEC-v2 (1.4) says its enforcement is best-effort or pending",
        ),
        Fidelity(
            "resources.pids",
            "unsupported",
            "the spec has no process limit",
            requested="resources.pids" in plan.explicit,
        ),
        Fidelity(
            "resources.disk",
            "unsupported",
            "the spec has no disk limit for the sandbox",
            requested="resources.disk" in plan.explicit,
        ),
        Fidelity(
            "resources.timeout",
            "unsupported",
            "sbx runs the entrypoint with no time limit; sandkit's entrypoint, which has one, does not run in sbx",
            requested="resources.timeout" in plan.explicit,
        ),
        Fidelity(
            "workspace.mode",
            "best-effort",
            "sbx mounts or clones the folder `sbx run` is started in; run it in a checkout of the kit's workspace",
        ),
        *_instructions_rows(plan),
        *_image_rows(plan),
        *_file_rows(plan),
        *_env_rows(plan),
        *_argument_rows(plan),
    ]
    if plan.startup:
        rows.append(_static("startup", "setup.startup runs each command (sh -c) at every start"))
    if plan.ports:
        rows.append(
            Fidelity(
                "ports",
                "best-effort",
                "sbx publishes each port on an ephemeral 127.0.0.1 port; pin it with `sbx ports --publish`",
            )
        )
    if plan.in_sandbox_docker != "none":
        rows.append(
            Fidelity(
                "isolation.docker",
                "unsupported",
                "the spec runs the compiled image, which has no Docker daemon; sbx's shell-docker templates have "
                "one inside the microVM, but this spec is not built on them",
            )
        )
    trigger = manual_only_trigger_row(plan, "a sandbox starts when someone runs `sbx run`")
    if trigger is not None:
        rows.append(trigger)
    rows += webhook_unsupported_rows(plan)
    return rows


def _egress_row(plan: Plan) -> Fidelity:
    policy = (
        "sbx adds the kit's rules to the machine's own policy: egress is held to them only under "
        "`sbx policy set-default deny-all` (with balanced, sbx's common development hosts are open too)"
    )
    if plan.egress == "allowlist":
        wild = " and one-label *.host wildcards" if any(d.wildcard for d in plan.allow) else ""
        return Fidelity(
            "network.egress", "best-effort", f"the host proxy enforces exact hosts, host:port{wild}; {policy}"
        )
    if plan.egress == "none":
        return Fidelity("network.egress", "best-effort", f"the spec allows no host; {policy}")
    return Fidelity(
        "network.egress",
        "best-effort",
        "a kit cannot open the network in sbx: `sbx policy set-default allow-all` does that for the machine",
    )


def _secrets_row(plan: Plan) -> Fidelity:
    bare = [c for c in plan.sbx.credentials if not c.inject]
    if not bare:
        return _static(
            "secrets",
            "each secret is a proxy-managed API key: the host proxy adds it on its inject domains and the sandbox "
            "sees only a sentinel; build secrets stay in the compiled image's build",
            requested=bool(plan.secrets),
        )
    names = ", ".join(c.secret for c in bare)
    reason = (
        f"{names}: no inject rule (the secret's inject on port 443, or targets.sbx.credentials.NAME.inject), so "
        "the sbx proxy puts the key nowhere and the sandbox holds no value for it"
    )
    if any(c.required for c in bare):
        return Fidelity("secrets", "unsupported", reason)
    return Fidelity("secrets", "best-effort", f"{reason} (the kit marks them optional)")


def _inject_rows(plan: Plan) -> list[Fidelity]:
    """secrets.inject: sbx's host proxy holds every key, so an injection sbx cannot express is a key withheld."""
    if not plan.injections:
        return []
    ruled = {c.secret for c in plan.sbx.credentials if c.inject}
    missed = [i for i in plan.injections if i.secret not in ruled or i.destination.port != 443]
    if plan.egress == "none":
        why = "the spec allows no host, so sbx's proxy injects nowhere"
    elif missed:
        where = ", ".join(f"{i.secret} on {i.destination.host}:{i.destination.port}" for i in missed)
        why = f"an sbx inject rule names a domain and always port 443: {where} is not injected"
    else:
        return [
            _static(
                "secrets.inject",
                "sbx's host proxy adds each key on its inject domains (the secret's inject, as an sbx rule) and the "
                "sandbox sees only sbx's sentinel",
                INJECT_PROOF,
            )
        ]
    return [Fidelity("secrets.inject", "unsupported", f"{why}; the sandbox holds only sbx's sentinel", requested=False)]


def _instructions_rows(plan: Plan) -> list[Fidelity]:
    if plan.instructions is None:
        return []
    substituted = "${WORKDIR}" in plan.instructions
    return [
        Fidelity(
            "agent.instructions",
            "best-effort",
            "agentInstructions: sbx writes the text into the agent's profile file, in the place sbx chooses for it"
            + ("; sbx replaces ${WORKDIR} in it with the workspace path" if substituted else ""),
        )
    ]


def _image_rows(plan: Plan) -> list[Fidelity]:
    if plan.sbx.image_from == "compiled":
        where = plan.sbx.image or f"its local tag {plan.image_tag}"
        return [
            _static(
                "image.base",
                f"sbx runs the compiled image ({where}): build it from the output folder "
                "(sbx does not build from sandbox.build in this release; `sbx kit push` does)",
            )
        ]
    rows = [_static("image.base", f"sbx runs image.base ({plan.base_image}) and then setup.install", BASE_PROOF)]
    if plan.apt_declared or plan.pip or plan.npm:
        rows.append(
            Fidelity(
                "image.packages",
                "unsupported",
                "with image_from base nothing installs packages; use install commands or image_from compiled",
            )
        )
    if plan.ca_certificates:
        rows.append(Fidelity("image.ca_certificates", "unsupported", "with image_from base no CA is added"))
    if plan.install:
        rows.append(
            Fidelity(
                "install",
                "best-effort",
                "setup.install runs once when sbx creates the sandbox, as root, under the same egress rules "
                "as the agent (the hosts it downloads from must be allowed)",
            )
        )
    return rows


def _file_rows(plan: Plan) -> list[Fidelity]:
    rows = []
    written = _text_files(plan)
    outside = [p.path for p in written if not p.path.startswith(f"{SBX_HOME}/") and not p.path.startswith(plan.home)]
    if outside:
        rows.append(
            Fidelity(
                "files", "unsupported", f"setup.files writes as uid {SBX_UID}, which cannot write {', '.join(outside)}"
            )
        )
    elif any("${WORKDIR}" in (_text(p.content) or "") for p in written):
        rows.append(
            Fidelity(
                "files", "best-effort", "setup.files writes them at every start; sbx replaces ${WORKDIR} in their text"
            )
        )
    elif written:
        rows.append(_static("files", "setup.files writes them at every start"))
    binary = _binary_home_files(plan)
    if binary and plan.home != SBX_HOME:
        rows.append(Fidelity("files", "unsupported", f"sbx copies files/home/ to {SBX_HOME}, not {plan.home}"))
    elif plan.sbx.image_from == "base" and [p for p in plan.files if _text(p.content) is None]:
        rows.append(Fidelity("files", "unsupported", "binary files outside the home folder need image_from compiled"))
    return rows


def _env_rows(plan: Plan) -> list[Fidelity]:
    clashing = [k for k, _ in plan.env if k.startswith(RESERVED_PREFIXES) or k in OVERRIDDEN]
    if not plan.env:
        return []
    if clashing:
        return [Fidelity("env", "best-effort", f"sbx reserves or may override {', '.join(clashing)} (SPEC-v2 5.5)")]
    return [_static("env", "environment.variables")]


def _argument_rows(plan: Plan) -> list[Fidelity]:
    """sbx replaces ${{ kit.args.NAME }} in the spec's text before reading it; sandkit declares no args."""
    if any("${{" in s and "kit.args" in s for s in _strings(spec(plan))):
        return [
            Fidelity(
                "value substitution",
                "unsupported",
                "a value holds `${{ kit.args...`, which sbx substitutes before it reads the spec; with no args "
                "declared, sbx refuses the spec",
            )
        ]
    return []
