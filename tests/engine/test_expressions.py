"""expr-lang subset, govaluate conditions, {{…}} substitution and depends logic, without running processes."""

from __future__ import annotations

import pytest

from aipipe.engine import graph
from aipipe.engine.expr import NIL, ExprError, evaluate, should_execute, to_text
from aipipe.engine.items import item_label
from aipipe.engine.retry import RetryStrategy, parse_duration
from aipipe.engine.template import ABSENT, Scope, TemplateError, exact_reference, render, resolve_nested
from aipipe.errors import UserError

ENV = {
    "inputs": {"parameters": {"should-print": "true", "foo": "3", "config": '{"a": "1", "b": [1, 2]}'}},
    "steps": {"flip": {"outputs": {"result": "heads"}}, "skipped": {"outputs": {"result": NIL}}},
}


@pytest.mark.parametrize(("expression", "expected"), [
    ("inputs.parameters['should-print'] == 'true'", True),
    ("asInt(inputs.parameters.foo) * 10", 30),
    ("asFloat('2.5') + 1", 3.5),
    ("toJson(filter([1, 3, 5], {# > 1}))", "[3,5]"),
    ("map([1, 2], # * 2)", [2, 4]),
    ("jsonpath(inputs.parameters.config, '$.a')", "1"),
    ("jsonpath(inputs.parameters.config, '$.b')", [1, 2]),
    ("steps.flip.outputs.result == 'heads' ? 'H' : 'T'", "H"),
    ("steps.skipped.outputs.result ?? 'fallback'", "fallback"),
    ("steps.skipped.outputs.result == ''", False),
    ("steps.missing.outputs.result ?? 'x'", "x"),
    ("not (1 < 2) || 'a' in ['a', 'b']", True),
    ("'abc' matches '^a.c$' && 'abc' startsWith 'ab'", True),
    ("sprig.upper('x') + string(7)", "X7"),
    ("len([1, 2, 3]) % 2", 1),
])
def test_expr(expression: str, expected: object) -> None:
    assert evaluate(expression, ENV) == expected


@pytest.mark.parametrize("expression", ["1 +", "unknown_fn(1)", "nope.x", "'a' < 1", "(1"])
def test_expr_errors(expression: str) -> None:
    with pytest.raises(ExprError):
        evaluate(expression, ENV)


def test_to_text_matches_argo_rendering() -> None:
    assert to_text(30.0) == "30" and to_text(True) == "true" and to_text([1, "a"]) == '[1,"a"]'
    assert to_text(NIL) == ""


@pytest.mark.parametrize(("condition", "expected"), [
    ("heads == heads", True),
    ("heads == tails", False),
    ("( heads == heads && tails == tails ) || ( a == b )", True),
    ("tails =~ hea", False),
    ("heads =~ '^hea'", True),  # unquoted, ^ is an operator to govaluate
    ("2 + 2 * 3 == 8 && 7 % 4 == 3 && 2 ** 3 == 8 && 6 ^ 3 == 5 && -1 < 0", True),
    ("gpu in (cpu, gpu)", True),
    ("tpu in (cpu, gpu)", False),
    ("'5' == 5", False),
    ("'true' == true", False),
    ("run + 1 == run1", True),
    ('"false" == "true"', False),
    ("true == true", True),
    ("Failed != Succeeded", True),
    ("false", False),
    ("10 > 9", True),
    ("!(1 == 2)", True),
])
def test_govaluate_conditions(condition: str, expected: bool) -> None:
    assert should_execute(condition) is expected


@pytest.mark.parametrize("condition", ["heads ==", "(a == a", "hello", "prod-eu == prod-eu", "heads =~ ^hea", "a in b"])
def test_bad_conditions(condition: str) -> None:
    with pytest.raises(ExprError):
        should_execute(condition)


def test_render_known_unknown_and_absent() -> None:
    scope = Scope({"inputs.parameters.x": "1", "steps.s.outputs.result": ABSENT, "item": "a"})
    assert render("v={{inputs.parameters.x}} {{ item }} {{custom.variable}}", scope) == "v=1 a {{custom.variable}}"
    assert render("{{=steps.s.outputs.result ?? 'dflt'}}", scope) == "dflt"
    with pytest.raises(TemplateError) as info:
        render("x {{steps.s.outputs.result}}", scope)
    assert info.value.absent and "absent optional" in str(info.value)
    with pytest.raises(TemplateError, match="failed to resolve"):
        render("{{inputs.parameters.nope}}", scope)
    assert exact_reference(" {{steps.s.outputs.result}} ") == "steps.s.outputs.result"
    assert exact_reference("a{{steps.s.outputs.result}}") is None


def test_nested_tags_resolve_only_their_inner_tag() -> None:
    scope = Scope({"inputs.parameters.col": 'sh"ade', "inputs.parameters.x": "1"})
    step = {"args": ["{{item.{{inputs.parameters.col}}}}", "{{inputs.parameters.x}}",
                     "{{item.{{inputs.parameters.no}}}}"]}
    assert resolve_nested(step, scope) == {"args": ['{{item.sh"ade}}', "{{inputs.parameters.x}}",
                                                    "{{item.{{inputs.parameters.no}}}}"]}
    expression = "{{=sprig.upper({{inputs.parameters.x}})}}"  # evaluated whole, never nested
    assert resolve_nested(expression, scope) == expression


def test_item_labels() -> None:
    assert item_label({"num": "1", "evenness": "odd"}) == "evenness:odd,num:1"
    assert item_label(3) == "3" and item_label("hello world") == "hello world"


def test_depends_logic() -> None:
    tree = graph.parse_depends("A && (C.Succeeded || C.Failed)")
    states = {"A": graph.TaskState("Succeeded"), "C": graph.TaskState("Failed")}
    assert graph.evaluate(tree, states)
    assert not graph.evaluate(graph.parse_depends("B && C"), {"B": graph.TaskState("Succeeded"), **states})
    assert graph.evaluate(graph.parse_depends("C"), {"C": graph.TaskState("Failed", continue_failed=True)})
    assert graph.evaluate(graph.parse_depends("B.Skipped || !B.Succeeded"), {"B": graph.TaskState("Skipped")})
    assert graph.find_cycle({"a": graph.parse_depends("b"), "b": graph.parse_depends("a")}) is not None
    with pytest.raises(UserError):
        graph.parse_depends("A && ")


def test_retry_strategy() -> None:
    assert parse_duration("1m30s") == 90 and parse_duration(10) == 10 and parse_duration("500ms") == 0.5
    with pytest.raises(UserError):
        parse_duration("soon")
    strategy = RetryStrategy.parse({"limit": "2", "backoff": {"duration": "1", "factor": "3"}})
    assert strategy is not None and [strategy.delay(n) for n in (1, 2, 3)] == [1, 3, 9]
    late = 100.0  # decided long after the last attempt ended: no backoff left
    assert strategy.decide(1, "Failed", 0, 0, late, {}).action == "retry"
    assert strategy.decide(3, "Failed", 0, 0, late, {}).message == "No more retries left"
    assert strategy.decide(1, "Error", 0, 0, late, {}).action == "stop"  # OnFailure is the default policy
    decided = RetryStrategy.parse({"limit": "2", "expression": "true"})  # Always, when an expression decides
    assert decided is not None and decided.policy == "Always"
    assert decided.decide(1, "Error", 0, 0, late, {}).action == "retry"
    with pytest.raises(UserError, match="retryPolicy"):
        RetryStrategy.parse({"retryPolicy": "Sometimes"})


def test_a_retry_expression_reads_the_retries_so_far() -> None:
    """Argo's buildRetryStrategyLocalScope: ``retries`` is the last attempt's number, as text."""
    strategy = RetryStrategy.parse({"limit": "9", "expression": "asInt(retries) < 2"})
    assert strategy is not None
    assert [strategy.decide(n, "Failed", 0, 0, 100.0, {}).action for n in (1, 2, 3)] == ["retry", "retry", "stop"]
