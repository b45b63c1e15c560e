"""What a capability or an unconfined profile lets a container reach, asked of the real engine.

PV003 and PV004 grade their findings by what the container can touch outside itself (docs/lint.md,
"How sure and how bad"): SYS_PTRACE reaches the processes of the PID namespace the container is
in, so it is an escape with the host's (or another container's) PID namespace and reaches nothing
else on its own; NET_ADMIN reconfigures the container's own network namespace (its firewall and
interfaces), not the host's; an unconfined seccomp profile opens system calls (user namespaces,
mounts inside them), which is kernel attack surface, not a way out by itself; ``systempaths`` left
unconfined makes the host's /proc/sys writable, which is a way out. Each test runs
``debian:bookworm-slim`` (made by scripts/setup-docker.sh) and removes what it starts by name.
"""

from __future__ import annotations

import subprocess
import uuid
from collections.abc import Iterator

import pytest

pytestmark = pytest.mark.docker

IMAGE = "debian:bookworm-slim"
SECRET = "I33C_SECRET_" + uuid.uuid4().hex[:8]


def _run(*options: str, script: str) -> str:
    """The output of ``script`` in a fresh container started with ``options``."""
    result = subprocess.run(
        ["docker", "run", "--rm", *options, IMAGE, "sh", "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return result.stdout + result.stderr


@pytest.fixture(scope="module")
def victim() -> Iterator[str]:
    """A container whose process (user 4242, not the intruder's root) holds a secret in its environment."""
    name = "sandkit-i33c-victim-" + uuid.uuid4().hex[:8]
    try:
        subprocess.run(
            ["docker", "run", "-d", "--name", name, "--user", "4242", "-e", f"{SECRET}=x", IMAGE, "sleep", "600"],
            capture_output=True,
            check=True,
            timeout=120,
        )
        yield name
    finally:
        subprocess.run(["docker", "rm", "-f", name], capture_output=True, check=False, timeout=60)


#: Prints READ for every process whose environment holds the secret and this container could read.
_READ_SECRETS = (
    f'for f in /proc/[0-9]*/environ; do if (tr "\\0" "\\n" <"$f" | grep -q {SECRET}) 2>/dev/null; '
    "then echo READ; fi; done; echo done"
)


def test_sys_ptrace_alone_reaches_no_process_outside_the_container(victim: str) -> None:
    """With the default seccomp profile (and with none), SYS_PTRACE in the container's own PID
    namespace sees no process of the host or of another container."""
    for options in (("--cap-add", "SYS_PTRACE"), ("--cap-add", "SYS_PTRACE", "--security-opt", "seccomp=unconfined")):
        out = _run(*options, script=_READ_SECRETS)
        assert "done" in out and "READ" not in out, (options, out)


@pytest.mark.parametrize("pid", ["host", "container:{victim}"])
def test_sys_ptrace_with_a_shared_pid_namespace_reads_other_processes(victim: str, pid: str) -> None:
    """The same capability with the host's PID namespace (or another container's) reads a foreign
    process's secrets; without the capability the same namespace does not (the process belongs to
    another user): the capability is what turns the shared namespace into a read of its secrets."""
    namespace = ("--pid", pid.format(victim=victim))
    assert "READ" in _run(*namespace, "--cap-add", "SYS_PTRACE", script=_READ_SECRETS)
    without = _run(*namespace, script=_READ_SECRETS)
    assert "done" in without and "READ" not in without


#: Sets eth0's MTU through SIOCSIFMTU (perl-base is in the image; iproute2 is not) and lists the
#: interfaces the container's network namespace holds.
_SET_MTU = (
    'perl -e \'socket(S, 2, 2, 0) or die; my $b = pack("a16 i x20", "eth0", 1400); '
    'print ioctl(S, 0x8922, $b) ? "SET\\n" : "DENIED\\n"; '
    'print "ifaces:", join(",", sort map { s{.*/}{}r } glob("/sys/class/net/*")), "\\n"\''
)


def test_net_admin_rewrites_only_its_own_network_namespace() -> None:
    """NET_ADMIN changes the container's own interface (the default set cannot), and that
    namespace holds only lo and eth0: none of the host's interfaces. With the host's network the
    same capability holds the host's interfaces (docker0)."""
    assert "DENIED" in _run(script=_SET_MTU)
    own = _run("--cap-add", "NET_ADMIN", script=_SET_MTU)
    assert "SET" in own and "ifaces:eth0,lo\n" in own, own
    listed = _run("--cap-add", "NET_ADMIN", "--network", "host", script="ls /sys/class/net")
    assert "docker0" in listed.split(), listed


_USER_NAMESPACE = 'unshare -U -r -m sh -c "mount -t tmpfs x /mnt && echo MOUNTED" 2>&1; echo done'


def test_unconfined_seccomp_opens_system_calls_not_the_host(victim: str) -> None:
    """The default profile refuses user namespaces; unconfined, the container creates one and
    mounts inside it (kernel attack surface most kernel escapes start from), yet still sees no
    process and no interface outside its own namespaces."""
    assert "MOUNTED" not in _run(script=_USER_NAMESPACE)
    unconfined = ("--security-opt", "seccomp=unconfined")
    assert "MOUNTED" in _run(*unconfined, script=_USER_NAMESPACE)
    assert "READ" not in _run(*unconfined, script=_READ_SECRETS)
    assert "ifaces:eth0,lo\n" in _run(*unconfined, script=_SET_MTU)


#: "rw" or "ro": how /proc/sys is mounted in the container (the host's kernel settings).
_PROC_SYS = "awk '$5 == \"/proc/sys\" {print $6}' /proc/self/mountinfo | cut -d, -f1; echo done"


def test_unconfined_system_paths_leave_the_hosts_kernel_settings_writable() -> None:
    """``systempaths=unconfined`` drops the read-only /proc/sys mount: the host's kernel settings
    (core_pattern, which the host runs as a program) are writable by the container's root. That
    one stays high: it is a way out by itself. Nothing is written here."""
    assert _run(script=_PROC_SYS).split()[0] == "ro"
    assert _run("--security-opt", "systempaths=unconfined", script=_PROC_SYS).split()[0] == "done"
