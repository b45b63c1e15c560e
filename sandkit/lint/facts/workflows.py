"""GitHub Actions facts shared by ci-secret-exposure and ci-permissions: triggers, jobs, steps,
which checkouts fetch untrusted code, and where secrets are referenced."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, NamedTuple

from sandkit.lazy_regex import lazy
from sandkit.lint.source import SourceFile
from sandkit.lint.syntax.tree import PMap, Pos, PSeq, PStr

if TYPE_CHECKING:
    from typing import Any

# "secrets" as the context itself, not the end of a name (needs.x-with-inherited-secrets.outputs.y).
SECRET_REF = lazy(r"(?<![\w.-])secrets\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)|(?<![\w.-])secrets\s*\[\s*['\"]([^'\"]{1,100})")
UNTRUSTED_TRIGGERS = ("pull_request_target", "workflow_run")
# Expressions naming the code of a pull request (or of the run that triggered workflow_run).
_HEAD_REF = lazy(
    r"github\.event\.pull_request\.head\.(?:sha|ref)|github\.head_ref|"
    r"github\.event\.workflow_run\.head_(?:sha|branch)|refs/pull/|"
    r"github\.event\.pull_request\.merge_commit_sha|github\.event\.number|"
    r"github\.event\.pull_request\.number"
)


class Job(NamedTuple):
    name: str
    pos: Pos
    spec: PMap

    @property
    def steps(self) -> list[PMap]:
        steps = self.spec.get("steps")
        return [s for s in steps if isinstance(s, PMap)] if isinstance(steps, PSeq) else []


def workflow(file: SourceFile) -> PMap | None:
    """The workflow document (a mapping with ``jobs``), or None."""
    for document in file.documents:
        if isinstance(document, PMap) and isinstance(document.get("jobs"), PMap):
            return document
    return None


def triggers(doc: PMap) -> set[str]:
    on = doc.get("on", doc.get(True))
    if isinstance(on, str):
        return {on}
    if isinstance(on, PSeq):
        return {str(t) for t in on}
    if isinstance(on, PMap):
        return {str(t) for t in on}
    return set()


def jobs(doc: PMap) -> Iterator[Job]:
    table = doc.get("jobs")
    if isinstance(table, PMap):
        for name, spec in table.items():
            if isinstance(spec, PMap):
                yield Job(str(name), table.pos_of_key(name), spec)


def untrusted_checkout(step: PMap) -> PStr | None:
    """The ``ref``/``repository`` value of an actions/checkout step that fetches PR code."""
    uses = step.get("uses")
    if not isinstance(uses, str) or not uses.split("@")[0].lower().endswith("actions/checkout"):
        return None
    with_ = step.get("with")
    if not isinstance(with_, PMap):
        return None
    for key in ("ref", "repository"):
        value = with_.get(key)
        if isinstance(value, PStr) and (
            _HEAD_REF.search(value) or (key == "repository" and "github.event.pull_request.head.repo" in value)
        ):
            return value
    return None


def secret_refs(file: SourceFile, node: Any) -> Iterator[tuple[str, PStr]]:
    """Every ``secrets.NAME`` referenced in strings under ``node`` (and ``secrets: inherit``)."""
    if isinstance(node, PStr):
        yield from _refs_in(node)
    for holder in file.walk(node):
        if isinstance(holder, PMap):
            inherit = holder.get("secrets")
            if inherit == "inherit" and isinstance(inherit, PStr):
                yield "inherit", inherit
        for value in holder.values() if isinstance(holder, PMap) else holder:
            if isinstance(value, PStr):
                yield from _refs_in(value)


def _refs_in(value: PStr) -> Iterator[tuple[str, PStr]]:
    if "secrets" in value:
        for match in SECRET_REF.finditer(value):
            yield match.group(1) or match.group(2), value
