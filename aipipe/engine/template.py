"""``{{…}}`` substitution with Argo's variable names, and the scope it reads from.

Only known prefixes are substituted; ``{{custom.variable}}`` stays in the text as Argo leaves it.
``{{= expr}}`` is an expr-lang expression over the same scope (dotted names become nested maps).
An *absent* value (output of a Skipped/Omitted node without a default) is :data:`ABSENT`: it is
``nil`` inside expressions and an error ("absent optional") anywhere else.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from aipipe.engine.expr import NIL, ExprError, evaluate, to_text

KNOWN_PREFIXES = ("inputs.", "outputs.", "steps.", "tasks.", "workflow.", "pod.", "node.", "lastRetry.",
                  "cronworkflow.")
KNOWN_NAMES = ("item", "retries")


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()


class TemplateError(Exception):
    """A tag could not be resolved; ``absent`` marks the v4.1 'absent optional' case (terminal Error)."""

    def __init__(self, message: str, absent: bool = False) -> None:
        super().__init__(message)
        self.absent = absent


def is_known(name: str) -> bool:
    return name in KNOWN_NAMES or name.startswith(KNOWN_PREFIXES) or name.startswith("item.")


class Scope:
    """Flat variable map (``steps.a.outputs.result`` -> text or ABSENT) plus artifacts by the same naming."""

    def __init__(self, values: Mapping[str, Any] | None = None, artifacts: Mapping[str, dict] | None = None,
                 raw: Mapping[str, Any] | None = None, tags: Mapping[str, str] | None = None) -> None:
        self.values: dict[str, Any] = dict(values or {})
        self.tags: dict[str, str] = dict(tags or {})  # for {{…}} tags only, not expressions (creationTimestamp.Y)
        self.artifacts: dict[str, Any] = dict(artifacts or {})  # artifact records, or ABSENT
        self.raw: dict[str, Any] = dict(raw or {})  # typed values for expressions (e.g. item = 3)
        self._env: dict[str, Any] | None = None

    def child(self, values: Mapping[str, Any] | None = None, artifacts: Mapping[str, dict] | None = None,
              raw: Mapping[str, Any] | None = None) -> Scope:
        out = Scope(self.values, self.artifacts, self.raw, self.tags)
        out.values.update(values or {})
        out.artifacts.update(artifacts or {})
        out.raw.update(raw or {})
        return out

    def set(self, name: str, value: Any) -> None:
        self.values[name] = value
        self._env = None

    def set_artifact(self, name: str, artifact: Any) -> None:
        self.artifacts[name] = artifact
        self._env = None

    def env(self) -> dict[str, Any]:
        """Nested maps for expressions; ABSENT becomes nil, artifacts appear as objects."""
        if self._env is None:
            env: dict[str, Any] = {}
            for source in (self.values, self.artifacts, self.raw):
                for key, value in list(source.items()):  # a snapshot: other threads may add outputs
                    _insert(env, key.split("."), NIL if value is ABSENT else value)
            self._env = env
        return self._env


def _insert(env: dict[str, Any], parts: list[str], value: Any) -> None:
    node = env
    for part in parts[:-1]:
        nxt = node.get(part)
        if not isinstance(nxt, dict):
            nxt = {}
            node[part] = nxt
        node = nxt
    leaf = parts[-1]
    if isinstance(node.get(leaf), dict) and not isinstance(value, dict):
        return  # a map (e.g. outputs.parameters.*) wins over its aggregated JSON text
    node[leaf] = value


def find_tags(text: str) -> list[tuple[int, int, str]]:
    """(start, end, inner) of each ``{{…}}`` tag, scanning left to right."""
    tags: list[tuple[int, int, str]] = []
    i = 0
    while True:
        start = text.find("{{", i)
        if start < 0:
            return tags
        end = text.find("}}", start + 2)
        if end < 0:
            return tags
        tags.append((start, end + 2, text[start + 2:end]))
        i = end + 2


def lookup(name: str, scope: Scope) -> Any:
    """The value of a simple tag, ABSENT, or None when unresolvable."""
    if name in scope.values:
        return scope.values[name]
    return scope.tags.get(name)


def render(text: str, scope: Scope, where: str = "", lenient: bool = False) -> str:
    """Substitute every known tag in ``text``; unknown prefixes stay literal. ``lenient``: an expression that
    fails (or gives nil) stays as written, as Argo substitutes a pod's template (its SubstituteParams allows
    unresolved tags); elsewhere it is an error."""
    return _substitute(text, lambda inner, tag: _resolve(inner, scope, tag, where, lenient))


def _substitute(text: str, tag_text: Callable[[str, str], str]) -> str:
    """``text`` with each ``{{…}}`` tag replaced by ``tag_text(inner, tag)``."""
    if "{{" not in text:
        return text
    out: list[str] = []
    pos = 0
    for start, end, inner in find_tags(text):
        out.append(text[pos:start])
        out.append(tag_text(inner, text[start:end]))
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _map_strings(value: Any, change: Callable[[str], str], skip: frozenset[str] = frozenset()) -> Any:
    """``value`` with every string inside nested dicts/lists changed; keys in ``skip`` are left untouched."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, list):
        return [_map_strings(v, change, skip) for v in value]
    if isinstance(value, dict):
        return {k: v if k in skip else _map_strings(v, change, skip) for k, v in value.items()}
    return value


def _resolve(inner: str, scope: Scope, tag: str, where: str, lenient: bool = False) -> str:
    if inner.startswith("="):
        try:
            value = evaluate(inner[1:], scope.env())
        except ExprError as exc:
            if lenient:
                return tag
            raise TemplateError(f"{where}: failed to evaluate expression {tag}: {exc}".lstrip(": ")) from exc
        return tag if lenient and (value is NIL or value is None) else to_text(value)
    name = inner.strip()
    if not is_known(name):
        nested = inner.rfind("{{")  # Argo's simpleReplace: an unknown tag with a tag inside it ("{{- with "{{x}}")
        if nested > 0:
            inside = inner[nested + 2:]
            return "{{" + inner[:nested] + _resolve(inside, scope, "{{" + inside + "}}", where, lenient)
        return tag
    value = lookup(name, scope)
    if value is ABSENT:
        raise TemplateError(f"{where}: {tag} refers to an absent optional output (its node was Skipped or "
                            "Omitted and declares no default)".lstrip(": "), absent=True)
    if value is None and name in KNOWN_NAMES:  # outside a loop or a retry Argo leaves {{item}} / {{retries}} as written
        return tag
    if value is None and lenient:  # Argo's SubstituteParams allows unresolved tags: a pod's text keeps the tag
        return tag
    if value is None:
        raise TemplateError(f"{where}: failed to resolve {tag}".lstrip(": "))
    return value if isinstance(value, str) else to_text(value)


def exact_reference(text: str) -> str | None:
    """The variable name when ``text`` is exactly one simple tag, e.g. ``{{tasks.a.outputs.result}}``."""
    stripped = text.strip()
    tags = find_tags(stripped)
    if len(tags) == 1 and tags[0][0] == 0 and tags[0][1] == len(stripped) and not tags[0][2].startswith("="):
        return tags[0][2].strip()
    return None


def resolve_nested(value: Any, scope: Scope) -> Any:
    """Resolve only the inner tag of each nested tag (``{{item.{{inputs.parameters.col}}}}`` becomes
    ``{{item.<col's value>}}``), as Argo's simpleReplace does when it substitutes a steps or dag template's inputs:
    the outer tag is left for a later pass (its loop expansion)."""
    def inner_only(inner: str, tag: str) -> str:
        nested = inner.rfind("{{")
        simple = nested > 0 and not inner.startswith("=")  # an expression tag is evaluated whole, never nested
        inside = lookup(inner[nested + 2:], scope) if simple and lookup(inner.strip(), scope) is None else None
        return "{{" + inner[:nested] + inside if isinstance(inside, str) else tag  # as written (Argo unescapes it)

    return _map_strings(value, lambda text: _substitute(text, inner_only))


def render_deep(value: Any, scope: Scope, where: str = "", skip: frozenset[str] = frozenset(),
                lenient: bool = False) -> Any:
    """Render every string inside nested dicts/lists; keys in ``skip`` are left untouched (``lenient``: see
    :func:`render`)."""
    return _map_strings(value, lambda text: render(text, scope, where, lenient), skip)
