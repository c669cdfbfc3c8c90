"""The values of the Python DSL while a kernel is being compiled: element
types (``tl.float16``), pointer types, ``constexpr``, and ``tensor`` (an IR
value with its element type and shape; a scalar has shape ``()``).

Operators on tensors build IR through the builder of the kernel being
compiled (``current()``), which the code generator installs; the rules they
follow (Triton's type promotion, broadcasting) are in semantic.py.
"""
import operator as _operator
import threading

from .. import _tritonc


# Triton's base class of its errors (``triton.TritonError``): compile errors
# (CompileError below, the C++ core's tritonc.Error), the interpreter's and
# running out of resources derive from it, so that ``except
# triton.TritonError`` catches them.
TritonError = _tritonc.TritonError


class CompileError(TritonError):
    """A mistake in a kernel, raised while it is compiled; the code generator
    adds the file, line and column of the expression that caused it."""


# ---- the builder of the kernel being compiled -------------------------------

_state = threading.local()


def current():
    b = getattr(_state, "builder", None)
    if b is None:
        raise CompileError("tritonc.language functions can only be called inside a @tritonc.jit kernel")
    return b


def current_codegen():
    return getattr(_state, "codegen", None)


def set_current(builder, codegen=None):
    """Installs the builder (and code generator) of the kernel being compiled;
    returns the previous pair, to restore."""
    previous = (getattr(_state, "builder", None), getattr(_state, "codegen", None))
    _state.builder, _state.codegen = builder, codegen
    return previous


def builtin(fn):
    """Marks a function the code generator calls directly with evaluated
    arguments (tensors and Python values), rather than inlining it."""
    fn.__tritonc_builtin__ = True
    return fn


class _count(int):
    """An int that may also be called for itself (tensor.numel)."""

    def __call__(self):
        return int(self)


# ---- element types ----------------------------------------------------------

# Triton's names of the float types (dtype.name, str(dtype)) by their names in tl.
_TRITON_NAMES = {"float16": "fp16", "bfloat16": "bf16", "float32": "fp32", "float64": "fp64",
                 "float8e4nv": "fp8e4nv", "float8e5": "fp8e5", "float8e4b15": "fp8e4b15", "float8e4b8": "fp8e4b8",
                 "float8e5b16": "fp8e5b16"}
_BY_NAME = {}  # every dtype by both names (filled once they exist)


class dtype:
    """An element type: ``kind`` is 'int', 'uint', 'float' or 'bool'; ``name``
    is Triton's ('fp32', 'bf16', 'int8'; also str(dtype)), ``attr`` the name
    in ``tl`` ('float32'). ``tl.dtype('fp16')`` is tl.float16, as in Triton."""
    __slots__ = ("name", "attr", "ir", "kind", "bits")
    # Triton's lists of type names by family (tests parametrize over them)
    SINT_TYPES = ["int8", "int16", "int32", "int64"]
    UINT_TYPES = ["int1", "uint8", "uint16", "uint32", "uint64"]
    FP_TYPES = ["fp8e4b15", "fp8e4nv", "fp8e4b8", "fp8e5", "fp8e5b16", "fp16", "bf16", "fp32", "fp64"]
    STANDARD_FP_TYPES = ["fp16", "bf16", "fp32", "fp64"]
    OTHER_TYPES = ["void"]

    def __new__(cls, name, *rest, **kwargs):
        if rest or kwargs or cls is not dtype:
            return super().__new__(cls)
        found = _BY_NAME.get(name) if isinstance(name, str) else None
        if found is None:
            raise TypeError("tl.dtype(%r): not a dtype name (%s)" % (name, ", ".join(sorted(_BY_NAME))))
        return found

    def __init__(self, attr, *rest):
        if not rest:
            return  # tl.dtype('fp16'): the existing one (__new__)
        ir, kind, bits = rest
        self.attr, self.ir, self.kind, self.bits = attr, ir, kind, bits
        self.name = _TRITON_NAMES.get(attr, attr)

    def is_floating(self):
        return self.kind == "float"

    def is_int(self):
        return self.kind in ("int", "uint", "bool")

    def is_bool(self):
        return self.kind == "bool"

    def is_int_signed(self):
        return self.kind == "int"

    def is_int_unsigned(self):
        return self.kind == "uint"

    @property
    def int_bitwidth(self):
        return self.bits

    def is_ptr(self):
        return False

    def is_const(self):
        return False

    def is_fp16(self):
        return self is float16

    def is_bf16(self):
        return self is bfloat16

    def is_fp32(self):
        return self is float32

    def is_fp64(self):
        return self is float64

    def is_fp8(self):
        return self.kind == "float" and self.bits == 8

    def is_fp8e4nv(self):
        return self is float8e4nv

    def is_fp8e5(self):
        return self is float8e5

    @property
    def primitive_bitwidth(self):
        return self.bits

    @property
    def scalar(self):
        return self

    # ---- the rest of Triton's dtype interface ----
    class SIGNEDNESS:
        SIGNED = 0
        UNSIGNED = 1

    @property
    def int_signedness(self):
        return dtype.SIGNEDNESS.UNSIGNED if self.kind in ("uint", "bool") else dtype.SIGNEDNESS.SIGNED

    @property
    def fp_mantissa_width(self):
        if self.kind != "float":
            raise CompileError("%r has no mantissa" % self)
        return _FLOAT_FORMATS[self.attr][0]

    @property
    def exponent_bias(self):
        if self.kind != "float":
            raise CompileError("%r has no exponent" % self)
        return _FLOAT_FORMATS[self.attr][1]

    def get_int_max_value(self):
        if self.kind == "bool":
            return 1
        if self.kind not in ("int", "uint"):
            raise CompileError("%r is not an integer type" % self)
        return 2 ** (self.bits - 1) - 1 if self.kind == "int" else 2 ** self.bits - 1

    def get_int_min_value(self):
        if self.kind in ("bool", "uint"):
            return 0
        if self.kind != "int":
            raise CompileError("%r is not an integer type" % self)
        return -2 ** (self.bits - 1)

    def is_standard_floating(self):
        return self.attr in ("float16", "bfloat16", "float32", "float64")

    def is_int1(self):
        return self.kind == "bool"

    def is_block(self):
        return False

    def is_void(self):
        return False

    def with_element_ty(self, element_ty):
        return element_ty

    def to_ir(self):
        return self.ir

    def __eq__(self, other):
        return isinstance(other, dtype) and not other.is_ptr() and other.attr == self.attr

    def __hash__(self):
        return hash(self.attr)

    def __repr__(self):
        return "tl." + self.attr

    def __str__(self):
        return self.name  # as Triton's: f"{x.dtype}" is 'fp32'

    def __reduce__(self):  # copy, deepcopy and pickle give the same dtype
        return (dtype, (self.attr,))


def _is_int_of(kind, bits):
    return lambda self: self.kind == kind and self.bits == bits


for _kind in ("int", "uint"):  # dtype.is_int8() ... is_uint64()
    for _bits in (8, 16, 32, 64):
        setattr(dtype, "is_%s%d" % (_kind, _bits), _is_int_of(_kind, _bits))


class pointer_type(dtype):
    """A pointer to `element_ty`; `const=True` (parameters annotated
    `tl.const`, signature entries `*kfp32`) marks data the kernel must not
    write: a store or atomic through it is a compile error, and constness
    is part of the type (a variable cannot be const on one path and not on
    another), as in Triton. Memory is global (`address_space` 1) only."""
    __slots__ = ("element_ty", "address_space", "const")

    def __init__(self, element_ty, address_space=1, const=False):
        check_supported(element_ty, "a pointer")
        if element_ty.is_ptr():
            raise CompileError("pointers to pointers are not supported: load the addresses as tl.int64 (or "
                               "tl.uint64) and make each a pointer with .to(tl.pointer_type(...))")
        if address_space != 1:
            raise CompileError("pointers to address space %r are not supported (global memory, 1, only)"
                               % (address_space,))
        super().__init__("pointer<%s>" % element_ty.attr, element_ty.ir + "*", "ptr", 64)
        self.const = bool(const)
        self.address_space = 1
        self.name = "%spointer<%s>" % ("const_" if self.const else "", element_ty.name)
        self.element_ty = element_ty

    def is_ptr(self):
        return True

    def is_const(self):
        return self.const

    def __reduce__(self):
        return (pointer_type, (self.element_ty, 1, self.const))

    def is_int(self):
        return False

    def __eq__(self, other):
        return isinstance(other, pointer_type) and other.element_ty == self.element_ty and other.const == self.const

    def __hash__(self):
        return hash(("ptr", self.element_ty.attr, self.const))

    def __repr__(self):
        return "tl.pointer_type(%r%s)" % (self.element_ty, ", const=True" if self.const else "")


int1 = dtype("int1", "i1", "bool", 1)
int8 = dtype("int8", "i8", "int", 8)
int16 = dtype("int16", "i16", "int", 16)
int32 = dtype("int32", "i32", "int", 32)
int64 = dtype("int64", "i64", "int", 64)
float16 = dtype("float16", "f16", "float", 16)
bfloat16 = dtype("bfloat16", "bf16", "float", 16)
float32 = dtype("float32", "f32", "float", 32)
float64 = dtype("float64", "f64", "float", 64)
# Unsigned integers are the IR's integers of their width (bits without a
# sign); the operations that depend on the sign (division, remainder, right
# shift, comparisons, min/max, conversions) take their unsigned forms
# (semantic.py).
uint8 = dtype("uint8", "i8", "uint", 8)
uint16 = dtype("uint16", "i16", "uint", 16)
uint32 = dtype("uint32", "i32", "uint", 32)
uint64 = dtype("uint64", "i64", "uint", 64)
# fp8, as on Hopper's tensor cores: e4m3 without infinities (largest 448,
# torch.float8_e4m3fn) and e5m2 (torch.float8_e5m2). Storage types: the IR
# never computes on them; arithmetic here computes in float32 and rounds
# back (semantic.py), tl.dot takes them through float16 (exactly).
float8e4nv = dtype("float8e4nv", "f8e4m3", "float", 8)
float8e5 = dtype("float8e5", "f8e5m2", "float", 8)
# Triton's other fp8 formats (AMD's, and the older e4m3 with bias 15).
float8e4b15 = dtype("float8e4b15", None, "float", 8)
float8e4b8 = dtype("float8e4b8", None, "float", 8)
float8e5b16 = dtype("float8e5b16", None, "float", 8)
# (mantissa bits, exponent bias) of the float formats.
_FLOAT_FORMATS = {"float16": (10, 15), "bfloat16": (7, 127), "float32": (23, 127), "float64": (52, 1023),
                  "float8e4nv": (3, 7), "float8e5": (2, 15), "float8e4b15": (3, 15), "float8e4b8": (3, 8),
                  "float8e5b16": (2, 16)}

_BY_IR = {t.ir: t for t in (int1, int8, int16, int32, int64, float16, bfloat16, float32, float64, float8e4nv,
                            float8e5)}
_BY_NAME.update({n: t for t in (int1, int8, int16, int32, int64, float16, bfloat16, float32, float64, uint8,
                                uint16, uint32, uint64, float8e4nv, float8e5, float8e4b15, float8e4b8, float8e5b16)
                 for n in (t.name, t.attr)})
_BY_NAME["bool"] = int1


def get_int_dtype(bitwidth, signed):
    """The integer dtype of `bitwidth` bits (1, 8, 16, 32, 64), signed or not (Triton's core.get_int_dtype)."""
    bitwidth = int(unwrap(bitwidth))
    if bitwidth == 1:
        return int1
    found = _BY_NAME.get("%sint%d" % ("" if unwrap(signed) else "u", bitwidth))
    if found is None:
        raise CompileError("no integer type of %d bits" % bitwidth)
    return found


def dtype_from_ir(text):
    """The dtype of an IR scalar kind ('f32', 'f32*')."""
    if text.endswith("*"):
        return pointer_type(_BY_IR[text[:-1]])
    return _BY_IR[text]


def check_supported(t, what="this operation"):
    if t.ir is None:
        raise CompileError("%s: tl.%s is not supported (the fp8 formats are tl.float8e4nv and tl.float8e5)"
                           % (what, t.attr))
    return t


class PropagateNan:
    """tl.maximum/tl.minimum's `propagate_nan`: NONE (the default) returns
    the operand that is not NaN, ALL returns NaN (Triton's values)."""
    NONE = 0x0000
    ALL = 0xFFFF


# ---- constexpr --------------------------------------------------------------

class constexpr_type:
    """The type of a compile-time value (Triton's tl.constexpr_type): equal
    for equal values."""

    def __init__(self, value):
        self.value = unwrap(value)

    def __eq__(self, other):
        return isinstance(other, constexpr_type) and self.value == other.value

    def __hash__(self):
        return hash(self.value)

    def __repr__(self):
        return "constexpr_type[%r]" % (self.value,)


class _TupleType(type):
    def __instancecheck__(cls, value):
        return isinstance(value, tuple)


class tuple_(metaclass=_TupleType):
    """Triton's tl.tuple (``tl.tuple`` names this class): a kernel's tuples
    are Python tuples here, so ``tl.tuple(values)`` makes one and every
    tuple is an instance."""

    def __new__(cls, args=(), type=None):
        return tuple(args)


class constexpr:
    """A value known when the kernel is compiled (annotation ``x: tl.constexpr``
    on parameters; also usable as ``tl.constexpr(3)``)."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value.value if isinstance(value, constexpr) else value

    def __repr__(self):
        return "constexpr[%r]" % (self.value,)

    @property
    def type(self):
        """Triton's type of a compile-time value: constexpr_type(value)."""
        return constexpr_type(self.value)

    def __index__(self):
        return self.value

    def __bool__(self):
        return bool(self.value)

    def __eq__(self, other):
        return self.value == unwrap(other)

    def __hash__(self):
        return hash(self.value)

    def __int__(self):
        return int(self.value)

    def __float__(self):
        return float(self.value)


def _constexpr_operator(op, reflected=False):
    """Host-side arithmetic on constexprs (module-level `BLOCK =
    tl.constexpr(16)`, then `BLOCK * 2`, `triton.cdiv(n, BLOCK)`), a
    constexpr as Triton's; with a tensor, NotImplemented: the tensor's own
    operator applies, as before."""
    def f(self, other):
        if isinstance(unwrap(other), tensor):
            return NotImplemented
        a, b = (unwrap(other), self.value) if reflected else (self.value, unwrap(other))
        return constexpr(op(a, b))
    return f


for _name, _op in (("add", _operator.add), ("sub", _operator.sub), ("mul", _operator.mul),
                   ("truediv", _operator.truediv), ("floordiv", _operator.floordiv), ("mod", _operator.mod),
                   ("pow", _operator.pow), ("lshift", _operator.lshift), ("rshift", _operator.rshift),
                   ("and", _operator.and_), ("or", _operator.or_), ("xor", _operator.xor)):
    setattr(constexpr, "__%s__" % _name, _constexpr_operator(_op))
    setattr(constexpr, "__r%s__" % _name, _constexpr_operator(_op, reflected=True))
for _name, _op in (("lt", _operator.lt), ("le", _operator.le), ("gt", _operator.gt), ("ge", _operator.ge),
                   ("ne", _operator.ne)):
    setattr(constexpr, "__%s__" % _name, _constexpr_operator(_op))
for _name, _op in (("neg", _operator.neg), ("pos", _operator.pos), ("invert", _operator.invert),
                   ("abs", _operator.abs)):
    setattr(constexpr, "__%s__" % _name, (lambda op: lambda self: constexpr(op(self.value)))(_op))


def unwrap(v):
    return v.value if isinstance(v, constexpr) else v


# ---- tensors ----------------------------------------------------------------

MAX_RANK = 8  # (the IR's tiles: kMaxTileRank in lib/ir/op_rules.h)


class tensor:
    """An IR value: ``dtype`` is the element type (a pointer_type for
    pointers), ``shape`` a tuple of ints (``()`` for a scalar)."""
    __slots__ = ("handle", "dtype", "shape")

    def __init__(self, handle, dtype_, shape):
        self.handle, self.dtype, self.shape = handle, dtype_, tuple(shape)
        if len(self.shape) > MAX_RANK:
            raise CompileError("tensors have at most %d dimensions in tritonc, not %d (shape %s)"
                               % (MAX_RANK, len(self.shape), list(self.shape)))

    @property
    def type(self):
        """The dtype of a scalar; a block_type (element_ty, shape) of a tile."""
        return self.dtype if not self.shape else block_type(self.dtype, self.shape)

    @property
    def numel(self):
        """The number of elements: a number (Triton's constexpr attribute,
        `x.numel >> 1`); `x.numel()` works too."""
        n = 1
        for d in self.shape:
            n *= d
        return _count(n)

    def ir_type(self):
        return ir_type(self.dtype, self.shape)

    def __repr__(self):
        return "tensor(%s, shape=%s)" % (self.dtype, list(self.shape))

    def __bool__(self):
        raise CompileError("a tensor has no Python truth value while compiling; use it in 'if' (a scalar), "
                           "tl.where, or a mask")

    def __iter__(self):
        raise CompileError("tensors cannot be iterated in Python; use tl.static_range over an index")

    # Operators: semantic.py has the rules.
    def __add__(self, o): return _sem().add(self, o)
    def __radd__(self, o): return _sem().add(o, self)
    def __sub__(self, o): return _sem().sub(self, o)
    def __rsub__(self, o): return _sem().sub(o, self)
    def __mul__(self, o): return _sem().mul(self, o)
    def __rmul__(self, o): return _sem().mul(o, self)
    def __truediv__(self, o): return _sem().truediv(self, o)
    def __rtruediv__(self, o): return _sem().truediv(o, self)
    def __floordiv__(self, o): return _sem().floordiv(self, o)
    def __rfloordiv__(self, o): return _sem().floordiv(o, self)
    def __mod__(self, o): return _sem().mod(self, o)
    def __rmod__(self, o): return _sem().mod(o, self)
    def __and__(self, o): return _sem().bitwise("and", self, o)
    def __rand__(self, o): return _sem().bitwise("and", o, self)
    def __or__(self, o): return _sem().bitwise("or", self, o)
    def __ror__(self, o): return _sem().bitwise("or", o, self)
    def __xor__(self, o): return _sem().bitwise("xor", self, o)
    def __rxor__(self, o): return _sem().bitwise("xor", o, self)
    def __lshift__(self, o): return _sem().shift("shl", self, o)
    def __rlshift__(self, o): return _sem().shift("shl", o, self)
    def __rshift__(self, o): return _sem().shift("shr", self, o)
    def __rrshift__(self, o): return _sem().shift("shr", o, self)
    def __neg__(self): return _sem().neg(self)
    def __pos__(self): return self
    def __invert__(self): return _sem().invert(self)
    def __lt__(self, o): return _sem().compare("lt", self, o)
    def __le__(self, o): return _sem().compare("le", self, o)
    def __gt__(self, o): return _sem().compare("gt", self, o)
    def __ge__(self, o): return _sem().compare("ge", self, o)
    def __eq__(self, o): return _sem().compare("eq", self, o)
    def __ne__(self, o): return _sem().compare("ne", self, o)
    __hash__ = object.__hash__

    def __getitem__(self, index): return _sem().subscript(self, index)

    # Methods of Triton's tensor.
    def to(self, dtype_, bitcast=False, fp_downcast_rounding=None):
        return _sem().cast_rounded(self, unwrap(dtype_), fp_downcast_rounding, bitcast=unwrap(bitcast))

    @property
    def T(self):
        return _ops().trans(self)  # (the last two axes swapped)

    def reshape(self, *shape, can_reorder=False):
        return _ops().reshape(self, *shape)

    def item(self):
        return _sem().item(self)

    def view(self, *shape):
        return _ops().reshape(self, *shape)

    def trans(self, *dims):
        return _ops().trans(self, *dims)

    def permute(self, *dims):
        return _ops().permute(self, *dims)

    def broadcast_to(self, *shape):
        return _ops().broadcast_to(self, *shape)

    def expand_dims(self, axis):
        return _ops().expand_dims(self, axis)

    def sum(self, axis=None, keep_dims=False, dtype=None):
        return _ops().sum(self, axis, keep_dims, dtype)

    def max(self, axis=None, return_indices=False, keep_dims=False):
        return _ops().max(self, axis, return_indices, keep_dims=keep_dims)

    def min(self, axis=None, return_indices=False, keep_dims=False):
        return _ops().min(self, axis, return_indices, keep_dims=keep_dims)

    def argmax(self, axis, keep_dims=False):
        return _ops().argmax(self, axis, keep_dims=keep_dims)

    def argmin(self, axis, keep_dims=False):
        return _ops().argmin(self, axis, keep_dims=keep_dims)

    def cumsum(self, axis=0, reverse=False, dtype=None):
        from . import standard
        return standard.cumsum(self, axis, reverse, dtype)

    def cumprod(self, axis=0, reverse=False, dtype=None):
        from . import standard
        return standard.cumprod(self, axis, reverse, dtype)

    def exp(self): return _math().exp(self)
    def log(self): return _math().log(self)
    def sqrt(self): return _math().sqrt(self)
    def abs(self): return _math().abs(self)

    def logical_and(self, other):
        return _sem().logical("and", self, other)

    def logical_or(self, other):
        return _sem().logical("or", self, other)

    def item(self):
        """The element of a one-element tensor, as a scalar."""
        if self.numel() != 1:
            raise CompileError("item() takes a tensor of one element, not of shape %s" % list(self.shape))
        return _sem().reshape(self, ())


def _member(name):
    """Triton's tensor methods that are tl functions of the tensor: x.name(...) is tl.name(x, ...)."""
    def method(self, *args, **kwargs):
        import tritonc.language as tl
        return getattr(tl, name)(self, *args, **kwargs)
    method.__name__ = name
    return method


for _name in ("associative_scan", "atomic_add", "atomic_and", "atomic_cas", "atomic_max", "atomic_min", "atomic_or",
              "atomic_xchg", "atomic_xor", "cast", "cdiv", "ceil", "cos", "cumprod", "erf", "exp2", "flip", "floor",
              "gather", "histogram", "log2", "ravel", "reduce", "reduce_or", "rsqrt", "sigmoid", "sin", "softmax",
              "sort", "split", "sqrt_rn", "store", "xor_sum"):
    setattr(tensor, _name, _member(_name))


class block_type:
    """The type of a tile: ``element_ty`` and ``shape``."""
    __slots__ = ("element_ty", "shape")

    def __init__(self, element_ty, shape):
        self.element_ty, self.shape = element_ty, tuple(shape)

    @property
    def scalar(self):
        return self.element_ty

    def is_block(self):
        return True

    def get_block_shapes(self):
        return self.shape

    def with_element_ty(self, element_ty):
        return block_type(element_ty, self.shape)

    def __eq__(self, other):
        return isinstance(other, block_type) and other.element_ty == self.element_ty and other.shape == self.shape

    def __hash__(self):
        return hash((self.element_ty, self.shape))

    def __repr__(self):
        return "<%s, %r>" % (list(self.shape), self.element_ty)


def ir_type(dt, shape):
    """The IR type text of elements `dt` in tiles of `shape` ('f32<16, 16>')."""
    base = dt.ir if not dt.is_ptr() else dt.element_ty.ir + "*"
    if base is None or (dt.is_ptr() and dt.element_ty.ir is None):
        check_supported(dt.element_ty if dt.is_ptr() else dt)
    if not shape:
        return base
    return base + "<" + ", ".join(str(d) for d in shape) + ">"


def _sem():
    from . import semantic
    return semantic


def _ops():
    from . import ops
    return ops


def _math():
    from . import math
    return math


pi32_t = pointer_type(int32)  # (Triton's name for a pointer to int32)
