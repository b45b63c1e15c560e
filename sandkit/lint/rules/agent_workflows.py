"""Coding agents in GitHub Actions workflows (claude-code-action, codex-action, run-gemini-cli, or an
agent's command in ``run:``): who can start them, what they may do, what they hold.

A workflow agent reads text that whoever triggered the run wrote (the comment, the issue, the pull
request) and acts with the job's token and secrets. Each of these rules is one side of that.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from sandkit.lint.facts.agent_commands import SANDBOXED, dangerous_flags
from sandkit.lint.facts.agent_workflows import (
    AgentStep,
    agent_steps,
    checked_actor,
    credentials,
    opens_to_anyone,
    outsider_events,
)
from sandkit.lint.facts.workflows import named, workflow
from sandkit.lint.kinds import WORKFLOW
from sandkit.lint.model import Hit
from sandkit.lint.registry import rule
from sandkit.lint.source import SourceFile
from sandkit.lint.syntax.shell import Word, parse_commands
from sandkit.lint.syntax.tree import PMap, Pos, PStr

#: Every agent action's name holds one of these (GitHub reads ``uses:`` case-insensitively).
_ACTION_WORDS = re.compile(r"(?i)claude|codex|gemini")
_ALLOWED_TOOLS_FLAGS = ("--allowedTools", "--allowed-tools", "--allowedtools")
_SETTINGS_LIMIT = 100_000


def _unchecked(file: SourceFile, doc: PMap, step: AgentStep) -> bool:
    """Outsiders can start this agent step: its own check is widened to anyone, or it has none
    and nothing before it checks who triggered the run."""
    if step.action is not None and step.action.checks_actor:
        return opens_to_anyone(step) is not None
    return not checked_actor(file, doc, step)


@rule(
    "CP004",
    "agent-untrusted-trigger",
    category="ci-permissions",
    severity="high",
    kinds=(WORKFLOW,),
)
def agent_untrusted_trigger(file: SourceFile) -> Iterator[Hit]:
    """A coding agent runs in a workflow that anyone can trigger, and nothing checks who did.

    The workflow runs on comments, issues, reviews, discussions or pull_request_target
    (outsiders can cause these on a public repository; `types` that need triage access, such
    as `labeled` or `assigned`, are not counted), and a job runs an agent: an agent action or
    an agent's command in `run:`. Checking who triggered it means an `if:` on the step, its
    job or a job it needs that reads `author_association`, the actor or the sender, a step
    before it that asks for the actor's permission, or a deployment `environment`.
    claude-code-action and codex-action check write access themselves; they are reported
    when `allowed_non_write_users`, `allowed_bots` or `allow-users` is `*`.

    Why:
    The agent obeys the text of the comment, issue or pull request that started it. Anyone
    who can write that text steers an agent holding the job's token, secrets and shell
    (prompt injection is not solved by the prompt).

    Fix:
    Add `if: contains(fromJSON('["OWNER","MEMBER","COLLABORATOR"]'),
    github.event.comment.author_association)` (or the matching field of the event) to the
    job, or keep the action's own write-access check by naming users instead of `*`.
    """
    doc = workflow(file)
    events = outsider_events(doc) if doc is not None else []
    if doc is None or not events:
        return
    on = "/".join(events)
    for step in agent_steps(file, doc):
        widened = opens_to_anyone(step)
        if widened is not None:
            yield Hit(widened.pos, f'{step.agent} in job "{step.job.name}" lets anyone start it on {on} ("*")')
        elif _unchecked(file, doc, step):
            yield Hit(
                step.pos, f'{step.agent} in job "{step.job.name}" runs on {on} and nothing checks who triggered it'
            )


@rule(
    "CP005",
    "agent-job-credentials",
    category="ci-permissions",
    severity="medium",
    kinds=(WORKFLOW,),
)
def agent_job_credentials(file: SourceFile) -> Iterator[Hit]:
    """A coding agent's job holds write scopes, an OIDC token or cloud credentials.

    For each step that runs an agent: the job's (or workflow's) write scopes,
    `id-token: write`, a cloud login action before the step (configure-aws-credentials,
    google-github-actions/auth, azure/login) and cloud-named secrets in the job's or step's
    `env`. Medium; low when the only one is `id-token: write` (it still lets the agent mint
    tokens that cloud roles may trust); high when outsiders can also start the agent
    unchecked (see CP004). A step that only sets an agent's CLI up runs no agent and is not one
    (`codex login --with-api-key`, `claude auth status`, `claude setup-token`, `claude mcp list`
    but not `claude mcp serve`, `gemini mcp list`, any `--help` or `--version`); nor is a job or
    step whose `if:` is always false (`if: false`, `${{ false }}`), which never runs.

    Why:
    Whatever the job holds, the agent holds: it runs shell commands and can read the token,
    the environment and the credential files of the runner. A prompt injection in the text
    it reads then pushes code, edits workflows or reaches the cloud account.

    Fix:
    Give the agent's job read scopes only (`permissions: {contents: read}`) and let a
    separate job, which runs no agent, write the result; keep cloud logins out of its job.
    """
    doc = workflow(file)
    if doc is None:
        return
    events = outsider_events(doc)
    for step in agent_steps(file, doc):
        held = credentials(file, doc, step)
        if not held:
            continue
        severity, why = ("low", "its only credential is the OIDC token") if held == ["id-token: write"] else ("", "")
        if events and _unchecked(file, doc, step):
            severity, why = "high", "outsiders can start the agent unchecked (CP004)"
        message = f'{step.agent} in job "{step.job.name}" holds {named(held, 6)}'
        yield Hit(step.pos, message, severity=severity, why=why)


@rule(
    "AA014",
    "workflow-agent-unrestricted",
    category="agent-autorun",
    severity="high",
    kinds=(WORKFLOW,),
    triggers=(_ACTION_WORDS,),
)
def workflow_agent_unrestricted(file: SourceFile) -> Iterator[Hit]:
    """An agent action in a workflow may run any shell command, or runs without its sandbox.

    The inputs of claude-code-action and its base action, codex-action and run-gemini-cli:
    an approval-skipping flag in `claude_args` or `codex-args` (as AA008 reads them),
    `--allowedTools` or `allowed_tools` naming `Bash` without a command prefix,
    `settings` JSON that allows any Bash command, sets `defaultMode: bypassPermissions` or
    allows Gemini's shell tool without a prefix; codex-action's `sandbox:
    danger-full-access` and `safety-strategy: unsafe`.

    Why:
    The agent reads issues, comments and code that others wrote. With any command allowed
    (or no sandbox) one planted instruction runs on the runner with the job's token and
    secrets, and may send them out.

    Fix:
    Allow the commands the task needs by prefix (`--allowedTools "Bash(npm test:*)"`), keep
    codex-action's default `sandbox: workspace-write` and `safety-strategy: drop-sudo`.
    """
    doc = workflow(file)
    for step in agent_steps(file, doc) if doc is not None else ():
        if step.action is None:
            continue
        inputs = step.inputs
        for name, unsafe in step.action.unsafe_inputs.items():
            value = inputs.get(name)
            if isinstance(value, PStr) and value.strip() in unsafe:
                yield Hit(value.pos, f"{step.agent} {name}: {value.strip()} {unsafe[value.strip()]}")
        for name in step.action.args_inputs:
            value = inputs.get(name)
            if isinstance(value, PStr):
                yield from _args_hits(file, step, name, value)
        for name in step.action.tools_inputs:
            value = inputs.get(name)
            if isinstance(value, PStr):
                yield from _tool_list_hits(file, step, name, value)
        for name in step.action.settings_inputs:
            value = inputs.get(name)
            if isinstance(value, PStr):
                yield from _settings_hits(file, step, name, value)


def _args_hits(file: SourceFile, step: AgentStep, name: str, value: PStr) -> Iterator[Hit]:
    """Approval-skipping flags and shell-wide ``--allowedTools`` in an arguments input."""
    agent = "claude" if "claude" in step.agent.lower() else "codex"
    words = [Word(agent, value.pos)] + [w for c in parse_commands(str(value)) for w in c.words]
    for word, _agent, what in dangerous_flags(words):
        if word.text.partition("=")[0] not in SANDBOXED:
            yield Hit(_at(file, value, word.text), f"{step.agent} {name} {word.text}: {what}")
    for index, word in enumerate(words):
        flag, eq, rest = word.text.partition("=")
        if flag in _ALLOWED_TOOLS_FLAGS:
            listed = rest if eq else (words[index + 1].text if index + 1 < len(words) else "")
            yield from _tool_list_hits(file, step, name, value, listed)


def _tool_list_hits(file: SourceFile, step: AgentStep, name: str, value: PStr, listed: str = "") -> Iterator[Hit]:
    for tool in re.split(r"[,\n]|\s+(?![^(]*\))", listed or str(value)):
        tool = tool.strip().strip("\"'")
        if tool and _any_command(tool):
            yield Hit(_at(file, value, tool), f"{step.agent} {name} allows {tool}: any shell command without asking")


def _any_command(tool: str) -> bool:
    from sandkit.lint.facts.agent_settings import BLANKET_ALLOW  # only once an agent step lists tools

    return bool(BLANKET_ALLOW.match(tool)) and tool.lower().startswith(("bash", "shell", "*"))


def _settings_hits(file: SourceFile, step: AgentStep, name: str, value: PStr) -> Iterator[Hit]:
    """Settings JSON given inline: Claude's permissions, Gemini's allowed tools."""
    if len(value) > _SETTINGS_LIMIT:
        return
    try:
        settings = json.loads(str(value))
    except ValueError:
        return  # a path to a settings file, or not JSON: the agent reads it, not us
    if not isinstance(settings, dict):
        return
    permissions = settings.get("permissions")
    if isinstance(permissions, dict):
        if permissions.get("defaultMode") == "bypassPermissions":
            yield Hit(_at(file, value, "bypassPermissions"), f"{step.agent} {name} bypasses permission checks")
        allow = permissions.get("allow")
        for entry in allow if isinstance(allow, list) else ():
            if isinstance(entry, str) and _any_command(entry):
                yield Hit(_at(file, value, entry), f"{step.agent} {name} allows {entry}: any shell command")
    tools = settings.get("tools")
    from sandkit.lint.facts.agent_settings import ANY_SHELL

    for holder in (settings, tools) if isinstance(tools, dict) else (settings,):
        for key in ("allowed", "allowedTools"):
            allowed = holder.get(key)
            for entry in allowed if isinstance(allowed, list) else ():
                if isinstance(entry, str) and ANY_SHELL.fullmatch(entry):
                    yield Hit(_at(file, value, entry), f"{step.agent} {name} allows {entry}: any shell command")


def _at(file: SourceFile, value: PStr, text: str) -> Pos:
    offset = value.find(text)
    return file.str_pos(value, offset) if offset >= 0 else value.pos
