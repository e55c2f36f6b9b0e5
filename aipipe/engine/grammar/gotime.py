"""Go's ``time.Time`` as Argo's expressions see it: ``now()`` returns one, sprig's ``date`` formats one, and
expr-lang lets a workflow call its methods (``now().Format("2006-01-02")``, ``now().Unix()``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

# Go layout elements -> strftime, longest first where one is a prefix of another (the zone is always UTC here)
_GO_LAYOUT = (("2006", "%Y"), ("January", "%B"), ("Jan", "%b"), ("Monday", "%A"), ("Mon", "%a"),
              ("MST", "%Z"), ("Z07:00", "Z"), ("-07:00", "+00:00"), ("-0700", "%z"), ("01", "%m"), ("02", "%d"),
              ("15", "%H"), ("03", "%I"), ("04", "%M"), ("05", "%S"), ("06", "%y"), ("PM", "%p"))


def go_date(layout: str, when: Any = None) -> str:
    """Format a time (epoch seconds; anything else means now) with a Go layout, in UTC."""
    stamp = float(when) if isinstance(when, (int, float)) and not isinstance(when, bool) else time.time()
    out, i = [], 0
    while i < len(layout):
        for go, py in _GO_LAYOUT:
            if layout.startswith(go, i):
                out.append(time.strftime(py, time.gmtime(stamp)))
                i += len(go)
                break
        else:
            out.append(layout[i])
            i += 1
    return "".join(out)


class GoTime(float):
    """A point in time as epoch seconds (so ``now() - duration("1h")`` and comparisons work as numbers do),
    with the methods of Go's ``time.Time`` that expressions call."""

    def method(self, name: str) -> Callable[..., Any] | None:
        """The bound method ``name``, or None when Go's time.Time has none that is supported here."""
        parts = time.gmtime(self)
        methods: dict[str, Callable[..., Any]] = {
            "Format": lambda layout: go_date(str(layout), float(self)),
            "Unix": lambda: int(self // 1), "UnixMilli": lambda: int(self * 1000 // 1),
            "UnixNano": lambda: int(self * 1_000_000_000 // 1),
            "Year": lambda: parts.tm_year, "Month": lambda: parts.tm_mon, "Day": lambda: parts.tm_mday,
            "Hour": lambda: parts.tm_hour, "Minute": lambda: parts.tm_min, "Second": lambda: parts.tm_sec,
            "YearDay": lambda: parts.tm_yday, "Weekday": lambda: (parts.tm_wday + 1) % 7,  # Go: Sunday is 0
        }
        return methods.get(name)


def now() -> GoTime:
    """expr's ``now()``."""
    return GoTime(time.time())
