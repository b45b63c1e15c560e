'''Rule families. Each public module here is one family of rules; it registers on import.

The rule author's contract
==========================

Adding a family
    Create ``sandkit/lint/rules/<family>.py`` and add its name to :data:`FAMILIES` below, the one
    list of families (as yamllint lists its rules): :func:`sandkit.lint.registry.all_rules`
    imports them in that order, which is also the order their repository passes run in
    (``tests/lint/test_registry.py`` checks that every module here is listed). A family never
    imports another family: what two families share (reading containers, MCP servers,
    workflows, host paths, secret values) lives in :mod:`sandkit.lint.facts`, and what the
    linter knows about each coding agent (its files, flags, MCP keys, credential files) in the
    agent catalogue, :mod:`sandkit.agents`. ``tests/lint/test_architecture.py`` checks the first.

Writing a rule
    A rule is a pure function from a parsed file to hits, registered with a decorator::

        from sandkit.lint.kinds import COMPOSE, KUBERNETES
        from sandkit.lint.model import Hit
        from sandkit.lint.registry import rule
        from sandkit.lint.source import SourceFile

        @rule("RS001", "runtime-socket-mount", category="runtime-socket",
              severity="critical", kinds=(COMPOSE, KUBERNETES), triggers=(".sock", "/run"))
        def runtime_socket_mount(file: SourceFile) -> Iterator[Hit]:
            """One summary line: what the rule catches.

            Free text: what it looks at, in which file kinds.

            Why:
            What an attacker or a runaway agent gains.

            Fix:
            What to write instead (the first thing users read; keep it one or two sentences).
            """
            for ...:
                yield Hit(pos, "message naming the offending value", fix="optional override")

    - IDs are two capitals and three digits, one prefix per category: RS runtime-socket,
      PV privileged, HC host-credentials, EG egress, PS plaintext-secret, IS image-secret,
      CS ci-secret-exposure, CP ci-permissions, AA agent-autorun, AM agent-mcp,
      HU hidden-unicode, AI agent-instructions. SK is the engine's own (parse errors,
      suppressions). ``name`` is kebab-case and unique.
    - ``category`` is one of :data:`sandkit.lint.model.CATEGORIES`; ``severity`` one of
      critical, high, medium, low, info (a Hit may override it for one finding).
    - ``kinds``: the file kinds the rule reads (constants in :mod:`sandkit.lint.kinds`), or
      ``("*",)`` for every readable text file. Files of other kinds are never read for it.
    - ``triggers`` (optional): substrings (tested with ``in``) or compiled regexes (tested
      after them), at least one of which must occur in the raw text for the rule to run. Most
      files then skip the rule without being parsed, which is most of the linter's speed. A
      trigger must be implied by every finding the rule can make: it may over-match, never
      under-match (``tests/lint/test_corpus.py`` re-runs the corpus with triggers off and
      requires the same findings). Leave it empty if unsure.
    - ``reads`` (optional): a function of the file (its name, its kind) that says whether the
      rule reads it at all, checked before the triggers: a rule that reads only package.json
      of all JSON files says so, and a lockfile's megabytes are not searched for its trigger
      words. It must be False only where the rule finds nothing (the corpus test turns it off
      with the triggers).
    - The docstring is the documentation shown by ``sandkit explain ID``, in SARIF help and
      ``sandkit rules``; it must have a ``Fix:`` section (``Why:`` and ``Example:`` are
      recognised too). The Fix text is the default ``fix`` of every finding.
    - Rules never print, never touch the network or other files, and never raise for bad
      input. Accessing a parsed form of a file that does not parse raises SyntaxProblem; let
      it propagate: the engine reports one parse-error finding (SK001) per file and runs the
      other rules. Any other exception is reported as an internal error (exit code 2).
    - Suppressions, per-path ignores, baselines, selection and output are the engine's job.

What a rule gets: :class:`sandkit.lint.source.SourceFile`
    ``file.path`` (relative, ``/``-separated), ``file.kind``, ``file.syntax``, ``file.text``,
    ``file.lines``, ``file.in_dependency`` (inside node_modules/vendor/.venv/site-packages),
    ``file.settings`` (e.g. ``extra_secret_patterns`` from the config), and, parsed once on
    first use:

    - ``file.documents``: YAML (every document of a stream), JSON with comments and trailing
      commas, or TOML, as positioned data (:mod:`sandkit.lint.syntax.tree`): ``PMap`` (a dict
      with ``.pos``, ``.pos_of(key)``, ``.pos_of_key(key)``), ``PSeq`` (a list with ``.pos``,
      ``.pos_of(i)``) and ``PStr`` (a str with ``.pos``). Numbers, booleans and None are plain.
      ``file.str_pos(pstr, offset)`` locates a character inside a (block) string.
    - ``file.walk(root)`` / ``file.mappings(root)``: every sequence and mapping (or only the
      mappings) under ``root``, by default in every document, depth-first in document order.
      This is the only way to search parsed data: never write a recursive function over it
      (``tests/lint/test_architecture.py`` checks). Nodes shared by YAML aliases are visited
      once, cycles end, and the walk stays within the file's bounds (depth and values, see
      :mod:`sandkit.lint.syntax.tree`); the engine reports a bound that was met (SK005).
      ``prune=("env",)`` keeps out of keys the rule reads itself; ``within=N`` stays N levels
      below ``root``.
    - ``file.instructions``: Dockerfile instructions (``keyword``, ``args``, ``pos``, ``stage``,
      ``exec_form()``, ``pos_at(offset)``), continuations and heredocs joined.
    - ``file.commands``: shell commands of a script, Makefile/justfile recipe, or Dockerfile
      RUN lines, as ``Command(words=[Word(text, pos)], assignments=[...])`` with quotes removed
      and ``program()`` looking through sudo/env; ``file.commands_in(pstr)`` does the same
      for a string in YAML/JSON (a workflow ``run:``), ``file.commands_in_instruction(ins)``
      for one Dockerfile instruction.
    - ``file.env_entries``: ``NAME=value`` pairs of a .env file.
    - ``file.search(regex)``: matches in the raw text with positions; ``file.pos_at(offset)``.
    - ``file.memo(key, build)``: compute shared facts once per file. The shared ones are in
      :mod:`sandkit.lint.facts`: ``containers(file)`` (``facts/containers.py``) gives every
      container a file configures, with its mounts, flags and environment, for compose,
      Kubernetes, devcontainer, workflows, actions, scripts, Makefiles, Dockerfiles, kits and
      agent configs; ``mcp_servers(file)`` every MCP server an agent config starts;
      ``facts/workflows.py`` jobs, triggers and secret references; ``facts/host_paths.py``
      sockets and credential paths however they are spelled.

Questions about the whole repository
    A rule sees one file. Where findings in different files combine (an autorun hook here and a
    mounted socket there), or a neighbouring file settles one (a ``.dockerignore``), a family
    module registers a repository pass with ``@repository_pass`` (:mod:`sandkit.lint.repository`):
    it runs once after every file, over all findings, and may drop, re-rank or reword them.
    ``escalation.py`` (severity escalation) and ``image_secret.py`` (``.dockerignore``) use it.
    ``sandkit rules`` lists every rule ID; ``docs/lint.md`` groups them by category.

Tests
    ``tests/lint/rules/test_<family>.py`` holds each rule's positive and negative cases
    (use ``tests.lint.helpers.lint_text(name, text)``), and ``tests/lint/corpus/<case>/`` small
    repositories whose ``expect.toml`` lists the categories that must and must not be reported
    (``must = [...]``, ``must_not = [...]``); ``tests/lint/test_corpus.py`` runs them all.
    Every rule needs at least one positive and one look-alike negative.
'''

#: Every rule family, in the order they are imported and their repository passes run.
FAMILIES = (
    "agent_autorun",
    "agent_instructions",
    "agent_mcp",
    "agent_workflows",
    "ci_permissions",
    "ci_secret_exposure",
    "ci_untrusted_input",
    "egress",
    "escalation",
    "hidden_unicode",
    "host_autorun",
    "host_credentials",
    "image_secret",
    "instruction_leaks",
    "plaintext_secret",
    "privileged",
    "runtime_socket",
)
