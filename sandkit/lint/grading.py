"""Severity by where a finding is: what the file is for, not what the rule matched.

A rule grades what it reads in a container's settings; facts about the file itself change how
bad a right finding is for the linter's question (what lets an unattended agent reach beyond its
sandbox), and are read here for every rule of the categories they concern:

- a Kubernetes manifest that names no coding agent (a node agent's DaemonSet, a CSI driver, a
  monitoring collector): the power it asks for is given to that workload where the manifest is
  deployed, not to a sandbox an agent works in. Container-power findings (privileged,
  runtime-socket, host-credentials) are info there: still printed, failing no run. A CI runner's
  workload (Actions Runner Controller, GitLab, Buildkite, Jenkins agents ...) is not lowered: it
  runs whatever jobs arrive, agents' included; nor is a PodSecurityPolicy alone in its folder,
  which admits the pods of every workload. A PodSecurityPolicy kept with its workloads (in their
  file or folder, as a chart's ``psp.yaml`` is), none of which names an agent or a CI runner, is
  graded as they are: it admits their pods. Dev containers, Compose files, scripts and CI are not
  touched: they are where agents run.
- a file under a folder that says it is kept, not run (``_archived/``, ``archive/``,
  ``examples/``, ``samples/``, ``fixtures/``, ``testdata/``): container-power findings are at
  most low there (info in a Kubernetes manifest of the class above), and a parse error (SK001)
  is info. Agent configuration, instructions, MCP servers, hidden Unicode and secrets are **not**
  lowered: an agent reads an instruction file or a hidden character wherever it is, and a secret
  is as live in an example as anywhere.
- a workflow GitHub never runs: a file read as a workflow (by its folder or by its ``on:`` and
  ``jobs:``) that is not directly in ``.github/workflows`` (or Gitea's and Forgejo's
  ``.gitea/workflows``, ``.forgejo/workflows``) at a repository's root. The repository's root is
  the scan root, or the nearest folder below it, above the workflow, that holds a ``.git``
  (a nested repository or submodule, whose own workflows run where it is pushed). Findings of the
  rules that read only workflows (ci-permissions, ci-secret-exposure, AA014) are info there:
  they are about a run's token, secrets and agent, and no run has them. A parse error (SK001)
  there is info too: GitHub never parses the file (a shell snippet kept as
  ``.github/workflows/includes/setup.yml`` is not a broken workflow).
- Claude Code settings kept under another name (``settings.template.json``, read as settings
  because they declare the settings schema): when a script of the repository copies the file
  into ``.claude/settings.json`` (or ``settings.local.json``) its findings keep their severity and
  their message names the script; when nothing copies it they are one step lower, a starting
  point a person may or may not put in place (:mod:`sandkit.lint.facts.settings_templates`).

The hit keeps the rule's reason for its own severity and adds this one, so the printed message
says every step that moved it.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

from sandkit.lazy_regex import lazy
from sandkit.lint import kinds
from sandkit.lint.model import SEVERITIES, Hit

if TYPE_CHECKING:
    from sandkit.lint.registry import Rule
    from sandkit.lint.source import SourceFile

#: Folders whose files are kept as examples, archives or test data, not run as they are.
KEPT_FOLDERS = frozenset(
    {
        "_archived",
        "_archive",
        "archived",
        "archive",
        "archives",
        "attic",
        "examples",
        "example",
        "samples",
        "sample",
        "fixtures",
        "fixture",
        "__fixtures__",
        "testdata",
        "test-data",
        "test_data",
    }
)
#: What hands the host to a container: its privileges, the runtime's socket, the host's credentials.
CONTAINER_POWER = frozenset({"privileged", "runtime-socket", "host-credentials"})
#: The most a container-power finding in a kept folder is.
KEPT_AT_MOST = "low"
#: The folders a forge runs workflows from, directly in them, at a repository's root: GitHub's,
#: and Gitea's and Forgejo's own (which also read GitHub's when theirs is absent).
WORKFLOW_FOLDERS = frozenset({".github/workflows", ".gitea/workflows", ".forgejo/workflows"})
#: Manifests that declare their workloads. Kustomize patches (kustomization, JSON 6902) are not
#: among them: what they patch is declared in another file, whose agent the patch need not name.
_KUBERNETES_KINDS = frozenset({kinds.KUBERNETES})
_AGENT_KINDS = frozenset({kinds.AGENT_CONFIG, kinds.AGENT_INSTRUCTIONS})
_WORKFLOW_ONLY_KINDS = frozenset({kinds.WORKFLOW, kinds.ACTION})
_VALUE_STRINGS = 20_000  # strings of a chart's values read for an agent's name
#: A CI runner's workload (GitHub's Actions Runner Controller, GitLab, Buildkite, Jenkins, Woodpecker,
#: Drone, Forgejo/Gitea): it runs whatever jobs arrive, coding agents' among them, so naming no
#: agent says nothing about what runs in it.
#: A PodSecurityPolicy admits pods of every workload, agents' among them: it is no one workload's.
_POLICY = lazy(r"\bkind:\s*[\"']?PodSecurityPolicy\b")
_CI_RUNNER = lazy(
    r"(?i)(?<![\w-])(?:actions-runner|runner-scale-set|gitlab-runner|buildkite-agent|inbound-agent|jenkins-agent|"
    r"woodpecker-agent|drone-runner[\w-]*|forgejo-runner|gitea-runner|act_runner)(?![\w-])"
    r"|\bkind:\s*[\"']?(?:RunnerDeployment|RunnerSet|AutoscalingRunnerSet|EphemeralRunner(?:Set)?)\b"
)
_WORKLOAD_WHY = (
    "a Kubernetes workload that names no coding agent: the power is given to a deployed workload, "
    "not to a sandbox an agent works in"
)
_POLICY_WHY = (
    "a PodSecurityPolicy kept with Kubernetes workloads that name no coding agent: it admits "
    "their pods, deployed workloads, not a sandbox an agent works in"
)
#: A manifest that declares workloads (pods, or the controllers that make them).
_WORKLOAD_KIND = lazy(
    r"\bkind[\"']?\s*:\s*[\"']?(?:Pod|Deployment|DaemonSet|StatefulSet|ReplicaSet|ReplicationController|Job|CronJob)"
    r"[\"']?\s*,?\s*$",
    re.MULTILINE,
)
_MANIFEST_ENDINGS = (".yaml", ".yml", ".json", ".tpl")
_SIBLINGS = 50
_UNRUN_WHY = "GitHub runs only the workflows in .github/workflows at the repository's root, and this is not one"


def kept_folder(path: str) -> str:
    """The first folder of ``path`` that says its files are kept, not run ("" when none)."""
    return next((part for part in path.split("/")[:-1] if part.lower() in KEPT_FOLDERS), "")


def lower(severity: str) -> str:
    """One level less severe; info stays info."""
    return SEVERITIES[min(SEVERITIES.index(severity) + 1, len(SEVERITIES) - 1)]


def at_most(severity: str, ceiling: str) -> str:
    """``severity``, or ``ceiling`` when that is less severe."""
    return SEVERITIES[max(SEVERITIES.index(severity), SEVERITIES.index(ceiling))]


def workflow_only(rule: Rule) -> bool:
    """A rule that reads nothing but workflows (and composite actions): what it says is about a
    workflow's run."""
    return kinds.WORKFLOW in rule.kinds and rule.kinds <= _WORKFLOW_ONLY_KINDS


def runs_as_workflow(path: str, root: str = "") -> bool:
    """Whether a forge runs the workflow at ``path`` (relative to the scan root ``root``): it is
    directly in one of WORKFLOW_FOLDERS of the scan root, or of a folder below it that holds a
    ``.git`` (a nested repository or submodule). A path outside the scan root, and one below it
    when there is no folder to look in (``root`` empty), are taken to run: the answer is not known."""
    parts = path.split("/")
    if ".." in parts or path.startswith("/"):
        return True
    if len(parts) < 3 or "/".join(parts[-3:-1]).lower() not in WORKFLOW_FOLDERS:
        return False
    top = parts[:-3]
    if not top or not root:
        return True
    return os.path.lexists(os.path.join(root, *top, ".git"))


def graded(source: SourceFile, hits: list[tuple[Rule, Hit]]) -> list[tuple[Rule, Hit]]:
    """``hits`` with the severity the file's purpose gives them (see the module doc)."""
    if not hits:
        return hits
    folder = kept_folder(source.path)
    workload = source.kind in _KUBERNETES_KINDS and any(rule.category in CONTAINER_POWER for rule, _ in hits)
    workload = workload and _CI_RUNNER.search(source.text) is None and not _names_agent(source)
    policy = workload and _POLICY.search(source.text) is not None
    workload = workload and (not policy or _beside_plain_workloads(source))
    unrun = source.kind == kinds.WORKFLOW and any(workflow_only(rule) or rule.id == "SK001" for rule, _ in hits)
    unrun = unrun and not runs_as_workflow(source.path, source.root)
    if source.kind == kinds.AGENT_CONFIG:
        hits = _renamed_settings(source, hits)
    if not folder and not workload and not unrun:
        return hits
    return [(rule, _regraded(rule, hit, source, folder, workload, unrun, _why(policy, hit))) for rule, hit in hits]


def _renamed_settings(source: SourceFile, hits: list[tuple[Rule, Hit]]) -> list[tuple[Rule, Hit]]:
    """Findings in Claude Code settings kept under another name: said to be copied into place by
    the script that does it, or one step lower when no script of the repository does."""
    from sandkit.lint.facts.agent_settings import renamed_claude_settings
    from sandkit.lint.facts.settings_templates import copier_of

    if not renamed_claude_settings(source):
        return hits
    name = os.path.basename(source.path)
    copier = copier_of(source.root, source.path)
    if copier is not None:
        said = f" (in {name}, which {copier.script}:{copier.line} copies into Claude Code's settings)"
        return [(rule, hit._replace(message=hit.message + said)) for rule, hit in hits]
    why = f"Claude Code settings by their $schema, kept as {name}, which no script of the repository copies into place"
    out = []
    for rule, hit in hits:
        severity = hit.severity or rule.severity
        reasons = [hit.why] if hit.why and severity != rule.severity else []
        out.append((rule, hit._replace(severity=lower(severity), why="; ".join([*reasons, why]))))
    return out


def _why(policy: bool, hit: Hit) -> str:
    """Why a workload's finding is info: a policy's own (its message names it) or a pod's."""
    return _POLICY_WHY if policy and hit.message.startswith("PodSecurityPolicy/") else _WORKLOAD_WHY


def _beside_plain_workloads(source: SourceFile) -> bool:
    """A PodSecurityPolicy kept with the workloads it is for (a chart's ``psp.yaml`` beside its
    DaemonSet, a policy in the same file as its pods): the file or its folder declares workloads
    (:data:`_WORKLOAD_KIND`), and no file of the folder names a coding agent or a CI runner. A
    policy alone in its folder (a cluster's policies) admits every workload's pods: it is not
    lowered. At most :data:`_SIBLINGS` files of the folder are read, each to 64 KiB."""
    texts = [source.text]
    if source.root:
        folder = os.path.dirname(source.path)
        try:
            names = sorted(entry.name for entry in os.scandir(os.path.join(source.root, folder)) if entry.is_file())
        except OSError:
            names = []
        own = os.path.basename(source.path)
        for name in [n for n in names if n != own and n.lower().endswith(_MANIFEST_ENDINGS)][:_SIBLINGS]:
            try:
                with open(os.path.join(source.root, folder, name), "rb") as handle:
                    texts.append(handle.read(65536).decode("utf-8", errors="replace"))
            except OSError:
                continue
    from sandkit.lint.facts.container_model import names_agent

    if any(_CI_RUNNER.search(text) or names_agent(text) for text in texts[1:]):
        return False
    return any(_WORKLOAD_KIND.search(text) for text in texts)


def _regraded(
    rule: Rule, hit: Hit, source: SourceFile, folder: str, workload: bool, unrun: bool, workload_why: str
) -> Hit:
    severity = hit.severity or rule.severity
    reasons = [hit.why] if hit.why and severity != rule.severity else []
    if rule.category in CONTAINER_POWER:
        if workload and severity != "info":
            severity = "info"
            reasons.append(workload_why)
        if folder and severity != at_most(severity, KEPT_AT_MOST):
            severity = at_most(severity, KEPT_AT_MOST)
            reasons.append(f"kept under {folder}/, not the configuration that runs here")
    elif rule.id == "SK001" and folder and source.kind not in _AGENT_KINDS:
        severity = "info"
        reasons.append(f"kept under {folder}/, where nothing reads it as configuration")
    elif unrun and workflow_only(rule) and severity != "info":
        severity = "info"
        reasons.append(_UNRUN_WHY)
    elif unrun and rule.id == "SK001" and severity != "info":
        severity = "info"
        reasons.append(f"{_UNRUN_WHY}: nothing reads it as a workflow")
    if severity == (hit.severity or rule.severity):
        return hit
    return hit._replace(severity=severity, why="; ".join(reasons))


def _names_agent(source: SourceFile) -> bool:
    """The manifest (or, for a Helm template, its chart's values) names a coding agent anywhere."""
    from sandkit.lint.facts.container_model import names_agent

    if names_agent(source.text):
        return True
    return source.template_values is not None and names_agent(" ".join(_strings(source.template_values)))


def _strings(tree: Any) -> list[str]:
    """The keys and string values of a parsed tree, at most ``_VALUE_STRINGS`` of them."""
    found: list[str] = []
    stack = [tree]
    while stack and len(found) < _VALUE_STRINGS:
        node = stack.pop()
        if isinstance(node, str):
            found.append(node)
        elif isinstance(node, dict):
            found.extend(str(key) for key in node)
            stack.extend(node.values())
        elif isinstance(node, list | tuple):
            stack.extend(node)
    return found
