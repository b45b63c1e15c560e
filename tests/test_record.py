"""sandkit record: a session record read back, grouped by host; every bad line reported where it is.

The lines here are the shapes squid.conf's record formats print (tests/e2e/test_record.py checks the
real proxy's); the reader must take the proxy's own lines and report anything else by file:line.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

import pytest

from sandkit.cli import main
from sandkit.compiler import record as spec

START = {
    "event": "start",
    "format": 1,
    "session": "20260101T000000Z-0a0b0c0d0e0f",
    "time": 1767225600.0,
    "kit": "demo",
    "config_sha256": "ab" * 32,
    "image": "sandkit/demo:abababababab",
    "image_digest": None,
    "max_bytes": spec.MAX_BYTES,
}


def decision(host: str, decision: str, reason: str, port: str = "443", **extra: object) -> dict[str, object]:
    return {
        "event": "decision",
        "time": 1767225601.5,
        "decision": decision,
        "reason": reason,
        "method": "CONNECT",
        "host": host,
        "port": port,
        "status": "200" if decision == "allowed" else "403",
        "bytes_out": 100,
        "bytes_in": 2000,
        "inject_header": "-",
        **extra,
    }


def end(decisions: int, deadline: bool = False) -> dict[str, object]:
    return {"event": "end", "time": 1767225700.0, "exit_status": None, "deadline": deadline, "decisions": decisions}


def write(path: Path, lines: Sequence[object]) -> Path:
    path.write_bytes(b"".join((x if isinstance(x, bytes) else json.dumps(x).encode()) + b"\n" for x in lines))
    return path


def clean(folder: Path, name: str = "session-20260101T000000Z-0a0b0c0d0e0f.jsonl") -> Path:
    lines = [
        START,
        decision("api.example.com", "allowed", "allowlisted", inject_header="x-api-key"),
        decision("api.example.com", "allowed", "allowlisted"),
        decision("evil.example.net", "refused", "not-allowlisted"),
        decision("api.example.com", "refused", "port-not-allowed", port="22"),
        decision("gone.example.com", "failed", "unresolvable", port="80"),
        end(5),
    ]
    return write(folder / name, lines)


def test_a_clean_record_groups_hosts_by_decision(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = clean(tmp_path)
    assert main(["record", str(path)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert "kit demo" in out and "before the deadline" in out and "5 decisions" in out
    reached = out.split("reached:")[1].split("refused:")[0]
    assert "api.example.com port 443,22: 2 (allowlisted 2); bytes in 4000, out 200; injected x-api-key" in reached
    refused = out.split("refused:")[1].split("failed:")[0]
    assert "evil.example.net port 443: 1 (not-allowlisted 1)" in refused
    assert "api.example.com port 443,22: 1 (port-not-allowed 1)" in refused
    assert "gone.example.com port 80: 1 (unresolvable 1)" in out.split("failed:")[1]

    assert main(["record", str(path), "--format", "json"]) == 0
    [session] = json.loads(capsys.readouterr().out)
    assert session["session"] == START["session"] and session["decisions"] == 5 and session["problems"] == []
    api = next(h for h in session["hosts"] if h["host"] == "api.example.com")
    assert (api["allowed"], api["refused"], api["failed"]) == (2, 1, 0)
    assert api["reasons"] == {"allowlisted": 2, "port-not-allowed": 1} and api["inject_headers"] == ["x-api-key"]


BAD_LINES: list[tuple[bytes, str]] = [
    (b"not json at all", "not a JSON object"),
    (b"[1, 2]", "not a JSON object"),
    (b'{"event": "decision", "decision": "allowed"}', "a decision without"),
    (json.dumps(decision("a.example", "allowed", "because-i-said-so")).encode(), "unknown reason"),
    (json.dumps(decision("a.example", "allowed", "ip-literal")).encode(), "does not go with decision allowed"),
    (json.dumps(decision("a.example", "maybe", "allowlisted")).encode(), "unknown decision"),
    (json.dumps(decision("a.example", "allowed", "allowlisted", bytes_in="lots")).encode(), "not a whole number"),
    (b'{"event": "forged"}', "unknown event"),
    (b'{"event": "decision", "host": "\xff\xfe"}', "not UTF-8"),
    (b"[" * 10_000, "not a JSON object"),
    (b'{"x": "' + b"a" * (spec.MAX_LINE + 2048) + b'"}', "a line of"),
]


@pytest.mark.parametrize(("line", "message"), BAD_LINES, ids=[m for _, m in BAD_LINES])
def test_a_bad_line_is_reported_with_its_line_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: bytes, message: str
) -> None:
    path = write(tmp_path / "session-x.jsonl", [START, decision("ok.example", "allowed", "allowlisted"), line, end(1)])
    assert main(["record", str(path)]) == 1
    out, err = capsys.readouterr()
    assert f"{path}:3: error: " in err and message in err, err
    assert "Traceback" not in err and "ok.example port 443: 1" in out  # the rest is still read


def test_a_cut_record_an_extra_line_and_a_miscount_are_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "session-y.jsonl", [START, decision("a.example", "refused", "not-allowlisted"), end(2)])
    with path.open("ab") as f:
        f.write(json.dumps(decision("b.example", "refused", "ip-literal")).encode())  # no newline: cut
    assert main(["record", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"{path}:4: error: the last line has no end" in err
    assert f"{path}:4: error: a line after the end line" in err
    assert "the end line counts 2 decisions, the file holds 2" not in err  # 2 were read, one after the end
    path = write(tmp_path / "session-z.jsonl", [START, decision("a.example", "refused", "not-allowlisted")])
    assert main(["record", str(path)]) == 1
    assert "no end line" in capsys.readouterr().err


def test_a_folder_chooses_sessions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    clean(tmp_path, "session-20260101T000000Z-aaaaaaaaaaaa.jsonl")
    clean(tmp_path, "session-20260102T000000Z-bbbbbbbbbbbb.jsonl")
    (tmp_path / "notes.txt").write_text("not a record\n")
    assert main(["record", str(tmp_path), "--format", "json"]) == 0
    assert [s["session"] for s in json.loads(capsys.readouterr().out)] == ["20260102T000000Z-bbbbbbbbbbbb"]
    assert main(["record", str(tmp_path), "--session", "all", "--format", "json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 2
    assert main(["record", str(tmp_path), "--session", "20260101T"]) == 0
    assert "aaaaaaaaaaaa" in capsys.readouterr().out
    assert main(["record", str(tmp_path), "--session", "2026"]) == 2
    assert "2 session matches" in capsys.readouterr().err
    assert main(["record", str(tmp_path / "missing")]) == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["record", str(empty)]) == 2
    assert "no session record" in capsys.readouterr().err


def test_a_special_file_is_refused_without_being_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A FIFO (which would block a read) or a device is neither a record file nor a folder: exit 2, said so."""
    fifo = tmp_path / "session-20260101T000000Z-0a0b0c0d0e0f.jsonl"
    os.mkfifo(fifo)
    for special in (fifo, Path("/dev/zero")):
        assert main(["record", str(special)]) == 2
        assert f"{special}: error: not a regular file or a folder" in capsys.readouterr().err
    assert main(["record", str(tmp_path)]) == 2  # a folder whose one session-*.jsonl is a FIFO holds no record
    assert "no session record" in capsys.readouterr().err


def test_what_the_terminal_shows_is_printable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A host is URL-encoded by squid; a record from elsewhere may hold anything: escapes are shown, not run."""
    hostile = "evil\x1b]0;owned\x07\u202e.example"
    path = write(tmp_path / "session-w.jsonl", [START, decision(hostile, "refused", "not-allowlisted"), end(1)])
    assert main(["record", str(path)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\u202e" not in out and "\\x1b" in out


def outcome(**changed: object) -> dict[str, object]:
    line: dict[str, object] = {
        "event": "outcome",
        "source": "runner",
        "time": 1767225701.25,
        "exit_status": 3,
        "image_digest": "sha256:" + "cd" * 32,
    }
    return {**line, **changed}


def test_the_runners_outcome_line_gives_the_exit_status_and_image(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = clean(tmp_path)
    with path.open("ab") as f:
        f.write(json.dumps(outcome()).encode() + b"\n")
    assert main(["record", str(path)]) == 0
    out, err = capsys.readouterr()
    assert err == "" and f"agent exit status 3, image sha256:{'cd' * 32} (from the runner)" in out, out
    assert main(["record", str(path), "--format", "json"]) == 0
    [session] = json.loads(capsys.readouterr().out)
    assert session["outcome"] == outcome() and session["problems"] == []
    write(path, [START, end(0), outcome(exit_status=None)])
    assert main(["record", str(path)]) == 0
    assert "agent exit status unknown (the agent's step ended before its container did" in capsys.readouterr().out


BAD_OUTCOMES: list[tuple[list[object], str]] = [
    ([START, outcome(), end(0)], "an outcome line that does not follow the end line"),
    ([START, end(0), outcome(), outcome()], "a second outcome line"),
    ([START, end(0), outcome(exit_status=256)], "is not an exit status"),
    ([START, end(0), outcome(exit_status="3")], "is not an exit status"),
    ([START, end(0), outcome(exit_status=True)], "is not an exit status"),
    ([START, end(0), outcome(image_digest="sha256:abc")], "is not an image ID"),
    ([START, end(0), outcome(source="agent")], "an outcome line from agent"),
    ([START, end(0), outcome(extra=1)], "an outcome line with the fields"),
    ([START, end(0), outcome(time="now")], "time is not a number"),
    ([START, end(0), outcome(), decision("late.example", "allowed", "allowlisted")], "a line after the end line"),
]


@pytest.mark.parametrize(("lines", "message"), BAD_OUTCOMES, ids=[m for _, m in BAD_OUTCOMES])
def test_a_forged_or_odd_outcome_line_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lines: list[object], message: str
) -> None:
    path = write(tmp_path / "session-o.jsonl", lines)
    assert main(["record", str(path)]) == 1
    assert message in capsys.readouterr().err


def test_engine_containers_are_matched_to_the_session_they_started_in() -> None:
    """Started before the proxy's start line, or after its end line, a container is another session's."""
    from sandkit.record import _docker_time, _engine_view, as_text, parse

    session = parse("s", b"".join(json.dumps(x).encode() + b"\n" for x in (START, end(0))))
    stamp = {"before": "2025-12-31T23:59:59.9Z", "during": "2026-01-01T00:01:00.5Z", "after": "2026-01-01T00:02:00Z"}
    containers = [
        {"container": name, "started": _docker_time(at), "exit_status": 7, "image_id": "sha256:" + "ef" * 32}
        for name, at in stamp.items()
    ] + [{"container": "never-started", "started": _docker_time("0001-01-01T00:00:00Z"), "exit_status": None}]
    view = _engine_view(session, containers)
    assert [c["container"] for c in view["agents"]] == ["during"] and view["note"] == ""
    shown = as_text(session._replace(engine=view))
    assert (
        f"from the engine, at read time: agent containers\n    during: exit status 7, image sha256:{'ef' * 32}" in shown
    )
    assert _engine_view(session, [])["note"].startswith("no agent container of this session")
    assert _engine_view(session, None)["note"] == "the engine could not be asked"
