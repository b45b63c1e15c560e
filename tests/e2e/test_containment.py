"""Containment, read from inside the agent container of the compiled allowlist kit (cpus 0.5,
memory 256Mi, pids 64): no runtime socket, uid 1000, read-only root, no capabilities, limits."""

from __future__ import annotations

import re

import pytest

from tests.e2e.helpers import Project, run

pytestmark = pytest.mark.docker

SOCKET_PATHS = (
    "/var/run/docker.sock",
    "/run/docker.sock",
    "/run/containerd/containerd.sock",
    "/run/podman/podman.sock",
    "/run/crio/crio.sock",
    "/run/buildkit/buildkitd.sock",
)


def test_no_runtime_socket_and_no_docker_host(net_project: Project) -> None:
    script = f"""
    find / \\( -path /proc -o -path /sys \\) -prune -o -type s -print 2>/dev/null | sed 's/^/socket=/'
    for path in {" ".join(SOCKET_PATHS)}; do [ -e "$path" ] && echo "present=$path"; done
    grep -E '[.]sock( |$)' /proc/self/mountinfo | sed 's/^/mount=/'
    env | grep -E '^(DOCKER_HOST|CONTAINER_HOST|DOCKER_CONTEXT)=' | sed 's/^/env=/'
    echo done
    """
    result = net_project.agent(script)
    assert result.stdout.rstrip().endswith("done"), result
    leaks = [line for line in result.stdout.splitlines() if "=" in line]
    assert leaks == [], f"a container runtime is reachable from the agent: {leaks}"


def test_the_image_alone_runs_as_its_user(net_project: Project) -> None:
    """Without compose's `user:` (a plain `docker run`), the image's own USER is the agent's uid."""
    images = net_project.compose("config", "--images").stdout.split()
    (image,) = {tag for tag in images if tag.startswith(f"sandkit/{net_project.name}:")}  # agent and deadline
    result = run(["docker", "run", "--rm", "--network", "none", "--entrypoint", "id", image], check=True)
    assert result.stdout.startswith("uid=1000(agent) gid=1000(agent)"), result


def test_agent_runs_as_uid_1000_and_every_process_too(net_project: Project) -> None:
    script = """
    id -u; id -g; id -G
    for status in /proc/[0-9]*/status; do awk '/^Uid:/ {print "uids=" $2 "," $3 "," $4 "," $5}' "$status" 2>/dev/null; done
    """
    result = net_project.agent(script)
    lines = result.stdout.split()
    assert lines[:3] == ["1000", "1000", "1000"], f"the agent is not uid/gid 1000 with no other group:\n{result}"
    uids = {line for line in lines if line.startswith("uids=")}
    # The deadline's init and sleep share the agent's PID namespace under their own uid (nobody): the
    # agent can see them, and neither signal nor trace them.
    assert uids == {"uids=1000,1000,1000,1000", "uids=65534,65534,65534,65534"}, (
        f"a process the agent sees runs with another uid than its own or the deadline's: {uids}"
    )


def test_root_is_read_only_while_workspace_home_and_tmp_are_writable(net_project: Project) -> None:
    script = """
    for dir in / /etc /usr/local/bin /opt /var /run; do
      if touch "$dir/e2e-write" 2>/dev/null; then echo "wrote=$dir"; fi
    done
    for dir in /workspace "$HOME" /tmp; do
      if echo x > "$dir/e2e-write" && rm "$dir/e2e-write"; then echo "writable=$dir"; fi
    done
    awk '$2 == "/" {print "rootmount=" $4}' /proc/mounts
    """
    result = net_project.agent(script)
    wrote = re.findall(r"wrote=(\S+)", result.stdout)
    assert wrote == [], f"the read-only root filesystem took writes in {wrote}"
    writable = re.findall(r"writable=(\S+)", result.stdout)
    assert writable == ["/workspace", "/home/agent", "/tmp"], f"workspace, home or /tmp is not writable:\n{result}"
    assert re.search(r"rootmount=ro\b", result.stdout), f"/ is not mounted read-only:\n{result}"


def test_no_capabilities_and_no_new_privileges(net_project: Project) -> None:
    result = net_project.agent("grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs|Seccomp):' /proc/self/status")
    fields = dict(re.findall(r"^(\w+):\s+(\S+)$", result.stdout, re.MULTILINE))
    caps = {k: v for k, v in fields.items() if k.startswith("Cap") and int(v, 16) != 0}
    assert len(fields) == 7, result
    assert caps == {}, f"the agent holds capabilities: {caps}"
    assert fields["NoNewPrivs"] == "1", "no_new_privs is not set: setuid binaries could raise privileges"
    assert fields["Seccomp"] == "2", "the runtime's default seccomp filter is not applied"


def test_memory_cpu_and_pids_limits_are_in_the_cgroup(net_project: Project) -> None:
    script = """
    cd /sys/fs/cgroup
    echo "memory=$(cat memory/memory.limit_in_bytes)"
    [ -r memory/memory.memsw.limit_in_bytes ] && echo "memsw=$(cat memory/memory.memsw.limit_in_bytes)"
    echo "quota=$(cat cpu/cpu.cfs_quota_us) period=$(cat cpu/cpu.cfs_period_us)"
    echo "pids=$(cat pids/pids.max)"
    """
    result = net_project.agent(script)
    values = dict(re.findall(r"(\w+)=(\d+)", result.stdout))
    assert values.get("memory") == str(256 * 2**20), f"memory limit not 256Mi:\n{result}"
    if "memsw" in values:  # only with swap accounting on
        assert values["memsw"] == str(256 * 2**20), f"swap is not capped with memory:\n{result}"
    assert int(values["quota"]) / int(values["period"]) == 0.5, f"CPU quota is not 0.5 CPUs:\n{result}"
    assert values.get("pids") == "64", f"pids limit not 64:\n{result}"


def test_a_fork_bomb_stops_at_the_pids_limit(net_project: Project) -> None:
    """The bomb runs in its own process group for 4 s; after it starts the probe forks nothing (bash
    exits when a fork fails): it waits on a pipe opened before, and builtins read the cgroup."""
    script = """
    exec 3< <(exec sleep 60)
    waiter=$!
    set -m
    bomb() { bomb | bomb & }
    ( bomb ) 2>/dev/null &
    group=$!
    read -r -t 4 -u 3 _
    read -r current < /sys/fs/cgroup/pids/pids.current
    read -r max < /sys/fs/cgroup/pids/pids.max
    read -r _ refused < /sys/fs/cgroup/pids/pids.events
    kill -KILL -- "-$group" "$waiter" 2>/dev/null
    echo "current=$current max=$max refused=$refused"
    """
    result = net_project.agent(script, timeout=60)
    values = dict(re.findall(r"(\w+)=(\d+)", result.stdout))
    assert values, f"the probe did not report (the bomb took the container down?):\n{result}"
    assert values["max"] == "64", result
    assert int(values["current"]) <= 64, f"more processes than the pids limit: {values}"
    assert int(values["refused"]) > 0, f"no fork was refused at the limit, so the bomb was not stopped: {values}"


def test_container_settings_match_the_hardening(net_project: Project) -> None:
    """What the engine was asked for: no host namespaces, never privileged, an init process."""
    with net_project.detached("inspect", "sleep", "30") as host_config:
        pass
    config = host_config["HostConfig"]
    assert config["Privileged"] is False
    assert config["NetworkMode"] != "host"
    deadline = net_project.compose("ps", "-q", "deadline").stdout.strip()
    mode, _, joined = config["PidMode"].partition(":")
    assert mode == "container" and joined and deadline.startswith(joined), (
        f"the agent is not in the deadline's PID namespace: {config['PidMode']}"
    )
    assert config["IpcMode"] in ("private", "shareable", "none")
    assert config["Init"] is True
    assert config["CapDrop"] == ["ALL"] and not config["CapAdd"]
    assert config["RestartPolicy"]["Name"] in ("", "no")
    binds = [m["Source"] for m in host_config["Mounts"]]
    assert not any("docker.sock" in b or "containerd" in b for b in binds), f"a runtime socket is mounted: {binds}"
