"""Policy changes between two versions of one kit: one small detector per part of the policy.

A detector compares two :class:`~sandkit.review.policy.Policy` objects and yields a
:class:`Change` per difference, naming the kind (its level and reason are in
:mod:`sandkit.review.risks`), the kit field, and a sentence whose ``{}`` holes are filled with the
values concerned. Values come from the kits, so they stay apart from the sentence: each output
format quotes them its own way (a code span in Markdown, escapes in a terminal).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from sandkit.compiler.plan import Destination
from sandkit.compiler.secret_routes import reachable
from sandkit.kits.hosts import wildcard_domain
from sandkit.review.policy import (
    Filters,
    Hook,
    Policy,
    compared_fields,
    package_name,
    package_version,
)
from sandkit.review.risks import RISKS, Risk

Detector = Callable[[Policy, Policy], Iterator["Change"]]
DETECTORS: list[Detector] = []


@dataclass(frozen=True)
class Change:
    """One policy change: its kind, the kit setting, and a sentence with ``{}`` for each value."""

    kind: str
    setting: str
    template: str
    values: tuple[str, ...] = ()
    before: Any = field(default=None, compare=False)
    after: Any = field(default=None, compare=False)

    @property
    def risk(self) -> Risk:
        return RISKS[self.kind]

    def message(self, quote: Callable[[str], str] = repr) -> str:
        return self.template.format(*(quote(v) for v in self.values))


def detector(function: Detector) -> Detector:
    DETECTORS.append(function)
    return function


def compare(base: Policy, head: Policy) -> list[Change]:
    """Every policy change from ``base`` to ``head``; none when they mean the same."""
    changes = together([change for detect in DETECTORS for change in detect(base, head)])
    if not changes and base != head:
        differing = [name for name in compared_fields() if getattr(base, name) != getattr(head, name)]
        changes.append(Change("other-change", ", ".join(differing), "{} changed", (", ".join(differing),)))
    return changes


def _plural(values: Iterable[str]) -> str:
    return ", ".join(sorted(values))


# ----- the kit ------------------------------------------------------------------------------
@detector
def renamed(base: Policy, head: Policy) -> Iterator[Change]:
    if base.name != head.name:
        yield Change("kit-renamed", "name", "the kit is now called {} (was {})", (head.name, base.name))


# ----- network ------------------------------------------------------------------------------
def _reach(policy: Policy) -> set[Destination]:
    """The allow entries a deny entry does not cover."""
    return {a for a in policy.allow if not any(d.covers(a) for d in policy.deny)}


@detector
def egress(base: Policy, head: Policy) -> Iterator[Change]:
    if head.egress == base.egress == "none" or head.egress == base.egress == "open":
        return
    if head.egress == "open":
        yield Change("egress-opened", "network.egress", "egress is open (was {})", (base.egress,))
        return
    if head.egress == "none":
        yield Change("egress-narrowed", "network.egress", "egress is none: no network at all (was {})", (base.egress,))
        return
    if base.egress == "open":
        yield Change("egress-narrowed", "network.egress", "egress is an allowlist (was open)")
    elif base.egress == "none":
        yield Change("egress-enabled", "network.egress", "egress is an allowlist (was none)")
    before = _reach(base) if base.egress == "allowlist" else set()
    after = _reach(head)
    if base.egress != "open":
        yield from _destinations(before, after)
    yield from _denies(base, head)


def _destinations(before: set[Destination], after: set[Destination]) -> Iterator[Change]:
    for dest in sorted(after - before):
        if any(old.covers(dest) for old in before):
            continue  # an existing wildcard already allowed it
        if dest.wildcard:
            yield Change(
                "wildcard-added",
                "network.allow",
                "{} may be reached: every name one label under {}",
                (str(dest), str(wildcard_domain(dest.host))),
            )
        elif any(old.host == dest.host for old in before):
            yield Change("port-added", "network.allow", "{} may be reached (a new port on that host)", (str(dest),))
        else:
            yield Change("host-added", "network.allow", "{} may be reached", (str(dest),))
    for dest in sorted(before - after):
        if not any(new.covers(dest) for new in after):
            yield Change("host-removed", "network.allow", "{} is no longer reachable", (str(dest),))


def _denies(base: Policy, head: Policy) -> Iterator[Change]:
    for dest in sorted(base.deny - head.deny):
        yield Change("deny-removed", "network.deny", "{} is no longer denied", (str(dest),))
    for dest in sorted(head.deny - base.deny):
        yield Change("deny-added", "network.deny", "{} is denied", (str(dest),))


# ----- secrets ------------------------------------------------------------------------------
@detector
def secrets(base: Policy, head: Policy) -> Iterator[Change]:
    for name in sorted(head.secrets.keys() - base.secrets.keys()):
        if head.secrets[name].build_only:
            yield Change("build-secret-added", "secrets", "{} is given to install commands at build", (name,))
        elif head.secrets[name].inject:
            where = _plural(head.secrets[name].inject)
            yield Change("injected-secret-added", "secrets", "{} is added by the egress proxy as {}", (name, where))
        else:
            yield Change("secret-added", "secrets", "{} is in the agent's environment", (name,))
    for name in sorted(base.secrets.keys() - head.secrets.keys()):
        yield Change("secret-removed", "secrets", "{} is no longer given", (name,))
    for name in sorted(base.secrets.keys() & head.secrets.keys()):
        old, new = base.secrets[name], head.secrets[name]
        if old.build_only and not new.build_only:
            yield Change(
                "secret-broadened", "secrets", "{} now reaches the agent at run time (was build only)", (name,)
            )
        elif new.build_only and not old.build_only:
            yield Change("secret-narrowed", "secrets", "{} is now given to the build only", (name,))
        if old.required != new.required:
            state = "required" if new.required else "optional"
            yield Change("secret-changed", "secrets", "{} is now " + state, (name,))
        if not new.build_only:
            yield from _injection(name, old.inject, new.inject)


@detector
def secret_reach(base: Policy, head: Policy) -> Iterator[Change]:
    """An injected secret whose value the agent now holds on a target where it did not: that target's proxy
    does not inject (egress opened or closed, Kubernetes' Cilium egress, a process sandbox added to
    targets.build). A secret that is not injected at all is secret-added's, -broadened's or -exposed's."""
    if base == head:
        return  # the same policy: the same routes (and no target's rows to compute)
    for name, secret in sorted(head.secrets.items()):
        if secret.build_only or not secret.inject:
            continue
        grown = reachable(head.routes.get(name, {})) - reachable(base.routes.get(name, {}))
        if grown:
            where = ", ".join(t for t in head.routes[name] if t in grown)
            yield Change(
                "secret-reaches-agent",
                "secrets.inject",
                "{} reaches the agent on {}, where no proxy injects it",
                (name, where),
            )


def _injection(name: str, old: frozenset[str], new: frozenset[str]) -> Iterator[Change]:
    """secrets[].inject: the proxy holding the value back from the agent, and where it sends it."""
    where = "secrets.inject"
    if old and not new:
        yield Change("secret-exposed", where, "{} is no longer injected: the agent holds its value", (name,))
    elif new and not old:
        yield Change("secret-withheld", where, "{} is now added by the egress proxy as {}", (name, _plural(new)))
    else:
        for place in sorted(new - old):
            yield Change("injection-added", where, "the egress proxy now adds {} as {}", (name, place))
        for place in sorted(old - new):
            yield Change("injection-removed", where, "the egress proxy no longer adds {} as {}", (name, place))


# ----- isolation and limits -----------------------------------------------------------------
@detector
def isolation(base: Policy, head: Policy) -> Iterator[Change]:
    if base.runtime != head.runtime:
        kind = (
            "runtime-weakened"
            if head.runtime == "default"
            else ("runtime-strengthened" if base.runtime == "default" else "runtime-changed")
        )
        yield Change(kind, "isolation.runtime", "runtime {} (was {})", (head.runtime, base.runtime))
    if base.read_only_root and not head.read_only_root:
        yield Change("read-only-root-off", "isolation.read_only_root", "the root filesystem is writable")
    elif head.read_only_root and not base.read_only_root:
        yield Change("read-only-root-on", "isolation.read_only_root", "the root filesystem is read-only")
    if base.docker != head.docker:
        kind = "docker-in-sandbox" if head.docker == "rootless" else "docker-removed"
        yield Change(kind, "isolation.docker", "in-sandbox Docker {} (was {})", (head.docker, base.docker))
    if (base.user, base.uid) != (head.user, head.uid):
        yield Change(
            "user-changed",
            "image.user",
            "the agent runs as {} (was {})",
            (f"{head.user} ({head.uid})", f"{base.user} ({base.uid})"),
        )


def _bytes(value: int) -> str:
    for unit, factor in (("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
        if value >= factor and value % factor == 0:
            return f"{value // factor}{unit}"
    return f"{value} bytes"


def duration(seconds: int) -> str:
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return "".join(f"{n}{u}" for n, u in ((hours, "h"), (minutes, "m"), (secs, "s")) if n) or "0s"


LIMITS: dict[str, Callable[[Any], str]] = {"cpus": lambda v: f"{v:g}", "memory": _bytes, "pids": str, "disk": _bytes}


def show_limit(name: str, value: Any) -> str:
    return LIMITS[name](value) if name in LIMITS else duration(value)


@detector
def limits(base: Policy, head: Policy) -> Iterator[Change]:
    for name in (*LIMITS, "timeout"):
        old, new = getattr(base, name), getattr(head, name)
        if old == new:
            continue
        raised = new > old
        kind = ("timeout-" if name == "timeout" else "limit-") + ("raised" if raised else "lowered")
        yield Change(
            kind, f"resources.{name}", f"{name} {{}} (was {{}})", (show_limit(name, new), show_limit(name, old))
        )


# ----- triggers and permissions -------------------------------------------------------------
Phrases = list[tuple[str, tuple[str, ...]]]


def _filter_changes(old: Filters, new: Filters) -> tuple[Phrases, Phrases]:
    """Phrases (with their values) saying how ``new`` admits more events than ``old``, and fewer."""
    wider: Phrases = []
    narrower: Phrases = []
    for name in ("types", "branches", "paths"):
        before, after = getattr(old, name), getattr(new, name)
        if before == after:
            continue
        if after is None:
            wider.append((f"any {name} (the {name} filter is gone)", ()))
        elif before is None:
            narrower.append((f"{name} limited to {{}}", (_plural(after),)))
        else:
            if after - before:
                wider.append((f"{name} also {{}}", (_plural(after - before),)))
            if before - after:
                narrower.append((f"{name} no longer {{}}", (_plural(before - after),)))
    return wider, narrower


def _joined(event: str, phrases: Phrases) -> tuple[str, tuple[str, ...]]:
    return "{}: " + "; ".join(text for text, _ in phrases), (event, *(v for _, values in phrases for v in values))


@detector
def triggers(base: Policy, head: Policy) -> Iterator[Change]:
    for event in sorted(head.events.keys() - base.events.keys()):
        kind = "untrusted-trigger-added" if head.untrusted(event) else "trigger-added"
        yield Change(kind, "triggers", "the GitHub event {} starts the agent", (event,))
    for event in sorted(base.events.keys() - head.events.keys()):
        yield Change("trigger-removed", "triggers", "the GitHub event {} no longer starts the agent", (event,))
    for event in sorted(base.events.keys() & head.events.keys()):
        wider, narrower = _filter_changes(base.events[event], head.events[event])
        if wider:
            kind = "untrusted-trigger-broadened" if head.untrusted(event) else "trigger-broadened"
            yield Change(kind, "triggers", *_joined(event, wider))
        if head.untrusted(event) and not base.untrusted(event):
            text = "{}: comments from authors without write access, or bots, now start the agent"
            yield Change("untrusted-trigger-broadened", "triggers", text, (event,))
        if narrower:
            yield Change("trigger-narrowed", "triggers", *_joined(event, narrower))
    for cron in sorted(head.schedules - base.schedules):
        yield Change("schedule-added", "triggers", "runs on the schedule {}", (cron,))
    for cron in sorted(base.schedules - head.schedules):
        yield Change("trigger-removed", "triggers", "no longer runs on the schedule {}", (cron,))
    if head.manual and not base.manual:
        yield Change("manual-trigger-added", "triggers", "can be started by hand")
    elif base.manual and not head.manual:
        yield Change("trigger-removed", "triggers", "can no longer be started by hand")


@detector
def webhooks(base: Policy, head: Policy) -> Iterator[Change]:
    """Whoever can post to a webhook's source writes the agent's event: every widening is untrusted."""
    for name in sorted(head.webhooks.keys() - base.webhooks.keys()):
        hook = head.webhooks[name]
        fields = _plural(frozenset(f for f, _ in hook.fields))
        yield Change(
            "untrusted-trigger-added",
            "triggers",
            "the {} webhook {} starts the agent and shows it {}",
            (hook.source, name, fields),
        )
    for name in sorted(base.webhooks.keys() - head.webhooks.keys()):
        yield Change("trigger-removed", "triggers", "the webhook {} no longer starts the agent", (name,))
    for name in sorted(base.webhooks.keys() & head.webhooks.keys()):
        wider, narrower = _webhook_changes(base.webhooks[name], head.webhooks[name])
        if wider:
            yield Change("untrusted-trigger-broadened", "triggers", *_joined(f"webhook {name}", wider))
        if narrower:
            yield Change("trigger-narrowed", "triggers", *_joined(f"webhook {name}", narrower))


def _webhook_changes(old: Hook, new: Hook) -> tuple[Phrases, Phrases]:
    wider: Phrases = []
    narrower: Phrases = []
    before, after = dict(old.filters), dict(new.filters)
    for path in sorted(before.keys() | after.keys()):
        if path not in after:
            wider.append(("the filter on {} is gone", (path,)))
        elif path not in before:
            narrower.append(("{} must be {}", (path, _plural(after[path]))))
        elif after[path] - before[path]:
            wider.append(("{} may also be {}", (path, _plural(after[path] - before[path]))))
        elif before[path] - after[path]:
            narrower.append(("{} no longer {}", (path, _plural(before[path] - after[path]))))
    if new.fields - old.fields:
        wider.append(
            ("the agent also sees {}", (_plural(frozenset(f"{n} ({p})" for n, p in new.fields - old.fields)),))
        )
    if old.fields - new.fields:
        narrower.append(("the agent no longer sees {}", (_plural(frozenset(n for n, _ in old.fields - new.fields)),)))
    for label, was, now in (
        ("sessions at once", old.max_sessions, new.max_sessions),
        ("a minute", old.per_minute, new.per_minute),
    ):
        if now != was:
            (wider if now > was else narrower).append((f"{{}} {label} (was {{}})", (str(now), str(was))))
    return wider, narrower


def _credentials(policy: Policy) -> list[str]:
    return [*policy.runtime_secrets(), *(f"{scope}: write" for scope in policy.write_scopes())]


@detector
def untrusted_with_credentials(base: Policy, head: Policy) -> Iterator[Change]:
    """What is dangerous together: outside text starts an agent that holds a write token or secrets
    (critical when that pair is new) and, worse, that may connect anywhere (critical when open egress
    joins the pair: each of the three alone rates lower, the change that completes them rates this)."""
    events, held = head.triggered_by_untrusted(), _credentials(head)
    if not (events and held):
        return
    paired_before = bool(base.triggered_by_untrusted() and _credentials(base))
    if head.egress == "open" and not (paired_before and base.egress == "open"):
        yield Change(
            "untrusted-trigger-with-open-egress",
            "triggers, network.egress",
            "{} starts the agent, which holds {} and may connect anywhere",
            (_plural(events), _plural(held)),
        )
    elif not paired_before:
        yield Change(
            "untrusted-trigger-with-credentials",
            "triggers",
            "{} starts the agent, which holds {}",
            (_plural(events), _plural(held)),
        )


# ----- changes that are one risk together ----------------------------------------------------
#: Secret-name words that do not spell their service's domain name.
_SERVICE_ALIASES = {"aws": "amazonaws", "gh": "github", "gcp": "google", "gcloud": "google", "hf": "huggingface"}
#: Words of secret names that name no service.
# fmt: off
_NO_SERVICE = frozenset({
    "api", "app", "key", "keys", "token", "tokens", "secret", "secrets", "access", "id", "client", "private",
    "password", "pass", "auth", "session", "ssh", "deploy", "bot", "user", "account", "service", "default",
})
# fmt: on
_REACH_KINDS = ("host-added", "wildcard-added", "port-added")


def _service_words(secret: str) -> set[str]:
    """The words of a secret's name that may name its service (AWS_SECRET_ACCESS_KEY: amazonaws)."""
    words = (_SERVICE_ALIASES.get(w, w) for w in re.split(r"[^a-z0-9]+", secret.lower()))
    return {w for w in words if len(w) >= 3 and w not in _NO_SERVICE}


def _accepts(destination: str, words: set[str]) -> bool:
    """Whether a host's name (without its top-level label and a wildcard) starts or ends with a word
    of the secret's name: *.amazonaws.com for AWS_*, api.github.com and githubusercontent.com for GH_*."""
    labels = destination.rsplit(":", 1)[0].split(".")[:-1]
    return any(label.startswith(w) or label.endswith(w) for label in labels if label != "*" for w in words)


def together(changes: list[Change]) -> list[Change]:
    """A new secret and, in the same change, a new host of the service that accepts it (by name) are
    one risk: the two lines become one ``secret-with-its-service-added``, where the first stood."""
    secrets_added = [c for c in changes if c.kind == "secret-added"]
    reach = [c for c in changes if c.kind in _REACH_KINDS]
    merged: dict[tuple[str, ...], tuple[list[str], list[Change]]] = {}
    for secret in secrets_added:
        words = _service_words(secret.values[0])
        accepting = [c for c in reach if _accepts(c.values[0], words)]
        if accepting:
            key = tuple(c.values[0] for c in accepting)
            names, parts = merged.setdefault(key, ([], list(accepting)))
            names.append(secret.values[0])
            parts.append(secret)
    if not merged:
        return changes
    first: dict[int, Change] = {}
    gone: set[int] = set()
    for hosts, (names, parts) in merged.items():
        one = len(names) == 1
        wildcards = sorted(c.values for c in parts if c.kind == "wildcard-added")  # (host, domain)
        combined = Change(
            "secret-with-its-service-added",
            "secrets, network.allow",
            ", ".join(["{}"] * len(names))
            + (" is" if one else " are")
            + " in the agent's environment, and "
            + ", ".join(["{}"] * len(hosts))
            + ","
            + (" which accept" if len(hosts) > 1 else " which accepts")
            + (" it," if one else " them,")
            + " may be reached"
            + "".join("; {} is every name one label under {}" for _ in wildcards),
            (*sorted(names), *sorted(hosts), *(value for pair in wildcards for value in pair)),
        )
        first.setdefault(min(changes.index(c) for c in parts), combined)
        gone.update(changes.index(c) for c in parts)
    out: list[Change] = []
    for index, change in enumerate(changes):
        if index in first:
            out.append(first[index])
        if index not in gone:
            out.append(change)
    return out


_PERMISSION_RANK = {"": 0, "read": 1, "write": 2}


@detector
def permissions(base: Policy, head: Policy) -> Iterator[Change]:
    for scope in sorted(base.permissions.keys() | head.permissions.keys()):
        old, new = base.permissions.get(scope, ""), head.permissions.get(scope, "")
        if _PERMISSION_RANK[new] > _PERMISSION_RANK[old]:
            kind = "permission-write-added" if new == "write" else "permission-read-added"
            yield Change(kind, "targets.actions.permissions", "{} (was {})", (f"{scope}: {new}", old or "none"))
        elif _PERMISSION_RANK[new] < _PERMISSION_RANK[old]:
            yield Change(
                "permission-lowered", "targets.actions.permissions", "{} (was {})", (f"{scope}: {new or 'none'}", old)
            )
    if base.runs_on != head.runs_on:
        yield Change("runner-changed", "targets.actions.runs_on", "runs on {} (was {})", (head.runs_on, base.runs_on))


@detector
def target_settings(base: Policy, head: Policy) -> Iterator[Change]:
    for key in sorted(base.kubernetes.keys() | head.kubernetes.keys()):
        old, new = base.kubernetes.get(key), head.kubernetes.get(key)
        if old != new:
            yield Change("target-setting-changed", f"targets.kubernetes.{key}", "{} (was {})", (str(new), str(old)))


# ----- the agent and what it runs -----------------------------------------------------------
def _skipping_flags(command: tuple[str, ...]) -> dict[str, str]:
    """Approval-skipping flags on an agent command line (the linter's list): flag as written -> what it does."""
    from sandkit.lint.facts.agent_commands import dangerous_flags
    from sandkit.lint.syntax.shell import Word
    from sandkit.syntax.tree import Pos

    found = {}
    for word, _agent, what in dangerous_flags([Word(text, Pos(1, 1)) for text in command]):
        if what.startswith(word.text + " "):  # "--flag value what it does"
            flag, value, what = what.split(" ", 2)
            found[f"{flag} {value}"] = what
        else:
            found[word.text] = what
    return found


@detector
def agent(base: Policy, head: Policy) -> Iterator[Change]:
    if base.command != head.command:
        yield Change(
            "agent-command-changed",
            "agent.command",
            "the agent runs {} (was {})",
            (shlex.join(head.command), shlex.join(base.command) or "nothing"),
        )
        before, after = _skipping_flags(base.command), _skipping_flags(head.command)
        for flag in sorted(after.keys() - before.keys()):
            yield Change("approval-skipped", "agent.command", "{} " + after[flag], (flag,))
    if (base.instructions, base.instructions_file) != (head.instructions, head.instructions_file):
        where = head.instructions_file or "(no instruction file)"
        if head.instructions is None:
            message = "the agent reads {} (the kit writes no instructions into it)"
        else:
            lines = len(head.instructions.splitlines())
            message = "{} now holds " + f"{lines} line{'s' if lines != 1 else ''} of instructions"
        yield Change(
            "instructions-changed",
            "agent.instructions",
            message,
            (where,),
            before=base.instructions,
            after=head.instructions,
        )
    if base.presets != head.presets:
        yield Change(
            "preset-changed",
            "extends",
            "presets {} (were {})",
            (_plural(head.presets) or "none", _plural(base.presets) or "none"),
        )


@detector
def image(base: Policy, head: Policy) -> Iterator[Change]:
    if base.image == head.image:
        return
    if "@sha256:" in base.image and "@sha256:" not in head.image:
        yield Change("image-unpinned", "image.base", "{} (was {})", (head.image, base.image))
    else:
        yield Change("image-changed", "image.base", "{} (was {})", (head.image, base.image or "none"))


def _pinned(manager: str, version: str) -> bool:
    if manager == "npm":
        return version.startswith("@") and not re.search(r"[\^~<>*|xX ]|^@latest$|^@next$", version)
    if manager == "pip":
        return version.startswith("==") and "*" not in version
    return version.startswith("=")


@detector
def packages(base: Policy, head: Policy) -> Iterator[Change]:
    agents = base.agent_packages | head.agent_packages
    for manager in ("apt", "pip", "npm"):
        old = {package_name(manager, s): package_version(manager, s) for s in base.packages.get(manager, ())}
        new = {package_name(manager, s): package_version(manager, s) for s in head.packages.get(manager, ())}
        where = f"image.packages.{manager}"
        for name in sorted(new.keys() - old.keys()):
            yield Change("package-added", where, "{}", (name + new[name],))
        for name in sorted(old.keys() - new.keys()):
            yield Change("package-removed", where, "{}", (name + old[name],))
        for name in sorted(old.keys() & new.keys()):
            if old[name] == new[name]:
                continue
            if _pinned(manager, old[name]) and not _pinned(manager, new[name]):
                kind = "package-unpinned"
            else:
                kind = "agent-version-changed" if name in agents else "package-version-changed"
            yield Change(kind, where, "{} (was {})", (name + new[name], name + old[name]))


@detector
def certificates(base: Policy, head: Policy) -> Iterator[Change]:
    for path in sorted(head.ca_certificates):
        if base.ca_certificates.get(path) != head.ca_certificates[path]:
            verb = "is trusted" if path not in base.ca_certificates else "changed"
            yield Change("ca-added", "image.ca_certificates", "{} " + verb, (path,))
    for path in sorted(base.ca_certificates.keys() - head.ca_certificates.keys()):
        yield Change("ca-removed", "image.ca_certificates", "{} is no longer trusted", (path,))


_NETWORK_COMMAND = re.compile(
    r"(?i)\b(?:curl|wget|aria2c|fetch|scp|rsync|ssh|nc|git\s+(?:clone|fetch|pull|submodule)|"
    r"(?:pip3?|uv\s+pip|pipx|gem|cargo|go|composer)\s+(?:install|get|add)|uvx|npx|bunx|"
    r"(?:npm|pnpm|yarn|bun)\s+(?:install|i|ci|add|dlx|exec)|apt(?:-get)?\s+(?:install|update|upgrade)|"
    r"apk\s+add|dnf\s+install|yum\s+install|docker\s+(?:pull|run)|https?://)"
)


def _command_kind(command: str) -> str:
    from sandkit.lint.facts.agent_commands import FETCH_RUN

    if FETCH_RUN.search(command):
        return "fetch-and-run-added"
    return "network-command-added" if _NETWORK_COMMAND.search(command) else "command-added"


@detector
def commands(base: Policy, head: Policy) -> Iterator[Change]:
    for section in ("install", "startup"):
        old, new = getattr(base, section), getattr(head, section)
        for command in sorted(new - old):
            yield Change(_command_kind(command), section, "{}", (command,))
        for command in sorted(old - new):
            yield Change("command-removed", section, "{}", (command,))


@detector
def environment(base: Policy, head: Policy) -> Iterator[Change]:
    for name in sorted(base.env.keys() | head.env.keys()):
        old, new = base.env.get(name), head.env.get(name)
        if old == new:
            continue
        if old is None:
            yield Change("env-changed", f"env.{name}", "{} is set to {}", (name, str(new)))
        elif new is None:
            yield Change("env-changed", f"env.{name}", "{} is no longer set (was {})", (name, old))
        else:
            yield Change("env-changed", f"env.{name}", "{} is {} (was {})", (name, new, old))


# ----- files, workspace, ports --------------------------------------------------------------
#: Files a shell, git, a package manager or the dynamic linker reads and acts on by themselves.
_AUTORUN_HOME = frozenset(
    {
        ".bashrc",
        ".bash_profile",
        ".bash_login",
        ".profile",
        ".zshrc",
        ".zshenv",
        ".zprofile",
        ".config/fish/config.fish",
        ".gitconfig",
        ".config/git/config",
        ".npmrc",
        ".yarnrc",
        ".yarnrc.yml",
        ".pip/pip.conf",
        ".config/pip/pip.conf",
        ".pydistutils.cfg",
        ".curlrc",
        ".wgetrc",
        ".ssh/config",
        ".ssh/rc",
        ".docker/config.json",
    }
)
_AUTORUN_SYSTEM = (
    "/etc/profile",
    "/etc/profile.d/",
    "/etc/bash.bashrc",
    "/etc/environment",
    "/etc/ld.so.preload",
    "/etc/ld.so.conf.d/",
    "/etc/gitconfig",
    "/etc/pip.conf",
    "/etc/npmrc",
    "/usr/local/etc/npmrc",
    "/etc/sudoers",
    "/etc/sudoers.d/",
    "/usr/local/bin/",
    "/usr/local/sbin/",
)


def _file_kind(path: str, home: str) -> str:
    from sandkit.lint.kinds import in_agent_files

    in_home = path.startswith(home.rstrip("/") + "/")
    inside = path[len(home.rstrip("/")) + 1 :] if in_home else path.lstrip("/")
    if (in_home and inside in _AUTORUN_HOME) or path.startswith(_AUTORUN_SYSTEM) or in_agent_files(inside):
        return "autorun-file-added"
    return "home-file-added" if in_home else "file-added"


@detector
def placed_files(base: Policy, head: Policy) -> Iterator[Change]:
    for path in sorted(head.files):
        old, new = base.files.get(path), head.files[path]
        if old == new:
            continue
        if old is None:
            what = f"is placed in the image ({new.size} bytes, mode {new.mode})"
        elif old.sha256 != new.sha256:
            what = f"has new content ({new.size} bytes, mode {new.mode})"
        else:
            what = f"mode {new.mode} (was {old.mode})"
        yield Change(_file_kind(path, head.home), "files", "{} " + what, (path,))
    for path in sorted(base.files.keys() - head.files.keys()):
        yield Change("file-removed", "files", "{} is no longer placed in the image", (path,))


_WORKSPACE_REACH = {"none": 0, "clone": 0, "mount-readonly": 1, "mount": 2}


@detector
def workspace(base: Policy, head: Policy) -> Iterator[Change]:
    old, new = _WORKSPACE_REACH[base.workspace_mode], _WORKSPACE_REACH[head.workspace_mode]
    source = head.workspace_source or ""
    if new > old or (new and base.workspace_source != head.workspace_source):
        kind = "workspace-writable-mount" if new == 2 else "workspace-mount-added"
        yield Change(
            kind,
            "workspace",
            "mode {} of the host folder {} (was {})",
            (head.workspace_mode, source, base.workspace_mode),
        )
    elif new < old:
        yield Change(
            "workspace-narrowed", "workspace.mode", "mode {} (was {})", (head.workspace_mode, base.workspace_mode)
        )
    elif base.workspace_mode != head.workspace_mode:
        if head.workspace_mode == "clone":
            repo = head.workspace_repo or "the run's repository"
            yield Change(
                "workspace-changed", "workspace.mode", "mode clone of {} (was {})", (repo, base.workspace_mode)
            )
        else:
            yield Change(
                "workspace-changed", "workspace.mode", "mode {} (was {})", (head.workspace_mode, base.workspace_mode)
            )
    writable_git = (base.workspace_mode, base.workspace_git) == ("mount", "writable")
    if (head.workspace_mode, head.workspace_git) == ("mount", "writable") and not writable_git:
        yield Change("workspace-git-writable", "workspace.git", "writable in the host folder {}", (source,))
    for name in ("repo", "ref", "path") if base.workspace_mode == head.workspace_mode else ():
        before, after = getattr(base, f"workspace_{name}"), getattr(head, f"workspace_{name}")
        if before != after:
            yield Change(
                "workspace-changed", f"workspace.{name}", "{} (was {})", (str(after or "none"), str(before or "none"))
            )


@detector
def known_hosts(base: Policy, head: Policy) -> Iterator[Change]:
    """Host keys an ssh clone trusts: another key for a host it knew is how an impostor would be let in."""
    known = {host for host, _, _ in base.known_hosts}
    for host, kind, key in sorted(head.known_hosts - base.known_hosts):
        risk = "known-host-changed" if host in known else "known-host-added"
        yield Change(risk, "workspace.known_hosts", "{} {} {}", (host, kind, key))
    for host, kind, key in sorted(base.known_hosts - head.known_hosts):
        yield Change("known-host-removed", "workspace.known_hosts", "{} {} {}", (host, kind, key))


@detector
def ports(base: Policy, head: Policy) -> Iterator[Change]:
    for port in sorted(head.ports - base.ports, key=str):
        kind = "port-published" if port.host_ip.startswith("127.") or port.host_ip == "::1" else "port-exposed"
        yield Change(kind, "ports", "{}", (str(port),))
    for port in sorted(base.ports - head.ports, key=str):
        yield Change("port-removed", "ports", "{}", (str(port),))


def added_kit_baseline(head: Policy) -> Policy:
    """What a new kit is compared with: nothing granted, sandkit's defaults for the rest."""
    from sandkit.kits.model import Isolation, Resources
    from sandkit.review.policy import duration_seconds, quantity_bytes

    resources, isolation = Resources(), Isolation()
    return replace(
        head,
        command=(),
        instructions_file=None,
        instructions=None,
        image="",
        packages={},
        ca_certificates={},
        install=frozenset(),
        startup=frozenset(),
        env={},
        secrets={},
        route_maker=dict,
        egress="none",
        allow=frozenset(),
        deny=frozenset(),
        files={},
        workspace_mode="none",
        workspace_repo=None,
        workspace_ref=None,
        workspace_source=None,
        workspace_git="read-only",
        known_hosts=frozenset(),
        cpus=resources.cpus,
        memory=quantity_bytes(resources.memory),
        pids=resources.pids,
        disk=quantity_bytes(resources.disk),
        timeout=duration_seconds(resources.timeout),
        runtime=isolation.runtime,
        docker=isolation.docker,
        read_only_root=isolation.read_only_root,
        ports=frozenset(),
        schedules=frozenset(),
        manual=False,
        events={},
        webhooks={},
        permissions={},
        origins={},
    )
