"""What a credential looks like: secret-bearing names and well-known token formats.

Shared by the kit model (which refuses secrets in ``env``) and the linter. Every pattern is anchored
on a fixed prefix and uses bounded, non-nested quantifiers, so matching stays linear-time on hostile
input.
"""

from __future__ import annotations

import re

from sandkit.lazy_regex import LazyPattern, lazy

_SECRET_NAME = lazy(
    r"(?:^|_)(?:API_?KEY|ACCESS_?KEY|SECRET(?:_?KEY)?|TOKEN|PASSWORD|PASSWD|PWD|PW|PASSPHRASE|"
    r"CREDENTIALS?|PRIVATE_?KEY|AUTH|SESSION_?KEY|CLIENT_?SECRET|KEY)$",
    re.IGNORECASE,
)

#: (kind, pattern) of credential formats whose shape alone identifies them.
TOKEN_PATTERNS: tuple[tuple[str, LazyPattern], ...] = (
    ("AWS access key ID", lazy(r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b")),
    ("GitHub token", lazy(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b")),
    ("GitHub fine-grained token", lazy(r"\bgithub_pat_[A-Za-z0-9_]{22,255}\b")),
    # Personal, deploy, runner, pipeline-trigger, OAuth-application, feed and CI-job tokens.
    ("GitLab token", lazy(r"\bgl(?:pat|dt|rt|ptt|soat|oas|ft|imt|cbt|agent)-[A-Za-z0-9_.-]{20,128}")),
    ("Slack token", lazy(r"\bxox[abposr]-[A-Za-z0-9-]{10,255}\b")),
    # An app-level token (Socket Mode, app configuration APIs): ``xapp-``, a version digit, the
    # app's ID (``A`` and capitals or digits), a number, then hex.
    ("Slack app-level token", lazy(r"\bxapp-\d-A[A-Z0-9]{6,14}-\d{6,16}-[A-Za-z0-9]{24,128}\b")),
    ("Stripe secret key", lazy(r"\b[sr]k_live_[A-Za-z0-9]{16,255}\b")),
    ("Anthropic API key", lazy(r"\bsk-ant-[A-Za-z0-9_-]{20,255}")),
    ("OpenAI API key", lazy(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,255}")),
    ("Google API key", lazy(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("Google OAuth client secret", lazy(r"\bGOCSPX-[A-Za-z0-9_-]{28}")),
    (
        "Slack webhook URL",
        lazy(r"\bhooks\.slack\.com/(?:services|workflows|triggers)/T[A-Z0-9]{6,12}/[A-Za-z0-9/]{20,80}"),
    ),
    ("npm token", lazy(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ("PyPI token", lazy(r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{40,300}")),
    ("Hugging Face token", lazy(r"\bhf_[A-Za-z0-9]{34}\b")),
    ("Docker Hub token", lazy(r"\bdckr_pat_[A-Za-z0-9_-]{27,64}")),
    ("SendGrid API key", lazy(r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b")),
    ("DigitalOcean token", lazy(r"\bdo[opr]_v1_[a-f0-9]{64}\b")),
    ("Azure storage account key", lazy(r"\bAccountKey=[A-Za-z0-9+/]{86}==")),
    ("private key block", lazy(r"-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----")),
    (
        "JSON Web Token",
        lazy(r"\beyJ[A-Za-z0-9_-]{8,4096}\.eyJ[A-Za-z0-9_-]{8,8192}\.[A-Za-z0-9_-]{8,4096}"),
    ),
    # A URL's user and password hold no space, quote or backtick (nor "/", so no second scheme): a
    # match stays inside one URL, not running from a bare ``https://.`` across JSON fields to an "@".
    ("URL with a password", lazy(r"\b[a-z][a-z0-9+.-]{1,20}://[^\s:/@\"'`]{1,256}:[^\s/@\"'`]{1,256}@")),
)


#: Literal text every match of the kind holds, at a fixed place (``TOKEN_LEADS``): the only places
#: a search for the kind starts. All hints are searched in one pass (sandkit.literal_search), so a
#: hint is as specific as the format allows: a short common one ("gh") would be tried in every word.
TOKEN_HINTS: dict[str, tuple[str, ...]] = {
    "AWS access key ID": ("AKIA", "ASIA", "ABIA", "ACCA"),
    "GitHub token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    "GitHub fine-grained token": ("github_pat_",),
    "GitLab token": tuple(
        f"gl{kind}-" for kind in ("pat", "dt", "rt", "ptt", "soat", "oas", "ft", "imt", "cbt", "agent")
    ),
    "Slack token": ("xox",),
    "Slack app-level token": ("xapp-",),
    "Stripe secret key": ("k_live_",),
    "Anthropic API key": ("sk-",),
    "OpenAI API key": ("sk-",),
    "Google API key": ("AIza",),
    "Google OAuth client secret": ("GOCSPX-",),
    "Slack webhook URL": ("hooks.slack.com/",),
    "npm token": ("npm_",),
    "PyPI token": ("pypi-",),
    "Hugging Face token": ("hf_",),
    "Docker Hub token": ("dckr_pat_",),
    "SendGrid API key": ("SG.",),
    "DigitalOcean token": ("_v1_",),
    "Azure storage account key": ("AccountKey=",),
    "private key block": ("-----BEGIN ",),
    "JSON Web Token": ("eyJ",),
    "URL with a password": ("://",),
}

#: (fewest, most) characters a match holds before its hint, where that is not none, and no
#: earlier occurrence of the hint: Stripe's s or r, DigitalOcean's do and o, p or r, a URL's scheme.
TOKEN_LEADS: dict[str, tuple[int, int]] = {
    "Stripe secret key": (1, 1),
    "DigitalOcean token": (3, 3),
    "URL with a password": (2, 21),
}

#: Where a kind's hint is common text ("://" starts every URL's host), a pattern that finds only
#: the occurrences a match can hold: a URL's user, ":" and password end in "@" before any "/".
TOKEN_LOCATORS: dict[str, LazyPattern] = {
    "URL with a password": lazy(r"://(?=[^\s:/@\"'`]{1,256}:[^\s/@\"'`]{1,256}@)")
}


# Words that mark a value as a stand-in rather than a credential (documentation, templates).
_PLACEHOLDER_WORDS = lazy(
    r"change_?-?me|example|placeholder|dummy|your[_-]?|replace|redacted|fake|sample|"
    r"insert|notreal|not[_-]a[_-]real|xxxx|\*\*\*|\.\.\.|<[^>]{0,64}>|todo|fixme|"
    r"(?:secret|token|key|pass(?:word|wd)?|pwd|value|string|credentials?)[_-]?(?:goes[_-]?)?here|hunter2|"
    # a description of a value in place of one: ``somevalue``, ``some-password``, ``any_secret``, ``myvalue``
    r"(?<![a-z])(?:some|any)[_-]?(?:value|string|text|thing|pass(?:word|wd)?|pwd|secret|token|key|api[_-]?key|"
    r"credentials?)s?(?![a-z])|(?<![a-z])(?:my|the|a)[_-]?(?:value|string)(?![a-z])",
    re.IGNORECASE,
)
_PLACEHOLDER_VALUES = frozenset(
    {
        "password",
        "passwd",
        "secret",
        "token",
        "pass",
        "key",
        "apikey",
        "api_key",
        "admin",
        "root",
        "test",
        "testing",
        "foo",
        "bar",
        "baz",
        "string",
        "value",
        "none",
        "null",
        "nil",
        "undefined",
        "true",
        "false",
        "yes",
        "no",
        "on",
        "off",
        "required",
        "optional",
        "default",
        "postgres",
        "mysql",
        "guest",
        "user",
        "username",
        "letmein",
        "qwerty",
        "s3cr3t",
    }
)
# References to a secret kept elsewhere: environment and template variables, secret stores, and
# expressions the consumer evaluates: ``${...}``, ``$(...)``, ``{{ }}``, ``{% %}``, ``<%= %>``, Azure
# Pipelines ``$[ ]``, Azure Resource Manager ``[parameters('x')]`` (any whole ``[...]``: also a
# ``[TOKEN]`` placeholder), Logic Apps and App Service ``@parameters('x')``/``@Microsoft.KeyVault(...)``,
# token replacement ``#{Name}#`` and ``__Name__``, Concourse ``((name))``, Maven ``@name@``, Puppet ``%{x}``.
_REFERENCE = lazy(
    r"\$\{|\$\(|\$\[|\{\{|\}\}|\{%|<%|%\(|%s|%\{[^{}]{1,80}\}|#\{[^{}]{1,80}\}|\(\([\w./: -]{1,120}\)\)|"
    r"^\{[^{}\s]{1,80}\}$|^\$[A-Za-z_]|^%[A-Za-z_][A-Za-z0-9_]*%$|^\[[^\[\]]{1,200}\]$|"
    r"^__[A-Za-z][\w.-]{0,80}__$|^@[\w.-]{1,80}@$|^@\{?[A-Za-z][\w.]{0,60}\(|^(?:/run/secrets/|/var/run/secrets/|"
    r"file:|env:|vault:|op://|ref\+|sm://|arn:aws:|secretsmanager:|projects/[^/]{1,64}/secrets/|"
    r"azurekeyvault|keyvault:|!)",
    re.IGNORECASE,
)

#: A reference to a secret kept in a store, as a URI or URN whose scheme names the store, then a
#: name or path: a Kubernetes Secret's (``urn:k8s:secret:sso:SESSION_KEY``, Traefik's OIDC plugin;
#: ``k8s-secret:``, ``kubernetes:secret:``), a cloud secret manager's (``aws-secretsmanager:/db``,
#: ``awssecretsmanager:``, ``aws-parameterstore:``, ``ssm:/app/key``, ``gcp:secretmanager:``,
#: ``azure:keyvault:``, ``azurekeyvault://``), or a store's own scheme (``vault://``, ``secret://``,
#: ``berglas://``, ``doppler://``, ``infisical://``, ``bws://``, ``akv://``, ``gsm://``, ``sops://``,
#: ``conjur:``). A scheme must be one of these: ``redis://user:pass@...`` is a URL.
_STORE_REFERENCE = lazy(
    r"(?:urn:)?(?:k8s|kube|kubernetes)[-:_]secrets?:[\w./:#@=+-]{1,400}$|"
    r"(?:secrets?|vault|op|sm|akv|gsm|gcpsm|awssm|bws|berglas|doppler|infisical|sops|conjur|keyvault|"
    r"azurekeyvault|ssm)://[\w./:#@?=&%+-]{1,400}$|"
    r"(?:(?:aws|gcp|google|azure)[-:_]?)?(?:secrets?-?manager|parameter-?store|ssm|key-?vault|conjur):"
    r"[\w./:#@?=&%+-]{1,400}$|"
    r"(?:aws|gcp|google|azure)[-:_]?(?:sm|kv|secrets?):[\w./:#@?=&%+-]{1,400}$",
    re.IGNORECASE,
)


#: Digits and signs leetspeak writes letters with; ``1`` is read as ``i`` and as ``l``.
_LEET_I = str.maketrans("013457@$", "oieastas")
_LEET_L = str.maketrans("013457@$", "oleastas")
#: Phrases a value says it is a stand-in with, beside `_PLACEHOLDER_WORDS`: read on the value with
#: its separators and case dropped, past leetspeak (``pleasechangethis``, ``notaverysecretvalue``).
_SAYS_PLACEHOLDER = lazy(
    r"pleasechange|changethis(?:value|password|secret|key|token)|changeme|replaceme|replacethis|"
    r"notaverysecret|notasecret|notsecret"
)


def unleet(text: str) -> tuple[str, ...]:
    """The text lower-cased with its separators dropped and read past leetspeak (``Ch4nge-Th1s`` is
    "changethis", read with ``1`` as ``i`` and as ``l``)."""
    flat = re.sub(r"[\s_.-]", "", text.lower())
    if not any(c in "013457@$" for c in flat):
        return (flat,)
    return tuple(dict.fromkeys((flat.translate(_LEET_I), flat.translate(_LEET_L))))


def _long_placeholder_word(flat: str) -> bool:
    """A placeholder word of six letters or more (``replace``, ``example``, ``placeholder``): in a
    random value read past leetspeak, a four-letter one (``fake``, ``your``) turns up by chance."""
    return any(len(match.group()) >= 6 for match in _PLACEHOLDER_WORDS.finditer(flat))


def is_placeholder(value: str) -> bool:
    """True when ``value`` is a stand-in or a reference, not a literal credential.

    Covers empty and very short values, ``${VAR}``/``$VAR``/``{{ template }}`` references,
    format placeholders (``{token}``, ``%s``),
    secret-store references (``/run/secrets/...``, ``op://``, ``vault:``, ARNs), words such as
    changeme, example, dummy or ``<token>``, runs of one character, and a few words that are
    names rather than values (``password``, ``none``, ``true``).
    """
    text = value.strip().strip("\"'`")
    if len(text) < 6 or text.lower() in _PLACEHOLDER_VALUES:
        return True
    if _REFERENCE.search(text) or _PLACEHOLDER_WORDS.search(text) or instruction_placeholder(text):
        return True
    read = unleet(text)
    if any(_SAYS_PLACEHOLDER.search(plain) for plain in read):
        return True  # ``PleaseChangeThis-NotAVerySecretValue``, in leetspeak too (``Ple4seCh4ngeThis...``)
    if read[0] != re.sub(r"[\s_.-]", "", text.lower()) and any(_long_placeholder_word(plain) for plain in read):
        return True  # ``R3pl4c3M3``, ``3x4mpl3``: the placeholder words in leetspeak
    if _STORE_REFERENCE.match(text):
        return True
    return len(set(text.lower())) <= 2 or made_up(text)


_CAPITAL_WORDS = lazy(r"[A-Z]{2,}(?:[-_][A-Z]{1,})+")
#: Words of an instruction written in place of a value: what to do with it (SET-ME, TO_BE_REPLACED,
#: MUST-OVERRIDE) ...
_INSTRUCTION_VERBS = frozenset(
    {
        "DEFINED", "DEFINE", "SET", "PROVIDED", "PROVIDE", "INJECTED", "INJECT", "REPLACE", "REPLACED",
        "REPLACEME", "CHANGE", "CHANGED", "OVERRIDE", "OVERRIDDEN", "OVERWRITE", "OVERWRITTEN", "FILL",
        "FILLED", "ENTER", "PUT", "ADD", "TBD", "REQUIRED", "MUST", "SUPPLIED", "SUPPLY", "CONFIGURE",
        "CONFIGURED", "GENERATED", "MISSING", "UNSET", "NOTSET",
    }
)  # fmt: skip
#: ... or where the value is kept (FROM_SECRET_STORE, IN-VAULT), after a word that says "from there".
_INSTRUCTION_PLACES = frozenset(
    {"VAULT", "STORE", "ENV", "ENVIRONMENT", "REGION", "KEYVAULT", "PIPELINE", "CI", "SSM", "KMS", "CONFIGMAP"}
)
_INSTRUCTION_LINKS = frozenset({"FROM", "IN", "BY", "VIA", "SEE", "AT"})


def instruction_placeholder(text: str) -> bool:
    """A value made only of upper-case words joined by ``-`` or ``_`` that tells where the value is
    set or that it must be set (``DEFINED-IN-REGION-SECRETS``, ``SET-ME``, ``PROVIDED-BY-VAULT``,
    ``FROM_SECRET_STORE``, ``TO_BE_REPLACED``), misspelt too (``DEFINED-IN-REGION-SECRECTS``).

    Capital words alone are not enough (``CORRECT-HORSE-BATTERY-STAPLE`` is a password): one word
    must be an instruction's verb, or a "from/in/by" word beside a place a secret is kept."""
    if not _CAPITAL_WORDS.fullmatch(text):
        return False
    words = re.split(r"[-_]", text)
    if any(word in _INSTRUCTION_VERBS for word in words):
        return True
    places = any(word in _INSTRUCTION_PLACES or word.startswith("SECR") for word in words)
    return places and any(word in _INSTRUCTION_LINKS for word in words)


_REPEATED = lazy(r"(.{2,32}?)\1+")
_HEX_GROUPS = lazy(r"[0-9a-z]{4,12}(?:-[0-9a-z]{2,12}){2,}")
_RUN_ALPHABETS = ("0123456789abcdefghijklmnopqrstuvwxyz", "qwertyuiop", "asdfghjkl", "zxcvbnm", "1234567890")


def made_up(text: str) -> bool:
    """A value typed to look like a key rather than made by a generator: one piece repeated
    (``privatekeyprivatekey``, ``abcabcabc``), counting or keyboard runs (``0123456789abcdef``,
    ``abcdef123456``, ``qwertyuiop``), or a hex identifier's shape holding letters hex has not
    (``8312341g-5678-abcd-...``: a real UUID or hex key is made of 0-9 and a-f only)."""
    lower = text.lower()
    if _REPEATED.fullmatch(lower):
        return True
    if _counting_runs(re.sub(r"[-_.]", "", lower)):
        return True
    return _hex_with_other_letters(lower)


def _hex_with_other_letters(lower: str) -> bool:
    """Mostly hex digits with a few letters beyond f, in a hex identifier's grouping (one in
    five characters at most) or as 32 characters or more (one in ten at most): in a random
    lower-case key more than half of the characters are letters beyond f. A ``0x`` prefix is
    hex notation, not a letter of the key."""
    lower = lower.removeprefix("0x")
    letters = re.sub(r"[^0-9a-z]", "", lower)
    other = sum(1 for c in letters if c > "f")
    if _HEX_GROUPS.fullmatch(lower):
        return other > 0 and 5 * other <= len(letters)
    long_hex_like = len(lower) >= 32 and re.fullmatch(r"[0-9a-z]+", lower) and re.search(r"\d", lower)
    return bool(long_hex_like) and other > 0 and 10 * other <= len(letters)


def _counting_runs(flat: str) -> bool:
    """The whole text is at most two runs of three or more characters each counting up or down
    an alphabet (digits then letters) or along a keyboard row."""
    if len(flat) < 6:
        return False
    runs, start = 0, 0
    while start < len(flat):
        end = _run_end(flat, start)
        if end - start < 3:
            return False
        runs, start = runs + 1, end
    return runs <= 2


def _run_end(flat: str, start: int) -> int:
    """Where the longest counting run starting at ``start`` ends (exclusive)."""
    best = start + 1
    for alphabet in _RUN_ALPHABETS:
        for step in (1, -1):
            end = start + 1
            while end < len(flat):
                here, there = alphabet.find(flat[end - 1]), alphabet.find(flat[end])
                if here < 0 or there != here + step:
                    break
                end += 1
            best = max(best, end)
    return best


def is_secret_name(name: str) -> bool:
    """True for names such as ``GITHUB_TOKEN``, ``DB_PASSWORD`` or ``OPENAI_API_KEY``."""
    return bool(_SECRET_NAME.search(name))


#: Keys of a data structure, not credentials: a record's (primary, sort, partition, foreign, composite,
#: unique, surrogate, natural; an entity's, column's, spec's, variant's, category's), an analyser's
#: (SonarQube's ``ruleKey``, ``resourceKey``), a lookup's (cache, hash, map, dict, lookup, index, join), an
#: ordering's or grouping's (sort, range, rank, group, shard, routing), a UI list's (AngularJS
#: ``$$hashKey``, React ``itemKey``, ``trackKey``) and a project's or module's key (SonarQube's
#: ``sonar.projectKey``, Jira's and LaunchDarkly's project keys: names, not credentials), and a
#: captcha widget's site key (reCAPTCHA, hCaptcha, Turnstile: written into every page that shows the
#: widget; the credential is the separate site secret or secret key).
_DATA_KEY = lazy(
    r"(?i)(?:^|_)(?:public|publishable|primary|sort|partition|foreign|idempotency|composite|unique|"
    r"surrogate|natural|compound|cache|ssh_host|host|gpg|signing_public|lookup|dedup|dedupe|routing|hash|"
    r"object|i18n|translation|hot|short|map|sign_in|api_key_name|key_id|result|limit|s3|join|range|"
    r"row|dict|group|query|shard|index|media|license|item|list|track|field|record|"
    r"label|tag|metric|series|bucket|order|rule|resource|spec|entity|column|component|variant|category|"
    r"attribute|property|section|feature|rank|project|module|site)_?key$"
)
#: A .NET assembly's strong-name public key token (``PublicKeyToken=31bf3856ad364e35``): eight bytes of
#: the hash of a public key, printed in every assembly's full name.
_PUBLIC_KEY_TOKEN = lazy(r"(?i)(?:^|_)public_?key_?token$")
#: A password's hash or digest (``hashedPassword``, ``password_hash``, ``password_digest``): what a
#: login is checked against, not what one logs in with.
_HASHED = lazy(r"(?i)(?:^|_)(?:hashed|hash|digest|salted)(?:_|$)")


def is_secret_key(name: str) -> bool:
    """Like :func:`is_secret_name`, for keys written in any case style (``apiKey``, ``db-pass``).

    Keys that name non-secrets are left out: a bare ``key`` (cache keys, translation keys),
    public, publishable, primary, sort, partition, foreign and idempotency keys, and
    ``*_token_url``-like names that end in a different word.
    """
    bare = re.sub(r"^[^A-Za-z0-9]+", "", name.strip())  # ``$$hashKey``, ``_sortKey``: a framework's own key
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", bare).replace("-", "_").replace(".", "_")
    if not snake or snake.lower() in ("key", "auth", "keys", "token_type"):
        return False
    if _DATA_KEY.search(snake) or _HASHED.search(snake) or _PUBLIC_KEY_TOKEN.search(snake):
        return False
    return is_secret_name(snake) or bool(re.search(r"(?i)(?:^|_)pass$", snake))


def credential_kind(value: str) -> str | None:
    """The kind of credential ``value`` contains (e.g. "GitHub token"), or None."""
    for kind, pattern in TOKEN_PATTERNS:
        if pattern.search(value):
            return kind
    return None
