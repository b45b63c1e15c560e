"""Issue 33, tenth round: the secrets classes the fresh development sweep (docs/lint.md, "A tenth development sweep") showed wrong
(docs/lint.md, "The development sweep's secrets classes (issue 33, tenth round)"). Each class from
fixtures written here, several shapes, with the look-alikes that stay findings.

1. PS001: a private key block whose body holds only the start of a key (its DER or OpenSSH fields
   say more bytes follow than are there) is a recogniser's test string, not a key.
2. PS002: a namespaced identifier (``AUTO:ActionCandidate.roadmap:proposed_only``) under a name
   ending in ``key`` names something; it is no key.
3. (A CAPTCHA's site key: fixed on main in the container round, not here.)
4. PS002: a live-looking key in a file named as an example (``.env.example``) is still reported.
5. PS002, AM003: a random key of small letters alone is key material, not a word.
"""

from __future__ import annotations

import base64
import random
import string

import pytest

from tests.lint.helpers import lint_text


def _found(name: str, text: str, rule: str) -> list[tuple[int, str]]:
    return [(f.line, f.severity) for f in lint_text(name, text) if f.rule == rule]


def _bytes(count: int, seed: int) -> bytes:
    chooser = random.Random(seed)
    return bytes(chooser.randrange(256) for _ in range(count))


def _der_body(length: int, seed: int) -> str:
    """A whole DER ``SEQUENCE`` of ``length`` content bytes, base64: what a real key's body decodes to."""
    return base64.b64encode(b"\x30\x82" + length.to_bytes(2, "big") + _bytes(length, seed)).decode()


def _pem(label: str, body: str, newline: str = "\n") -> str:
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return newline.join([f"-----BEGIN {label}-----", *lines, f"-----END {label}-----"])


# ---- 1. a key block holding only the start of a key ---------------------------------------------

#: The PKCS#8 header of an EC P-256 key: the DER says 147 bytes follow, 36 are there.
_EC_HEADER = "MIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQg"


@pytest.mark.parametrize(
    ("name", "text"),
    [
        # a JavaScript string with \n escapes, as a recogniser's test has it
        (
            "check.mjs",
            f"const PEM_KEY =\n  '-----BEGIN PRIVATE KEY-----\\n{_EC_HEADER}\\n-----END PRIVATE KEY-----\\n';\n",
        ),
        # a Python triple-quoted string, the first line of an RSA key only
        (
            "keys.py",
            'KEY = """-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAt8d38U041Qh5tGU12YMbcGkWZN8JfJeHudy80Crhx\n'
            '-----END RSA PRIVATE KEY-----"""\n',
        ),
        # a YAML block, two lines of a 1,200-byte key
        ("config.yaml", "tls:\n  key: |\n    " + _pem("PRIVATE KEY", _der_body(1190, 3)[:128], "\n    ") + "\n"),
        # an OpenSSH key cut after its public part began
        (
            "deploy.sh",
            "cat > id <<EOF\n"
            + _pem(
                "OPENSSH PRIVATE KEY",
                base64.b64encode(
                    b"openssh-key-v1\x00"
                    + b"\x00\x00\x00\x04none\x00\x00\x00\x04none\x00\x00\x00\x00\x00\x00\x00\x01"
                    + b"\x00\x00\x00\x33"
                    + _bytes(40, 5)
                ).decode(),
            )
            + "\nEOF\n",
        ),
    ],
)
def test_a_key_block_holding_only_a_keys_start_is_not_reported(name: str, text: str) -> None:
    assert _found(name, text, "PS001") == []


@pytest.mark.parametrize(
    ("name", "text"),
    [
        # a whole key in a YAML block
        ("config.yaml", "tls:\n  key: |\n    " + _pem("PRIVATE KEY", _der_body(1190, 3), "\n    ") + "\n"),
        # a whole key in a JSON string with \n escapes (a service account's file)
        ("sa.json", '{"private_key": "' + _pem("PRIVATE KEY", _der_body(1190, 4), "\\n") + '\\n"}\n'),
        # a whole key in JavaScript, joined from strings: the stray characters do not hide it
        (
            "key.js",
            "const k = '" + _pem("RSA PRIVATE KEY", _der_body(600, 6), "\\n' +\n  '") + "';\n",
        ),
        # an encrypted PEM: headers, not judged
        (
            "enc.pem",
            "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,0A1B2C3D4E5F60718293A4B5C6D7E8F9\n\n"
            + _EC_HEADER
            + "\n-----END RSA PRIVATE KEY-----\n",
        ),
        # a key with no last line in reach (cut by the file): not judged
        ("k.txt", "-----BEGIN PRIVATE KEY-----\n" + _EC_HEADER + "\n"),
    ],
)
def test_a_whole_key_and_what_cannot_be_judged_stay_findings(name: str, text: str) -> None:
    assert [severity for _, severity in _found(name, text, "PS001")] == ["high"]


def test_a_whole_openssh_key_is_a_finding() -> None:
    """Its fixed opening repeats ``A`` (``...bm9uZQAAAAAAAAABAAAAMwAAAAtz``), which the test for
    placeholder material took for one: every unencrypted OpenSSH key was missed before."""
    public = b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20" + _bytes(32, 8)
    private = _bytes(144, 9)
    data = (
        b"openssh-key-v1\x00"
        + b"\x00\x00\x00\x04none\x00\x00\x00\x04none\x00\x00\x00\x00\x00\x00\x00\x01"
        + len(public).to_bytes(4, "big")
        + public
        + len(private).to_bytes(4, "big")
        + private
    )
    text = _pem("OPENSSH PRIVATE KEY", base64.b64encode(data).decode()) + "\n"
    assert [severity for _, severity in _found("deploy.yaml", "key: |\n  " + text.replace("\n", "\n  "), "PS001")] == [
        "high"
    ]
    cut = _pem("OPENSSH PRIVATE KEY", base64.b64encode(data[:-60]).decode()) + "\n"
    assert _found("deploy.yaml", "key: |\n  " + cut.replace("\n", "\n  "), "PS001") == []


# ---- 2. a namespaced identifier under a key's name ----------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        'decision_key: "AUTO:ActionCandidate.roadmap:proposed_only"',
        "event_key: billing:invoice:paid",
        "lockKey: jobs:nightly-sync:lock",
        'flagKey: "urn:acme:feature_flag.dark_mode"',
        "routeKey: api:v2:users",
    ],
)
def test_a_namespaced_identifier_under_a_keys_name_is_not_reported(line: str) -> None:
    assert _found("settings.yaml", f"app:\n  {line}\n", "PS002") == []


@pytest.mark.parametrize(
    "line",
    [
        "api_key: admin:s3cret",  # a pair: may be a login
        "api_key: acme:live:yWAcqGFzYtEwLnGisiWgNZqITZMjtgUe",  # random letters of mixed case
        "api_key: acme:live:zjob8k2m9xq3pl7wn5vt4r",  # a generator's letters and digits
        "api_key: acme:live:key2024",  # four digits in a row
        "password: red:green:blue",  # a password's name: a word is a (weak) password
    ],
)
def test_look_alikes_of_a_namespaced_identifier_stay_findings(line: str) -> None:
    assert [severity for _, severity in _found("settings.yaml", f"app:\n  {line}\n", "PS002")] == ["medium"]


# ---- 4. a live-looking vendor key in a file named as an example ---------------------------------

_CHAKRA = "chakra-zjob8k2m9xq3pl7wn5vt4rc6hd"  # a vendor's prefix, then letters and digits mixed
_MIXED = "acme_live_yWAcqGFzYtEwLnGisiWgNZqITZMj"  # a vendor's prefix, then random letters


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (".env.example", f"CHAKRA_API_KEY={_CHAKRA}\n"),
        (".example.env.local", f"# the assistant's key\nACME_API_KEY={_MIXED}\nDEBUG=1\n"),
        ("config/.env.sample", f'CHAKRA_TOKEN="{_CHAKRA}"\n'),
        ("settings.example.yaml", f"acme:\n  apiKey: {_MIXED}\n"),
        ("config.sample.json", f'{{"acme": {{"api_key": "{_CHAKRA}"}}}}\n'),
        (".env.example", "TOSS_SECRET_KEY=live_sk_zXLkKEypNArWmo50nX3lmeaxYG5R\n"),  # the live mode's
    ],
)
def test_a_live_looking_vendor_key_in_an_example_file_is_reported(name: str, text: str) -> None:
    found = [f for f in lint_text(name, text) if f.rule == "PS002"]
    assert [f.severity for f in found] == ["medium"]
    assert "live-looking key in a file named as an example" in found[0].message


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (".env.example", "CHAKRA_API_KEY=chakra-your-key-here\n"),  # a placeholder
        (".env.example", "CHAKRA_API_KEY=chakra-xxxxxxxxxxxxxxxxxxxxxxxx\n"),  # a run of one letter
        (".env.example", "ACME_API_KEY=acme_0123456789abcdefghijklmn\n"),  # counting
        (".env.example", "ACME_API_KEY=acme_live_ExampleKeyForTheDocsOnly\n"),  # words, not random
        (".env.example", "DB_PASSWORD=postgres\nSECRET_KEY=changeme\n"),  # words: an example's business
        (".env.example", f"NEXT_PUBLIC_CHAKRA_KEY={_CHAKRA}\n"),  # public by design
        (".env.example", "ACME_API_KEY=zjob8k2m9xq3pl7wn5vt4rc6hd\n"),  # no vendor's prefix
        # a test mode's key (the vendor's documented sandbox keys, TossPayments' among them)
        (".env.example", "TOSS_SECRET_KEY=test_sk_zXLkKEypNArWmo50nX3lmeaxYG5R\n"),
        (".env.example", "PAY_SECRET_KEY=sk_test_yWAcqGFzYtEwLnGisiWgNZqITZMj\n"),
        (".env.example", "ACME_TOKEN=sandbox-zjob8k2m9xq3pl7wn5vt4rc6hd\n"),
        # an example folder holds test keys on purpose: left out as before
        ("examples/.env.example", f"CHAKRA_API_KEY={_CHAKRA}\n"),
        ("tests/fixtures/.env.sample", f"CHAKRA_API_KEY={_CHAKRA}\n"),
        # the known format's own rule: PS001, not both
        (".env.example", "GITHUB_TOKEN=ghp_kJ8mN2pQ4rS6tU8vW0xY2zA4bC6dE8fG0hI2\n"),
    ],
)
def test_placeholders_and_other_places_stay_quiet(name: str, text: str) -> None:
    assert _found(name, text, "PS002") == []


def test_the_same_key_outside_an_example_file_is_reported_as_before() -> None:
    assert _found(".env", f"CHAKRA_API_KEY={_CHAKRA}\n", "PS002") == [(1, "medium")]
    found = [f for f in lint_text(".env", f"CHAKRA_API_KEY={_CHAKRA}\n") if f.rule == "PS002"]
    assert "example" not in found[0].message


# ---- 5. a random key of small letters alone ------------------------------------------------------


def _small_letters(length: int, seed: int) -> str:
    chooser = random.Random(seed)
    return "".join(chooser.choice(string.ascii_lowercase) for _ in range(length))


@pytest.mark.parametrize("value", [_small_letters(32, 7), "acme-" + _small_letters(40, 10), "qzvkmbtrwhplxdnfgcjsybqt"])
def test_a_random_key_of_small_letters_is_reported(value: str) -> None:
    assert _found("settings.yaml", f"acme:\n  api_key: {value}\n", "PS002") == [(2, "medium")]


@pytest.mark.parametrize(
    "value",
    [
        "supersecretpasswordforthedatabase",  # words run together: vowels
        "internationalizationframework",
        "abcdefghijklmnopqrstuvwxyz",  # counting the alphabet
        "zyxwvutsrqponmlkjihgfedcba",
        "bcdfghjklmnpqrstvwxzbcdfghjk",  # counting, with the vowels left out
        "kbbbbbbbbbbbbbbbbbbbbbbbbbbb",  # few letters
        "qzvkmbtrwhplxdnfgc",  # shorter than 24 letters: read as a name
        "soccer_germany_bundesliga",  # words joined by ``_``
    ],
)
def test_words_and_made_up_small_letters_stay_quiet(value: str) -> None:
    assert _found("settings.yaml", f"acme:\n  api_key: {value}\n", "PS002") == []
