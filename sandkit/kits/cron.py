"""Five-field cron lines, checked field by field (the form GitHub Actions and Kubernetes share)."""

from __future__ import annotations

import re

_FIELDS: tuple[tuple[str, int, int, dict[str, int]], ...] = (
    ("minute", 0, 59, {}),
    ("hour", 0, 23, {}),
    ("day of month", 1, 31, {}),
    (
        "month",
        1,
        12,
        {
            m: i + 1
            for i, m in enumerate(["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"])
        },
    ),
    ("day of week", 0, 7, {d: i for i, d in enumerate(["sun", "mon", "tue", "wed", "thu", "fri", "sat"])}),
)
_ITEM = re.compile(r"(\*|[0-9a-z]{1,3}(?:-[0-9a-z]{1,3})?)(?:/(\d{1,2}))?")


def _value(text: str, low: int, high: int, names: dict[str, int], field: str) -> int:
    number = names.get(text) if not text.isdigit() else int(text)
    if number is None or not low <= number <= high:
        raise ValueError(f"cron {field} {text!r} is out of range {low}-{high}")
    return number


def _check_field(text: str, field: str, low: int, high: int, names: dict[str, int]) -> None:
    for item in text.lower().split(","):
        match = _ITEM.fullmatch(item)
        if not match:
            raise ValueError(f"cron {field} {item!r} is not a number, range, list or step")
        span, step = match.groups()
        if step is not None and not 1 <= int(step) <= high:
            raise ValueError(f"cron {field} step {step!r} is out of range 1-{high}")
        if span == "*":
            continue
        bounds = [_value(part, low, high, names, field) for part in span.split("-")]
        if len(bounds) == 2 and bounds[0] > bounds[1]:
            raise ValueError(f"cron {field} range {span!r} runs backwards")


def check_cron(value: str) -> str:
    """Accept a standard five-field cron line; refuse macros and six-field (seconds) forms."""
    if value.startswith("@"):
        raise ValueError("cron macros such as @daily are not portable; write five fields, e.g. '0 0 * * *'")
    fields = value.split()
    if len(fields) != 5 or " ".join(fields) != value:
        raise ValueError(
            "must be five cron fields separated by single spaces (minute hour day month weekday), e.g. '0 9 * * 1'"
        )
    for text, (field, low, high, names) in zip(fields, _FIELDS, strict=True):
        _check_field(text, field, low, high, names)
    return value
