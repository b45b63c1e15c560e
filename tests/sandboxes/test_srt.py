"""srt, Anthropic's sandbox-runtime, run for real with what sandkit writes: the srt target's settings
and env.sh, and the sandbox block of the claude-code target's settings (Claude Code's sandbox is built
on sandbox-runtime), for every example that builds them and for hostile kits.

Each run starts srt on a pretend host (tests/sandboxes/harness.py) and runs the probe inside it: the
kit's hosts and others by CONNECT through srt's proxy, a direct connection past it, writes in the
project and outside it, reads of the credential folders, the environment. What srt let out is
compared with what the settings say and with what the kit means; where srt is wider than the kit,
the fidelity row must not say "enforced".
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from sandkit.compiler.command import KitOutput
from sandkit.compiler.plan import Plan
from sandkit.compiler.targets import claude_code, srt
from tests.compiler.helpers import EXAMPLES, OWN_KITS, compile_from_repo
from tests.sandboxes.harness import BIN, SANDBOXES_DIR, Host, World, pretend_host, run_probe, tool_env
from tests.sandboxes.harness import world as outside
from tests.sandboxes.kits import build, cases, filter_allows, kit_allows, kit_denies, probe_targets

pytestmark = pytest.mark.sandboxes

#: A value the secrets get in srt's environment (the kit names them; the host holds them).
SECRET_VALUE = "sk-pretend-secret-value"


def _asked(plan: Plan, host: Host, world: World) -> dict[str, Any]:
    return {
        "reach": probe_targets(plan),
        "direct": [f"127.0.0.1:{world.port}"],
        "write": host.writes,
        "unix": str(host.unix_socket),
        "read": [str(host.project / "README.md"), *(str(p) for p in host.credentials)],
        "env": [name for name, _ in plan.env] + [name for name, _ in plan.secrets],
    }


def _run_srt(
    host: Host,
    world: World,
    settings: dict[str, Any],
    asked: dict[str, Any],
    *,
    env_file: bytes = b"",
    secrets: Iterable[str] = (),
) -> dict[str, Any]:
    """Run the probe under srt with ``settings`` (after ``env_file``), with the ``secrets`` in srt's environment."""
    (host.root / "srt-settings.json").write_text(json.dumps(settings), encoding="utf-8")
    (host.root / "env.sh").write_bytes(env_file)
    host.hand_over()
    command = [str(BIN / "srt"), "--settings", str(host.root / "srt-settings.json"), "--"]
    prefix = ["sh", "-c", '. "$0" && exec "$@"', str(host.root / "env.sh"), *command]
    env = tool_env(HOME=str(host.home), HTTPS_PROXY=world.url, HTTP_PROXY=world.url)
    env |= {name: SECRET_VALUE for name in secrets}
    return run_probe([*host.as_owner(), *prefix], asked, cwd=host.project, env=env, probe=host.probe)


def _check(out: KitOutput, found: dict[str, Any], world: World, host: Host, network: dict[str, Any], by: str) -> None:
    """What the run found against the settings (``network``) and the kit; the fidelity rows of ``by``."""
    plan = out.plan
    reached = {t for t, answer in found["reach"].items() if answer == f"reached {t}"}
    for target, answer in found["reach"].items():
        expected = filter_allows(network["allowedDomains"], network["deniedDomains"], target)
        assert (target in reached) is expected, f"{target}: {answer} (the settings say {expected})"
        assert target in reached or answer.startswith("refused: HTTP/1.1 403"), f"{target}: {answer}"
    assert set(world.seen) == reached, "nothing srt refused reached the outside, and nothing else did"
    if plan.egress == "open":
        assert not reached and out.fidelity["network.egress"][by].level == "unsupported", "no allow-all: none"
    wider = sorted(t for t in reached if not kit_allows(plan, t))
    egress = out.fidelity["network.egress"][by]
    assert not (wider and egress.level == "enforced"), f"{by} lets out {wider}, wider than the kit"
    if plan.egress == "allowlist" and plan.deny:
        assert out.fidelity["network.deny"][by].level == "enforced"
        denied = [t for t in found["reach"] if kit_denies(plan, t)]
        assert denied and not reached & set(denied), f"a denied host got out: {reached & set(denied)}"
    assert all(a.startswith("error:") for a in found["direct"].values()), f"past the proxy: {found['direct']}"
    assert found["unix"].startswith("error:"), "allowAllUnixSockets false: no host socket (docker.sock) reached"
    writable = plan.workspace_mode in ("clone", "mount")
    write = found["write"]
    assert (write[str(host.project / "written.txt")] == "written") is writable, write
    assert write[str(host.elsewhere / "x")].startswith("error:") and write[str(host.home / "x")].startswith("error:")
    assert write[str(host.in_tmp)] == "written", "/tmp is writable, as the settings mean"
    read = found["read"]
    assert read[str(host.project / "README.md")] == "the project\n"
    assert all(read[str(p)].startswith("error:") for p in host.credentials), read


@pytest.fixture
def world() -> Any:
    with outside() as found:
        yield found


@pytest.fixture
def host() -> Any:
    with pretend_host() as found:
        yield found


SRT_CASES = cases("srt", ("wildcard-deny-port", "offline-read-only", "open"))


@pytest.mark.parametrize("case", SRT_CASES)
def test_srt_holds_the_kit(case: str, tmp_path: Path, world: World, host: Host) -> None:
    out = build(case, tmp_path, "srt")
    settings = json.loads(out.files[srt.FILE])
    asked = _asked(out.plan, host, world)
    secrets = [name for name, _ in out.plan.secrets]
    found = _run_srt(host, world, settings, asked, env_file=out.files[srt.ENV_FILE], secrets=secrets)
    _check(out, found, world, host, settings["network"], "srt")
    assert found["env"] == {**dict(out.plan.env), **{n: SECRET_VALUE for n, _ in out.plan.secrets}}, (
        "env.sh gives the kit's values exactly; srt passes the secrets it is started with (the secrets row)"
    )
    assert not Path("/var/tmp/sandkit-pwned").exists()


def test_srt_holds_the_kit_for_an_unprivileged_user(tmp_path: Path, world: World) -> None:
    """srt as a user without privileges (CI runs as root, whose bubblewrap needs CAP_SETFCAP)."""
    with pretend_host(owner=65534 if os.geteuid() == 0 else None) as host:
        out = build(SRT_CASES[0], tmp_path, "srt")
        settings = json.loads(out.files[srt.FILE])
        found = _run_srt(host, world, settings, _asked(out.plan, host, world), env_file=out.files[srt.ENV_FILE])
        _check(out, found, world, host, settings["network"], "srt")


def claude_path_for_srt(path: str, settings_folder: Path) -> str:
    """A path of Claude Code's sandbox settings as srt reads paths, by the prefixes Claude Code documents:
    ``//`` absolute, ``/`` relative to the settings file's folder, ``~/`` and relative paths as they are."""
    if path.startswith("//"):
        return path[1:]
    if path.startswith("/"):
        return str(settings_folder) + path
    return path


def claude_block_as_srt_settings(settings: dict[str, Any], settings_folder: Path) -> dict[str, Any]:
    """The sandbox block of Claude Code's settings as an srt settings file: the same keys, lifted, with
    its paths read as Claude Code reads them (``settings_folder``: where the settings file would be).

    Claude Code turns its block into sandbox-runtime's config itself; srt needs a denyWrite list, which
    Claude's block leaves out (none is written). What else Claude Code adds (its own folders) is its own.
    """
    block = settings["sandbox"]
    filesystem = {
        key: [claude_path_for_srt(p, settings_folder) for p in paths] for key, paths in block["filesystem"].items()
    }
    lifted = {"network": block["network"], "filesystem": {"denyWrite": [], **filesystem}}
    if "credentials" in block:
        lifted["credentials"] = block["credentials"]
    return lifted


CLAUDE_CASES = cases("claude-code", ("wildcard-deny-port", "offline-read-only", "open"))


@pytest.mark.parametrize("case", CLAUDE_CASES)
def test_claude_code_s_sandbox_block_holds_under_sandbox_runtime(
    case: str, tmp_path: Path, world: World, host: Host
) -> None:
    out = build(case, tmp_path, "claude-code")
    lifted = claude_block_as_srt_settings(json.loads(out.files[claude_code.FILE]), host.project / ".claude")
    secrets = {name: SECRET_VALUE for name, _ in out.plan.secrets}
    found = _run_srt(host, world, lifted, _asked(out.plan, host, world), secrets=secrets)
    _check(out, found, world, host, lifted["network"], "claude-code")
    assert all(found["env"][name] is None for name in secrets), "sandbox.credentials hides the kit's secrets"


def test_srt_reads_every_kit_s_settings_as_written(tmp_path: Path) -> None:
    """Every kit's srt file and Claude Code sandbox block parse with the installed srt's own schema, and
    srt keeps every key (zod drops an unknown one silently); srt's resolved-address check, built from the
    srt file, lets an allowed name lead to a public address and refuses the non-public ranges."""
    configs: dict[str, Any] = {}
    for kit in EXAMPLES + OWN_KITS:
        out = compile_from_repo(kit, tmp_path / kit.parent.name, ["srt", "claude-code"])
        name = str(kit.relative_to(kit.parents[1]))
        configs[f"srt {name}"] = json.loads(out.files[srt.FILE])
        settings = json.loads(out.files[claude_code.FILE])
        configs[f"claude {name}"] = claude_block_as_srt_settings(settings, tmp_path / ".claude")
    answers = [
        ["api.example.com", "93.184.215.14", 443],
        ["api.example.com", "2606:2800:21f:cb07:6820:80da:af6b:8b2c", 443],
        ["api.example.com", "10.1.2.3", 443],
        ["api.example.com", "192.168.1.1", 443],
        ["api.example.com", "100.64.0.1", 443],
        ["api.example.com", "fd00::1", 443],
        ["api.example.com", "::ffff:10.1.2.3", 443],
        ["api.example.com", "127.0.0.1", 443],
    ]
    public = [True, True] + [False] * 6
    (tmp_path / "input.json").write_text(json.dumps({"configs": configs, "answers": answers}), encoding="utf-8")
    package = SANDBOXES_DIR / "node_modules" / "@anthropic-ai" / "sandbox-runtime"
    done = subprocess.run(
        [str(BIN / "node"), str(Path(__file__).with_name("srt_reads.mjs")), str(package), str(tmp_path / "input.json")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    read = json.loads(done.stdout)
    for name, written in configs.items():
        assert read[name]["errors"] == [], (name, read[name]["errors"])
        kept = read[name]["config"]
        for section in ("network", "filesystem", "credentials"):
            if section in written:
                assert set(written[section]) <= set(kept[section]), f"{name}: srt drops {section} keys"
        if name.startswith("srt "):
            assert read[name]["permits"] == public, (name, read[name]["permits"])
    assert any(k.startswith("srt ") for k in configs), "some kit was read"
