"""brson.cli.coercion converts option values as typer's own conversion does: for every
parameter of every command, each value (good, bad, odd) gives the same result or the same
error through both, and the plain ones never reach typer's (pydantic's) conversion."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Any

import pytest
import typer
from typer import _coercion

from brson.cli import coercion, root

PROJECT_ROOT = Path(__file__).resolve().parents[2]
STANDIN = PROJECT_ROOT / "fixtures" / "real" / "orange3134_loading_standin.brson"

TEXTS = ["x", "", " a ", "é", "\udcff", "a\x00b", "-", "1"]
PATHS = [str(STANDIN), str(STANDIN.parent), "no/such.brson", "a//b/", "", "-", "a\x00b", "\udcff"]
PATHS += [f"{STANDIN}/", STANDIN, Path("x")]
INTEGERS = ["12", "0", "-5", " 12", "+1", "1_000", "007", "-0", "abc", "1e3", "", "1.0"]
INTEGERS += ["99999999999999999999", "65535", "65536", "-1", 8080, 70000]


def parameters() -> list[Any]:
    """Every parameter of the main command and of each command (typer's own parameters)."""
    main = root._command()
    commands = [main, *(main.commands[name] for name in root.COMMANDS)]
    return [(command.name, param) for command in commands for param in command.params]


def samples(annotation: Any) -> list[Any]:
    if getattr(annotation, "__origin__", None) is list:
        (item,) = annotation.__args__
        items = samples(item)
        return [(), tuple(items[:2]), tuple(items[2:]), *((i,) for i in items), items[0]]
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        values = [str(m.value) for m in annotation]
        return [*annotation, *values, *(v.upper() for v in values), "nope", "", 3]
    return {str: TEXTS, Path: PATHS, int: INTEGERS, bool: [True, False, "yes", ""]}[annotation]


def outcome(runtime: Any, value: Any, param: Any, ctx: Any) -> tuple[Any, ...]:
    try:
        result = runtime.coerce(value, param=param, ctx=ctx)
    except Exception as exc:  # the error itself is compared
        return ("error", type(exc), str(exc))
    return ("value", type(result), result)


def test_every_parameter_converts_as_typer_does() -> None:
    compared = 0
    for name, param in parameters():
        descriptor = param.type_descriptor
        ctx = typer.Context(root._command().commands.get(name, root._command()))
        ours = coercion.Conversion.of(descriptor)
        typers = _coercion.build_runtime_param(descriptor)
        for value in samples(descriptor.annotation):
            expected = outcome(typers, value, param, ctx)
            assert outcome(ours, value, param, ctx) == expected, (name, param.name, value)
            compared += 1
    assert compared > 1000


def test_plain_values_need_no_pydantic(tmp_path: Path) -> None:
    """The values a command is usually given are converted here (typer's conversion, which
    imports pydantic, is not built); an unreadable file (not for root) or a bad value is
    typer's."""
    by_type = {}
    for _, param in parameters():
        by_type.setdefault(repr(param.type_descriptor.annotation), param)
    plain = {
        "<class 'pathlib.Path'>": [str(STANDIN), "missing.brson", str(tmp_path)],
        "<class 'str'>": ["text"],
        "<class 'int'>": ["123", "-4"],
        "<enum 'ColorMode'>": ["never", "always"],
        "list[pathlib.Path]": [(str(STANDIN), "missing")],
    }
    for annotation, values in plain.items():
        param = by_type[annotation]
        ours = coercion.Conversion.of(param.type_descriptor)
        for value in values:
            ours.coerce(value, param=param, ctx=typer.Context(root._command()))
        assert "typers" not in vars(ours), (annotation, values)
    bad = coercion.Conversion.of(by_type["<class 'int'>"].type_descriptor)
    with pytest.raises(typer.BadParameter):
        bad.coerce("x", param=by_type["<class 'int'>"], ctx=typer.Context(root._command()))
    assert "typers" in vars(bad)


def test_installed_for_the_command_line() -> None:
    import typer.core

    assert typer.core.build_runtime_param == coercion.Conversion.of
