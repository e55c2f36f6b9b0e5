"""retryStrategy: limit, retryPolicy, backoff (duration, factor, maxDuration, cap) and ``expression``."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from aipipe.engine import humanize
from aipipe.engine.expr import ExprError, evaluate
from aipipe.engine.grammar.values import go_sprint
from aipipe.engine.template import Scope, render, render_deep
from aipipe.errors import UserError

_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h|d)")
_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
POLICIES = ("Always", "OnFailure", "OnError", "OnTransientError")


def parse_duration(value: Any, field: str = "duration") -> float:
    """Seconds from an int, a numeric string (seconds) or a Go duration (``1m30s``, ``10s``, ``1d``)."""
    if isinstance(value, bool):
        raise UserError(f"not a duration: {value!r}", field=field)
    if isinstance(value, (int, float)):
        return float(value)
    text = str(value).strip()
    if not text:
        raise UserError("empty duration", field=field)
    try:
        return float(text)
    except ValueError:
        pass
    total, pos = 0.0, 0
    for match in _DURATION_PART.finditer(text):
        if match.start() != pos:
            break
        total += float(match.group(1)) * _UNITS[match.group(2)]
        pos = match.end()
    if pos != len(text):
        raise UserError(f"not a duration: {text!r} (use e.g. 30, '30s', '1m30s')", field=field)
    return total


# the previous attempt's variables a retried template reads (docs/variables.md, "Container/Script Templates")
LAST_RETRY_VARS = tuple(f"lastRetry.{k}" for k in ("exitCode", "status", "duration", "message"))
# ``{{lastRetry.x}}`` inside an expression reads the same as the bare ``lastRetry.x`` it is evaluated with
_LAST_RETRY_AS_NAMES = {name: name for name in LAST_RETRY_VARS}


def render_strategy(raw: Mapping[str, Any], scope: Scope, where: str) -> dict[str, Any]:
    """A retryStrategy with its tags substituted, ``expression`` included (as Argo substitutes the whole
    template with its inputs before the expression is evaluated against ``lastRetry``)."""
    rendered = dict(render_deep(dict(raw), scope, where, skip=frozenset({"expression"})))
    if rendered.get("expression"):
        rendered["expression"] = render(str(rendered["expression"]), scope.child(_LAST_RETRY_AS_NAMES),
                                        f"{where}.expression")
    return rendered


class RetryAction(StrEnum):
    RETRY = "retry"  # the next attempt starts now
    WAIT = "wait"  # back off ``seconds`` with ``message`` on the node, then decide again
    STOP = "stop"  # no attempt follows: the node ends with ``message``


@dataclass(frozen=True)
class RetryDecision:
    """What a pass over a Retry node decides."""

    action: RetryAction
    message: str = ""
    seconds: float = 0.0


@dataclass(frozen=True)
class RetryStrategy:
    limit: int | None  # None = unlimited
    policy: str
    duration: float
    factor: float
    max_duration: float | None
    cap: float | None
    expression: str
    no_base: bool = False  # a backoff without a duration: Argo's processNodeRetries errors the Retry node

    @classmethod
    def parse(cls, raw: Mapping[str, Any] | None) -> RetryStrategy | None:
        if raw is None:
            return None
        limit_raw = raw.get("limit")
        try:
            limit = None if limit_raw in (None, "") else int(str(limit_raw))
        except ValueError as exc:
            raise UserError(f"must be an integer, got {limit_raw!r}", field="retryStrategy.limit") from exc
        # as Argo's RetryPolicyActual: without a policy, OnFailure; Always when an expression decides instead
        policy = str(raw.get("retryPolicy") or ("Always" if raw.get("expression") else "OnFailure"))
        if policy not in POLICIES:
            raise UserError(f"must be one of {', '.join(POLICIES)}, got {policy!r}", field="retryStrategy.retryPolicy")
        backoff = raw.get("backoff") or {}
        duration = parse_duration(backoff["duration"], "retryStrategy.backoff.duration") if backoff.get(
            "duration") not in (None, "") else 0.0
        factor_raw = backoff.get("factor")
        try:
            factor = float(str(factor_raw)) if factor_raw not in (None, "") else 1.0
        except ValueError as exc:
            raise UserError(f"must be a number, got {factor_raw!r}", field="retryStrategy.backoff.factor") from exc
        max_duration = parse_duration(backoff["maxDuration"], "retryStrategy.backoff.maxDuration") if backoff.get(
            "maxDuration") not in (None, "") else None
        cap = parse_duration(backoff["cap"], "retryStrategy.backoff.cap") if backoff.get("cap") not in (None, "") \
            else None
        return cls(limit, policy, duration, factor, max_duration, cap, str(raw.get("expression") or ""),
                   no_base=bool(backoff) and backoff.get("duration") in (None, ""))

    def delay(self, failures: int) -> float:
        """Wait before the next attempt after ``failures`` failed attempts (duration * factor^(failures-1))."""
        if self.duration <= 0:
            return 0.0
        wait = self.duration * (self.factor ** max(failures - 1, 0))
        return min(wait, self.cap) if self.cap else wait

    def decide(self, attempts: int, phase: str, first_started: float, last_ended: float, now: float,
               last_retry: Mapping[str, Any]) -> RetryDecision:
        """One pass over a Retry node whose ``attempts`` attempts have ended, the last in ``phase``: what follows,
        from the stored times alone (epoch seconds: the first attempt's start, the last one's end, now), so a driver
        that resumes a run mid-backoff waits only what is left, and one that finds the backoff passed retries at once.

        The stops and their messages are Argo's processNodeRetries', checked in its order: maxDuration (passed
        already, or passed by the time the backoff would end), the retryPolicy (the last attempt's message), the
        limit, then the expression. Argo waits out the backoff before the last three, and only while a limit is set;
        the embedded engine decides them first (the outcome is the same, only sooner: a run does not wait two
        minutes to learn that its expression is false). Without a limit, as in Argo, no backoff is waited out.
        While it waits the node says "Backoff for …", as Argo's does.

        The embedded engine has no transient errors (a node its driver's death interrupted runs again on
        resume as the same attempt), so ``OnTransientError`` retries nothing.
        """
        backoff = self.delay(attempts)
        if self.max_duration is not None and now > first_started + self.max_duration:
            return RetryDecision(RetryAction.STOP, "Max duration limit exceeded")
        if self.no_base:
            raise UserError("no base duration specified for retryStrategy", field="retryStrategy.backoff.duration")
        if self.max_duration is not None and last_ended + backoff > first_started + self.max_duration:
            return RetryDecision(RetryAction.STOP, "Backoff would exceed max duration limit")  # Argo: futile to wait
        if (phase == "Failed" and self.policy not in ("Always", "OnFailure")) or (
                phase == "Error" and self.policy not in ("Always", "OnError")):
            return RetryDecision(RetryAction.STOP, str(last_retry.get("message") or ""))
        if self.limit is not None and attempts > self.limit:
            return RetryDecision(RetryAction.STOP, "No more retries left")
        if self.expression:
            try:
                # Argo's buildRetryStrategyLocalScope: ``retries`` is the last attempt's number, as text
                result = evaluate(self.expression, {"lastRetry": dict(last_retry), "retries": str(attempts - 1)})
            except ExprError as exc:
                raise UserError(f"cannot evaluate {self.expression!r}: {exc}",
                                field="retryStrategy.expression") from exc
            if not isinstance(result, bool):  # Argo's EvalBool: an error, which errors the Retry node
                raise UserError(f"unable to cast expression result '{go_sprint(result)}' to bool",
                                field="retryStrategy.expression")
            if not result:
                return RetryDecision(RetryAction.STOP, "retryStrategy.expression evaluated to false")
        resume_at = last_ended + backoff
        if now < resume_at and self.limit is not None:  # as Argo: without a limit, no backoff (argo-workflows#9425)
            return RetryDecision(RetryAction.WAIT, f"Backoff for {humanize.duration(backoff)}", resume_at - now)
        return RetryDecision(RetryAction.RETRY)
