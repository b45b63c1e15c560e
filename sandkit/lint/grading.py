"""Severity by where a finding is: what the file is for, not what the rule matched.

A rule grades what it reads in a container's settings; two facts about the file itself change how
bad a right finding is for the linter's question (what lets an unattended agent reach beyond its
sandbox), and are read here for every rule of the categories they concern:

- a Kubernetes manifest that names no coding agent (a node agent's DaemonSet, a CSI driver, a
  monitoring collector): the power it asks for is the node's, given to that workload where the
  manifest is deployed, not to a sandbox an agent works in. Container-power findings (privileged,
  runtime-socket) are one level lower there. A CI runner's workload (Actions Runner Controller,
  GitLab, Buildkite, Jenkins agents ...) is not: it runs whatever jobs arrive, agents' included;
  nor is a PodSecurityPolicy, which admits the pods of every workload.
  Dev containers, Compose files, scripts and CI are not touched: they are where agents run.
- a file under a folder that says it is kept, not run (``_archived/``, ``archive/``,
  ``examples/``, ``samples/``, ``fixtures/``, ``testdata/``): container-power findings are one
  level lower, and a parse error (SK001) there is info. Agent configuration, instructions, MCP
  servers, hidden Unicode and secrets are **not** lowered: an agent reads an instruction file or a
  hidden character wherever it is, and a secret is as live in an example as anywhere.

The hit keeps the rule's reason for its own severity and adds this one, so the printed message
says every step that moved it.
"""

from __future__ import annotations

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
CONTAINER_POWER = frozenset({"privileged", "runtime-socket"})
#: Manifests that declare their workloads. Kustomize patches (kustomization, JSON 6902) are not
#: among them: what they patch is declared in another file, whose agent the patch need not name.
_KUBERNETES_KINDS = frozenset({kinds.KUBERNETES})
_AGENT_KINDS = frozenset({kinds.AGENT_CONFIG, kinds.AGENT_INSTRUCTIONS})
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


def kept_folder(path: str) -> str:
    """The first folder of ``path`` that says its files are kept, not run ("" when none)."""
    return next((part for part in path.split("/")[:-1] if part.lower() in KEPT_FOLDERS), "")


def lower(severity: str) -> str:
    """One level less severe; info stays info."""
    return SEVERITIES[min(SEVERITIES.index(severity) + 1, len(SEVERITIES) - 1)]


def graded(source: SourceFile, hits: list[tuple[Rule, Hit]]) -> list[tuple[Rule, Hit]]:
    """``hits`` with the severity the file's purpose gives them (see the module doc)."""
    if not hits:
        return hits
    folder = kept_folder(source.path)
    workload = source.kind in _KUBERNETES_KINDS and any(rule.category in CONTAINER_POWER for rule, _ in hits)
    workload = workload and _POLICY.search(source.text) is None and _CI_RUNNER.search(source.text) is None
    workload = workload and not _names_agent(source)
    if not folder and not workload:
        return hits
    return [(rule, _regraded(rule, hit, source, folder, workload)) for rule, hit in hits]


def _regraded(rule: Rule, hit: Hit, source: SourceFile, folder: str, workload: bool) -> Hit:
    severity = hit.severity or rule.severity
    reasons = [hit.why] if hit.why and severity != rule.severity else []
    if rule.category in CONTAINER_POWER:
        if workload:
            severity = lower(severity)
            reasons.append(
                "a Kubernetes workload that names no coding agent: a node's power for it, no agent's sandbox"
            )
        if folder:
            severity = lower(severity)
            reasons.append(f"kept under {folder}/, not the configuration that runs here")
    elif rule.id == "SK001" and folder and source.kind not in _AGENT_KINDS:
        severity = "info"
        reasons.append(f"kept under {folder}/, where nothing reads it as configuration")
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
