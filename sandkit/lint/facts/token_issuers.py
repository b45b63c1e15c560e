"""Which service issued a credential named for it, and whether a command sends it only there.

``curl -H "Authorization: Bearer $SLACK_BOT_TOKEN" -d ... https://slack.com/api/chat.postMessage``
authenticates to Slack with Slack's token: the token does not leave for anyone who did not issue
it. A token sent to another host, to a host held in a variable, or beside the environment or a
credential file is not this.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from sandkit.lazy_regex import lazy
from sandkit.lint.syntax.shell import parse_commands

#: Token-name prefixes (lower-case words of the variable's name before its secret word) whose
#: issuer's host does not read as the prefix followed by ``.com``, and the host suffixes the
#: service's API is served from. Facts of each service's documentation: the GitHub CLI reads
#: ``GH_TOKEN`` for github.com and subdomains of ghe.com; the Hugging Face hub reads ``HF_TOKEN``;
#: Wrangler reads ``CF_API_TOKEN`` for api.cloudflare.com; Datadog's API keys go to the site's
#: datadoghq.com or datadoghq.eu host; Gemini's and Google's API keys to googleapis.com; Linear's
#: API is api.linear.app, Sentry's sentry.io, Telegram's Bot API api.telegram.org, Mistral's
#: api.mistral.ai, OpenRouter's openrouter.ai, Supabase projects ``<ref>.supabase.co``.
ISSUERS: dict[str, tuple[str, ...]] = {
    "gh": ("github.com", "ghe.com"),
    "github": ("github.com", "ghe.com"),
    "hf": ("huggingface.co",),
    "huggingface": ("huggingface.co",),
    "huggingfacehub": ("huggingface.co",),
    "hugging_face": ("huggingface.co",),
    "cf": ("cloudflare.com",),
    "dd": ("datadoghq.com", "datadoghq.eu"),
    "datadog": ("datadoghq.com", "datadoghq.eu"),
    "google": ("googleapis.com",),
    "gemini": ("googleapis.com",),
    "linear": ("linear.app",),
    "sentry": ("sentry.io",),
    "telegram": ("telegram.org",),
    "mistral": ("mistral.ai",),
    "openrouter": ("openrouter.ai",),
    "supabase": ("supabase.co",),
}
#: First words of a variable's name that name no service: ``API_TOKEN``, ``MY_SECRET``.
_GENERIC = frozenset(
    {
        *("api", "access", "auth", "bearer", "bot", "app", "client", "private", "personal", "my"),
        *("the", "service", "user", "admin", "root", "master", "session", "refresh", "id", "oauth"),
        *("jwt", "token", "key", "secret", "password", "pass", "db", "database", "prod", "production"),
        *("dev", "test", "staging", "local", "remote", "server", "webhook", "web", "http", "https"),
        *("x", "new", "old", "default", "global", "shared", "team", "org", "account", "ci", "cd"),
    }
)
#: A variable named as a credential (``$SLACK_BOT_TOKEN``, ``${OPENAI_API_KEY}``); group 1 is its name.
_SECRET_VARIABLE = lazy(
    r"(?i)\$\{?(\w*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)\w*)"
)
#: Secrets other than a named variable: the environment, credential files (what SEND_SECRETS reads).
_OTHER_SECRETS = lazy(
    r"(?i)\$\(\s*(?:env|printenv|set)\b|\benv\s*\)|\bprintenv\b|/proc/self/environ|\.env\b|\.ssh/|\.aws/|"
    r"\.netrc|\.npmrc|\.pypirc|\.git-credentials|\.docker/config\.json"
)
#: curl's and wget's options that take the next word as their value (so it is no URL).
_VALUE_OPTIONS = frozenset(
    {
        *("-H", "--header", "-d", "--data", "--data-raw", "--data-binary", "--data-urlencode", "--data-ascii"),
        *("--json", "-F", "--form", "--form-string", "-u", "--user", "-X", "--request", "-o", "--output"),
        *("-T", "--upload-file", "-A", "--user-agent", "-e", "--referer", "-b", "--cookie", "-c"),
        *("--cookie-jar", "-w", "--write-out", "-m", "--max-time", "--connect-timeout", "--retry"),
        *("--retry-delay", "--retry-max-time", "--cacert", "--cert", "--key", "-E", "--oauth2-bearer"),
        *("-r", "--range", "--limit-rate", "-D", "--dump-header", "--max-redirs", "--stderr"),
        *("-O", "--output-document", "--post-data", "--post-file", "--method", "--body-data", "-U"),
        *("--password", "--http-password", "--http-user", "-P", "--directory-prefix", "-t", "--tries"),
    }
)
#: Options that send the request somewhere else than its URL, or leave it to a file: a proxy,
#: a forced address, a redirect the credentials follow, a config file, another request.
_ELSEWHERE = frozenset(
    {
        *("-x", "--proxy", "--preproxy", "--socks4", "--socks4a", "--socks5", "--socks5-hostname"),
        *("--resolve", "--connect-to", "--location-trusted", "--config", "--next", "--input-file", "--execute"),
    }
)
_SHORT_VALUE = frozenset("HdFuXoTAebcwmrDEOUPt")
#: Short options that send the request elsewhere: curl's proxy and config file, wget's input
#: file and ``-e`` commands (which may set a proxy).
_CURL_ELSEWHERE = frozenset("xK:")
_WGET_ELSEWHERE = frozenset("ieY")


def issued_by(variable: str, host: str) -> bool:
    """Whether a credential so named is one ``host`` issued: a prefix of :data:`ISSUERS` and a
    host ending in one of its suffixes, or the name's first word (or first two, joined) and a host
    whose registered name is that word followed by ``.com`` (``SLACK_BOT_TOKEN`` and
    slack.com, ``OPENAI_API_KEY`` and api.openai.com, ``NEW_RELIC_API_KEY`` and api.newrelic.com)."""
    words = [word for word in variable.lower().split("_") if word]
    host = host.lower().rstrip(".")
    if not words or not host:
        return False
    # a generic first word names no service ("API_TOKEN"), and so does one joined to a generic second
    # word ("api" "key"); one joined to a name does ("NEW_RELIC")
    prefixes = [] if words[0] in _GENERIC else [words[0]]
    if len(words) > 1 and words[1] not in _GENERIC:
        prefixes += ["_".join(words[:2]), "".join(words[:2])]
    for prefix in prefixes:
        if any(host == suffix or host.endswith("." + suffix) for suffix in ISSUERS.get(prefix, ())):
            return True
    labels = host.split(".")
    return len(labels) >= 2 and labels[-1] == "com" and labels[-2] in prefixes


def sent_to_issuer(command: str) -> bool:
    """Whether a curl or wget command (``command``: its text, from the program's name to the end
    of its line) sends every credential it names only to the service that issued it: each URL it
    is given has a written host, every credential-named variable on it was issued by each such
    host, and nothing on the line sends the environment or a credential file, or a credential
    through another network client, a proxy, a forced address or a config file."""
    if _OTHER_SECRETS.search(command):
        return False
    commands = parse_commands(command)
    if not commands or _program(commands[0].argv()) not in ("curl", "wget"):
        return False
    for each in commands:
        words = each.argv()
        program = _program(words)
        if program in _CLIENTS:
            return False
        variables = {match.group(1) for match in _SECRET_VARIABLE.finditer(" ".join(words))}
        if not variables or program not in ("curl", "wget"):
            continue
        hosts = _hosts(program, words[1:])
        if not hosts or not all(issued_by(name, host) for name in variables for host in hosts):
            return False
        if not _only_to_authenticate(words[1:]):
            return False  # the token is in what is posted (a message's text): the issuer publishes it
    return bool(_SECRET_VARIABLE.search(" ".join(commands[0].argv())))


#: Options whose value authenticates the request: a user and password, a bearer token.
_AUTH_OPTIONS = frozenset({"-u", "--user", "--oauth2-bearer", "--password", "--http-password"})
_HEADER_OPTIONS = frozenset({"-H", "--header"})
_DATA_OPTIONS = frozenset(
    {"-d", "--data", "--data-raw", "--data-binary", "--data-urlencode", "--data-ascii", "-F", "--form"}
    | {"--form-string", "--post-data", "--body-data", "--json"}
)
#: A header that carries credentials (``Authorization:``, ``X-Api-Key:``, ``PRIVATE-TOKEN:``).
_AUTH_HEADER = lazy(r"(?i)^\s*(?:authorization|proxy-authorization|[\w-]*(?:token|key|auth|secret)[\w-]*)\s*:")
#: A form or query field that carries credentials (``token=``, ``access_token=``, ``api_key=``).
_AUTH_FIELD = lazy(
    r"(?i)(?:^|[?&\s\"'{,])[\"']?(?:\w*token|\w*api_?key|key|auth|client_secret|password)[\"']?\s*[=:]\s*[\"']?$"
)


def _only_to_authenticate(words: list[str]) -> bool:
    """Whether every credential-named variable on a curl or wget command authenticates it: in an
    ``Authorization`` (or token, key) header, a user option, or a form or query field named for a
    token; not in what the request posts or the URL's other fields, which the service may publish
    (a chat message's text, a gist's body)."""
    option = ""
    for word in words:
        if word.startswith("-") and len(word) > 1 and not option:
            name = word.split("=", 1)[0]
            if "=" in word and name.startswith("--"):
                if _SECRET_VARIABLE.search(word) and not _authenticates(name, word.split("=", 1)[1]):
                    return False
                continue
            option = name if name in _VALUE_OPTIONS else ""
            continue
        if _SECRET_VARIABLE.search(word) and not _authenticates(option, word):
            return False
        option = ""
    return True


def _authenticates(option: str, value: str) -> bool:
    """Whether each credential-named variable in one option's ``value`` is where a request's
    credentials go (see :func:`_only_to_authenticate`); ``option`` is "" for a URL."""
    if option in _AUTH_OPTIONS:
        return True
    if option in _HEADER_OPTIONS:
        return bool(_AUTH_HEADER.match(value))
    if option in _DATA_OPTIONS or not option:
        return all(_AUTH_FIELD.search(value, 0, match.start()) for match in _SECRET_VARIABLE.finditer(value))
    return False


#: Network clients other than curl and wget: a credential on their command line may go anywhere.
_CLIENTS = frozenset(
    {"nc", "ncat", "netcat", "socat", "telnet", "invoke-webrequest", "invoke-restmethod", "iwr", "irm"}
)


def _program(words: list[str]) -> str:
    return words[0].rsplit("/", 1)[-1].lower() if words else ""


def _hosts(program: str, words: list[str]) -> list[str]:
    """The hosts of the URLs among a curl or wget command's words; empty when one is not known (a
    URL in a variable, an option that sends the request elsewhere)."""
    hosts: list[str] = []
    elsewhere = _CURL_ELSEWHERE if program == "curl" else _WGET_ELSEWHERE
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if word.startswith("-") and len(word) > 1:
            name = word.split("=", 1)[0]
            short = "" if name.startswith("--") else name[1:]
            if name in _ELSEWHERE or set(short) & elsewhere:
                return []
            if name == "--url" and index < len(words):
                word = words[index]
                index += 1
            elif "=" not in word and (name in _VALUE_OPTIONS or (short and short[-1] in _SHORT_VALUE)):
                index += 1  # the option's value
                continue
            else:
                continue
        host = _host(word)
        if not host:
            return []
        hosts.append(host)
    return hosts


_PLAIN_HOST = re.compile(r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+")


def _host(url: str) -> str:
    """The host a URL names, written out ("" for a host in a variable or none)."""
    try:
        host = urlsplit(url if "://" in url else f"https://{url}").hostname or ""
    except ValueError:
        return ""
    return host if _PLAIN_HOST.fullmatch(host) else ""
