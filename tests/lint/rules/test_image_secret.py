"""IS001 secret-in-image-env, IS002 secret-file-copied, IS003 context-copy-without-dockerignore."""

from __future__ import annotations

import pytest

from tests.lint.helpers import at, lint_files, lint_text

TOKEN = "ghp" + "_" + "Z8k2Lq9Wm4Rt7Yp1Xv3Bn6Hc5Jd0Fs2Ga8Ke"


def test_env_and_arg_with_secret_names_in_every_stage() -> None:
    text = (
        "FROM node:22 AS build\nARG NPM_TOKEN\nARG DB_PASSWORD=Vq8xR2mN5tLw\n"
        "FROM alpine\nENV API_KEY=${API_KEY} LOG=info\nENV LEGACY_SECRET value123\n"
        f"ENV GH={TOKEN}\n"
    )
    findings = lint_text("Dockerfile", text)
    assert at(findings, "IS001") == [(2, 5), (3, 5), (5, 5), (6, 5), (7, 8)]
    severities = [f.severity for f in findings if f.rule == "IS001"]
    assert severities == ["medium", "high", "high", "high", "critical"]
    assert "build stage 2" in findings[2].message


@pytest.mark.parametrize(
    "line",
    [
        "ENV GPG_KEY A035C8C19219BA821ECEA86B64E628F8D684696D",  # python images: a fingerprint
        'ENV API_KEY=""',
        "ENV PUBLIC_KEY=/etc/app/pub.pem",
        "ARG CACHE_KEY=v2",
        "ENV TOKENS=5",
        "# ENV API_KEY=Vq8xR2mN5tLw",
        "RUN --mount=type=secret,id=npm_token npm ci",
    ],
)
def test_env_look_alikes(line: str) -> None:
    assert at(lint_text("Dockerfile", f"FROM alpine\n{line}\n"), "IS001") == []


@pytest.mark.parametrize(
    "line",
    [
        "COPY .env /app/.env",
        "ADD id_rsa /root/.ssh/id_rsa",
        'COPY ["certs/server.key", "/k"]',
        "COPY --chown=app .npmrc ./",
        "COPY .aws/ /root/.aws/",
        "COPY config/.env.production .",
    ],
)
def test_secret_files_copied(line: str) -> None:
    assert len(at(lint_text("Dockerfile", f"FROM alpine\n{line}\n"), "IS002")) == 1


@pytest.mark.parametrize(
    "line",
    [
        "COPY .env.example /app/.env",
        "COPY --from=build /root/.ssh/id_rsa /x",
        "COPY id_ed25519.pub /etc/keys/",
        "COPY environment.yml .",
        "COPY keys.py /app/",
    ],
)
def test_copy_look_alikes(line: str) -> None:
    assert at(lint_text("Dockerfile", f"FROM alpine\n{line}\n"), "IS002") == []


DOCKERFILE = "FROM python:3.12\nWORKDIR /app\nCOPY . .\n"


def test_context_copy_without_dockerignore() -> None:
    findings = lint_files({"Dockerfile": DOCKERFILE})
    assert at(findings, "IS003") == [(3, 6)]
    assert "no .dockerignore" in findings[0].message


@pytest.mark.parametrize("ignore", [".env\n", ".env*\n", "**/.env*\n", "*\n!src\n", "# secrets\n/.env\n.env.*\n"])
def test_dockerignore_that_keeps_env_out(ignore: str) -> None:
    assert at(lint_files({"Dockerfile": DOCKERFILE, ".dockerignore": ignore}), "IS003") == []


def test_dockerignore_in_a_parent_folder_and_per_dockerfile() -> None:
    files = {"svc/Dockerfile": DOCKERFILE, ".dockerignore": ".env*\n"}
    assert at(lint_files(files), "IS003") == []
    files = {"svc/app.Dockerfile": DOCKERFILE, "svc/app.Dockerfile.dockerignore": ".env\n.env.*\n"}
    assert at(lint_files(files), "IS003") == []


@pytest.mark.parametrize("ignore", ["node_modules\n", ".env\n!.env\n", "*.log\n.git\n"])
def test_dockerignore_that_lets_env_in(ignore: str) -> None:
    findings = lint_files({"Dockerfile": DOCKERFILE, ".dockerignore": ignore})
    assert at(findings, "IS003") == [(3, 6)]
    assert ".dockerignore does not exclude .env" in findings[0].message


def test_narrow_copy_is_not_a_context_copy() -> None:
    text = "FROM python:3.12\nCOPY src/ /app/src/\nCOPY requirements.txt .\n"
    assert at(lint_files({"Dockerfile": text}), "IS003") == []


def test_is002_reads_what_is_copied() -> None:
    public_key = "-----BEGIN PGP PUBLIC KEY BLOCK-----\nmQINBF...\n-----END PGP PUBLIC KEY BLOCK-----\n"
    files = {
        "docker/Dockerfile": "FROM x\nCOPY repo.key /etc/apt/keys/\nCOPY .env* /app/\nCOPY deploy.key /k\nCOPY gen.pem /p\n",
        "docker/repo.key": public_key,
        "docker/.env": "VERSION='dev'\n",
        "docker/deploy.key": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n",
    }
    found = [(f.line, f.message.split(" puts")[0]) for f in lint_files(files) if f.rule == "IS002"]
    assert found == [(4, "COPY deploy.key"), (5, "COPY gen.pem")]  # gen.pem is made by the build: kept
    files["docker/.env.local"] = "DB_PASSWORD=Zq8vR2mN5tLw\n"
    assert [f.line for f in lint_files(files) if f.rule == "IS002"] == [3, 4, 5]


def test_is002_finds_the_copied_file_in_the_context_above_the_dockerfile() -> None:
    files = {
        "debian/Dockerfile": "FROM x\nCOPY jenkins.io-2026.key /war/jenkins-key.pub\n",
        "jenkins.io-2026.key": "-----BEGIN PGP PUBLIC KEY BLOCK-----\nmQINBGlJRo\n-----END PGP PUBLIC KEY BLOCK-----\n",
    }
    assert [f for f in lint_files(files) if f.rule == "IS002"] == []
