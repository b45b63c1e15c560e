"""CP006 on the names of a pull request's changed files pasted into a script (issue 33, ninth
round): the outputs of tj-actions/changed-files, dorny/paths-filter and get-changed-files."""

from __future__ import annotations

import pytest

from tests.lint.helpers import lint_text

WF = ".github/workflows/ci.yml"


def _workflow(lister: str, use: str, on: str = "pull_request", script: str = "") -> str:
    """A workflow whose one job runs ``lister`` as step ``changed`` and then ``use`` in a run step
    (or ``script``, a whole step of its own)."""
    step = script or f"      - run: |\n          {use}\n"
    return f"on: {on}\njobs:\n  a:\n    runs-on: x\n    steps:\n      - id: changed\n        uses: {lister}\n{step}"


def _cp006(text: str, name: str = WF) -> list[tuple[int, str]]:
    return [(f.line, f.severity) for f in lint_text(name, text, select=("CP006",))]


LOOP = "for f in ${{ steps.changed.outputs.%s }}; do echo $f; done"


@pytest.mark.parametrize(
    ("lister", "output", "severity"),
    [
        ("tj-actions/changed-files@v35", "all_changed_files", "high"),  # before safe_output
        ("tj-actions/changed-files@v40.2.3", "added_files", "high"),
        ("tj-actions/changed-files@v45", "all_changed_files", "medium"),  # escapes by default
        ("tj-actions/changed-files@v46\n        with:\n          safe_output: false", "modified_files", "high"),
        (
            "tj-actions/changed-files@v46\n        with:\n          files_yaml: 'doc: [docs/**]'",
            "doc_all_changed_files",
            "medium",
        ),
        ("step-security/changed-files@2e07db73e5ccdb319b9a6c7766bd46d39d304bad", "all_changed_files", "medium"),
        ("tj-actions/verify-changed-files@v16", "changed_files", "high"),
        ("Ana06/get-changed-files@v2.3.0", "added_modified", "high"),
        ("jitterbit/get-changed-files@v1", "all", "high"),
        ("lots0logs/gh-action-get-changed-files@2.1.4", "deleted", "high"),
        (
            "dorny/paths-filter@v3\n        with:\n          list-files: csv\n          filters: 'src: [src/**]'",
            "src_files",
            "high",
        ),
        (
            "dorny/paths-filter@v3\n        with:\n          list-files: json\n          filters: 'src: [src/**]'",
            "src_files",
            "high",
        ),
    ],
)
def test_changed_names_in_run_are_findings(lister: str, output: str, severity: str) -> None:
    text = _workflow(lister, LOOP % output)
    assert _cp006(text) == [(len(text.splitlines()), severity)]


@pytest.mark.parametrize(
    ("lister", "output"),
    [
        ("tj-actions/changed-files@v35", "any_changed"),  # true or false
        ("tj-actions/changed-files@v35", "all_changed_files_count"),  # a number
        (
            "dorny/paths-filter@v3\n        with:\n          filters: 'src: [src/**]'",
            "src_files",
        ),  # no list-files: none
        (
            "dorny/paths-filter@v3\n        with:\n          list-files: shell\n          filters: 'src: [src/**]'",
            "src_files",
        ),
        (
            "dorny/paths-filter@v3\n        with:\n          list-files: escape\n          filters: 'src: [src/**]'",
            "src",
        ),
        ("actions/checkout@v4", "all_changed_files"),  # not a lister
        ("./.github/actions/changed-files", "all_changed_files"),  # a local action: not read
    ],
)
def test_outputs_that_are_no_names_or_quoted_for_the_shell_are_quiet(lister: str, output: str) -> None:
    assert _cp006(_workflow(lister, LOOP % output)) == []


def test_the_same_output_through_env_and_another_steps_output_are_quiet() -> None:
    script = (
        "      - env:\n          FILES: ${{ steps.changed.outputs.all_changed_files }}\n"
        '        run: for f in "$FILES"; do echo "$f"; done\n'
        "      - id: other\n        run: echo all_changed_files=x >> $GITHUB_OUTPUT\n"
        "      - run: echo ${{ steps.other.outputs.all_changed_files }}\n"
    )
    assert _cp006(_workflow("tj-actions/changed-files@v35", "", script=script)) == []


def test_a_step_of_the_same_id_in_another_job_is_not_the_lister() -> None:
    text = _workflow("tj-actions/changed-files@v35", "true") + (
        "  b:\n    runs-on: x\n    steps:\n      - id: changed\n        run: echo all_changed_files=a >> $GITHUB_OUTPUT\n"
        "      - run: echo ${{ steps.changed.outputs.all_changed_files }}\n"
    )
    assert _cp006(text) == []


def test_paths_filter_quoted_for_a_shell_is_still_code_in_github_script() -> None:
    script = (
        "      - uses: actions/github-script@v7\n        with:\n"
        "          script: const files = `${{ steps.changed.outputs.src_files }}`.split(' ')\n"
    )
    lister = "dorny/paths-filter@v3\n        with:\n          list-files: shell\n          filters: 'src: [src/**]'"
    text = _workflow(lister, "", script=script)
    assert _cp006(text) == [(len(text.splitlines()), "high")]


def test_a_jobs_output_passing_names_on_is_followed() -> None:
    text = """\
on: pull_request_target
jobs:
  detect:
    runs-on: x
    outputs:
      files: ${{ steps.changed.outputs.all_changed_files }}
      any: ${{ steps.changed.outputs.any_changed }}
    steps:
      - id: changed
        uses: tj-actions/changed-files@v39
  lint:
    needs: detect
    runs-on: x
    steps:
      - run: yamllint ${{ needs.detect.outputs.files }}
      - run: echo ${{ needs.detect.outputs.any }}
"""
    findings = lint_text(WF, text, select=("CP006",))
    assert [(f.line, f.severity) for f in findings] == [(15, "high")]
    assert "needs.detect.outputs.files" in findings[0].message
    assert "tj-actions/changed-files" in findings[0].message


def test_triggers_grade_the_names() -> None:
    use = LOOP % "all_changed_files"
    lister = "tj-actions/changed-files@v35"
    assert _cp006(_workflow(lister, use, on="push")) == [(9, "info")]
    assert _cp006(_workflow(lister, use, on="[push, schedule, workflow_dispatch]")) == [(9, "info")]
    # a reusable workflow's callers, and a push-and-pull-request workflow, may be pull requests
    assert _cp006(_workflow(lister, use, on="workflow_call")) == [(9, "high")]
    assert _cp006(_workflow(lister, use, on="[push, pull_request]")) == [(9, "high")]
    assert _cp006(_workflow(lister, use, on="pull_request_target")) == [(9, "high")]


def test_a_quoted_here_document_does_not_hold_a_name() -> None:
    """A file name may hold a line break (git allows one), so a quoted here-document given to
    cat is no shelter, unlike a branch name."""
    script = (
        "      - run: |\n          cat <<'EOF' > notes.md\n          ${{ steps.changed.outputs.all_changed_files }}\n"
        "          EOF\n"
    )
    findings = lint_text(WF, _workflow("tj-actions/changed-files@v35", "", script=script), select=("CP006",))
    assert [(f.line, f.severity) for f in findings] == [(10, "high")]
    assert "line break" in findings[0].message


def test_composite_action() -> None:
    action = (
        "runs:\n  using: composite\n  steps:\n    - id: changed\n      uses: tj-actions/changed-files@v40\n"
        "    - run: ./check.sh ${{ steps.changed.outputs.all_modified_files }}\n      shell: bash\n"
    )
    assert _cp006(action, "action.yml") == [(6, "high")]


@pytest.mark.parametrize(
    "text",
    [
        "on: pull_request\njobs:\n  a:\n    steps:\n      - id: [x]\n        uses: tj-actions/changed-files@v1\n      - run: echo ${{ steps.x.outputs.all_changed_files }}\n",
        "on: pull_request\njobs:\n  a:\n    outputs: [1]\n    steps: [1, {uses: 5}, {id: c, uses: tj-actions/changed-files@}, {run: '${{ steps.c.outputs.all_changed_files }}'}]\n",
        "on: pull_request\njobs:\n  a:\n    steps:\n      - id: c\n        uses: dorny/paths-filter@v3\n        with: {list-files: [csv]}\n      - run: echo ${{ steps.c.outputs.a_files }}\n",
    ],
)
def test_bad_shapes_do_not_break(text: str) -> None:
    lint_text(WF, text, select=("CP006",))
