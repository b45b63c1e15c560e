"""What sandkit knows about GitHub's events: which carry a comment, which name a pull request.

A comment trigger (an issue or discussion comment, a review or review comment) starts the agent
only on a command from someone the kit trusts: the comment's first line starts with the kit's
command (``/review``), its author's ``author_association`` is one the kit allows (owners, members
and collaborators unless it says otherwise), and a bot's comment counts only when the kit lists the
bot. Events about a pull request give the agent the pull request's head commit.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal, get_args

from pydantic import AfterValidator

#: Events whose payload holds a comment, and the payload key it is under (body, author, association).
COMMENT_EVENTS = {
    "issue_comment": "comment",
    "discussion_comment": "comment",
    "pull_request_review_comment": "comment",
    "pull_request_review": "review",
}
#: Events whose payload's ``pull_request`` names the pull request (head commit, base branch).
PULL_REQUEST_EVENTS = frozenset(
    {"pull_request", "pull_request_target", "pull_request_review", "pull_request_review_comment"}
)
#: Events that may be about a pull request: those above, and a comment on one (``issue_comment``).
MAY_NAME_PULL_REQUEST = PULL_REQUEST_EVENTS | {"issue_comment"}
#: Events whose payload names an issue or a pull request a comment can go on.
MAY_NAME_ISSUE = MAY_NAME_PULL_REQUEST | {"issues"}

Publish = Literal["review", "comment", "branch"]
#: The one write scope each way of publishing needs, and the only one its job gets.
PUBLISH_SCOPES: dict[str, str] = {"review": "pull-requests", "comment": "issues", "branch": "contents"}
#: The events whose runs give each way of publishing something to publish on (a branch needs none).
PUBLISH_EVENTS: dict[str, frozenset[str]] = {"review": MAY_NAME_PULL_REQUEST, "comment": MAY_NAME_ISSUE}

AuthorAssociation = Literal[
    "OWNER", "MEMBER", "COLLABORATOR", "CONTRIBUTOR", "FIRST_TIME_CONTRIBUTOR", "FIRST_TIMER", "MANNEQUIN", "NONE"
]
AUTHOR_ASSOCIATIONS: tuple[str, ...] = get_args(AuthorAssociation)
#: Who may start a comment trigger unless the kit says otherwise: people with write access or membership.
TRUSTED_ASSOCIATIONS: tuple[AuthorAssociation, ...] = ("OWNER", "MEMBER", "COLLABORATOR")

#: A GitHub App's bot account: the app's slug and ``[bot]``.
_BOT_LOGIN = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,38})\[bot\]")


def _bot_login(value: str) -> str:
    if not _BOT_LOGIN.fullmatch(value):
        raise ValueError(f"{value!r} is not a bot account: a GitHub App's slug and `[bot]` (`renovate[bot]`)")
    return value


BotLogin = Annotated[str, AfterValidator(_bot_login)]
Checkout = Literal["head", "base"]


def comment_problems(event: str, fields_set: set[str], associations: list[str], acknowledged: bool) -> list[str]:
    """What a github trigger's comment settings lack or misuse; ``@key`` in front locates one at its key."""
    problems = []
    if event not in COMMENT_EVENTS:
        problems += [
            f"@{key} applies only to comment events ({', '.join(COMMENT_EVENTS)})"
            for key in ("command", "author_associations", "bots")
            if key in fields_set
        ]
        return problems
    if "command" not in fields_set:
        problems.append(
            f"a trigger on {event} needs `command`, the command a comment must start with (`/review`): "
            "without one, every comment would start a session"
        )
    wider = sorted(set(associations) - set(TRUSTED_ASSOCIATIONS))
    if wider and not acknowledged:
        problems.append(
            f"@author_associations {', '.join(wider)} lets people without write access start the agent with "
            "the repository's secrets; set `acknowledge_risk: true` if you mean it"
        )
    return problems
