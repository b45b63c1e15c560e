"""The session record in the real engine (docs/record.md): the agent cannot reach, edit, delete,
flood or forge it, and every decision the proxy made is in it, with its reason.

A kit of its own (no outside server: every request here is refused or fails) whose record is capped
low through SANDKIT_RECORD_MAX_BYTES, so the flood reaches the cap in a few hundred requests; the
allowed and injected lines are read from the shared allowlist project.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import tarfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sandkit.compiler import record as spec
from tests.conftest import REPO
from tests.e2e.conftest import _env_file, _services
from tests.e2e.helpers import API, INJECT_HEADER, WEB, Project, compile_kit

pytestmark = pytest.mark.docker

CAP = spec.MIN_BYTES
INTRANET = "intranet.record.test"
#: The fields of every decision line, exactly.
DECISION_KEYS = {
    "event",
    "time",
    "decision",
    "reason",
    "method",
    "host",
    "port",
    "status",
    "squid",
    "error",
    "server",
    "bytes_out",
    "bytes_in",
    "inject_header",
}


def _kit(name: str) -> str:
    return f"""apiVersion: sandkit/v1
kind: Kit
name: {name}
description: the session record's end-to-end kit
network:
  egress: allowlist
  allow: ["allowed.record.test:8080", "{INTRANET}:8080"]
  deny: ["denied.record.test:8080"]
agent:
  command: [sleep, "600"]
workspace:
  mode: none
resources:
  timeout: 10m
"""


@pytest.fixture(scope="module")
def record_project(engine: None, token: str, e2e_dir: Path) -> Iterator[Project]:
    folder = e2e_dir / "record"
    folder.mkdir()
    (folder / "kit.yaml").write_text(_kit(f"e2e-{token}-record"))
    output = compile_kit(folder / "kit.yaml", folder / "sandbox")
    override = folder / "record.override.yaml"
    egress = {"environment": {spec.MAX_BYTES_VARIABLE: str(CAP)}, "extra_hosts": [f"{INTRANET}:10.1.2.3"]}
    override.write_text(json.dumps({"services": {"egress": egress}}))
    project = Project(
        f"e2e-{token}-record", output, [output / "compose.yaml", override], _env_file(folder / "e.env", {})
    )
    yield from _services(project, ["build", "up -d --wait --wait-timeout 120 egress"])


def _volume_files(project: Project, image: str) -> dict[str, bytes]:
    """The record volume's files, as bytes (tar through the proxy's image, as sandkit record reads it)."""
    done = subprocess.run(
        ["docker", "run", "--rm", "--network", "none", "--entrypoint", "tar", "-v",
         f"{project.name}_{spec.VOLUME}:/r:ro", image, "-C", "/r", "-cf", "-", "."],
        capture_output=True, timeout=60, check=True,
    )  # fmt: skip
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as archive:
        return {
            m.name.removeprefix("./"): archive.extractfile(m).read()  # type: ignore[union-attr]
            for m in archive
            if m.isfile()
        }


def _reader(project: Project, *args: str) -> tuple[int, Any, str]:
    done = subprocess.run(
        [sys.executable, "-m", "sandkit", "record", str(project.folder), "-p", project.name, "--format", "json", *args],
        cwd=REPO, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    return done.returncode, json.loads(done.stdout) if done.stdout.strip() else None, done.stderr


def _image(project: Project) -> str:
    return next(line for line in project.compose("config", "--images").stdout.split() if "/egress:" in line)


#: Requests the agent crafts to break the record's lines: quotes, backslashes, CR/LF, control and
#: non-ASCII bytes in host names, fake JSON and fake events in hosts and paths. Raw bytes on the socket.
CRAFTED = [
    b'CONNECT ev"il\\",\\"reason\\":\\"allowlisted:443 HTTP/1.0\r\n\r\n',
    b'GET http://x.record.test/%0a{"event":"end","decisions":0}\n{"event":"start"} HTTP/1.0\r\n\r\n',
    b"GET http://a\\b.record.test/ HTTP/1.0\r\n\r\n",
    b'GET http://"}{"event":"start"}.record.test/ HTTP/1.0\r\n\r\n',
    b"CONNECT line%0d%0abreak.record.test:443 HTTP/1.0\r\n\r\n",
    b"CONNECT \xc3\xa9\x01\x7f.record.test:443 HTTP/1.0\r\n\r\n",
    b'GET http://a.record.test/ HTTP/1.0\r\nX: 1\r\n{"event":"decision","decision":"allowed"}\r\n\r\n',
    b'FAKE"METHOD\\ http://b.record.test/ HTTP/1.0\r\n\r\n',
    b"GET http://denied.record.test:8080/ HTTP/1.0\r\n\r\n",
    b"CONNECT 10.0.0.1:443 HTTP/1.0\r\n\r\n",
    b"GET http://" + INTRANET.encode() + b":8080/ HTTP/1.0\r\n\r\n",
    b"GET http://allowed.record.test:9999/ HTTP/1.0\r\n\r\n",
    b"GET ftp://allowed.record.test:8080/ HTTP/1.0\r\n\r\n",
    b"GET http://" + b"%22" * 600 + b".record.test/ HTTP/1.0\r\n\r\n",
]
#: The reasons the plain requests above must get, in the record as in squid's own log line.
EXPECTED_REASONS = {"denied-host", "ip-literal", "non-public-address", "port-not-allowed", "scheme-not-allowed"}
FLOOD = 400

#: The agent's side (perl-base, in every Debian image): first where the record could be reached, then the
#: crafted requests (hex on stdin, one per line), then the flood, each on a connection of its own.
AGENT = r"""
echo "mounts=$(grep -c sandkit-record /proc/self/mountinfo)"
test -e /var/lib/sandkit-record && echo "record-path-exists"
for p in /proc/[0-9]*; do ls "$p/root/var/lib/sandkit-record" >/dev/null 2>&1 && echo "reached-through $p"; done
perl -e '
use strict; use IO::Socket::INET;
my ($host, $port) = $ENV{HTTP_PROXY} =~ m{//([^:/]+):(\d+)};
sub ask { my $s = IO::Socket::INET->new(PeerAddr => $host, PeerPort => $port, Timeout => 10) or return "noconnect";
  print $s $_[0]; my $line = <$s> // ""; close $s; $line =~ /^HTTP\/\S+ (\d+)/ ? $1 : "none" }
my @codes; while (my $hex = <STDIN>) { chomp $hex; push @codes, ask(pack "H*", $hex) }
print "crafted=@codes\n";
my %flood; $flood{ask("GET http://flood-$_.record.test/" . ("a" x 200) . " HTTP/1.0\r\n\r\n")}++ for 1..__FLOOD__;
print "flood=", join(",", map { "$_:$flood{$_}" } sort keys %flood), "\n";
'
""".replace("__FLOOD__", str(FLOOD))


def test_the_agent_cannot_edit_delete_flood_or_forge_the_record(record_project: Project) -> None:
    project = record_project
    image = _image(project)
    before = _volume_files(project, image)
    assert len(before) == 1, f"the proxy's start did not write one session file: {sorted(before)}"
    [name] = before
    start = json.loads(before[name].split(b"\n")[0])
    assert start["event"] == "start" and start["kit"] == project.name and start["max_bytes"] == CAP, start

    stdin = "\n".join(r.hex() for r in CRAFTED) + "\n"
    argv = project.compose_argv("run", "--rm", "-T", "agent", "bash", "-c", AGENT)
    done = subprocess.run(argv, input=stdin.encode(), capture_output=True, timeout=600, check=False)
    out = done.stdout.decode(errors="replace")
    assert done.returncode == 0 and "crafted=" in out, out + done.stderr.decode(errors="replace")
    assert "mounts=0\n" in out and "record-path-exists" not in out and "reached-through" not in out, out
    assert f"flood=403:{FLOOD}" in out, out
    # A second run of the agent in the session, kept on the engine: `sandkit record` reads its exit status.
    kept = f"{project.name}-kept-agent"
    assert project.compose("run", "-T", "--name", kept, "agent", "bash", "-c", "exit 7").returncode == 7

    stopped = project.compose("stop", "egress")  # the session's end: the end line
    assert stopped.returncode == 0, stopped
    code, sessions, err = _reader(project)
    subprocess.run(["docker", "rm", "--force", kept], capture_output=True, check=False)
    agent_image = json.loads(project.compose("config", "--format", "json").stdout)["services"]["agent"]["image"]
    inspected = ["docker", "image", "inspect", "--format", "{{.Id}}", agent_image]
    image_id = subprocess.run(inspected, capture_output=True, text=True, check=True).stdout.strip()
    assert code == 0 and err == "", err
    [engine] = [s["engine"] for s in sessions]
    [agent] = engine["agents"]  # the --rm run is gone; the kept one is this session's
    assert engine["source"] == "engine, at read time" and agent["container"] == kept, engine
    assert (agent["exit_status"], agent["image_id"]) == (7, image_id) and image_id.startswith("sha256:"), agent
    plain = [re.sub(r"^(\x1b\[[0-9;]*[A-Za-z])+", "", line) for line in project.logs("egress").splitlines()]
    log = [line for line in plain if line.startswith("sandkit-egress ")]  # squid's own line per decision
    assert project.compose("down").returncode == 0  # the session is over; the volume stays

    files = _volume_files(project, image)
    assert list(files) == [name], f"a file was added or removed: {sorted(files)}"
    data = files[name]
    assert len(data) <= CAP, f"the record grew past its cap: {len(data)} bytes"
    assert data.endswith(b"\n") and data.startswith(before[name]), "the record was not only appended to"
    lines = [json.loads(raw) for raw in data.split(b"\n")[:-1]]  # strict JSON, one object a line
    events = [line["event"] for line in lines]
    assert events[0] == "start" and events[-1] == "end" and events.count("start") == events.count("end") == 1
    assert events.count("capped") == 1, "the flood did not reach the cap, or the cap is not recorded"
    decisions = [line for line in lines if line["event"] == "decision"]
    assert all(set(line) == DECISION_KEYS for line in decisions), "a crafted request added or changed a field"
    for line in decisions:
        assert line["decision"] in spec.DECISIONS and line["reason"] in spec.REASONS, line
        assert re.fullmatch(r"[\x21-\x7e]*", line["host"] + line["method"]), f"unencoded bytes: {line}"
    end = lines[-1]
    assert end["decisions"] == len(decisions) and end["dropped"] > 0 and end["deadline"] is False, end
    # Every decision squid made (its own line on stdout) is in the record, or counted past the cap.
    assert len(log) == len(decisions) + end["dropped"] >= len(CRAFTED) + FLOOD, (len(log), len(decisions), end)
    for line, logged in zip(decisions, log, strict=False):
        assert f"method={line['method']} " in logged or line["reason"] == "malformed-request", (line, logged)
        assert logged.endswith(f" reason={line['reason']}") or line["reason"] == "malformed-request", (line, logged)
    assert {line["reason"] for line in decisions} >= EXPECTED_REASONS, decisions[: len(CRAFTED)]
    hosts = {line["host"] for line in decisions}
    assert "0.0.0.1" not in hosts, "the health check's request is in the record"
    assert any(h.startswith("ev%22il%5C%22,") for h in hosts), hosts  # the quote and backslash, encoded

    code, sessions, err = _reader(project)
    assert code == 0 and err == "", err
    [session] = sessions
    assert session["engine"]["agents"] == [] and "no agent container" in session["engine"]["note"], session["engine"]
    assert session["capped"] and session["end"]["dropped"] == end["dropped"] and session["problems"] == []
    refused = {h["host"]: h["reasons"] for h in session["hosts"] if h["refused"]}
    assert refused["denied.record.test"] == {"denied-host": 1} and refused[INTRANET] == {"non-public-address": 1}


def test_allowed_and_injected_requests_are_recorded_without_the_value(
    net_project: Project, secret_values: dict[str, str]
) -> None:
    """The shared allowlist project (the proxy injects a secret): allowed lines, and the header's name alone."""
    curl = "curl -sS -m 10 -o /dev/null -w '%{http_code}\\n'"
    result = net_project.agent(f"{curl} http://{WEB}:8080/record-me; {curl} https://{API}:8443/record-me")
    assert result.stdout.split() == ["200", "200"], result
    files: dict[str, bytes] = {}
    for _ in range(20):  # squid logs a tunnel when it closes
        files = _volume_files(net_project, _image(net_project))
        text = b"".join(files.values()).decode()
        if f'"inject_header":"{INJECT_HEADER}"' in text:
            break
        time.sleep(0.5)
    text = b"".join(files.values()).decode()
    assert secret_values["E2E_INJECT_TOKEN"] not in text and "/record-me" not in text, "a value or a path is recorded"
    code, sessions, err = _reader(net_project, "--session", "all")
    assert code == 1 and "no end line" in err  # the proxy still runs: its session has not ended
    hosts = {h["host"]: h for s in sessions for h in s["hosts"]}
    assert "0.0.0.1" not in hosts, "the health check's request is in the record"
    assert hosts[WEB]["allowed"] >= 1 and hosts[WEB]["reasons"].get("allowlisted", 0) >= 1, hosts.get(WEB)
    assert hosts[API]["inject_headers"] == [INJECT_HEADER], hosts.get(API)
    assert not any(p for s in sessions for p in s["problems"] if "no end line" not in p), err
