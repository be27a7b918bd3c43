"""The canonical bytes of docs/spec.md section 2, as the C++ SDK makes them.

Python integers have no width, so the width is said with a wrapper:
u8/u16/u32/u64/i8/i16/i32/i64 and f32/f64. A plain int is an int64 (C++
std::int64_t), a plain float a float64 (double), bool one byte, str a uint32
length and its UTF-8 bytes, bytes/bytearray/memoryview a uint32 length and the
bytes. Several values: the concatenation, in order.
"""
import struct

__all__ = ["Typed", "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f32", "f64", "canonical_bytes"]

_U32 = struct.Struct("<I")
_I64 = struct.Struct("<q")
_F64 = struct.Struct("<d")


class Typed:
    """A value with the width it is hashed at (made by u32(42), f32(1.5), ...)."""

    __slots__ = ("data", "name", "value")

    def __init__(self, fmt, name, value):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"hashtrace.{name}() takes a number, not {type(value).__name__}")
        if fmt in "fd":
            value = float(value)
        elif not isinstance(value, int):
            raise TypeError(f"hashtrace.{name}() takes an int, not {type(value).__name__}")
        try:
            self.data = struct.pack("<" + fmt, value)
        except struct.error:
            raise OverflowError(f"hashtrace.{name}({value}): out of range") from None
        self.name = name
        self.value = value

    def __repr__(self):
        return f"hashtrace.{self.name}({self.value!r})"


def _typed(fmt, name):
    def make(value):
        return Typed(fmt, name, value)
    make.__name__ = name
    make.__doc__ = f"{name}(value): hashed as the C++ type of that width"
    return make


u8, u16, u32, u64 = _typed("B", "u8"), _typed("H", "u16"), _typed("I", "u32"), _typed("Q", "u64")
i8, i16, i32, i64 = _typed("b", "i8"), _typed("h", "i16"), _typed("i", "i32"), _typed("q", "i64")
f32, f64 = _typed("f", "f32"), _typed("d", "f64")


def _encode_one(v):
    t = type(v)
    if t is int:
        try:
            return _I64.pack(v)
        except struct.error:
            raise OverflowError(f"hashtrace: {v} does not fit an int64; say its width, e.g. hashtrace.u64({v})") from None
    if t is str:
        b = v.encode("utf-8")  # a lone surrogate raises UnicodeEncodeError: it has no UTF-8 form
        return _U32.pack(len(b)) + b
    if t is Typed:
        return v.data
    if t is float:
        return _F64.pack(v)
    if t is bool:
        return b"\x01" if v else b"\x00"
    if t is bytes or t is bytearray or t is memoryview:
        b = bytes(v)
        return _U32.pack(len(b)) + b
    raise TypeError(f"hashtrace cannot hash a {t.__name__}: pass int, float, bool, str, bytes "
                    "or a sized number (hashtrace.u32(...), hashtrace.f32(...))")


def canonical_bytes(*values):
    """The canonical bytes of values, as every hashtrace language computes them."""
    if len(values) == 1:
        return _encode_one(values[0])
    return b"".join([_encode_one(v) for v in values])
