"""Go's ``time.Time`` and ``time.Duration`` as Argo's expressions see them: ``now()`` and ``date()`` give a time,
``duration()`` a duration, and a workflow may call their methods (``now().Format("2006-01-02")``,
``(t2 - t1).Hours()``). A time minus a time is a duration; a time plus or minus a duration is a time. A bare
duration is written as Go's JSON writes it (whole nanoseconds), ``string()`` of one as Go prints it (``1m30s``);
a weekday or month is a number bare and a name through ``string()``. Zones are UTC here, the controller's."""

from __future__ import annotations

import calendar
import re
import time
from collections.abc import Callable
from typing import Any

from aipipe.engine.grammar.godates import days_in, epoch_seconds

NANOS = 1_000_000_000
# Go layout elements, longest first where one is a prefix of another: (element, strftime, pattern for parsing)
_ELEMENTS = (
    ("January", "%B", r"(?P<month_name>[A-Za-z]+)"), ("Jan", "%b", r"(?P<month_abbr>[A-Za-z]{3})"),
    ("Monday", "%A", r"[A-Za-z]+"), ("Mon", "%a", r"[A-Za-z]{3}"), ("MST", "%Z", r"[A-Z]{3,5}"),
    ("2006", "%Y", r"(?P<year>\d{4})"), ("Z07:00", "Z", r"(?P<zone>Z|[+-]\d\d:\d\d)"),
    ("Z0700", "Z", r"(?P<zone>Z|[+-]\d{4})"), ("-07:00", "+00:00", r"(?P<zone>[+-]\d\d:\d\d)"),
    ("-0700", "%z", r"(?P<zone>[+-]\d{4})"), ("002", "%j", r"(?P<yday>\d{3})"),
    ("01", "%m", r"(?P<month>\d\d)"), ("02", "%d", r"(?P<day>\d\d)"), ("_2", "%e", r" ?(?P<day>\d{1,2})"),
    ("15", "%H", r"(?P<hour>\d\d?)"), ("03", "%I", r"(?P<hour12>\d\d)"), ("04", "%M", r"(?P<minute>\d\d)"),
    ("05", "%S", r"(?P<second>\d\d)(?P<fraction>[.,]\d+)?"), ("06", "%y", r"(?P<year2>\d\d)"),
    ("PM", "%p", r"(?P<ampm>AM|PM)"), ("1", "%-m", r"(?P<month>\d\d?)"), ("2", "%-d", r"(?P<day>\d\d?)"),
    ("3", "%-I", r"(?P<hour12>\d\d?)"), ("4", "%-M", r"(?P<minute>\d\d?)"),
    ("5", "%-S", r"(?P<second>\d\d?)(?P<fraction>[.,]\d+)?"),
)
# expr-lang's date() with no layout tries these
_DATE_LAYOUTS = ("2006-01-02", "15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04:05Z07:00",
                 "02 Jan 06 15:04 MST", "Monday, 02-Jan-06 15:04:05 MST", "Mon, 02 Jan 2006 15:04:05 MST")
_WEEKDAYS = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")


def go_date(layout: str, when: Any = None) -> str:
    """Format a time (epoch seconds; anything else means now) with a Go layout, in UTC."""
    stamp = float(when) if isinstance(when, (int, float)) and not isinstance(when, bool) else time.time()
    parts = time.gmtime(stamp)
    out, i = [], 0
    while i < len(layout):
        for go, py, _ in _ELEMENTS:
            if layout.startswith(go, i):
                out.append(_strftime(py, parts))
                i += len(go)
                break
        else:
            out.append(layout[i])
            i += 1
    return "".join(out)


def _strftime(spec: str, parts: time.struct_time) -> str:
    if spec.startswith("%-"):  # Go's unpadded elements
        return str(int(time.strftime("%" + spec[2:], parts)))
    if spec == "%e":
        return f"{parts.tm_mday:2d}"
    if spec == "%Y":  # four digits, as Go writes a year (glibc writes year 1 as "1")
        return f"{parts.tm_year:04d}"
    return time.strftime(spec, parts)


def parse_date(text: Any, layout: Any = None) -> GoTime:
    """expr-lang's ``date(text[, layout])``: with a Go layout, or the first of expr's default layouts that reads
    the text (UTC unless the text names an offset)."""
    for candidate in ([str(layout)] if layout is not None else _DATE_LAYOUTS):
        found = re.fullmatch(_layout_pattern(candidate), str(text))
        if found is not None:
            stamp = _stamp(found.groupdict())
            if stamp is not None:
                return GoTime(stamp)
    raise ValueError(f"cannot parse {text!r} as a date" + (f" with layout {layout!r}" if layout is not None else ""))


def _layout_pattern(layout: str) -> str:
    out, i = [], 0
    while i < len(layout):
        for go, _, pattern in _ELEMENTS:
            if layout.startswith(go, i):
                out.append(pattern)
                i += len(go)
                break
        else:
            out.append(re.escape(layout[i]))
            i += 1
    return "".join(out)


def _stamp(parts: dict[str, str | None]) -> float | None:
    months = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
    months.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
    year = int(parts.get("year") or 0)
    if parts.get("year2"):  # Go reads 69-99 as 19xx, 00-68 as 20xx
        short = int(parts.get("year2") or 0)
        year = short + (1900 if short >= 69 else 2000)
    name = (parts.get("month_name") or parts.get("month_abbr") or "").lower()
    month = months.get(name, 0) if name else int(parts.get("month") or 1)
    day = int(parts.get("day") or 1)
    hour = int(parts.get("hour") or 0)
    if parts.get("hour12"):
        hour = int(parts["hour12"] or 0) % 12 + (12 if parts.get("ampm") == "PM" else 0)
    minute, second = int(parts.get("minute") or 0), int(parts.get("second") or 0)
    if not (1 <= month <= 12 and 1 <= day <= days_in(year, month) and hour < 24
            and minute < 60 and second < 60):
        return None
    stamp = float(epoch_seconds(year, month, day, hour, minute, second))
    fraction = (parts.get("fraction") or "")[1:]
    zone = parts.get("zone") or "Z"
    offset = 0 if zone == "Z" else (1 if zone[0] == "+" else -1) * (int(zone[1:3]) * 3600 + int(zone[-2:]) * 60)
    return stamp + (float("0." + fraction) if fraction else 0.0) - offset


class GoDuration(int):
    """A duration in whole nanoseconds, with the methods of Go's ``time.Duration``."""

    def method(self, name: str) -> Callable[..., Any] | None:
        methods: dict[str, Callable[..., Any]] = {
            "Hours": lambda: self / 3600e9, "Minutes": lambda: self / 60e9, "Seconds": lambda: self / 1e9,
            "Milliseconds": lambda: int(self / 1_000_000), "Microseconds": lambda: int(self / 1000),
            "Nanoseconds": lambda: int(self), "String": self.go_string, "Abs": lambda: GoDuration(abs(self)),
            "Round": lambda unit: GoDuration(round(self / unit) * unit) if unit > 0 else self,
            "Truncate": lambda unit: GoDuration(int(self / unit) * unit) if unit > 0 else self,
        }
        return methods.get(name)

    def __add__(self, other: Any) -> Any:
        if isinstance(other, GoTime):
            return other + self
        return GoDuration(int(self) + other) if isinstance(other, GoDuration) else int(self) + other

    def __sub__(self, other: Any) -> Any:
        return GoDuration(int(self) - other) if isinstance(other, GoDuration) else int(self) - other

    def go_string(self) -> str:
        """Go's Duration.String: ``1h30m0s``, ``1m30s``, ``1.5s``, ``250ms``, ``0s``."""
        if self == 0:
            return "0s"
        sign, size = ("-" if self < 0 else ""), abs(int(self))
        if size < NANOS:
            unit, scale = ("ms", 1_000_000) if size >= 1_000_000 else ("µs", 1000) if size >= 1000 else ("ns", 1)
            return sign + _decimal(size, scale) + unit
        hours, rest = divmod(size, 3600 * NANOS)
        minutes, rest = divmod(rest, 60 * NANOS)
        head = f"{hours}h{minutes}m" if hours else f"{minutes}m" if minutes else ""
        return sign + head + _decimal(rest, NANOS) + "s"


def _decimal(value: int, scale: int) -> str:
    whole, frac = divmod(value, scale)
    digits = str(frac).rjust(len(str(scale)) - 1, "0").rstrip("0") if frac else ""
    return f"{whole}.{digits}" if digits else str(whole)


class GoWeekday(int):
    """Go's ``time.Weekday`` (Sunday is 0): a number, named by ``string()``."""

    def go_string(self) -> str:
        return _WEEKDAYS[self % 7]


class GoMonth(int):
    """Go's ``time.Month`` (January is 1): a number, named by ``string()``."""

    def go_string(self) -> str:
        return calendar.month_name[self]


class GoTime(float):
    """A point in time as epoch seconds (so comparisons work as numbers do), with the methods of Go's
    ``time.Time`` that expressions call."""

    def method(self, name: str) -> Callable[..., Any] | None:
        """The bound method ``name``, or None when Go's time.Time has none that is supported here."""
        parts = time.gmtime(self)
        methods: dict[str, Callable[..., Any]] = {
            "Format": lambda layout: go_date(str(layout), float(self)),
            "Unix": lambda: int(self // 1), "UnixMilli": lambda: int(self * 1000 // 1),
            "UnixNano": lambda: int(self * 1_000_000_000 // 1),
            "Year": lambda: parts.tm_year, "Month": lambda: GoMonth(parts.tm_mon), "Day": lambda: parts.tm_mday,
            "Hour": lambda: parts.tm_hour, "Minute": lambda: parts.tm_min, "Second": lambda: parts.tm_sec,
            "YearDay": lambda: parts.tm_yday, "Weekday": lambda: GoWeekday((parts.tm_wday + 1) % 7),
            "Sub": lambda other: self - other, "Add": lambda d: GoTime(float(self) + int(d) / NANOS),
            "Before": lambda other: float(self) < float(other), "After": lambda other: float(self) > float(other),
            "Equal": lambda other: float(self) == float(other), "UTC": lambda: self, "Local": lambda: self,
            "String": self.go_string, "IsZero": lambda: float(self) == -62135596800.0,
        }
        return methods.get(name)

    def __sub__(self, other: Any) -> Any:
        if isinstance(other, GoTime):
            return GoDuration(round((float(self) - float(other)) * NANOS))
        if isinstance(other, GoDuration):
            return GoTime(float(self) - int(other) / NANOS)
        return float(self) - other

    def __add__(self, other: Any) -> Any:
        if isinstance(other, GoDuration):
            return GoTime(float(self) + int(other) / NANOS)
        return float(self) + other

    __radd__ = __add__

    def go_string(self) -> str:
        """Go's Time.String in UTC: ``2024-03-15 08:30:00 +0000 UTC``."""
        whole = int(self // 1)
        fraction = f"{float(self) - whole:.9f}"[1:].rstrip("0").rstrip(".")
        return go_date("2006-01-02 15:04:05", whole) + fraction + " +0000 UTC"

    def go_json(self) -> str:
        """As Go's json.Marshal writes a time: RFC 3339 with nanoseconds."""
        whole = int(self // 1)
        fraction = f"{float(self) - whole:.9f}"[1:].rstrip("0").rstrip(".")
        return go_date("2006-01-02T15:04:05", whole) + fraction + "Z"


def now() -> GoTime:
    """expr's ``now()``."""
    return GoTime(time.time())
