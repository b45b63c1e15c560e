"""Finding credentials in text and in key/value pairs, shared by the secret-bearing families.

``find_tokens`` tries the credential formats of :mod:`sandkit.credentials` only where their
literal hints occur in the text, all found in one pass (a format's pattern starts with ``\b``,
which keeps the regular expression engine from skipping ahead to a prefix by itself), then drops
matches that are documentation or templates rather than credentials: placeholder words and runs,
bodies with a single character class, counting sequences, the jwt.io sample token, public
Supabase ``anon`` JWTs, key blocks with no key material after them, and URLs whose password is a
stand-in.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from sandkit.credentials import TOKEN_HINTS, TOKEN_LEADS, TOKEN_LOCATORS, TOKEN_PATTERNS, is_placeholder, is_secret_key
from sandkit.lazy_regex import AnyPattern, lazy
from sandkit.lint import kinds
from sandkit.lint.source import NOT_PLAIN, SourceFile
from sandkit.lint.syntax.helm import TEMPLATE_VALUE
from sandkit.lint.syntax.tree import PMap, Pos, PSeq
from sandkit.literal_search import LiteralSet

_UUID = lazy(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_KEY_MATERIAL = lazy(r"[A-Za-z0-9+/=]{40,}")
#: Every format's hints but those found by a locator, searched together, and the formats (their
#: places in TOKEN_PATTERNS) each hint can start.
_HINTS = LiteralSet([hint for kind, hints in TOKEN_HINTS.items() if kind not in TOKEN_LOCATORS for hint in hints])
_FORMATS_OF_HINT: dict[str, list[int]] = {
    hint: [number for number, (kind, _) in enumerate(TOKEN_PATTERNS) if hint in TOKEN_HINTS[kind]]
    for hint in _HINTS.literals
}
_LOCATED = frozenset(number for number, (kind, _) in enumerate(TOKEN_PATTERNS) if kind in TOKEN_LOCATORS)
_SEQUENCES = ("abcdefgh", "bcdefghi", "12345678", "23456789", "qwertyui", "ABCDEFGH")
_MIXED_KINDS = frozenset(
    {
        "GitHub token",
        "GitHub fine-grained token",
        "GitLab token",
        "Stripe secret key",
        "Anthropic API key",
        "OpenAI API key",
        "Google API key",
        "Google OAuth client secret",
        "npm token",
        "Hugging Face token",
        "Docker Hub token",
        "SendGrid API key",
        "AWS access key ID",
        "PyPI token",
        "Slack token",
        "Slack app-level token",
    }
)
_PREFIX = lazy(
    r"^(?:[a-z]{2,6}_(?:pat_)?|github_pat_|gl[a-z]{2,5}-|xox[a-z]-|xapp-|[sr]k_live_|"
    r"sk-(?:ant-(?:api\d\d-|admin\d\d-)?|proj-|svcacct-|admin-)?|AIza|GOCSPX-|"
    r"npm_|hf_|dckr_pat_|SG\.|pypi-|A[KSBC][IC]A)"
)


#: Passwords that documentation writes in connection URLs; a real one is not a word and a number.
_STAND_IN_PASSWORDS = frozenset(
    {"password", "passw0rd", "secret", "pass", "pwd", "admin", "root", "test", "user", "guest", "postgres", "mysql"}
)


class Token(NamedTuple):
    kind: str
    start: int
    end: int
    text: str

    @property
    def shown(self) -> str:
        """The token with all but its first characters hidden, for messages."""
        head = self.text[: min(8, max(len(self.text) // 4, 3))]
        return f"{head}…"


def find_tokens(text: str) -> Iterator[Token]:
    """Credential-format matches in ``text`` that look real (see the module docstring)."""
    taken: list[tuple[int, int]] = []
    for kind, pattern, starts in _format_starts(text):
        for match in hinted_matches(pattern, text, starts, TOKEN_LEADS.get(kind, (0, 0))):
            token = Token(kind, match.start(), match.end(), match.group())
            if any(s < token.end and token.start < e for s, e in taken):
                continue  # a more specific format matched here first (Anthropic before OpenAI)
            if _plausible(token, text):
                taken.append((token.start, token.end))
                yield token


def _format_starts(text: str) -> Iterator[tuple[str, AnyPattern, list[int]]]:
    """Each format whose hints occur in ``text``, in TOKEN_PATTERNS' order, with the offsets of
    its hints (or of its locator's matches); all hints are found in one pass."""
    by_hint: dict[str, list[int]] = {}
    for index, at in _HINTS.occurrences(text):
        by_hint.setdefault(_HINTS.literals[index], []).append(at)
    held = {number for hint in by_hint for number in _FORMATS_OF_HINT[hint]}
    for number in sorted(held.union(_LOCATED)):
        kind, pattern = TOKEN_PATTERNS[number]
        locator = TOKEN_LOCATORS.get(kind)
        if locator is not None:
            starts = [match.start() for match in locator.finditer(text)]
        else:
            hints = [by_hint[hint] for hint in TOKEN_HINTS[kind] if hint in by_hint]
            starts = hints[0] if len(hints) == 1 else sorted({at for offsets in hints for at in offsets})
        if starts:
            yield kind, pattern, starts


def tokens_of(file: SourceFile) -> list[Token]:
    """:func:`find_tokens` of the file's text, searched once for every rule that asks."""
    return file.memo("credential_tokens", lambda: list(find_tokens(file.text)))


def hinted_matches(
    pattern: AnyPattern, text: str, hinted: Iterable[int], lead: tuple[int, int] = (0, 0)
) -> Iterator[re.Match[str]]:
    """The matches ``pattern.finditer(text)`` yields, tried only at the ``hinted`` offsets
    (increasing: where the format's hints occur).

    Every match holds a hint after between ``lead[0]`` and ``lead[1]`` characters, and no earlier
    occurrence of it (for a lead of zero: every match starts with a hint). The hints are found by
    one search for all formats' hints, so a large file without them costs one pass, and a file
    with them one anchored match per occurrence.
    """
    fewest, most = lead
    resume = tried = 0  # finditer resumes after each match; a start is tried once
    for at in hinted:
        for start in range(max(resume, tried, at - most), at - fewest + 1):
            match = pattern.match(text, start)
            if match is not None:
                yield match
                resume = match.end()
                break
        tried = max(tried, at - fewest + 1)


def find_configured(text: str, sources: tuple[str, ...]) -> Iterator[Token]:
    """Matches of the configuration's ``extra-secret-patterns`` (invalid ones are skipped)."""
    for index, source in enumerate(sources):
        configured = _compiled(source)
        if configured is None:
            continue
        for match in configured.finditer(text):
            if match.end() > match.start():
                yield Token(f"configured secret pattern {index + 1}", match.start(), match.end(), match.group())


_EXTRA: dict[str, re.Pattern[str] | None] = {}


def _compiled(source: str) -> re.Pattern[str] | None:
    if source not in _EXTRA:
        try:
            _EXTRA[source] = re.compile(source)
        except re.error:
            _EXTRA[source] = None
    return _EXTRA[source]


def _plausible(token: Token, text: str) -> bool:
    kind, value = token.kind, token.text
    if kind == "private key block":
        data = _key_body(text, token.end)
        if data is not None and data.startswith(_OPENSSH_MAGIC):
            # an OpenSSH key's fixed opening (``b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE...``) repeats ``A``:
            # judged by its fields and by the random bytes of its private section instead
            return not _openssh_cut_short(data) and _random_looking(_base64_text(data[-80:-16]))
        material = _KEY_MATERIAL.search(text, token.end, token.end + 400)
        if material is None or not _random_looking(material.group()):
            return False
        declared = None if data is None else _der_length(data)
        return declared is None or declared <= len(data or b"") + 8  # more declared than there: a key's start
    if _PLACEHOLDER_CONTEXT.search(text, max(0, token.start - 40), token.start):
        return False  # the value of a placeholder= / example: attribute, shown to people as a sample
    if kind == "JSON Web Token":
        return _real_jwt(value)
    if text[token.end : token.end + 3] in ("...", "…") or text[token.end : token.end + 1] == "…":
        return False  # shown truncated: documentation of a format, not a credential
    if kind == "URL with a password":
        user, _, password = value.split("://", 1)[1].rstrip("@").partition(":")
        password = password.lstrip("\\")  # an escaped reference (``git:\\$TOKEN@``) is still a reference
        weak = password.lower() in _STAND_IN_PASSWORDS or re.fullmatch(r"(?i)[a-z]{1,8}\d{1,4}|\d{1,8}", password)
        if _commented_example(text, token.start, password):
            return False
        return not (
            len(password) < 4
            or _echoes_user(user, password)
            or is_placeholder(password)
            or weak
            or _field_name(user, password)
            or _CAPITALS_PLACEHOLDER.fullmatch(password)
        )
    if re.search(r"(?i)example|x{6}|0{8}|fake|dummy|redacted|test_?key", value):
        return False
    if published_key(value):
        return False
    if kind in _MIXED_KINDS:
        body = _PREFIX.sub("", value, count=1)
        if re.search(r"[a-z]{4,}-[a-z]{4,}", body):
            return False  # words joined by hyphens ("proxy-managed"): a sentinel, not random key material
        classes = sum(bool(re.search(c, body)) for c in ("[a-z]", "[A-Z]", "[0-9]"))
        if classes < 2 or any(seq in body for seq in _SEQUENCES) or re.search(r"(.)\1{5}|(\d{3,})\W\2\b", body):
            return False  # one class, a counting run, a repeated character, or a repeated group (xoxb-1234-1234-...)
    return True


#: A password in capitals made of words joined by ``_`` (``STRONG_DB_PASSWORD``, ``YOUR_PASSWORD``,
#: ``CHANGE_ME``): a slot to fill in, as a capitals value is for a secret-named key (PS002).
_CAPITALS_PLACEHOLDER = lazy(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")


def _echoes_user(user: str, password: str) -> bool:
    """The password is the URL's user name, maybe in leetspeak (``postgres:p0stgr3s@``): the
    service's default account written out, not a credential someone chose."""
    if not user:
        return False
    return password == user or password.lower().translate(_LEET) == user.lower().translate(_LEET)


#: Words documentation builds a sample password of (``supersecretpassword``, ``T0pS3cr3t``, ``MyStrongPass``).
_STAND_IN_PIECES = frozenset(
    {
        "super", "top", "secret", "secure", "password", "passwd", "pass", "pwd", "word", "my", "your", "some",
        "very", "strong", "long", "changeme", "change", "me", "admin", "root", "test", "example", "dummy",
        "fake", "sample", "default", "foo", "bar", "baz", "qwerty", "letmein", "hunter", "the", "user",
    }
)  # fmt: skip
_LEET = str.maketrans("0134$@5", "oieasas")
#: A comment's start; ``--`` and ``*`` only with a space after them, so a command's option on a
#: continued line (``  --env URL=...``) is not read as an SQL comment.
_COMMENT_LINE = lazy(r"\s*(?://|/\*|\*\s|#|--\s|;|<!--)")
_EXAMPLE_MARK = lazy(r"(?i)\be\.?g\b|\bexample\b|for instance|such as|\busage\b")


def _stand_in_words(password: str) -> bool:
    """The password (read past leetspeak: ``T0pS3cr3t`` is "topsecret") is made only of the words
    documentation builds a sample password of."""
    flat = password.lower().translate(_LEET)
    if not flat.isalpha() or len(flat) > 64:
        return False
    reach = [True] + [False] * len(flat)  # reach[i]: flat[:i] splits into stand-in pieces
    for end in range(1, len(flat) + 1):
        reach[end] = any(reach[start] and flat[start:end] in _STAND_IN_PIECES for start in range(max(0, end - 14), end))
    return reach[-1]


def _commented_example(text: str, start: int, password: str) -> bool:
    """A credential URL on a comment line that documents one: the line says it is an example
    before the URL (``# e.g. --routes=...`` then a URL with ``ruser:T0pS3cr3t``), or the password is
    made of sample words (``# export URL=https://elastic:supersecretpassword@...``). A commented
    URL with a real-looking password stays: it may be a live one commented out."""
    line_start = _line_start(text, start)
    if line_start < 0 or not _COMMENT_LINE.match(text, line_start):
        return False
    return bool(_EXAMPLE_MARK.search(text, line_start, start)) or _stand_in_words(password)


#: What sits beside a Firebase web app's configuration (``authDomain``, ``messagingSenderId``, the
#: project's ``*.firebaseapp.com``), in any case style; and a Maps JavaScript API script URL.
_FIREBASE_CONFIG = lazy(
    r"(?i)auth_?domain|messaging_?sender_?id|measurement_?id|firebaseapp\.com|firebaseio\.com|firebasestorage\.app"
)
_FIREBASE_NAME = lazy(r"(?i)firebase\w{0,40}[\"']?\s*[:=]\s*[\"'`]?$")
_MAPS_SCRIPT = lazy(r"(?i)maps\.googleapis\.com/maps/api/js\?[^\s\"'<>]{0,200}\bkey=$")
_CONFIG_REACH = 600  # characters either side of a key searched for the rest of its web config


def public_by_design(text: str, token: Token) -> str | None:
    """Why a credential-format match is a key its vendor publishes to every browser, or None.

    A Google API key in a Firebase web app's configuration (``apiKey`` beside ``authDomain``,
    ``messagingSenderId``, or under a ``FIREBASE_*`` name) or in a Maps JavaScript API script URL
    identifies the project to Google and ships in the page's code; what guards it is the key's
    restrictions (HTTP referrers, APIs) set in the cloud console, not its secrecy."""
    if token.kind != "Google API key":
        return None
    before = text[max(0, token.start - 200) : token.start]
    if _FIREBASE_NAME.search(before) or _FIREBASE_CONFIG.search(
        text, max(0, token.start - _CONFIG_REACH), token.end + _CONFIG_REACH
    ):
        return (
            "a Firebase web app's API key: public by design, it ships to every browser; restrict it by referrer and API"
        )
    if _MAPS_SCRIPT.search(before):
        return "a Maps JavaScript API key: public by design, it ships to every browser; restrict it by referrer and API"
    return None


def short_lived(token: Token) -> str | None:
    """Why a credential-format match names a credential that expires by itself or has expired, or None.

    An AWS access key ID that starts ``ASIA`` is the ID of temporary credentials that STS issued
    (an assumed role's, a session token's): they stop working within hours, a day and a half at
    the most, so one committed is almost always dead by the time anyone reads it. ``AKIA`` keys
    are long-term and stay reported as they are. A JSON Web Token whose ``exp`` claim has passed
    (compared with the clock of the run) is refused by every verifier that checks expiry."""
    if token.kind == "AWS access key ID" and token.text.startswith("ASIA"):
        return "an AWS STS session's temporary key (ASIA…), which expires within hours, 36 at the most"
    if token.kind == "JSON Web Token":
        return _expired_jwt(token.text)
    return None


def _expired_jwt(value: str, now: float | None = None) -> str | None:
    """Why a JSON Web Token is no credential any more: its payload's ``exp`` (seconds since the
    epoch, RFC 7519) has passed. A token with no ``exp``, an ``exp`` to come or one that is not a
    number stays a credential."""
    import time  # only for a JSON Web Token: off a pre-commit run's path

    parts = value.split(".")
    payload = _b64json(parts[1]) if len(parts) >= 3 else None
    expires = payload.get("exp") if isinstance(payload, dict) else None
    if isinstance(expires, bool) or not isinstance(expires, (int, float)) or expires != expires:
        return None  # no number (``true``, a string, NaN): nothing says when it stops
    if expires >= (time.time() if now is None else now):
        return None
    when = time.strftime("%Y-%m-%d", time.gmtime(max(0.0, min(float(expires), 253402300799.0))))
    return f"a JSON Web Token whose exp claim passed on {when}: it no longer authenticates"


#: A name that says its value is a stand-in (``TEST_FAKE_RSA_KEY_2``, ``fakeToken``, ``dummy-secret``),
#: split into words at ``_``, ``-`` and case changes.
_FIXTURE_WORDS = frozenset(
    {"test", "tests", "fake", "dummy", "mock", "example", "sample", "stub", "fixture", "fixtures"}
)
#: The end of a binding, right before its value: ``NAME = "``, ``const NAME: &str = "``, ``NAME: '``,
#: ``val NAME = """``, ``"NAME": "``; the name is group 1.
_BINDING = lazy(
    r"""([A-Za-z_][\w-]{0,80})["']?\s*(?::\s*[^=:\n"'`]{0,40})?\s*(?::=|=>|=|:)\s*"""
    r"""(?:[rbuf]?#*["'`]{1,3}|@["']|\(\s*["'`])?\s*$"""
)
#: Program source files, whose comments document code (``// const pkcs8 = `-----BEGIN ...``).
_SOURCE_SUFFIXES = (
    ".py", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".go", ".rs", ".java", ".kt", ".kts", ".scala",
    ".cs", ".fs", ".vb", ".rb", ".php", ".c", ".h", ".cc", ".cpp", ".hpp", ".m", ".swift", ".dart",
    ".groovy", ".ex", ".exs", ".lua", ".pl", ".r", ".jl", ".zig",
)  # fmt: skip
_COMMENT_LEAD = lazy(r"\s*(?://|/\*|\*|#|--|;|<!--)")


def _name_words(name: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", name)}


_LOOK_BACK = 200  # characters before a value searched for its name: bounded, so a huge line costs no more


def _line_start(text: str, at: int) -> int:
    """Where the line holding ``at`` starts, or -1 when that is more than _LOOK_BACK back."""
    low = max(0, at - _LOOK_BACK)
    newline = text.rfind("\n", low, at)
    return newline + 1 if newline >= 0 else (0 if low == 0 else -1)


#: Where a Rust file's test module begins (``#[cfg(test)] mod tests {``): by convention it runs to
#: the end of the file, so everything after it is test code.
_RUST_TEST_MODULE = lazy(r"#\[cfg\(test\)\]\s*(?:#\[[^\]\n]*\]\s*)*(?:pub(?:\([\w:]*\))?\s+)?mod\s+\w+\s*\{")


def _rust_tests_from(file: SourceFile) -> int:
    """The offset where the file's first Rust test module starts, or -1."""

    def find() -> int:
        if not file.path.endswith(".rs") or "cfg(test)" not in file.text:
            return -1
        match = _RUST_TEST_MODULE.search(file.text)
        return match.start() if match else -1

    return file.memo("rust_test_module", find)


def sample_context(file: SourceFile, start: int) -> tuple[str, bool] | None:
    """Why a credential at ``start`` is likely a stand-in by where it is written, and whether it is
    a test's (True: left out like a test folder's) or documentation's (False: reported low); None
    when nothing says so.

    Tests': the value of a binding whose name says it is a stand-in (``const TEST_FAKE_RSA_KEY_2:
    &str = "-----BEGIN ...``, ``FAKE_PAT = "ghp_..."``, ``testPrivateKey:``), looked for on the
    token's line and, when the value starts its own line, on the line before; and a Rust file's
    test module. Documentation's: a comment of program source (``* const pkcs8 = `-----BEGIN
    ...``, ``# https://hooks.slack.com/services/...``), which documents the code but may also be a
    real credential someone commented out, so it stays a (low) finding.
    """
    text, path = file.text, file.path
    tests = _rust_tests_from(file)
    if 0 <= tests < start:
        return "in a Rust test module (#[cfg(test)])", True
    line_start = _line_start(text, start)  # -1: the line starts too far back to matter
    before = text[max(line_start, start - _LOOK_BACK) : start]
    if line_start > 0 and not before.strip(" \t\"'`+("):
        previous = max(_line_start(text, line_start - 1), line_start - 1 - _LOOK_BACK)
        before = text[previous : line_start - 1] + " " + before.strip()
    binding = _BINDING.search(before)
    if binding is not None and _name_words(binding.group(1)) & _FIXTURE_WORDS:
        return f"the value of {binding.group(1)}, named as a test or sample value", True
    if line_start >= 0 and path.lower().endswith(_SOURCE_SUFFIXES) and _COMMENT_LEAD.match(text, line_start):
        return "in a comment of program source, usually a documented example", False
    return None


#: Build-time settings front-end frameworks inline into the code they send to every browser
#: (Next.js, Vite, Create React App, Nuxt, Expo, SvelteKit): public by design, such as an analytics
#: key or a Supabase anon key. One that still says SECRET, PASSWORD or PRIVATE is a mistake and stays.
_PUBLIC_CLIENT = lazy(r"(?i)(?:NEXT_PUBLIC|VITE|REACT_APP|NUXT_PUBLIC|EXPO_PUBLIC|PUBLIC)_\w+")
_NOT_PUBLIC = lazy(r"(?i)secret|passw|private|pwd")


def public_client_setting(name: str) -> bool:
    """``NEXT_PUBLIC_POSTHOG_KEY``, ``VITE_FIREBASE_API_KEY``: a front-end setting, public by design."""
    return _PUBLIC_CLIENT.fullmatch(name) is not None and _NOT_PUBLIC.search(name) is None


#: Keys their vendors publish for local emulators, the same in every installation and printed in
#: the vendor's documentation: the storage emulator's (Azurite, ``AccountName=devstoreaccount1``)
#: and the Azure Cosmos DB emulator's. They open nothing but an emulator, whose key every reader of
#: those pages knows; whether the emulator is reachable is another question than a leak.
_PUBLISHED_KEYS = (
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
    "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==",
)


def published_key(text: str) -> bool:
    """``text`` holds an emulator's published key (see ``_PUBLISHED_KEYS``)."""
    return any(known in text for known in _PUBLISHED_KEYS)


#: Text right before a value that marks it a sample: ``placeholder: "sk-..."``, ``placeholder="..."``,
#: ``example: ...``, ``e.g. ...``, ``e.g., ...``, ``eg ...``, ``such as ...``.
_PLACEHOLDER_CONTEXT = lazy(
    r"(?i)(?:placeholder|example|\be\.?g\b\.?|for instance|such as|hint)[\"']?\s*[,:=]?\s*[\"'`]?$"
)
#: Words that name a credential field rather than hold one (``twilio://AccountSid:AuthToken@``).
_FIELD_WORDS = lazy(
    r"(?i)(?:my|your|the)?_?(?:pass(?:word)?|pwd|secret|(?:auth_?|access_?|api_?)?token|api_?key|key|auth|sid|webhook)"
)
_STAND_IN_USERS = frozenset({"user", "username", "me", "myuser", "myemail", "email", "login", "name", "someone"})


def _field_name(user: str, password: str) -> bool:
    """A URL's password that documents where a credential goes rather than being one: a format
    field (``{apikey}``, ``<token>``, ``[secret]``), the name of a field (``AuthToken``,
    ``JWTToken``, ``mypassword``, ``api_key``), or a plain word after a stand-in user
    (``user:webhook@``)."""
    if re.search(r"[{}<>\[\]]", password):
        return True
    if not re.fullmatch(r"[A-Za-z_]+", password):
        return False
    camel = (
        re.fullmatch(r"(?:[A-Z][a-z]+|[A-Z]{2,}(?=[A-Z][a-z]|$))+", password)
        and len(re.findall("[A-Z]", password)) >= 2
    )
    return bool(camel or _FIELD_WORDS.fullmatch(password) or user.lower() in _STAND_IN_USERS)


#: A private key block whose body, decoded, declares more bytes than it holds (an ASN.1 ``SEQUENCE``
#: whose length runs past the end, an OpenSSH key whose fields do) holds only the beginning of a
#: key: a recogniser's test string (``-----BEGIN PRIVATE KEY-----\\nMIGTAgEAMBMG...``) or a key
#: shown cut short. No key can be read from it.
_BLOCK_REACH = 20_000  # characters after a key block's first line searched for its last
_BLOCK_END = lazy(r"-----END [A-Z0-9 ]{0,40}-----")
_OPENSSH_MAGIC = b"openssh-key-v1\x00"


def _key_body(text: str, start: int) -> bytes | None:
    """The decoded body of the key block whose first line ends at ``start``, or None when it cannot
    be judged: no last line (``-----END ...-----``) in reach, headers (``Proc-Type:``, an encrypted
    PEM's), or text that is not base64. ``\\n`` escapes of a string literal, quotes and commas
    between lines are dropped (a key kept in JSON, or joined from strings in code)."""
    end = _BLOCK_END.search(text, start, start + _BLOCK_REACH)
    if end is None:
        return None
    body = re.sub(r"\\[nr]", "", text[start : end.start()])
    if ":" in body:
        return None
    body = re.sub(r"[\s\"'`,]", "", body).rstrip("=")
    if not re.fullmatch(r"[A-Za-z0-9+/]{8,}", body):
        return None
    import base64  # only for a key block: off a pre-commit run's common path

    if len(body) % 4 == 1:
        body = body[:-1]  # a cut body may end one character into a group, which holds no whole byte
    return base64.b64decode(body + "=" * (-len(body) % 4))


def _base64_text(data: bytes) -> str:
    import base64  # only for an OpenSSH key block

    return base64.b64encode(data).decode()


def _der_length(data: bytes) -> int | None:
    """The whole length an ASN.1 ``SEQUENCE`` at the start of ``data`` declares (header included),
    or None when ``data`` does not start with one."""
    if len(data) < 2 or data[0] != 0x30:
        return None
    first = data[1]
    if first < 0x80:
        return 2 + first
    count = first & 0x7F
    if not 1 <= count <= 3 or len(data) < 2 + count:
        return None
    return 2 + count + int.from_bytes(data[2 : 2 + count], "big")


def _openssh_cut_short(data: bytes) -> bool:
    """An OpenSSH private key's fields (cipher, KDF, its options, the key count, the public key,
    the private section) each say how long they are: whether one runs past the end of ``data``."""
    at = len(_OPENSSH_MAGIC)
    for field in range(6):
        if field == 3:  # the number of keys: four bytes, no length
            at += 4
            continue
        if at + 4 > len(data):
            return True
        at += 4 + int.from_bytes(data[at : at + 4], "big")
        if at > len(data):
            return True
    return False


def _random_looking(material: str) -> bool:
    """Key material has all three character classes and no repeated word
    (``privatekeyprivatekey...`` and ``AAAAAAAA...`` are placeholders)."""
    classes = sum(bool(re.search(c, material)) for c in ("[a-z]", "[A-Z]", "[0-9]"))
    return classes >= 3 and not re.search(r"(.{3,16}?)\1{2,}", material)


def _b64json(part: str) -> object:
    import base64  # only for a value shaped like a JSON web token: off a pre-commit run's path
    import binascii
    import json

    try:
        raw = base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
        return json.loads(raw.decode("utf-8"))
    except (binascii.Error, ValueError, UnicodeDecodeError, RecursionError):  # nested too deep: no real token
        return None


def _real_jwt(value: str) -> bool:
    parts = value.split(".")
    if len(parts) < 3:
        return False
    header, payload = _b64json(parts[0]), _b64json(parts[1])
    if not isinstance(header, dict) or "alg" not in header or not isinstance(payload, dict):
        return False
    if payload.get("name") == "John Doe" or payload.get("sub") == "1234567890":
        return False  # the sample token of jwt.io and countless tutorials
    signature = parts[2]
    if len(signature) < 22 or (not _random_looking(signature) and re.fullmatch(r"[A-Za-z_-]+", signature)):
        return False  # no signature of 16 bytes or more, or plain words ("signature", "SIGNATURE_HERE")
    return payload.get("role") != "anon"  # Supabase anon keys are public by design


#: Lockfiles: every key is a package name ("path-key", "registry-auth-token") and every value a version.
LOCKFILES = frozenset(
    {
        "package-lock.json",
        "npm-shrinkwrap.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "bun.lock",
        "composer.lock",
        "cargo.lock",
        "poetry.lock",
        "uv.lock",
        "pdm.lock",
        "gemfile.lock",
        "go.sum",
        "deno.lock",
        "pipfile.lock",
    }
)
_VERSION = lazy(r"(?:npm:|workspace:)?[\^~<>=v]*\d+(?:\.[\dx*]+){1,3}(?:[-+.][\w.-]+)?(?:\s*\|\|.*)?")
# A key that names where a secret is kept (the key inside a Secret, the Secret's name), whose value
# is that name: adminPasswordKey: postgres-password, existingSecret: db-creds, auth-secret: ns/name.
_REFERENCE_NAME = lazy(r"(?i)(?:key|name|ref|secret|secrets|file|path|selector|field)$")
#: "existing" as a word of a key (``existingSecret``, ``existingSecretAdminPassword``,
#: ``existing_secret_password``, ``passwordExistingSecret``): Helm charts' convention for a key whose
#: value names a Secret (or ConfigMap) already in the cluster, which holds the credential.
_EXISTING = lazy(r"(?:^|[_.-])existing(?:[_.-]|$)")
_OBJECT_NAME = lazy(r"[a-z0-9](?:[a-z0-9._-]{0,251}[a-z0-9])?(?:/[a-z0-9](?:[a-z0-9._-]{0,251}[a-z0-9])?)?")
_PATTERN_CHARS = lazy(r"\\[dswbDSWB.]|\(\?|\[\^?[^\]]*\][*+?{]|\.\*|\{\d+(?:,\d*)?\}")
#: Folders and names of test fixtures and documentation examples (see :func:`is_example_path`).
_EXAMPLE_FOLDERS = frozenset(
    {
        "test",
        "tests",
        "testdata",
        "test_data",
        "test-data",
        "testing",
        "fixtures",
        "fixture",
        "__fixtures__",
        "__tests__",
        "__mocks__",
        "mocks",
        "mock",
        "spec",
        "specs",
        "e2e",
        "examples",
        "example",
        "samples",
        "sample",
        "demo",
        "demos",
        "docs",
        "doc",
        "documentation",
        "website",
        "tutorial",
        "tutorials",
        "snapshots",
        "integration",
        "stubs",
        "molecule",  # Ansible Molecule's test scenarios (``ssh.password: vagrant`` of the test boxes)
    }
)
_EXAMPLE_NAME = lazy(  # matched against the lowercased name: (?i) tripled its compile time
    r"(?:^test_|_test\.|\.test\.|\.spec\.|_spec\.|\.example$|\.sample$|\.dist$|\.template$|"
    r"(?:^|[_.-])(?:stub|mock|fake|dummy|fixture)s?[_.-]|^example|^tests?\.(?:rs|py)$|[_.-](?:example|sample|template)s?\.[a-z]{2,5}$|"
    r"\.md$|\.mdx$|\.rst$|\.adoc$|\.ipynb$)"
)


_FIXTURE_FOLDERS = frozenset(
    {"test", "tests", "testdata", "test_data", "test-data", "fixtures", "fixture", "__fixtures__", "__tests__"}
)


def is_fixture_path(path: str) -> bool:
    """A file under a test or fixture folder (not a documentation example, which people copy)."""
    return any(part in _FIXTURE_FOLDERS for part in path.lower().split("/")[:-1])


_TEST_SOURCE_SET = lazy(r"[a-z]+Tests?|test[A-Z][A-Za-z]*")


def is_example_path(path: str, *, any_part: bool = True) -> bool:
    """A test fixture, sample or documentation page: where credentials are usually fake on purpose
    (test folders, ``*.example.yml``, ``config-sample.json``, chart-testing's ``ci/*-values.yaml``).
    With ``any_part`` (the default) an example's word anywhere among the parts of the file's or a
    folder's name counts too (``.env.sample.prod``, ``env_examples/``); PS001 asks without it, so
    that a token in a known format there is still reported."""
    if any(_TEST_SOURCE_SET.fullmatch(part) for part in path.split("/")[:-1]):
        return True  # Gradle/Maven test source sets: src/androidTest, src/integrationTest, src/testFixtures
    parts = path.lower().split("/")
    if len(parts) >= 2 and parts[-2] == "ci" and parts[-1].endswith(("values.yaml", "values.yml")):
        return True  # chart-testing's install values (charts/NAME/ci/*-values.yaml): test input
    if len(parts) >= 4 and parts[-2] == "ci" and "charts" in parts[:-3] and parts[-1].endswith((".yaml", ".yml")):
        return True  # a chart collection's test scenarios under any name (charts/NAME/ci/tls.yaml)
    if any(_TEST_VALUES_FOLDER.fullmatch(part) for part in parts[:-1]) or _TEST_VALUES_NAME.fullmatch(parts[-1]):
        return True  # a chart's test input kept elsewhere: test-values/, ci-values.yaml, values-lint.yaml
    if any(part in _EXAMPLE_FOLDERS or (any_part and _example_words(part, "_.-")) for part in parts[:-1]):
        return True
    return bool(_EXAMPLE_NAME.search(parts[-1])) or (any_part and _example_words(parts[-1], ".-", template=True))


#: The words that call a file or folder an example of what to copy: ``.env.sample.prod``,
#: ``env_examples/``, ``config.example.yaml``; a file's name may say ``template`` too
#: (``env.template.docker``), a folder's may not (a chart's ``templates/`` is what it deploys).
_EXAMPLE_WORDS = frozenset({"example", "examples", "sample", "samples"})
_TEMPLATE_WORDS = frozenset({"template", "templates", "tmpl"})


def _example_words(part: str, separators: str, *, template: bool = False) -> bool:
    """Whether one of the parts of a file's or folder's name, split at ``separators``, is an
    example's word (anywhere among them: ``.env.sample.without_traefik``, ``sample.env``); a
    template's word counts after the first part only (``env.template.docker``, not
    ``templates.yaml``)."""
    words = [word for word in re.split(f"[{re.escape(separators)}]", part) if word]
    if any(word in _EXAMPLE_WORDS for word in words):
        return True
    return template and any(word in _TEMPLATE_WORDS for word in words[1:])


#: Folders and names of values files a chart is tested with, besides chart-testing's ``ci/``:
#: ``test-values/``, ``testvalues/``, ``ci-values/``; ``ci-values.yaml``, ``test-values-ha.yaml``,
#: ``lint-values.yaml``, ``values-ci.yaml``, ``values.e2e.yaml``. Not ``values-test.yaml``: "test" is
#: also an environment's name, whose values are deployed.
_TEST_VALUES_FOLDER = lazy(r"(?:tests?|ci|e2e|lint|unittests?)[-_]?values")
_TEST_VALUES_NAME = lazy(
    r"(?:[\w.-]*[-_.])?(?:tests?|ci|e2e|lint)[-_.]values?(?:[-_.][\w.-]*)?\.ya?ml|values?[-_.](?:ci|e2e|lint)(?:[-_.][\w.-]*)?\.ya?ml"
)


#: Folders that hold message catalogues (translations, i18n strings), and the names such files take
#: (``de.json``, ``pt-BR.yml``, ``messages.fr.json``, ``strings_ja.json``, ``messages_de.properties``).
_CATALOGUE_FOLDERS = frozenset(
    {
        "locale",
        "locales",
        "i18n",
        "l10n",
        "lang",
        "langs",
        "languages",
        "translations",
        "translation",
        "messages",
        "intl",
    }
)
_CATALOGUE_NAME = lazy(
    r"(?:[a-z]{2,3}(?:[-_][A-Za-z]{2,4}){0,2}|(?:messages|strings|translations?|locale|lang)(?:[._-][A-Za-z]{2,3}(?:[-_][A-Za-z]{2,4}){0,2})?"
    r"|.+[._][a-z]{2}(?:[-_][A-Z]{2})?)\.(?:json|ya?ml|toml|properties)"
)
#: The kinds a catalogue has: data files that no consumer of configuration claims by name or content.
_UNCLAIMED_KINDS = frozenset({kinds.YAML, kinds.JSON, kinds.TOML, kinds.TEXT})
_PROSE_SAMPLE = 400  # string values looked at to tell a catalogue from configuration


def is_message_catalogue(path: str, data: object) -> bool:
    """A translation or message catalogue: named or kept like one, with natural-language values.

    Its secret-named keys (``"password": "Passwort"``, ``"api_token": "APIトークン"``) are labels
    shown to people, never credentials. The name alone is not enough (a ``lang/`` folder can hold
    a tool's configuration): most of the file's string values must be prose as well (see
    :func:`is_natural_language`). ``data`` is the parsed file (a document or a list of them).
    """
    parts = path.split("/")
    if not ({part.lower() for part in parts[:-1]} & _CATALOGUE_FOLDERS or _CATALOGUE_NAME.fullmatch(parts[-1])):
        return False
    strings = _strings(data, _PROSE_SAMPLE)
    return len(strings) >= 3 and 2 * sum(map(_label, strings)) >= len(strings)


_TITLE_WORDS = lazy(r"[A-Z][a-z]+(?:[- ][A-Za-z][a-z]*)*[.!?:…]?")


def _label(text: str) -> bool:
    """Text a catalogue shows: prose, or a capitalised word or two (``Passwort``, ``API-Token``
    is not one, ``Log out`` is); configuration holds identifiers, numbers, paths and addresses."""
    return is_natural_language(text) or bool(_TITLE_WORDS.fullmatch(text.strip()))


def catalogue_file(file: SourceFile) -> bool:
    """Whether ``file`` is a message catalogue (see :func:`is_message_catalogue`): JSON, YAML or
    TOML strings, or a Java-style ``messages_de.properties`` bundle. Decided once per file.

    Only a file no consumer claims can be one: a workflow named ``ci.yml`` or a Compose file
    whose strings read as prose (step names, descriptions) is configuration, whatever its name.
    """
    if file.kind not in _UNCLAIMED_KINDS:
        return False

    def build() -> bool:
        if file.syntax in ("json", "yaml", "toml"):
            top = file.plain_json if file.syntax == "json" else NOT_PLAIN
            return is_message_catalogue(file.path, file.documents if top is NOT_PLAIN else top)
        if not file.path.lower().endswith(".properties"):
            return False
        values = [line.partition("=")[2].strip() for line in file.text.splitlines()[:_PROSE_SAMPLE] if "=" in line]
        return is_message_catalogue(file.path, values)

    return file.memo("message_catalogue", build)


def _strings(data: object, most: int) -> list[str]:
    """Up to ``most`` string values of ``data``, breadth first (bounded: catalogues are large)."""
    found: list[str] = []
    queue: list[object] = [data]
    while queue and len(found) < most and len(queue) < 50_000:
        node = queue.pop(0) if len(queue) < 64 else queue.pop()
        if isinstance(node, dict):
            queue.extend(node.values())
        elif isinstance(node, list):
            queue.extend(node)
        elif isinstance(node, str) and node.strip():
            found.append(node)  # an empty string is an entry nobody translated yet: it says nothing
    return found


def is_natural_language(text: str) -> bool:
    """Text for people: words with spaces between them, or letters outside ASCII (``Passwort``
    passes as neither; ``Contraseña``, ``パスワード`` and ``Show password`` are prose)."""
    stripped = text.strip()
    return bool(stripped) and (" " in stripped or any(ord(c) > 127 and c.isalpha() for c in stripped))


def is_lockfile(path: str) -> bool:
    return path.lower().rsplit("/", 1)[-1] in LOCKFILES


def is_reference(name: str, value: str) -> bool:
    """``value`` names where a secret is kept (a key of a Secret, a Secret's name), or is a
    version range or a pattern, not the secret itself."""
    text = value.strip().strip("\"'")
    if _VERSION.fullmatch(text) or _PATTERN_CHARS.search(text):
        return True
    if _names_a_key(name, text) or _echoes_its_name(name, text):
        return True
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name.strip()).lower()
    if _EXISTING.search(snake) and _OBJECT_NAME.fullmatch(text):
        return True  # ``existingSecretAdminPassword: harbor-admin``: the chart reads an object of that name
    suffix = _REFERENCE_NAME.search(name.strip())
    if suffix is None or not _OBJECT_NAME.fullmatch(text) or re.search(r"\d{4}", text):
        return False
    if _generated_piece(text):
        return False  # ``chakra-zjob8k2m9xq3pl7wn5...``: a vendor's prefix before key material, not a name
    if suffix.group().lower().startswith("secret"):  # a Secret named as namespace/name, or an existingSecret
        return "/" in text or name.lower().startswith("existing")
    return bool(re.search(r"[-./]", text))


#: A piece of a name (between ``-``, ``.``, ``_`` or ``/``) of 20 characters or more that mixes
#: letters and digits: what a generator makes, not what a person names a Secret or a key.
_LONG_PIECE = lazy(r"[a-z0-9]{20,}")


def _generated_piece(text: str) -> bool:
    """Whether a lower-case name holds a long piece of letters and digits mixed (``chakra-zjob8k2m9x...``):
    a key after its vendor's prefix. A Secret's name is words (``harbor-core-secret``), maybe with a
    short hash (``app-7d9f8b6c5d``)."""
    if any(map(random_letters, re.split(r"[-./_]", text))):
        return True  # ``chakra-zjOBkqLm...``: mixed-case letters drawn at random, no digits needed
    return any(
        re.search(r"[a-z]", piece.group()) and len(re.findall(r"\d", piece.group())) >= 3
        for piece in _LONG_PIECE.finditer(text)
    )


#: A key whose value is the name of another key holding the secret (the Helm ``existingSecret`` +
#: ``passwordKey: adminPassword`` pattern): a password's, token's, user's or credential's key.
#: ``secretKey``/``secret_key`` is not one: that is how AWS and Django name the secret itself.
_KEY_OF_A_SECRET = lazy(r"(?i)(?:password|passwd|pwd|token|credentials?|user(?:name)?)_?key$")
_IDENTIFIER = lazy(r"[A-Za-z][A-Za-z0-9]*(?:[._-][A-Za-z0-9]+)*")
_SECRET_WORD = lazy(r"(?i)pass|pwd|token|secret|key|user|credential|auth")


def _names_a_key(name: str, text: str) -> bool:
    """``passwordKey: adminPassword``, ``tokenKey: github-token``: the value is an identifier that
    names a secret (holds a secret's word) under a name that says it is a key of one."""
    if not _KEY_OF_A_SECRET.search(name.strip()):
        return False
    return bool(_IDENTIFIER.fullmatch(text) and _SECRET_WORD.search(text)) and not re.search(r"\d{4}", text)


def _squashed(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _echoes_its_name(name: str, text: str) -> bool:
    """The value is the key's own name, in any case or separator style, alone or as the last
    step of a path (``API_KEY: ".API_KEY"``, an ExternalSecret's data path; ``smtpPassword:
    smtp-password``, the key of a Secret): it says where the secret is, not what it is."""
    if not re.fullmatch(r"[\w./:#-]{1,200}", text):
        return False
    last = re.split(r"[/.:#]", text)[-1]
    return len(_squashed(name)) >= 4 and _squashed(last) == _squashed(name)


_QUALIFIED_NAME = lazy(r"(?:[a-z0-9-]+\.)+[a-z]{2,}/[A-Za-z0-9._-]*")
_TYPE_NAME = lazy(r"(?i)(?:non-empty-|nullable-)?(?:string|number|integer|boolean|object|array|mapping|sequence)")
_WORDS = lazy(r"(?<![A-Za-z0-9])[a-z]{4,}-[a-z]{4,}(?![A-Za-z0-9])")
#: A call of a lower-case function (digits allowed after its first letter: ``sha256(masterId)``)
#: with nothing, keywords, quoted strings or further calls as arguments (``str()``,
#: ``str(required=False)``, ``enum("true", "false")``, ``any(str(), int())``, ``include('chart')``):
#: how Yamale and similar schema files type a field, not a value of it, or a computed value.
_VALIDATOR_CALL = lazy(
    r"[a-z][a-z0-9_]{1,15}\((?:\s*(?:[a-z_]+\s*=\s*)?(?:[\w.+-]*|\"[^\"]*\"|'[^']*'|[a-z_]+\([^()]*\))\s*,?)*\)"
)
#: A record's composite key: parts joined by ``|`` of which one is a plain lower-case word
#: (``216214CDS|cutaneous``, a product code and its route). A token with an id before a bar
#: (``5|hXZ3k...``, Laravel Sanctum's) has no such word.
_COMPOSITE_ID = lazy(r"[^|\s]{1,64}(?:\|[^|\s]{0,64}){1,6}")
_PLAIN_WORD = lazy(r"[a-z]{4,24}")


_SECRET_ENDING = lazy(r"(?i)(?:secret|password|passwd|pass|pwd|token|(?<![a-z])key)$")
_SETTING_WORDS = frozenset(
    {
        "true",
        "false",
        "none",
        "null",
        "nil",
        "disabled",
        "enabled",
        "required",
        "optional",
        "default",
        "auto",
        "bearer",
        "basic",
        "plain",
        "file",
        "files",
        "env",
        "vault",
        "aws",
        "gcp",
        "azure",
        "kms",
        "local",
        "memory",
        "redis",
        "jwt",
        "oauth",
        "sha256",
        "hs256",
        "rs256",
        "random",
        "generate",
        "generated",
        "unset",
        "empty",
        "off",
        "on",
        "yes",
        "no",
    }
)


def guessable_default(name: str, value: str) -> bool:
    """A word set as the default of a secret in a committed environment file
    (``RPC_SHARED_SECRET=supersecret``, ``ADMIN_PASSWORD=letmein``): not a reference, not key
    material, but what every deployment that reads the file and sets nothing else runs with.

    Only names that end in the secret (``..._SECRET``, ``..._PASSWORD``, ``apiToken``, ``..._KEY``)
    count, and not words that choose a setting (``JWT_SECRET=vault``, ``..._KEY=auto``)."""
    text = value.strip().strip("\"'")
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name.strip())
    if not _SECRET_ENDING.search(snake) or not is_secret_key(name) or is_placeholder(text):
        return False
    if _echoes_its_name(name, text) and re.fullmatch(r"[A-Za-z][\w-]{3,63}", text):
        return True  # ``DB_PASSWORD=db_password``: elsewhere a key's name, in a .env file the password itself
    return bool(re.fullmatch(r"[a-z][a-z0-9]{3,31}", text, re.IGNORECASE)) and text.lower() not in _SETTING_WORDS


#: Values that are not the secret in plain text: SOPS ciphertext (``ENC[AES256_GCM,data:...,type:str]``),
#: Ansible Vault (``$ANSIBLE_VAULT;1.1;AES256``), and password hashes a server compares against
#: (bcrypt ``$2y$05$...``, sha512-crypt ``$6$...``, argon2, Apache's ``$apr1$``, LDAP's ``{SSHA}``).
_SEALED = lazy(
    r"ENC\[[A-Z0-9_]+,data:|\$ANSIBLE_VAULT;|"
    r"\$(?:2[abxy]?|5|6|7|y|gy|1|apr1|argon2(?:id|i|d)|pbkdf2(?:-[\w]+)?|scrypt)\$[./A-Za-z0-9$=,+-]{16,}$|"
    r"\{(?:SSHA|SHA|SSHA256|SSHA512|CRYPT|PBKDF2[\w-]*)\}\S{8,}$|"
    # Django's ``algorithm$iterations$salt$hash`` (``pbkdf2_sha256$600000$...``, ``argon2$argon2id$...``)
    r"(?:pbkdf2_sha(?:1|256)|argon2|bcrypt(?:_sha256)?|scrypt|sha1|md5)\$[./A-Za-z0-9$=,+-]{16,}$|"
    # Spring Security's ``{id}`` before the encoded hash (``{bcrypt}$2a$10$...``); not ``{noop}``, plain text
    r"\{(?:bcrypt|pbkdf2|scrypt|argon2|sha256|SHA-1|SHA-256|MD4|MD5|ldap)(?:@[\w.]+)?\}\S{16,}$"
)
#: An htpasswd line or a Traefik ``users:`` entry: a user name, ``:`` and a crypt hash.
_USER_AND_HASH = lazy(r"[\w.@-]{1,64}:(?=\$)")


def password_hash(text: str) -> bool:
    """``text`` is encrypted or a password's hash (see ``_SEALED``), also as Compose writes one
    (``$$2y$$10$$...``, each ``$`` doubled), after an htpasswd user (``admin:$apr1$...``), or in
    ASP.NET Core Identity's third format (base64 of a marker byte, the hash function, the
    iteration count, the salt's length, the salt and the hash: ``AQAAAAIAAYagAAAAE...``)."""
    if text.startswith("$$"):
        text = text.replace("$$", "$")
    prefix = _USER_AND_HASH.match(text)
    if prefix is not None:
        text = text[prefix.end() :]
    return bool(_SEALED.match(text)) or _identity_v3_hash(text)


def _identity_v3_hash(text: str) -> bool:
    if not text.startswith("AQAAAA") or not 40 <= len(text) <= 200 or not _BASE64_LONG.fullmatch(text):
        return False
    import base64  # only for a value that starts as this format does
    import binascii

    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return False
    if len(raw) < 13 + 16 or raw[0] != 1:
        return False
    prf, iterations, salt = (int.from_bytes(raw[at : at + 4], "big") for at in (1, 5, 9))
    return prf <= 2 and iterations >= 1000 and 8 <= salt <= 64 and 13 + salt < len(raw)


_BASE64_LONG = lazy(r"[A-Za-z0-9+/]+={0,2}")


def random_letters(piece: str) -> bool:
    """Whether ``piece`` is letters drawn at random (``NqVwYSVPHbzj...``), not an identifier.

    A key of letters alone (a vendor's ``acme-`` prefix, then 64 mixed-case letters) changes case
    every two letters or so, in runs of capitals as often as of small letters; an identifier in
    camel or Pascal case (``NextToken``, ``XMLHttpRequestHandlerFactory``) has small-letter runs
    as long as its words and single capitals between them. Twenty-four letters at least: a
    shorter value is read as a name, and an identifier made mostly of initialisms
    (``ThisIsAnAPIKeyForMyAWSApp``) is read as a key. Small letters alone: see
    :func:`_random_small_letters`.
    """
    if len(piece) < 24 or not piece.isascii() or not piece.isalpha() or piece.isupper():
        return False
    if piece.islower():
        return _random_small_letters(piece)
    small, capitals = _SMALL_RUN.findall(piece), _CAPITAL_RUN.findall(piece)
    if len(small) < 5 or len(capitals) < 5:
        return False
    return sum(map(len, small)) < 2.6 * len(small) and sum(map(len, capitals)) >= 1.4 * len(capitals)


_VOWELS = frozenset("aeiou")
_ALPHABET = "abcdefghijklmnopqrstuvwxyz"


def _random_small_letters(piece: str) -> bool:
    """Twenty-four small letters or more drawn at random (``qzvkmbtrwhplxdnfgcjs...``), not words
    run together (``supersecretpasswordforthedatabase``): fewer than one letter in four a vowel
    (one in five is, at random; English words hold nearly two in five), a run of four consonants
    or more, twelve different letters or more, and no run of four counting up or down the alphabet
    (``ponmlkji``, which binary files and test strings hold). Holds about 70% of random 24-letter
    values and 85% of 64-letter ones."""
    vowels = sum(letter in _VOWELS for letter in piece)
    if 4 * vowels >= len(piece) or len(set(piece)) < 12:
        return False
    if not re.search(r"[^aeiou]{4}", piece):
        return False
    reverse = _ALPHABET[::-1]
    return not any(piece[i : i + 4] in _ALPHABET or piece[i : i + 4] in reverse for i in range(len(piece) - 3))


#: A vendor's key: a short lower-case prefix, maybe a second word (``sk_live_``, ``chakra-``,
#: ``acme_prod_``), then the key material.
_VENDOR_KEY = lazy(r"([a-z][a-z0-9]{1,15})[-_](?:[a-z0-9]{1,12}[-_])?([A-Za-z0-9]{20,200})")


#: A prefix word that says the key works in a vendor's test mode only (TossPayments' ``test_sk_``,
#: Stripe's ``sk_test_``, a ``sandbox-`` key).
_TEST_MODE = lazy(r"(?:^|[-_])(?:test|sandbox|demo|mock|fake|dummy)(?:[-_]|$)")


def live_vendor_key(text: str) -> bool:
    """``chakra-zjob8k2m9xq3pl7wn5...``, ``acme_live_yWAcqGFzYtEwLnGisiWgNZqITZMj``: a vendor's
    prefix before material a generator made (20 characters or more mixing letters with three
    digits or more, or letters whose case changes as at random), and no stand-in
    (``sk_live_xxxxxxxx...``, ``acme-0123456789abcdefghij``, ``your``, ``example``), and no
    test mode's prefix (``test_sk_``, ``sk_test_``, ``sandbox-``: a sandbox's key). What an
    example file holds when its author pasted a working key in place of a placeholder."""
    value = text.strip().strip("\"'")
    match = _VENDOR_KEY.fullmatch(value)
    if match is None or is_placeholder(value) or is_placeholder(match.group(2)):
        return False
    if _TEST_MODE.search(value[: match.start(2)]):
        return False  # ``test_sk_...``, ``sk_test_...``: a sandbox's key, often the vendor's documented one
    material = match.group(2)
    if random_letters(material):
        return True
    lower = material.lower()
    return bool(
        re.search(r"[a-z]", lower)
        and len(re.findall(r"\d", lower)) >= 3
        and not re.search(r"(.)\1{3}", lower)
        and len(set(lower)) >= 12
    )


#: One piece of a namespaced identifier: a word or an identifier of letters joined by ``.``, ``_``
#: or ``-`` (``ActionCandidate.roadmap``, ``proposed_only``), digits only after a letter and no run
#: of four.
_NAMESPACE_PIECE = lazy(r"[A-Za-z][A-Za-z0-9]*(?:[._-][A-Za-z][A-Za-z0-9]*)*")


def _namespaced_name(text: str) -> bool:
    """Three pieces or more joined by ``:``, each a word or an identifier (``AUTO:ActionCandidate.
    roadmap:proposed_only``, ``billing:invoice:paid``, ``urn:acme:feature-flag``): how a decision,
    an event, a lock or a cache entry is named. A pair (``admin:s3cret``) may be a login and is not
    one; nor is a piece drawn at random (``user:kJhGfDsAqWeRtYuIoPlMnBvC:x``), one holding four
    digits in a row, one mixing small letters, capitals and digits (``urn:secret:Kx82mQpz4tLs``),
    or one that a generator's mix of letters and digits makes key material."""
    pieces = text.split(":")
    if len(pieces) < 3 or len(text) > 200 or re.search(r"\d{4}", text):
        return False
    for piece in pieces:
        if not _NAMESPACE_PIECE.fullmatch(piece) or _generated_piece(piece.lower()):
            return False
        words = re.split(r"[._-]", piece)
        if any(map(random_letters, words)) or any(map(_mixes_three_classes, words)):
            return False
    return True


def _mixes_three_classes(word: str) -> bool:
    """Small letters, capitals and digits in one word (``Kx82mQpz4tLs``): a generator's, not a name's."""
    return all(re.search(c, word) for c in ("[a-z]", "[A-Z]", "[0-9]"))


_SMALL_RUN = lazy(r"[a-z]+")
_CAPITAL_RUN = lazy(r"[A-Z]+")


#: A password's name: ``pass`` or ``pwd`` anywhere in it (``DB_PASSWORD``, ``dbPass``, ``PWD``), or
#: ``PW`` as its last whole part (``REGISTRY_PW``, ``db-pw``, ``adminPw``): not ``POWER``,
#: ``PW_TIMEOUT`` or ``pwDir``, where the letters start another word or the name goes on.
_PASSWORD_NAME = lazy(r"(?i)pass|pwd|(?:^|[_.-])pw$|(?-i:(?<=[a-z0-9])Pw$)")


def password_name(name: str) -> bool:
    """``name`` names a password (see ``_PASSWORD_NAME``): under it a plain word is a weak password,
    not an identifier."""
    return _PASSWORD_NAME.search(name) is not None


def literal_secret(name: str, value: object) -> bool:
    """True when ``name`` names a secret and ``value`` is a literal credential, not a reference.

    Values with whitespace (prose), upper-case identifiers (the name of another variable),
    paths, booleans and numbers are not literal secrets; neither are plain words and
    identifiers ("NextToken", "result-key") except under password-like names, where a word
    is a (weak) password.
    """
    if not isinstance(value, str) or not is_secret_key(str(name)):
        return False
    text = value.strip().strip("\"'")
    if is_placeholder(text) or any(c.isspace() for c in text) or text == TEMPLATE_VALUE:
        return False  # TEMPLATE_VALUE: a masked template expression (``{{ ternary "yes" "no" ... }}``)
    if describes_itself(str(name), text):
        return False  # ``cf-usb-sidecar-mysql-admin-password``: what the value is, written in its place
    if password_hash(text) or _encoded_hashes(text):
        return False  # encrypted (SOPS ``ENC[AES256_GCM,data:...]``, Ansible Vault) or a password hash
    if published_key(text):
        return False  # an emulator's key, printed in its vendor's documentation
    if any(ord(c) > 127 and c.isalpha() for c in text):
        return False  # a word of a natural language ("Contraseña", "パスワード"): a label, not a key
    if _TYPE_NAME.fullmatch(text):
        return False  # a schema's type ("password": "non-empty-string" in GitHub's workflow schema)
    if _VALIDATOR_CALL.fullmatch(text):
        return False  # a schema validator's rule (Yamale's ``str(required=False)``, ``enum('a', 'b')``)
    if (
        "|" in text
        and _COMPOSITE_ID.fullmatch(text)
        and any(_PLAIN_WORD.fullmatch(part) for part in text.split("|"))
        and not password_name(str(name))
    ):
        return False  # a record's composite key (``216214CDS|cutaneous``), not key material
    if _QUALIFIED_NAME.fullmatch(text):
        return False  # a domain-qualified label or annotation name ("external-dns.alpha.kubernetes.io/")
    if _WORDS.search(text) and not password_name(str(name)) and not any(map(random_letters, re.split(r"[._-]", text))):
        return False  # words joined by hyphens ("etcd-cluster-k8s"): a name, not key material
    if re.fullmatch(r"[A-Z][A-Z0-9_]{2,}", text) or text.startswith(("/", "./", "~", "../")):
        return False
    if (
        re.fullmatch(r"[A-Za-z]+(?:[._-][A-Za-z]+)*", text)
        and not password_name(str(name))
        and not any(map(random_letters, re.split(r"[._-]", text)))
    ):
        return False  # a word or identifier ("NextToken", "result-key"): a name, not a key
    if _namespaced_name(text) and not password_name(str(name)):
        return False  # ``AUTO:ActionCandidate.roadmap:proposed_only``: a namespaced identifier, not a key
    if (
        _SNAKE_WORDS.fullmatch(text)
        and not password_name(str(name))
        and not any(map(random_letters, re.split(r"[._-]", text)))
    ):
        return False  # lower-case words, numbered ("soccer_germany_bundesliga2"): an identifier, not a key
    if _UUID.fullmatch(text) and not re.search(r"(?i)api_?key|secret|pass", str(name)):
        return False  # request and change tokens are ids; API keys in UUID form still count
    if "/" in text and re.search(r"\.[A-Za-z]{1,5}$", text):
        return False  # a file path
    if is_reference(str(name), text) or _encoded_placeholder(text):
        return False
    return not re.fullmatch(r"https?://[^@\s]*|\d+(?:\.\d+)?", text)


#: Three to eight words of letters, each all lower-case or all capitals, joined by hyphens
#: (``secure-redis-password``, ``CF-USB-ADMIN-PASSWORD``): a generated password mixes cases and
#: digits inside its pieces (``Xk9-password-7qZ``). Words joined by ``_`` are an identifier's
#: (``harbor_registry_password``), which a chart may well deploy with as it is.
_DESCRIBING_WORDS = lazy(r"(?:[a-z]{2,24}|[A-Z]{2,24})(?:-(?:[a-z]{2,24}|[A-Z]{2,24})){2,7}")
#: The secret's word a describing value ends in, and what the key's name must hold for it to be
#: the key's own word: a password's value ends in ``password`` (or ``pass``, ``pwd``) under a
#: password's name, a token's in ``token`` under a token's ...
_OWN_WORDS = (
    (frozenset({"password", "passwd", "pass", "pwd", "passphrase"}), lazy(r"pass|pwd")),
    (frozenset({"secret"}), lazy(r"secret")),
    (frozenset({"token"}), lazy(r"token")),
    (frozenset({"key", "apikey"}), lazy(r"key$")),
)


def describes_itself(name: str, text: str) -> bool:
    """The value says what it is, in words, in its place: words joined by hyphens that end in the
    key's own secret word (``SERVICE_MYSQL_PASS: cf-usb-sidecar-mysql-admin-password``,
    ``REDIS_PASSWORD=secure-redis-password``, ``sessionToken: my-session-token``). At least two
    words come before the secret's word (``admin-password`` may be a weak password in use), and
    every word is letters of one case (``Xk9-password-7qZ`` is a password that holds the word)."""
    text = "-".join(_unleet_word(word) for word in text.split("-"))  # ``s3cur3-r3d1s-p4ssw0rd`` too
    if not _DESCRIBING_WORDS.fullmatch(text):
        return False
    last = text.rsplit("-", 1)[-1].lower()
    squashed = _squashed(name)
    return any(last in words and own.search(squashed) for words, own in _OWN_WORDS)


_LEET_LOWER = str.maketrans("013457@$", "oieastas")


def _unleet_word(word: str) -> str:
    """A word with letters between its leetspeak digits read as letters of its case (``p4ssw0rd``
    is "password", ``P4SS`` "PASS"); a word of digits alone, or led by one, stays as it is."""
    if not word[:1].isalpha() or not any(c.isalpha() for c in word[1:]):
        return word
    read = word.translate(_LEET_LOWER)
    return read.upper() if word.upper() == word else read


#: Two or more lower-case words (three letters or more first), each maybe numbered, joined by
#: ``_``, ``-`` or ``.``; a generated key mixes digits inside its pieces (``a1b2c3``).
_SNAKE_WORDS = lazy(r"[a-z]{3,}\d{0,4}(?:[._-][a-z]+\d{0,4})+")
_BASE64 = lazy(r"(?:[A-Za-z0-9+/]{4}){1,22}(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")


def _encoded_placeholder(text: str) -> bool:
    """A short base64 value (a Kubernetes Secret's ``data:``) whose decoded text is a placeholder:
    ``cGFzc3dvcmQ=`` is "password", ``Y2hhbmdlbWU=`` "changeme". Only text that decodes to
    printable ASCII (a newline at the end aside) is judged; a real key's bytes do not."""
    if len(text) < 8 or not _BASE64.fullmatch(text):
        return False
    import base64  # only for values shaped like base64: off most runs' path
    import binascii

    try:
        decoded = base64.b64decode(text, validate=True).decode("ascii")
    except (binascii.Error, ValueError):
        return False
    decoded = decoded.rstrip("\r\n")  # ``echo password | base64`` encodes the newline too
    return decoded.isprintable() and is_placeholder(decoded)


_BASE64_ANY = lazy(r"(?:[A-Za-z0-9+/]{4}){2,1024}(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")


def _encoded_hashes(text: str) -> bool:
    """A base64 value (a Kubernetes Secret's ``data:``) whose decoded text is password hashes, one a
    line: an htpasswd file (``user:$apr1$...``) or a bcrypt hash, which a server compares logins
    against. A private key, a password or a token decodes to something else and stays."""
    if len(text) < 24 or "$" in text or not _BASE64_ANY.fullmatch(text):
        return False
    import base64  # only for values shaped like base64
    import binascii

    try:
        decoded = base64.b64decode(text, validate=True).decode("ascii")
    except (binascii.Error, ValueError):
        return False
    lines = [line.strip() for line in decoded.splitlines() if line.strip()]
    return bool(lines) and all(line.isprintable() and password_hash(line) for line in lines)


#: Passwords a tool documents as its default, with the names of the settings they are the default
#: of: the JDK's ``keytool`` and its ``cacerts`` store ship with ``changeit``, which Java servers
#: (Tomcat, Jetty, Kafka, HiveMQ) and charts copy as the keystore's and its key's password.
_TOOL_DEFAULTS = (("changeit", lazy(r"keystore|truststore|storepass|keypass|jks|pkcs12|p12|cacerts")),)


def tool_default(name: str, value: str) -> str | None:
    """Why ``value`` under ``name`` is a tool's documented default rather than a chosen secret
    (``keystorePassword: changeit``, ``REST_TLS_KEY_PASSWORD=changeit``), or None."""
    text = value.strip().strip("\"'").lower()
    squashed = _squashed(name)
    for default, names in _TOOL_DEFAULTS:
        if text == default and names.search(squashed):
            return (
                f"{default!r} is the JDK's documented default password of a keystore (keytool, cacerts), "
                "which guards a file usually kept beside it; set one of your own if the keystore leaves the cluster"
            )
    return None


#: API groups of resources that point at secrets kept elsewhere, or hold them sealed: the External
#: Secrets Operator's (ExternalSecret, ClusterExternalSecret, PushSecret, SecretStore and its
#: generators), its predecessor kubernetes-external-secrets, Vault Secrets Operator, the Secrets
#: Store CSI driver's SecretProviderClass, vault-secrets-operator (ricoberger), 1Password's,
#: Doppler's and Infisical's operators, and Bitnami's SealedSecret (ciphertext only the cluster's
#: controller can open).
_SECRET_REFERENCE_GROUP = lazy(
    r"(?:[a-z0-9-]+\.)*external-secrets\.io|kubernetes-client\.io|secrets\.hashicorp\.com|"
    r"secrets-store\.csi\.x-k8s\.io|ricoberger\.de|onepassword\.com|secrets\.doppler\.com|"
    r"secrets\.infisical\.com|bitnami\.com"
)
#: A name, path or ciphertext: what such a resource's values are (``.dockerconfigjson``,
#: ``dd/remote-dev/pull``, ``secret/data/app#password``, ``AgBy3i4OJSWK+PiTySYZZA...``).
_NAME_OR_CIPHERTEXT = lazy(r"[\w./:#@+=-]{1,4096}")


def secret_reference_places(file: SourceFile) -> set[Pos]:
    """Where the values of resources that reference secrets are (see ``_SECRET_REFERENCE_GROUP``):
    ``secretKey: .dockerconfigjson`` names the key of the Secret to fill and ``remoteRef.key`` the
    store's entry, not a credential. What such a resource renders itself (``target.template``,
    a SealedSecret's ``template``) is left to be read as any value is."""

    def build() -> set[Pos]:
        places: set[Pos] = set()
        if file.syntax not in ("yaml", "json", "helm", "template") or "apiVersion" not in file.text:
            return places
        for top in file.documents:
            version = top.get("apiVersion") if isinstance(top, PMap) else None
            if not isinstance(version, str) or not _SECRET_REFERENCE_GROUP.fullmatch(version.split("/", 1)[0]):
                continue
            for node in file.mappings(top, prune=("template",)):
                for key, value in node.items():
                    if isinstance(value, str) and _NAME_OR_CIPHERTEXT.fullmatch(value.strip()):
                        places.add(node.pos_of(key))
        return places

    return file.memo("secret_reference_places", build)


#: A values file of a Helm chart (``values.yaml``, ``values-prod.yaml``), read with the chart's templates.
_VALUES_FILE = lazy(r"values(?:[-_.][\w.-]{1,60})?\.ya?ml")
#: ``.Values.a.b.c`` in a template (``$.Values`` too): the values path it reads.
_VALUES_PATH = lazy(r"\.Values((?:\.[A-Za-z_][\w-]{0,80}){1,12})")
#: A template line that opens a reference to a Secret's key (``secretKeyRef:``) or a whole Secret
#: (``secretRef:``, envFrom's), and the lines under it that name the Secret and the key.
_SECRET_REF_OPEN = lazy(r"^(\s*)(?:-\s+)?(?:secretKeyRef|secretRef)\s*:(.*)$")
_SECRET_REF_FIELD = lazy(r"^\s*(?:-\s+)?(?:name|key)\s*:")
_SECRET_NAME_LINE = lazy(r"^\s*(?:-\s+)?secretName\s*:")
_CHART_TEMPLATE_FILES = 200  # templates read for one chart
_CHART_TEMPLATE_BYTES = 262_144  # of each template


def chart_secret_name_places(file: SourceFile) -> set[Pos]:
    """Where a chart's values file holds values its own templates use as the name of a Secret or
    of a key in one: under ``secretKeyRef:`` (or envFrom's ``secretRef:``) as ``name:`` or
    ``key:``, or as a volume's ``secretName:`` (``key: {{ .Values.db.secrets.password }}`` makes
    ``db.secrets.password: chado-password`` the key's name, not a password). Read only for a
    ``values*.yaml`` beside a ``Chart.yaml``, from the chart's ``templates/`` (bounded)."""

    def build() -> set[Pos]:
        places: set[Pos] = set()
        folder = os.path.dirname(file.origin) if file.origin else ""
        name = file.path.rsplit("/", 1)[-1]
        if not folder or not file.root or file.syntax != "yaml" or not _VALUES_FILE.fullmatch(name):
            return places
        if not os.path.isfile(os.path.join(folder, "Chart.yaml")):
            return places
        paths = _secret_name_paths(os.path.join(folder, "templates"), file.root)
        documents = file.documents
        top = documents[0] if documents else None
        for dotted in paths:
            node: object = top
            parts = dotted.strip(".").split(".")
            for part in parts[:-1]:
                node = node.get(part) if isinstance(node, PMap) else None
            if isinstance(node, PMap) and isinstance(node.get(parts[-1]), str):
                places.add(node.pos_of(parts[-1]))
        return places

    return file.memo("chart_secret_name_places", build)


def _secret_name_paths(templates: str, root: str) -> set[str]:
    """The values paths (``.db.secrets.password``) the templates under ``templates`` use as a
    Secret's or a Secret key's name; files outside ``root`` (through links) are not read."""
    found: set[str] = set()
    real_root = os.path.realpath(root)
    left = _CHART_TEMPLATE_FILES
    for folder, _dirs, names in os.walk(templates):
        for name in sorted(names):
            if left <= 0 or not name.endswith((".yaml", ".yml", ".tpl")):
                continue
            path = os.path.realpath(os.path.join(folder, name))
            if not path.startswith(real_root + os.sep) or not os.path.isfile(path):
                continue
            left -= 1
            try:
                with open(path, "rb") as handle:
                    text = handle.read(_CHART_TEMPLATE_BYTES).decode("utf-8", "replace")
            except OSError:
                continue
            if ".Values" in text and "ecret" in text:
                found.update(_named_secret_paths(text))
    return found


def _named_secret_paths(text: str) -> Iterator[str]:
    indent: int | None = None  # of the open ``secretKeyRef:`` line, while its block lasts
    for line in text.splitlines():
        if indent is not None:
            stripped = line.strip()
            if stripped and not stripped.startswith("{{") and len(line) - len(line.lstrip()) <= indent:
                indent = None
            elif _SECRET_REF_FIELD.match(line):
                yield from (m.group(1) for m in _VALUES_PATH.finditer(line))
                continue
        opened = _SECRET_REF_OPEN.match(line)
        if opened is not None:
            indent = len(opened.group(1))
            if re.search(r"\b(?:name|key)\s*:", opened.group(2)):  # ``secretKeyRef: {name: ..., key: ...}``
                yield from (m.group(1) for m in _VALUES_PATH.finditer(opened.group(2)))
        elif _SECRET_NAME_LINE.match(line):
            yield from (m.group(1) for m in _VALUES_PATH.finditer(line))


#: A reserved example name (RFC 2606): ``ldap.example.com``, ``example.org``, ``host.example``,
#: ``x.invalid``, or an LDAP ``dc=example``.
_EXAMPLE_DOMAIN = lazy(
    r"(?i)(?<![\w-])(?:[\w-]+\.)*example\.(?:com|org|net)(?![\w-])|(?<=\w)\.(?:example|invalid)(?![\w.-])|"
    r"(?<![\w-])dc=example(?![\w-])"
)
_OFF = frozenset({"false", "no", "off"})


def example_block_places(file: SourceFile) -> set[Pos]:
    """Where the values of blocks kept as examples are: a mapping switched off (``enabled:
    false``) whose values use a reserved example name (``host: ldap.example.com``, ``userDn:
    cn=admin,dc=example,dc=com``), as a chart's disabled LDAP or SMTP block shows what to fill in.
    Either alone is not enough: a block that is off may be switched on with its password as it is,
    and a password beside ``example.com`` in a block that is on is what runs."""

    def build() -> set[Pos]:
        places: set[Pos] = set()
        if file.syntax not in ("yaml", "json") or "enabled" not in file.text or not _EXAMPLE_DOMAIN.search(file.text):
            return places
        for top in file.documents:
            for node in file.mappings(top):
                switch = node.get("enabled")
                if switch is not False and not (isinstance(switch, str) and switch.strip().lower() in _OFF):
                    continue
                inner = list(file.mappings(node))
                texts = [value for m in inner for value in m.values() if isinstance(value, str)]
                texts += [item for m in inner for seq in m.values() if isinstance(seq, PSeq) for item in seq]
                if any(isinstance(text, str) and _EXAMPLE_DOMAIN.search(text) for text in texts):
                    places.update(m.pos_of(key) for m in inner for key, value in m.items() if isinstance(value, str))
        return places

    return file.memo("example_block_places", build)


class ScannerReport(NamedTuple):
    """A secret scanner's report or baseline committed as a file: which scanner wrote it, how many
    entries it holds, the secrets written out in them (not redacted), by kind, and how many of those
    the scanner verified as live (None when the scanner does not verify)."""

    scanner: str
    entries: int
    secrets: int
    kinds: dict[str, int]
    verified: int | None
    line: int


#: A report's fields, gitleaks' (``gitleaks detect --report-format json``, and a ``--baseline-path``
#: file, which is such a report) and trufflehog's (``--json``: one object a line).
_GITLEAKS_FIELDS = frozenset({"RuleID", "Fingerprint"})
_GITLEAKS_SECRETS = ("Secret", "Match")
_TRUFFLEHOG_FIELDS = frozenset({"DetectorName", "SourceMetadata"})
_TRUFFLEHOG_SECRETS = ("Raw", "RawV2")
_REPORT_LINES = 200_000  # JSON lines read of a trufflehog report


def scanner_report(file: SourceFile) -> ScannerReport | None:
    """The file as a secret scanner's report (see :class:`ScannerReport`), or None when it is not
    one: a gitleaks JSON report or baseline (a list of objects with ``RuleID`` and ``Fingerprint``,
    the secret in ``Secret`` and ``Match``) or trufflehog's JSON lines (objects with
    ``DetectorName`` and ``SourceMetadata``, the secret in ``Raw`` and ``RawV2``). A secret the
    scanner redacted (``REDACTED``, gitleaks' ``--redact``) or left empty is not counted."""
    head = file.text[:16384]  # the first entry names its fields
    if "RuleID" not in head and "DetectorName" not in head:
        return None
    return file.memo("scanner_report", lambda: _scanner_report(file))


def _scanner_report(file: SourceFile) -> ScannerReport | None:
    gitleaks = _gitleaks_entries(file.text)
    if gitleaks:
        return _tally("gitleaks", gitleaks, "RuleID", _GITLEAKS_SECRETS, None, file.text)
    entries = _trufflehog_entries(file.text)
    if not entries:
        return None
    verified = sum(1 for e in entries if e.get("Verified") is True and _written_secret(e, _TRUFFLEHOG_SECRETS))
    return _tally("trufflehog", entries, "DetectorName", _TRUFFLEHOG_SECRETS, verified, file.text)


def _gitleaks_entries(text: str) -> list[dict[str, Any]]:
    """The entries of a gitleaks JSON report: a list whose every element is an object with
    ``RuleID`` and ``Fingerprint``. Read object by object, so a report cut at max-file-size keeps
    the entries before the cut; empty when the text is no such list."""
    import json  # only for a file that names a scanner's fields

    decoder = json.JSONDecoder()
    at = len(text) - len(text.lstrip("\ufeff \t\r\n"))
    if not text.startswith("[", at):
        return []
    at += 1
    entries: list[dict[str, Any]] = []
    while True:
        while at < len(text) and text[at] in " \t\r\n,":
            at += 1
        if at >= len(text) or text[at] == "]":
            break
        try:
            entry, at = decoder.raw_decode(text, at)
        except (ValueError, RecursionError):
            break  # cut at the scan limit (the entries before it stand), or no report
        if not isinstance(entry, dict) or not entry.keys() >= _GITLEAKS_FIELDS:
            return []
        entries.append(entry)
    return entries


def _trufflehog_entries(text: str) -> list[dict[str, Any]]:
    """The entries of trufflehog's JSON lines: every non-empty line an object with
    ``DetectorName`` and ``SourceMetadata`` (a last line that does not parse, cut at max-file-size,
    is left out); empty when the text is no such file."""
    import json

    lines = text.splitlines()
    entries: list[dict[str, Any]] = []
    for number, line in enumerate(lines[:_REPORT_LINES]):
        line = line.strip()
        if not line:
            continue
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):
            if number == len(lines) - 1 and not text.endswith("\n"):
                break  # the last line, cut short
            return []  # not JSON lines: some other file that names these fields
        if not isinstance(entry, dict) or not entry.keys() >= _TRUFFLEHOG_FIELDS:
            return []
        entries.append(entry)
    return entries


def _written_secret(entry: dict[str, Any], fields: tuple[str, ...]) -> str | None:
    """The first of ``fields`` that holds a secret written out: not empty, not redacted
    (gitleaks' ``--redact`` writes ``REDACTED`` in its place, ``--redact=N`` its start then ``...``)."""
    for field in fields:
        value = entry.get(field)
        if not isinstance(value, str) or len(value.strip()) < 4:
            continue
        value = value.strip()
        if "REDACTED" in value.upper() or value.endswith(("...", "…")) or set(value) <= {"*"}:
            continue
        return value
    return None


def _tally(
    scanner: str,
    entries: list[dict[str, Any]],
    kind_field: str,
    fields: tuple[str, ...],
    verified: int | None,
    text: str,
) -> ScannerReport:
    import json

    kinds: dict[str, int] = {}
    secrets = 0
    first: str | None = None
    for entry in entries:
        secret = _written_secret(entry, fields)
        if secret is None:
            continue
        secrets += 1
        first = first or secret
        kind = entry.get(kind_field)
        name = str(kind) if isinstance(kind, (str, int)) and str(kind) else "unnamed"
        kinds[name] = kinds.get(name, 0) + 1
    at = text.find(json.dumps(first)[1:-1]) if first else -1
    line = text.count("\n", 0, at) + 1 if at >= 0 else 1
    return ScannerReport(scanner, len(entries), secrets, kinds, verified, line)
