"""What kind of file a path holds, by its name first and its content where names are vague.

A kind says what the file *is* (a Compose file, a workflow, agent instructions); its syntax
says how it parses. Rules subscribe to kinds. ``TEXT`` is every other readable file.
"""

from __future__ import annotations

import fnmatch
import re
from typing import NamedTuple

from sandkit.agents import CATALOGUE, unique
from sandkit.lazy_regex import lazy
from sandkit.literal_search import LARGE_TEXT, LiteralSet

KIT = "kit"
COMPOSE = "compose"
KUBERNETES = "kubernetes"
KUSTOMIZATION = "kustomization"
JSON_PATCH = "json-patch"
WORKFLOW = "workflow"
ACTION = "action"
DEVCONTAINER = "devcontainer"
DOCKERFILE = "dockerfile"
DOCKERIGNORE = "dockerignore"
SHELL = "shell"
MAKEFILE = "makefile"
JUSTFILE = "justfile"
ENV = "env"
AGENT_CONFIG = "agent-config"
AGENT_INSTRUCTIONS = "agent-instructions"
GITLAB_CI = "gitlab-ci"
CIRCLECI = "circleci"
JENKINSFILE = "jenkinsfile"
GITLAB_RUNNER = "gitlab-runner"
AZURE_PIPELINES = "azure-pipelines"
BITBUCKET_PIPELINES = "bitbucket-pipelines"
NOMAD = "nomad"
TERRAFORM = "terraform"
SYSTEMD = "systemd-unit"
ANSIBLE = "ansible"
TESTCONTAINERS = "testcontainers"
YAML = "yaml"
JSON = "json"
TOML = "toml"
TEXT = "text"

KINDS = (
    KIT,
    COMPOSE,
    KUBERNETES,
    KUSTOMIZATION,
    JSON_PATCH,
    WORKFLOW,
    ACTION,
    DEVCONTAINER,
    DOCKERFILE,
    DOCKERIGNORE,
    SHELL,
    MAKEFILE,
    JUSTFILE,
    ENV,
    AGENT_CONFIG,
    AGENT_INSTRUCTIONS,
    GITLAB_CI,
    CIRCLECI,
    JENKINSFILE,
    GITLAB_RUNNER,
    AZURE_PIPELINES,
    BITBUCKET_PIPELINES,
    NOMAD,
    TERRAFORM,
    SYSTEMD,
    ANSIBLE,
    TESTCONTAINERS,
    YAML,
    JSON,
    TOML,
    TEXT,
)

#: Kinds whose parse always runs, so a broken file is reported even when no rule fires.
STRUCTURED = frozenset(
    {
        KIT,
        COMPOSE,
        KUBERNETES,
        KUSTOMIZATION,
        WORKFLOW,
        ACTION,
        DEVCONTAINER,
        AGENT_CONFIG,
        GITLAB_CI,
        CIRCLECI,
        AZURE_PIPELINES,
        BITBUCKET_PIPELINES,
    }
)

#: Kinds a JSON file may turn out to be once its content is read.
JSON_FAMILY = frozenset({JSON, JSON_PATCH, AGENT_CONFIG})

#: Kinds a YAML file may turn out to be once its content is read.
YAML_FAMILY = frozenset({KIT, COMPOSE, KUBERNETES, JSON_PATCH, WORKFLOW, ACTION, ANSIBLE, YAML})

#: Kinds an HCL file of no known tool may turn out to be once its content is read.
HCL_FAMILY = frozenset({NOMAD, TEXT})

#: Kinds a TOML file may turn out to be once its content is read (a GitLab runner's config.toml).
TOML_FAMILY = frozenset({GITLAB_RUNNER, TOML})

#: Kinds a file named like a git hook may be (a shell script, or a hook in another language).
HOOK_FAMILY = frozenset({SHELL, TEXT})

#: Client-side git hooks (the generic server-side ``update`` and the receive hooks are left out):
#: files so named are shell scripts unless a shebang says otherwise (husky's have none).
GIT_HOOKS = frozenset(
    {
        "applypatch-msg",
        "pre-applypatch",
        "post-applypatch",
        "pre-commit",
        "pre-merge-commit",
        "prepare-commit-msg",
        "commit-msg",
        "post-commit",
        "pre-rebase",
        "post-checkout",
        "post-merge",
        "pre-push",
        "pre-auto-gc",
        "post-rewrite",
        "post-index-change",
        "reference-transaction",
        "fsmonitor-watchman",
        "sendemail-validate",
    }
)

#: Kinds a Markdown file in a ``commands/`` or ``agents/`` folder may be: a Claude Code plugin's
#: slash command or subagent (at the plugin's root, not under ``.claude/``), or prose.
COMPONENT_FAMILY = frozenset({AGENT_INSTRUCTIONS, TEXT})

#: Kinds a ``.pod`` file may be (a Quadlet unit, or Perl documentation).
UNIT_FAMILY = frozenset({SYSTEMD, TEXT})


class Kind(NamedTuple):
    kind: str
    syntax: str  # yaml | json | toml | dockerfile | shell | makefile | justfile | jenkinsfile | env | text,
    # or template (YAML with {{ }} / {% %} template syntax) and helm (a chart's template)


#: Kinds a file's name leaves open, and the kinds its content may make of it; a scan reads such a
#: file only when a selected rule wants one of them.
CONTENT_FAMILIES = {
    Kind(YAML, "yaml"): YAML_FAMILY,
    Kind(YAML, "template"): YAML_FAMILY,
    Kind(JSON, "json"): JSON_FAMILY,
    Kind(TEXT, "hcl"): HCL_FAMILY,
    Kind(TEXT, "unit"): UNIT_FAMILY,
    Kind(TEXT, "hook"): HOOK_FAMILY,
    Kind(TOML, "toml"): TOML_FAMILY,
    Kind(TEXT, "component"): COMPONENT_FAMILY,
}


# Agent files, as lower-case glob patterns over the path relative to the scan root, from the
# agent catalogue. Instruction files are prose the agent reads; config files are settings it obeys.
AGENT_INSTRUCTION_PATTERNS = unique([pattern for agent in CATALOGUE for pattern in agent.instruction_files])
AGENT_CONFIG_PATTERNS = unique([pattern for agent in CATALOGUE for pattern in agent.config_files])


def _example_env_name(name: str) -> bool:
    """An env file named as an example, with ``env`` among its dot-parted pieces and an example's or
    template's word among its pieces (``.example.env.local``, ``env.example``, ``config.env.sample``,
    ``app.env.template``): what ``cp env.example .env`` copies."""
    pieces = name.split(".")
    return "env" in pieces and any(piece in _ENV_EXAMPLE_WORDS for piece in re.split(r"[._-]", name))


_ENV_EXAMPLE_WORDS = frozenset({"example", "examples", "sample", "samples", "template", "tmpl", "dist"})
_SHELL_EXTENSIONS = (".sh", ".bash", ".zsh", ".ksh", ".envrc")
_NOT_DOCKERFILE = (
    ".md",
    ".py",
    ".txt",
    ".json",
    ".yml",
    ".yaml",
    ".sh",
    ".go",
    ".rs",
    ".js",
    ".ts",
    ".html",
    ".rst",
    ".toml",
    ".lock",
)
_SHEBANG = rb"#![^\n]*\b(?:ba|z|da|k)?sh\b"  # compiled (by re's cache) once a file starts with "#!"


_WILDCARDS = str.maketrans(dict.fromkeys("*?[]", "\0"))  # fnmatch's special characters, as a cut


def glob_regex(patterns: tuple[str, ...]) -> str:
    """One regex for a list of globs (fnmatch's, so ``*`` crosses folders), each of which may
    match below any folder."""
    parts = []
    for pattern in patterns:
        body = fnmatch.translate(pattern)[4:-3]  # strip translate's "(?s:" ... ")\Z"
        parts.append(f"(?:.*/)?{body}")
    return "(?s:" + "|".join(parts) + r")\Z"


class PathGlobs:
    """Lower-case globs over a path relative to the scan root, each matching below any folder,
    as one regex of them all would (:func:`glob_regex`) but without compiling it for every run
    (two of fifty alternatives took 2 ms): a name without a wildcard is looked up in a set, for
    the path and each tail after a "/"; the wildcard patterns' regex is compiled and tried only
    once the path holds the literal text of one of them."""

    def __init__(self, patterns: tuple[str, ...]) -> None:
        pieces = {p: p.translate(_WILDCARDS).split("\0") for p in patterns}
        self.wild = tuple(p for p in patterns if len(pieces[p]) > 1)
        self.names = frozenset(p for p in patterns if len(pieces[p]) == 1)
        self.hints = tuple(max(pieces[p], key=len) for p in self.wild)

        self._wild_regex: re.Pattern[str] | None = None

    def match(self, lower: str) -> bool:
        if lower in self.names:
            return True
        slash = lower.find("/")
        while slash >= 0:
            if lower[slash + 1 :] in self.names:
                return True
            slash = lower.find("/", slash + 1)
        if not any(hint in lower for hint in self.hints):
            return False
        if self._wild_regex is None:
            self._wild_regex = re.compile(glob_regex(self.wild))
        return self._wild_regex.match(lower) is not None


_AGENT_CONFIG_GLOBS = PathGlobs(AGENT_CONFIG_PATTERNS)
_AGENT_INSTRUCTION_GLOBS = PathGlobs(AGENT_INSTRUCTION_PATTERNS)


#: Program source and scripts: inside an agent's instruction folder (``.claude/skills/x/scripts/``,
#: ``.claude/commands/``) a file so named is code the agent may run, not prose it reads as orders;
#: its comments and docstrings (a usage line) are the script's, read as the language's own kind.
SCRIPT_EXTENSIONS = (
    *(".sh", ".bash", ".zsh", ".ksh", ".fish", ".ps1", ".psm1", ".bat", ".cmd"),
    *(".py", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx"),
    *(".rb", ".pl", ".php", ".lua", ".go", ".rs", ".java", ".kt", ".swift", ".r", ".jl", ".cs"),
)


def _instruction_path(lower: str) -> bool:
    """An agent instruction file by its path: a pattern of the catalogue, and not a script."""
    return _AGENT_INSTRUCTION_GLOBS.match(lower) and not lower.endswith(SCRIPT_EXTENSIONS)


def in_agent_files(rel: str) -> bool:
    """Whether a path is among an agent's configuration or instruction files or folders, scripts
    there included (a skill's script runs when the skill does): what a sandbox should not change."""
    lower = rel.lower()
    return _AGENT_CONFIG_GLOBS.match(lower) or _AGENT_INSTRUCTION_GLOBS.match(lower)


def is_agent_file(rel: str) -> bool:
    """True for agent configuration or instruction files (read even in dependency folders)."""
    lower = rel.lower()
    return _AGENT_CONFIG_GLOBS.match(lower) or _instruction_path(lower)


def _syntax_of(name: str) -> str:
    if name.endswith((".yml", ".yaml")):
        return "yaml"
    if name.endswith((".json", ".jsonc", ".code-workspace")):
        return "json"
    if name.endswith(".toml"):
        return "toml"
    return "text"


_TEMPLATE_EXTENSIONS = (".j2", ".jinja", ".jinja2", ".tmpl", ".tpl", ".mustache", ".gotmpl", ".template", ".hbs")


def kind_by_name(rel: str) -> Kind:
    """The kind a path's name implies; YAML and extension-less files may be refined later."""
    lower = rel.lower()
    name = lower.rsplit("/", 1)[-1]
    if name.endswith(_TEMPLATE_EXTENSIONS) and name.rsplit(".", 1)[0].endswith((".yml", ".yaml")):
        # compose.yaml.j2, docker-compose.yml.mustache: read as YAML once the template syntax is masked
        inner = kind_by_name(lower.rsplit(".", 1)[0])
        return Kind(inner.kind, "template") if inner.syntax == "yaml" else inner
    if name.endswith(".dist"):
        # docker-compose.yml.dist: the distributed default, copied to docker-compose.yml to be run
        # (a Compose file only: a framework's parameters.yml.dist holds stand-ins by design)
        inner = kind_by_name(lower[: -len(".dist")])
        if inner.kind == COMPOSE:
            return inner
    if _AGENT_CONFIG_GLOBS.match(lower):
        return Kind(AGENT_CONFIG, _syntax_of(name))
    if _instruction_path(lower):
        return Kind(AGENT_INSTRUCTIONS, _syntax_of(name))
    if name == ".dockerignore" or name.endswith(".dockerignore"):
        return Kind(DOCKERIGNORE, "text")
    if ("dockerfile" in name or name.startswith("containerfile")) and not name.endswith(_NOT_DOCKERFILE):
        return Kind(DOCKERFILE, "dockerfile")
    if name in ("devcontainer-lock.json", ".devcontainer-lock.json"):
        return Kind(JSON, "json")  # features pinned by the CLI: what devcontainer.json already says
    if name in ("devcontainer.json", ".devcontainer.json") or (
        "/.devcontainer/" in f"/{lower}" and name.endswith(".json")
    ):
        return Kind(DEVCONTAINER, "json")
    if name in ("makefile", "gnumakefile") or name.endswith((".mk", ".mak")):
        return Kind(MAKEFILE, "makefile")
    if name in ("justfile", ".justfile") or name.endswith(".just"):
        return Kind(JUSTFILE, "justfile")
    if _is_jenkinsfile(name):
        return Kind(JENKINSFILE, "jenkinsfile")
    if name.endswith((".nomad", ".nomad.hcl")):
        return Kind(NOMAD, "hcl")
    if name.endswith((".tf", ".tofu")):
        return Kind(TERRAFORM, "hcl")
    if name.endswith((".tf.json", ".tofu.json")):
        return Kind(TERRAFORM, "json")
    if name.endswith(".hcl"):
        return Kind(TEXT, "hcl")  # a Nomad job or client configuration, by its content
    if name.endswith((".container", ".kube", ".service")):
        return Kind(SYSTEMD, "unit")
    if name.endswith(".pod"):
        return Kind(TEXT, "unit")  # a Quadlet pod, or Perl's documentation, by its content
    if name in (".testcontainers.properties", "testcontainers.properties"):
        return Kind(TESTCONTAINERS, "properties")
    if name in GIT_HOOKS:
        return Kind(TEXT, "hook")
    if name.endswith(_SHELL_EXTENSIONS):
        return Kind(SHELL, "shell")
    if name == ".env" or name.startswith(".env.") or name.endswith(".env") or _example_env_name(name):
        return Kind(ENV, "env")
    if name.endswith(".md") and f"/{lower}"[: -len(name)].endswith(("/commands/", "/agents/")):
        return Kind(TEXT, "component")  # a plugin's command or subagent, by its front matter
    syntax = _syntax_of(name)
    if syntax == "yaml":
        return Kind(_yaml_kind_by_name(lower, name), "yaml")
    if syntax in ("json", "toml"):
        return Kind(syntax, syntax)
    if name == "kustomization":
        return Kind(KUSTOMIZATION, "yaml")
    return Kind(TEXT, "text")


def _is_jenkinsfile(name: str) -> bool:
    """Jenkinsfile, Jenkinsfile.release, release.jenkinsfile (not Jenkinsfile.md and the like)."""
    if name == "jenkinsfile" or name.endswith(".jenkinsfile"):
        return True
    return name.startswith("jenkinsfile.") and not name.endswith(_NOT_DOCKERFILE)


def _yaml_kind_by_name(lower: str, name: str) -> str:
    if "/.github/workflows/" in f"/{lower}":
        return WORKFLOW
    if name.endswith((".gitlab-ci.yml", ".gitlab-ci.yaml")) or "/.gitlab/ci/" in f"/{lower}":
        return GITLAB_CI
    if "/.circleci/" in f"/{lower}":
        return CIRCLECI
    if name in ("bitbucket-pipelines.yml", "bitbucket-pipelines.yaml"):
        return BITBUCKET_PIPELINES
    if name.startswith("azure-pipelines") or (
        "azure" in lower and re.search(r"/(?:\.?azure-pipelines|\.azuredevops)/", f"/{lower}")
    ):
        return AZURE_PIPELINES
    if name in ("kustomization.yaml", "kustomization.yml"):
        return KUSTOMIZATION
    if name in ("action.yml", "action.yaml"):
        return ACTION
    if re.fullmatch(r"(docker-)?compose([.-][\w.-]+)?\.ya?ml|[\w.-]+\.compose\.ya?ml", name):
        return COMPOSE
    return YAML


_LINE_KEY = r"(?m)^{}\s*:"
_KIT_MARK = lazy(r"(?m)^apiVersion:\s*[\"']?sandkit/v1\b")
_K8S_API = lazy(_LINE_KEY.format("apiVersion"))
_K8S_KIND = lazy(_LINE_KEY.format("kind"))
_SERVICES = lazy(_LINE_KEY.format("services"))
_JOBS = lazy(_LINE_KEY.format("jobs"))
_ON = lazy(r"(?m)^[\"']?(?:on|true)[\"']?\s*:")
_RUNS = lazy(_LINE_KEY.format("runs"))
_NOMAD = lazy(r'(?m)^(?:job\s+"|client\s*\{)')
_QUADLET_POD = lazy(r"(?m)^\[Pod\]")
_GITLAB_RUNNERS = lazy(r"(?m)^\s*\[\[\s*runners\s*\]\]")
#: Ansible modules that start containers, and ``docker|podman run`` in a shell or command task.
_ANSIBLE_CONTAINER = lazy(r"\b(?:docker|podman)_(?:container|swarm_service|compose(?:_v2)?)\s*:")
_ANSIBLE_SHELL = lazy(r"(?m)^\s*(?:-\s+)?(?:ansible\.(?:builtin|legacy)\.)?(?:shell|command|raw)\s*:")
_RUNTIME_RUN = lazy(r"\b(?:docker|podman)\b[^\n]{0,200}?\brun\b")
_JSON_PATCH = lazy(r'\A(?:\s*#[^\n]*\n)*\s*(?:-\s+(?:op|path|value|from)\s*:|\[\s*\{\s*"(?:op|path|value|from)"\s*:)')


_RUNTIMES = LiteralSet(("docker", "podman"))
_JSON_K8S = lazy(r'"apiVersion"\s*:\s*"[\w./-]+"')
_JSON_KIND = lazy(r'"kind"\s*:\s*"[A-Z]\w*"')


#: The names Claude Code's settings files have, wherever a repository keeps them.
CLAUDE_SETTINGS_NAMES = frozenset({"settings.json", "settings.local.json"})
#: What only Claude Code's settings hold: its schema, a hook event of its own, or a permission
#: rule naming one of its tools (``Bash(npm test:*)``, ``mcp__server``) or its ``defaultMode``.
_CLAUDE_SETTINGS_MARK = lazy(
    r'claude-code-settings|"(?:PreToolUse|PostToolUse|UserPromptSubmit|SessionStart|SessionEnd|SubagentStop'
    r'|PreCompact)"\s*:|"(?:Bash|WebFetch|WebSearch|NotebookEdit)\(|"mcp__\w|"defaultMode"\s*:'
)

#: A JSON file that declares Claude Code's settings schema: SchemaStore's (the one Claude Code's
#: issue tracker points to), or the ``code.claude.com/schemas/settings.json`` projects write. The
#: declaration is the author saying whose settings these are, whatever the file's name.
_CLAUDE_SETTINGS_SCHEMA = lazy(
    r'\A\s*(?://[^\n]*\n\s*)*\{\s*(?:"[^"\n]{0,60}"\s*:\s*"[^"\n]{0,200}"\s*,\s*){0,3}"\$schema"\s*:\s*'
    r'"https?://(?:json\.schemastore\.org/claude-code-settings|code\.claude\.com/schemas/settings)\.json"'
)
#: Names a settings template or example is kept under before it is copied into place
#: (``settings.json.example``): read as JSON when the schema says they are Claude Code's.
_JSON_TEMPLATE_NAME = lazy(r".+\.jsonc?\.(?:example|sample|template|tmpl|dist|default|in)")


def declares_claude_settings(head: str) -> bool:
    """Whether a JSON file's first mapping declares Claude Code's settings schema as its
    ``$schema`` (among its first keys)."""
    return _CLAUDE_SETTINGS_SCHEMA.match(head) is not None


#: A hooks file a Claude Code plugin's manifest may name (``"hooks": "./config/hooks.json"``): one
#: of Claude Code's hook events as a key, and a command.
_CLAUDE_HOOK_EVENT = lazy(
    r'"(?:PreToolUse|PostToolUse|PostToolUseFailure|UserPromptSubmit|SessionStart|SessionEnd|Stop|SubagentStart'
    r'|SubagentStop|PreCompact|Notification|PermissionRequest)"\s*:'
)

#: A hooks file of Cursor's (``~/.cursor/hooks.json`` kept in a dotfiles repository, a Cursor
#: plugin's): one of the hook events only Cursor names, as a key (cursor.com/docs/agent/hooks).
_CURSOR_HOOK_EVENT = lazy(
    r'"(?:beforeShellExecution|afterShellExecution|beforeMCPExecution|afterMCPExecution|beforeReadFile'
    r'|afterFileEdit|beforeSubmitPrompt|afterAgentResponse|afterAgentThought|beforeTabFileRead|afterTabFileEdit)"\s*:'
)

#: Front matter keys only Claude Code's commands and subagents give: what a plugin's
#: ``commands/x.md`` or ``agents/x.md`` holds, and a page of documentation does not.
_COMPONENT_KEYS = lazy(
    r"(?m)^(?:allowed-tools|argument-hint|disable-model-invocation|permissionMode|hooks|tools|disallowedTools)[ \t]*:"
)


def kind_by_content(kind: Kind, head: str, text: str = "", name: str = "") -> Kind:
    """Refine a vague kind from the start of the file's text (Ansible: from all of ``text``,
    since a playbook's container task may come late). A ``settings.json`` that holds Claude
    Code's settings is the agent's configuration wherever it is kept: a repository of a user's
    ``~/.claude`` folder keeps it at its top, and an install script links it into place. So is a
    ``hooks.json`` holding Claude Code's hooks, which a plugin's manifest may name from any folder,
    or Cursor's (a user's ``~/.cursor/hooks.json`` kept in a dotfiles repository, a Cursor plugin's)."""
    if kind.kind in (YAML, JSON) and _JSON_PATCH.match(head):
        return Kind(JSON_PATCH, kind.syntax)
    if kind == Kind(JSON, "json") and name in CLAUDE_SETTINGS_NAMES and _CLAUDE_SETTINGS_MARK.search(head):
        return Kind(AGENT_CONFIG, "json")
    if (
        kind == Kind(JSON, "json") or (kind == Kind(TEXT, "text") and _JSON_TEMPLATE_NAME.fullmatch(name))
    ) and declares_claude_settings(head):
        return Kind(AGENT_CONFIG, "json")  # settings.template.json, claude-settings.json: its schema names it
    if (
        kind == Kind(JSON, "json")
        and name == "hooks.json"
        and '"command"' in head
        and (_CLAUDE_HOOK_EVENT.search(head) or _CURSOR_HOOK_EVENT.search(head))
    ):
        return Kind(AGENT_CONFIG, "json")
    if kind == Kind(JSON, "json") and _JSON_K8S.search(head) and _JSON_KIND.search(head):
        return Kind(KUBERNETES, "json")  # kubectl get -o json, and manifests written as JSON
    if kind == Kind(TEXT, "hcl"):
        return Kind(NOMAD, "hcl") if _NOMAD.search(head) else Kind(TEXT, "text")
    if kind == Kind(TEXT, "unit"):
        return Kind(SYSTEMD, "unit") if _QUADLET_POD.search(head) else Kind(TEXT, "text")
    if kind == Kind(TOML, "toml") and _GITLAB_RUNNERS.search(head):
        return Kind(GITLAB_RUNNER, "toml")
    if kind == Kind(TEXT, "component"):
        if head.startswith("---") and _COMPONENT_KEYS.search(head.split("\n---", 1)[0]):
            return Kind(AGENT_INSTRUCTIONS, "text")
        return Kind(TEXT, "text")
    if kind == Kind(TEXT, "hook"):  # a shell shebang was seen before; another one is another language
        return Kind(TEXT, "text") if head.startswith("#!") else Kind(SHELL, "shell")
    if kind.syntax in ("yaml", "template") and kind.kind == YAML:
        if _KIT_MARK.search(head):
            return Kind(KIT, kind.syntax)
        if _K8S_API.search(head) and _K8S_KIND.search(head):
            return Kind(KUBERNETES, kind.syntax)
        if _JOBS.search(head) and _ON.search(head):
            return Kind(WORKFLOW, kind.syntax)
        if _RUNS.search(head) and "using:" in head:
            return Kind(ACTION, kind.syntax)
        if _SERVICES.search(head):
            return Kind(COMPOSE, kind.syntax)
        body = text or head
        if _names_a_runtime(body) and (
            _ANSIBLE_CONTAINER.search(body) or (_ANSIBLE_SHELL.search(body) and _RUNTIME_RUN.search(body))
        ):
            return Kind(ANSIBLE, kind.syntax)
    return kind


def _names_a_runtime(text: str) -> bool:
    """Whether ``text`` says docker or podman: two ``in`` tests, or one pass over a large text."""
    if len(text) < LARGE_TEXT:
        return "docker" in text or "podman" in text
    return bool(_RUNTIMES.present(text))


def is_shell_script(head: bytes) -> bool:
    """An extension-less file whose first line is a POSIX-shell shebang."""
    return head.startswith(b"#!") and bool(re.match(_SHEBANG, head.split(b"\n", 1)[0]))
