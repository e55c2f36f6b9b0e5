"""YAML read as Kubernetes and the Argo CLI read it: sigs.k8s.io/yaml over go-yaml v2, then JSON.

PyYAML's YAML 1.1 rules give some plain scalars another meaning than go-yaml v2 does, and a manifest's parameter
then carries other text than in Argo (whose ``AnyString`` turns a number back into plain decimal text):

- go-yaml reads ``5e-8``, ``1e3`` and ``08`` as numbers, and ``0o17`` as an octal integer; PyYAML leaves them text;
- PyYAML reads ``10:30`` as the sexagesimal integer 630 and ``2024-01-31`` as a date; go-yaml leaves both text;
- go-yaml v2 also reads ``y``, ``Y``, ``n`` and ``N`` as booleans. Here they stay text, a deliberate difference: in
  a field Argo types as text they become ``"true"``/``"false"`` there (a parameter named ``n`` is named ``false``),
  which no manifest means, and so a manifest where it matters does not work in Argo either.

A merge key (``<<: *defaults``) applies where it stands, so it overrides the keys written before it (PyYAML lets
every written key win). Map keys become text as sigs.k8s.io/yaml's YAMLToJSON writes them (``true``, ``1``). Read
strictly, as the Argo CLI reads a file, a key set twice (by hand or by a merge) is an error.
"""

from __future__ import annotations

import math
import re
import struct
from typing import Any, ClassVar

import yaml

from aipipe.engine.grammar.values import go_float_v

_Base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_BOOL_TAG = "tag:yaml.org,2002:bool"
_NULL_TAG = "tag:yaml.org,2002:null"
_MERGE_TAG = "tag:yaml.org,2002:merge"
_NUMBER_TAG = "tag:aipipe,2026:go-number"  # a plain scalar go-yaml may read as a number (it starts + - . or a digit)

_TRUE = ("yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON")  # go-yaml v2's, less y and Y (see above)
_FALSE = ("no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF")  # less n and N
_SPECIAL_FLOATS = {".nan": math.nan, ".NaN": math.nan, ".NAN": math.nan, ".inf": math.inf, ".Inf": math.inf,
                   ".INF": math.inf, "+.inf": math.inf, "+.Inf": math.inf, "+.INF": math.inf,
                   "-.inf": -math.inf, "-.Inf": -math.inf, "-.INF": -math.inf}
_INT64 = range(-(2 ** 63), 2 ** 63)
_UINT64_MAX = 2 ** 64 - 1
# strconv.ParseInt(s, 0, 64)'s forms: a base prefix, or a leading 0 for octal
_GO_INT = re.compile(r"([-+]?)(0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+|0[0-7]*|[1-9][0-9]*)\Z")
_OLD_OCTAL = re.compile(r"[-+]?0[0-7]+\Z")
_GO_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z")  # go-yaml's yamlStyleFloat
_TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ][0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(\.[0-9]+)?"
                        r"(Z|[-+][0-9]{2}:[0-9]{2})?)?\Z")


class GoYamlLoader(_Base):
    """A safe loader whose plain scalars resolve as go-yaml v2's ``resolve`` does for an ``interface{}`` target."""

    yaml_implicit_resolvers: ClassVar[dict[str | None, list[tuple[str, re.Pattern[str]]]]] = {}  # only those below
    strict = False  # go-yaml's UnmarshalStrict (``argo submit``, ``argo lint``): a key set twice is an error

    def flatten_mapping(self, node: yaml.MappingNode) -> None:
        """Merge keys as go-yaml v2 applies them: where ``<<`` stands, so it overrides the keys before it and the
        keys after it override it; of a list of mappings, the earlier ones win."""
        pairs: list[tuple[yaml.Node, yaml.Node]] = []
        for key_node, value_node in node.value:
            if key_node.tag != _MERGE_TAG:
                pairs.append((key_node, value_node))
                continue
            sources = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
            for source in reversed(sources):
                if not isinstance(source, yaml.MappingNode):
                    raise yaml.constructor.ConstructorError("while constructing a mapping", node.start_mark,
                                                            "map merge requires map or sequence of maps as the value",
                                                            source.start_mark)
                self.flatten_mapping(source)
                pairs.extend(source.value)
        if self.strict:
            seen: set[str] = set()
            for key_node, _ in pairs:
                if isinstance(key_node, yaml.ScalarNode) and key_node.value in seen:
                    raise yaml.constructor.ConstructorError(
                        None, None, f'line {key_node.start_mark.line + 1}: key "{key_node.value}" already set in map')
                seen.add(str(key_node.value))
        node.value = pairs


class StrictGoYamlLoader(GoYamlLoader):
    """:class:`GoYamlLoader` refusing a key a mapping (or a merge into it) has set already."""

    strict = True


def go_scalar(text: str) -> Any:
    """The value go-yaml v2 gives a plain scalar that starts with a sign, a dot or a digit (text when none)."""
    if text in _SPECIAL_FLOATS:
        return _SPECIAL_FLOATS[text]
    if text.startswith("."):
        return float(text) if _GO_FLOAT.match(text) else text
    if _TIMESTAMP.match(text):  # a timestamp decoded into interface{} stays the text it was
        return text
    plain = text.replace("_", "")
    whole = _GO_INT.match(plain)
    if whole:
        value = int(plain, 8) if _OLD_OCTAL.match(plain) else int(plain, 0)
        if value in _INT64 or 0 <= value <= _UINT64_MAX:
            return value
    if _GO_FLOAT.match(plain):
        return float(plain)
    return value if whole else text  # past 64 bits: go-yaml's big.Int


def _construct_number(loader: Any, node: yaml.ScalarNode) -> Any:
    return go_scalar(loader.construct_scalar(node))


def _construct_bool(loader: Any, node: yaml.ScalarNode) -> bool:
    return loader.construct_scalar(node) in _TRUE


GoYamlLoader.add_implicit_resolver(_BOOL_TAG, re.compile("^(?:" + "|".join(_TRUE + _FALSE) + ")$"),
                                   list("yYnNtTfFoO"))
GoYamlLoader.add_implicit_resolver(_NULL_TAG, re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""])
GoYamlLoader.add_implicit_resolver(_NUMBER_TAG, re.compile(r"^[-+.0-9]"), list("-+.0123456789"))
GoYamlLoader.add_implicit_resolver(_MERGE_TAG, re.compile(r"^(?:<<)$"), ["<"])
GoYamlLoader.add_constructor(_NUMBER_TAG, _construct_number)
GoYamlLoader.add_constructor(_BOOL_TAG, _construct_bool)


def json_keys(value: Any) -> Any:
    """Map keys as text, as YAMLToJSON writes them; a null key is refused (ValueError)."""
    if isinstance(value, dict):
        return {_key_text(k): json_keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_keys(v) for v in value]
    return value


def _key_text(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return str(key)
    if isinstance(key, float):
        return _float32_g(key)
    raise ValueError(f"unsupported map key {key!r}")


def _float32_g(value: float) -> str:
    """strconv.FormatFloat(v, 'g', -1, 32), with YAML's words for infinities and NaN."""
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    shortest = repr(value)
    for places in range(9):  # the shortest digits that read back as the same float32
        shortest = f"{value:.{places}e}"
        if _float32(float(shortest)) == _float32(value):
            break
    return go_float_v(float(shortest))  # those digits in Go's 'g' form


def _float32(value: float) -> bytes:
    return struct.pack("<f", value)


def load_all(text: str, strict: bool = False) -> list[Any]:
    """Every YAML document in ``text``, read as go-yaml v2 reads it, keys made text (``None`` for an empty one);
    ``strict``: as the Argo CLI reads a file, a key set twice is refused (yaml.YAMLError)."""
    return [json_keys(doc) for doc in yaml.load_all(text, Loader=StrictGoYamlLoader if strict else GoYamlLoader)]
