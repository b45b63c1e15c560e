"""`sandkit verify` without an engine: what it reads from a compiled folder, and its usage errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from sandkit.verify import plan
from tests.e2e.helpers import REPO

EXAMPLE = REPO / "examples" / "pr-reviewer" / "sandbox" / "pr-reviewer"


def test_the_battery_reads_the_compiled_folder() -> None:
    sandbox = plan.load(EXAMPLE)
    assert plan.egress(sandbox) == "allowlist"
    assert ("api.anthropic.com", 443) in sandbox.allow and sandbox.deny == [("gist.github.com", 443)]
    assert plan.placeholders(sandbox) == {"ANTHROPIC_API_KEY": "sandkit-injected-by-egress-proxy"}
    probes = {p.id: p for p in plan.probes(sandbox, ["172.17.0.1"], [("198.51.100.7", 8443)])}
    assert probes["proxy-denied-host"].argument == "proxy|proxy-denied-host|CONNECT|gist.github.com|443"
    assert probes["proxy-allowed-host-other-port"].argument.endswith("|api.anthropic.com|1")
    assert probes["direct-gateway-0"].argument == "tcp|direct-gateway-0|172.17.0.1|9"
    assert probes["direct-named-0"].argument == "tcp|direct-named-0|198.51.100.7|8443"
    assert probes["root-filesystem"].argument == "rootfs|root-filesystem|/tmp,/home/agent,/workspace"
    assert probes["user"].argument == "user|user|1000"
    # every probe names a fidelity row the report has, and each is enforced for compose
    assert {plan.level(sandbox, p.setting) for p in probes.values()} == {"enforced"}


def test_bad_input_exits_2_without_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "compose.yaml").write_text("services: [\n")
    (tmp_path / "empty").mkdir()
    cases = {
        "bad/compose.yaml:2:1: error: not YAML": [str(tmp_path / "bad")],
        "no such folder": [str(tmp_path / "absent")],
        "no compose.yaml": [str(tmp_path / "empty")],
        "give HOST:PORT": [str(EXAMPLE), "--probe", "x|y:1"],
        "no such compose file": [str(EXAMPLE), "-f", str(tmp_path / "absent.yaml")],
    }
    for expected, argv in cases.items():
        done = subprocess.run(
            [sys.executable, "-m", "sandkit", "verify", *argv], cwd=REPO, capture_output=True, text=True, check=False
        )
        assert done.returncode == 2 and expected in done.stderr and "Traceback" not in done.stderr, (argv, done)
