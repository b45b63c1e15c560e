"""Findings the engine itself makes; registered like rules so they are listed and explained."""

from __future__ import annotations

from sandkit.lint.registry import add_rule

PARSE_ERROR = add_rule(
    "SK001",
    "parse-error",
    category="parse-error",
    severity="medium",
    kinds=(),
    doc="""A file that the linter must understand could not be parsed, or has a key written twice.

The scan goes on with the other files, but no rule could check this one, so whatever it
configures (a mounted socket, a privileged container) stays unseen. Tools that run the file
would usually fail on it too.

A key written twice in one mapping of a Compose file, Kubernetes manifest, workflow or action
is reported here too, naming both lines: Compose and GitHub Actions refuse such a file, the
Kubernetes API server's strict validation refuses it and sigs.k8s.io/yaml keeps the last
value. The rules judge the last value, the one a lenient consumer runs.

Templates are read as their renderer leaves them: a Helm template, a `.yaml.j2`, or a file named
like plain YAML that holds Jinja, gomplate or mustache directives and does not parse without
them, is parsed with its directives masked (lines and columns kept), and is an info finding
only when even that fails. A chart file (JSON, TOML) that a template of its chart renders
with `tpl` (`tpl (.Files.Get "conf/x.json") .`, or a `.Files.Glob` the template renders with
`tpl`) and that holds `{{` is a Helm template input: a JSON one is read with its directives
masked, and one that still does not parse is an info finding naming the template. A bare
`${VAR}` where a TOML or JSON value starts is what the consumer expands before it parses: it
is read as a string, not reported.

An empty file (nothing but whitespace or a byte-order mark, as a 0-byte `.vscode/settings.json`
that VS Code reads as no settings) is not reported: it holds nothing a rule could miss. A file
read as a workflow that GitHub never runs (not directly in `.github/workflows` at a repository's
root, such as a shell snippet kept as `.github/workflows/includes/setup.yml`) is info.

Fix:
Correct the syntax at the reported place (keep one of the two keys), or exclude the file in
[tool.sandkit] if it is a deliberately broken fixture.
""",
)

FILE_TOO_LARGE = add_rule(
    "SK002",
    "file-too-large",
    category="parse-error",
    severity="info",
    kinds=(),
    doc="""A configuration or instruction file is larger than the scan limit; only its beginning was checked.

Huge files are capped (max-file-size, 2 MB by default) so that one generated or vendored blob
cannot stall the scan, and anything after the limit is not checked. This is a finding only for a
file a rule reads as configuration or instructions: a workflow, a Compose file, a Kubernetes
manifest or Helm template, a Dockerfile, a devcontainer, agent configuration or instructions, a
.env file, a kit, a shell script, a CI pipeline and the like, where the unread part can hide a
mounted socket or a privileged container. Data and prose over the limit (generated JSON, JSONL,
a plain YAML or TOML file, Markdown, logs) are not findings: the report lists them in its
summary (``skipped`` in the JSON output, one line after the text output's summary, a notice in
the github format and tool notifications in SARIF). They are also listed there when this rule is
not selected.

Fix:
Exclude generated files in [tool.sandkit], or raise max-file-size if the file must be read.
""",
)


UNEXPLAINED_SUPPRESSION = add_rule(
    "SK003",
    "suppression-without-reason",
    category="suppression",
    severity="low",
    kinds=(),
    doc="""An inline ``sandkit: ignore[...]`` comment gives no reason, so it suppresses nothing.

A suppression is a decision someone made about a risk; the reason is what lets a reviewer
check it later. Without one, the finding it meant to hide is reported as well.

Fix:
Write why the finding does not apply after the brackets, e.g.
``# sandkit: ignore[RS001] CI-only runner that builds images``.
""",
)

UNKNOWN_SUPPRESSION = add_rule(
    "SK004",
    "unknown-rule-in-suppression",
    category="suppression",
    severity="low",
    kinds=(),
    doc="""An inline suppression names a rule ID or category that does not exist.

A typo in a suppression silently stops working, or never worked at all.

Fix:
Use an ID from ``sandkit rules`` or a category name, or delete the comment.
""",
)

WALK_BOUND = add_rule(
    "SK005",
    "walk-bound-exceeded",
    category="parse-error",
    severity="medium",
    kinds=(),
    doc="""A file's data is nested deeper or holds more values than the linter walks, or takes too long to check.

Every walk over a parsed file is bounded: 100 levels of nesting, and two million values for all
the rules together (aliased YAML nodes count once), and the rules may spend 30 seconds on one
file. The YAML parser is given no flow collection more than 100 levels deep and no line whose
content starts past column 1000: that inside, or that line, is blanked before parsing. Past a
bound the linter skips what is deeper, or stops checking the file, so it cannot hang on a planted
file; what it skipped was not checked. Real configuration comes nowhere near these bounds.

Fix:
Flatten or split the file. If it is generated data that needs no checking, exclude it in
[tool.sandkit].
""",
)

UNREADABLE = add_rule(
    "SK006",
    "unreadable-file",
    category="parse-error",
    severity="high",
    kinds=(),
    doc="""A file the linter should have read could not be read, so nothing in it was checked.

A file named on the command line or found in the scan could not be opened or read
(permissions, an I/O error), a folder could not be listed, or a path named on the command line
is a FIFO, socket or device. A linter that passes over what it cannot read would report a clean
repository that it never saw, so this finding makes the exit code 2 (an error, like a crash)
whatever ``--fail-on`` and ``--exit-zero`` say; ``--ignore SK006`` accepts the gap. FIFOs,
sockets and devices met while walking a folder are not files to check and are passed over
without being opened.

Fix:
Make the file readable by the user running the scan, or exclude it in [tool.sandkit] (or with
--extend-exclude) if it is not meant to be checked.
""",
)
