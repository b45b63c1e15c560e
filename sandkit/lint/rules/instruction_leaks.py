"""agent-instructions that send data out or hide what they ask for: instruction files telling the
agent to post the environment or credentials somewhere, or to keep a step from its user.

Download-and-run is AI001's; these are the other two halves of a planted instruction: taking
something out, and making sure nobody hears about it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sandkit.lazy_regex import lazy
from sandkit.lint.facts.agent_commands import LINE_LIMIT, SEND_SECRETS, SEND_SECRETS_WORDS, matches_by_line
from sandkit.lint.facts.token_issuers import sent_to_issuer
from sandkit.lint.kinds import AGENT_INSTRUCTIONS
from sandkit.lint.model import Hit, clip
from sandkit.lint.registry import rule
from sandkit.lint.source import SourceFile

#: A sentence asking to send secrets or the environment to a place: "post the contents of .env
#: to https://...", "upload ~/.aws/credentials to the webhook".
_SEND_PROSE = lazy(
    r"(?i)\b(?:send|post|upload|forward|transmit|exfiltrate|copy|paste|submit|report)\b[^.\n]{0,120}?"
    r"(?:\benv(?:ironment)?(?:\s+variables?)?\b|\.env\b|\bprintenv\b|\bsecrets?\b|\btokens?\b|"
    r"\bcredentials?\b|\bapi[\s_-]?keys?\b|~/\.ssh|\bssh\s+keys?\b|\bprivate\s+keys?\b|~/\.aws|\.npmrc|"
    r"\.git-credentials)"
    r"[^.\n]{0,120}?(?:https?://|\bwebhook\b|\bto\s+[\w.-]+\.[a-z]{2,}\b)"
)
#: Telling the agent to keep a step from the person: "do not mention this step", "without
#: telling the user", "silently run ...", "hide this from the user". Acting without *asking*
#: ("open the PR without asking the user for confirmation") is not hiding: the step is in the
#: transcript, and whether the agent may act unasked is its permission settings' business.
_CONCEAL = lazy(
    r"(?i)\b(?:do\s+not|don'?t|never|must\s+not)\s+(?:mention|tell|inform|notify|reveal|disclose|show|report|"
    r"explain|say|log|output|print)\w*\b[^.\n]{0,40}?"
    r"(?:\b(?:this|these|the\s+(?:above|following))\s+(?:steps?|instructions?|commands?|actions?|tasks?)\b|"
    r"\b(?:to|with|from)\s+the\s+(?:user|human|developer|reviewers?|operator)\b)|"
    r"\b(?:do\s+not|don'?t|never|must\s+not)\s+(?:tell|inform|notify|alert|mention\s+(?:it|this)\s+to)\s+"
    r"(?:the\s+)?(?:user|human|developer|reviewers?|operator|anyone)\b|"
    r"\bwithout\s+(?:telling|informing|notifying|alerting|mentioning\s+it\s+to)\s+the\s+"
    r"(?:user|human|developer|reviewers?|operator)\b|"
    r"\b(?:silently|secretly|covertly|quietly)[*_]{0,3}\s+(?:run|execute|send|upload|install|download|post|curl|wget|"
    r"add|append|modify|delete|exfiltrate)\b|"
    r"\bhide\s+(?:this|these|it|the\s+(?:output|command|step))\b[^.\n]{0,30}?\bfrom\s+the\s+"
    r"(?:user|human|developer|reviewers?)\b"
)
#: What may stand before "silently run ..." for it to be an order: the start of a sentence, a
#: clause or a list item (markup allowed), a joining word ("and", "then"), a "you must" or a
#: "make sure to".
_ORDER_BEFORE = lazy(
    r"(?i)(?:^|[.!?:;,(\u2014\u2013]|\s-|\b(?:and|then|also|always|just|please|first|now|next|"
    r"(?:you\s+)?(?:must|should|shall|need\s+to|have\s+to)|(?:make|be)\s+sure\s+to|remember\s+to))"
    r"[\s*_>#`\-]*(?:\d{1,3}[.)][\s*_]*)?$"
)
#: A negation right before "silently ...": "don't silently delete", "never quietly install",
#: "recommend - do not silently install": a warning against hiding, the opposite of an order.
_NEGATED_BEFORE = lazy(
    r"(?i)\b(?:do\s+not|don'?t|never|must\s+not|should\s*n[o']t|not|avoid|instead\s+of)"
    r"(?:[\s*_]+(?:just|ever|simply|merely|even|really|actually|blindly|automatically|ever\s+again))*[\s*_]*$"
)
_SILENT_ADVERB = lazy(r"(?i)(?:silently|secretly|covertly|quietly)\b")
#: Telling the agent not to hand its work to the person: "don't tell the user to go fix it
#: themselves", "don't tell the user to run them" (run them yourself), "never ask the user how to
#: install it". An order to do the work rather than delegate it hides nothing. Read from where a
#: :data:`_CONCEAL` match starts; "don't tell the user you ran X", "do not tell the user about the
#: upload" and "don't tell the user, to avoid alarm" (a purpose, not a task) are not this.
_DELEGATION = lazy(
    r"(?i)(?:do\s+not|don'?t|never|must\s+not)\s+(?:tell|ask|instruct|inform|remind|notify|"
    r"(?:explain|mention|say)\s+to)\s+(?:the\s+)?(?:user|human|developer|operator)s?\s+(?:how\s+)?to\s+"
    r"(?:(?:go|just|manually|first)\s+(?:and\s+)?)*"
    r"(?:run|re-?run|execute|fix|do|install|re-?install|upgrade|type|enter|paste|copy|open|check|verify|"
    r"restart|reload|start|stop|edit|change|update|set|configure|create|add|remove|delete|apply|perform|"
    r"make|try|look|click|navigate|visit|download|commit|push|resolve|handle|write|test|build|invoke|"
    r"call|launch|go|use)\b"
)
#: A rule about the form of what is shown, not about hiding a step: "do not show raw pipeline
#: output to the user", "never print the full JSON to the user" (a summary is shown instead).
_PRESENTATION = lazy(
    r"(?i)(?:do\s+not|don'?t|never|must\s+not)\s+(?:show|output|print|display|dump|paste)\s+"
    r"(?:the\s+|any\s+|all\s+(?:the\s+)?)?(?:raw|verbose|full|entire|whole|complete|unformatted|unprocessed|"
    r"intermediate|debug|json|xml|yaml|html)\b"
)
_CLAUSE_END = lazy(r"[.;!?](?:\s|$)")
#: The person a :data:`_CONCEAL` match names: what is told to them follows it.
_PERSON = lazy(r"(?i)\b(?:user|human|developer|operator)s?\b")
#: What is not to be told, written as a message in quotes: "don't tell the user 'no such
#: workspace' ...", "do NOT tell the user \"I can't run that\"". Its text is group ``said``.
_QUOTED = lazy(
    r"""(?i)[\s,:*_]*(?:that\s+|with\s+)?[*_]*(?:"(?P<d>[^"\n]{1,200})"|\u201c(?P<c>[^\u201d\n]{1,200})\u201d|"""
    r"""\u2018(?P<s>[^\u2019\n]{1,200})\u2019|`(?P<b>[^`\n]{1,200})`|'(?P<q>[^\n]{1,200}?)'(?!\w))"""
)
#: A message that refuses the work or hands it to the person: "I can't run that, please paste
#: ...", "I don't have access", "you'll need to run ...", "please run ...": the order is to do the
#: work instead of saying so.
_REFUSAL = lazy(
    r"(?i)^\W*(?:I\s*(?:can'?t|cannot|can\s+not|am\s+unable|'m\s+unable|am\s+not\s+able|'m\s+not\s+able|"
    r"don'?t\s+have|do\s+not\s+have|have\s+no|won'?t\s+be\s+able|couldn'?t|could\s+not)|unable\s+to|"
    r"(?:sorry|unfortunately)\b|please\b|you(?:'ll|\s+will)?\s+(?:need|have|must|should|can)\b|"
    r"(?:run|paste|execute|type|copy|install|try)\b)"
)
#: A check the claim must wait for: "without enumerating all workspaces first", "until you have
#: searched", "before you have re-run it", "unless you checked". Not "until the session ends".
_CHECK_FIRST = lazy(
    r"(?i)\b(?:without|before|until|unless)\s+(?:first\s+|actually\s+|having\s+)?\w+ing\b|"
    r"\b(?:before|until|unless)\s+(?:you|we)(?:'ve|\s+have|\s+had|\s+actually|\s+first)*\s+\w+"
)
#: A claim stated as a fact about the world, which a check settles: a "that" clause, or one with a
#: verb of being or working ("the file does not exist", "it's fixed", "no such workspace").
_STATEMENT = lazy(
    r"(?i)[\s,:*_]*(?:that\b|[^.;\n]{0,80}?\b(?:is|are|was|were|isn'?t|aren'?t|does|doesn'?t|do|don'?t|did|didn'?t|"
    r"has|have|hasn'?t|can'?t|cannot|won'?t|exists?|works?|worked|fails?|failed|passe[sd]|succeed(?:s|ed)?|"
    r"finished|completed?|fixed|resolved|ready|done|broken|missing|no\s+such|not\s+found|impossible)\b|"
    r"[^.;\n]{0,80}?\b(?:it|that|there|this|what|he|she|they|you|we)'(?:s|re)\b)"
)
#: The agent's own act as what is told: "you ran the cleanup", "that you uploaded the logs", "I
#: sent the report": hiding it is hiding a step, whatever check follows.
_OWN_ACT = lazy(
    r"(?i)\b(?:you|I|we)(?:'ve|'d|\s+(?:have|had|just|already|also|then|successfully))*\s+"
    r"(?:\w+ed|ran|run|sent|wrote|written|made|did|done|put|set|took|taken|got|built|spent|left|kept|read)\b"
)
#: "Don't explain how @mention works to the user", "never explain to the user why ...": a rule about
#: what the reply holds. Still hiding: explaining a step named as one ("these steps", "what you ran").
_EXPLAIN = lazy(r"(?i)(?:do\s+not|don'?t|never|must\s+not)\s+(?:explain|describe|elaborate\s+on)\b")
_STEP_NAMED = lazy(
    r"(?i)\b(?:this|these|that|those|the\s+(?:above|following|previous|preceding))\s+"
    r"(?:steps?|instructions?|commands?|actions?|tasks?|changes?|scripts?|uploads?|downloads?)\b|"
    r"\b(?:what|why|that|how)\s+you(?:'ve|\s+have|\s+are|\s+were)?\s+(?:\w+ed|ran|run|sent|did|done|doing|\w+ing)\b|"
    + _OWN_ACT.pattern[4:]
)
#: Every match of the patterns above holds one of these words, as a whole word: the lines
#: :func:`matches_by_line` searches.
_SEND_PROSE_WORDS = ("send", "post", "upload", "forward", "transmit", "exfiltrate", "copy", "paste", "submit", "report")
_CONCEAL_LINE_WORDS = (
    "not",
    "don't",
    "dont",
    "never",
    "without",
    "silently",
    "secretly",
    "covertly",
    "quietly",
    "hide",
)
#: Every finding's text holds one of these (the rules' triggers).
_SEND_WORDS = re.compile(
    r"(?i)curl|wget|\bnc\b|ncat|netcat|invoke-|iwr|irm|send|post|upload|forward|transmit|exfil|copy|paste|submit|report"
)
_CONCEAL_WORDS = re.compile(r"(?i)without|silently|secretly|covertly|quietly|hide|\bnot\b|\bnever\b|don'?t")
#: Words that turn a sentence into a warning rather than an order.
_WARNING = lazy(r"(?i)\b(?:never|do\s+not|don'?t|must\s+not|avoid|refuse|instead\s+of|prohibited|forbidden)\b")


@rule(
    "AI005",
    "instructions-send-data-out",
    category="agent-instructions",
    severity="high",
    kinds=(AGENT_INSTRUCTIONS,),
    triggers=(_SEND_WORDS,),
)
def instructions_send_data_out(file: SourceFile) -> Iterator[Hit]:
    """An instruction file tells the agent to send the environment or credentials somewhere.

    A command that posts `env`/`printenv`, /proc/self/environ, a .env file, SSH, cloud or
    package-manager credentials or a token-named variable with curl, wget, nc or
    Invoke-WebRequest (the same commands AA012 finds in install scripts), or a sentence
    asking to send, post or upload secrets, tokens, keys or the environment to a URL, a
    webhook or a host; the first 1,000 characters of each line are read. Warnings ("never
    send tokens to ...") are not findings, nor is a curl or wget command that sends a token only
    to the service that issued it (`curl -d ... -H "Authorization: Bearer $SLACK_BOT_TOKEN"
    https://slack.com/api/chat.postMessage`, `$OPENAI_API_KEY` to api.openai.com, `$GH_TOKEN` to
    api.github.com): every URL's host is written out and is the issuer of every token-named
    variable on the command (the name's first word, or first two joined, followed by `.com`, or
    a short table of prefixes and hosts: `GH`, `HF`, `CF`, `DD`, `GEMINI` ...), and nothing on
    the line sends the environment or a credential file, another network client, a proxy,
    `--resolve` or a config file. A token sent to another host, to a host in a variable, or
    with another service's token beside it stays a finding.

    Why:
    The agent treats the file as its user's instructions and holds the session's keys and
    tokens; one planted line sends them to whoever wrote it.

    Fix:
    Remove the instruction and find out who added it; an agent never needs to send
    credentials anywhere to do its task.
    """
    seen: set[int] = set()
    checks = _ISSUER_CHECKS
    for pattern, what, words in (
        (SEND_SECRETS, "a command sending", SEND_SECRETS_WORDS),
        (_SEND_PROSE, "asks to send", _SEND_PROSE_WORDS),
    ):
        for match in matches_by_line(pattern, file.text, words):
            pos = file.pos_at(match.start())
            before = file.line_text(pos.line)[: pos.column - 1]
            if pos.line in seen or _WARNING.search(before + match.group()[:40]):
                continue
            if pattern is SEND_SECRETS and checks > 0:
                checks -= 1
                if sent_to_issuer(_command_at(file.text, match.start())):
                    continue  # a token sent to the service that issued it: authentication
            seen.add(pos.line)
            yield Hit(pos, f"instructions tell the agent to send data out ({what}): {clip(match.group())}")


#: How many commands of one file are parsed to see whether they send a token to its issuer; past
#: them every command is reported (a planted file of 20,000 continued curl lines took seconds).
_ISSUER_CHECKS = 200
#: How many lines a command continued with a backslash is read over.
_CONTINUED_LINES = 20


def _command_at(text: str, start: int) -> str:
    """The command starting at ``start``: to the end of its line, over lines it continues with a
    trailing backslash, and cut at a backtick (the end of a Markdown code span)."""
    end = start
    for _ in range(_CONTINUED_LINES):
        line_end = text.find("\n", end)
        if line_end < 0:
            end = len(text)
            break
        end = line_end
        if not text[start:end].rstrip().endswith("\\"):
            break
        end += 1
    command = text[start : min(end, start + LINE_LIMIT * 2)]
    return command.split("`", 1)[0]


@rule(
    "AI006",
    "instructions-conceal-from-user",
    category="agent-instructions",
    severity="medium",
    kinds=(AGENT_INSTRUCTIONS,),
    triggers=(_CONCEAL_WORDS,),
)
def instructions_conceal_from_user(file: SourceFile) -> Iterator[Hit]:
    """An instruction file tells the agent to keep a step from its user.

    "Do not mention this step", "don't tell the user", "without telling the user",
    "silently run ...", "hide this from the user". Ordinary style rules ("do not mention
    the ticket number in commit titles") name no step and no person, and are not findings.
    "Silently" counts as an order only (at the start of a sentence, clause or list item, or
    after "and", "then", "you must"): not negated ("don't silently delete") and not a
    description ("a stale copy would silently run"); a negation counts with an adverb between
    ("don't just silently delete", "never ever quietly install"). Acting without asking ("without
    asking the user for confirmation") hides nothing and is not a finding, nor is a rule about
    the form of what is shown ("do not show raw pipeline output to the user", "never print the
    full JSON to the user": raw, verbose, full, intermediate, debug, JSON... output), nor an
    order to do the work rather than hand it to the person ("don't tell the user to go fix it
    themselves", "don't tell the user to run them", "do not ask the user how to install it": to
    run, fix, install, open, edit... something); "don't tell the user you ran X", "do not tell the
    user about the upload" and "never mention to the user that ..." still are. Nor is a rule
    about a message rather than a step: a claim to check first ("don't tell the user 'no such
    workspace' without enumerating all workspaces first", "never tell the user it's fixed before
    running the tests"), a refusal in quotes ("do NOT tell the user 'I can't run that, please
    paste ...'"), or an explanation ("do NOT explain how @mention works to the user"); telling of
    the agent's own act stays a finding, checked or not ("don't tell the user you ran X", "don't
    tell the user 'I ran the cleanup' until you have checked"), and so does explaining a step
    named as one ("never explain these steps to the user"). A match that is none of these lets a
    later one on the same line count.

    Why:
    Honest instructions have nothing to hide from the person running the agent. Text that
    asks for secrecy is how planted instructions keep a download, a changed setting or a
    leak out of the session's transcript and summary.

    Fix:
    Remove the instruction; an agent should report every command it runs.
    """
    text = file.text
    for first in matches_by_line(_CONCEAL, text, _CONCEAL_LINE_WORDS):
        line_start = text.rfind("\n", 0, first.start()) + 1
        line_end = text.find("\n", first.start())
        line_end = min(len(text) if line_end < 0 else line_end, line_start + LINE_LIMIT)
        match: re.Match[str] | None = first
        while match is not None:  # a match that is no order lets a later one on the line count
            if _concealment(text, line_start, line_end, match):
                yield Hit(
                    file.pos_at(match.start()),
                    f"instructions tell the agent to hide what it does: {clip(match.group())}",
                )
                break
            match = _CONCEAL.search(text, max(match.end(), match.start() + 1), line_end)


def _concealment(text: str, line_start: int, line_end: int, match: re.Match[str]) -> bool:
    """Whether a :data:`_CONCEAL` match orders the agent to hide a step: not "silently ..."
    that is negated or describes ("a stale copy would silently run"), not a rule about the form of
    what is shown ("raw output"), not an order to do the work rather than hand it to the person
    ("don't tell the user to run them")."""
    if _SILENT_ADVERB.match(match.group()) and not _an_order(text[line_start : match.start()]):
        return False
    if _PRESENTATION.match(match.group()):
        return False  # the form of what is shown ("raw output"): a summary is shown instead
    if _DELEGATION.match(text, match.start(), line_end) is not None:
        return False  # do the work rather than hand it to the person
    return not _message_not_a_step(_sentence_from(text, match.start(), line_end))


def _sentence_from(text: str, start: int, line_end: int) -> str:
    """The text from ``start`` to the end of its line, and, when the line ends right after the
    person ("Do NOT tell the user" then the message on the next line, as wrapped Markdown is
    written), the next line too, joined by a space."""
    rest = text[start:line_end]
    person = _PERSON.search(rest)
    if person is None or rest[person.end() :].strip(" \t:,*_"):
        return rest
    following = text.find("\n", line_end + 1)
    following = len(text) if following < 0 else following
    return rest + " " + text[line_end + 1 : min(following, line_end + 1 + LINE_LIMIT)].strip()


def _message_not_a_step(line: str) -> bool:
    """Whether what the person is not to be told is a message rather than a step (``line`` runs
    from the match to the end of its line): an explanation ("don't explain how @mention works to
    the user"), a refusal in quotes ("do NOT tell the user 'I can't run that, please paste ...'"),
    or a claim to check first ("don't tell the user 'no such workspace' without enumerating all
    workspaces first"). "Don't tell the user you ran X" is none of these."""
    clause = _CLAUSE_END.split(line, maxsplit=1)[0]
    if _EXPLAIN.match(clause):
        return _STEP_NAMED.search(clause) is None
    person = _PERSON.search(line)
    if person is None:
        return False
    quoted = _QUOTED.match(line, person.end())
    if quoted is not None:
        said = next(part for part in quoted.group("d", "c", "s", "b", "q") if part is not None)
        if _REFUSAL.match(said):
            return True
        claim, after = said, _CLAUSE_END.split(line[quoted.end() :], maxsplit=1)[0]
    else:
        told = clause[person.end() :]
        check = _CHECK_FIRST.search(told)
        if check is None or _STATEMENT.match(told, 0, check.start()) is None:
            return False
        claim, after = told[: check.start()], told[check.start() :]
    return _OWN_ACT.search(claim) is None and _CHECK_FIRST.match(after.lstrip(" ,*_-\u2014\u2013")) is not None


def _an_order(before: str) -> bool:
    """Whether "silently run ..." after this text is an order: at the start of a sentence,
    clause or list item, or after "and", "then", "you must"; and not negated ("don't silently
    delete"). "A stale copy would silently run" describes what can go wrong, and is not."""
    before = before[-80:]
    return _NEGATED_BEFORE.search(before) is None and _ORDER_BEFORE.search(before) is not None
