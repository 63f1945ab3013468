"""Type names: every name in the samples parses into structure and prints back identically;
generated names (both the Resonite and the .NET assembly-qualified forms) round-trip as
structures; any other text is kept verbatim."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brson
from brson.model import TypeName, TypePart
from tests.tiers import examples

from .support import archive_files, ids_of, raw_components, raw_document, sample

ARCHIVES = archive_files()


def _names_in(path: Path) -> set[str]:
    """Types, TypeVersions keys and inline (legacy) component types, from the raw document."""
    doc = raw_document(path)
    names = set(doc.get("Types", [])) | set(doc.get("TypeVersions", {}))
    names |= {c["Type"] for c in raw_components(doc) if isinstance(c["Type"], str)}
    return names


@pytest.mark.parametrize("path", ARCHIVES, ids=ids_of(ARCHIVES))
def test_every_sample_name_parses_and_prints_back(path: Path) -> None:
    names = _names_in(path)
    assert len(names) > 15
    for name in names:
        parsed = TypeName.parse(name)
        assert str(parsed) == name
        assert parsed.opaque is None, name  # the grammar covers every real name
        assert parsed.name and name.count(parsed.name) >= 1
        for arg in parsed.generic_args:
            assert str(arg) in name


def test_sample_name_structure() -> None:
    tree = brson.load(sample("orange3134_loading_standin.brson"))
    by_text = {str(t): t for t in tree.types}
    proxy = by_text["[FrooxEngine]FrooxEngine.ProtoFlux.CoreNodes.FieldDriveBase<float3?>+Proxy"]
    assert proxy.assembly == "FrooxEngine"
    assert proxy.namespace == "FrooxEngine.ProtoFlux.CoreNodes"
    assert proxy.name == "Proxy"
    assert proxy.full_name == "FrooxEngine.ProtoFlux.CoreNodes.FieldDriveBase+Proxy"
    assert [p.name for p in proxy.parts] == [
        "FrooxEngine.ProtoFlux.CoreNodes.FieldDriveBase",
        "Proxy",
    ]
    (arg,) = proxy.generic_args
    assert arg.name == "float3" and arg.nullable and arg.assembly is None


def test_legacy_dotnet_form() -> None:
    names = _names_in(sample("redx_5ce7cdf5.7zbson"))
    dotnet = next(n for n in names if "`1[[" in n)
    parsed = TypeName.parse(dotnet)
    assert parsed.assembly is None
    assert parsed.name == "ValueMultiDriver`1"
    (part,) = parsed.parts
    assert part.arg_style == "dotnet"
    assert [str(a) for a in part.args] == ["BaseX.color"]
    assert part.arg_qualifiers[0].startswith(", BaseX, Version=")
    legacy = next(n for n in names if "<" not in n and "`" not in n and "+" not in n)
    plain = TypeName.parse(legacy)
    assert plain.assembly is None and plain.full_name == legacy and not plain.generic_args


def test_nested_generics() -> None:
    text = (
        "[FrooxEngine]FrooxEngine.ValueField<[FrooxEngine]FrooxEngine.Slot>+Inner<int, "
        "[Elements.Core]Elements.Core.float3?[]>[]"
    )
    parsed = TypeName.parse(text)
    assert str(parsed) == text and parsed.opaque is None
    assert parsed.suffix == "[]"
    outer, inner = parsed.parts
    assert [str(a) for a in outer.args] == ["[FrooxEngine]FrooxEngine.Slot"]
    assert outer.args[0].assembly == "FrooxEngine"
    assert [str(a) for a in inner.args] == ["int", "[Elements.Core]Elements.Core.float3?[]"]
    assert inner.args[1].suffix == "?[]" and inner.args[1].nullable is False


@pytest.mark.parametrize("text", ["", "A<", "[Asm", "A<B>>", "<>", "x y<z>", "A+", "A`1[[B]", "]["])
def test_text_outside_the_grammar_is_kept(text: str) -> None:
    parsed = TypeName.parse(text)
    assert str(parsed) == text
    if text in ("", "A<", "[Asm", "<>", "A+"):
        assert parsed.opaque == text


# -- generated names ----------------------------------------------------------------------
IDENT = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True)
DOTTED = st.lists(IDENT, min_size=1, max_size=3).map(".".join)
ASSEMBLY = st.none() | DOTTED
SUFFIX = st.lists(st.sampled_from(["?", "[]", "*", "&"]), max_size=2).map("".join)


def _part(args: st.SearchStrategy[TypeName]) -> st.SearchStrategy[TypePart]:
    angle = st.builds(TypePart, name=DOTTED, args=st.lists(args, max_size=3).map(tuple))
    dotnet = st.lists(
        st.tuples(
            st.builds(
                TypeName,
                parts=st.lists(st.builds(TypePart, name=DOTTED), min_size=1, max_size=2).map(tuple),
                suffix=SUFFIX,
            ),
            st.sampled_from(["", ", mscorlib", ", BaseX, Version=1.0.0.0, Culture=neutral"]),
        ),
        min_size=1,
        max_size=3,
    ).flatmap(
        lambda pairs: st.builds(
            TypePart,
            name=st.tuples(DOTTED, st.integers(1, 9)).map(lambda t: f"{t[0]}`{t[1]}"),
            args=st.just(tuple(a for a, _ in pairs)),
            arg_style=st.just("dotnet"),
            arg_qualifiers=st.just(tuple(q for _, q in pairs)),
        )
    )
    return angle | dotnet


TYPE_NAMES = st.recursive(
    st.builds(
        TypeName,
        assembly=ASSEMBLY,
        parts=st.tuples(st.builds(TypePart, name=DOTTED)),
        suffix=SUFFIX,
    ),
    lambda inner: st.builds(
        TypeName,
        assembly=ASSEMBLY,
        parts=st.lists(_part(inner), min_size=1, max_size=3).map(tuple),
        suffix=SUFFIX,
    ),
    max_leaves=8,
)


@pytest.mark.slow
@settings(max_examples=examples(60))  # nested pydantic models are slow to generate
@given(TYPE_NAMES)
def test_generated_names_round_trip_as_structures(name: TypeName) -> None:
    text = str(name)
    parsed = TypeName.parse(text)
    assert parsed == name, text
    assert str(parsed) == text


@given(st.text(alphabet=st.sampled_from("AB.[]<>,+?` 1"), max_size=20) | st.text(max_size=12))
def test_any_text_prints_back(text: str) -> None:
    assert str(TypeName.parse(text)) == text


@pytest.mark.parametrize("sep", [",", ", ", ",  "])
def test_generic_arguments_with_any_separator(sep: str) -> None:
    """The engine writes a bare comma (mar_coresys: ``ValueWrite<…FrooxEngineContext,bool>``)."""
    text = (
        "[FrooxEngine]FrooxEngine.ProtoFlux.Runtimes.Execution.Nodes.ValueWrite<"
        f"[FrooxEngine]FrooxEngine.ProtoFlux.FrooxEngineContext{sep}bool>"
    )
    parsed = TypeName.parse(text)
    assert parsed.opaque is None
    assert parsed.name == "ValueWrite"
    assert [str(a) for a in parsed.generic_args] == [
        "[FrooxEngine]FrooxEngine.ProtoFlux.FrooxEngineContext",
        "bool",
    ]
    assert str(parsed) == text


def test_deep_nesting_is_opaque_not_a_recursion_error() -> None:
    text = "A<" * 300 + "B" + ">" * 300
    parsed = TypeName.parse(text)
    assert parsed.opaque == text and str(parsed) == text


CLR_NESTED = (
    "FrooxEngine.ProtoFlux.CoreNodes.FieldDriveBase`1+Proxy[[Elements.Core.float3, "
    "Elements.Core, Version=1.0.0.0, Culture=neutral, PublicKeyToken=null]]"
)


def test_clr_nested_generic_name() -> None:
    """.NET writes a nested generic type's arguments after its last ``+`` segment (the arity
    stays on the segment that declares them); the short name is the nested type's."""
    parsed = TypeName.parse(CLR_NESTED)
    assert parsed.opaque is None
    assert str(parsed) == CLR_NESTED
    assert parsed.name == "Proxy"
    assert parsed.full_name == "FrooxEngine.ProtoFlux.CoreNodes.FieldDriveBase`1+Proxy"
    (arg,) = parsed.generic_args
    assert arg.full_name == "Elements.Core.float3"
    assert parsed.parts[-1].arg_qualifiers == (
        ", Elements.Core, Version=1.0.0.0, Culture=neutral, PublicKeyToken=null",
    )


@pytest.mark.parametrize("text", [".Name", "Ns.", "A..B", "[Asm].Name", "A<.B>", "A`1[[.B, C]]"])
def test_empty_namespace_or_name_is_not_well_formed(text: str) -> None:
    parsed = TypeName.parse(text)
    assert parsed.opaque == text
    assert str(parsed) == text


def test_unparsed_name_short_name_is_not_argument_text() -> None:
    """A name the grammar keeps opaque still gets a short name from before its arguments,
    never the tail of an assembly qualifier (``0, Culture=neutral, ...``)."""
    garbled = "Ns.Outer`1+Inner[[Elements.Core.float3, Elements.Core, Version=1.0.0.0, Culture=x]"
    assert TypeName.parse(garbled).opaque is not None
    assert TypeName.parse(garbled).name == "Inner"


def test_simple_name_is_the_same_for_both_spellings() -> None:
    """``vars`` looks dynamic variables up by it: the CLR form's arity must not hide one."""
    angle = TypeName.parse("[FrooxEngine]FrooxEngine.DynamicValueVariable<float3>")
    clr = TypeName.parse(
        "FrooxEngine.DynamicValueVariable`1[[Elements.Core.float3, Elements.Core, "
        "Version=1.0.0.0, Culture=neutral, PublicKeyToken=null]]"
    )
    assert angle.simple_name == clr.simple_name == "DynamicValueVariable"
    assert TypeName.parse(CLR_NESTED).simple_name == "Proxy"


def test_the_short_form_printed_by_tree_and_show_names_the_type() -> None:
    """A user copies ``ObjectEquals<User>`` from ``brson show`` into ``brson set``."""
    name = TypeName.parse(
        "[ProtoFluxBindings]FrooxEngine.ProtoFlux.Runtimes.Execution.Nodes.ObjectEquals"
        "<[FrooxEngine]FrooxEngine.User>"
    )
    assert name.short == "ObjectEquals<User>"
    assert name.matches("ObjectEquals<User>")
    assert not name.matches("ObjectEquals<Slot>")
