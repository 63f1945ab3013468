"""Print the power-of-five tables of brson/_speedups/_shortfloat.h (Ryu's, cut short).

``POW5_INV_SPLIT[q]`` is floor(2^(bitlength(5^q) - 1 + 125) / 5^q) + 1 and ``POW5_SPLIT[i]``
is 5^i scaled to 125 bits (floored), each as two 64-bit words, low word first.  The header
holds this script's output; tests/godot/test_tscnnode.py checks that it still does.
"""

from __future__ import annotations

#: Bits of each table entry, and how many entries the header keeps (normal doubles between
#: about 1e-48 and 1e48 need no more; the rest go to dtoa).
BITS = 125
INVERSE_ENTRIES = 32
POWER_ENTRIES = 64
MASK = (1 << 64) - 1


def inverse(q: int) -> int:
    power = 5**q
    return (1 << (power.bit_length() - 1 + BITS)) // power + 1


def power(i: int) -> int:
    value = 5**i
    length = value.bit_length()
    return value << (BITS - length) if length < BITS else value >> (length - BITS)


def tables() -> str:
    lines = [f"static const uint64_t POW5_INV_SPLIT[{INVERSE_ENTRIES}][2] = {{"]
    lines += [f"    {{{v & MASK}u, {v >> 64}u}}," for v in map(inverse, range(INVERSE_ENTRIES))]
    lines += ["};", f"static const uint64_t POW5_SPLIT[{POWER_ENTRIES}][2] = {{"]
    lines += [f"    {{{v & MASK}u, {v >> 64}u}}," for v in map(power, range(POWER_ENTRIES))]
    lines.append("};")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(tables(), end="")
