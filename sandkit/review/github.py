"""Post or update the one sticky pull-request comment that carries a ``sandkit diff`` report.

The Action's review mode runs this with the job's token (``pull-requests: write`` is all it needs)
as ``python -I -m sandkit.review.github --report FILE --pull-request N``. It looks through the pull
request's comments for one that starts with the report's marker line and was written by the
token's own bot (``--author``), edits that one, and otherwise posts a new one, so a pull request
carries one kit review however often it is pushed to. A comment anyone else wrote is never
touched, even if it copies the marker.

Exit status: 0 posted or updated; 3 GitHub refused (a fork's read-only token, missing permission),
so the caller falls back to the job summary; 2 anything else (bad input, a network failure).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sandkit.review.report import MARKER

NOT_ALLOWED = 3
MAX_PAGES = 30  # 3000 comments: a pull request with more gets a new sticky comment instead
MAX_RESPONSE = 16 * 1024 * 1024
TIMEOUT = 30
DEFAULT_AUTHOR = "github-actions[bot]"


class Refused(Exception):
    """GitHub answered 401, 403 or 404: this token may not comment here."""


class GitHub:
    """The few REST calls the sticky comment needs, over urllib, with bounded responses."""

    def __init__(self, api_url: str, token: str) -> None:
        parts = urlsplit(api_url)
        loopback = parts.hostname in ("127.0.0.1", "localhost", "::1")
        if parts.scheme != "https" and not (parts.scheme == "http" and loopback):
            raise ValueError(f"the API address must be https: {api_url!r}")
        self.api = api_url.rstrip("/")
        self.token = token

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.api + path, data=data, method=method)
        request.add_header("Accept", "application/vnd.github+json")
        request.add_header("X-GitHub-Api-Version", "2022-11-28")
        request.add_header("User-Agent", "sandkit-review")
        if self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                raw = response.read(MAX_RESPONSE + 1)
        except urllib.error.HTTPError as exc:
            if exc.code in (401, 403, 404):
                raise Refused(f"{method} {path}: HTTP {exc.code}") from None
            raise
        if len(raw) > MAX_RESPONSE:
            raise ValueError(f"{method} {path}: the response is larger than {MAX_RESPONSE} bytes")
        return json.loads(raw) if raw.strip() else None


def _sticky(github: GitHub, repository: str, number: int, author: str) -> int | None:
    """The id of our earlier comment on the pull request, if there is one."""
    for page in range(1, MAX_PAGES + 1):
        comments = github.call("GET", f"/repos/{repository}/issues/{number}/comments?per_page=100&page={page}")
        if not isinstance(comments, list):
            return None
        for comment in comments:
            user = comment.get("user") or {}
            body = comment.get("body") or ""
            if user.get("login") == author and body.startswith(MARKER):
                return int(comment["id"])
        if len(comments) < 100:
            return None
    return None


def post_or_update(github: GitHub, repository: str, number: int, body: str, author: str) -> str:
    """Edit our sticky comment, or post it; returns "updated" or "posted"."""
    existing = _sticky(github, repository, number, author)
    if existing is not None:
        try:
            github.call("PATCH", f"/repos/{repository}/issues/comments/{existing}", {"body": body})
            return "updated"
        except Refused:
            pass  # deleted meanwhile, or not ours after all: post a fresh one
    github.call("POST", f"/repos/{repository}/issues/{number}/comments", {"body": body})
    return "posted"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sandkit.review.github", description=__doc__.splitlines()[0])
    parser.add_argument("--report", required=True, help="the Markdown report (sandkit diff --format markdown)")
    parser.add_argument("--pull-request", required=True, type=int, help="the pull request's number")
    parser.add_argument("--repository", default=os.environ.get("GITHUB_REPOSITORY", ""), help="OWNER/NAME")
    parser.add_argument("--api-url", default=os.environ.get("GITHUB_API_URL", "https://api.github.com"))
    parser.add_argument("--author", default=DEFAULT_AUTHOR, help="the login the token comments as")
    args = parser.parse_args(argv)
    body = Path(args.report).read_text(encoding="utf-8")
    if not body.startswith(MARKER) or args.repository.count("/") != 1:
        print("sandkit review: the report must be sandkit diff's Markdown; --repository OWNER/NAME", file=sys.stderr)
        return 2
    try:
        github = GitHub(args.api_url, os.environ.get("GITHUB_TOKEN", ""))
        done = post_or_update(github, args.repository, args.pull_request, body, args.author)
    except Refused as exc:
        print(f"sandkit review: GitHub refused the comment ({exc}); use the job summary", file=sys.stderr)
        return NOT_ALLOWED
    except (OSError, ValueError) as exc:
        print(f"sandkit review: {exc}", file=sys.stderr)
        return 2
    print(f"sandkit review: {done} the comment on pull request #{args.pull_request}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
