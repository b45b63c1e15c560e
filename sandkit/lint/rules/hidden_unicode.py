"""hidden-unicode: characters a person does not see but a model reads (or a parser obeys).

Unicode tag characters spell out ASCII invisibly, and language models read them as text:
an instruction file can carry a second, hidden instruction. Bidirectional controls make
text display in a different order than it is parsed ("Trojan Source"). Zero-width and other
format characters hide words from review and from simple string checks.

Tag characters (HU001) and bidirectional controls (HU002) are looked for in configuration,
script and agent files of every kind, data (JSON, YAML), text files that are prose or settings
(Markdown, .mdc, .txt, .rst, .ini, .cfg, .conf ...) and program source: they hide or reorder
text a person reads, wherever an agent or a reviewer reads it (an agent reads the docs and code
it edits, and a reordered line compiles differently from how it reads). Zero-width and other
format characters (HU003) are looked for only in what an agent or a tool loads as instructions
or configuration: a stray zero-width space in scraped data, a design document or a string
constant hides nothing anyone obeys. Extension-less data (caches) is out of scope.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence

from sandkit.lazy_regex import lazy
from sandkit.lint import kinds
from sandkit.lint.facts.secret_values import catalogue_file
from sandkit.lint.model import Edit, Finding, FixContext, Hit
from sandkit.lint.registry import fixer, rule
from sandkit.lint.source import SourceFile
from sandkit.lint.syntax.tree import SyntaxProblem

_TAGS = lazy("[\U000e0000-\U000e007f]+")
_BIDI = lazy("[\u202a-\u202e\u2066-\u2069\u061c\u200e\u200f]+")
_FORMAT = lazy(
    "[\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200d\u2060-\u2064\u206a-\u206f"
    "\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\U0001d173-\U0001d17a\U000e0100-\U000e01ef]+"
)
_ANY = lazy(f"{_TAGS.pattern}|{_BIDI.pattern}|{_FORMAT.pattern}")
_STRONG = (kinds.AGENT_INSTRUCTIONS, kinds.AGENT_CONFIG)
#: Instruction and configuration files, plus prose an agent reads (Markdown, text).
_KINDS = tuple(k for k in kinds.KINDS if k != kinds.TEXT)
_PROSE = (
    ".md",
    ".mdc",
    ".markdown",
    ".mdx",
    ".rst",
    ".txt",
    ".adoc",
    ".prompt",
    ".cfg",
    ".ini",
    ".conf",
    ".properties",
    ".xml",
    ".plist",
)
#: Program source, read for tag characters and bidirectional controls only.
_SOURCE = (
    ".py",
    ".pyi",
    ".js",
    ".mjs",
    ".cjs",
    ".jsx",
    ".ts",
    ".mts",
    ".cts",
    ".tsx",
    ".vue",
    ".svelte",
    ".go",
    ".rs",
    ".java",
    ".kt",
    ".kts",
    ".scala",
    ".groovy",
    ".c",
    ".h",
    ".cc",
    ".cpp",
    ".cxx",
    ".hpp",
    ".cs",
    ".fs",
    ".swift",
    ".m",
    ".rb",
    ".php",
    ".pl",
    ".pm",
    ".lua",
    ".r",
    ".jl",
    ".dart",
    ".ex",
    ".exs",
    ".erl",
    ".hs",
    ".ml",
    ".zig",
    ".sql",
    ".ps1",
    ".psm1",
)
_BLACK_FLAG = "\U0001f3f4"
_CANCEL_TAG = "\U000e007f"
_MAX_PER_FILE = 50
_BIDI_NAMES = {
    "\u202a": "LRE",
    "\u202b": "RLE",
    "\u202c": "PDF",
    "\u202d": "LRO",
    "\u202e": "RLO",
    "\u2066": "LRI",
    "\u2067": "RLI",
    "\u2068": "FSI",
    "\u2069": "PDI",
    "\u061c": "ALM",
    "\u200e": "LRM",
    "\u200f": "RLM",
}


def decode_tags(run: str) -> str:
    """The ASCII text a run of tag characters spells (other tags shown as ``?``)."""
    out = []
    for ch in run:
        code = ord(ch) - 0xE0000
        out.append(chr(code) if 0x20 <= code < 0x7F else "?" if code != 0x7F else "")
    return "".join(out)


def decode_selectors(run: str) -> bytes:
    """Bytes hidden as variation selectors (U+FE00.. for 0-15, U+E0100.. for 16-255)."""
    data = bytearray()
    for ch in run:
        code = ord(ch)
        if 0xFE00 <= code <= 0xFE0F:
            data.append(code - 0xFE00)
        elif 0xE0100 <= code <= 0xE01EF:
            data.append(code - 0xE0100 + 16)
    return bytes(data)


def _is_flag_sequence(text: str, start: int, run: str) -> bool:
    """An emoji subdivision flag: black flag, 2-6 lower-case letter or digit tags, cancel tag."""
    body = run[:-1]
    return (
        start > 0
        and text[start - 1] == _BLACK_FLAG
        and run.endswith(_CANCEL_TAG)
        and 2 <= len(body) <= 6
        and all("a" <= decode_tags(c) <= "z" or "0" <= decode_tags(c) <= "9" for c in body)
    )


def _shown(text: str, limit: int = 120) -> str:
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _in_scope(file: SourceFile, source: bool = False) -> bool:
    """In scope (configuration, instruction, prose; program source too with ``source``) and
    holding any hidden character at all; one scan shared by the three rules."""
    if file.kind == kinds.TEXT and not file.path.lower().endswith(_PROSE + _SOURCE if source else _PROSE):
        return False
    return file.memo("hidden_unicode_any", lambda: not file.text.isascii() and holds_hidden(file.text))


def holds_hidden(text: str) -> bool:
    """Whether any character the three rules look for occurs in ``text``.

    Searched in the text's UTF-8 bytes: there the regular expression engine skips ahead to the
    few lead bytes those characters start with, where over the string it tests a character class
    at every character (several times slower on a large file of accented or CJK text). In valid
    UTF-8 a character's encoding matches only where that character starts, so both say the same.
    """
    return _hidden_bytes().search(text.encode("utf-8", "surrogatepass")) is not None


_HIDDEN_BYTES: list[re.Pattern[bytes]] = []


def _hidden_bytes() -> re.Pattern[bytes]:
    """The UTF-8 encodings of ``_ANY``'s characters as one bytes pattern (built on first use:
    most scans meet no non-ASCII file that is in scope)."""
    if not _HIDDEN_BYTES:
        endings: dict[bytes, set[int]] = {}  # all but the last byte -> the last bytes
        for pattern in (_TAGS, _BIDI, _FORMAT):
            for char in _class_members(pattern.pattern):
                encoded = char.encode("utf-8")
                endings.setdefault(encoded[:-1], set()).add(encoded[-1])
        branches = [
            re.escape(lead) + b"[" + b"".join(re.escape(bytes([last])) for last in sorted(lasts)) + b"]"
            for lead, lasts in sorted(endings.items())
        ]
        _HIDDEN_BYTES.append(re.compile(b"|".join(branches)))
    return _HIDDEN_BYTES[0]


def _class_members(pattern: str) -> Iterator[str]:
    """The characters of a pattern ``[...]+`` written as literal characters and ranges."""
    body = pattern.removeprefix("[").removesuffix("]+")
    i = 0
    while i < len(body):
        if i + 2 < len(body) and body[i + 1] == "-":
            yield from map(chr, range(ord(body[i]), ord(body[i + 2]) + 1))
            i += 3
        else:
            yield body[i]
            i += 1


_AGENT_READS = "in a file an agent reads as instructions or configuration"


def _severity(file: SourceFile, strong: str, weak: str) -> str:
    return strong if file.kind in _STRONG else weak


@rule("HU001", "unicode-tag-characters", category="hidden-unicode", severity="high", kinds=(*_KINDS, kinds.TEXT))
def unicode_tag_characters(file: SourceFile) -> Iterator[Hit]:
    """Invisible Unicode tag characters (U+E0000-U+E007F) spell out hidden text.

    The message decodes the hidden text. Critical in agent instruction and configuration
    files, high elsewhere (program source included). Emoji subdivision flags (black flag, letter tags, cancel tag,
    as in the flags of England, Scotland and Wales) are not findings.

    Why:
    Editors, diffs and code review show nothing, but language models read tag characters as
    the letters they encode: a CLAUDE.md or a rule file can carry an instruction nobody
    reviewed ("ASCII smuggling").

    Fix:
    Delete the characters (the message shows what they said) and find out who added them.
    """
    if not _in_scope(file, source=True) or not _has_any(file.text, "\U000e0000", "\U000e007f"):
        return
    for count, match in enumerate(_TAGS.finditer(file.text)):
        if count >= _MAX_PER_FILE:
            return
        if _is_flag_sequence(file.text, match.start(), match.group()):
            continue
        hidden = decode_tags(match.group())
        yield Hit(
            file.pos_at(match.start()),
            f"{len(match.group())} invisible tag characters spell: {_shown(hidden)!r}",
            severity=_severity(file, "critical", ""),
            why=_AGENT_READS,
        )


def _has_any(text: str, low: str, high: str) -> bool:
    """Cheap pre-check: any character in [low, high] (checked by the regex engine in C)."""
    return re.search(f"[{low}-{high}]", text) is not None


@rule("HU002", "bidi-control", category="hidden-unicode", severity="high", kinds=(*_KINDS, kinds.TEXT))
def bidi_control(file: SourceFile) -> Iterator[Hit]:
    """Bidirectional control characters change the order text is displayed in.

    Embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069) and the ALM, LRM and
    RLM marks, in configuration, prose and program source (medium in source, low in its
    tests, where a sanitizer's test data holds them on purpose). LRM/RLM and ALM on a line of
    right-to-left letters (Hebrew, Arabic, Persian, Urdu) are how those languages are written
    and are not findings; nor, outside agent instruction and configuration files, anywhere in a
    text of such a language (a catalogue named for its locale, `locales/he-IL.json`, or a file
    whose non-ASCII letters are mostly Hebrew or Arabic), where an LRM after a Latin word or a
    number keeps its punctuation in place, unless the mark sits inside an ASCII word. In agent
    instruction and configuration files a mark is spelling only next to, or on a line of,
    right-to-left letters. Embeddings and overrides on such a line are low in prose and data,
    and not findings in a translation catalogue (`locales/fa.json`), where they keep a number or
    a Latin word in order.

    Why:
    What the reviewer sees is not what the agent, shell or parser reads: a command, a
    comment end or an allow rule can be reordered so that it looks harmless ("Trojan
    Source", CVE-2021-42574).

    Fix:
    Remove the control characters; if right-to-left text needs them, keep it in prose files
    that no tool executes.
    """
    if not _in_scope(file, source=True) or not _BIDI.search(file.text):
        return
    for count, match in enumerate(_BIDI.finditer(file.text)):
        if count >= _MAX_PER_FILE:
            return
        run = match.group()
        marks_only = set(run) <= {"\u200e", "\u200f", "\u061c"}
        if marks_only and (_near_rtl(file.text, match) or _rtl_line(file, match.start())):
            continue  # direction marks in right-to-left text: how it is written
        if marks_only and file.kind not in _STRONG and not _splits_word(file.text, match) and _written_rtl(file):
            continue  # a mark after a Latin word or a number of a Hebrew or Arabic text: its bidi spelling
        severity, why = _source_severity(file), _SOURCE_WHY.get(_source_severity(file), "")
        if not severity and file.kind not in _STRONG and _rtl_line(file, match.start()):
            if catalogue_file(file):
                continue  # a translation's embedding that keeps a number or a Latin word in order
            severity, why = "low", "in right-to-left prose, where embeddings keep numbers and Latin words in order"
        names = ", ".join(dict.fromkeys(_BIDI_NAMES.get(c, "?") for c in run))
        yield Hit(
            file.pos_at(match.start()),
            f"bidirectional control character(s) {names} reorder how this line is displayed",
            severity=severity,
            why=why,
        )


_TEST_PATH = lazy(r"(?:^|/)(?:tests?|__tests__|spec|fixtures?|testdata)/|[._-](?:test|spec)\.\w+$|(?:^|/)test_")


_SOURCE_WHY = {"medium": "in program source", "low": "in a test's data"}


def _source_severity(file: SourceFile) -> str:
    """Program source is medium (compilers and review tools warn about these too), low in a test,
    where a sanitizer's own test data holds them on purpose; other files keep the rule's own."""
    if file.kind != kinds.TEXT or not file.path.lower().endswith(_SOURCE):
        return ""
    return "low" if _TEST_PATH.search(file.path.lower()) else "medium"


def _rtl_line(file: SourceFile, offset: int) -> bool:
    """Whether the line around ``offset`` holds right-to-left letters (Hebrew, Arabic, Persian ...)."""
    text = file.text
    start, end = text.rfind("\n", 0, offset) + 1, text.find("\n", offset)
    line = text[start : end if end >= 0 else len(text)][:4000]
    return any(unicodedata.bidirectional(c) in ("R", "AL") and c.isalpha() for c in line if ord(c) >= 0x0590)


#: Letters of the right-to-left scripts (Hebrew, Arabic and its supplements and presentation
#: forms, Syriac, Thaana, N'Ko, Samaritan, Mandaic).
_RTL_LETTER = lazy("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")
_NON_ASCII = lazy("[^\x00-\x7f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
#: Locales written right to left, as catalogue files and folders name them (``he-IL.json``,
#: ``locales/fa/common.json``, ``messages.ar.yaml``; ``iw`` is Hebrew's old code).
_RTL_LOCALE = lazy(r"(?:^|[/._-])(?:he|iw|yi|ar|fa|ur|ps|sd|ug|ckb|dv|syr|arc|prs|ks|ku-arab|pa-arab)(?=[/._-]|$)")


def _written_rtl(file: SourceFile) -> bool:
    """Whether the file is text of a right-to-left language: a catalogue named for such a locale,
    or a file whose letters outside ASCII are mostly Hebrew, Arabic and the like. In such a file
    an LRM after a Latin word or a number keeps the punctuation after it in place, even on a
    line that holds no Hebrew letter itself (a brand name alone as a value)."""

    def build() -> bool:
        if _RTL_LOCALE.search(file.path.lower()) and catalogue_file(file):
            return True
        rtl = len(_RTL_LETTER.findall(file.text))
        return rtl >= 20 and rtl * 2 >= len(_NON_ASCII.findall(file.text))

    return file.memo("hidden_unicode_rtl", build)


def _splits_word(text: str, match: re.Match[str]) -> bool:
    """A run between two ASCII letters, digits or underscores: inside a word, a command or an
    identifier (``cu<LRM>rl``), where it hides the word rather than orders a line."""
    before = text[match.start() - 1] if match.start() > 0 else ""
    after = text[match.end()] if match.end() < len(text) else ""
    return all(ch.isascii() and (ch.isalnum() or ch == "_") for ch in (before, after)) and bool(before and after)


def _near_rtl(text: str, match: re.Match[str]) -> bool:
    around = text[max(match.start() - 1, 0) : match.start()] + text[match.end() : match.end() + 1]
    return any(unicodedata.bidirectional(c) in ("R", "AL") for c in around)


def _legit_format(text: str, start: int, run: str) -> bool:
    """Zero-width and format characters that are how some text is written."""
    before = text[start - 1] if start > 0 else ""
    after = text[start + len(run)] if start + len(run) < len(text) else ""
    if run == "\ufeff" and start == 0:
        return True  # byte order mark
    if (
        set(run) <= {"\u200d", "\ufe0f", "\ufe0e"}
        and len(run) <= 3
        and (_emoji(before) or before in "\ufe0f\u20e3" or (before.isdigit() or before in "#*"))
    ):
        return True  # emoji ZWJ sequences and presentation selectors
    if set(run) <= {"\u200c", "\u200d"} and len(run) <= 2 and _joins_script(text, start, before, after):
        return True  # joiners in Arabic, Persian, Urdu, Indic and other scripts: how their words are spelt
    if set(run) == {"\u200b"} and len(run) <= 2 and (_spaceless(before) or _spaceless(after)):
        return True  # the word separator of Thai, Lao, Khmer, Myanmar, Tibetan, Javanese ... text
    if run == "\u00ad" and before.isalpha() and after.isalpha():
        return True  # soft hyphen inside a word
    if len(run) == 1 and 0xE0100 <= ord(run) <= 0xE01EF and _cjk(before):
        return True  # ideographic variation sequence
    return len(run) == 1 and "\ufe00" <= run <= "\ufe0f" and bool(before) and ord(before) > 0x7F


#: Blocks of the scripts written without spaces between words, where U+200B ZERO WIDTH SPACE
#: marks the word boundaries that line breaking and search need (the Unicode Standard's chapters
#: on Southeast Asian scripts; ICU's and CLDR's segmenters read it so): Thai, Lao, Tibetan,
#: Myanmar and its extensions, Khmer and Khmer Symbols, Tai Le, New Tai Lue, Tai Tham, Balinese,
#: Javanese, Tai Viet; and Japanese kana and CJK ideographs, where it marks line-break points.
_SPACELESS_BLOCKS = (
    (0x0E00, 0x0FFF),
    (0x1000, 0x109F),
    (0x1780, 0x17FF),
    (0x1950, 0x19FF),
    (0x1A20, 0x1AAF),
    (0x1B00, 0x1B7F),
    (0x3040, 0x30FF),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xA980, 0xA9FF),
    (0xAA60, 0xAADF),
)


def _spaceless(ch: str) -> bool:
    """A letter, mark, digit or punctuation of a script written without spaces between words."""
    if not ch or ord(ch) < 0x0E00:
        return False
    code = ord(ch)
    return any(low <= code <= high for low, high in _SPACELESS_BLOCKS) and unicodedata.category(ch)[0] in "LMNP"


def _script_letter(ch: str) -> bool:
    """A letter, combining mark or punctuation of a script from Hebrew on (Arabic, Indic,
    Myanmar, ...): a virama (``్``, a mark) is where Indic text puts its ZWNJ, and Persian
    text has one after an Arabic comma (``،``) too."""
    return bool(ch) and 0x0590 < ord(ch) < 0x2000 and unicodedata.category(ch)[0] in "LMP"


def _joins_script(text: str, start: int, before: str, after: str) -> bool:
    """A joiner in text of such a script: next to one of its letters, or on a line of them
    (Persian puts one after a colon or a Latin word: ``API‌ (``); never between two ASCII
    letters or digits, where it splits a word (``cu‌rl``) rather than spells one."""
    if all(ch.isascii() and (ch.isalnum() or ch == "_") for ch in (before, after) if ch) and before and after:
        return False
    if _script_letter(before) or _script_letter(after):
        return True
    line_start, line_end = text.rfind("\n", 0, start) + 1, text.find("\n", start)
    line = text[line_start : line_end if line_end >= 0 else len(text)][:4000]
    return any(_script_letter(c) and c.isalpha() for c in line if ord(c) > 0x0590)


def _emoji(ch: str) -> bool:
    return bool(ch) and (unicodedata.category(ch) == "So" or 0x1F000 <= ord(ch) <= 0x1FAFF)


def _cjk(ch: str) -> bool:
    return bool(ch) and (0x3400 <= ord(ch) <= 0x9FFF or 0x20000 <= ord(ch) <= 0x3FFFF)


@rule("HU003", "invisible-format-character", category="hidden-unicode", severity="low", kinds=(*_KINDS, kinds.TEXT))
def invisible_format_character(file: SourceFile) -> Iterator[Hit]:
    """Zero-width or other invisible format characters (ZWSP, word joiner, variation selectors).

    U+200B-U+200D, U+2060-U+2064, U+FEFF after the first character, soft hyphens outside a
    word, Hangul fillers, Mongolian and musical format characters, and runs of variation
    selectors, which can encode arbitrary bytes. Stray characters (a zero-width space pasted
    with a link) are one finding per file, at the first of them, with their count: low, or
    medium in agent instruction and configuration files. A run
    whose variation-selector bytes decode to words is a finding of its own, showing the text:
    high in agent instruction and configuration files, medium elsewhere.

    Read in files an agent or a tool loads as instructions or configuration: agent instruction
    and configuration files, every file of a known tool (workflows, Compose files, manifests,
    Dockerfiles, shell scripts, .env files ...), plain YAML and TOML other than translation
    catalogues, and `.ini`, `.cfg`, `.conf`, `.properties`, `.plist` and `.prompt` files. Not
    in JSON of no known kind (scraped or generated data as often as settings), documentation
    and other prose (Markdown, text files, dumps) or program source, where a stray zero-width
    space hides nothing that anyone runs or obeys; HU001 and HU002 still read those, and so
    does this rule for variation selectors that decode to words (hidden text, as tags are).

    Not a finding: a byte order mark at offset 0, emoji ZWJ sequences and presentation
    selectors, joiners (ZWNJ, ZWJ) in Arabic, Persian, Urdu, Indic and other scripts (inside a
    word, after a virama, or at a word's end), one or two zero-width spaces next to a letter of
    a script written without spaces between words (Thai, Lao, Khmer, Myanmar, Tibetan, Tai
    scripts, Balinese, Javanese, Japanese kana and CJK ideographs: their word separator and
    line-break point), soft hyphens inside words, ideographic variation sequences after CJK
    characters.

    Why:
    Invisible characters split words so that reviews and filters miss them ("cu<ZWSP>rl"),
    make two identical-looking keys or names differ, and can carry hidden data that a model
    decodes.

    Fix:
    Remove the characters; if a language needs them, keep that text out of configuration.
    """
    if not _in_scope(file) or not _FORMAT.search(file.text):
        return
    settings = _loaded_as_settings(file)
    stray: list[tuple[int, str]] = []  # the first few, for the position and the names
    places = characters = 0
    for match in _FORMAT.finditer(file.text):
        run = match.group()
        if _legit_format(file.text, match.start(), run):
            continue
        if not settings and not (len(run) >= 4 and _selectors(run)):
            continue  # outside settings only hidden words are looked for
        words = _words(decode_selectors(run))
        if words:
            yield Hit(
                file.pos_at(match.start()),
                f"{len(run)} invisible variation selectors hide the text {_shown(words)!r}",
                severity=_severity(file, "high", "medium"),
                why="the invisible characters decode to words" + (f"; {_AGENT_READS}" if file.kind in _STRONG else ""),
            )
            continue
        places, characters = places + 1, characters + len(run)
        if len(stray) < _MAX_PER_FILE:
            stray.append((match.start(), run))
    if stray:
        names = ", ".join(dict.fromkeys(f"U+{ord(c):04X}" for _, run in stray for c in run[:6]))
        where = f" in {places} places, the first here" if places > 1 else ""
        yield Hit(
            file.pos_at(stray[0][0]),
            f"{characters} invisible character(s) ({names}){where}",
            severity=_severity(file, "medium", ""),
            why=_AGENT_READS,
        )


#: Text files that are settings a program or an agent loads (not prose, not data).
_SETTINGS = (".cfg", ".ini", ".conf", ".properties", ".plist", ".prompt")
#: Kinds that say nothing of a file but its syntax: data as often as settings.
_GENERIC = (kinds.YAML, kinds.JSON, kinds.TOML, kinds.TEXT)


def _loaded_as_settings(file: SourceFile) -> bool:
    """Whether an agent or a tool loads the file as instructions or configuration, the scope of
    HU003: agent instructions and configuration, every file of a known tool's kind (a workflow,
    a Compose file, a Dockerfile, a shell script, a .env file ...), plain YAML and TOML that is
    not a translation catalogue, and settings files (``.ini``, ``.cfg``, ``.conf``,
    ``.properties``, ``.plist``, ``.prompt``). Not JSON of no known kind (scraped or generated
    data as often as settings), nor documentation and other prose (Markdown, text, logs, dumps):
    a stray zero-width space there hides nothing anyone runs or obeys. Tag characters and
    bidirectional controls, which hide or reorder readable text, are looked for in all of them."""
    if file.kind not in _GENERIC:
        return True
    if file.kind == kinds.TEXT and not file.path.lower().endswith(_SETTINGS):
        return False
    if file.kind == kinds.JSON:
        return False
    try:
        return not catalogue_file(file)
    except SyntaxProblem:
        return True  # settings that do not parse (SK001 says so) are settings all the same


def _selectors(run: str) -> bool:
    return any("\ufe00" <= c <= "\ufe0f" or "\U000e0100" <= c <= "\U000e01ef" for c in run)


def _words(data: bytes) -> str:
    """The text variation-selector bytes spell, when it is mostly letters and spaces ("" otherwise)."""
    if len(data) < 4:
        return ""
    text = data.decode("utf-8", "replace")
    letters = sum(c.isalpha() or c.isspace() for c in text)
    return text if letters / len(text) >= 0.7 and any(c.isalpha() for c in text) else ""


def _offset(text: str, line: int, column: int) -> int:
    """The offset of a 1-based position, counting lines at "\\n" as ``SourceFile.pos_at`` does."""
    start = 0
    for _ in range(line - 1):
        start = text.index("\n", start) + 1
    return start + column - 1


def _kept_format(before: str, run: str, after: str) -> str:
    """What an emoji sequence needs of a flagged run: presentation selectors after an emoji or a
    keycap base, and joiners between emoji. Everything else in the run is removed."""
    kept: list[str] = []
    previous = before
    for ch in run:
        selector = ch in "\ufe0e\ufe0f" and (_emoji(previous) or previous.isdigit() or previous in "#*")
        joiner = ch == "\u200d" and (_emoji(previous) or previous == "\ufe0f") and _emoji(after)
        if selector or joiner:
            kept.append(ch)
            previous = ch
    return "".join(kept)


def _kept_tags(before: str, run: str) -> str:
    """The subdivision flag at the start of a tag run (black flag, letter tags, cancel tag), if any."""
    end = run.find(_CANCEL_TAG)
    head = run[: end + 1] if end >= 0 else ""
    return head if before == _BLACK_FLAG and head and _is_flag_sequence(before + head, 1, head) else ""


_RUNS = {"HU001": _TAGS, "HU002": _BIDI, "HU003": _FORMAT}


@fixer("HU001", "HU002", "HU003")
def remove_hidden_characters(file: SourceFile, findings: Sequence[Finding], context: FixContext) -> Iterator[Edit]:
    """Remove each reported run of invisible characters, keeping what emoji sequences need
    (joiners and presentation selectors between emoji, the tags of a subdivision flag)."""
    text = file.text
    if any(f.rule == "HU003" for f in findings):  # one finding stands for every stray run of the file
        for stray in _FORMAT.finditer(text):
            if not _legit_format(text, stray.start(), stray.group()):
                before, after = text[stray.start() - 1 : stray.start()], text[stray.end() : stray.end() + 1]
                yield Edit(stray.start(), stray.end(), _kept_format(before, stray.group(), after))
    for finding in findings:
        if finding.rule == "HU003":
            continue
        try:
            start = _offset(text, finding.line, finding.column)
        except ValueError:
            continue
        match = _RUNS[finding.rule].match(text, start)
        if match is None:
            continue
        run, before = match.group(), text[start - 1 : start]
        kept = _kept_tags(before, run) if finding.rule == "HU001" else ""
        yield Edit(start, match.end(), kept)
