"""More of sprig's functions (Argo exposes all of ``sprig.GenericFuncMap`` but ``env``/``expandenv``): case
conversion, wrapping, Go-style regex replacement, hashes, JSON forms, dict and list helpers, random values,
``round`` and ``semverCompare``. Merged into :data:`aipipe.engine.grammar.sprig.SPRIG`."""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
import string
import textwrap
import uuid
import zlib
from collections.abc import Callable
from typing import Any

from aipipe.engine.grammar.values import NIL, go_sprint

_GO_GROUP = re.compile(r"\$(?:\{(\w+)\}|(\w+)|(\$))")
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_SEMVER = re.compile(r"v?(\d+)(?:\.(\d+))?(?:\.(\d+))?")


def go_expand(match: re.Match[str], template: str) -> str:
    """Go's ``Regexp.Expand``: ``$1``, ``${1}``, ``$name``, ``${name}`` (the longest word after ``$``), ``$$``;
    a group that does not exist gives the empty string."""
    def one(ref: re.Match[str]) -> str:
        if ref.group(3):
            return "$"
        key = ref.group(1) or ref.group(2)
        try:
            value = match.group(int(key)) if key.isdigit() else match.group(key)
        except IndexError:  # no such group
            return ""
        return value or ""
    return _GO_GROUP.sub(one, template)


def _regex_replace_all(rx: Any, s: Any, repl: Any) -> str:
    return re.sub(go_sprint(rx), lambda m: go_expand(m, go_sprint(repl)), go_sprint(s))


def _regex_split(pattern: str, text: str, n: int) -> list[str]:
    """Go's Regexp.Split (sprig's ``regexSplit``): the text between matches, a group in the pattern adding nothing
    (unlike Python's re.split); at most ``n`` parts, all when ``n`` < 0, none when 0."""
    if n == 0:
        return []
    if pattern and not text:
        return [""]
    parts: list[str] = []
    begin = end = 0
    for found in re.finditer(pattern, text):
        if n > 0 and len(parts) == n - 1:
            break
        end = found.start()
        if found.end() != 0:
            parts.append(text[begin:end])
        begin = found.end()
    if end != len(text):
        parts.append(text[begin:])
    return parts


def _words(s: Any) -> list[str]:
    return _WORDS.findall(go_sprint(s))


def _abbrev(width: Any, s: Any) -> str:
    text, n = go_sprint(s), int(width)
    return text if len(text) <= n or n < 4 else text[:n - 3] + "..."


def _wrap(width: Any, s: Any) -> str:
    return "\n".join(textwrap.wrap(go_sprint(s), int(width), break_long_words=False)) or go_sprint(s)


def _indent(n: Any, s: Any) -> str:
    pad = " " * int(n)
    return pad + go_sprint(s).replace("\n", "\n" + pad)


def _pluck(key: Any, *dicts: Any) -> list[Any]:
    return [d[key] for d in dicts if isinstance(d, dict) and key in d]


def _round(value: Any, places: Any, half: Any = 0.5) -> float:
    scale = 10 ** int(places)
    shifted = float(value) * scale
    base = math.floor(shifted)
    return (base + (1 if shifted - base >= float(half) else 0)) / scale


def _semver(text: Any) -> tuple[int, int, int]:
    found = _SEMVER.fullmatch(go_sprint(text).strip().split("-")[0].split("+")[0])
    if not found:
        raise ValueError(f"invalid semantic version {text!r}")
    return int(found.group(1)), int(found.group(2) or 0), int(found.group(3) or 0)


def _satisfies(version: tuple[int, int, int], constraint: str) -> bool:
    found = re.fullmatch(r"\s*(>=|<=|!=|=|>|<|~|\^)?\s*(\S+)\s*", constraint)
    if not found:
        raise ValueError(f"invalid constraint {constraint!r}")
    op, want = found.group(1) or "=", _semver(found.group(2))
    if op == "~":
        return want <= version < (want[0], want[1] + 1, 0)
    if op == "^":
        return want <= version < (want[0] + 1, 0, 0)
    return {"=": version == want, "!=": version != want, ">": version > want, "<": version < want,
            ">=": version >= want, "<=": version <= want}[op]


def _semver_compare(constraint: Any, version: Any) -> bool:
    """Masterminds semver constraints: ``a, b`` all hold; ``x || y`` either group holds."""
    ver = _semver(version)
    return any(all(_satisfies(ver, part) for part in group.split(","))
               for group in go_sprint(constraint).split("||"))


def _random(chars: str) -> Callable[[Any], str]:
    return lambda n: "".join(random.choice(chars) for _ in range(int(n)))


def _dig(*args: Any) -> Any:
    *keys, default, tree = args
    for key in keys:
        if not isinstance(tree, dict) or key not in tree:
            return default
        tree = tree[key]
    return tree


MORE: dict[str, Callable[..., Any]] = {
    "regexReplaceAll": _regex_replace_all,
    "regexReplaceAllLiteral": lambda rx, s, repl: re.sub(go_sprint(rx), lambda _: go_sprint(repl), go_sprint(s)),
    "regexFindAll": lambda rx, s, n: re.findall(go_sprint(rx), go_sprint(s))[:None if int(n) < 0 else int(n)],
    "regexSplit": lambda rx, s, n: _regex_split(go_sprint(rx), go_sprint(s), int(n)),
    "abbrev": _abbrev,
    "abbrevboth": lambda left, width, s: _abbrev(width, ("..." + go_sprint(s)[int(left):])
                                                 if int(left) > 0 else go_sprint(s)),
    "initials": lambda s: "".join(w[0] for w in go_sprint(s).split()),
    "snakecase": lambda s: "_".join(w.lower() for w in _words(s)),
    "kebabcase": lambda s: "-".join(w.lower() for w in _words(s)),
    "camelcase": lambda s: "".join(w.capitalize() for w in re.split(r"[_\s-]+", go_sprint(s)) if w),
    "swapcase": lambda s: go_sprint(s).swapcase(),
    "untitle": lambda s: " ".join(w[:1].lower() + w[1:] for w in go_sprint(s).split(" ")),
    "wrap": _wrap,
    "indent": _indent,
    "nindent": lambda n, s: "\n" + _indent(n, s),
    "plural": lambda one, many, n: go_sprint(one) if int(n) == 1 else go_sprint(many),
    "trimall": lambda chars, s: go_sprint(s).strip(go_sprint(chars)),
    "splitn": lambda sep, n, s: {f"_{i}": part for i, part in
                                 enumerate(go_sprint(s).split(go_sprint(sep), max(int(n) - 1, 0)))},
    "sha1sum": lambda s: hashlib.sha1(go_sprint(s).encode(), usedforsecurity=False).hexdigest(),
    "adler32sum": lambda s: str(zlib.adler32(go_sprint(s).encode())),
    "toPrettyJson": lambda v: json.dumps(None if v is NIL else v, indent=2),
    "toRawJson": lambda v: json.dumps(None if v is NIL else v, separators=(",", ":"), ensure_ascii=False),
    "round": _round,
    "toDecimal": lambda s: int(go_sprint(s), 8) if re.fullmatch(r"[0-7]+", go_sprint(s)) else 0,
    "without": lambda v, *drop: [x for x in v if x not in drop],
    "pluck": _pluck,
    "values": lambda d: list(d.values()),
    "pick": lambda d, *keys: {k: d[k] for k in keys if k in d},
    "omit": lambda d, *keys: {k: v for k, v in d.items() if k not in keys},
    "set": lambda d, k, v: {**d, k: v},
    "unset": lambda d, k: {x: y for x, y in d.items() if x != k},
    "merge": lambda dst, *srcs: {**{k: v for s in reversed(srcs) for k, v in s.items()}, **dst},
    "mergeOverwrite": lambda dst, *srcs: {**dst, **{k: v for s in srcs for k, v in s.items()}},
    "dig": _dig,
    "slice": lambda v, *ix: list(v[int(ix[0]) if ix else 0:int(ix[1]) if len(ix) > 1 else None]),
    "chunk": lambda n, v: [list(v[i:i + int(n)]) for i in range(0, len(v), int(n))],
    "randAlpha": _random(string.ascii_letters),
    "randAlphaNum": _random(string.ascii_letters + string.digits),
    "randNumeric": _random(string.digits),
    "randAscii": _random(string.printable[:94]),
    "randInt": lambda lo, hi: random.randrange(int(lo), int(hi)),
    "uuidv4": lambda: str(uuid.uuid4()),
    "semver": lambda v: dict(zip(("Major", "Minor", "Patch"), _semver(v), strict=True)),
    "semverCompare": _semver_compare,
}
# sprig's must* forms fail where the plain ones return an empty value; here both fail alike
_MUSTS = ("toJson", "toPrettyJson", "toRawJson", "fromJson", "regexReplaceAll", "regexReplaceAllLiteral",
          "regexFindAll", "regexFind", "regexMatch", "regexSplit", "append", "prepend", "first", "last", "rest",
          "initial", "reverse", "uniq", "without", "compact", "slice", "has", "merge", "mergeOverwrite", "chunk")


def with_musts(table: dict[str, Callable[..., Any]]) -> dict[str, Callable[..., Any]]:
    """``table`` plus ``mustX`` for each X of :data:`_MUSTS` it has."""
    return {**table, **{"must" + name[0].upper() + name[1:]: table[name] for name in _MUSTS if name in table}}
