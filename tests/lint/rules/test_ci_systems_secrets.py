"""Issue 33: PS002 reads GitLab CI, CircleCI, Azure Pipelines and Bitbucket Pipelines files, and
grades a literal by the job that holds it as it does in a GitHub workflow: a deploy's (or a top
level's) password is a finding, a test job's service-container password is info, and references
to the CI system's variables and parameters are not literals.

Credential-shaped values are made up here; none is a real one.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from tests.lint.helpers import lint_text, lint_tree, write_tree

PW = "Kx82mQpz4tLw"  # looks typed by a generator
OTHER = "Zp4Lm8Qx2Rt6"
GITLAB = ".gitlab-ci.yml"
CIRCLE = ".circleci/config.yml"
AZURE = "azure-pipelines.yml"
BITBUCKET = "bitbucket-pipelines.yml"


def _ps(path: str, text: str, rule: str = "PS002") -> list[tuple[int, str]]:
    return [(f.line, f.severity) for f in lint_text(path, text) if f.rule == rule]


def _with_examples(path: str, text: str) -> list[tuple[str, int, str]]:
    from sandkit.lint.source import RuleSettings

    with tempfile.TemporaryDirectory() as tmp:
        write_tree(Path(tmp), {path: text})
        findings = lint_tree(Path(tmp), ("PS001", "PS002"), settings=RuleSettings(include_examples=True))
    return [(f.rule, f.line, f.severity) for f in findings]


# ----- GitLab CI ------------------------------------------------------------------------------


def _gitlab_job(job: str, body: str) -> str:
    return f"stages: [build, test, deploy]\n\n{job}:\n{body}  script:\n    - make\n"


@pytest.mark.parametrize(
    ("path", "text", "line"),
    [
        # a deploy job's variable: by its stage, its name, its environment, its commands
        (GITLAB, _gitlab_job("release", f"  stage: deploy\n  variables:\n    DEPLOY_PASSWORD: {PW}\n"), 6),
        (GITLAB, _gitlab_job("deploy-prod", f"  variables:\n    DEPLOY_PASSWORD: {PW}\n"), 5),
        (GITLAB, _gitlab_job("web", f"  environment: production\n  variables:\n    API_TOKEN: {PW}\n"), 6),
        (
            GITLAB,
            _gitlab_job("sync", f"  variables:\n    SSH_PASSWORD: {PW}\n  before_script:\n    - ssh host true\n"),
            5,
        ),
        # the pipeline's own variables, and GitLab's long form of one
        (GITLAB, f"variables:\n  NPM_TOKEN: {PW}\n\nbuild:\n  script:\n    - npm ci\n", 2),
        (GITLAB, f"variables:\n  NPM_TOKEN:\n    value: {PW}\n    description: npm\n", 3),
        # an included file under .gitlab/ci/
        (".gitlab/ci/deploy.yml", _gitlab_job("deploy", f"  variables:\n    REGISTRY_PASSWORD: {PW}\n"), 5),
    ],
)
def test_a_gitlab_literal_outside_a_test_is_medium(path: str, text: str, line: int) -> None:
    assert _ps(path, text) == [(line, "medium")]


SERVICES_JOB = (
    "test:\n  stage: test\n  services:\n    - postgres:16\n  variables:\n"
    "    POSTGRES_PASSWORD: {pw}\n  script:\n    - pytest\n"
)


#: A literal the file is read for (line 2): a test whose point is that something is not reported
#: keeps it, so that it fails when the file is not read at all.
CONTROL = f"variables:\n  NPM_TOKEN: {PW}\n"


@pytest.mark.parametrize("value", ["postgres", "changeme", "<your-password>", "$DB_PASSWORD"])
def test_a_gitlab_test_jobs_stand_in_password_is_not_reported(value: str) -> None:
    assert _ps(GITLAB, CONTROL + SERVICES_JOB.format(pw=value)) == [(2, "medium")]


def test_a_gitlab_test_jobs_real_looking_password_is_info() -> None:
    assert _ps(GITLAB, SERVICES_JOB.format(pw=PW)) == [(6, "info")]


def test_a_gitlab_test_value_in_a_test_job_is_a_fixture() -> None:
    text = SERVICES_JOB.format(pw="ci-test-password-q8Lm")
    assert _ps(GITLAB, text) == []
    assert _with_examples(GITLAB, text) == [("PS002", 6, "low")]


@pytest.mark.parametrize(
    "text",
    [
        # a service's own variables
        f"unit:\n  services:\n    - name: mysql:8\n      variables:\n        MYSQL_ROOT_PASSWORD: {PW}\n"
        "  script:\n    - make check\n",
        # named or staged as a test, with no services
        f"integration:\n  variables:\n    API_TOKEN: {PW}\n  script:\n    - make\n",
        f"check:\n  stage: test\n  variables:\n    API_TOKEN: {PW}\n  script:\n    - make\n",
        # services from default:
        f"default:\n  services: [redis:7]\ncheck:\n  variables:\n    REDIS_PASSWORD: {PW}\n  script:\n    - make\n",
    ],
)
def test_a_gitlab_test_job_makes_a_literal_info(text: str) -> None:
    assert [severity for _, severity in _ps(GITLAB, text)] == ["info"]


def test_a_docker_daemon_service_is_not_a_test_database() -> None:
    text = f"build:\n  services: [docker:27-dind]\n  variables:\n    API_TOKEN: {PW}\n  script:\n    - make\n"
    assert _ps(GITLAB, text) == [(4, "medium")]


def test_a_gitlab_test_jobs_neighbour_is_not_a_test() -> None:
    text = (
        SERVICES_JOB.format(pw="postgres")
        + f"\npublish:\n  variables:\n    NPM_TOKEN: {PW}\n  script:\n    - npm publish\n"
    )
    assert _ps(GITLAB, text) == [(12, "medium")]


def test_a_gitlab_test_job_that_deploys_stays_medium() -> None:
    text = SERVICES_JOB.format(pw=PW).replace("    - pytest\n", "    - pytest\n    - kubectl apply -f k8s/\n")
    assert _ps(GITLAB, text) == [(6, "medium")]


TEMPLATE = f".pg:\n  services:\n    - postgres:16\n  variables:\n    POSTGRES_PASSWORD: {PW}\n\n"


def test_a_hidden_job_only_test_jobs_extend_is_info() -> None:
    text = TEMPLATE + "unit:\n  extends: .pg\n  script:\n    - pytest\n"
    assert _ps(GITLAB, text) == [(5, "info")]


def test_a_hidden_job_a_deploy_extends_stays_medium() -> None:
    text = (
        TEMPLATE
        + "unit:\n  extends: .pg\n  script:\n    - pytest\n"
        + "migrate:\n  extends: [.pg]\n  stage: deploy\n  script:\n    - ./migrate.sh\n"
    )
    assert _ps(GITLAB, text) == [(5, "medium")]


def test_services_inherited_through_extends_make_a_test_job() -> None:
    text = TEMPLATE.replace(f"  variables:\n    POSTGRES_PASSWORD: {PW}\n", "") + (
        f"unit:\n  extends: .pg\n  variables:\n    DB_PASSWORD: {PW}\n  script:\n    - pytest\n"
    )
    assert _ps(GITLAB, text) == [(8, "info")]


@pytest.mark.parametrize(
    "value",
    [
        "$CI_JOB_TOKEN",
        "gitlab-ci-token:$CI_JOB_TOKEN",
        "${DB_PASSWORD}",
        "$$DB_PASSWORD",
        "pre$$SUFFIX9x",
        "$[[ inputs.token ]]",
        "<your-token-here>",
        "CHANGE_ME",
    ],
)
def test_gitlab_references_and_placeholders_are_not_literals(value: str) -> None:
    text = CONTROL + f'  DEPLOY_TOKEN: "{value}"\ndeploy:\n  stage: deploy\n  script:\n    - ./deploy.sh\n'
    assert _ps(GITLAB, text) == [(2, "medium")]


def test_a_gitlab_test_jobs_database_url_is_its_services() -> None:
    """PS001: the URL's password is the one the job gives its service container."""
    url = f"postgresql://app:{PW}@postgres:5432/app"
    text = SERVICES_JOB.format(pw=PW).replace("  script:", f"    DATABASE_URL: {url}\n  script:")
    assert _ps(GITLAB, text, "PS001") == []
    deploy = text.replace("stage: test", "stage: deploy")
    assert _ps(GITLAB, deploy, "PS001") == [(7, "high")]


# ----- CircleCI -------------------------------------------------------------------------------


def _circle(jobs: str) -> str:
    return f"version: 2.1\njobs:\n{jobs}workflows:\n  main:\n    jobs: [build]\n"


TEST_JOB = (
    "  build:\n    docker:\n      - image: cimg/python:3.12\n      - image: cimg/postgres:16.0\n"
    "        environment:\n          POSTGRES_PASSWORD: {pw}\n    steps:\n      - checkout\n      - run: pytest\n"
)


def test_a_circleci_service_image_password_is_info() -> None:
    assert _ps(CIRCLE, _circle(TEST_JOB.format(pw=PW))) == [(8, "info")]
    assert _ps(CIRCLE, _circle(TEST_JOB.format(pw="postgres"))) == []


def test_a_circleci_test_jobs_database_url_is_its_services() -> None:
    url = f"postgresql://app:{PW}@localhost:5432/app"
    text = _circle(
        TEST_JOB.format(pw=PW).replace(
            "      - run: pytest\n", f"      - run: pytest\n    environment:\n      DATABASE_URL: {url}\n"
        )
    )
    assert _ps(CIRCLE, text, "PS001") == []
    assert ("PS001", 13, "low") in _with_examples(CIRCLE, text)


@pytest.mark.parametrize(
    ("jobs", "line"),
    [
        (
            "  release:\n    docker:\n      - image: cimg/python:3.12\n    environment:\n"
            f"      TWINE_PASSWORD: {PW}\n    steps:\n      - run: twine upload dist/*\n",
            7,
        ),
        # a job with a service image that also deploys
        (TEST_JOB.format(pw=PW).replace("      - run: pytest\n", "      - run: pytest && ssh deploy@host ./up\n"), 8),
        # a run step's own environment, in a job with one image
        (
            "  publish:\n    docker:\n      - image: node:20\n    steps:\n      - run:\n          name: publish\n"
            f"          command: npm publish\n          environment:\n            NPM_TOKEN: {PW}\n",
            11,
        ),
    ],
)
def test_a_circleci_literal_outside_a_test_is_medium(jobs: str, line: int) -> None:
    assert _ps(CIRCLE, _circle(jobs)) == [(line, "medium")]


@pytest.mark.parametrize("value", ["<< pipeline.parameters.npm_token >>", "<<parameters.token>>", "${NPM_TOKEN}"])
def test_circleci_parameters_are_not_literals(value: str) -> None:
    jobs = f'  release:\n    docker:\n      - image: node:20\n    environment:\n      NPM_TOKEN: "{value}"\n'
    jobs += f"      TWINE_PASSWORD: {PW}\n"
    assert _ps(CIRCLE, _circle(jobs)) == [(8, "medium")]


def test_a_circleci_executor_is_graded_by_its_jobs() -> None:
    executor = (
        "executors:\n  with-db:\n    docker:\n      - image: cimg/python:3.12\n      - image: cimg/postgres:16.0\n"
        f"        environment:\n          POSTGRES_PASSWORD: {PW}\n"
    )
    tested = executor + _circle("  build:\n    executor: with-db\n    steps:\n      - run: pytest\n")
    assert _ps(CIRCLE, tested) == [(7, "info")]
    deployed = executor + _circle("  deploy:\n    executor: with-db\n    steps:\n      - run: ./deploy.sh\n")
    assert _ps(CIRCLE, deployed) == [(7, "medium")]


# ----- Azure Pipelines ------------------------------------------------------------------------

AZURE_TEST = (
    "resources:\n  containers:\n    - container: pg\n      image: postgres:16\n      env:\n"
    "        POSTGRES_PASSWORD: {pw}\n"
    "stages:\n  - stage: {stage}\n    jobs:\n      - job: {job}\n        services:\n          pg: pg\n"
    "        steps:\n          - script: {run}\n"
)


def test_an_azure_container_resource_a_test_job_uses_is_info() -> None:
    text = AZURE_TEST.format(pw=PW, stage="Build", job="unit", run="pytest")
    assert _ps(AZURE, text) == [(6, "info")]


def test_an_azure_container_resource_a_deploy_uses_stays_medium() -> None:
    text = AZURE_TEST.format(pw=PW, stage="Deploy", job="migrate", run="./migrate.sh")
    assert _ps(AZURE, text) == [(6, "medium")]


@pytest.mark.parametrize(
    ("text", "line"),
    [
        # the list form of variables, at the pipeline's top
        (f"variables:\n  - name: API_TOKEN\n    value: {PW}\nsteps:\n  - script: make\n", 3),
        # a deployment job names an environment
        (
            "jobs:\n  - deployment: web\n    environment: prod\n    variables:\n"
            f"      SSH_PASSWORD: {PW}\n    strategy:\n      runOnce:\n        deploy:\n          steps:\n"
            "            - script: ./deploy.sh\n",
            5,
        ),
        # a step's env in a job that is no test's
        (f"jobs:\n  - job: build\n    steps:\n      - script: make\n        env:\n          NPM_TOKEN: {PW}\n", 6),
    ],
)
def test_an_azure_literal_outside_a_test_is_medium(text: str, line: int) -> None:
    assert _ps(AZURE, text) == [(line, "medium")]


def test_an_azure_test_jobs_variable_is_info() -> None:
    text = f"jobs:\n  - job: integration_tests\n    variables:\n      DB_PASSWORD: {PW}\n    steps:\n      - script: make\n"
    assert _ps(AZURE, text) == [(4, "info")]


@pytest.mark.parametrize(
    "value", ["$(DB_PASSWORD)", "$[variables.pw]", "${{ parameters.password }}", "$(System.AccessToken)"]
)
def test_azure_macros_and_expressions_are_not_literals(value: str) -> None:
    text = (
        f"variables:\n  - name: DB_PASSWORD\n    value: '{value}'\n  - name: SSH_TOKEN\n    value: {PW}\n"
        "steps:\n  - script: make\n"
    )
    assert _ps(AZURE, text) == [(5, "medium")]


# ----- Bitbucket Pipelines --------------------------------------------------------------------

BITBUCKET_SERVICE = (
    f"definitions:\n  services:\n    postgres:\n      image: postgres:16\n      variables:\n        POSTGRES_PASSWORD: {PW}\n"
    "pipelines:\n  default:\n    - step:\n        name: {name}\n{extra}        services:\n          - postgres\n"
    "        script:\n          - {run}\n"
)


def test_a_bitbucket_service_a_test_step_lists_is_info() -> None:
    text = BITBUCKET_SERVICE.format(name="Unit", extra="", run="pytest")
    assert _ps(BITBUCKET, text) == [(6, "info")]


def test_a_bitbucket_service_a_deployment_lists_stays_medium() -> None:
    text = BITBUCKET_SERVICE.format(name="Migrate", extra="        deployment: production\n", run="./migrate.sh")
    assert _ps(BITBUCKET, text) == [(6, "medium")]


def test_a_bitbucket_pipes_variable_in_a_deployment_is_medium() -> None:
    text = (
        "pipelines:\n  branches:\n    main:\n      - step:\n          name: Ship\n          deployment: production\n"
        "          script:\n            - pipe: atlassian/ssh-run:0.8.0\n              variables:\n"
        f"                SSH_PASSWORD: {PW}\n                SSH_KEY: $DEPLOY_KEY\n"
    )
    assert _ps(BITBUCKET, text) == [(10, "medium")]


def test_bitbucket_docker_service_is_not_a_test_database() -> None:
    text = (
        "pipelines:\n  default:\n    - step:\n        name: Build\n        services: [docker]\n        script:\n"
        "          - pipe: atlassian/npm-publish:1.0.0\n            variables:\n"
        f"              NPM_TOKEN: {PW}\n"
    )
    assert _ps(BITBUCKET, text) == [(9, "medium")]


def test_broken_ci_files_do_not_traceback() -> None:
    for path in (GITLAB, CIRCLE, AZURE, BITBUCKET):
        for text in (
            "- a\n- b\n",
            "jobs: [1, 2]\nstages: 3\nexecutors: x\ndefinitions: {services: [a]}\n",
            f"a:\n  extends: b\nb:\n  extends: a\n  services: 7\n  variables:\n    API_TOKEN: {PW}\n",
            f"x:\n  script: [[[a]]]\n  services: [{{name: 3}}]\n  variables: {{API_TOKEN: {PW}}}\n",
        ):
            lint_text(path, text)
