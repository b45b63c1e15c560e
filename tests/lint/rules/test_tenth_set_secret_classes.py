"""Issue 33, the tenth held-out set's PS001/PS002 classes, fixed afterwards (docs/lint.md, "The
tenth set's secrets classes, fixed afterwards (issue 33, after the tenth set)"). Each class from
fixtures written here, with the look-alikes that stay findings (or stay quiet).

1. PS001: a committed secret scanner's report or baseline holding the secrets it found: one
   finding for the file.
2. PS001: a JSON Web Token whose ``exp`` has passed is info.
3. PS001: Slack app-level tokens (``xapp-1-...``); PS002: ``PW`` as a password name's last part.
4. A file over max-file-size: its findings and the summary agree that it was read in part.
"""

from __future__ import annotations

import base64
import json
import random
import string
import time
from pathlib import Path

import pytest

from sandkit.credentials import is_secret_key
from sandkit.lint.facts.secret_values import _expired_jwt, password_name
from tests.lint.helpers import lint_text


def _random(length: int, seed: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    """A value as a generator makes one, built at run time."""
    chooser = random.Random(seed)
    return "".join(chooser.choice(alphabet) for _ in range(length))


def _found(name: str, text: str, rule: str) -> list[tuple[int, str]]:
    return [(f.line, f.severity) for f in lint_text(name, text) if f.rule == rule]


# ---- 3. Slack app-level tokens and PW names -------------------------------------------------------


def _xapp(seed: int) -> str:
    app = "A" + _random(10, seed, string.ascii_uppercase + string.digits)
    number = _random(13, seed + 1, string.digits)
    return f"xapp-1-{app}-{number}-{_random(64, seed + 2, '0123456789abcdef')}"


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (".env", "SLACK_APP_TOKEN={token}\n"),
        ("config.yaml", "slack:\n  appToken: '{token}'\n"),
        ("bot.py", 'APP_TOKEN = "{token}"\n'),
        ("settings.json", '{{"socket_mode_token": "{token}"}}\n'),
    ],
)
def test_a_slack_app_level_token_is_a_known_format(name: str, text: str) -> None:
    findings = [f for f in lint_text(name, text.format(token=_xapp(7))) if f.rule == "PS001"]
    assert [f.severity for f in findings] == ["high"]
    assert "Slack app-level token" in findings[0].message


@pytest.mark.parametrize(
    "token",
    [
        "xapp-1-A0123456789-1234567890123-abcdef0123456789abcdef0123456789",  # counting runs
        "xapp-1-AXXXXXXXXXX-0000000000000-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",  # a placeholder
        "xapp-your-app-level-token",
        "xapp-1-...",
    ],
)
def test_a_slack_app_level_placeholder_is_not(token: str) -> None:
    assert not _found(".env", f"SLACK_APP_TOKEN={token}\n", "PS001")


@pytest.mark.parametrize("name", ["REGISTRY_PW", "DB_PW", "ADMIN_PW", "adminPw", "smtp-pw", "ldap.pw"])
def test_pw_as_a_names_last_part_is_a_password(name: str) -> None:
    assert is_secret_key(name) and password_name(name)
    assert _found(".env", f"{name}={_random(16, 3)}\n", "PS002") == [(1, "medium")]
    assert _found(".env", f"{name}=letmeinnow\n", "PS002") == [(1, "medium")], "a word is a weak password here"


@pytest.mark.parametrize("name", ["POWER", "PWD_DIR", "PW_TIMEOUT", "pwDir", "NPW", "SNOWPW", "PW_RUN_DIR"])
def test_pw_inside_another_word_or_leading_a_name_is_not(name: str) -> None:
    assert not is_secret_key(name)
    assert not _found(".env", f"{name}={_random(16, 3)}\n", "PS002")


@pytest.mark.parametrize(
    "text",
    [
        'REGISTRY_PW="${REGISTRY_PASSWORD}"\n',  # a reference
        "MIN_PW=8\n",  # a number (a minimum length)
        'DISK_PW="$RAMDISK_MOUNT/disk.pw"\n',
        "REGISTRY_PW=changeme\n",
    ],
)
def test_a_pw_name_with_a_reference_or_placeholder_is_not(text: str) -> None:
    assert not _found(".env", text, "PS002")


# ---- 2. expired JSON Web Tokens -----------------------------------------------------------------


def _jwt(payload: dict[str, object], seed: int = 11) -> str:
    def part(data: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    return f"{part({'alg': 'HS256', 'typ': 'JWT'})}.{part(payload)}.{_random(43, seed)}"


_PAST = 1_000_000_000  # 2001-09-09
_FUTURE = int(time.time()) + 20 * 365 * 86400


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (".env", "ACCESS_TOKEN={token}\n"),
        ("session.json", '{{"access_token": "{token}", "token_type": "Bearer"}}\n'),
        ("oidc/token", "{token}\n"),
        ("src/login.component.ts", "const session = {{ jwt: '{token}' }};\n"),
        ("links.txt", "Open in Cursor: https://cursor.com/open?source=bot&token={token}\n"),
    ],
)
def test_a_jwt_whose_exp_has_passed_is_info_saying_when(name: str, text: str) -> None:
    token = _jwt({"sub": "user-8812", "iat": _PAST - 3600, "exp": _PAST})
    findings = [f for f in lint_text(name, text.format(token=token)) if f.rule in ("PS001", "PS002")]
    assert [(f.rule, f.severity) for f in findings] == [("PS001", "info")]
    assert "2001-09-09" in findings[0].message


@pytest.mark.parametrize(
    "payload",
    [
        {"sub": "user-8812", "exp": _FUTURE},  # still valid
        {"sub": "system:serviceaccount:ci:deployer", "iss": "kubernetes/serviceaccount"},  # no exp: never expires
        {"sub": "user-8812", "exp": "1000000000"},  # exp not a number: nothing says when
        {"sub": "user-8812", "exp": True},
    ],
)
def test_a_jwt_with_no_past_exp_stays_high(payload: dict[str, object]) -> None:
    assert _found(".env", f"ACCESS_TOKEN={_jwt(payload)}\n", "PS001") == [(1, "high")]


def test_expiry_is_compared_with_the_clock_of_the_run() -> None:
    token = _jwt({"sub": "user-8812", "exp": 2_000_000_000})  # 2033-05-18
    assert _expired_jwt(token, now=1_900_000_000.0) is None
    assert "2033-05-18" in (_expired_jwt(token, now=2_100_000_000.0) or "")
    assert _expired_jwt("eyJ.eyJ.x") is None  # not decodable: no claim


# ---- 1. a secret scanner's report or baseline ---------------------------------------------------


def _gitleaks_entries(count: int, *, redact: bool = False) -> list[dict[str, object]]:
    entries: list[dict[str, object]] = []
    for number in range(count):
        if number % 3:
            secret, rule = "ghp_" + _random(36, number), "github-pat"
        else:
            secret, rule = "AKIA" + _random(16, number, string.ascii_uppercase + string.digits), "aws-access-token"
        shown = "REDACTED" if redact else secret
        entries.append(
            {
                "Description": "a token",
                "StartLine": number + 1,
                "EndLine": number + 1,
                "StartColumn": 9,
                "EndColumn": 52,
                "Match": f'token = "{shown}"',
                "Secret": shown,
                "File": f"src/settings_{number}.py",
                "SymlinkFile": "",
                "Commit": _random(40, 900 + number, "0123456789abcdef"),
                "Entropy": 4.7,
                "Author": "someone",
                "Email": "someone@example.com",
                "Date": "2025-01-02T03:04:05Z",
                "Message": "settings",
                "Tags": [],
                "RuleID": rule,
                "Fingerprint": f"{_random(40, 950 + number, '0123456789abcdef')}:src/settings_{number}.py:{rule}:{number + 1}",
            }
        )
    return entries


def _trufflehog_lines(count: int, *, verified: int = 0) -> str:
    lines = []
    for number in range(count):
        secret = "ghp_" + _random(36, 300 + number)
        entry = {
            "SourceMetadata": {"Data": {"Git": {"commit": _random(40, number, "0123456789abcdef"), "file": "a.py"}}},
            "SourceID": 1,
            "SourceType": 16,
            "SourceName": "trufflehog - git",
            "DetectorType": 8,
            "DetectorName": "Github",
            "DecoderName": "PLAIN",
            "Verified": number < verified,
            "Raw": secret,
            "RawV2": "",
            "Redacted": "",
            "ExtraData": None,
        }
        lines.append(json.dumps(entry))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("name", "indent"),
    [("gitleaks-report.json", 2), (".gitleaks-baseline.json", None), ("security/leaks.json", 1)],
)
def test_a_gitleaks_report_is_one_finding_saying_what_it_holds(name: str, indent: int | None) -> None:
    findings = [f for f in lint_text(name, json.dumps(_gitleaks_entries(30), indent=indent)) if f.rule.startswith("PS")]
    assert [(f.rule, f.severity) for f in findings] == [("PS001", "high")]
    message = findings[0].message
    assert "gitleaks report holds 30 secrets" in message
    assert "github-pat 20" in message and "aws-access-token 10" in message
    assert "--redact" in findings[0].fix and "history" in findings[0].fix


def test_a_trufflehog_report_is_one_finding_high_when_a_secret_is_verified() -> None:
    findings = [f for f in lint_text("trufflehog.jsonl", _trufflehog_lines(12, verified=2)) if f.rule.startswith("PS")]
    assert [(f.rule, f.severity) for f in findings] == [("PS001", "high")]
    assert "12 secrets" in findings[0].message and "verified 2 of them" in findings[0].message


def test_a_trufflehog_report_with_nothing_verified_is_medium() -> None:
    findings = [f for f in lint_text("scan/results.json", _trufflehog_lines(4)) if f.rule.startswith("PS")]
    assert [(f.rule, f.severity) for f in findings] == [("PS001", "medium")]
    assert "verified 0 of them" in findings[0].message


def test_a_redacted_report_or_a_detect_secrets_baseline_is_quiet() -> None:
    assert not [
        f
        for f in lint_text(".gitleaks-baseline.json", json.dumps(_gitleaks_entries(9, redact=True)))
        if f.rule.startswith("PS")
    ]
    baseline = {
        "version": "1.5.0",
        "plugins_used": [{"name": "AWSKeyDetector"}],
        "results": {
            "app/settings.py": [
                {
                    "type": "Secret Keyword",
                    "filename": "app/settings.py",
                    "hashed_secret": _random(40, 5, "0123456789abcdef"),
                    "is_verified": False,
                    "line_number": 12,
                }
            ]
        },
        "generated_at": "2025-01-02T03:04:05Z",
    }
    assert not [f for f in lint_text(".secrets.baseline", json.dumps(baseline, indent=2)) if f.rule.startswith("PS")]


def test_a_report_with_one_secret_left_unredacted_counts_it() -> None:
    entries = _gitleaks_entries(6, redact=True) + _gitleaks_entries(2)[1:]
    findings = [f for f in lint_text("gitleaks-report.json", json.dumps(entries, indent=2)) if f.rule == "PS001"]
    assert len(findings) == 1 and "holds 1 secret it found" in findings[0].message


def test_look_alikes_of_a_report_keep_one_finding_a_token() -> None:
    tokens = ["ghp_" + _random(36, 60 + n) for n in range(3)]
    # a list of rules without fingerprints: not a report
    rules = [{"RuleID": f"rule-{n}", "Description": "x", "Secret": token} for n, token in enumerate(tokens)]
    assert len(_found("rules.json", json.dumps(rules, indent=2), "PS001")) == 3
    # JSON lines of which only some are a scanner's: a log, not a report
    log = _trufflehog_lines(1) + "".join(json.dumps({"event": "push", "token": token}) + "\n" for token in tokens)
    assert len(_found("events.jsonl", log, "PS001")) == 4
    # a file that only names the fields in prose
    prose = "Run gitleaks; its RuleID and Fingerprint fields say which rule matched.\n" + "".join(
        f"TOKEN_{n}={token}\n" for n, token in enumerate(tokens)
    )
    assert len(_found(".env", prose, "PS001")) == 3


# ---- 4. a file read in part ---------------------------------------------------------------------


def _big_data(tmp_path: Path, tokens: dict[int, str], rows: int) -> None:
    lines = [json.dumps({"id": n, "note": "x" * 60, "value": tokens.get(n, "none")}) for n in range(rows)]
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "dump.jsonl").write_text("\n".join(lines) + "\n")
    (tmp_path / "pyproject.toml").write_text("[tool.sandkit]\nmax-file-size = 8192\n")


def test_a_file_read_in_part_says_so_in_its_findings_and_in_the_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sandkit.cli import main

    early, late = "ghp_" + _random(36, 71), "ghp_" + _random(36, 72)
    _big_data(tmp_path, {3: early, 900: late}, 1000)  # about 100 kB: the late token is past the limit
    assert main(["lint", str(tmp_path), "--format", "json", "--exit-zero"]) == 0
    document = json.loads(capsys.readouterr().out)
    (finding,) = [f for f in document["findings"] if f["rule"] == "PS001"]  # the late token was never read
    assert finding["line"] == 4 and "(file read in part: its first 8192 bytes only)" in finding["message"]
    (part,) = document["summary"]["read_in_part"]
    assert part["path"].endswith("data/dump.jsonl") and part["read_bytes"] == 8192 and part["size"] > 90_000
    assert main(["lint", str(tmp_path), "--exit-zero"]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("1 file over 8192 bytes was read in part (the first 8192 bytes; findings in it come")


def test_a_file_within_the_limit_says_nothing_of_parts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from sandkit.cli import main

    _big_data(tmp_path, {3: "ghp_" + _random(36, 71)}, 40)
    assert main(["lint", str(tmp_path), "--format", "json", "--exit-zero"]) == 0
    document = json.loads(capsys.readouterr().out)
    (finding,) = [f for f in document["findings"] if f["rule"] == "PS001"]
    assert "read in part" not in finding["message"] and document["summary"]["read_in_part"] == []


@pytest.mark.parametrize("scanner", ["gitleaks", "trufflehog"])
def test_a_report_cut_at_the_limit_is_still_one_finding(
    scanner: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sandkit.cli import main

    if scanner == "gitleaks":
        (tmp_path / "gitleaks-report.json").write_text(json.dumps(_gitleaks_entries(60), indent=2))
    else:
        (tmp_path / "trufflehog.jsonl").write_text(_trufflehog_lines(60))
    (tmp_path / "pyproject.toml").write_text("[tool.sandkit]\nmax-file-size = 16000\n")
    assert main(["lint", str(tmp_path), "--format", "json", "--exit-zero"]) == 0
    document = json.loads(capsys.readouterr().out)
    (finding,) = [f for f in document["findings"] if f["rule"].startswith("PS")]
    assert f"a {scanner} report holds" in finding["message"] and "file read in part" in finding["message"]
    assert len(document["summary"]["read_in_part"]) == 1
