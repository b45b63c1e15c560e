"""Issue 33, the eighth set's PS002 classes (fixed after its run): a CI job that tests against its
own stack and then pushes an image keeps its test values out of that image, so the push does not
make them a deployment's; and env files only a framework's test mode loads (``.env.testing``,
``.env.test``). Each with several shapes and the look-alikes that stay findings."""

from __future__ import annotations

import pytest

from tests.lint.helpers import lint_files, lint_text

WF = ".github/workflows/ci.yml"
KEY = "base64:q3Vx8Lm2Pz7Rk9Wt4Yb6Nc1Hd5Jf0Gs2Ae8Uo3Ii7K="
PW = "Kx82mQpz4tLs"  # looks typed by a generator: nothing but the job's shape may excuse it

PUSH_ACTION = (
    "      - uses: docker/login-action@v3\n"
    "        with:\n          registry: ghcr.io\n          username: ${{ github.actor }}\n"
    "          password: ${{ secrets.GITHUB_TOKEN }}\n"
    "      - uses: docker/build-push-action@v6\n        with:\n          context: .\n          push: true\n"
    "          tags: ghcr.io/acme/app:latest\n"
)


COMPOSE = "      - run: docker compose up -d\n      - run: docker compose exec -T app php artisan test\n"
RUN = (
    '      - run: docker run -d -p 5432:5432 -e POSTGRES_PASSWORD="$DB_PASSWORD" postgres:16\n      - run: make test\n'
)


def _job(steps: str, *, job: str = "test-and-push", extra: str = "", start: str = COMPOSE) -> str:
    return (
        "on: push\npermissions: {contents: read}\njobs:\n"
        f"  {job}:\n    runs-on: ubuntu-latest\n{extra}    env:\n"
        f"      APP_KEY: {KEY}\n      DB_PASSWORD: {PW}\n"
        "    steps:\n      - uses: actions/checkout@v4\n" + start + steps
    )


def _ps002(text: str, path: str = WF) -> list[tuple[int, str]]:
    return [(f.line, f.severity) for f in lint_text(path, text) if f.rule == "PS002"]


# 1. A push does not carry the job's run-time env values --------------------------------------------


@pytest.mark.parametrize(
    ("start", "steps"),
    [
        (COMPOSE, PUSH_ACTION),  # a build action that pushes, after a registry login
        (RUN, PUSH_ACTION),
        (RUN, "      - run: docker build -t registry.example.com/app . && docker push registry.example.com/app\n"),
        (COMPOSE, "      - run: docker buildx build --push -t registry.example.com/app .\n"),
        (
            COMPOSE,
            "      - uses: docker/build-push-action@v6\n        with:\n          push: true\n"
            "          build-args: VERSION=${{ github.sha }}\n",  # build arguments, but not these values
        ),
    ],
)
def test_a_push_does_not_make_the_jobs_test_values_a_deployments(start: str, steps: str) -> None:
    assert _ps002(_job(steps, start=start)) == [(7, "info"), (8, "info")]


def test_a_services_job_that_pushes_keeps_its_url_out_of_ps001() -> None:
    text = (
        "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    services:\n      postgres:\n"
        f"        image: postgres:16\n        env:\n          POSTGRES_PASSWORD: {PW}\n"
        "    steps:\n      - run: pytest\n        env:\n"
        f"          DATABASE_URL: postgresql://app:{PW}@localhost:5432/app\n" + PUSH_ACTION
    )
    found = [(f.rule, f.line, f.severity) for f in lint_text(WF, text) if f.rule in ("PS001", "PS002")]
    assert found == [("PS002", 9, "info")]


@pytest.mark.parametrize(
    "steps",
    [
        # the value is handed to the build: a build argument, a build secret, a build step's own env
        PUSH_ACTION + "          build-args: |\n            APP_KEY=${{ env.APP_KEY }}\n"
        "            DB_PASSWORD=${{ env.DB_PASSWORD }}\n",
        PUSH_ACTION + f"          secrets: |\n            app_key={KEY}\n            db={PW}\n",
        "      - run: docker build --build-arg APP_KEY --build-arg DB_PASSWORD -t app . && docker push app\n",
        "      - run: docker buildx build --secret id=k,env=APP_KEY --secret id=p,env=DB_PASSWORD --push .\n",
        # the value is written into a file the build context may copy, or the whole environment is
        '      - run: echo "APP_KEY=$APP_KEY" >> .env && echo "DB_PASSWORD=$DB_PASSWORD" >> .env\n' + PUSH_ACTION,
        "      - run: printenv > .env\n" + PUSH_ACTION,
        # the image pushed may be one Compose built from the job's environment
        "      - run: docker compose push\n",
        "      - run: docker tag app registry.example.com/app && docker push registry.example.com/app\n",
        # a deploy to a host, whatever the values
        PUSH_ACTION + "      - run: ssh deploy@app.example.com ./update.sh\n",
        PUSH_ACTION + "      - run: kubectl apply -f k8s/\n",
        PUSH_ACTION + "      - run: helm upgrade --install app ./chart\n",
        "      - uses: aws-actions/configure-aws-credentials@v4\n        with: {aws-region: eu-west-1}\n"
        "      - uses: aws-actions/amazon-ecr-login@v2\n      - run: docker build -t app . && docker push app\n",
    ],
)
def test_values_that_reach_the_build_or_a_host_stay(steps: str) -> None:
    assert _ps002(_job(steps)) == [(7, "medium"), (8, "medium")]


def test_a_value_in_the_build_steps_own_env_stays() -> None:
    steps = "      - run: docker build -t app . && docker push app\n        env:\n          SIGNING_KEY: Qm7Tz2Lr9Wv4\n"
    assert _ps002(_job(steps, start=RUN)) == [(7, "info"), (8, "info"), (15, "medium")]


def test_a_jobs_environment_or_deploy_name_stays() -> None:
    assert _ps002(_job(PUSH_ACTION, extra="    environment: production\n")) == [(8, "medium"), (9, "medium")]
    assert _ps002(_job(PUSH_ACTION, job="deploy")) == [(7, "medium"), (8, "medium")]


def test_a_registry_logins_own_password_stays() -> None:
    """An action's input is not an env value given at run time: the login's password opens the registry."""
    steps = PUSH_ACTION.replace("${{ secrets.GITHUB_TOKEN }}", "Qm7Tz2Lr9Wv4")
    assert _ps002(_job(steps)) == [(7, "info"), (8, "info"), (17, "medium")]


def test_a_job_not_a_tests_stays() -> None:
    # Named "build", starting no containers: nothing says its values are a test's. (One that starts
    # containers and runs tests in them is a test's whatever its name: the ninth round's tests.)
    assert _ps002(_job(PUSH_ACTION, job="build", start="      - run: make\n")) == [(7, "medium"), (8, "medium")]


# 2. Env files only a framework's test mode loads -----------------------------------------------------

ENV = f"APP_KEY={KEY}\nDB_PASSWORD={PW}\n"
LARAVEL = {
    "artisan": "#!/usr/bin/env php\n<?php\n",
    "composer.json": '{"require": {"laravel/framework": "^11.0"}}\n',
    "phpunit.xml": '<phpunit>\n  <php>\n    <env name="APP_ENV" value="testing"/>\n  </php>\n</phpunit>\n',
}
SYMFONY = {
    "composer.json": '{"require": {"symfony/framework-bundle": "7.1.*", "symfony/dotenv": "7.1.*"}}\n',
    "phpunit.xml.dist": '<phpunit>\n  <php>\n    <server name="APP_ENV" value="test" force="true" />\n  </php>\n</phpunit>\n',
}


def _node(dependency: str, scripts: str = '"test": "vitest run"') -> dict[str, str]:
    return {
        "package.json": f'{{\n  "scripts": {{\n    {scripts}\n  }},\n  "devDependencies": {{"{dependency}": "^1.0.0"}}\n}}\n'
    }


def _in(folder: str, files: dict[str, str]) -> dict[str, str]:
    return {f"{folder}/{name}": text for name, text in files.items()}


def _severities(files: dict[str, str], path: str, rule: str = "PS002") -> list[str]:
    return [f.severity for f in lint_files(files) if f.rule == rule and f.path == path]


@pytest.mark.parametrize(
    ("files", "path"),
    [
        ({**LARAVEL, ".env.testing": ENV}, ".env.testing"),
        ({**_in("backend", {**LARAVEL, "artisan": ""}), "backend/.env.testing": ENV}, "backend/.env.testing"),
        ({**SYMFONY, ".env.test": ENV}, ".env.test"),
        ({**_in("apps/web", _node("next", '"test": "jest"')), "apps/web/.env.test": ENV}, "apps/web/.env.test"),
        ({**_node("vitest"), ".env.test": ENV}, ".env.test"),
        ({**_node("dotenv-flow", '"test": "NODE_ENV=test mocha"'), ".env.test": ENV}, ".env.test"),
        (
            {
                "Gemfile": 'source "https://rubygems.org"\ngem "dotenv-rails", groups: [:development, :test]\n',
                ".env.test": ENV,
            },
            ".env.test",
        ),
    ],
)
def test_an_env_file_only_the_test_mode_loads_is_info(files: dict[str, str], path: str) -> None:
    assert _severities(files, path) == ["info", "info"]


@pytest.mark.parametrize(
    ("files", "path"),
    [
        # the files every mode loads, or a deployed stage's, beside the same frameworks
        ({**LARAVEL, ".env": ENV}, ".env"),
        ({**LARAVEL, ".env.production": ENV}, ".env.production"),
        ({**SYMFONY, ".env.local": ENV}, ".env.local"),
        ({**_node("next"), ".env.local": ENV}, ".env.local"),
        # a name the framework beside it does not load in its test mode
        ({**LARAVEL, ".env.test": ENV}, ".env.test"),
        ({**SYMFONY, ".env.testing": ENV}, ".env.testing"),
        ({**_node("next"), ".env.ci": ENV}, ".env.ci"),
        # the tests do not run in that mode (no phpunit.xml setting it), or nothing loads the file by mode
        ({**LARAVEL, "phpunit.xml": "<phpunit/>\n", ".env.testing": ENV}, ".env.testing"),
        ({**_node("jest", '"test": "jest"'), ".env.test": ENV}, ".env.test"),
        ({"Gemfile": 'gem "rails"\n', ".env.test": ENV}, ".env.test"),
        # a script builds or serves in the test mode: a deployed stage's file
        ({**_node("vite", '"build:test": "vite build --mode test"'), ".env.test": ENV}, ".env.test"),
        ({**_node("next", '"start:test": "NODE_ENV=test next start"'), ".env.test": ENV}, ".env.test"),
    ],
)
def test_other_env_files_stay(files: dict[str, str], path: str) -> None:
    assert _severities(files, path) == ["medium", "medium"]


def test_a_known_credential_format_in_a_test_mode_file_stays() -> None:
    token = "ghp_" + "Zq8Lm2Pz7Rk9Wt4Yb6Nc1Hd5Jf0Gs2Ae8Uo3v"
    files = {**LARAVEL, ".env.testing": f"GITHUB_TOKEN={token}\n"}
    assert _severities(files, ".env.testing", "PS001") == ["high"]
