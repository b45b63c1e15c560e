"""docker: a Dockerfile, its entrypoint, env file, instruction file and kit files (the build context)."""

from __future__ import annotations

import re

from sandkit.compiler.escape import sh_quote
from sandkit.compiler.fidelity import Fidelity, Setting, entrypoint_timeout_row
from sandkit.compiler.inject import INJECTED_VARIABLE, PATHS
from sandkit.compiler.output import commented_header
from sandkit.compiler.plan import ENTRYPOINT_PATH, HOME_SKELETON, SANDKIT_ETC, VENV, Plan
from sandkit.compiler.render import render_template
from sandkit.compiler.target import Files, RenderContext
from sandkit.kits.clone_auth import credential_host

NAME = "docker"
#: Where the image keeps git's credential helper for workspace.token.
CREDENTIAL_HELPER = f"{SANDKIT_ETC}/git-credential"
#: Where the image keeps git's ssh wrapper and the host keys it trusts (workspace.ssh_key, known_hosts).
GIT_SSH = f"{SANDKIT_ETC}/git-ssh"
KNOWN_HOSTS = f"{SANDKIT_ETC}/known_hosts"
REQUIRES: tuple[str, ...] = ()
_PINNED_APT = re.compile(r".+=.+")
_PINNED_PIP = re.compile(r".+==.+")
_PINNED_NPM = re.compile(r".+@[0-9][^@]*$")


def render(plan: Plan, context: RenderContext) -> Files:
    header = commented_header("#", *plan.header_fields)
    values = {
        "p": plan,
        "header": header.rstrip("\n"),
        "etc": SANDKIT_ETC,
        "venv": VENV,
        "skel": HOME_SKELETON,
        "entrypoint": ENTRYPOINT_PATH,
        "install_scripts": [f"install/{i:02d}.sh" for i in range(1, len(plan.install) + 1)],
        "apt_unpinned": any(not _PINNED_APT.fullmatch(p) for p in plan.apt),
        "pip_unpinned": any(not _PINNED_PIP.fullmatch(p) for p in plan.pip),
        "npm_unpinned": any(not _PINNED_NPM.fullmatch(p) for p in plan.npm),
        "inject": PATHS,
        "injected_variable": INJECTED_VARIABLE,
        "clone_host": credential_host(plan.workspace_repo) if plan.workspace_token and plan.workspace_repo else "",
        "credential_helper": CREDENTIAL_HELPER,
        "git_ssh": GIT_SSH,
        "known_hosts": KNOWN_HOSTS,
    }
    files = {
        "Dockerfile": render_template("Dockerfile.j2", **values),
        "entrypoint.sh": render_template("entrypoint.sh.j2", **values),
        "env.sh": header + "".join(f"export {k}={sh_quote(v)}\n" for k, v in plan.env),
    }
    if plan.workspace_token:
        files["git-credential.sh"] = render_template("git-credential.sh.j2", **values)
    if plan.clone_over_ssh:
        files["git-ssh.sh"] = render_template("git-ssh.sh.j2", **values)
        files["known_hosts"] = header + "".join(f"{line}\n" for line in plan.workspace_known_hosts)
    for index, command in enumerate(plan.install, start=1):
        note = f"# install[{index - 1}] of the kit, run as root at build\n"
        files[f"install/{index:02d}.sh"] = f"{header}{note}{command}\n"
    out = {name: text.encode() for name, text in files.items()}
    if plan.instructions_file:
        out[f"instructions/{plan.instructions_file}"] = _instructions(plan).encode()
    for placed in (*plan.files, *plan.home_files):
        out[f"files/{placed.context_name}"] = placed.content
    for ca in plan.ca_certificates:
        out[f"ca/{ca.context_name}"] = ca.content
    return out


def _instructions(plan: Plan) -> str:
    """The instruction file: a one-line provenance note, then the kit's text exactly."""
    version, kit_path, sha = plan.header_fields
    note = f"(Written by sandkit {version} from {kit_path}, sha256 {sha[:12]}; the kit is the place to change it.)"
    return f"{note}\n\n{plan.instructions or ''}"


#: Settings that belong to whatever runs the image (compose, a cluster, a CI job), never to the image.
NOT_THE_IMAGES = "the image does not choose this; the target that runs it does"
RUN_TIME_SETTINGS: tuple[Setting, ...] = (
    "isolation.read_only_root",
    "isolation.runtime",
    "network.egress",
    "ports",
    "resources.cpus",
    "resources.memory",
    "resources.pids",
    "triggers",
    "workspace.mode",
)


def instructions_row(plan: Plan) -> Fidelity:
    """agent.instructions: where the entrypoint places them (the model refuses a kit with no place)."""
    if plan.mounted_workspace:
        return Fidelity(
            "agent.instructions",
            "enforced",
            f"written at start to {plan.instructions_target}, where the agent reads user-level instructions; "
            "the host's folder is not modified",
            proven_by="tests/e2e/test_workspace.py::test_mounted_workspace_gets_instructions_at_user_level_only",
        )
    return Fidelity(
        "agent.instructions",
        "enforced",
        f"written at start to {plan.instructions_target}, above the repository's own file of that name",
        proven_by="tests/e2e/test_behaviour.py::test_instruction_file_is_where_the_agent_reads_it",
    )


def fidelity(plan: Plan) -> list[Fidelity]:
    rows = [
        Fidelity(
            "image.user",
            "enforced",
            f"USER {plan.uid}:{plan.uid}; the image never switches back to root",
            proven_by="tests/e2e/test_containment.py::test_the_image_alone_runs_as_its_user",
        ),
        Fidelity(
            "secrets",
            "enforced",
            "never in the image; the entrypoint reads them at start from /run/secrets "
            "or the environment, and build-time ones arrive only as BuildKit secret mounts",
            proven_by="tests/e2e/test_secrets.py::test_secrets_are_in_no_image_layer",
        ),
        entrypoint_timeout_row(),
    ]
    if plan.instructions is not None:
        rows.append(instructions_row(plan))
    rows += [
        Fidelity(s, "not applicable", NOT_THE_IMAGES, requested=False)
        for s in RUN_TIME_SETTINGS
        if (s != "triggers" or plan.triggers.requested) and (s != "ports" or plan.ports)
    ]
    if plan.triggers.webhooks:
        rows.append(Fidelity("triggers.webhook", "not applicable", NOT_THE_IMAGES, requested=False))
    if plan.injections:
        rows.append(Fidelity("secrets.inject", "not applicable", NOT_THE_IMAGES, requested=False))
    return rows
