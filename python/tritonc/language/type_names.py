"""Triton's names of types in signatures and how they parse: the canonical
short names (``fp16``, ``i32``, ``u1`` for booleans) that torch's and numpy's
dtype names map to (``type_canonicalisation_dict``, which host code and
Triton's own tests import from ``triton.runtime.jit``), and ``str_to_ty``,
which reads a signature entry (``*fp16``, ``*kfp32`` for a const pointer,
``i32``) back into a ``tl`` type."""
from . import core

# long name (torch's, numpy's, tl's) -> canonical name; every canonical name
# maps to itself too.
type_canonicalisation_dict = {
    "bool": "u1", "int1": "u1", "uint1": "u1", "i1": "u1",
    "float8e4nv": "fp8e4nv", "float8_e4m3fn": "fp8e4nv", "float8e5": "fp8e5", "float8_e5m2": "fp8e5",
    "float8e4b15": "fp8e4b15", "float8e4b8": "fp8e4b8", "float8_e4m3fnuz": "fp8e4b8",
    "float8e5b16": "fp8e5b16", "float8_e5m2fnuz": "fp8e5b16",
    "half": "fp16", "float16": "fp16", "bfloat16": "bf16", "float": "fp32", "float32": "fp32",
    "double": "fp64", "float64": "fp64",
    "int8": "i8", "int16": "i16", "int": "i32", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "void": "void",
}
for _canonical in list(type_canonicalisation_dict.values()):
    type_canonicalisation_dict[_canonical] = _canonical

# canonical name -> the tl type (void has none: it names no value here)
_TYPES = {
    "u1": core.int1, "i8": core.int8, "i16": core.int16, "i32": core.int32, "i64": core.int64,
    "u8": core.uint8, "u16": core.uint16, "u32": core.uint32, "u64": core.uint64,
    "fp16": core.float16, "bf16": core.bfloat16, "fp32": core.float32, "fp64": core.float64,
    "fp8e4nv": core.float8e4nv, "fp8e5": core.float8e5, "fp8e4b15": core.float8e4b15,
    "fp8e4b8": core.float8e4b8, "fp8e5b16": core.float8e5b16,
}
_ALIASES = {"f16": "fp16", "f32": "fp32", "f64": "fp64"}  # (tritonc's CLI spelling)


def str_to_ty(name, c=None):
    """The tl type a signature entry names: ``*T`` a pointer to T (``*kT`` a
    const one), a tuple of entries a tuple of
    types, else a scalar type by its canonical or long name. ``c`` (Triton
    passes a constexpr value there) is accepted and not used."""
    if isinstance(name, tuple):
        return tuple(str_to_ty(n, c) for n in name)
    text = str(name).strip()
    if text.startswith("*"):
        inner = text[1:]
        const = inner.startswith("k") and not inner.startswith("k_")
        if const:
            inner = inner[1:]
        return core.pointer_type(str_to_ty(inner, c), const=const)
    canonical = _ALIASES.get(text, type_canonicalisation_dict.get(text, text))
    if canonical in _TYPES:
        return _TYPES[canonical]
    raise ValueError("'%s' names no type (expected one of %s, '*' first for a pointer)"
                     % (name, ", ".join(sorted(_TYPES))))
