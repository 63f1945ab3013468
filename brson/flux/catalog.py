"""What a ProtoFlux component is, and what its members mean, where the bytes cannot say.

The storage rules (docs/protoflux.md has them with their evidence from the real samples):

- A **node** is a component of the ``ProtoFluxBindings`` assembly, one per slot.
- **Helpers** are the other ProtoFlux components on a node's slot: proxies, drives and stores
  (``FieldDriveBase<T>+Proxy``, ``…+Store``, ``ValueProxy<T>``) name their node in ``Node``;
  globals (``GlobalReference<T>``, ``GlobalValue<T>``) are named by a node's input.
- A node member holding an ID is a connection.  Value inputs and impulses are stored alike (the
  ID of the node they read or continue to), so which members are impulses is knowledge of the
  node classes, kept here: :data:`IMPULSES`.  ``ObjectConditional.OnTrue`` is a value input
  and ``If.OnTrue`` an impulse, so no rule on member names alone can tell them apart.
"""

from __future__ import annotations

from brson.model.typename import TypeName

#: Edge kinds, in the order a node's edges are listed.
VALUE, IMPULSE, READ, WRITE, DRIVE = "value", "impulse", "read", "write", "drive"
KINDS = (VALUE, IMPULSE, READ, WRITE, DRIVE)

#: The assembly of every node component in the real samples (173 in mar_coresys).
NODE_ASSEMBLY = "ProtoFluxBindings"

#: Assemblies of the helper components that live on node slots.
HELPER_ASSEMBLIES = frozenset({"FrooxEngine", "ProtoFlux.Nodes.FrooxEngine"})

#: The namespaces helpers are in (``FrooxEngine.ProtoFlux.CoreNodes.FieldDriveBase<T>+Proxy``,
#: ``ProtoFlux.Runtimes.Execution.Nodes.Actions.ValueProxy<T>``); a plain ``FrooxEngine``
#: component (``ValueField<T>``) is a world element, never a helper.
HELPER_NAMESPACES = ("FrooxEngine.ProtoFlux", "ProtoFlux.")

#: Helper classes a node input names to reach the world (a global): their ``Reference``
#: member holds the world element (``GlobalValue<T>`` holds a constant instead).
GLOBALS = frozenset({"GlobalReference", "GlobalValue"})

#: The member of a proxy, drive or store helper that names its node.
NODE_MEMBER = "Node"
#: The member of a drive helper (``FieldDriveBase<T>+Proxy``, ``ReferenceDrive<T>+Proxy``)
#: that names the field the node drives.
DRIVE_MEMBER = "Drive"
#: The member of a global that names the world element.
REFERENCE_MEMBER = "Reference"
#: The member of a store (``DataModelObjectRefStore<T>+Store``) holding the stored reference.
STORE_MEMBER = "Target"

#: The input a write node (``ValueWrite``, ``ObjectWrite``) names what it writes with: when
#: that is a source node bound to a world element, the graph writes that element.
VARIABLE_MEMBER = "Variable"

#: Impulse members every node class with an action has: the continuation after it.
DEFAULT_IMPULSES = frozenset({"Next"})

#: Impulse (continuation and call) members by node class, beyond :data:`DEFAULT_IMPULSES`:
#: every class of the samples that has one, and the common flow nodes of the same families.
IMPULSES: dict[str, frozenset[str]] = {
    "If": frozenset({"OnTrue", "OnFalse"}),
    "While": frozenset({"LoopStart", "LoopIteration", "LoopEnd"}),
    "For": frozenset({"LoopStart", "LoopIteration", "LoopEnd"}),
    "RangeLoopInt": frozenset({"LoopStart", "LoopIteration", "LoopEnd"}),
    "Sequence": frozenset({"Calls"}),
    "CallInput": frozenset({"Target"}),
    "CreateUndoBatch": frozenset({"Create", "OnCreated"}),
    "ValueWrite": frozenset({"OnWritten", "OnFail"}),
    "ObjectWrite": frozenset({"OnWritten", "OnFail"}),
    "FireOnValueChange": frozenset({"OnChanged"}),
    "FireOnObjectValueChange": frozenset({"OnChanged"}),
    "FireOnTrue": frozenset({"Pulse"}),
    "FireOnFalse": frozenset({"Pulse"}),
    "ButtonEvents": frozenset(
        {"Pressed", "Pressing", "Released", "HoverEnter", "HoverStay", "HoverLeave"}
    ),
    "Update": frozenset({"OnUpdate"}),
    "OnStart": frozenset({"OnStart"}),
}

#: Node members that hold a world element themselves (no global in between).
WORLD_MEMBERS: dict[str, frozenset[str]] = {
    "RefObjectInput": frozenset({"Target"}),
}


def class_name(name: TypeName) -> str:
    """The node class without namespace, arity or arguments: ``ValueWrite`` for
    ``…Nodes.ValueWrite<…FrooxEngineContext,bool>``, ``Proxy`` for ``…GetActiveUserSelf+Proxy``."""
    return name.simple_name


def is_node(name: TypeName) -> bool:
    return name.assembly == NODE_ASSEMBLY


def is_helper(name: TypeName) -> bool:
    """A ProtoFlux component that is not a node: proxies, drives, stores and globals."""
    if name.assembly not in HELPER_ASSEMBLIES or not name.parts:
        return False
    return name.parts[0].name.startswith(HELPER_NAMESPACES)


def is_global(name: TypeName) -> bool:
    return len(name.parts) == 1 and class_name(name) in GLOBALS


def helper_references(name: TypeName) -> dict[str, str]:
    """The members of a proxy, drive or store that reach the world, and what they do:
    ``Drive`` drives (``FieldDriveBase<T>+Proxy``, ``ReferenceDrive<T>+Proxy``), a store's
    ``Target`` reads what it holds.  Its other members (``Node``, ``Path``, a store's plain
    ``Value``, ``ValueProxy.Last``) are bookkeeping, and the editor's visual components on a node
    slot, whatever they hold, are no connection."""
    out = {DRIVE_MEMBER: DRIVE}
    if name.parts and name.parts[-1].name == "Store":
        out[STORE_MEMBER] = READ
    return out


def is_impulse(node_class: str, member: str) -> bool:
    return member in DEFAULT_IMPULSES or member in IMPULSES.get(node_class, ())


def holds_world(node_class: str, member: str) -> bool:
    return member in WORLD_MEMBERS.get(node_class, ())


def is_internal(member: str) -> bool:
    """A node's own state (``ValueDisplay._value``, ``ImpulseDisplay._debugText``): the
    engine's private fields, never connections."""
    return member.startswith("_")
