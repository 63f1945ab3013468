"""Component type names, parsed into structure and printed back to the identical string.

Resonite writes ``[Assembly]Namespace.Type<generic args>`` with each argument in the same form
(``[FrooxEngine]FrooxEngine.ValueField<[FrooxEngine]FrooxEngine.Slot>``), ``+`` for nested types
(``…FieldDriveBase<Uri>+Proxy``) and ``?`` for nullable value types (``float3?``).  NeosVR
files use names without an assembly (``FrooxEngine.StaticTexture2D``) and sometimes .NET's
assembly-qualified form (``Ns.Type`1[[Arg, Assembly, Version=…]]``).  Anything the grammar does
not cover is kept verbatim (``opaque``), so a name is never rejected or altered.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache


def is_type_name(value: object) -> bool:
    """Whether a BSON value can be a type name: a BSON string (0x02) and nothing else. The
    one statement of that rule: pymongo decodes JavaScript code (0x0D) as a ``str``
    subclass, which ``isinstance(value, str)`` would take for a name."""
    return type(value) is str


# Frozen dataclasses, not pydantic models: nothing validates or serializes a parsed name, and
# importing pydantic to build two classes cost every command that reads a tree ~70 ms of CPU.
@dataclass(frozen=True, kw_only=True)
class TypePart:
    """One ``+``-separated segment: a (possibly dotted) name and its generic arguments."""

    name: str
    args: tuple[TypeName, ...] = ()
    #: ``"angle"`` for ``<a, b>``, ``"dotnet"`` for ``` `2[[a],[b]] ```; how args print.
    arg_style: str = "angle"
    #: For the .NET form: the text of each argument after its type (", Assembly, Version=…").
    arg_qualifiers: tuple[str, ...] = ()
    #: For the angle form: the text between consecutive arguments. The engine writes a bare
    #: ``","`` (``ValueWrite<[FrooxEngine]…FrooxEngineContext,bool>`` in mar_coresys), other
    #: writers ``", "``; each is kept so the name prints back identically (empty: all ``", "``).
    arg_separators: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class TypeName:
    """A parsed component type name; ``str()`` gives back the exact original text."""

    assembly: str | None = None
    parts: tuple[TypePart, ...] = ()
    #: Trailing markers such as ``?`` (nullable) or ``[]`` (array).
    suffix: str = ""
    #: Set when the grammar does not cover the text; then only this is printed.
    opaque: str | None = None

    @property
    def namespace(self) -> str:
        if not self.parts:
            return ""
        head = self.parts[0].name
        return head.rpartition(".")[0]

    @property
    def name(self) -> str:
        """Short name: the last nested part without namespace (``Proxy``, ``MeshRenderer``)."""
        if self.opaque is not None:  # the text before any arguments: never their tail
            head = re.split(r"[<\[,]", self.opaque, maxsplit=1)[0]
            return head.rpartition("+")[2].rpartition(".")[2]
        return self.parts[-1].name.rpartition(".")[2] if self.parts else ""

    @property
    def simple_name(self) -> str:
        """:attr:`name` without .NET's generic arity (``DynamicField`` for the CLR form's
        ``DynamicField`1``): the same for both spellings of one type."""
        return self.name.partition("`")[0]

    @property
    def short(self) -> str:
        """The name with its generic arguments, every one short too (``ValueField<Slot>`` for
        ``[FrooxEngine]FrooxEngine.ValueField<[FrooxEngine]FrooxEngine.Slot>``): what people read
        in listings, where :attr:`name` drops the arguments that tell ``ValueField<bool>`` from
        ``ValueField<float3>``."""
        if self.opaque is not None:
            return self.opaque
        parts = []
        for part in self.parts:
            text = part.name.rpartition(".")[2]
            if part.args:
                text += "<" + ", ".join(arg.short for arg in part.args) + ">"
            parts.append(text)
        return "+".join(parts) + self.suffix

    @property
    def full_name(self) -> str:
        """Namespace-qualified name without assembly and generic arguments."""
        if self.opaque is not None:
            return self.opaque
        return "+".join(part.name for part in self.parts)

    @property
    def generic_args(self) -> tuple[TypeName, ...]:
        return tuple(arg for part in self.parts for arg in part.args)

    @property
    def nullable(self) -> bool:
        return self.suffix.endswith("?")

    def spellings(self) -> frozenset[str]:
        """Every way a user may name this type (the one rule for ``find_component``, the edit
        selectors and the CLI): as written, without the assembly, without the namespace too
        (``ValueField<bool>``, ``DynamicReferenceVariableDriver<[FrooxEngine]FrooxEngine.Slot>``),
        the :attr:`short` form that ``tree``, ``show`` and ``flux`` print
        (``DynamicReferenceVariableDriver<Slot>``), and the bare ``full_name`` / ``name``."""
        text = str(self)
        forms = {text, self.full_name, self.name, self.short}
        if self.assembly is not None and text.startswith(f"[{self.assembly}]"):
            text = text[len(self.assembly) + 2 :]
            forms.add(text)
        if self.namespace and text.startswith(self.namespace + "."):
            forms.add(text[len(self.namespace) + 1 :])
        return frozenset(forms)

    def matches(self, spelling: str) -> bool:
        """Whether ``spelling`` names this type (see :meth:`spellings`)."""
        return spelling in self.spellings()

    def __str__(self) -> str:
        if self.opaque is not None:
            return self.opaque
        out = [f"[{self.assembly}]" if self.assembly is not None else ""]
        for i, part in enumerate(self.parts):
            if i:
                out.append("+")
            out.append(part.name)
            if part.arg_style == "dotnet":
                inner = ",".join(
                    f"[{arg}{qual}]"
                    for arg, qual in zip(part.args, part.arg_qualifiers, strict=True)
                )
                out.append(f"[{inner}]")
            elif part.args:
                out.append("<")
                out.append(str(part.args[0]))
                seps = part.arg_separators or (", ",) * (len(part.args) - 1)
                for sep, arg in zip(seps, part.args[1:], strict=True):
                    out.append(sep)
                    out.append(str(arg))
                out.append(">")
        out.append(self.suffix)
        return "".join(out)

    @classmethod
    def parse(cls, text: str) -> TypeName:
        if type(text) is not str:  # a str subclass (BSON JavaScript code): never a type name
            return TypeName(opaque=str(text))
        return _parse_cached(text)


#: Generic nesting deeper than this is kept opaque: real names nest a few levels, and a
#: hostile ``A<A<A<…>>>`` must not exhaust the interpreter's stack.
MAX_NESTING = 64


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.depth = 0

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect(self, char: str) -> None:
        if self.peek() != char:
            raise ValueError(f"expected {char!r} at {self.pos}")
        self.pos += 1

    def ident(self, stops: str) -> str:
        """The text from here to the first of ``stops`` (or the end), consumed."""
        found = _run_without(stops).match(self.text, self.pos)
        assert found is not None  # a starred class matches at any position, if only ""
        self.pos = found.end()
        return found.group()

    def type_name(self, stops: str) -> TypeName:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise ValueError(f"generic arguments nested deeper than {MAX_NESTING}")
        try:
            return self._type_name(stops)
        finally:
            self.depth -= 1

    def _type_name(self, stops: str) -> TypeName:
        assembly = None
        if self.peek() == "[":
            self.pos += 1
            assembly = self.ident("]")
            self.expect("]")
        parts = [self.part(stops, False)]
        while self.peek() == "+":
            self.pos += 1
            # .NET puts a nested generic type's arguments after its last segment, the arity on
            # the segment declaring them: ``Outer`1+Proxy[[float3, Elements.Core, …]]``.
            parts.append(self.part(stops, any("`" in part.name for part in parts)))
        suffix_start = self.pos
        while self.text.startswith("[]", self.pos) or self.peek() in ("?", "*", "&"):
            self.pos += 2 if self.text.startswith("[]", self.pos) else 1
        for part in parts:
            if not _well_formed(part.name):
                raise ValueError(f"ill-formed name {part.name!r}")
        return TypeName(
            assembly=assembly, parts=tuple(parts), suffix=self.text[suffix_start : self.pos]
        )

    def part(self, stops: str, outer_generic: bool) -> TypePart:
        """One ``+`` segment; ``outer_generic``: an enclosing segment declared arguments."""
        name = self.ident("<[+?*&" + stops)
        if self.peek() == "<":
            self.pos += 1
            args = [self.type_name(",>")]
            separators = []
            while self.peek() == ",":
                start = self.pos
                self.pos += 1
                while self.peek() == " ":
                    self.pos += 1
                separators.append(self.text[start : self.pos])
                args.append(self.type_name(",>"))
            self.expect(">")
            if all(sep == ", " for sep in separators):
                separators = []  # the default spelling; keeps equal names equal as structures
            return TypePart(name=name, args=tuple(args), arg_separators=tuple(separators))
        if ("`" in name or outer_generic) and self.text.startswith("[[", self.pos):
            self.pos += 1
            args, quals = [], []
            while True:
                self.expect("[")
                args.append(self.type_name(",]"))
                quals.append(self.ident("]"))
                self.expect("]")
                if self.peek() != ",":
                    break
                self.pos += 1
            self.expect("]")
            return TypePart(
                name=name, args=tuple(args), arg_style="dotnet", arg_qualifiers=tuple(quals)
            )
        return TypePart(name=name)


@lru_cache(maxsize=64)
def _run_without(stops: str) -> re.Pattern[str]:
    """A run of characters none of which is in ``stops`` (a world's type table is parsed on
    every load: one regex match a name, not a Python step a character)."""
    return re.compile(f"[^{re.escape(stops)}]*" if stops else r"[\s\S]*")


def _well_formed(name: str) -> bool:
    """A segment's dotted name: non-empty, and no empty namespace or name in it (``.Name``,
    ``Ns.``, ``A..B`` name no .NET type)."""
    return all(name.split("."))


@lru_cache(maxsize=4096)
def _parse_cached(text: str) -> TypeName:
    try:
        parser = _Parser(text)
        parsed = parser.type_name("")
        if parser.pos == len(text) and str(parsed) == text:
            return parsed
    except (ValueError, IndexError):
        pass
    return TypeName(opaque=text)
