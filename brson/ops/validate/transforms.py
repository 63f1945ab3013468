"""BR5xx: slot transforms: position, rotation quaternion, scale.

Values are stored as doubles written from the engine's float32 fields, so a unit quaternion
reads back with a norm off by ~1e-7 (measured on the real samples: at most 8.3e-8); the
tolerance sits far above that and far below any rotation that was meant.
"""

from __future__ import annotations

import math
import operator
from typing import Any

from brson.model.transform import TRANSFORM_FIELDS
from brson.ops.validate.context import Context, Family, SlotInfo, is_int, kind_of
from brson.ops.validate.findings import ERROR, INFO, WARNING, rule

#: How far a rotation's norm may be from 1 before it is reported.
QUATERNION_TOLERANCE = 1e-3

NON_FINITE = rule(
    "BR501",
    ERROR,
    "non-finite transform",
    "NaN or infinity in `Position`, `Rotation` or `Scale` spreads to every descendant's "
    "global transform and to physics; the slot and its children vanish or explode.",
    "IEEE 754; the engine does not sanitise loaded transforms",
)
ZERO_SCALE = rule(
    "BR502",
    INFO,
    "zero scale",
    "A scale of 0 on an axis makes the global transform singular. Creators use it on "
    "purpose to hide a slot while keeping it active, so it is only reported.",
    "`orange3134_loading_standin.brson` slot `Visual` has scale [0, 0, 0]",
)
NON_UNIT = rule(
    "BR503",
    WARNING,
    "rotation not a unit quaternion",
    f"A rotation whose norm is off from 1 by more than {QUATERNION_TOLERANCE:g} also "
    "scales and skews what it rotates; tools that normalise and tools that do not disagree.",
    "real samples: norm off by at most 8.3e-8 (float32 rounding)",
)
ZERO_ROTATION = rule(
    "BR504",
    WARNING,
    "zero quaternion",
    "A rotation of [0, 0, 0, 0] has no orientation; normalising it divides by zero. Readers "
    "(brson's matrices, the Godot and glTF exports) take it as no rotation. A warning, not an "
    "error: a real generator writes it (43 ProtoFlux node slots of mar_AimConstraint.pg.brson).",
    "quaternion algebra; mar_AimConstraint.pg.brson",
)
TRANSFORM_SHAPE = rule(
    "BR505",
    ERROR,
    "transform malformed",
    "`Position` and `Scale` are arrays of 3 numbers, `Rotation` an array of 4 (x, y, z, w).",
    "format notes §2 (float3, floatQ)",
)
TRANSFORM_NOT_DOUBLE = rule(
    "BR506",
    ERROR,
    "transform element not a double",
    "Every real writer stores `Position`, `Rotation` and `Scale` elements as BSON doubles "
    "(float3, floatQ); an integer means a tool lost the type on the way (jq 1.6 turns `0.0` "
    "into `0` between to-json and from-json; from-json now restores these).",
    "format notes §2; every slot of every real sample",
)


#: The element types of a transform as the engine writes it.
_FLOAT = {float}


def _numbers(value: object, size: int) -> list[float] | None:
    if not isinstance(value, list) or len(value) != size:
        return None
    if not all(isinstance(v, float) or is_int(v) for v in value):
        return None
    return [float(v) for v in value]


class TransformRules(Family):
    def slot(self, ctx: Context, info: SlotInfo) -> None:
        fields = info.fields
        values: dict[str, list[float]] = {}
        for key, size in TRANSFORM_FIELDS:
            member = fields.get(key)
            if not (isinstance(member, dict) and "ID" in member):  # member_data, inlined
                continue  # absent, or the document rules report it
            data: Any = member.get("Data")
            if (
                type(data) is list
                and len(data) == size
                and set(map(type, data)) == _FLOAT
                and math.isfinite(sum(data))  # a sum is finite only if every term is
            ):
                values[key] = data  # the usual case: finite doubles, nothing to report
                continue
            numbers = _numbers(data, size)
            if numbers is None:
                what = kind_of(data) if not isinstance(data, list) else f"{data!r}"[:80]
                ctx.add(
                    TRANSFORM_SHAPE,
                    f"{key} is {what}, not an array of {size} numbers",
                    path=info.path,
                )
            elif not all(isinstance(v, float) for v in data):
                ctx.add(
                    TRANSFORM_NOT_DOUBLE,
                    f"{key} is {data!r} (integers where the engine writes doubles)",
                    path=info.path,
                )
                values[key] = numbers
            elif not all(math.isfinite(v) for v in numbers):
                ctx.add(NON_FINITE, f"{key} is {numbers}", path=info.path)
            else:
                values[key] = numbers
        scale = values.get("Scale")
        if scale is not None and 0.0 in scale:
            ctx.add(
                ZERO_SCALE, f"Scale is {scale} (hidden; global transform singular)", path=info.path
            )
        rotation = values.get("Rotation")
        if rotation is not None:
            norm = math.sqrt(math.fsum(map(operator.mul, rotation, rotation)))
            if norm == 0.0:
                ctx.add(ZERO_ROTATION, "Rotation is the zero quaternion", path=info.path)
            elif abs(norm - 1.0) > QUATERNION_TOLERANCE:
                ctx.add(NON_UNIT, f"Rotation {rotation} has norm {norm:.6g}, not 1", path=info.path)
