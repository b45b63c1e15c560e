"""Issue 33's precision reading, written down: each finding of `sandkit lint DIR --format json` on
the development and held-out repositories (docs/lint.md, "Precision on repositories nobody here
had read") labelled right/wrong and actionable/not by the class it belongs to.

The labels were written after reading the findings one at a time; they are rules about these
repositories' files (which folders hold translations, which compose files are CI fixtures), not
a classifier for other trees. A finding no label covers is printed as UNJUDGED, to be read.

    # one folder per repository under ROOT/held/NAME and ROOT/dev/NAME, results as
    # ROOT/RESULTS/SET.NAME.json (sandkit lint ROOT/SET/NAME --format json --exit-zero)
    python bench/precision_judge.py ROOT before after     # per-rule table, both sets

The second held-out set (docs/lint.md, "A second held-out set") is labelled finding by finding
instead, each label with its reason, in bench/precision_labels/held2.tsv. Which findings are read
is drawn here, from a fixed seed, so anyone can redraw the same sample:

    # ROOT/held/OWNER+NAME/ holds each repository, RESULTS/held.OWNER+NAME.json its report
    python bench/precision_judge.py sample ROOT RESULTS          # the findings to read
    python bench/precision_judge.py labels LABELS.tsv ROOT RESULTS  # per-rule table

The third held-out set is labelled the same way in bench/precision_labels/held3.tsv.

The fourth held-out set draws its sample with seed 44 and labels one more judgement per finding,
"acts for agents" (would a team that lets a coding agent work unattended here act on it): its
labels file names its columns in a `# repo<TAB>path<TAB>...` line that includes `agents`.

    python bench/precision_judge.py sample ROOT RESULTS --seed 44
    python bench/precision_judge.py labels LABELS.tsv ROOT RESULTS --seed 44

A label line may end with a tenth column, text the finding's message must hold for the label to
apply: the same place labelled again after a fix changed what the finding says.

``regrade`` applies the severity classes of docs/lint.md's "How sure and how bad" to the label
rows themselves (no run, no snapshots): which rows would move and what the shares over all rows
and over rows at or above ``low`` would become, an estimate for the lead, not a clean measurement:

    python bench/precision_judge.py regrade bench/precision_labels/held3.tsv held3
    python bench/precision_judge.py regrade bench/precision_labels/held4.tsv held4

The fourth set's rows were recorded by a linter that had the third round's classes (GRADED_RUNS):
only the later classes are applied to them, and which Kubernetes files that linter took for
workloads naming no agent is read from the severities of their rows.
"""

import collections
import glob
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

ROOT = "/tmp/i33"
LOCALE = re.compile(r"(/locales?/|/i18n/|/lang/|/translations?/|/messages/)")


Label = tuple[int, int] | None  # (right, actionable), or None when no label covers the finding


def judge(x: dict[str, Any], rel: str, line: str) -> Label:
    r = x["rule"]
    m = x["message"]
    if rel.startswith("dev/"):
        return judge_dev(x, rel, line, r, m)
    if r == "PS002":
        if LOCALE.search(rel):
            return (0, 0)
        if re.search(r"/ci/[^/]*values\.ya?ml$", rel):
            return (0, 0)
        if re.search(r"\.github/workflows/|Taskfile|\.dev\.yml|hoppscotch/docker-compose\.yml", rel):
            return (1, 0)
        return (1, 1)
    if r == "PS001":
        if "placeholder" in line or "$HUB_TOKEN" in line or "privatekeyprivatekey" in line:
            return (0, 0)
        if "sentry/config.example" in rel:
            return (0, 0)
        if "workflows/tests.yml" in rel or "devenv.nix" in rel or line.lstrip().startswith("#"):
            return (1, 0)
        if "broken-authentication.json" in rel:
            return (0, 0)  # JWT in pentest doc example; read by hand below
        if "demo-setups" in rel:
            return (1, 0)
        return (1, 1)
    if r == "SK001":
        return (0, 0) if ("Helm template" in m or "invalid JSON" in m) else (1, 0)
    if r == "SK002":
        return (1, 0)
    if r == "IS002":
        if ".pem" in m and "ffdhe" in m:
            return (0, 0)
        return (1, 1)  # COPY .env (the user's .env) / plane.env (variables.env with SECRET_KEY defaults)
    if r == "IS003":
        return (0, 0) if "prod.Dockerfile" in rel else (1, 1)
    if r == "AI001":
        if ".venv/bin/activate" in m:
            return (0, 0)
        if "from a hidden folder" in m:
            return (1, 0)
        return (1, 1)
    if r == "AI002":
        return (1, 0)
    if r == "AI006":
        return (1, 0)
    if r == "HU003":
        if "U+FE0F)" in m and "U+200" not in m:
            return (0, 0)
        if "jfrog" in rel:
            return (1, 1)
        return (1, 0)
    if r == "HU002":
        return None
    if r == "CS004" and "prints secrets.DOCKER_ORG_NAME" in m:
        return (1, 0)
    if r == "CP001" and "examples/pipelines" in rel:
        return (1, 0)
    if r == "AA011":
        return (1, 0)
    if r == "EG002" and "skills/" in rel:
        return (1, 0)
    if r == "PV001" and "examples/" in rel:
        return (1, 0)
    if r == "PV002" and ("ci-test" in rel or "tests/e2e" in rel):
        return (1, 0)
    if r == "RS002" and "microshift" in rel:
        return (1, 0)
    if r in (
        "AA001",
        "AA004",
        "AA008",
        "AM001",
        "CP001",
        "CP002",
        "CP003",
        "CP005",
        "CP007",
        "CS001",
        "CS002",
        "CS003",
        "CS004",
        "PV001",
        "PV006",
    ):
        return (1, 1)
    return None


def judge_dev(x: dict[str, Any], rel: str, line: str, r: str, m: str) -> Label:
    if r == "PS002":
        if LOCALE.search(rel) or "/ci/" in rel:
            return (0, 0)  # translations; chart-testing values
        return (1, 0)  # ipmi example module passwords in values.yaml
    if r == "PS001":
        if "astronomy_password" in line:
            return (1, 0)
        return (0, 0)  # apprise/uptime-kuma documentation URLs and tokens in comments
    if r == "SK001":
        return (0, 0)  # templates the masking broke; CRDs under conf/
    if r in ("HU002", "HU003"):
        return (1, 0) if "/tests/" in rel else (0, 0)  # RTL/Indic translations
    if r == "IS002":
        return (0, 0)  # .npmrc of install flags
    if r == "IS001":
        return (1, 1)
    if r == "RS002":
        return (0, 0)  # DinD sidecars at localhost:2376 with TLS
    if "/rendered/" in rel or "/samples/" in rel:
        return (1, 0)
    if r in ("HC001", "RS001", "PV002") and "helm-charts" in rel:
        return (1, 0)
    if r in ("PV001", "PV003", "PV004", "PV005"):
        return (1, 1)
    if r in ("CP001", "CP002", "CP003", "CS002", "CS004", "RS001", "HC001"):
        return (1, 1)
    return None


def judged(d: str, s: str) -> tuple[dict[str, list[int]], list[str]]:
    """{rule: [findings, right, actionable]} of ROOT/d/s.*.json, and the findings no label covers."""
    per: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0, 0])
    unj = []
    for f in sorted(glob.glob(f"{ROOT}/{d}/{s}.*.json")):
        for x in json.loads(Path(f).read_text())["findings"]:
            x["path"] = x["path"] if x["path"].startswith("/") else "/tmp/" + x["path"]
            rel = x["path"].replace(ROOT + "/", "")
            try:
                line = Path(x["path"]).read_text(errors="replace").splitlines()[x["line"] - 1]
            except Exception:
                line = ""
            j = judge(x, rel, line)
            if j is None:
                unj.append(f"{x['rule']} {rel}:{x['line']} {x['message'][:120]} > {line.strip()[:120]}")
                continue
            p = per[x["rule"]]
            p[0] += 1
            p[1] += j[0]
            p[2] += j[1]
    return per, unj


def pct(t: list[int], i: int) -> str:
    return f"{t[i]} ({100 * t[i] / max(t[0], 1):.1f}%)"


SEED = 33  # issue 33: every finding of a rule with fewer than 25, else a random 25 of them
SAMPLE = 25

Finding = tuple[str, str, str, int, int, str, str]  # rule, repo, path, line, col, severity, message


def report(root: str, results: str) -> dict[str, list[Finding]]:
    """Every finding of RESULTS/held.*.json by rule, paths relative to ROOT/held/OWNER+NAME."""
    by: dict[str, list[Finding]] = collections.defaultdict(list)
    for f in sorted(glob.glob(f"{results}/held.*.json")):
        for x in json.loads(Path(f).read_text())["findings"]:
            repo, _, path = x["path"].replace(f"{root}/held/", "").partition("/")
            by[x["rule"]].append(
                (x["rule"], repo.replace("+", "/"), path, x["line"], x["column"], x["severity"], x["message"])
            )
    return {r: sorted(v) for r, v in by.items()}


def sample(by: dict[str, list[Finding]], seed: int = SEED) -> dict[str, list[Finding]]:
    """The findings to read: all of a rule below SAMPLE, else SAMPLE drawn with `seed` (each set
    names its own, fixed before it is measured, so a sample cannot be redrawn until it suits)."""
    import random

    return {r: v if len(v) < SAMPLE else sorted(random.Random(seed).sample(v, SAMPLE)) for r, v in by.items()}


LABEL_COLUMNS = ["repo", "path", "line", "col", "rule", "severity", "right", "actionable", "reason"]
Judgement = tuple[int, ...]  # right, actionable, and agents when the labels file has that column


def read_labels(labels: str) -> tuple[dict[tuple[str, str, str, int, int], list[tuple[str, Judgement]]], bool]:
    """{place: [(needle, judgement)]} and whether the file labels "acts for agents". A file names
    its columns in a `# repo<TAB>path...` line; without one they are the second and third sets'."""
    lab: dict[tuple[str, str, str, int, int], list[tuple[str, Judgement]]] = collections.defaultdict(list)
    columns = LABEL_COLUMNS
    for row in Path(labels).read_text().splitlines():
        if row.startswith("# repo\t"):
            columns = row[2:].split("\t")
        if row.startswith("#") or not row.strip():
            continue
        cells = row.split("\t")
        named = dict(zip(columns, cells, strict=False))
        needle = "".join(cells[len(columns) :])
        marks = [int(named[c]) for c in ("right", "actionable", "agents") if c in columns]
        place = (named["rule"], named["repo"], named["path"], int(named["line"]), int(named["col"]))
        lab[place].append((needle, tuple(marks)))
    return lab, "agents" in columns


Read = dict[str, list[tuple[Finding, Judgement | None]]]  # rule: its sampled findings, labelled


def estimate(by: dict[str, list[Finding]], read: Read, keep: Callable[[Finding], bool], marks: int) -> list[float]:
    """[findings `keep` admits, and of them the `marks` judgements] estimated rule by rule: each
    rule's share among its read findings `keep` admits, times its number of such findings (its
    share among all its read findings when none of the read ones is admitted; none at all, as
    before, when none of them is labelled)."""
    tot = [0.0] * (1 + marks)
    for rule, pairs in read.items():
        n = sum(1 for f in by[rule] if keep(f))
        ok = [g for f, g in pairs if g is not None and keep(f)] or [g for _, g in pairs if g is not None]
        row = [n, *(n * sum(g[i] for g in ok) / max(len(ok), 1) for i in range(marks))]
        tot = [x + y for x, y in zip(tot, row, strict=True)]
    return tot


def labelled(labels: str, root: str, results: str, seed: int = SEED) -> None:
    """Per-rule right and actionable (and agents) of the sample, and the whole set weighted by each
    rule's count: over every finding, and over those at or above low (what `--fail-on low` fails)."""
    lab, agents = read_labels(labels)
    by = report(root, results)

    def label(f: Finding) -> Judgement | None:
        """The first label of the finding's place whose optional last column (text its message
        must hold) fits: a finding whose message a fix changed is labelled again."""
        return next((j for needle, j in lab.get(f[:5], []) if needle in f[6]), None)

    read: Read = {rule: [(f, label(f)) for f in fs] for rule, fs in sorted(sample(by, seed).items())}
    print(f"| rule | findings | read | right | actionable |{' agents |' * agents}")
    print(f"| --- | --- | --- | --- | --- |{' --- |' * agents}")
    for rule, pairs in read.items():
        ok = [g for _, g in pairs if g is not None]
        marks = " | ".join(str(sum(g[i] for g in ok)) for i in range(2 + agents))
        print(f"| {rule} | {len(by[rule])} | {len(ok)} | {marks} |")
    ok_all = [g for pairs in read.values() for _, g in pairs if g is not None]
    total = sum(len(v) for v in by.values())
    print(f"| all | {total} | {len(ok_all)} | {sum(g[0] for g in ok_all)} | |{' |' * agents}")
    names = ["right", "actionable", "acts for agents"][: 2 + agents]
    for what, keep in (("all", lambda f: True), ("at or above low", lambda f: f[5] != "info")):
        tot = estimate(by, read, keep, len(names))
        if tot[0]:
            shares = ", ".join(f"{name} {100 * t / tot[0]:.1f}%" for name, t in zip(names, tot[1:], strict=True))
            print(f"estimated over {what} {tot[0]:.0f} findings: {shares}")
    for f in [f for pairs in read.values() for f, g in pairs if g is None]:
        print("UNJUDGED", *f[:6], f[6][:120], sep="\t")


#: The columns of a labels file when it has no header line naming them ("# repo<TAB>path<TAB>...").
ROW_COLUMNS = ("repo", "path", "line", "col", "rule", "severity", "right", "actionable", "reason")
THRESHOLD = "low"  # `sandkit lint`'s default --fail-on: info findings do not fail a run
SEVERITIES = ("critical", "high", "medium", "low", "info")


def at_threshold(severity: str) -> bool:
    return SEVERITIES.index(severity) <= SEVERITIES.index(THRESHOLD)


class Row(NamedTuple):
    """One label line: the finding's place, its severity then, its labels by measure, the reason."""

    repo: str
    path: str
    line: int
    col: int
    rule: str
    severity: str
    labels: dict[str, int]  # "right", "actionable" and any further actionable column, 0 or 1
    reason: str
    needle: str  # text the message must hold for the label to apply ("" for any message)

    @property
    def place(self) -> tuple[str, str, str, int, int]:
        return (self.rule, self.repo, self.path, self.line, self.col)


def read_rows(labels: str) -> tuple[list[str], list[Row]]:
    """The measures (right, actionable, then any other actionable column the header names: the
    fourth set's "agents", a team letting an agent work unattended would act on it) and the rows,
    for ``regrade`` (``labels`` reads the same files with :func:`read_labels`).

    A comment line whose tab-separated fields start with "repo" names the columns; without one the
    columns are ROW_COLUMNS. A column beyond the named ones is the needle (see the module doc)."""
    columns: tuple[str, ...] = ROW_COLUMNS
    rows: list[Row] = []
    for text in Path(labels).read_text().splitlines():
        if text.startswith("#"):
            fields = [f.strip() for f in text.lstrip("#").split("\t")]
            if fields[0] == "repo" and "right" in fields:
                columns = tuple(fields)
            continue
        if not text.strip():
            continue
        cells = text.split("\t")
        named = dict(zip(columns, cells, strict=False))
        measures = [c for c in columns if c == "right" or c.startswith(("actionable", "unattended", "agents"))]
        rows.append(
            Row(
                named["repo"],
                named["path"],
                int(named["line"]),
                int(named["col"]),
                named["rule"],
                named["severity"],
                {m: int(named[m]) for m in measures if named.get(m, "").strip() != ""},
                named.get("reason", ""),
                "".join(cells[len(columns) :]),
            )
        )
    measures = [c for c in columns if c == "right" or c.startswith(("actionable", "unattended", "agents"))]
    return measures, rows


def shares(read: dict[str, list[tuple[dict[str, int], int]]], measures: list[str]) -> dict[str, float]:
    """Each measure's share of all findings, weighted by rule: ``read`` maps a rule to its read
    findings' labels with the rule's count of findings in the run (the same for each of them)."""
    total = sum(found[0][1] for found in read.values() if found)
    out = {}
    for measure in measures:
        estimate = 0.0
        for found in read.values():
            labelled_ = [labels[measure] for labels, _ in found if measure in labels]
            if found and labelled_:
                estimate += found[0][1] * sum(labelled_) / len(labelled_)
        out[measure] = 100 * estimate / max(total, 1)
    return out


# ---- the lead's information, not a measurement: the label rows under new severity classes ------

#: Findings per rule of each labelled run (the "findings" columns of docs/lint.md's tables), for
#: weighting rows read without the run's results; a rule absent here had every finding read.
RUN_COUNTS = {
    "held4": {
        "AI001": 34,
        "CP001": 67,
        "HC001": 26,
        "PS002": 197,
        "PV001": 59,
        "PV002": 77,
        "PV003": 39,
        "RS001": 39,
    },
    "held3": {"CP001": 54, "PS002": 36},
    "held2": {"CP001": 69, "PS002": 59},
}
#: Runs whose label rows were recorded by a linter that already had the third round's classes
#: (the fourth set ran on 8d4c604): those classes are in their severities, and only the later
#: ones are applied to them.
GRADED_RUNS = frozenset({"held4"})
#: A rule's severity in a Kubernetes manifest before any class of the file lowered it, where one
#: value fits all its findings there: a graded row below it was lowered by the file's classes.
_FULL = {"PV001": "critical", "RS001": "critical", "PV002": "high"}
#: Capabilities PV003 grades high wherever they are (the reason of a row names the capability).
_ESCAPING = ("SYS_ADMIN", "ALL", "DAC_READ_SEARCH", "SYS_MODULE", "SYS_RAWIO", "BPF", "SYS_BOOT")
_POWER = ("PV", "RS", "HC")  # the privileged, runtime-socket and host-credentials rules
_WORKFLOW_ONLY = ("CP", "CS", "AA014")


def regraded(row: Row, same_file: list[Row], graded: bool = False) -> tuple[str, str]:
    """(severity, class) the severity classes of docs/lint.md's "How sure and how bad" give a label
    row; (row.severity, "") when none applies. The rows hold no message or file text, so each
    class is read from the row's rule, path and reason, and the other rows of the same file (every
    finding of PV001 and PV003 was read in the second and third sets, so a file's privileged mode
    or escaping capability is in them): an estimate, not a run of the linter.

    ``graded``: the row's severity already has the third round's classes (GRADED_RUNS). They are
    then not applied again, and whether the linter took a Kubernetes file for a workload naming
    no agent is read from the file's rows themselves (a PV001, RS001 or PV002 below its full
    severity, more than a kept folder explains), so that a CI runner the linter does not know
    counts as the linter counts it."""
    from sandkit.lint.grading import KEPT_AT_MOST, at_most, kept_folder, lower

    severity, why = row.severity, []
    if not graded:
        capabilities = {c for c in ("SYS_PTRACE", "NET_ADMIN", "SYS_ADMIN", "ALL") if c in row.reason}
        shares_host = any(r.rule == "PV002" for r in same_file)  # every PV002 was read in both sets
        if row.rule == "PV003" and capabilities == {"SYS_PTRACE"} and not shares_host:
            severity, why = "info", ["SYS_PTRACE in its own PID namespace"]
        elif row.rule == "PV003" and capabilities == {"NET_ADMIN"} and not shares_host:
            severity, why = "medium", ["NET_ADMIN in its own network namespace"]
        elif row.rule == "PV004" and "unconfined" in row.reason:
            escape = any(r.rule == "PV001" or (r.rule == "PV003" and "SYS_PTRACE" not in r.reason) for r in same_file)
            if not escape:
                severity, why = "medium", ["profile off without an escape"]
        if row.rule == "AI001" and row.severity == "medium" and "own" in row.reason and row.path.startswith("."):
            severity, why = "info", ["a skill's own script in its hidden folder"]
    if row.rule == "PV003" and severity != "info" and "kata" in f"{row.path} {row.reason}".lower():
        severity, why = lower(severity), [*why, "a VM-isolated runtime"]
    folder = kept_folder(row.path)
    if row.rule.startswith(_POWER) and severity != "info" and _workload(row, same_file, graded):
        severity, why = "info", [*why, "Kubernetes, no coding agent"]
    if row.rule.startswith(_POWER) and folder and at_most(severity, KEPT_AT_MOST) != severity:
        severity, why = at_most(severity, KEPT_AT_MOST), [*why, f"kept under {folder}/"]
    if row.rule == "SK001" and folder and severity != "info":
        severity, why = "info", [*why, f"parse error under {folder}/"]
    if row.rule.startswith(_WORKFLOW_ONLY) and severity != "info" and not _runs(row.path):
        severity, why = "info", [*why, "a workflow GitHub never runs"]
    return severity, "; ".join(why)


def _workload(row: Row, same_file: list[Row], graded: bool) -> bool:
    """The row's file is a Kubernetes manifest the linter takes for a workload naming no coding
    agent (see :func:`regraded`); without graded rows, a reason that says "runner" excepts it."""
    from sandkit.lint.grading import kept_folder

    if not _kubernetes_manifest(row):
        return False
    if graded:
        kept = 1 if kept_folder(row.path) else 0
        evidence = [(r, full) for r in same_file if (full := _full(r))]
        if evidence:
            return any(SEVERITIES.index(r.severity) - SEVERITIES.index(full) > kept for r, full in evidence)
    return "runner" not in row.reason.lower()


def _full(row: Row) -> str:
    """The row's rule's severity before the file's classes, where the rule and reason fix it ("" otherwise)."""
    if row.rule == "PV003":
        named = {c for c in (*_ESCAPING, "NET_ADMIN", "SYS_PTRACE") if c in row.reason}
        return "high" if named and named <= set(_ESCAPING) else ""
    return _FULL.get(row.rule, "")


def _runs(path: str) -> bool:
    """A labelled workflow GitHub runs: directly in .github/workflows (or Gitea's, Forgejo's) at
    the snapshot's top; a composite action is no workflow. The labels know of no nested
    repository, so a copy below the top is taken not to run."""
    from sandkit.lint.grading import WORKFLOW_FOLDERS

    parts = path.split("/")
    if parts[-1] in ("action.yml", "action.yaml"):
        return True
    return len(parts) == 3 and "/".join(parts[:2]) in WORKFLOW_FOLDERS


#: YAML files of the labelled sets that are not Kubernetes manifests though named like one.
_NOT_KUBERNETES = {("nextcloud/all-in-one", "manual-install/latest.yml")}  # a Compose file


def _kubernetes_manifest(row: Row) -> bool:
    """A YAML file (or a Jinja or Helm template of one) of the labelled sets that is a Kubernetes
    manifest, as read in the labels; Compose, CI and dev container files are not."""
    name = row.path.rsplit("/", 1)[-1]
    if not name.endswith((".yaml", ".yml", ".yaml.j2", ".yaml.tpl")) or "compose" in name:
        return False
    if row.path.startswith(".github/") or (row.repo, row.path) in _NOT_KUBERNETES:
        return False
    return not name.startswith((".gitlab-ci", "azure-pipelines", ".travis", "codecov", "mkdocs"))


def regrade(labels: str, run: str) -> None:
    """The label rows with the new classes' severities: the rows that moved, and the measures over
    all rows and over rows at or above low, before and after (weighted by RUN_COUNTS[run])."""
    measures, rows = read_rows(labels)
    last: dict[tuple[str, str, str, int, int], Row] = {}
    for row in rows:
        last[row.place] = row  # a later label of the same place is the one after the fixes
    files: dict[tuple[str, str], list[Row]] = collections.defaultdict(list)
    for row in last.values():
        files[(row.repo, row.path)].append(row)
    counts = RUN_COUNTS.get(run, {})
    before: dict[str, list[Row]] = collections.defaultdict(list)
    for row in last.values():
        before[row.rule].append(row)
    after = {}
    print(f"moved (an estimate from the labels of {labels}, not a run of the linter):")
    for row in sorted(last.values(), key=lambda r: r.place):
        severity, why = regraded(row, files[(row.repo, row.path)], run in GRADED_RUNS)
        after[row.place] = severity
        if severity != row.severity:
            print(f"  {row.rule} {row.repo} {row.path}:{row.line} {row.severity} -> {severity} ({why})", row.labels)
    for name, keep in (("all", lambda sev: True), (f"at or above {THRESHOLD}", at_threshold)):
        for when, severity_of in (("before", lambda r: r.severity), ("after", lambda r: after[r.place])):
            group = {}
            for rule, found in before.items():
                read = [r for r in found if keep(severity_of(r))]
                if read:
                    share_read = len(read) / len(found)
                    n = round(counts.get(rule, len(found)) * share_read)
                    group[rule] = [(r.labels, n) for r in read]
            total = sum(found[0][1] for found in group.values())
            share = ", ".join(f"{m} {v:.1f}%" for m, v in shares(group, measures).items())
            print(f"{name:>14} {when:>6}: {total} findings, {share}")


def seed_of(argv: list[str]) -> tuple[list[str], int]:
    """argv without `--seed N`, and N (SEED when it is not given)."""
    if "--seed" not in argv:
        return argv, SEED
    i = argv.index("--seed")
    return argv[:i] + argv[i + 2 :], int(argv[i + 1])


def main(argv: list[str]) -> None:
    global ROOT
    argv, seed = seed_of(argv)
    if argv[0] == "sample":
        for read in sample(report(argv[1], argv[2]), seed).values():
            for f in read:
                print(*f, sep="\t")
        return
    if argv[0] == "labels":
        labelled(argv[1], argv[2], argv[3], seed)
        return
    if argv[0] == "regrade":
        regrade(argv[1], argv[2] if len(argv) > 2 else "")
        return
    ROOT, before, after = argv
    for s in ("held", "dev"):
        (b, ub), (a, ua) = judged(before, s), judged(after, s)
        print(f"\n{s}\n| rule | before: findings | right | actionable | after: findings | right | actionable |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        tb = [0, 0, 0]
        ta = [0, 0, 0]
        for k in sorted(set(a) | set(b)):
            x = b.get(k, (0, 0, 0))
            y = a.get(k, (0, 0, 0))
            for i in range(3):
                tb[i] += x[i]
                ta[i] += y[i]
            print(f"| {k} | {x[0]} | {x[1]} | {x[2]} | {y[0]} | {y[1]} | {y[2]} |")
        print(f"| all | {tb[0]} | {pct(tb, 1)} | {pct(tb, 2)} | {ta[0]} | {pct(ta, 1)} | {pct(ta, 2)} |")
        for u in ub + ua:
            print("UNJUDGED", u)


if __name__ == "__main__":
    main(sys.argv[1:])
