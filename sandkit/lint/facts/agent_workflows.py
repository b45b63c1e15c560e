"""Coding agents in GitHub Actions workflows: which steps run an agent, who can start the job, what
the job holds.

An agent step is a step that uses one of the agents' actions (the catalogue's ``actions``) or runs
an agent's command in ``run:``. Outsiders are whoever can comment, open an issue or a pull request
on a public repository: the events in :data:`OUTSIDER_EVENTS`, unless their ``types`` only name
what triage permission is needed for (labelling, assigning). Shared by the rules that judge agent
steps (who may trigger them, what they may do, the credentials they hold).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from sandkit.agents import CATALOGUE, AgentAction
from sandkit.lazy_regex import lazy
from sandkit.lint.facts.agent_commands import AGENT_NAMES
from sandkit.lint.facts.expressions import exposed_secret_refs
from sandkit.lint.facts.workflows import Job, jobs, never_runs
from sandkit.lint.source import SourceFile
from sandkit.lint.syntax.shell import Word, program_index
from sandkit.lint.syntax.tree import PMap, Pos, PSeq, PStr

#: Events anyone with an account can cause on a public repository.
OUTSIDER_EVENTS = (
    "issue_comment",
    "issues",
    "pull_request_review_comment",
    "pull_request_review",
    "pull_request_target",
    "discussion",
    "discussion_comment",
)
#: Activity types only someone with triage (or write) access can cause.
_TRIAGE_TYPES = frozenset(
    {
        "labeled",
        "unlabeled",
        "assigned",
        "unassigned",
        "milestoned",
        "demilestoned",
        "pinned",
        "unpinned",
        "locked",
        "unlocked",
        "transferred",
        "category_changed",
    }
)
#: An ``if:`` that decides by who triggered the run (or keeps out forks).
_ACTOR_CONDITION = lazy(
    r"author_association|github\.(?:actor|triggering_actor)\b|sender\.(?:login|id)|\.user\.(?:login|id)\b|"
    r"\b(?:OWNER|MEMBER|COLLABORATOR)\b|head\.repo\.(?:fork|full_name)|github\.repository_owner\b"
)
#: A step that asks GitHub for the actor's permission or membership before the agent runs.
_ACTOR_CHECK_STEP = lazy(
    r"(?i)permission|check-?actor|membership|collaborators/[^\s]*\b|getCollaboratorPermissionLevel|"
    r"orgs/[^\s]+/members/|author_association"
)
#: Runners that start a package's command (``npx @anthropic-ai/claude-code -p``).
_LAUNCHERS = frozenset({"npx", "bunx", "pnpx", "uvx", "pipx", "sudo", "env", "exec", "dlx", "run", "time"})
_ACTIONS = {action.uses: (agent.name, action) for agent in CATALOGUE for action in agent.actions}
_SECRET_NAMES = lazy(r"(?i)(?:^|_)(?:AWS|GOOGLE|GCP|GCLOUD|CLOUDSDK|AZURE|ARM|DIGITALOCEAN|KUBE)_?")
#: Actions that put cloud credentials into the job's environment.
CLOUD_LOGINS = (
    "aws-actions/configure-aws-credentials",
    "google-github-actions/auth",
    "azure/login",
    "azure/cli",
    "digitalocean/action-doctl",
)


class AgentStep(NamedTuple):
    """A step of ``job`` (its ``index_in_job``) that runs ``agent``: through ``action`` (its ``with:``
    inputs in ``inputs``), or a command in ``run:``."""

    job: Job
    index_in_job: int

    step: PMap
    agent: str
    action: AgentAction | None
    pos: Pos

    @property
    def inputs(self) -> PMap:
        with_ = self.step.get("with")
        return with_ if isinstance(with_, PMap) else PMap(self.pos)


def action_name(uses: str) -> str:
    """``owner/name`` of a ``uses:`` value, lower-case, without a sub-path or ``@ref``."""
    return "/".join(uses.split("@", 1)[0].lower().split("/")[:2])


def outsider_events(doc: PMap) -> list[str]:
    """The workflow's events that outsiders can cause, in the order written."""
    on = doc.get("on", doc.get(True))
    if isinstance(on, str):
        return [on] if on in OUTSIDER_EVENTS else []
    if isinstance(on, PSeq):
        return [str(e) for e in on if str(e) in OUTSIDER_EVENTS]
    if not isinstance(on, PMap):
        return []
    found = []
    for event, spec in on.items():
        types = spec.get("types") if isinstance(spec, PMap) else None
        names = [str(t) for t in types] if isinstance(types, PSeq) else [str(types)] if isinstance(types, str) else []
        if str(event) in OUTSIDER_EVENTS and not (names and set(names) <= _TRIAGE_TYPES):
            found.append(str(event))
    return found


def agent_steps(file: SourceFile, doc: PMap) -> Iterator[AgentStep]:
    """Every step of every job that runs a coding agent."""
    for job in jobs(doc):
        for index, step in enumerate(job.steps):
            if never_runs(step):
                continue  # ``if: false``: switched off (a job so is not among ``jobs``)
            uses = step.get("uses")
            if isinstance(uses, PStr) and action_name(uses) in _ACTIONS:
                agent, action = _ACTIONS[action_name(uses)]
                yield AgentStep(job, index, step, agent, action, uses.pos)
                continue
            run = step.get("run")
            if isinstance(run, PStr):
                agent_at = _agent_command(file, run)
                if agent_at is not None:
                    yield AgentStep(job, index, step, agent_at[0], None, agent_at[1])


#: Arguments with which an agent's CLI prints something about itself and exits, running no agent
#: (`-v` too, but for aider, whose `-v` is verbose and starts a chat). Any subcommand given
#: ``--help`` or ``-h`` prints its help and runs nothing either.
_REPORT_ONLY = frozenset({"--version", "-V", "version", "--help", "-h", "help"})
_HELP = frozenset({"--help", "-h"})
#: The catalogue's setup subcommands of each command or package that starts an agent: subcommand ->
#: the words after it that start an agent after all (``claude mcp serve``).
_SETUP = {
    name: {entry.split()[0]: frozenset(w[1:] for w in entry.split()[1:]) for entry in agent.setup_commands}
    for agent in CATALOGUE
    for name in agent.names
}


def runs_no_agent(agent: str, arguments: list[Word]) -> bool:
    """Whether an agent's CLI given these arguments runs no agent: it only prints its version or
    help (``codex --version``, ``claude mcp --help``), or its first word that is not an option is a
    subcommand that sets the CLI up (``codex login --with-api-key``, ``claude auth status``,
    ``claude setup-token``, ``gemini mcp list``; the catalogue's ``setup_commands``), written as
    the first argument. A line that ends (``&&``, ``;``, ``|``) ends the arguments read."""
    words: list[str] = []
    for word in arguments:
        if word.text in ("&&", "||", ";", "|", "&"):
            break
        words.append(word.text)
    if not words:
        return False
    known = _REPORT_ONLY if agent.startswith("aider") else _REPORT_ONLY | {"-v"}
    if all(word in known for word in words):
        return True
    if _HELP & set(words):
        return True
    setup = _SETUP.get(agent, {})
    if words[0] not in setup:
        return False  # only as the first word: ``claude -p update`` asks the agent to update something
    return not (len(words) > 1 and words[1] in setup[words[0]])


def _agent_command(file: SourceFile, run: PStr) -> tuple[str, Pos] | None:
    for command in file.commands_in(run):
        words = command.words
        start = program_index([word.text for word in words])  # past `timeout 600`, `nice -n 10`, `env X=1`
        for index, word in enumerate(words[start : start + 3], start):
            base = word.text.rsplit("/", 1)[-1].split("@", 1)[0] if not word.text.startswith("@") else word.text
            base = "@" + base[1:].split("@", 1)[0] if base.startswith("@") else base
            if base in AGENT_NAMES and len(words) > 1:
                if runs_no_agent(base, words[index + 1 :]):
                    break  # `codex --version`, `codex login`: the CLI prints or sets up, no agent runs
                return base, word.pos
            if base not in _LAUNCHERS and word.text not in ("pnpm", "yarn", "npm"):
                break
    return None


def checked_actor(file: SourceFile, doc: PMap, step: AgentStep) -> bool:
    """Something decides by who triggered the run before the agent starts: an ``if:`` on the step,
    its job or a job it needs (transitively), a permission-check step before it, or a deployment
    environment (whose reviewers may gate it)."""
    if _condition_checks(step.step) or "environment" in step.job.spec:
        return True
    for earlier in step.job.steps[: step.index_in_job]:
        text = " ".join(str(earlier.get(key) or "") for key in ("uses", "run"))
        script = earlier.get("with")
        if isinstance(script, PMap):
            text += " " + str(script.get("script") or "")
        if _ACTOR_CHECK_STEP.search(text):
            return True
    table = doc.get("jobs")
    seen: set[str] = set()
    pending = [step.job.name]
    while pending and len(seen) < 200:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        spec = table.get(name) if isinstance(table, PMap) else None
        if not isinstance(spec, PMap):
            continue
        if _condition_checks(spec):
            return True
        needs = spec.get("needs")
        pending += [str(n) for n in needs] if isinstance(needs, PSeq) else [str(needs)] if needs else []
    return False


def _condition_checks(node: PMap) -> bool:
    condition = node.get("if")
    return isinstance(condition, str) and bool(_ACTOR_CONDITION.search(condition))


def opens_to_anyone(step: AgentStep) -> PStr | None:
    """The input of an agent action that lets anyone (``*``) start it, despite its own check."""
    for name in step.action.actor_inputs if step.action is not None else ():
        value = step.inputs.get(name)
        if isinstance(value, PStr) and "*" in [v.strip() for v in re.split(r"[,\n]", value)]:
            return value
    return None


def credentials(file: SourceFile, doc: PMap, step: AgentStep) -> list[str]:
    """What the agent step's job lets it act with: write scopes of the token, ``id-token: write``
    (it can mint OIDC tokens that cloud roles trust), cloud logins before it, and cloud secrets in
    its environment."""
    held = []
    perms = step.job.spec.get("permissions", doc.get("permissions"))
    if perms == "write-all":
        held.append("permissions: write-all")
    elif isinstance(perms, PMap):
        held += [f"{scope}: write" for scope, level in perms.items() if level == "write"]
    for earlier in step.job.steps[: step.index_in_job]:
        uses = earlier.get("uses")
        if isinstance(uses, str) and action_name(uses) in CLOUD_LOGINS:
            held.append(f"cloud credentials from {action_name(uses)}")
    for holder in (step.job.spec, step.step):
        env = holder.get("env")
        for name, value in env.items() if isinstance(env, PMap) else ():
            if isinstance(value, str) and exposed_secret_refs(value) and _SECRET_NAMES.search(str(name)):
                held.append(f"{name} from a secret")
    return held
