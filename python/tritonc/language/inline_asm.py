"""``tl.inline_asm_elementwise``: the user's PTX, element by element, with
several results and ``pack`` as Triton takes them.

The IR's inline_asm has one result (docs/IR.md), so the front end builds
what the assembly sees from it:
  - several output registers: one inline_asm per output register, each a
    copy of the assembly in which that register is `$0` and the others are
    scratch registers declared in it (so is_pure=True is required: every
    copy runs);
  - pack > 1: `pack` consecutive elements along the last axis per call; an
    operand narrower than 32 bits holds 32 / bits of them per 32-bit
    register, the first in the low bits (packed and unpacked here with
    shifts), a wider one one per register.
Registers are numbered as Triton numbers them: the outputs' first, result
by result, then the inputs', argument by argument.
"""
from . import core, semantic
from .core import CompileError, builtin, tensor, unwrap
from .semantic import to_tensor
from .standard import from_lanes, lanes_of

# PTX register types of LLVM's constraint letters, for the scratch copies of other outputs
_REGISTER = {"r": ".b32", "l": ".b64", "f": ".f32", "d": ".f64", "h": ".b16"}


def _text(v, what):
    v = unwrap(v)
    if not isinstance(v, str):
        raise CompileError("%s must be a string, not %r" % (what, v))
    return v


def rewrite(asm, outputs, keep, letters):
    """`asm` with output register `keep` as $0, the other outputs as scratch
    registers declared before it (their PTX types from the constraint
    `letters`), and input register $outputs + i as $1 + i."""
    out, p = [], 0
    while p < len(asm):
        if asm[p] != "$" or p + 1 >= len(asm) or not asm[p + 1].isdigit():
            out.append(asm[p])
            p += 1
            continue
        q = p + 1
        while q < len(asm) and asm[q].isdigit():
            q += 1
        n = int(asm[p + 1:q])
        if n >= outputs:
            out.append("$%d" % (n - outputs + 1))
        else:
            out.append("$0" if n == keep else "%%tritonc_out%d" % n)
        p = q
    declared = []
    for k in range(outputs):
        if k == keep:
            continue
        if letters[k] not in _REGISTER:
            raise CompileError("inline_asm_elementwise: output constraint '=%s' is not one of =r, =l, =f, =d, =h"
                               % letters[k])
        declared.append(".reg %s %%tritonc_out%d;" % (_REGISTER[letters[k]], k))
    return " ".join(declared + ["".join(out)]) if declared else "".join(out)


def _unsigned(bits):
    return {8: core.uint8, 16: core.uint16, 32: core.uint32}[bits]


def _pack_registers(parts, bits):
    """Tiles of `bits`-bit elements packed 32 / bits to an int32 register, the first in the low bits."""
    per = 32 // bits
    regs = []
    for r in range(len(parts) // per):
        word = None
        for k in range(per):
            u = semantic.cast(semantic.cast(parts[r * per + k], _unsigned(bits), bitcast=True), core.uint32)
            u = semantic.shift("shl", u, k * bits) if k else u
            word = u if word is None else semantic.bitwise("or", word, u)
        regs.append(semantic.cast(word, core.int32, bitcast=True))
    return regs


def _unpack_registers(regs, bits, dt):
    """The elements of type `dt` in int32 registers, 32 / bits each."""
    parts = []
    for word in regs:
        u = semantic.cast(word, core.uint32, bitcast=True)
        for k in range(32 // bits):
            v = semantic.shift("shr", u, k * bits) if k else u
            v = semantic.cast(semantic.bitwise("and", v, (1 << bits) - 1), _unsigned(bits))
            parts.append(semantic.cast(v, dt, bitcast=True) if dt != _unsigned(bits) else v)
    return parts


def _narrow_int(dt):
    """An 8- or 16-bit integer: one to a 32-bit register when not packed."""
    return dt.is_int() and not dt.is_bool() and dt.bits in (8, 16)


def _registers_per_call(dt, pack, what):
    """How many registers `pack` elements of dt take, and whether they are packed."""
    if pack == 1 or dt.bits >= 32:
        return pack, False
    if dt.bits not in (8, 16) or pack * dt.bits % 32:
        raise CompileError("inline_asm_elementwise: %s of %r with pack=%d: %d-bit elements go %d to a 32-bit "
                           "register, so pack must be a multiple of %d" % (what, dt, pack, dt.bits, 32 // dt.bits,
                                                                            32 // dt.bits))
    return pack * dt.bits // 32, True


@builtin
def inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack):
    """Triton's inline PTX, element by element: `asm` with $0... the output
    registers and then the inputs' (`args`, broadcast to one shape),
    `constraints` as LLVM writes them ("=r,=r,r": two outputs, one input);
    `dtype` one type or a tuple (then a tuple is returned); `pack` elements
    per call. Runs on the GPU only (the interpreter and the CPU back end
    report it)."""
    asm, constraints = _text(asm, "inline_asm_elementwise's assembly"), _text(constraints, "its constraints")
    dt = unwrap(dtype)
    many = isinstance(dt, (tuple, list))
    dts = [unwrap(d) for d in dt] if many else [dt]
    pack = unwrap(pack)
    if not isinstance(pack, int) or pack < 1 or pack & (pack - 1):
        raise CompileError("inline_asm_elementwise's pack is a power of two, not %r" % (pack,))
    values = [to_tensor(a) for a in (unwrap(args) if isinstance(unwrap(args), (tuple, list)) else [unwrap(args)])]
    # (a pointer goes in as its 64-bit address: the "l" register it is in Triton)
    values = [semantic.cast(v, core.int64) if v.dtype.is_ptr() else v for v in values]
    for d in dts:
        core.check_supported(d, "inline_asm_elementwise")
    if any(d.is_fp8() for d in dts) or any(v.dtype.is_fp8() for v in values):
        raise CompileError("inline_asm_elementwise does not take fp8 values; pass their bits (.to(tl.uint8, "
                           "bitcast=True))")
    shape = ()
    for v in values:
        shape = semantic.broadcast_shapes(shape, v.shape)
    values = [semantic.broadcast_to(v, shape) for v in values]
    if pack > 1 and (not shape or shape[-1] % pack):
        raise CompileError("inline_asm_elementwise with pack=%d takes that many consecutive elements along the last "
                           "axis, which has %s" % (pack, list(shape)[-1:] or "none"))
    grouped = shape[:-1] + (shape[-1] // pack, pack) if pack > 1 else shape
    reg_shape = grouped[:-1] if pack > 1 else shape
    # The input registers, argument by argument.
    inputs = []
    for i, v in enumerate(values):
        count, packed = _registers_per_call(v.dtype, pack, "argument %d" % i)
        parts = lanes_of(v, grouped) if pack > 1 else [v]
        if not packed and _narrow_int(v.dtype):
            parts = [semantic.cast(p, core.int32) for p in parts]  # (an "r" register: 32 bits)
        inputs.extend(_pack_registers(parts, v.dtype.bits) if packed else parts)
    # The output registers, result by result.
    out_types = []
    for d in dts:
        count, packed = _registers_per_call(d, pack, "a result")
        out_types.extend([core.int32 if packed or _narrow_int(d) else d] * count)
    parts = [c.strip() for c in constraints.split(",") if c.strip()]
    letters = [c[1:] for c in parts if c.startswith("=")]
    if len(letters) != len(out_types) or len(parts) - len(letters) != len(inputs):
        raise CompileError("inline_asm_elementwise's constraints %r name %d output(s) and %d input(s); it has %d "
                           "output register(s) and %d input register(s) (results and arguments with pack=%d)"
                           % (constraints, len(letters), len(parts) - len(letters), len(out_types), len(inputs), pack))
    pure = bool(unwrap(is_pure))
    if len(out_types) > 1 and not pure:
        raise CompileError("inline_asm_elementwise with %d output registers needs is_pure=True: each register is made "
                           "by its own copy of the assembly" % len(out_types))
    b = semantic.builder()
    regs = [tensor(b.inline_asm(rewrite(asm, len(out_types), k, letters), [x.handle for x in inputs],
                                core.ir_type(t, reg_shape), pure), t, reg_shape)
            for k, t in enumerate(out_types)]
    results, at = [], 0
    for d in dts:
        count, packed = _registers_per_call(d, pack, "a result")
        mine = regs[at:at + count]
        at += count
        lanes = _unpack_registers(mine, d.bits, d) if packed else \
            [semantic.cast(m, d) for m in mine] if _narrow_int(d) else mine  # (the low bits of the register)
        results.append(from_lanes(lanes, grouped, shape) if pack > 1 else lanes[0])
    return tuple(results) if many else results[0]
