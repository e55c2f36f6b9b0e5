"""The dates govaluate reads in a quoted string (``'2024-03-01'``, ``'3:04PM'``, RFC 3339 …): such a string is that
moment's Unix time to every operator, which is how ``'2024-03-01' == '2024-03-01 00:00'`` holds in a ``when``."""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass

_MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_abbr) if m}
_DAYS = r"(?:mon|tue|wed|thu|fri|sat|sun)"
_MON = r"(?P<mon>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"
_FRACTION = r"(?P<f>[.,]\d+)?"
_CLOCK = r"(?P<H>\d{1,2}):(?P<M>\d\d):(?P<S>\d\d)" + _FRACTION
_DATE = r"(?P<Y>\d{4})-(?P<m>\d\d)-(?P<d>\d\d)"
_ZONE_COLON = r"(?P<z>Z|[+-]\d\d:\d\d)"
_ZONE_PLAIN = r"(?P<z>Z|[+-]\d\d\d\d)"
# the layouts govaluate tries (Go's time.ANSIC, UnixDate, RubyDate, Kitchen, RFC3339(Nano) and its own ISO forms)
_LAYOUTS = [re.compile(p, re.IGNORECASE if i < 3 else 0) for i, p in enumerate((
    rf"{_DAYS} {_MON} (?: ?(?P<d>\d{{1,2}})) {_CLOCK} (?P<Y>\d{{4}})",
    rf"{_DAYS} {_MON} (?: ?(?P<d>\d{{1,2}})) {_CLOCK} (?P<tz>[A-Z]{{3,5}}) (?P<Y>\d{{4}})",
    rf"{_DAYS} {_MON} (?P<d>\d\d) {_CLOCK} (?P<z>[+-]\d\d\d\d) (?P<Y>\d{{4}})",
    r"(?P<H>\d{1,2}):(?P<M>\d\d)(?P<ampm>AM|PM)",
    rf"{_DATE}T{_CLOCK}{_ZONE_COLON}",
    rf"{_DATE}",
    rf"{_DATE} (?P<H>\d{{1,2}}):(?P<M>\d\d)",
    rf"{_DATE} {_CLOCK}",
    rf"{_DATE} {_CLOCK}(?P<z>[+-]\d\d:\d\d)",
    rf"{_DATE}T(?P<H>\d{{1,2}}){_ZONE_PLAIN}",
    rf"{_DATE}T(?P<H>\d{{1,2}}):(?P<M>\d\d){_ZONE_PLAIN}",
    rf"{_DATE}T{_CLOCK}{_ZONE_PLAIN}",
))]


@dataclass(frozen=True)
class Moment:
    """A date govaluate read from a quoted string: its Unix time (what it compares as) and Go's way of showing it."""

    unix: float
    shown: str


def parse_time(text: str) -> Moment | None:
    """The moment a quoted string stands for when one of govaluate's date layouts reads it (UTC, the controller's
    zone), else None."""
    for layout in _LAYOUTS:
        found = layout.fullmatch(text)
        if found is None:
            continue
        parts = found.groupdict()
        year = int(parts.get("Y") or 0)
        month = _MONTHS[parts["mon"].lower()] if parts.get("mon") else int(parts.get("m") or 1)
        day = int(parts.get("d") or 1)
        hour, minute, second = int(parts.get("H") or 0), int(parts.get("M") or 0), int(parts.get("S") or 0)
        if parts.get("ampm"):
            if not 0 <= hour <= 12:
                continue
            hour = hour % 12 + (12 if parts["ampm"] == "PM" else 0)
        if not (1 <= month <= 12 and 1 <= day <= days_in(year, month) and hour < 24 and minute < 60
                and second < 60):
            continue
        offset = _offset(parts.get("z"))
        fraction = (parts.get("f") or "").lstrip(".,").rstrip("0")
        zone = parts.get("tz") or ("UTC" if not offset else _zone(offset))
        shown = (f"{year:04d}-{month:02d}-{day:02d} {hour:02d}:{minute:02d}:{second:02d}"
                 f"{'.' + fraction if fraction else ''} {_zone(offset)} {zone}")
        return Moment(float(epoch_seconds(year, month, day, hour, minute, second) - offset), shown)
    return None


def _zone(offset: int) -> str:
    return f"{'-' if offset < 0 else '+'}{abs(offset) // 3600:02d}{abs(offset) % 3600 // 60:02d}"


def days_in(year: int, month: int) -> int:
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def epoch_seconds(year: int, month: int, day: int, hour: int, minute: int, second: int) -> int:
    """Seconds since 1970 of a proleptic Gregorian UTC time (year 0 included, as Go's Kitchen layout gives)."""
    def days_from_civil(y: int, m: int, d: int) -> int:
        y -= m <= 2
        era = (y if y >= 0 else y - 399) // 400
        yoe = y - era * 400
        doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
        doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
        return era * 146097 + doe - 719468
    return days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second


def _offset(zone: str | None) -> int:
    if not zone or zone == "Z":
        return 0
    sign = -1 if zone[0] == "-" else 1
    digits = zone[1:].replace(":", "")
    return sign * (int(digits[:2]) * 3600 + int(digits[2:]) * 60)
