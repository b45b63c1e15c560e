"""The fidelity report: for every setting and target, how faithfully the output holds it, and why.

Both the levels and the setting names are closed sets: ``Level`` and ``Setting`` below are the one
list of each (mypy checks every row a target writes; a row built at run time with another name is
refused when it is made). A new setting is a new name in ``Setting``. A row that several targets
write in the same words is a helper here, so the report says the same thing the same way.

Every "enforced" row names the test that proves it in ``proven_by``, a pytest node id
(``tests/e2e/test_limits.py::test_agent_is_stopped_at_the_kit_timeout``) written beside the row, so
the claim and its proof are read together; tests/compiler/test_fidelity_proofs.py fails when an
enforced row of any example kit names no test, or a test that does not exist. A row whose
mechanism needs something this repository cannot run (a cluster, GitHub's runners) ends its reason
with ``PROVEN_STATICALLY`` and names the test that checks the generated output instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, get_args

from sandkit.compiler.engine import budget, has_workspace_tmpfs, tmpfs_bytes

if TYPE_CHECKING:
    from sandkit.compiler.plan import Plan

#: "not applicable": the setting is not this target's to hold (an image does not choose its network
#: or its scheduler); such a row is shown for information and never fails ``--strict``.
Level = Literal["enforced", "best-effort", "unsupported", "not applicable"]
LEVELS: tuple[Level, ...] = get_args(Level)
#: The words a row ends with when its proof is a check of the generated files, not a run.
PROVEN_STATICALLY = "enforced by the manifest, proven statically"

#: Every setting a fidelity row may name: kit fields (dotted, as in the kit), and a few aspects that
#: are not one field (capabilities, build secrets, the editor's server, what part of an agent a
#: process sandbox covers, text a target would substitute in).
Setting = Literal[
    "agent.command",
    "agent.instructions",
    "capabilities",
    "editor credentials",
    "editor server",
    "env",
    "files",
    "image build cache",
    "image.base",
    "image.ca_certificates",
    "image.packages",
    "image.user",
    "install",
    "isolation.docker",
    "isolation.read_only_root",
    "isolation.runtime",
    "network.deny",
    "network.egress",
    "ports",
    "ports.http",
    "resources.cpus",
    "resources.disk",
    "resources.memory",
    "resources.pids",
    "resources.timeout",
    "sandbox scope",
    "secrets",
    "secrets (build)",
    "secrets.inject",
    "session record",
    "startup",
    "targets.actions.permissions",
    "targets.actions.publish",
    "targets.kubernetes.sandbox_crd",
    "triggers",
    "triggers.webhook",
    "triggers.webhook.max_sessions",
    "triggers.webhook.per_minute",
    "triggers.webhook.secret",
    "value substitution",
    "workspace.git",
    "workspace.mode",
]
SETTINGS: tuple[Setting, ...] = get_args(Setting)


@dataclass(frozen=True)
class Fidelity:
    setting: Setting
    level: Level
    reason: str
    requested: bool = True  # False: reported for information, never fails --strict
    #: The pytest node id of the test that proves an "enforced" row (see the module docstring).
    proven_by: str = ""

    def __post_init__(self) -> None:
        if self.setting not in SETTINGS:
            raise ValueError(f"unknown fidelity setting {self.setting!r}: add it to Setting in fidelity.py")
        if self.level not in LEVELS:
            raise ValueError(f"unknown fidelity level {self.level!r}")

    def as_dict(self) -> dict[str, str]:
        return {"level": self.level, "reason": self.reason}


#: The end-to-end proof that squid refuses a denied name inside an allowed wildcard.
SQUID_DENY_PROOF = "tests/e2e/test_egress.py::test_deny_beats_allow"


def proxy_deny_row(plan: Plan, enforced_reason: str, proven_by: str = SQUID_DENY_PROOF) -> Fidelity:
    """network.deny for targets whose squid proxy applies it: only an allowlist has a proxy."""
    if plan.egress == "allowlist":
        return Fidelity("network.deny", "enforced", enforced_reason, proven_by=proven_by)
    return Fidelity(
        "network.deny",
        "unsupported",
        f"with egress {plan.egress} there is no proxy to apply a deny list",
        requested=bool(plan.deny) and plan.egress == "open",
    )


#: The end-to-end proof of compose's session record (docs/record.md).
RECORD_PROOF = "tests/e2e/test_record.py::test_the_agent_cannot_edit_delete_flood_or_forge_the_record"
ACTIONS_RECORD_PROOF = (
    "tests/compiler/test_actions_docker.py::test_the_jobs_steps_hold_a_hostile_agent_and_leave_nothing_behind"
)


def record_row(plan: Plan, target: str) -> Fidelity:
    """session record: what a target keeps of the proxy's decisions (docs/record.md); never requested by a
    kit, so never a --strict failure."""
    if plan.egress != "allowlist":
        reason = f"with egress {plan.egress} there is no proxy, so no decision to record"
        return Fidelity("session record", "unsupported", reason, requested=False)
    if target == "compose":
        reason = (
            "one file of JSON lines per session (start, every decision with its reason, end) in the volume "
            "session-record, which only the proxy and the deadline mount; capped at 8 MiB with the cap recorded; "
            "the agent's exit status and image ID are not in it (sandkit record reads them from the engine while "
            "the containers exist)"
        )
        return Fidelity("session record", "enforced", reason, requested=False, proven_by=RECORD_PROOF)
    if target == "kubernetes":
        reason = (
            "no session file: the proxy container's standard output holds the record's lines (start, every decision "
            "with its reason, the pod from the downward API and the proxy's session, end), kept as long as the "
            "cluster's logging keeps the pod's log"
        )
    else:
        reason = (
            "the proxy writes the session's file into a runner folder that only its container mounts; after the "
            "agent's step, a step stops the proxy (the end line), writes the refusals into the job summary and "
            "uploads the file as the artifact sandkit-record-KIT, with an outcome line from the runner (the agent's "
            "exit status and image ID; the deadline is not marked in it)"
        )
        return Fidelity("session record", "enforced", reason, requested=False, proven_by=ACTIONS_RECORD_PROOF)
    return Fidelity("session record", "best-effort", reason, requested=False)


def read_only_row(plan: Plan, mechanism: str, proven_by: str) -> Fidelity:
    """isolation.read_only_root, enforced by ``mechanism`` unless the kit turns it off."""
    if plan.read_only_root:
        return Fidelity("isolation.read_only_root", "enforced", mechanism, proven_by=proven_by)
    return Fidelity("isolation.read_only_root", "best-effort", "the kit turns the read-only root off")


def entrypoint_timeout_row() -> Fidelity:
    """resources.timeout where the image's own entrypoint is the only bound (the image alone)."""
    return Fidelity(
        "resources.timeout",
        "best-effort",
        "the entrypoint runs the agent under timeout(1), which runs as the agent's uid: an agent that stops "
        "its parent (kill -STOP $PPID) outlives it; the compose and actions targets end the session from outside",
    )


#: The end-to-end proofs of the deadline (an agent that stops its own timeout) and of the disk bounds.
DEADLINE_PROOF = "tests/e2e/test_limits.py::test_an_agent_that_stops_its_parent_still_ends_at_the_timeout"
DISK_PROOF = "tests/e2e/test_limits.py::test_the_session_writes_no_more_than_resources_disk_in_all"


def deadline_timeout_row(plan: Plan, ends: str, proven_by: str = DEADLINE_PROOF) -> Fidelity:
    """resources.timeout for a Docker engine session with a deadline container; ``ends``: who stops the rest
    where the agent cannot join the deadline's PID namespace; ``proven_by``: the test of the target's setup."""
    asked = (
        f"timeout(1) in the entrypoint asks the agent to stop at {plan.timeout_seconds} s (start-up included) "
        f"and kills it {plan.grace_seconds} s later"
    )
    if plan.docker_runtime is None:
        return Fidelity(
            "resources.timeout",
            "enforced",
            f"{asked}; whatever the agent does to that, the deadline container (another uid, whose PID namespace "
            f"the agent joins) exits at {plan.deadline_seconds} s and the kernel ends every process of the session",
            proven_by=proven_by,
        )
    return Fidelity(
        "resources.timeout",
        "best-effort",
        f"{asked}, as the agent's uid; {plan.runtime} cannot join the deadline container's PID namespace, so "
        f"the session ends at {plan.deadline_seconds} s only as {ends}",
    )


#: The end-to-end proof of an ssh clone: through the proxy's CONNECT, pinned host keys, a key from a secret.
SSH_CLONE_PROOF = "tests/e2e/test_ssh_clone.py::test_ssh_clone_of_a_private_repository_goes_through_the_proxy"


def clone_access(plan: Plan) -> str:
    """How the image's clone reaches a private repository, in the words every container target uses ("" if plain)."""
    if plan.clone_over_ssh:
        return (
            "; ssh only through the image's wrapper: the egress proxy's CONNECT to the allowed host:port, no host "
            "key but workspace.known_hosts"
            + (", workspace.ssh_key copied into a private file for each connection" if plan.workspace_ssh_key else "")
        )
    if plan.workspace_token:
        return "; workspace.token only through git's credential helper, for the repository's own host"
    return ""


def engine_disk_row(plan: Plan, mounted_folder: bool, proven_by: str = DISK_PROOF) -> Fidelity:
    """resources.disk for a Docker engine session: one budget shared by its tmpfs folders, and bounded logs
    (the logs' proof is tests/e2e/test_limits.py::test_the_engine_keeps_a_bounded_log_of_the_agents_output)."""
    logs = "every container's json-file log keeps at most 3 files of 10 MB"
    home, tmp = tmpfs_bytes(plan, "home"), tmpfs_bytes(plan, "tmp")
    if mounted_folder:
        return Fidelity(
            "resources.disk",
            "best-effort",
            f"the mounted host folder is the host's own disk, unbounded; home and /tmp are tmpfs of {home} and "
            f"{tmp} bytes, together at most {budget(plan)}; {logs}",
        )
    places = f"home {home} and /tmp {tmp} bytes"
    if has_workspace_tmpfs(plan):
        places = f"the workspace {tmpfs_bytes(plan, 'workspace')}, " + places
    return Fidelity(
        "resources.disk",
        "enforced",
        f"one budget of {budget(plan)} bytes (resources.disk, or resources.memory where smaller: tmpfs pages count "
        f"against it) shared by the session's writable places: {places}, each a tmpfs of that size; {logs}",
        proven_by=proven_by,
    )


#: What a published port leaves to the browser and to the engine (compose and the dev container say it).
PORTS_CAVEATS = (
    "; a page the agent serves runs in your browser, which lets a page send what it holds (and what you type "
    "into it) to any host and open any address your machine reaches unless the response says otherwise: only "
    "ports marked `http: true` get sandkit's headers (the ports.http row), so open previews in a browser profile "
    "without your sessions; Docker Engine before 28.0 also lets machines on the local link reach a port "
    "published on 127.0.0.1 (moby/moby#45610): use 28.0 or later (sandkit verify fails its engine-loopback-ports "
    "row on an older one)"
)
#: The test that fetches an `http: true` port through the forwarder and a raw one beside it.
PREVIEW_PROOF = "tests/e2e/test_ports.py::test_an_http_port_carries_the_preview_policy_in_place_of_the_apps"
#: What a browser honouring the preview's policy still lets the page do (compose and the dev container).
PREVIEW_LEFT_OPEN = (
    "; the browser enforces it, so it is as good as the browser: a page may still navigate itself or open a "
    "window to any address with data in the URL (links, window.open, location, a meta refresh), name a host "
    "in a <link rel=dns-prefetch/preconnect> or a WebRTC candidate that the browser resolves or contacts, read "
    "and set the cookies other ports of the same host keep (cookies are not separated by port), and register a "
    "service worker that outlives the session on that origin; a page opened through the editor's own "
    "forwarding or another proxy gets none of it"
)


def preview_row(plan: Plan) -> Fidelity | None:
    """ports.http for compose and the dev container: the forwarder's nginx, or nothing with egress open."""
    http = sorted({port.container for port in plan.ports if port.http})
    if not http:
        return None
    listed = ", ".join(str(port) for port in http)
    if plan.egress != "allowlist":
        return Fidelity(
            "ports.http",
            "unsupported",
            f"with egress {plan.egress} Docker publishes the agent's own port {listed} (or nothing): no proxy "
            "sets the preview's headers, and the page may send anywhere",
        )
    return Fidelity(
        "ports.http",
        "enforced",
        f"the port forwarder serves port {listed} through nginx, which sets on every response a "
        "Content-Security-Policy keeping fetches, subresources, forms and the base URL on the preview's origin and "
        "refusing to be framed, with Cross-Origin-Opener-Policy, Referrer-Policy no-referrer and nosniff, and drops "
        "the application's own CSP, CORS, reporting and Link headers, so the agent can neither loosen the policy "
        "nor let another origin read the preview" + PREVIEW_LEFT_OPEN,
        proven_by=PREVIEW_PROOF,
    )


def engine_runtime_row(plan: Plan, named: str, proofs: tuple[str, str]) -> Fidelity:
    """isolation.runtime on a Docker engine: ``named`` says how the kit's runtime is asked for.

    ``proofs``: the tests of (a named runtime, the default runtime with its seccomp profile).
    """
    if plan.docker_runtime:
        return Fidelity("isolation.runtime", "enforced", named, proven_by=proofs[0])
    default = "Docker's default runtime (runc) with its default seccomp profile"
    return Fidelity("isolation.runtime", "enforced", default, proven_by=proofs[1])


def manual_only_trigger_row(plan: Plan, unsupported_reason: str) -> Fidelity | None:
    """triggers for a target that a person starts: a manual trigger is that; schedules and events are not."""
    if not plan.triggers.requested:
        return None
    if plan.triggers.schedules or plan.triggers.github or plan.triggers.webhooks:
        return Fidelity("triggers", "unsupported", unsupported_reason)
    return Fidelity(
        "triggers",
        "enforced",
        "manual: a person starts it, as the kit asks",
        proven_by="tests/e2e/test_behaviour.py::test_startup_commands_run_as_the_agent_user_before_the_agent",
    )


def ports_without_network_row() -> Fidelity:
    """ports with egress none, for the targets that publish them otherwise (compose and the dev container)."""
    return Fidelity(
        "ports",
        "unsupported",
        "with egress none the agent has no network, so nothing reaches its ports; egress allowlist with no hosts "
        "publishes them through the port forwarder and reaches nothing else",
    )


def hardened_container_docker_rows(plan: Plan) -> list[Fidelity]:
    """isolation.docker for a hardened Docker engine container: unsupported, if the kit asks for it."""
    if plan.in_sandbox_docker == "none":
        return []
    reason = (
        "a rootless daemon inside the sandbox needs user namespaces and mounts that a "
        "hardened container does not grant; sandkit never mounts the host's socket"
    )
    return [Fidelity("isolation.docker", "unsupported", reason)]


def webhook_unsupported_rows(plan: Plan) -> list[Fidelity]:
    """triggers.webhook where no event engine runs: the targets that have one are named."""
    if not plan.triggers.webhooks:
        return []
    reason = (
        "nothing here receives webhooks; the kubernetes target (Argo Events) and the actions target "
        "(repository_dispatch, workflow_dispatch) start the agent from them"
    )
    return [Fidelity("triggers.webhook", "unsupported", reason)]


def inject_rows(plan: Plan, unable: str | None, enforced: str = "", proven_by: str = "") -> list[Fidelity]:
    """secrets.inject: ``enforced`` where the target's proxy injects, else why not (``unable``).

    Where no proxy injects, the agent receives the secret like any other, so the kit still works
    there; the row says so on every build but does not fail ``--strict`` (docs/secrets.md).
    """
    if not plan.injections:
        return []
    names = ", ".join(plan.injected_secrets)
    if plan.egress != "allowlist":
        unable = f"with egress {plan.egress} there is no proxy to inject"
    if unable is not None:
        return [Fidelity("secrets.inject", "unsupported", f"{unable}: the agent receives {names}", requested=False)]
    return [Fidelity("secrets.inject", "enforced", enforced, proven_by=proven_by)]


def _fully_held(per_target: dict[str, Fidelity], targets: list[str] | tuple[str, ...]) -> bool:
    """Every one of ``targets`` that holds the setting at all enforces it."""
    return all(row.level in ("enforced", "not applicable") for t, row in per_target.items() if t in targets)


#: The widest a printed table or legend line may be: a terminal of 100 columns holds it unwrapped.
WIDTH = 100
#: How a level is written in the printed table (fidelity.json keeps the full words).
CELLS: dict[str, str] = {"not applicable": "n/a"}
LEGEND = (
    "enforced: held whatever the agent does   best-effort: held in part, or while the agent plays along\n"
    "unsupported: the target cannot hold it   n/a: not this target's to hold   -: not in its files\n"
)


def table(
    levels: Mapping[str, Mapping[str, str]],
    targets: list[str],
    settings: list[str] | None = None,
    *,
    indent: str = "",
) -> str:
    """A fixed-width table of ``levels`` (setting -> target -> level): one row per setting (all, or
    ``settings``), one column per target; as many targets as fit in :data:`WIDTH` columns side by
    side, the rest in further blocks below. ``indent`` starts every line (and counts in the width)."""
    shown = sorted(levels) if settings is None else settings
    width = max([len(s) for s in shown] + [len("setting")])
    cells = {s: [CELLS.get(level, level) if (level := levels[s].get(t)) else "-" for t in targets] for s in shown}
    columns = [max([len(t)] + [len(cells[s][i]) for s in shown]) for i, t in enumerate(targets)]
    blocks: list[list[int]] = [[]]
    used = len(indent) + width
    for index, column in enumerate(columns):
        if blocks[-1] and used + 2 + column > WIDTH:
            blocks.append([])
            used = len(indent) + width
        blocks[-1].append(index)
        used += 2 + column
    out: list[str] = []
    for block in blocks:
        out += [""] if out else []
        out.append(indent + "  ".join(["setting".ljust(width), *(targets[i].ljust(columns[i]) for i in block)]))
        for setting in shown:
            out.append(
                indent + "  ".join([setting.ljust(width), *(cells[setting][i].ljust(columns[i]) for i in block)])
            )
    return "\n".join(line.rstrip() for line in out) + "\n"


def levels_of(rows: Mapping[str, Mapping[str, Fidelity]]) -> dict[str, dict[str, str]]:
    """setting -> target -> level, what :func:`table` shows."""
    return {setting: {t: row.level for t, row in per_target.items()} for setting, per_target in rows.items()}


def report(
    rows: dict[str, dict[str, Fidelity]],
    built: list[str],
    where: str,
    *,
    kit_targets: list[str] | None = None,
    verbose: bool = False,
) -> str:
    """What a build prints: for the kit's own targets (``kit_targets``: those asked for, by
    ``--target`` or ``targets.build``), the settings one of them does not fully enforce, a legend and
    one summary line over those targets. With ``verbose``: every setting and every target built
    (those the kit's targets need too); the summary still counts the kit's targets only."""
    own = [t for t in built if kit_targets is None or t in kit_targets]
    held_by_own = [s for s in sorted(rows) if any(t in own for t in rows[s])]
    below = [s for s in held_by_own if not _fully_held(rows[s], own)]
    on = (
        own[0]
        if len(own) == 1
        else f"each of the kit's {len(own)} targets"
        if len(own) < len(built)
        else "every target"
    )
    summary = (
        f"fidelity: {len(held_by_own) - len(below)} of {len(held_by_own)} settings enforced by {on}"
        + (" that holds them" if len(own) > 1 else "")
        + (f", {len(below)} not (above)" if below else "")
        + f"\nevery reason in {where}"
    )
    if verbose:
        return table(levels_of(rows), built) + LEGEND + summary + "\n"
    hidden = "setting and target" if len(own) < len(built) else "setting"
    shown = (table(levels_of(rows), own, below) + LEGEND) if below else ""
    return shown + summary + f"; --verbose prints every {hidden}\n"
