"""``sandkit record``: a session record (docs/record.md) read back for a person.

What a session reached, what it was refused and what failed, grouped by host, on a terminal or as
JSON. The record comes from a file, a folder of them, or, for a compiled compose sandbox, its
record volume (read through ``docker``, with the proxy's own image, so nothing is pulled).

A record is evidence: every line that is not what the proxy writes (not JSON, an unknown event,
decision or reason, a missing field) is reported with its file and line number, and the command
exits 1; the rest is still summarised. Reads are bounded (:data:`MAX_FILE` per file,
:data:`MAX_SESSIONS` files, :data:`MAX_LINE` per line).

Exit codes: 0 the record read cleanly; 1 it holds bad lines, or a session has no end line; 2 the
command line is wrong or there is nothing to read.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from sandkit.compiler import record as spec
from sandkit.errors import UsageError

if TYPE_CHECKING:
    import argparse

#: A file the proxy wrote is at most spec.MAX_BYTES; room for a copy someone appended to.
MAX_FILE = 2 * spec.MAX_BYTES
MAX_LINE = spec.MAX_LINE + 1024
MAX_SESSIONS = 10_000
RECORD_NAME = re.compile(r"^session-[0-9A-Za-z-]{1,80}\.jsonl$")
EVENTS = ("start", "decision", "capped", "end", "outcome")
#: An ``outcome`` line's source: the Actions job's runner-side step, after the proxy's end line.
OUTCOME_SOURCES = ("runner",)
IMAGE_ID = re.compile(r"^sha256:[0-9a-f]{64}$")
#: Fields every decision line has (the proxy writes them all).
DECISION_FIELDS = ("time", "decision", "reason", "method", "host", "port", "bytes_out", "bytes_in")


class Session(NamedTuple):
    """One session's file, read: its start and end lines, its decisions, and what was wrong in it."""

    name: str
    start: dict[str, Any] | None
    end: dict[str, Any] | None
    decisions: list[dict[str, Any]]
    capped: bool
    problems: list[str]
    #: The ``outcome`` line (the agent's exit status and image ID, added by the runner), if any.
    outcome: dict[str, Any] | None = None
    #: Read from the engine when the record is (a compose sandbox's volume): the project's agent
    #: containers that started during the session, as the engine holds them at read time.
    engine: dict[str, Any] | None = None


def run(args: argparse.Namespace) -> int:
    source = Path(args.source)
    project = None
    if (source / "compose.yaml").is_file():
        project = args.project or _compose_facts(source)[0]
        files = _volume_files(source, args.project)
    elif source.is_dir():
        files = _folder_files(source)
    elif source.is_file():
        files = {str(source): _read_bounded(source)}
    elif source.exists():
        raise UsageError(f"{source}: error: not a regular file or a folder")
    else:
        raise UsageError(f"{source}: error: no such file or folder")
    if not files:
        raise UsageError(f"{source}: error: no session record (session-*.jsonl) there")
    sessions = [parse(name, data) for name, data in files.items()]
    sessions = _choose(sessions, args.session, source)
    if project is not None:
        containers = _agent_containers(project)
        sessions = [s._replace(engine=_engine_view(s, containers)) for s in sessions]
    for session in sessions:
        for problem in session.problems:
            print(problem, file=sys.stderr)
    if args.format == "json":
        json.dump([as_json(s) for s in sessions], sys.stdout, indent=2, sort_keys=True)
        sys.stdout.write("\n")
    else:
        sys.stdout.write("\n".join(as_text(s) for s in sessions))
    return 1 if any(s.problems for s in sessions) else 0


def _choose(sessions: list[Session], which: str, source: Path) -> list[Session]:
    sessions.sort(key=lambda s: s.name)
    if which == "all":
        return sessions
    if which == "latest":
        return sessions[-1:]
    chosen = [s for s in sessions if _session_id(s).startswith(which)]
    if len(chosen) != 1:
        found = "no" if not chosen else f"{len(chosen)}"
        raise UsageError(f"{source}: error: {found} session matches {which!r} (use --session all to list them)")
    return chosen


def _session_id(session: Session) -> str:
    name = session.name.rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    return name.removeprefix("session-").removesuffix(".jsonl")


def _read_bounded(path: Path) -> bytes:
    try:
        with path.open("rb") as f:
            return f.read(MAX_FILE + 1)
    except OSError as exc:
        raise UsageError(f"{path}: error: cannot read: {exc.strerror or exc}") from None


def _folder_files(folder: Path) -> dict[str, bytes]:
    names = []
    try:
        for entry in folder.iterdir():
            if RECORD_NAME.match(entry.name) and entry.is_file():
                names.append(entry.name)
                if len(names) > MAX_SESSIONS:
                    raise UsageError(f"{folder}: error: more than {MAX_SESSIONS} session records")
    except OSError as exc:
        raise UsageError(f"{folder}: error: cannot list: {exc.strerror or exc}") from None
    return {str(folder / name): _read_bounded(folder / name) for name in sorted(names)}


def _volume_files(folder: Path, project: str | None) -> dict[str, bytes]:
    """The record volume of the compose sandbox in ``folder``, through ``docker``: tar of its files,
    made by the proxy's image (on the machine already: the session built it) with no network."""
    import io
    import subprocess
    import tarfile

    name, image = _compose_facts(folder)
    volume = f"{project or name}_{spec.VOLUME}"
    argv = [
        "docker",
        "run",
        "--rm",
        "--network",
        "none",
        "--read-only",
        "--cap-drop",
        "ALL",
        "--user",
        "65534:65534",
        "--entrypoint",
        "tar",
        "-v",
        f"{volume}:{spec.DIR}:ro",
        image,
        "-C",
        spec.DIR,
        "-cf",
        "-",
        ".",
    ]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=120, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise UsageError(f"{folder}: error: cannot read the volume {volume} through docker: {exc}") from None
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip()[-400:]
        raise UsageError(f"{folder}: error: cannot read the volume {volume} (image {image}): {said}")
    files: dict[str, bytes] = {}
    with tarfile.open(fileobj=io.BytesIO(done.stdout), mode="r:") as archive:
        for member in archive:
            base = member.name.removeprefix("./")
            if not member.isfile() or not RECORD_NAME.match(base):
                continue
            if len(files) >= MAX_SESSIONS:
                raise UsageError(f"{volume}: error: more than {MAX_SESSIONS} session records")
            handle = archive.extractfile(member)
            files[f"volume {volume}:{base}"] = handle.read(MAX_FILE + 1) if handle else b""
    return files


def _compose_facts(folder: Path) -> tuple[str, str]:
    """(project name, proxy image) from a compiled compose.yaml."""
    from sandkit.syntax.tree import SyntaxProblem
    from sandkit.syntax.yaml import load_documents
    from sandkit.verify.plan import read_text

    compose_file = folder / "compose.yaml"
    try:
        documents = load_documents(read_text(compose_file))
    except SyntaxProblem as exc:
        raise UsageError(f"{compose_file}:{exc.pos.line}:{exc.pos.column}: error: not YAML: {exc.message}") from None
    document = documents[0] if documents and isinstance(documents[0], dict) else {}
    services = document.get("services")
    proxy = services.get("egress") if isinstance(services, dict) else None
    image = proxy.get("image") if isinstance(proxy, dict) else None
    name = document.get("name")
    if not isinstance(image, str) or not isinstance(name, str):
        raise UsageError(f"{compose_file}: error: no egress proxy: only an allowlist sandbox keeps a session record")
    return name, image


#: At most this many of the project's agent containers are read from the engine.
MAX_CONTAINERS = 1000
#: Docker's times (RFC 3339, nanoseconds); the year 1 is "never" (a container that has not finished).
DOCKER_TIME = re.compile(r"^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?Z$")


def _agent_containers(project: str) -> list[dict[str, Any]] | None:
    """The compose project's agent containers as the engine holds them now (``up``'s and every ``run``'s
    that was not removed): name, image ID and tag, status, exit code, start and finish. None when the
    engine cannot be asked."""
    import subprocess

    labels = [
        "--filter",
        f"label=com.docker.compose.project={project}",
        "--filter",
        "label=com.docker.compose.service=agent",
    ]
    try:
        listed = subprocess.run(
            ["docker", "ps", "-a", "-q", "--no-trunc", *labels], capture_output=True, text=True, timeout=60, check=False
        )
        ids = listed.stdout.split()[:MAX_CONTAINERS] if listed.returncode == 0 else None
        if not ids:
            return None if ids is None else []
        done = subprocess.run(
            ["docker", "container", "inspect", *ids], capture_output=True, text=True, timeout=120, check=False
        )
        found = json.loads(done.stdout) if done.stdout.strip() else []
    except (OSError, subprocess.TimeoutExpired, json.JSONDecodeError):
        return None
    containers = []
    for item in found if isinstance(found, list) else []:
        state = item.get("State") or {}
        containers.append(
            {
                "container": str(item.get("Name", "")).lstrip("/"),
                "image_id": item.get("Image"),
                "image": (item.get("Config") or {}).get("Image"),
                "status": state.get("Status"),
                "exit_status": state.get("ExitCode") if state.get("Status") == "exited" else None,
                "started": _docker_time(state.get("StartedAt")),
                "finished": _docker_time(state.get("FinishedAt")),
            }
        )
    return sorted(containers, key=lambda c: (c["started"] or 0, c["container"]))


def _docker_time(value: object) -> float | None:
    import calendar

    match = DOCKER_TIME.match(value) if isinstance(value, str) else None
    if not match or match[1] == "0001":
        return None
    whole = calendar.timegm((*(int(x) for x in match.groups()[:6]), 0, 0, 0))
    return whole + float(f"0.{match[7] or 0}")


def _engine_view(session: Session, containers: list[dict[str, Any]] | None) -> dict[str, Any]:
    """The agent containers whose start falls in the session (from its start line to its end line, or to
    now while it runs): the proxy starts before any agent and stops after them, so a container started in
    that span used this session's proxy."""
    start = (session.start or {}).get("time")
    end = (session.end or {}).get("time")
    if containers is None:
        return {"source": "engine, at read time", "agents": [], "note": "the engine could not be asked"}
    agents = [
        c
        for c in containers
        if isinstance(start, (int, float))
        and c["started"] is not None
        and c["started"] >= start
        and (not isinstance(end, (int, float)) or c["started"] <= end)
    ]
    note = "" if agents else "no agent container of this session is left on the engine (removed: run --rm, down)"
    return {"source": "engine, at read time", "agents": agents, "note": note}


def parse(name: str, data: bytes) -> Session:
    """One session's file; every line the proxy would not have written is a problem at ``name:LINE``."""
    problems: list[str] = []
    if len(data) > MAX_FILE:
        problems.append(
            f"{name}: error: longer than {MAX_FILE} bytes (the proxy caps it at {spec.MAX_BYTES}); read the start"
        )
        data = data[:MAX_FILE]
    start: dict[str, Any] | None = None
    end: dict[str, Any] | None = None
    decisions: list[dict[str, Any]] = []
    capped = False
    outcome: dict[str, Any] | None = None
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    elif lines:
        problems.append(f"{name}:{len(lines)}: error: the last line has no end (the file was cut)")
    for number, raw in enumerate(lines, 1):
        where = f"{name}:{number}"
        line, problem = _object(raw)
        if problem:
            problems.append(f"{where}: error: {problem}")
            continue
        assert line is not None
        event = line.get("event")
        if event == "outcome":
            problem = _outcome_problem(line, end is not None, outcome is not None)
            if problem:
                problems.append(f"{where}: error: {problem}")
            else:
                outcome = line
            continue
        if end is not None:
            problems.append(f"{where}: error: a line after the end line")
        if event == "start":
            if number != 1:
                problems.append(f"{where}: error: a start line that is not the first line")
            start = line
        elif event == "decision":
            problem = _decision_problem(line)
            if problem:
                problems.append(f"{where}: error: {problem}")
            else:
                decisions.append(line)
        elif event == "capped":
            capped = True
        elif event == "end":
            end = line
        else:
            problems.append(f"{where}: error: unknown event {_show(event)}")
        if start is None and number == 1:
            problems.append(f"{where}: error: the first line is not the session's start line")
    if end is None:
        problems.append(f"{name}: error: no end line: the session is still running, or its proxy was killed")
    elif isinstance(end.get("decisions"), int) and end["decisions"] != len(decisions):
        problems.append(
            f"{name}: error: the end line counts {end['decisions']} decisions, the file holds {len(decisions)}"
        )
    return Session(name, start, end, decisions, capped, problems, outcome)


def _outcome_problem(line: dict[str, Any], ended: bool, seen: bool) -> str:
    """An ``outcome`` line is the runner's, once, right after the end line: its source, time, exit status
    (a whole number 0-255, or null when the step was cancelled) and image ID (``sha256:`` and 64 hex digits)."""
    if not ended or seen:
        return "an outcome line that does not follow the end line" if not ended else "a second outcome line"
    if set(line) != {"event", "source", "time", "exit_status", "image_digest"}:
        return f"an outcome line with the fields {_show(sorted(line))}"
    if line["source"] not in OUTCOME_SOURCES:
        return f"an outcome line from {_show(line['source'])}"
    status = line["exit_status"]
    if status is not None and (not isinstance(status, int) or isinstance(status, bool) or not 0 <= status <= 255):
        return f"exit_status {_show(status)} is not an exit status"
    digest = line["image_digest"]
    if digest is not None and not (isinstance(digest, str) and IMAGE_ID.match(digest)):
        return f"image_digest {_show(digest)} is not an image ID"
    if not isinstance(line["time"], (int, float)) or isinstance(line["time"], bool):
        return "time is not a number"
    return ""


def _object(raw: bytes) -> tuple[dict[str, Any] | None, str]:
    if len(raw) > MAX_LINE:
        return None, f"a line of {len(raw)} bytes (the proxy writes at most {spec.MAX_LINE})"
    try:
        value = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        return None, f"not UTF-8 ({exc.reason} at byte {exc.start})"
    except (json.JSONDecodeError, RecursionError) as exc:
        return None, f"not a JSON object ({getattr(exc, 'msg', 'nested too deep')})"
    if not isinstance(value, dict):
        return None, "not a JSON object"
    return value, ""


def _decision_problem(line: dict[str, Any]) -> str:
    missing = [field for field in DECISION_FIELDS if field not in line]
    if missing:
        return f"a decision without {', '.join(missing)}"
    if line["decision"] not in spec.DECISIONS:
        return f"unknown decision {_show(line['decision'])}"
    if line["reason"] not in spec.REASONS:
        return f"unknown reason {_show(line['reason'])}"
    if _reason_decision(line["reason"]) != line["decision"]:
        return f"reason {line['reason']} does not go with decision {line['decision']}"
    for field in ("method", "host", "port"):
        if not isinstance(line[field], str):
            return f"{field} is not a string"
    for field in ("bytes_out", "bytes_in"):
        if not isinstance(line[field], int) or isinstance(line[field], bool):
            return f"{field} is not a whole number"
    return ""


def _show(value: object) -> str:
    """A value from the record as a terminal may show it: printable ASCII, the rest escaped."""
    text = value if isinstance(value, str) else json.dumps(value)
    return repr(text[:200]) if not (text.isascii() and text.isprintable()) else text[:200]


def hosts(session: Session) -> list[dict[str, Any]]:
    """The session's decisions grouped by host: counts by decision and by reason, ports, bytes."""
    grouped: dict[str, dict[str, Any]] = {}
    for line in session.decisions:
        host = grouped.setdefault(
            line["host"],
            {
                "host": line["host"],
                "allowed": 0,
                "refused": 0,
                "failed": 0,
                "reasons": {},
                "ports": [],
                "bytes_in": 0,
                "bytes_out": 0,
                "inject_headers": [],
            },
        )
        host[line["decision"]] += 1
        host["reasons"][line["reason"]] = host["reasons"].get(line["reason"], 0) + 1
        if line["port"] not in host["ports"]:
            host["ports"].append(line["port"])
        if line["decision"] == "allowed":  # a refusal's bytes are squid's own error page
            host["bytes_in"] += line["bytes_in"]
            host["bytes_out"] += line["bytes_out"]
        header = line.get("inject_header")
        if isinstance(header, str) and header != "-" and header not in host["inject_headers"]:
            host["inject_headers"].append(header)
    return sorted(grouped.values(), key=lambda h: (-h["allowed"], h["host"]))


def as_json(session: Session) -> dict[str, Any]:
    return {
        "session": _session_id(session),
        "file": session.name,
        "start": session.start,
        "end": session.end,
        "capped": session.capped,
        "outcome": session.outcome,
        "engine": session.engine,
        "decisions": len(session.decisions),
        "hosts": hosts(session),
        "problems": session.problems,
    }


def _when(line: dict[str, Any] | None) -> str:
    import time

    stamp = line.get("time") if line else None
    if not isinstance(stamp, (int, float)) or isinstance(stamp, bool):
        return "?"
    try:
        return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(stamp))
    except (OverflowError, OSError, ValueError):
        return "?"


def as_text(session: Session) -> str:
    start, end = session.start or {}, session.end or {}
    out = [
        f"session {_show(_session_id(session))}: kit {_show(start.get('kit', '?'))}, config "
        f"{_show(str(start.get('config_sha256', '?'))[:12])}, image {_show(start.get('image', '?'))}"
    ]
    if session.end is None:
        ended = "no end line"
    else:
        deadline = "the deadline ended it" if end.get("deadline") is True else "before the deadline"
        ended = f"ended {_when(session.end)}, {deadline}, proxy exit {_show(end.get('proxy_exit', '?'))}"
    out.append(f"  started {_when(session.start)}; {ended}")
    if session.outcome is not None:
        status = session.outcome["exit_status"]
        said = (
            "unknown (the agent's step ended before its container did, or did not run)"
            if status is None
            else str(status)
        )
        out.append(
            f"  agent exit status {said}, image {session.outcome['image_digest'] or 'unknown'} (from the runner)"
        )
    if session.engine is not None:
        out.append(f"  from the engine, at read time: {session.engine['note'] or 'agent containers'}")
        for agent in session.engine["agents"]:
            status = "still running" if agent["exit_status"] is None else f"exit status {agent['exit_status']}"
            out.append(f"    {_show(agent['container'])}: {status}, image {_show(agent['image_id'])}")
    left_out = end.get("dropped", 0) if session.end else 0
    out.append(
        f"  {len(session.decisions)} decisions"
        + (f", {_show(left_out)} left out past the cap" if session.capped else "")
    )
    grouped = hosts(session)
    for title, decision in (("reached", "allowed"), ("refused", "refused"), ("failed", "failed")):
        rows = [h for h in grouped if h[decision]]
        out.append(f"  {title}: {len(rows)} host{'s' if len(rows) != 1 else ''}")
        for h in rows:
            reasons = ", ".join(f"{r} {n}" for r, n in sorted(h["reasons"].items()) if _reason_decision(r) == decision)
            ports = ",".join(_show(p) for p in h["ports"])
            extra = f"; bytes in {h['bytes_in']}, out {h['bytes_out']}" if decision == "allowed" else ""
            headers = (
                f"; injected {', '.join(_show(x) for x in h['inject_headers'])}"
                if h["inject_headers"] and decision == "allowed"
                else ""
            )
            out.append(f"    {_show(h['host'])} port {ports}: {h[decision]} ({reasons}){extra}{headers}")
    return "\n".join(out) + "\n"


def _reason_decision(reason: str) -> str:
    if reason in spec.ALLOWED_REASONS:
        return "allowed"
    return "failed" if reason in spec.FAILED_REASONS else "refused"
