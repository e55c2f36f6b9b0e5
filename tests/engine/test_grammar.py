"""Golden cases for the one grammar (aipipe/engine/grammar/argo.lark): expr-lang's pipe, optional chaining,
nil coalescing, closures and sprig's variadic functions; govaluate `when` and `depends` through the same parser.

Expected values follow expr-lang's and sprig's documented semantics (worked out by hand, not recorded output).
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from aipipe.engine import graph
from aipipe.engine.expr import NIL, ExprError, Parser, evaluate, referenced_names, should_execute, to_text
from aipipe.errors import UserError

ENV: dict[str, Any] = {
    "nums": [1, 5, 2, 8],
    "words": ["alpha", "beta", "gamma"],
    "people": [{"name": "ann", "age": 31}, {"name": "bob", "age": 17}, {"name": "cy", "age": 45}],
    "inputs": {"parameters": {"n": "4", "csv": "a,b,c", "json": '{"k": [10, 20]}'}},
    "tasks": {"A": {"outputs": {"result": "ok", "parameters": {"x": "7"}}}, "gone": NIL},
    "workflow": {"name": "wf-1", "labels": {"team": "ml"}},
}


@pytest.mark.parametrize(("expression", "expected"), [
    # the pipe: the left side becomes the first argument; it binds loosest, left to right
    ("nums | filter(# > 1)", [5, 2, 8]),
    # expr-lang's toJSON indents as Go's MarshalIndent; Argo's toJson stays compact
    ("toJSON({'b': [1, {}], 'a': []})", '{\n  "a": [],\n  "b": [\n    1,\n    {}\n  ]\n}'),
    ("toJson({'b': [1], 'a': 'x'})", '{"a":"x","b":[1]}'),
    ("nums | filter(# > 1) | map(# * 10)", [50, 20, 80]),
    ("nums | map(# + 1) | sum()", 20),
    ("words | map(upper(#)) | join('-')", "ALPHA-BETA-GAMMA"),
    ("inputs.parameters.csv | split(',') | len()", 3),
    ("nums | count(# % 2 == 0) == 2 ? 'two even' : 'other'", "two even"),
    ("1 + 1 | string()", "2"),
    ("(nums | len() > 3) && (words | all(len(#) > 3))", True),
    ("nums | first() ?? 0 + 1", 2),
    # optional chaining and nil coalescing
    ("tasks.gone?.outputs?.result", NIL),
    ("tasks.gone?.outputs?.result ?? 'default'", "default"),
    ("tasks.A?.outputs.parameters.x ?? 'default'", "7"),
    ("tasks.missing?.outputs.result ?? tasks.A.outputs.result", "ok"),
    ("nil ?? nil ?? 3", 3),
    ("workflow?.labels?.['team']", "ml"),
    ("(tasks.gone ?? {'n': 2}).n * 3", 6),
    # closures: {…} bodies and bare bodies, # and .field, #index
    ("filter(people, {.age >= 18}) | map(.name)", ["ann", "cy"]),
    ("all(people, #.age > 10) && any(people, .name == 'bob')", True),
    ("one(people, .age < 18) && none(nums, # > 100)", True),
    ("count(people, .age > 30)", 2),
    ("find(people, .age > 40).name", "cy"),
    ("findIndex(words, # startsWith 'g')", 2),
    ("map(words, #index)", [0, 1, 2]),
    ("sortBy(people, .age) | map(.name)", ["bob", "ann", "cy"]),
    ("reduce(nums, #acc + #, 100)", 116),
    ("groupBy(nums, # % 2 == 0)[true]", [2, 8]),
    # sprig: add/mul/max/min/list/cat are variadic, sub/div two arguments, text that is no number counts 0
    ("sprig.add(1, 2, 3, 4)", 10),
    ("sprig.add(inputs.parameters.n, '6', 'x')", 10),
    ("sprig.mul(2, 3, 4)", 24),
    ("sprig.max(3, 9, 4)", 9),
    ("sprig.min(3, 9, 4, -2)", -2),
    ("sprig.sub(10, 4)", 6),
    ("sprig.div(7, 2)", 3),
    ("sprig.addf(1.5, 2, '0.25')", 3.75),
    ("sprig.cat('a', 1, true, nil, 'z')", "a 1 true z"),
    ("sprig.list(1, 'two', 3)", [1, "two", 3]),
    ("sprig.join('/', sprig.list('x', 'y', 3))", "x/y/3"),
    ("sprig.default('d', '')", "d"),
    ("sprig.coalesce('', nil, 'first', 'second')", "first"),
    ("sprig.trimPrefix('v', 'v1.2')", "1.2"),
    ("sprig.quote('say \"hi\"', 2)", '"say \\"hi\\"" "2"'),
    ("'run-12' matches '^run-\\d+$' && 'a b' matches '\\bb'", True),  # regex escapes stay as written
    # the rest of the language
    ("let x = asInt(inputs.parameters.n); x * x + 1", 17),
    ("nums[1:3]", [5, 2]),
    ("nums[:2] + nums[3:]", [1, 5, 8]),
    ("'hello'[1:4]", "ell"),
    ("1 < 2 < 3", True),
    ("3 > 2 > 2", False),
    ("'x' not in ['a', 'b'] and not ('a' in ['b'])", True),
    ("'abc' not matches '^b'", True),
    ("{a: 1, 'b c': 2, (1 + 2): 3}", {"a": 1, "b c": 2, 3: 3}),
    ("-2 ** 2", -4.0),
    ("2 ** 3 ** 2", 512.0),
    ("7 % 3 + 10 / 4", 3.5),
    ("1..4", [1, 2, 3, 4]),
    ("0x1F + 0b11 + 1_000", 1034),
    ("`raw\\n` + 'tab\\tx'", "raw\\ntab\tx"),
    ("false ?: 'alt'", "alt"),
    ("jsonpath(inputs.parameters.json, '$.k[1]')", 20),
    ("toJson(fromJSON(inputs.parameters.json).k | map(# / 10))", "[1,2]"),
])
def test_expr_golden(expression: str, expected: Any) -> None:
    assert evaluate(expression, ENV) == expected


@pytest.mark.parametrize(("expression", "message"), [
    ("nums | ", "unexpected end"),
    ("nums | 3", "unexpected token '3'"),
    ("nums !", "unexpected token Operator('!') at the end"),
    ("filter(nums)", "takes a list and a predicate"),
    ("# > 1", "outside a predicate"),
    ("sprig.sub(1, 2, 3)", "sprig.sub()"),
    ("sprig.nosuch(1)", "unknown function sprig.nosuch()"),
    ("nums[1:", "unexpected end"),
    ("nums | len() > 3 && words | all(len(#) > 3)", "expected a boolean"),  # the pipe binds loosest
    ("{a: 1,, b: 2}", "unexpected token ','"),
    ("'open", "unexpected"),
])
def test_expr_golden_errors(expression: str, message: str) -> None:
    with pytest.raises(ExprError, match=re.escape(message)):
        evaluate(expression, ENV)


def test_now_is_a_go_time() -> None:
    """``now()`` has the methods of Go's time.Time that workflows call, and still counts as seconds."""
    today = time.strftime("%Y-%m-%d", time.gmtime())
    assert evaluate("now().Format('2006-01-02')", ENV) in (today, time.strftime("%Y-%m-%d", time.gmtime()))
    assert abs(evaluate("now().Unix()", ENV) - time.time()) < 5
    assert evaluate("now().Year() >= 2026 && now() - duration('1h') < now()", ENV) is True
    assert evaluate("sprig.date('2006-01-02T15:04:05Z07:00 -0700', 86400)", ENV) == "1970-01-02T00:00:00Z +0000"
    with pytest.raises(ExprError, match=re.escape("cannot call Nope() on GoTime")):
        evaluate("now().Nope()", ENV)


def test_parser_and_names() -> None:
    """What the event-binding check and the env builder use: a syntax check and the top-level names read."""
    Parser("discriminator == 'x' && payload.message | len() > 1").parse()
    with pytest.raises(ExprError):
        Parser("payload.message ==").parse()
    assert referenced_names("nums | filter(# > limit) | map(tasks.A.outputs[#])") == {"nums", "limit", "tasks"}
    assert to_text(evaluate("nums | map(# * 1.5)", ENV)) == "[1.5,7.5,3,12]"


@pytest.mark.parametrize(("condition", "expected"), [
    ("Succeeded == Succeeded && ( 3 >= 2.5 || false )", True),
    ("'https://host/a=b' == 'https://host/a=b'", True),
    ("'a b' != \"a b\"", False),
    ("'v1.2.3' =~ '^v1\\.'", True),
    ("prod !~ dev", True),
    ("!( 2 < 10 )", False),
    ("tails < tails2", True),
    ("a == b == c", False),  # (a == b) == c: govaluate groups comparisons from the left
])
def test_when_golden(condition: str, expected: bool) -> None:
    assert should_execute(condition) is expected


@pytest.mark.parametrize("condition", ["( a == a ) )", "1 < tails", "&& a",
                                       "https://host/a=b == https://host/a=b", "v1.2.3 =~ ^v1"])
def test_when_errors(condition: str) -> None:
    with pytest.raises(ExprError):
        should_execute(condition)


def test_depends_golden() -> None:
    tree = graph.parse_depends("(train-1.Succeeded || train-1.Skipped) && !eval.Failed || fallback.AnySucceeded")
    assert graph.deps_of(tree) == {"train-1", "eval", "fallback"}
    states = {"train-1": graph.TaskState("Skipped"), "eval": graph.TaskState("Succeeded"),
              "fallback": graph.TaskState("Failed")}
    assert graph.evaluate(tree, states)
    states["eval"] = graph.TaskState("Failed")
    assert not graph.evaluate(tree, states)
    states["fallback"] = graph.TaskState("Failed", any_succeeded=True)
    assert graph.evaluate(tree, states)
    assert graph.parse_depends("a.b.Daemoned") == graph.Dep("a.b", "Daemoned")
    assert graph.parse_depends("a.Unknown") == graph.Dep("a.Unknown", None)
    for bad in ("A &", "(A || B", "A B", "!"):
        with pytest.raises(UserError, match=r"tasks\.t\.depends"):
            graph.parse_depends(bad, "tasks.t.depends")


def test_braces_are_a_closure_only_as_a_functions_argument() -> None:
    """expr-lang opens a map at `{` anywhere else, so an expression wrapped in {{…}} does not compile."""
    env = {"steps": {"a": {"outputs": {"result": "x"}}}}
    with pytest.raises(ExprError, match="unexpected token Bracket"):
        evaluate("{{steps['a'].outputs.result}}", env)
    with pytest.raises(ExprError, match="unexpected token Bracket"):
        evaluate("{steps.a.outputs.result}", env)
    assert evaluate("{k: 1}", {}) == {"k": 1}
    assert evaluate("filter([1, 2, 3], {# > 1}) | map({# * 2})", {}) == [4, 6]


GOVALUATE_GOLDEN = Path(__file__).parent / "golden" / "govaluate_when.jsonl"


def test_when_matches_what_govaluate_answered() -> None:
    """Each condition's result, or Argo's error words, as the real govaluate gave them through a copy of Argo's
    shouldExecute (Knetic/govaluate 9aa4983, the commit Argo pins, built from Debian's
    golang-github-knetic-govaluate-dev): the golden file was written by that program, not by this engine."""
    rows = [json.loads(line) for line in GOVALUATE_GOLDEN.read_text().splitlines()]
    assert len(rows) > 200
    wrong = []
    for row in rows:
        try:
            got: object = should_execute(row["when"])
        except ExprError as exc:
            got = str(exc)
        want = row.get("error", row.get("result"))
        if got != want:
            wrong.append(f"{row['when']!r}: got {got!r}, govaluate {want!r}")
    assert not wrong, "\n".join(wrong[:20])


@pytest.mark.parametrize(("text", "expected"), [
    ("date('2024-03-15').Year()", "2024"),
    ("string(date('2024-03-15').Weekday())", "Friday"),
    ("date('2024-03-15').Weekday()", "5"),
    ("(date('2024-03-01') - date('2024-02-01')).Hours() / 24", "29"),
    ("(date('2024-01-31') + duration('36h')).Format('2006-01-02 15:04')", "2024-02-01 12:00"),
    ("string(date('15/03/2024', '02/01/2006').Month())", "March"),
    ("date('2024-03-15T10:00:00+02:00').Hour()", "8"),
    ("duration('90s')", "90000000000"),
    ("string(duration('90s'))", "1m30s"),
    ("string(duration('1.5h'))", "1h30m0s"),
    ("string(duration('250ms'))", "250ms"),
    ("now() - duration('1h') < now()", "true"),
    ("type(fromJSON('1'))", "float"),
    ("type(fromJSON('null'))", "nil"),
    ("string(fromJSON('1000000'))", "1e+06"),
    ("let n = 42; if n > 100 { 'large' } else if n > 10 { 'medium' } else { 'small' }", "medium"),
    ("'ignored'; 'last'", "last"),
    ("40 /* base */ + 2 // answer", "42"),
])
def test_go_times_durations_and_expr_117(text: str, expected: str) -> None:
    """expr-lang v1.17.8 as Argo v4.1.2 runs it: Go's time.Time and time.Duration, json numbers as floats,
    if/else, sequences and comments."""
    assert to_text(evaluate(text, {})) == expected
