"""govaluate as Argo's ``when`` calls it (``shouldExecute``): after ``{{…}}`` substitution, the condition is lexed,
bare words become text, and the result must be a boolean; errors carry Argo's words.

Hand-lexed rather than part of ``argo.lark``: govaluate's lexer decides by context, and its quirks are what users
meet: a quoted string that reads as a date is that date's Unix time (``'2024-03-01' == '2024-03-01 00:00'``), an
escape drops its backslash (``'^v\\d+$'`` is ``^vd+$``), a dotted word is a field access (``api.internal`` cannot
be read, ``v1.2`` names a parameter that is not there), ``[…]`` is a word with anything inside, ``IN`` is ``in``, a
run of symbol characters is one token (``a >-1`` fails), ``(a)`` is no list for ``in``. Operators from loosest:
``,`` · ``?`` ``:`` ``??`` · ``||`` · ``&&`` · comparisons and ``in`` · ``&`` ``|`` ``^`` · ``<<`` ``>>`` ·
``+`` ``-`` · ``*`` ``/`` ``%`` · ``**`` · prefix ``-`` ``!`` ``~``; each level groups from the left. Numbers
are floats; ``+`` joins when either side is text; ``>``/``<`` compare two numbers or two texts; ``==`` is strict.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from aipipe.engine.grammar.godates import Moment, parse_time
from aipipe.engine.grammar.values import ExprError, go_float_v

# What may follow a token of each kind (govaluate's lexer states); the kinds that may end an expression.
_ANY_VALUE = frozenset({"PREFIX", "NUMERIC", "BOOLEAN", "VARIABLE", "PATTERN", "FUNCTION", "ACCESSOR", "STRING",
                        "TIME", "CLAUSE"})
_AFTER_VALUE = frozenset({"MODIFIER", "COMPARATOR", "LOGICALOP", "CLAUSE_CLOSE", "TERNARY", "SEPARATOR"})
_NEXT: dict[str, frozenset[str]] = {
    "UNKNOWN": _ANY_VALUE,
    "CLAUSE": _ANY_VALUE | {"CLAUSE_CLOSE"},
    "CLAUSE_CLOSE": frozenset({"COMPARATOR", "MODIFIER", "NUMERIC", "BOOLEAN", "VARIABLE", "STRING", "PATTERN", "TIME",
                               "CLAUSE", "CLAUSE_CLOSE", "LOGICALOP", "TERNARY", "SEPARATOR"}),
    "NUMERIC": _AFTER_VALUE, "BOOLEAN": _AFTER_VALUE, "STRING": _AFTER_VALUE, "VARIABLE": _AFTER_VALUE,
    "TIME": _AFTER_VALUE - {"TERNARY"}, "PATTERN": _AFTER_VALUE - {"TERNARY"},
    "MODIFIER": frozenset({"PREFIX", "NUMERIC", "VARIABLE", "FUNCTION", "ACCESSOR", "STRING", "BOOLEAN", "CLAUSE",
                           "CLAUSE_CLOSE"}),
    "COMPARATOR": _ANY_VALUE | {"CLAUSE_CLOSE"},
    "LOGICALOP": _ANY_VALUE - {"PATTERN"} | {"CLAUSE_CLOSE"},
    "PREFIX": frozenset({"NUMERIC", "BOOLEAN", "VARIABLE", "FUNCTION", "ACCESSOR", "CLAUSE", "CLAUSE_CLOSE"}),
    "TERNARY": _ANY_VALUE - {"PATTERN"} | {"SEPARATOR"},
    "FUNCTION": frozenset({"CLAUSE"}),
    "ACCESSOR": frozenset({"CLAUSE", "MODIFIER", "COMPARATOR", "LOGICALOP", "CLAUSE_CLOSE", "TERNARY", "SEPARATOR"}),
    "SEPARATOR": _ANY_VALUE - {"PATTERN"},
}
_ENDS = frozenset({"CLAUSE_CLOSE", "NUMERIC", "BOOLEAN", "STRING", "TIME", "PATTERN", "VARIABLE", "ACCESSOR"})
_SYMBOLS = {  # kind of each operator symbol, in the order the lexer tries them (a prefix only where one may stand)
    "MODIFIER": ("+", "-", "*", "/", "%", "**", "&", "|", "^", ">>", "<<"),
    "LOGICALOP": ("&&", "||"),
    "COMPARATOR": ("==", "!=", ">", ">=", "<", "<=", "=~", "!~", "in"),
    "TERNARY": ("?", ":", "??"),
}
_PREFIXES = ("-", "!", "~")
# binary levels, loosest first: the token kind and the symbols each takes
_LEVELS: tuple[tuple[str, frozenset[str]], ...] = (
    ("SEPARATOR", frozenset({","})), ("TERNARY", frozenset({"?", ":", "??"})), ("LOGICALOP", frozenset({"||"})),
    ("LOGICALOP", frozenset({"&&"})), ("COMPARATOR", frozenset(_SYMBOLS["COMPARATOR"])),
    ("MODIFIER", frozenset({"^", "&", "|"})), ("MODIFIER", frozenset({">>", "<<"})),
    ("MODIFIER", frozenset({"+", "-"})), ("MODIFIER", frozenset({"*", "/", "%"})), ("MODIFIER", frozenset({"**"})))
_NUMERIC_ONLY = frozenset({"-", "*", "/", "%", "**", "&", "|", "^", ">>", "<<"})
_ORDERING = frozenset({">", "<", ">=", "<="})


@dataclass(frozen=True)
class Token:
    """One lexed token: govaluate's kind name and its value."""

    kind: str
    value: Any


@dataclass(frozen=True)
class _Stage:
    """One planned operation: ``op`` on ``left`` and ``right`` (a literal's value in ``value``)."""

    op: str
    left: _Stage | None = None
    right: _Stage | None = None
    value: Any = None


def should_execute(when: str) -> bool:
    """Argo's shouldExecute: True for an empty condition, else the condition's boolean; ExprError in Argo's words."""
    if when == "":
        return True
    try:
        tokens = lex(when)
        _check_syntax(tokens)
        tokens = _patterns(tokens)
    except ExprError as exc:
        hint = " (hint: try wrapping the affected expression in quotes (\"))" if "Invalid token" in str(exc) else ""
        raise ExprError(f"Invalid 'when' expression '{when}': {exc}{hint}") from None
    tokens = [Token("STRING", t.value) if t.kind == "VARIABLE" else t for t in tokens]  # words are text in Argo
    try:
        _check_syntax(tokens)
        tokens = _patterns(tokens)
        stage = _Planner(tokens).plan()
    except ExprError as exc:
        raise ExprError(f"Failed to parse 'when' expression '{when}': {exc}") from None
    try:
        result = _evaluate(stage)
    except ExprError as exc:
        raise ExprError(f"Failed to evaluate 'when' expresion '{when}': {exc}") from None  # Argo's spelling
    if not isinstance(result, bool):
        raise ExprError(f"Expected boolean evaluation for '{when}'. Got {go_value(result)}")
    return result


# ---------------------------------------------------------------------------------------------- lexing

def lex(text: str) -> list[Token]:
    """govaluate's parseTokens: tokens in order, each read from where the last ended."""
    out: list[Token] = []
    reader = _Reader(text)
    state = "UNKNOWN"
    while reader.more():
        token = _read_token(reader, state)
        if token is None:
            break
        state = token.kind
        out.append(token)
    depth = 0
    for token in out:
        depth += {"CLAUSE": 1, "CLAUSE_CLOSE": -1}.get(token.kind, 0)
    if depth:
        raise ExprError("Unbalanced parenthesis")
    return out


class _Reader:
    def __init__(self, text: str) -> None:
        self.text, self.pos = text, 0

    def more(self) -> bool:
        return self.pos < len(self.text)

    def read(self) -> str:
        char = self.text[self.pos] if self.pos < len(self.text) else ""
        self.pos += 1
        return char

    def until(self, keep: Any, include_space: bool, break_space: bool) -> tuple[str, bool]:
        """govaluate's readUntilFalse (escapes allowed): the text read, and whether ``keep`` or a space ended it."""
        buffer: list[str] = []
        while self.more():
            char = self.read()
            if char == "\\":
                buffer.append(self.read())
                continue
            if char.isspace():
                if break_space and buffer:
                    return "".join(buffer), True
                if not include_space:
                    continue
            if keep(char):
                buffer.append(char)
            else:
                self.pos -= 1
                return "".join(buffer), True
        return "".join(buffer), False

    def word(self, keep: Any) -> str:
        """govaluate's readTokenUntilFalse: from the character just read, while ``keep`` holds or up to a space."""
        self.pos -= 1
        return self.until(keep, include_space=False, break_space=True)[0]


def _is_digit(char: str) -> bool:
    return char.isdecimal()


def _read_token(reader: _Reader, state: str) -> Token | None:
    while reader.more():
        char = reader.read()
        if char.isspace():
            continue
        if _is_digit(char):
            return _number(reader, char)
        if char == ",":
            return Token("SEPARATOR", ",")
        if char == "[":
            value, done = reader.until(lambda c: c != "]", include_space=True, break_space=False)
            if not done:
                raise ExprError("Unclosed parameter bracket")
            reader.pos += 1
            return Token("VARIABLE", value)
        if char.isalpha():
            return _word(reader.word(lambda c: c.isalpha() or _is_digit(c) or c in "_."))
        if char in "'\"":
            value, done = reader.until(lambda c: c not in "'\"", include_space=True, break_space=False)
            if not done:
                raise ExprError("Unclosed string literal")
            reader.pos += 1
            moment = parse_time(value)
            return Token("STRING", value) if moment is None else Token("TIME", moment)
        if char in "()":  # a rune, as Go prints it in errors: 40, 41
            return Token("CLAUSE" if char == "(" else "CLAUSE_CLOSE", ord(char))
        symbol = reader.word(lambda c: not (c.isalpha() or _is_digit(c) or c in "()[]'\""))
        if "PREFIX" in _NEXT[state] and symbol in _PREFIXES:
            return Token("PREFIX", symbol)
        for kind, symbols in _SYMBOLS.items():
            if symbol in symbols:
                return Token(kind, symbol)
        raise ExprError(f"Invalid token: '{symbol}'")
    return None


def _number(reader: _Reader, char: str) -> Token:
    if char == "0" and reader.more():
        if reader.read() == "x" and reader.more():
            digits = reader.until(lambda c: c.lower() in "0123456789abcdef", include_space=False, break_space=True)[0]
            try:
                return Token("NUMERIC", float(int(digits, 16)))
            except ValueError:
                raise ExprError(f"Unable to parse hex value '{digits}' to uint64\n") from None
        reader.pos -= 1
    text = reader.word(lambda c: _is_digit(c) or c == ".")
    if not re.fullmatch(r"\d+(\.\d*)?", text):  # what Go's ParseFloat takes of digits and dots
        raise ExprError(f"Unable to parse numeric value '{text}' to float64\n")
    return Token("NUMERIC", float(text))


def _word(text: str) -> Token:
    if text in ("true", "false"):
        token = Token("BOOLEAN", text == "true")
    elif text in ("in", "IN"):
        token = Token("COMPARATOR", "in")
    else:
        token = Token("VARIABLE", text)
    if text.find(".") > 0:
        if text.endswith("."):
            raise ExprError(f"Hanging accessor on token '{text}'")
        parts = text.split(".")
        for part in parts[1:]:
            if part and part[0].upper() != part[0]:
                raise ExprError(f"Unable to access unexported field '{part}' in token '{text}'")
        token = Token("ACCESSOR", parts)
    return token


def _check_syntax(tokens: list[Token]) -> None:
    """govaluate's checkExpressionSyntax: each token may follow the one before; the last may end it."""
    state, last = "UNKNOWN", None
    for token in tokens:
        if token.kind not in _NEXT[state]:
            if last is not None and last.kind == "VARIABLE" and token.kind == "CLAUSE":
                raise ExprError(f"Undefined function {last.value}")
            before = "<nil>" if last is None else go_value(last.value)
            raise ExprError(f"Cannot transition token types from {state} [{before}] to {token.kind} "
                            f"[{go_value(token.value)}]")
        state, last = token.kind, token
    if state not in _ENDS:
        raise ExprError("Unexpected end of expression")


def _patterns(tokens: list[Token]) -> list[Token]:
    """A text right of ``=~``/``!~`` is compiled once, when the expression is built (a bad one fails it then)."""
    out = list(tokens)
    for i, token in enumerate(out[:-1]):
        if token.kind == "COMPARATOR" and token.value in ("=~", "!~") and out[i + 1].kind == "STRING":
            out[i + 1] = Token("PATTERN", _compile(out[i + 1].value))
    return out


def _compile(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise ExprError(f"error parsing regexp: {exc}: `{pattern}`") from None


# ---------------------------------------------------------------------------------------------- planning

class _Planner:
    """govaluate's stage planner: one level per precedence, each grouping from the left."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens, self.pos = tokens, 0

    def plan(self) -> _Stage | None:
        return self.level(0) if self.tokens else None

    def peek(self) -> Token | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def level(self, index: int) -> _Stage | None:
        if index == len(_LEVELS):
            return self.value()
        kind, symbols = _LEVELS[index]
        left = self.level(index + 1)
        while (token := self.peek()) is not None and token.kind == kind and token.value in symbols:
            self.pos += 1
            left = _Stage(str(token.value), left, self.level(index + 1))
        return left

    def value(self) -> _Stage | None:
        token = self.peek()
        if token is None:
            return None
        self.pos += 1
        if token.kind == "CLAUSE":
            inner = self.level(0)
            self.pos += 1  # the closing parenthesis
            return _Stage("()", right=inner)
        if token.kind == "CLAUSE_CLOSE":
            self.pos -= 1
            return None
        if token.kind == "PREFIX":
            return _Stage("prefix" + token.value, right=self.value())
        if token.kind == "ACCESSOR":
            return _Stage("access", value=token.value)
        if token.kind == "TIME":
            return _Stage("literal", value=token.value.unix)
        if token.kind in ("NUMERIC", "STRING", "PATTERN", "BOOLEAN"):
            return _Stage("literal", value=token.value)
        raise ExprError(f"Unable to plan token kind: '{token.kind}', value: '{go_value(token.value)}'")


# ---------------------------------------------------------------------------------------------- evaluation

def _evaluate(stage: _Stage | None) -> Any:
    if stage is None:
        return None
    if stage.op == "literal":
        return stage.value
    if stage.op == "access":
        raise ExprError(f"No parameter '{stage.value[0]}' found.")
    if stage.op == "()":
        return _evaluate(stage.right)
    if stage.op.startswith("prefix"):
        return _prefix(stage.op[6:], _evaluate(stage.right))
    left = _evaluate(stage.left)
    op = stage.op
    if op == "&&" and left is False:
        return False
    if op == "||" and left is True:
        return True
    if op == "??" and left is not None:
        return left
    skip = (op == "?" and left is False) or (op == ":" and left is not None)
    right = None if skip else _evaluate(stage.right)
    return _binary(op, left, right)


def _prefix(op: str, value: Any) -> Any:
    wanted = bool if op == "!" else float
    if not isinstance(value, wanted) or (wanted is float and isinstance(value, bool)):
        raise ExprError(f"Value '{go_value(value)}' cannot be used with the prefix '{op}'")
    if op == "!":
        return not value
    return -value if op == "-" else float(~_int64(value))


def _binary(op: str, left: Any, right: Any) -> Any:
    _type_check(op, left, right)
    if op in ("&&", "||"):
        return left and right if op == "&&" else left or right
    if op == "?":
        return right if left else None
    if op in (":", "??"):
        return left if left is not None else right
    if op == ",":
        return [*left, right] if isinstance(left, list) else [left, right]
    if op in ("==", "!="):
        return _same(left, right) == (op == "==")
    if op == "in":
        return any(_same(left, option) for option in right)
    if op in ("=~", "!~"):
        pattern = right if isinstance(right, re.Pattern) else _compile(right)
        return (pattern.search(left) is not None) == (op == "=~")
    if op in _ORDERING:
        return {">": left > right, "<": left < right, ">=": left >= right, "<=": left <= right}[op]
    if op == "+":
        return go_value(left) + go_value(right) if isinstance(left, str) or isinstance(right, str) else left + right
    return _arithmetic(op, left, right)


def _type_check(op: str, left: Any, right: Any) -> None:
    """govaluate's checks before an operator runs, in its order and words (the value that fails is named)."""
    what, kind = "modifier", "number"
    checks: list[tuple[Any, bool]] = []
    if op in ("&&", "||", "?"):
        what, kind = ("logical operator" if op != "?" else "ternary operator"), "bool"
        checks = [(left, isinstance(left, bool))] + ([(right, isinstance(right, bool))] if op != "?" else [])
    elif op == "in":
        what, checks = "comparator", [(right, isinstance(right, list))]
    elif op in ("=~", "!~"):
        what, checks = "comparator", [(left, isinstance(left, str)), (right, isinstance(right, (str, re.Pattern)))]
    elif op in _ORDERING:
        fine = (_is_number(left) and _is_number(right)) or (isinstance(left, str) and isinstance(right, str))
        what, checks = "comparator", [(left, fine)]
    elif op == "+":
        checks = [(left, (_is_number(left) and _is_number(right)) or isinstance(left, str) or isinstance(right, str))]
    elif op in _NUMERIC_ONLY:
        checks = [(left, _is_number(left)), (right, _is_number(right))]
    for value, fine in checks:
        if not fine:
            raise ExprError(f"Value '{go_value(value)}' cannot be used with the {what} '{op}', it is not a {kind}")


def _is_number(value: Any) -> bool:
    return isinstance(value, float)


def _arithmetic(op: str, left: float, right: float) -> float:
    if op == "-":
        return left - right
    if op == "*":
        return left * right
    if op == "/":  # Go's float division: ±Inf, or NaN for 0/0
        if right:
            return left / right
        return math.copysign(math.inf, left) * math.copysign(1, right) if left else math.nan
    if op == "%":
        return math.fmod(left, right) if right else math.nan
    if op == "**":
        try:
            return math.pow(left, right)
        except (OverflowError, ValueError):
            return math.inf if left > 0 else math.nan
    a, b = _int64(left), _int64(right)
    if op in ("<<", ">>"):
        a, b = a % 2**64, b % 2**64
        return float(((a << b) if op == "<<" else (a >> b)) % 2**64) if b < 64 else 0.0
    return float({"&": a & b, "|": a | b, "^": a ^ b}[op])


def _int64(value: float) -> int:
    if math.isnan(value) or math.isinf(value):
        return -(2**63)
    return int(value)


def _same(left: Any, right: Any) -> bool:
    """Go's reflect.DeepEqual on govaluate's values: '5' is not 5, 'true' is not true."""
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(_same(a, b) for a, b in zip(left, right, strict=True))
    return type(left) is type(right) and left == right


def go_value(value: Any) -> str:
    """Go's ``%v`` of a govaluate value (a float64 as Go prints it: ``42``, ``1e+06``, ``0.5``)."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return go_float_v(value)
    if isinstance(value, list):
        return "[" + " ".join(go_value(v) for v in value) + "]"
    if isinstance(value, re.Pattern):
        return value.pattern
    if isinstance(value, Moment):
        return value.shown
    return str(value)
