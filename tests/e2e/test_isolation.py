"""isolation.runtime: gvisor runs the agent under runsc (with egress none, the one network mode
runsc starts containers in on these machines)."""

from __future__ import annotations

import time

import pytest

from tests.e2e.helpers import Project, run

pytestmark = pytest.mark.docker


def test_gvisor_runs_the_agent_under_runsc(gvisor_project: Project) -> None:
    """The engine's record says runsc, and the kernel the agent sees introduces itself as gVisor."""
    with gvisor_project.detached("probe", "bash", "-c", "dmesg | head -3; id -u; sleep 30") as record:
        runtime = record["HostConfig"]["Runtime"]
        for _ in range(50):
            seen = run(["docker", "logs", record["Name"].lstrip("/")]).stdout
            if seen.rstrip().endswith("1000"):
                break
            time.sleep(0.2)
    assert runtime == "runsc", f"the agent container runs under {runtime!r}, not runsc"
    assert "gVisor" in seen, f"the kernel the agent sees is not gVisor's:\n{seen}"
    assert seen.split()[-1] == "1000", seen


def test_gvisor_sandbox_has_no_network(gvisor_project: Project) -> None:
    result = gvisor_project.agent(
        "cat /proc/net/dev; timeout 5 bash -c 'exec 3<>/dev/tcp/192.175.48.1/80' && echo reached"
    )
    assert result.returncode != 0 or "reached" not in result.stdout, result
    interfaces = [line.split(":")[0].strip() for line in result.stdout.splitlines() if ":" in line]
    assert interfaces in ([], ["lo"]), f"the gVisor sandbox has network interfaces: {interfaces}"


def test_gvisor_fork_bomb_ends_the_sandbox(gvisor_project: Project) -> None:
    """Under runsc a fork bomb cannot fail forks at pids.max (the limit counts gVisor's own threads):
    the fidelity report says it ends the whole sandbox instead. The bound is kept inside the sandbox,
    not on the host's clock (which load stretches): the agent's own 20 s sleep must not get to print."""
    result = gvisor_project.agent(
        "bomb() { bomb | bomb & }; ( bomb ) 2>/dev/null & sleep 20; echo survived", timeout=60
    )
    assert "survived" not in result.stdout, f"a fork bomb ran for 20 s inside the gVisor sandbox:\n{result}"
    assert result.returncode != 0, result
