"""Shared pieces of the run pages: the page frame, phase colours, times and durations, escaping."""

from __future__ import annotations

import html
import re
import time
from datetime import UTC, datetime
from typing import Any

STATIC = "/page-static"
PHASE_COLOURS = {
    "Succeeded": "#18be94", "Failed": "#e96d76", "Error": "#e96d76", "Running": "#0dadea",
    "Pending": "#8fa4b1", "Skipped": "#ccd6dd", "Omitted": "#ccd6dd",
}
UNKNOWN_COLOUR = "#b0bec5"
FAILED_PHASES = frozenset({"Failed", "Error"})


def esc(value: Any) -> str:
    """HTML-escaped text of ``value`` (quotes too: safe inside attributes and SVG text)."""
    return html.escape("" if value is None else str(value), quote=True)


def phase_colour(phase: str | None) -> str:
    return PHASE_COLOURS.get(phase or "", UNKNOWN_COLOUR)


def phase_badge(phase: str | None) -> str:
    label = phase or "Unknown"
    return (f'<span class="phase" data-phase="{esc(label)}" style="background:{phase_colour(phase)}">'
            f"{esc(label)}</span>")


def parse_time(value: Any) -> float | None:
    """Epoch seconds of an RFC 3339 timestamp (``2026-11-24T05:33:16Z``); None when absent or malformed."""
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).timestamp()


def duration_of(obj: dict[str, Any], now: float | None = None) -> float | None:
    """Seconds from ``startedAt`` to ``finishedAt`` (to now while it runs)."""
    started = parse_time(obj.get("startedAt"))
    if started is None:
        return None
    finished = parse_time(obj.get("finishedAt"))
    return max(0.0, (finished if finished is not None else (now or time.time())) - started)


def format_duration(seconds: float | None) -> str:
    if seconds is None:
        return ""
    total = round(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes:02d}m"
    return f"{minutes}m {secs:02d}s" if minutes else f"{secs}s"


def format_time(value: Any) -> str:
    """A timestamp as ``YYYY-MM-DD HH:MM:SS`` UTC (empty when absent)."""
    stamp = parse_time(value)
    if stamp is None:
        return ""
    return datetime.fromtimestamp(stamp, UTC).strftime("%Y-%m-%d %H:%M:%S")


_LINK = re.compile(r"\[([^\]\n]+)\]\((https?://[^)\s]+)\)")
_STRONG = re.compile(r"\*\*([^*\n]+)\*\*")
_CODE = re.compile(r"`([^`\n]+)`")


def markdown_lite(text: str) -> str:
    """The Markdown an Argo description uses (paragraphs, http(s) links, **strong**, `code`), escaped first."""
    out = []
    for block in filter(None, (b.strip() for b in re.split(r"\n\s*\n", text))):
        inner = _CODE.sub(r"<code>\1</code>", esc(block))
        inner = _STRONG.sub(r"<strong>\1</strong>", inner)
        inner = _LINK.sub(r'<a href="\2" target="_blank" rel="noopener noreferrer">\1</a>', inner)
        out.append(f"<p>{inner}</p>")
    return "".join(out)


def page(title: str, body: str, script: str = "", active: str = "") -> str:
    """A whole page: the navigation bar, ``body`` (already escaped HTML) and our own CSS/JS."""
    sections = (("runs", "/", "Runs"), ("triggers", "/triggers", "Schedules &amp; triggers"))
    nav = "".join(f'<a href="{href}"{" class=active" if key == active else ""}>{label}</a>'
                  for key, href, label in sections)
    js = f'<script src="{STATIC}/page.js" defer></script>' if script else ""
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{esc(title)} · aipipe</title>'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<link rel="stylesheet" href="{STATIC}/page.css">{js}</head>'
            f'<body data-view="{esc(script)}"><header><strong>aipipe</strong>{nav}</header>'
            f"<main>{body}</main></body></html>")
