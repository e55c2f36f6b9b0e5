"""A step's flags: one pydantic model per step, the single place a parameter is declared.

Each field is one ``--<flag>`` (the field name with ``_`` -> ``-``): its type (``str``, ``int``,
``float``, ``bool`` or a ``Literal`` of strings), its default (none = required), its ``ge``/``le``
range and its description. The contract's inputs are derived from the model (:func:`flag_inputs`),
and the step's entry parses its argv into the same model (:func:`parse_flags`), so the template,
the generated contract doc, the pipeline's defaults and the step agree, and the step gets typed
values that mypy checks.
"""

from __future__ import annotations

import argparse
import types
from typing import Any, Literal, TypeVar, Union, get_args, get_origin

import annotated_types
from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from aipipe.contract import Input
from aipipe.errors import UserError

FlagsT = TypeVar("FlagsT", bound=BaseModel)
BOOL_VALUES = ("true", "false")


def flag_name(field: str) -> str:
    """``min_accuracy`` -> ``min-accuracy``."""
    return field.replace("_", "-")


def _render(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _kinds(annotation: Any) -> tuple[str, tuple[str, ...]]:
    """(type name, allowed strings) of a field's annotation."""
    if annotation is bool:
        return "bool", BOOL_VALUES
    if annotation in (int, float, str):
        return annotation.__name__, ()
    if get_origin(annotation) is Literal:
        return "str", tuple(str(a) for a in get_args(annotation))
    if get_origin(annotation) in (Union, types.UnionType):
        members = [a for a in get_args(annotation) if a is not type(None)]
        if len(members) == 1:  # Optional[X]: None means "not given" (e.g. a default from the config)
            return _kinds(members[0])
        return "str", ()  # e.g. int | Literal["auto"]: a string flag the model parses
    raise TypeError(f"unsupported flag type {annotation!r} (str, int, float, bool, Literal[...])")


def _bounds(info: FieldInfo) -> tuple[float | None, float | None]:
    low = high = None
    for item in info.metadata:
        if isinstance(item, (annotated_types.Ge, annotated_types.Gt)):
            low = float(item.ge if isinstance(item, annotated_types.Ge) else item.gt)  # type: ignore[arg-type]
        elif isinstance(item, (annotated_types.Le, annotated_types.Lt)):
            high = float(item.le if isinstance(item, annotated_types.Le) else item.lt)  # type: ignore[arg-type]
    return low, high


def flag_inputs(model: type[BaseModel]) -> tuple[Input, ...]:
    """The contract inputs of a flags model, in field order."""
    inputs = []
    for name, info in model.model_fields.items():
        if not info.description:
            raise TypeError(f"{model.__name__}.{name}: every flag needs a description")
        kind, enum = _kinds(info.annotation)
        low, high = _bounds(info)
        default = None if info.is_required() else _render(info.default)
        inputs.append(Input(flag_name(name), info.description, default, enum, kind, low, high))
    return tuple(inputs)


def _help(item: Input) -> str:
    text = item.description + (f" (default: {item.default!r})" if item.default is not None else "")
    return text.replace("%", "%%")  # argparse formats help with %: a literal "(%)" must be escaped


def _add_option(parser: argparse.ArgumentParser, name: str, info: FieldInfo) -> None:
    """A step option beyond the contract: optional; a False bool is a switch, a list repeats."""
    if info.is_required():
        raise TypeError(f"--{flag_name(name)}: an option beyond the contract needs a default")
    flag, help_text = f"--{flag_name(name)}", (info.description or "").replace("%", "%%")
    if info.annotation is bool and info.default is False:
        parser.add_argument(flag, dest=name, action="store_true", help=help_text)
    elif get_origin(info.annotation) is list:
        parser.add_argument(flag, dest=name, action="append", default=[], help=help_text)
    else:
        _, enum = _kinds(info.annotation)
        shown = "" if info.default is None else f" (default: {_render(info.default)!r})"
        parser.add_argument(flag, dest=name, default=info.default, choices=enum or None, help=help_text + shown)


def flag_parser(prog: str, description: str, inputs: tuple[Input, ...],
                model: type[BaseModel] | None = None) -> argparse.ArgumentParser:
    """An argparse parser: one string ``--<flag>`` per contract input (choices for enums), plus the
    fields of ``model`` that are no contract input, as optional step options."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    for item in inputs:
        parser.add_argument(f"--{item.name}", dest=item.name.replace("-", "_"), required=item.default is None,
                            default=item.default, choices=item.enum or None, help=_help(item))
    contract = {item.name for item in inputs}
    for name, info in (model.model_fields.items() if model is not None else ()):
        if flag_name(name) not in contract:
            _add_option(parser, name, info)
    return parser


def validate_flags(model: type[FlagsT], raw: dict[str, Any]) -> FlagsT:
    """``raw`` (field name -> value) as the typed model; the first error is a UserError naming the flag."""
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = error["loc"][0] if error["loc"] else ""
        raise UserError(f"{error['msg']}, got {error.get('input')!r}",
                        field=f"--{flag_name(str(where))}" if where else None) from None


def parse_flags(model: type[FlagsT], namespace: argparse.Namespace) -> FlagsT:
    """The model's fields taken from a parsed namespace."""
    return validate_flags(model, {name: getattr(namespace, name) for name in model.model_fields})
