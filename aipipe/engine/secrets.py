"""Local stand-in for Kubernetes Secrets, and masking of their values in logs.

A secret ``NAME`` with key ``KEY`` is the file ``<home>/secrets/NAME/KEY`` (trailing newline
stripped). For the Secret the pipelines use (config ``kubernetes.secret_name``), a key missing
on disk falls back to the environment: the key itself or its upper-snake form as a variable name
(``label-studio-api-key`` -> ``LABEL_STUDIO_API_KEY``), then to the ``fallback`` lookup the entry
point hands in (aipipe's: a secret config key such as ``label_studio.api_key``, its configured value).
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from aipipe.engine.configmaps import key_problem
from aipipe.errors import UserError

MASK = "[redacted]"
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")  # a Secret's name (its keys are checked as ConfigMap keys)


@dataclass
class SecretStore:
    """Resolves (secret name, key) to a value and remembers every value it handed out, for masking."""

    root: Path
    env_secret_name: str = ""
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    fallback: Callable[[str], str | None] | None = None  # key -> value, for the env secret's missing keys
    _seen: set[str] = field(default_factory=set, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def get(self, name: str, key: str, optional: bool = False) -> str | None:
        """The value, or None when ``optional`` and absent; a missing required secret is a UserError."""
        if not _SAFE_NAME.match(name) or key_problem(key) is not None:  # Kubernetes: `.dockerconfigjson` is a key
            raise UserError(f"invalid secret reference {name!r}/{key!r}", field="secretKeyRef")
        value = self._lookup(name, key)
        if value is None:
            if optional:
                return None
            raise UserError(f"secret {name!r} has no key {key!r} (put it in {self.root / name / key})",
                            field="secretKeyRef")
        self.remember(value)
        return value

    def keys(self, name: str) -> dict[str, str]:
        """Every key of a secret stored on disk (for ``secret`` volumes)."""
        folder = self.root / name
        if not _SAFE_NAME.match(name) or not folder.is_dir():
            raise UserError(f"secret {name!r} not found in {self.root}", field="volumes.secret")
        out = {p.name: self.get(name, p.name) or "" for p in sorted(folder.iterdir()) if p.is_file()}
        return out

    def _lookup(self, name: str, key: str) -> str | None:
        path = self.root / name / key
        if path.is_file():
            return path.read_text().rstrip("\n")
        if name != self.env_secret_name:
            return None
        for var in (key, key.upper().replace("-", "_").replace(".", "_")):
            if self.env.get(var):
                return self.env[var]
        return self.fallback(key) if self.fallback is not None else None

    def remember(self, value: str) -> None:
        if value:
            with self._lock:
                self._seen.add(value)

    def values(self) -> list[str]:
        """Every value handed out so far, longest first."""
        with self._lock:
            return sorted(self._seen, key=len, reverse=True)

    def mask(self, text: str) -> str:
        """Replace every secret value handed out so far (longest first) with a mask."""
        for value in self.values():
            if value in text:
                text = text.replace(value, MASK)
        return text


class StreamMasker:
    """Masks secret values in a byte stream cut into arbitrary chunks; ``emit`` gets masked text.

    Text is emitted at line ends, or once ``flush_at`` bytes are buffered; a value split between
    chunks is never emitted in part: the buffer's tail that could begin a value stays buffered until
    more bytes (or :meth:`close`) decide, and an emit point never falls inside a value.
    """

    def __init__(self, secrets: SecretStore, emit: Callable[[str], None], flush_at: int = 1 << 16) -> None:
        self.secrets = secrets
        self.emit = emit
        self.flush_at = flush_at
        self.buf = b""

    def feed(self, chunk: bytes) -> None:
        self.buf += chunk
        end = self.buf.rfind(b"\n") + 1
        if end == 0 and len(self.buf) < self.flush_at:
            return
        self._emit(max(end, len(self.buf) if len(self.buf) >= self.flush_at else 0))

    def close(self) -> None:
        if self.buf:
            self._emit(len(self.buf), final=True)

    def _emit(self, want: int, final: bool = False) -> None:
        cut = safe_cut(self.buf, [v.encode() for v in self.secrets.values()], want, final)
        if cut <= 0:
            return
        text, self.buf = self.buf[:cut], self.buf[cut:]
        self.emit(self.secrets.mask(text.decode(errors="replace")))


def safe_tail(buf: bytes, values: list[bytes], keep: int) -> int:
    """The start of the last ``keep`` bytes of ``buf``, moved forward past any secret value or UTF-8 character it
    would split (so no part of a value survives its masking)."""
    start = max(0, len(buf) - keep)
    moved = True
    while moved:
        moved = False
        for value in values:
            found = buf.find(value, max(0, start - len(value) + 1)) if value else -1
            if 0 <= found < start < found + len(value):
                start, moved = found + len(value), True
    while start < len(buf) and buf[start] & 0xC0 == 0x80:
        start += 1
    return start


def safe_cut(buf: bytes, values: list[bytes], want: int, final: bool = False) -> int:
    """The largest cut point <= ``want`` that splits no secret value and no UTF-8 character; unless
    ``final``, the tail of ``buf`` that could be the start of a value is not cut off either."""
    cut = want
    if not final:
        for value in values:
            for size in range(min(len(value) - 1, len(buf)), 0, -1):
                if buf.endswith(value[:size]):
                    cut = min(cut, len(buf) - size)
                    break
    moved = True
    while moved:  # moving the cut back for one value may split another: repeat until none is split
        moved = False
        for value in values:
            start = buf.find(value, max(0, cut - len(value) + 1))
            if 0 <= start < cut < start + len(value):
                cut, moved = start, True
    if cut < len(buf) or not final:  # never split a UTF-8 character
        start = cut - 1
        while start > max(cut - 4, 0) and buf[start] & 0xC0 == 0x80:
            start -= 1
        if start >= 0:
            lead = buf[start]
            size = 2 if lead >> 5 == 0b110 else 3 if lead >> 4 == 0b1110 else 4 if lead >> 3 == 0b11110 else 1
            if start + size > cut:
                cut = start
    return cut
