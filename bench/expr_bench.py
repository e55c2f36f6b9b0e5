"""Expression speed: parse + evaluate of expr-lang, govaluate ``when`` and ``depends`` texts.

Two numbers per language, in microseconds per call:
- cold: every call parses a text it has not seen (the parse cache is cleared first);
- warm: the same texts again, as the engine sees them over loop items and retries.
``--baseline DIR`` times an older ``expr.py`` and ``graph.py`` in DIR the same way, e.g. the hand-written
parsers before the grammar: ``mkdir /tmp/old && for f in expr graph; do git show 917a72b:aipipe/engine/$f.py
> /tmp/old/$f.py; done`` (they have no parse cache, so their cold and warm numbers agree).

    PYTHONPATH=. python3 bench/expr_bench.py [--baseline /tmp/old] [--rounds 2000]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

from aipipe.engine import expr, graph
from aipipe.engine.grammar import parse as grammar_parse

ENV: dict[str, Any] = {
    "inputs": {"parameters": {"n": "4", "flag": "true", "config": '{"a": 1}'}},
    "tasks": {"A": {"outputs": {"result": "heads", "parameters": {"x": "7"}}}},
    "items": [1, 5, 2, 8, 3],
}
EXPRESSIONS = [
    "inputs.parameters.flag == 'true' && asInt(inputs.parameters.n) > 2",
    "tasks.A.outputs.result == 'heads' ? 'H' : 'T'",
    "sprig.add(asInt(inputs.parameters.n), 1)",
    "filter(items, {# > 2})",
    "tasks.B.outputs.result ?? tasks.A.outputs.parameters.x",
]
CONDITIONS = ["heads == heads", "( 3 > 2 && tails != heads ) || false", "v1.2 =~ ^v1"]
DEPENDS = ["A && (B.Succeeded || B.Failed)", "!C.Skipped && D"]


def _time(calls: list[Callable[[], Any]], rounds: int, reset: Callable[[], None] | None) -> float:
    """Mean microseconds per call over ``rounds`` passes (``reset`` before each pass: cold parses)."""
    spent = 0.0
    for _ in range(rounds):
        if reset is not None:
            reset()
        start = time.perf_counter()
        for call in calls:
            call()
        spent += time.perf_counter() - start
    return spent / (rounds * len(calls)) * 1e6


def _load(path: Path) -> ModuleType:
    name = f"baseline_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def measure(evaluate: Callable[..., Any], condition: Callable[[str], bool], depends: Callable[[str], Any],
            rounds: int, reset: Callable[[], None] | None) -> dict[str, float]:
    cases: dict[str, list[Callable[[], Any]]] = {
        "expr": [partial(evaluate, t, ENV) for t in EXPRESSIONS],
        "when": [partial(condition, t) for t in CONDITIONS],
        "depends": [partial(depends, t) for t in DEPENDS],
    }
    out = {}
    for name, calls in cases.items():
        out[f"{name}_cold_us"] = _time(calls, rounds, reset or (lambda: None))
        out[f"{name}_warm_us"] = _time(calls, rounds, None)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", help="a folder with an older expr.py and graph.py to time the same way")
    parser.add_argument("--rounds", type=int, default=2000)
    args = parser.parse_args()
    results = {"grammar": measure(expr.evaluate, expr.evaluate_condition, graph.parse_depends, args.rounds,
                                  grammar_parse.parse.cache_clear)}
    if args.baseline:
        old, old_graph = _load(Path(args.baseline) / "expr.py"), _load(Path(args.baseline) / "graph.py")
        results["baseline"] = measure(old.evaluate, old.evaluate_condition, old_graph.parse_depends, args.rounds,
                                      None)
    for name, numbers in results.items():
        print(name, " ".join(f"{k}={v:.1f}" for k, v in numbers.items()))


if __name__ == "__main__":
    main()
