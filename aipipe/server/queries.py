"""List queries as Argo's server reads them: Kubernetes label selectors (set-based too), field selectors,
``nameFilter``/``createdAfter``/``finishedBefore``, ``listOptions.limit``/``continue`` paging, ``fields`` projection."""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from aipipe.errors import UserError
from aipipe.server.limits import query_int

LABELS = "listOptions.labelSelector"
FIELDS = "listOptions.fieldSelector"
CONTINUE = "listOptions.continue"
NAME_FILTERS = ("Exact", "Prefix", "Contains", "NotEquals")
_NAME = r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?"
_PREFIX = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
_KEY = re.compile(rf"({_PREFIX}/)?{_NAME}")
_VALUE = re.compile(rf"({_NAME})?")
_TOKEN = r"[^\s=!<>(),]+"
_NOT_EXISTS = re.compile(rf"\s*!\s*(?P<key>{_TOKEN})\s*")
_SET = re.compile(rf"\s*(?P<key>{_TOKEN})\s+(?P<op>in|notin)\s*\((?P<values>[^()]*)\)\s*")
_COMPARE = re.compile(rf"\s*(?P<key>{_TOKEN})\s*(?P<op>==|=|!=|>|<)\s*(?P<value>[^\s=!<>(),]*)\s*")
_EXISTS = re.compile(rf"\s*(?P<key>{_TOKEN})\s*")


# -- label selectors ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Requirement:
    """One term of a label selector: ``key <op> values`` (op: exists, !, =, !=, in, notin, >, <)."""

    key: str
    op: str
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        present = self.key in labels
        value = labels.get(self.key, "")
        if self.op == "exists":
            return present
        if self.op == "!":
            return not present
        if self.op in ("=", "in"):
            return present and value in self.values
        if self.op in ("!=", "notin"):
            return not present or value not in self.values
        try:  # > and <: both sides integers, as Kubernetes compares them
            number = int(value)
        except ValueError:
            return False
        return present and (number > int(self.values[0]) if self.op == ">" else number < int(self.values[0]))


def _terms(text: str, field: str) -> list[str]:
    """``text`` split at the commas outside parentheses."""
    terms, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth not in (0, 1):
            raise UserError(f"unbalanced parentheses in {text[:128]!r}", field=field)
        if char == "," and depth == 0:
            terms.append(text[start:i])
            start = i + 1
    if depth:
        raise UserError(f"unbalanced parentheses in {text[:128]!r}", field=field)
    return [*terms, text[start:]]


def _check_key(key: str, field: str) -> str:
    if len(key) > 317 or not _KEY.fullmatch(key) or len(key.rsplit("/", 1)[-1]) > 63:
        raise UserError(f"invalid label key {key[:64]!r}: a name of at most 63 characters (letters, digits, "
                        "'-', '_', '.'), optionally prefixed by a DNS subdomain and '/'", field=field)
    return key


def _check_value(value: str, field: str) -> str:
    if not _VALUE.fullmatch(value):
        raise UserError(f"invalid label value {value[:64]!r}: at most 63 characters (letters, digits, '-', '_', "
                        "'.'), starting and ending with a letter or digit", field=field)
    return value


def _requirement(term: str, field: str) -> Requirement:
    if match := _NOT_EXISTS.fullmatch(term):
        return Requirement(_check_key(match["key"], field), "!")
    if match := _SET.fullmatch(term):
        values = tuple(_check_value(v.strip(), field) for v in match["values"].split(","))
        if values == ("",):
            raise UserError(f"{match['op']} needs at least one value in {term.strip()[:128]!r}", field=field)
        return Requirement(_check_key(match["key"], field), match["op"], values)
    if match := _COMPARE.fullmatch(term):
        op, value = match["op"].replace("==", "="), match["value"]
        if op in "<>" and not re.fullmatch(r"-?\d+", value):
            raise UserError(f"{op} needs an integer, got {value[:64]!r}", field=field)
        return Requirement(_check_key(match["key"], field), op, (_check_value(value, field),))
    if match := _EXISTS.fullmatch(term):
        return Requirement(_check_key(match["key"], field), "exists")
    raise UserError(f"cannot parse {term.strip()[:128]!r}: expected key, !key, key=value, key!=value, "
                    "key in (v1,v2) or key notin (v1,v2)", field=field)


def parse_label_selector(text: str, field: str = LABELS) -> list[Requirement]:
    """The requirements of a Kubernetes label selector (all must hold); 400 naming ``field`` when malformed."""
    if not text.strip():
        return []
    return [_requirement(term, field) for term in _terms(text, field)]


def labels_match(obj: Mapping[str, Any], requirements: list[Requirement]) -> bool:
    labels = (obj.get("metadata") or {}).get("labels") or {}
    return all(r.matches(labels) for r in requirements)


# -- field selectors (the watch's: any dotted path) --------------------------------------------
def _get_path(obj: Mapping[str, Any], dotted: str) -> str:
    value: Any = obj
    for part in dotted.split("."):
        value = value.get(part, "") if isinstance(value, dict) else ""
    return str(value)


def parse_field_selector(text: str) -> list[tuple[str, bool, str]]:
    """``(path, negated, value)`` for each ``path=value`` / ``path==value`` / ``path!=value`` term."""
    terms = []
    for term in filter(None, (t.strip() for t in text.split(","))):
        negate = "!=" in term
        if "=" not in term:
            raise UserError(f"expected key=value or key!=value, got {term[:64]!r}", field=FIELDS)
        key, value = term.replace("==", "=").split("!=" if negate else "=", 1)
        terms.append((key.strip(), negate, value.strip()))
    return terms


def selector_matches(obj: dict[str, Any], label_selector: str, field_selector: str) -> bool:
    """Whether ``obj`` matches both selectors; UserError (400) when either is malformed, even for ``{}``."""
    fields = parse_field_selector(field_selector)
    if not labels_match(obj, parse_label_selector(label_selector)):
        return False
    return all((_get_path(obj, key) == value) != negate for key, negate, value in fields)


# -- list options ------------------------------------------------------------------------------
def _time(raw: str, name: str) -> datetime | None:
    if not raw:
        return None
    try:
        parsed = datetime.fromisoformat(raw.replace("z", "Z"))
    except ValueError:
        raise UserError(f"expected an RFC 3339 time such as 2024-01-31T12:00:00Z, got {raw[:64]!r}",
                        field=name) from None
    if parsed.tzinfo is None:
        raise UserError(f"the time needs a zone (Z or ±hh:mm), got {raw[:64]!r}", field=name)
    return parsed


def _stamp(obj: Mapping[str, Any], *path: str) -> datetime | None:
    value: Any = obj
    for part in path:
        value = value.get(part) if isinstance(value, dict) else None
    try:
        return datetime.fromisoformat(str(value)) if value else None
    except ValueError:
        return None


def sort_key(obj: Mapping[str, Any]) -> tuple[str, ...]:
    """Newest first: creation time, then namespace and name (stable while runs change)."""
    meta = obj.get("metadata") or {}
    return str(meta.get("creationTimestamp") or ""), str(meta.get("namespace") or ""), str(meta.get("name") or "")


def _encode_continue(key: tuple[str, ...]) -> str:
    return base64.urlsafe_b64encode(json.dumps(list(key)).encode()).decode().rstrip("=")


def _decode_continue(token: str, size: int = 3) -> tuple[str, ...] | int | None:
    """The sort key of the last item served (``size`` strings), or an offset (Argo's own tokens are offsets)."""
    if not token:
        return None
    if token.isascii() and token.isdigit():
        return int(token)
    try:
        key = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    except (ValueError, binascii.Error):
        key = None
    if not (isinstance(key, list) and len(key) == size and all(isinstance(k, str) for k in key)):
        raise UserError(f"not a continue token from this server: {token[:64]!r}", field=CONTINUE)
    return tuple(key)


def _after(items: list[dict[str, Any]], key: Callable[[Mapping[str, Any]], tuple[str, ...]],
           after: tuple[str, ...] | int | None, descending: bool) -> list[dict[str, Any]]:
    """``items`` (sorted by ``key``) past a continue position."""
    if isinstance(after, int):
        return items[after:]
    if after is None:
        return items
    return [i for i in items if (key(i) < after if descending else key(i) > after)]


def page_by_name(items: list[dict[str, Any]], query: Mapping[str, str]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Templates and cron workflows by namespace and name, one ``listOptions.limit`` page after
    ``listOptions.continue``; the list metadata's ``continue`` when more follow."""
    limit = query_int(query, "listOptions.limit")
    chosen = _after(sorted(items, key=_name_key), _name_key, _decode_continue(query.get(CONTINUE, ""), 2), False)
    if limit <= 0 or len(chosen) <= limit:
        return chosen, {}
    return chosen[:limit], {"continue": _encode_continue(_name_key(chosen[limit - 1]))}


def _name_key(obj: Mapping[str, Any]) -> tuple[str, ...]:
    meta = obj.get("metadata") or {}
    return str(meta.get("namespace") or ""), str(meta.get("name") or "")


@dataclass
class ListQuery:
    """What a list request asks for, read as Argo's ``BuildListOptions`` reads it."""

    namespace: str = ""
    name: str = ""
    name_filter: str = "Exact"
    name_prefix: str = ""
    created_after: datetime | None = None
    finished_before: datetime | None = None
    started_after: datetime | None = None
    started_before: datetime | None = None
    labels: list[Requirement] = field(default_factory=list)
    limit: int = 0
    after: tuple[str, ...] | int | None = None
    show_remaining: bool = False

    @classmethod
    def parse(cls, query: Mapping[str, str], namespace: str, name_prefix: str = "") -> ListQuery:
        """From the request's query string; ``namespace`` is the path's (or the ``namespace`` parameter)."""
        q = cls(namespace=namespace, name_prefix=name_prefix, labels=parse_label_selector(query.get(LABELS, "")),
                limit=query_int(query, "listOptions.limit"), after=_decode_continue(query.get(CONTINUE, "")),
                created_after=_time(query.get("createdAfter", ""), "createdAfter"),
                finished_before=_time(query.get("finishedBefore", ""), "finishedBefore"))
        name_filter = query.get("nameFilter", "") or "Exact"
        if name_filter not in NAME_FILTERS:
            raise UserError(f"expected one of {', '.join(NAME_FILTERS)}, got {name_filter[:64]!r}", field="nameFilter")
        q.name_filter = name_filter
        for term in filter(None, query.get(FIELDS, "").split(",")):
            q._field_term(term)
        return q

    def _field_term(self, term: str) -> None:
        """One field selector term: Argo's list accepts only these."""
        for prefix in ("metadata.namespace=", "metadata.name!=", "metadata.name==", "metadata.name=",
                       "spec.startedAt>", "spec.startedAt<", "ext.showRemainingItemCount="):
            if term.startswith(prefix):
                value = term[len(prefix):]
                break
        else:
            raise UserError(f"unsupported requirement {term[:64]!r}: the list accepts metadata.namespace=, "
                            "metadata.name=, metadata.name!=, spec.startedAt> and spec.startedAt<", field=FIELDS)
        if prefix == "metadata.namespace=":
            if self.namespace and value != self.namespace:
                raise UserError(f"contradicts the namespace of the request ({self.namespace!r} vs {value!r})",
                                field=FIELDS)
            self.namespace = value
        elif prefix.startswith("metadata.name"):
            self.name = value
            if prefix == "metadata.name!=":
                self.name_filter = "NotEquals"
        elif prefix.startswith("spec.startedAt"):
            when = _time(value, FIELDS)
            if prefix.endswith(">"):
                self.started_after = when
            else:
                self.started_before = when
        elif value not in ("true", "false"):
            raise UserError(f"expected true or false, got {value[:64]!r}", field=FIELDS)
        else:
            self.show_remaining = value == "true"

    def _name_ok(self, name: str) -> bool:
        if self.name_prefix and not name.startswith(self.name_prefix):
            return False
        if not self.name:
            return True
        return {"Exact": name == self.name, "Prefix": name.startswith(self.name),
                "Contains": self.name in name, "NotEquals": name != self.name}[self.name_filter]

    def matches(self, obj: Mapping[str, Any]) -> bool:
        meta = obj.get("metadata") or {}
        if self.namespace and meta.get("namespace") != self.namespace:
            return False
        if not self._name_ok(str(meta.get("name") or "")) or not labels_match(obj, self.labels):
            return False
        bounds: list[tuple[datetime | None, tuple[str, ...], Callable[[datetime, datetime], bool]]] = [
            (self.created_after, ("metadata", "creationTimestamp"), lambda t, b: t >= b),
            (self.finished_before, ("status", "finishedAt"), lambda t, b: t <= b),
            (self.started_after, ("status", "startedAt"), lambda t, b: t >= b),
            (self.started_before, ("status", "startedAt"), lambda t, b: t <= b)]
        for bound, path, ok in bounds:
            if bound is not None:
                stamp = _stamp(obj, *path)
                if stamp is None or not ok(stamp, bound):
                    return False
        return True

    def page(self, items: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """The matching items of this page (Argo's order within it) and the list metadata's paging fields."""
        chosen = _after(sorted((i for i in items if self.matches(i)), key=sort_key, reverse=True), sort_key,
                        self.after, True)
        meta: dict[str, Any] = {}
        if self.limit > 0 and len(chosen) > self.limit:
            meta["continue"] = _encode_continue(sort_key(chosen[self.limit - 1]))
        page = chosen[:self.limit] if self.limit > 0 else chosen
        if self.show_remaining:
            meta["remainingItemCount"] = len(chosen) - len(page)
        return sorted(page, key=argo_order), meta


def argo_order(obj: Mapping[str, Any]) -> tuple[int, float]:
    """Argo's sort of a page: unfinished runs first (newest created first), then finished ones, latest first."""
    finished = _stamp(obj, "status", "finishedAt")
    if finished is None:
        created = _stamp(obj, "metadata", "creationTimestamp")
        return 0, -(created.timestamp() if created else 0.0)
    return 1, -finished.timestamp()


# -- fields projection -------------------------------------------------------------------------
def project(doc: Any, fields: str) -> Any:
    """Argo's ``fields`` parameter: keep only the listed dotted paths, or with a leading ``-`` drop them.

    A path keeps everything under it; a key is kept when it is a string prefix of a listed path, as Argo does."""
    if not fields:
        return doc
    exclude = fields.startswith("-")
    names = frozenset((fields[1:] if exclude else fields).split(","))
    return _clean(doc, "", names, exclude)


def _clean(item: Any, path: str, names: frozenset[str], exclude: bool) -> Any:
    if isinstance(item, list):
        return [_clean(x, path, names, exclude) for x in item]
    if not isinstance(item, dict):
        return item
    out = {}
    for key, value in item.items():
        here = f"{path}.{key}" if path else key
        exact = here in names
        if (exclude and not exact) or (not exclude and (exact or any(n.startswith(here) for n in names))):
            out[key] = value if exact else _clean(value, here, names, exclude)
    return out


def _as_go_sends(workflow: dict[str, Any]) -> dict[str, Any]:
    """A projected Workflow keeps what Go's struct always carries: ``metadata`` and ``spec``."""
    workflow.setdefault("metadata", {})
    workflow.setdefault("spec", {})
    return workflow


def project_workflow(workflow: dict[str, Any], fields: str) -> dict[str, Any]:
    """``project`` on one Workflow (``metadata`` and ``spec`` stay, empty when projected away)."""
    return _as_go_sends(project(workflow, fields)) if fields else workflow


def project_list(doc: dict[str, Any], fields: str) -> dict[str, Any]:
    """``project`` on a WorkflowList; ``metadata``, ``items`` and each item's ``metadata`` and ``spec`` stay."""
    if not fields:
        return doc
    out = project(doc, fields)
    out.setdefault("metadata", {})
    out["items"] = [_as_go_sends(item) for item in out.get("items", [])]
    return out
