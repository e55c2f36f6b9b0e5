"""Durations in words as Argo's controller writes them into node messages (its ``util/humanize.Duration``, which
go-humanize's relative-time table truncates): "1 second", "30 seconds", "1 minute 30 seconds", "2 hours 0 minutes";
and a time as Go prints one into a message."""

from __future__ import annotations

import time

_MINUTE, _HOUR, _DAY = 60, 3600, 86400
_WEEK, _MONTH = 7 * _DAY, 30 * _DAY
_YEAR = 12 * _MONTH
# (below this many seconds, the words; a "{n}" is the whole number of the unit's seconds), as go-humanize's table
_MAGNITUDES = (
    (1, "0 seconds", 1), (2, "1 second", 1), (_MINUTE, "{n} seconds", 1),
    (2 * _MINUTE, "1 minute", 1), (_HOUR, "{n} minutes", _MINUTE),
    (2 * _HOUR, "1 hour", 1), (_DAY, "{n} hours", _HOUR),
    (2 * _DAY, "1 day", 1), (_WEEK, "{n} days", _DAY),
    (2 * _WEEK, "1 week", 1), (_MONTH, "{n} weeks", _WEEK),
    (2 * _MONTH, "1 month", 1), (_YEAR, "{n} months", _MONTH),
    (18 * _MONTH, "1 year", 1), (2 * _YEAR, "2 years", 1), (37 * _YEAR, "{n} years", _YEAR),
)


def truncated(seconds: float) -> str:
    """The duration in its largest unit, the rest dropped ("1 minute" for 90 s)."""
    for below, words, unit in _MAGNITUDES:
        if seconds < below:
            return words.format(n=int(seconds // unit))
    return "a long while"


def go_time(epoch: float) -> str:
    """A UTC time as Go's ``time.Time.String()`` prints it (``2026-11-30 22:30:04 +0000 UTC``), to the second."""
    return time.strftime("%Y-%m-%d %H:%M:%S +0000 UTC", time.gmtime(epoch))


def duration(seconds: float) -> str:
    """The duration in up to two units, the second always given ("1 minute 0 seconds", "1 day 0 hours")."""
    if seconds < _MINUTE:
        return truncated(seconds)
    if seconds < _HOUR:
        return f"{truncated(seconds)} {int(seconds % _MINUTE)} seconds"
    if seconds < _DAY:
        return f"{truncated(seconds)} {int(seconds / _MINUTE % 60)} minutes"
    return f"{truncated(seconds)} {int(seconds / _HOUR % 24)} hours"
