"""``sandkit summary KIT...``: one kit's policy on a page a reviewer reads in a minute.

What the agent is and runs, what it can reach (each entry from a preset or a mixin marked), which
secrets it holds and where they go, what starts it, what it may write, its isolation and limits,
what in it rates high or above, and what each target enforces (the build's fidelity rows,
computed without rendering a file).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sandkit.errors import KitError
from sandkit.kits.discover import expand_kit_paths
from sandkit.kits.hosts import wildcard_domain
from sandkit.kits.loader import LoadedKit, load_kit
from sandkit.review.changes import LIMITS, added_kit_baseline, compare, show_limit
from sandkit.review.policy import Filters, Policy, policy_of
from sandkit.review.quote import md_code, terminal, text
from sandkit.review.report import ordered
from sandkit.review.risks import rank

#: A line of the summary: a sentence with ``{}`` for each value from the kit.
Line = tuple[str, tuple[str, ...]]


@dataclass
class Summary:
    policy: Policy
    sections: list[tuple[str, list[Line]]]
    fidelity: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)
    targets: list[str] = field(default_factory=list)
    #: Whether ``targets`` are the kit's own (its targets.build) rather than every target.
    own_targets: bool = False


def _line(p: Policy, section: str, item: str, template: str, *values: str) -> Line:
    """A line about one item, with where it came from (a preset, a mixin's path) when not the kit itself."""
    words, origin = _origin(p.origin(section, item))
    return (template + words, (*values, origin)) if origin else (template, values)


def _origin(origin: str) -> tuple[str, str]:
    """How to say where an item came from, and the value to quote: a preset's name or a mixin's path."""
    if origin.startswith("preset "):
        return " (from the preset {})", origin.removeprefix("preset ")
    return " (from {})", origin


def _agent(p: Policy) -> list[Line]:
    lines: list[Line] = [_line(p, "agent.command", "", "runs {}", shlex.join(p.command))]
    for preset in p.presets:
        packages = sorted(
            spec
            for manager in ("npm", "pip")
            for spec in p.packages.get(manager, ())
            if p.origin(f"image.packages.{manager}", spec) == f"preset {preset}"
        )
        lines.append(("from the preset {}" + ", installed as {}" * len(packages), (preset, *packages)))
    lines.append(("on the image {}, as the user {} " + f"(uid {p.uid})", (p.image, p.user)))
    if p.instructions_file or p.instructions:
        count = len((p.instructions or "").splitlines())
        lines.append(
            (
                "instructions: {}, " + f"{count} line{'s' if count != 1 else ''} from the kit",
                (p.instructions_file or "(none)",),
            )
        )
    return lines


def _runs(p: Policy) -> list[Line]:
    lines: list[Line] = []
    for manager in ("apt", "pip", "npm"):
        for spec in sorted(p.packages.get(manager, ())):
            lines.append(_line(p, f"image.packages.{manager}", spec, f"{manager} package {{}}", spec))
    for section, when in (("install", "at build, as root"), ("startup", "at every start, as the agent")):
        for command in p.order.get(section, ()):
            lines.append(_line(p, section, command, f"{section} ({when}): {{}}", command))
    for name in sorted(p.env):
        lines.append(_line(p, "env", name, "env {}={}", name, p.env[name]))
    return lines


def _reach(p: Policy) -> list[Line]:
    if p.egress == "none":
        return [("no network at all (egress: none)", ())]
    if p.egress == "open":
        return [("any host on any port (egress: open): nothing is held back", ())]
    lines: list[Line] = [("only these host:port pairs, through the allowlist proxy:", ())]
    denied = sorted(p.deny)
    for entry in p.order.get("allow", ()):
        dest = next(a for a in p.allow if str(a) == entry)
        notes: list[str] = []
        values = [entry]
        if dest.wildcard:
            notes.append("wildcard: every name one label under {}")
            values.append(str(wildcard_domain(dest.host)))
        if any(d.covers(dest) for d in denied):
            notes.append("denied, so dropped")
        words, origin = _origin(p.origin("network.allow", entry))
        if origin:
            notes.append(words.strip(" ()"))
            values.append(origin)
        lines.append(("  {}" + (f" ({'; '.join(notes)})" if notes else ""), tuple(values)))
    for dest in sorted(denied):
        lines.append(_line(p, "network.deny", str(dest), "  denied: {}", str(dest)))
    return lines


def _secrets(p: Policy) -> list[Line]:
    if not p.secrets:
        return [("none", ())]
    return [
        _line(p, "secrets", name, "{}" + f" ({'required' if s.required else 'optional'}): {s.where}", name)
        for name, s in sorted(p.secrets.items())
    ]


def _filters(filters: Filters) -> str:
    parts = [
        f"{name} {', '.join(sorted(value))}"
        for name in ("types", "branches", "paths")
        if (value := getattr(filters, name)) is not None
    ]
    return f" ({'; '.join(parts)})" if parts else ""


def _triggers(p: Policy) -> list[Line]:
    lines: list[Line] = []
    for event, filters in sorted(p.events.items()):
        note = "; anyone can start it with text or a fork" if p.untrusted(event) else ""
        if event in p.gated_comments:
            note = "; only a command from owners, members and collaborators"
        lines.append(("GitHub event {}" + _filters(filters) + note, (event,)))
    lines += [("schedule {}", (cron,)) for cron in sorted(p.schedules)]
    for name, hook in sorted(p.webhooks.items()):
        shown = ", ".join(sorted(f for f, _ in hook.fields))
        lines.append(
            (
                "the {} webhook {}, showing the agent " + shown + "; whoever posts to it writes that text",
                (hook.source, name),
            )
        )
    if p.manual:
        lines.append(("by hand (workflow_dispatch, or a Job created from the manifest)", ()))
    return lines or [("nothing: it runs when someone starts the sandbox", ())]


_WORKSPACE = {
    "mount": "the host folder {} in place, read-write, at {}",
    "mount-readonly": "the host folder {}, read-only, at {}",
}


def _writes(p: Policy) -> list[Line]:
    if p.workspace_mode == "clone":
        ref = (" at the ref {}", (p.workspace_ref,)) if p.workspace_ref else ("", ())
        repo = p.workspace_repo or "(the repository of the run)"
        lines: list[Line] = [
            (
                "workspace: its own clone of {}" + ref[0] + ", inside the sandbox at {}",
                (repo, *ref[1], p.workspace_path),
            )
        ]
    elif p.workspace_mode == "none":
        lines = [("workspace: no code", ())]
    else:
        lines = [("workspace: " + _WORKSPACE[p.workspace_mode], (p.workspace_source or "", p.workspace_path))]
    lines.append(
        (
            "its home and /tmp"
            + ("" if p.read_only_root else ", and the whole root filesystem (read_only_root is off)"),
            (),
        )
    )
    for path, placed in sorted(p.files.items()):
        where = "in its home" if path.startswith(p.home.rstrip("/") + "/") else "in the image"
        lines.append(_line(p, "files", path, "file {} " + f"{where}, mode {placed.mode}, {placed.size} bytes", path))
    scopes = ", ".join(f"{scope}: {level}" for scope, level in sorted(p.permissions.items()))
    lines.append(("GitHub token (actions target): contents: read" + (f", {scopes}" if scopes else " only"), ()))
    lines += [("published port {}", (str(port),)) for port in sorted(p.ports, key=str)]
    return lines


def _isolation(p: Policy) -> list[Line]:
    docker = "a rootless Docker daemon inside" if p.docker == "rootless" else "no Docker inside"
    root = "read-only root filesystem" if p.read_only_root else "WRITABLE root filesystem"
    limits = ", ".join(f"{name} {show_limit(name, getattr(p, name))}" for name in (*LIMITS, "timeout"))
    return [(f"runtime {{}}, {root}, {docker}", (p.runtime,)), (limits, ())]


def _attention(p: Policy) -> list[Line]:
    grants = [c for c in ordered(compare(added_kit_baseline(p), p)) if rank(c.risk.level) >= rank("high")]
    return [(f"{c.risk.level}: {c.template} ({c.kind})", c.values) for c in grants] or [("nothing rates high", ())]


def fidelity_rows(
    loaded: LoadedKit, *, every_target: bool = False
) -> tuple[list[str], dict[str, dict[str, dict[str, str]]]]:
    """The fidelity rows of the kit's own targets (its ``targets.build``, else every target; with
    ``every_target``, every target): setting -> target -> level and reason (no rendering)."""
    from sandkit.compiler.plan import make_plan
    from sandkit.compiler.targets import REGISTRY

    plan = make_plan(loaded)
    targets = [t for t in REGISTRY if every_target or not plan.build_targets or t in plan.build_targets]
    rows: dict[str, dict[str, dict[str, str]]] = {}
    for name in targets:
        for row in REGISTRY[name].fidelity(plan):
            rows.setdefault(row.setting, {})[name] = row.as_dict()
    return targets, rows


def summarize(loaded: LoadedKit, *, every_target: bool = False) -> Summary:
    policy = policy_of(loaded, root=Path.cwd())
    sections = [
        ("Agent", _agent(policy)),
        ("Runs", _runs(policy)),
        ("Reaches", _reach(policy)),
        ("Secrets", _secrets(policy)),
        ("Started by", _triggers(policy)),
        ("May write", _writes(policy)),
        ("Isolation and limits", _isolation(policy)),
        ("Rated high or above", _attention(policy)),
    ]
    targets, rows = fidelity_rows(loaded, every_target=every_target)
    return Summary(policy, sections, rows, targets, own_targets=bool(loaded.kit.targets.build) and not every_target)


# ----- output -------------------------------------------------------------------------------
def _title(s: Summary) -> str:
    return s.policy.name + (f": {s.policy.description}" if s.policy.description else "")


#: Levels that leave nothing to report: held, or not the target's to hold (an image's network).
HELD = ("enforced", "not applicable")
MARKDOWN_LEGEND = (
    "enforced: held whatever the agent does; best-effort: held in part, or while the agent plays along; "
    "unsupported: the target cannot hold it; not applicable: not this target's to hold; -: not in its files."
)


def _levels(s: Summary) -> dict[str, dict[str, str]]:
    return {setting: {t: row["level"] for t, row in per.items()} for setting, per in s.fidelity.items()}


def _gaps(s: Summary) -> list[tuple[str, str, dict[str, str]]]:
    """(target, setting, row) for every row that is neither enforced nor not the target's to hold."""
    return [
        (target, setting, row)
        for setting, per_target in sorted(s.fidelity.items())
        for target, row in sorted(per_target.items())
        if row["level"] not in HELD
    ]


def render_text(s: Summary) -> str:
    from sandkit.compiler.fidelity import LEGEND, WIDTH, table

    lines = [f"{text(_title(s))} ({terminal(s.policy.path)})"]
    for title, body in s.sections:
        lines.append(f"{title}:")
        lines += [f"  {template.format(*(terminal(v) for v in values))}" for template, values in body]
    mine = "its targets (targets.build; --verbose: every target)" if s.own_targets else "each target (fidelity)"
    lines.append(f"Enforced by {mine}:")
    lines += table(_levels(s), s.targets, indent="  ").splitlines()
    lines += ["  " + line for line in LEGEND.splitlines()]
    lines.append("Not enforced everywhere:")
    for target, setting, row in _gaps(s):
        said = f"{target}: {setting} is {row['level']}: {row['reason']}"
        lines += textwrap.wrap(said, WIDTH, initial_indent="  ", subsequent_indent="    ", break_on_hyphens=False)
    return "\n".join(lines) + "\n"


def _md_item(template: str, values: tuple[str, ...]) -> str:
    indent = "  " * ((len(template) - len(template.lstrip(" "))) // 2)
    return f"{indent}- " + template.strip().format(*(md_code(v, table=False) for v in values))


def render_markdown(s: Summary) -> str:
    lines = [
        f"## {md_code(s.policy.name, table=False)}"
        + (f": {md_code(s.policy.description, table=False)}" if s.policy.description else "")
    ]
    lines += ["", f"Kit {md_code(s.policy.path, table=False)}."]
    for title, body in s.sections:
        lines += ["", f"**{title}**", ""]
        lines += [_md_item(template, values) for template, values in body]
    lines += ["", "**Enforced by each target**", "", "| setting | " + " | ".join(s.targets) + " |"]
    lines.append("| --- |" + " --- |" * len(s.targets))
    for setting in sorted(s.fidelity):
        cells = [s.fidelity[setting].get(t, {}).get("level", "-") for t in s.targets]
        lines.append(f"| `{setting}` | " + " | ".join(cells) + " |")
    lines += ["", MARKDOWN_LEGEND]
    gaps = [f"- {target}: `{setting}` is {row['level']}: {row['reason']}" for target, setting, row in _gaps(s)]
    if gaps:
        lines += ["", "Not enforced everywhere:", "", *gaps]
    return "\n".join(lines) + "\n"


def summary_json(s: Summary) -> dict[str, Any]:
    p = s.policy
    return {
        "kit": p.name,
        "path": p.path,
        "description": p.description,
        "agent": {
            "command": list(p.command),
            "presets": list(p.presets),
            "image": p.image,
            "user": p.user,
            "uid": p.uid,
            "instructions_file": p.instructions_file,
            "instructions": p.instructions,
        },
        "runs": {
            "packages": {
                m: [{"spec": x, "from": p.origin(f"image.packages.{m}", x)} for x in sorted(v)]
                for m, v in sorted(p.packages.items())
            },
            "install": [{"command": c, "from": p.origin("install", c)} for c in p.order.get("install", ())],
            "startup": [{"command": c, "from": p.origin("startup", c)} for c in p.order.get("startup", ())],
            "env": {k: {"value": v, "from": p.origin("env", k)} for k, v in sorted(p.env.items())},
        },
        "reach": {
            "egress": p.egress,
            "allow": [{"destination": a, "from": p.origin("network.allow", a)} for a in p.order.get("allow", ())]
            if p.egress == "allowlist"
            else [],
            "deny": [{"destination": str(d), "from": p.origin("network.deny", str(d))} for d in sorted(p.deny)],
        },
        "secrets": [
            {
                "name": n,
                "required": x.required,
                "where": x.where,
                "build_only": x.build_only,
                "from": p.origin("secrets", n),
            }
            for n, x in sorted(p.secrets.items())
        ],
        "triggers": {
            "github": {
                e: {k: sorted(v) if (v := getattr(f, k)) is not None else None for k in ("types", "branches", "paths")}
                for e, f in sorted(p.events.items())
            },
            "schedules": sorted(p.schedules),
            "manual": p.manual,
            "webhooks": {
                n: {
                    "source": h.source,
                    "filters": {path: sorted(values) for path, values in sorted(h.filters)},
                    "fields": dict(sorted(h.fields)),
                    "max_sessions": h.max_sessions,
                    "per_minute": h.per_minute,
                }
                for n, h in sorted(p.webhooks.items())
            },
        },
        "writes": {
            "workspace": {
                "mode": p.workspace_mode,
                "repo": p.workspace_repo,
                "ref": p.workspace_ref,
                "path": p.workspace_path,
                "source": p.workspace_source,
            },
            "read_only_root": p.read_only_root,
            "files": [
                {"path": f, "mode": x.mode, "size": x.size, "sha256": x.sha256, "from": p.origin("files", f)}
                for f, x in sorted(p.files.items())
            ],
            "permissions": dict(sorted(p.permissions.items())),
            "ports": [str(x) for x in sorted(p.ports, key=str)],
        },
        "isolation": {"runtime": p.runtime, "docker": p.docker, "read_only_root": p.read_only_root},
        "limits": {name: show_limit(name, getattr(p, name)) for name in (*LIMITS, "timeout")},
        "attention": [
            {"kind": c.kind, "level": c.risk.level, "setting": c.setting, "message": c.message(str)}
            for c in ordered(compare(added_kit_baseline(p), p))
            if rank(c.risk.level) >= rank("high")
        ],
        "fidelity": {"targets": s.targets, "settings": s.fidelity},
    }


def run_summary(args: argparse.Namespace) -> int:
    outputs: list[str] = []
    documents: list[dict[str, Any]] = []
    failed = False
    for path in expand_kit_paths(args.kits):
        try:
            loaded = load_kit(path, allow_mixin=False)
        except KitError as exc:
            failed = True
            print(exc, file=sys.stderr)
            continue
        summary = summarize(loaded, every_target=args.verbose)
        if args.format == "json":
            documents.append(summary_json(summary))
        else:
            outputs.append(render_markdown(summary) if args.format == "markdown" else render_text(summary))
    text = (
        json.dumps({"version": 1, "kits": documents}, indent=2, ensure_ascii=True) + "\n"
        if args.format == "json"
        else "\n".join(outputs)
    )
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 1 if failed else 0
