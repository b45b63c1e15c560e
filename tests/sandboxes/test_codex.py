"""The Codex CLI run for real with the config.toml sandkit writes, for every example that builds the
codex target and for hostile kits.

Two halves, because Codex has two readers of the file: ``codex debug prompt-input`` prints what a
session would start with (the permissions Codex tells the model it has: sandbox mode, network,
writable roots, approval policy), which is Codex's own reading of the file; ``codex sandbox`` runs a
command under Codex's Linux sandbox with the file's settings, where the probe tries the network,
writes, reads and the environment. ``codex sandbox`` takes the sandbox mode only from ``-c`` or a
permission profile, never from config.toml (found by running it: with the file alone it is always
read-only), so the run passes ``-c sandbox_mode=`` the file's own value; everything else comes from
the file. CODEX_HOME sits outside /tmp: Codex will not put the helper it starts its sandbox with there.
"""

from __future__ import annotations

import json
import re
import subprocess
import tomllib
from pathlib import Path

import pytest

from sandkit.compiler.targets import codex
from tests.sandboxes.harness import BIN, RUN_TIMEOUT, SECRET_TEXT, Host, pretend_host, run_probe, tool_env, world
from tests.sandboxes.kits import build, cases

pytestmark = pytest.mark.sandboxes

CODEX_CASES = cases("codex", ("wildcard-deny-port", "offline-read-only", "open"))
#: A variable of the host that is not one of Codex's core ones: its commands must not see it.
HOST_ONLY = "SANDKIT_HOST_ONLY"


def _codex_home(host: Host, config: bytes) -> Path:
    home = host.root / "codex-home"
    home.mkdir()
    (home / "config.toml").write_bytes(config)
    return home


def _permissions(host: Host, env: dict[str, str]) -> str:
    """The permissions text a Codex session would start with, in the working folder."""
    done = subprocess.run(
        [str(BIN / "codex"), "debug", "prompt-input", "probe"],
        cwd=host.project,
        env=env,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    texts = re.findall(r"<permissions instructions>(.*?)</permissions instructions>", done.stdout, re.DOTALL)
    assert len(texts) == 1, done.stdout[:2000]
    return str(json.loads(f'"{texts[0]}"'))


@pytest.mark.parametrize("case", CODEX_CASES)
def test_codex_holds_the_kit(case: str, tmp_path: Path) -> None:
    out = build(case, tmp_path, "codex")
    config = tomllib.loads(out.files[codex.FILE].decode())
    plan = out.plan
    with pretend_host() as host, world() as outside:
        codex_home = _codex_home(host, out.files[codex.FILE])
        secrets = {name: "sk-pretend-secret-value" for name, _ in plan.secrets}
        env = tool_env(HOME=str(host.home), CODEX_HOME=str(codex_home), **{HOST_ONLY: "x"}, **secrets)

        said = _permissions(host, env)
        mode = config["sandbox_mode"]
        assert f"`sandbox_mode` is `{mode}`" in said, said
        assert "Approval policy is currently never" in said, said
        network = "enabled" if plan.egress == "open" else "restricted"
        assert f"Network access is {network}." in said, said
        roots = re.search(r"The writable roots are (.*)\.", said)
        if mode == "workspace-write":
            assert roots and set(re.findall(r"`([^`]+)`", roots.group(1))) == {"/tmp", str(host.project)}, said
        else:
            assert roots is None, said

        asked = {
            "direct": [f"127.0.0.1:{outside.port}"],
            "write": host.writes,
            "unix": str(host.unix_socket),
            "read": [str(host.project / "README.md"), *(str(p) for p in host.credentials)],
            "env": [name for name, _ in plan.env] + list(secrets) + [HOST_ONLY],
        }
        host.hand_over()
        command = [str(BIN / "codex"), "sandbox", "-c", f'sandbox_mode="{mode}"', "--"]
        found = run_probe(command, asked, cwd=host.project, env=env, probe=host.probe)
    connected = found["direct"][f"127.0.0.1:{outside.port}"] == "connected"
    assert connected is (plan.egress == "open"), found["direct"]
    unix = found["unix"] == "connected"
    assert unix is (plan.egress == "open"), f"a host socket (docker.sock): {found['unix']}"
    egress = out.fidelity["network.egress"]["codex"]
    assert egress.level != "enforced" or plan.egress == "none", "an allowlist is not Codex's to hold"
    assert not (connected or unix) or ("loopback" in egress.reason and "Unix sockets" in egress.reason)
    write = found["write"]
    assert (write[str(host.project / "written.txt")] == "written") is (mode == "workspace-write"), write
    assert write[str(host.elsewhere / "x")].startswith("error:") and write[str(host.home / "x")].startswith("error:")
    assert (write[str(host.in_tmp)] == "written") is (mode == "workspace-write"), "/tmp: a writable root"
    read = found["read"]
    assert read[str(host.project / "README.md")] == "the project\n"
    assert all(read[str(p)] == SECRET_TEXT for p in host.credentials), "Codex hides no credential folder"
    assert "credential folders included" in out.fidelity["isolation.read_only_root"]["codex"].reason
    assert found["env"] == {**dict(plan.env), **dict.fromkeys(secrets), HOST_ONLY: None}, (
        "the commands get the kit's env exactly, and neither the secrets nor the host's other variables"
    )
