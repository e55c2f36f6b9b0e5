"""sprig functions beyond the first set, as Argo's expressions see them (``sprig.*``), and expr-lang builtins."""

from __future__ import annotations

from typing import Any

import pytest

from aipipe.engine.expr import evaluate

CASES = {
    # Go's Regexp.Expand: ${1} is group 1, $1W names a group "1W" (none: empty), $name a named group
    "sprig.regexReplaceAll('a(x*)b', '-ab-axxb-', '${1}W')": "-W-xxW-",
    "sprig.regexReplaceAll('a(x*)b', '-ab-axxb-', '$1W')": "---",
    "sprig.regexReplaceAll('(?P<w>o)', 'foo', '[$w]')": "f[o][o]",
    "sprig.regexReplaceAllLiteral('a(x*)b', '-ab-', '${1}')": "-${1}-",
    "sprig.abbrev(5, 'hello world')": "he...",
    "sprig.snakecase('HelloWorld')": "hello_world",
    "sprig.kebabcase('HelloWorld')": "hello-world",
    "sprig.camelcase('hello_world')": "HelloWorld",
    "sprig.swapcase('aB')": "Ab",
    "sprig.initials('hello world')": "hw",
    "sprig.wrap(5, 'hello world')": "hello\nworld",
    "sprig.nindent(2, 'a\\nb')": "\n  a\n  b",
    "sprig.plural('one', 'many', 2)": "many",
    "sprig.semverCompare('>=1.2.0', '1.3.0')": True,
    "sprig.semverCompare('^1.2.0', '2.0.0')": False,
    "sprig.semverCompare('~1.2.0 || >=3', '1.2.9')": True,
    "sprig.round(3.14159, 2)": 3.14,
    "sprig.toDecimal('0777')": 511,
    "sprig.without([1, 2, 3], 2)": [1, 3],
    "sprig.pluck('a', sprig.dict('a', 1), sprig.dict('a', 2))": [1, 2],
    "sprig.dig('a', 'b', 'none', sprig.dict('a', sprig.dict('b', 'found')))": "found",
    "sprig.dig('a', 'x', 'none', sprig.dict('a', sprig.dict('b', 'found')))": "none",
    "sprig.chunk(2, [1, 2, 3])": [[1, 2], [3]],
    "sprig.merge(sprig.dict('a', 1), sprig.dict('a', 2, 'b', 3))": {"a": 1, "b": 3},
    "sprig.mergeOverwrite(sprig.dict('a', 1), sprig.dict('a', 2))": {"a": 2},
    "sprig.splitn('$', 2, 'a$b$c')": {"_0": "a", "_1": "b$c"},
    "sprig.sha1sum('a')": "86f7e437faa5a7fce15d1ddcb9eaeaea377667b8",
    "sprig.adler32sum('hello')": "103547413",
    "sprig.toPrettyJson(sprig.dict('a', 1))": '{\n  "a": 1\n}',
    "sprig.mustToJson(sprig.list(1))": "[1]",
    "len(sprig.randAlphaNum(6))": 6,
    "len(sprig.uuidv4())": 36,
    "len(sprig.date('20060102150405', sprig.now()))": 14,
    "sprig.now().Year() >= 2026": True,
}


@pytest.mark.parametrize(("expression", "want"), CASES.items(), ids=list(CASES))
def test_sprig_function(expression: str, want: Any) -> None:
    assert evaluate(expression, {}) == want


EXPR = {
    "median([1, 3, 2])": 2.0,
    "median([1, 2, 3, 4])": 2.5,
    "splitAfter('a,b,c', ',')": ["a,", "b,", "c"],
    "splitAfter('a,b,c', ',', 2)": ["a,", "b,c"],
    "bitand(6, 3)": 2,
    "bitor(4, 1)": 5,
    "bitxor(6, 3)": 5,
    "bitnand(6, 3)": 4,
    "bitnot(0)": -1,
    "bitshl(1, 3)": 8,
    "bitshr(8, 2)": 2,
}


@pytest.mark.parametrize(("expression", "want"), EXPR.items(), ids=list(EXPR))
def test_expr_builtin(expression: str, want: Any) -> None:
    """expr-lang builtins that were missing: median, splitAfter and the bit operations."""
    assert evaluate(expression, {}) == want


@pytest.mark.parametrize(("expression", "want"), [
    ("sprig.regexSplit('(\\n|,)', 'a,b\\nc', -1)", ["a", "b", "c"]),  # a group adds nothing, as in Go
    ("sprig.regexSplit('z+', 'pizza', -1)", ["pi", "a"]),
    ("sprig.regexSplit('z+', 'pizza', 1)", ["pizza"]),
    ("sprig.regexSplit('z+', 'pizza', 0)", []),
    ("sprig.regexSplit(',', '', -1)", [""]),
])
def test_regex_split_is_gos(expression: str, want: Any) -> None:
    assert evaluate(expression, {}) == want


def test_sprig_dates_and_how_a_time_is_substituted() -> None:
    from aipipe.engine.template import Scope, render

    scope = Scope({"inputs.parameters.at": "2024-03-01T12:00:00Z"})
    at = "sprig.toDate('2006-01-02T15:04:05Z07:00', inputs.parameters.at)"
    assert render(f"{{{{=sprig.date('2006-01-02', sprig.dateModify('-86400.0s', {at}))}}}}", scope) == "2024-02-29"
    assert render(f"{{{{=sprig.dateModify('-1h', {at})}}}}", scope) == "2024-03-01T11:00:00Z"  # a time: no quotes
    assert render(f"{{{{=sprig.dateModify('-1 day', {at})}}}}", scope) == "2024-03-01T12:00:00Z"  # unparsed: as is
    assert render(f"{{{{=[{at}]}}}}", scope) == '["2024-03-01T12:00:00Z"]'
    assert evaluate("sprig.unixEpoch(sprig.toDate('2006-01-02', '2024-03-01'))", {}) == "1709251200"
    assert evaluate("sprig.htmlDate(sprig.toDate('2006-01-02', 'not a date'))", {}) == "0001-01-01"
