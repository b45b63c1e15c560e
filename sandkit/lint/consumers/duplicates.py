"""Keys written twice in one YAML mapping, and what each consumer makes of them.

The parser keeps the last value, as PyYAML does; the consumers differ:

- Compose (compose-go, go-yaml v3) refuses the file: ``mapping key "x" already defined at line N``;
- Kubernetes: sigs.k8s.io/yaml (go-yaml v2, ``YAMLToJSON``) keeps the last value, and the API
  server's strict field validation (kubectl's default ``--validate=strict``) refuses the object;
- GitHub Actions refuses the workflow (its parser reports the key as already defined).

No consumer uses the first value, so the rules judge the last one (the one a lenient consumer
runs), and this finding names both lines so the first is not read by a reviewer as the one in
force.
"""

from __future__ import annotations

from collections.abc import Iterator

from sandkit.lint import kinds
from sandkit.lint.model import Hit
from sandkit.lint.source import SourceFile

#: The kinds whose duplicate keys are reported, with what their consumer does with one.
CONSUMER_VERDICT = {
    kinds.COMPOSE: "docker compose refuses the file",
    kinds.KUBERNETES: "the API server's strict validation refuses it and sigs.k8s.io/yaml (kubectl --validate=false, "
    "Helm) uses the last value",
    kinds.WORKFLOW: "GitHub Actions refuses the workflow",
    kinds.ACTION: "GitHub Actions refuses the action",
}


def duplicate_hits(file: SourceFile) -> Iterator[Hit]:
    """A hit at each key written again in its mapping, naming both lines."""
    verdict = CONSUMER_VERDICT.get(file.kind)
    if verdict is None or file.syntax != "yaml":
        return
    for node in file.mappings():
        for key, first_pos, _first_value, again in node.duplicates:
            yield Hit(
                again,
                f'key "{key}" is written twice in one mapping (lines {first_pos.line} and {again.line}): {verdict}; '
                f"the rules judged the value of line {again.line}",
            )
