"""Block pointers (``tl.make_block_ptr``/``tl.advance``) and tensor
descriptors (``tl.make_tensor_descriptor``): a tile's place in a strided
array, lowered to a tensor of pointers and a boundary mask, so that loads
and stores through them take the same paths as hand-written ones."""
from . import core, semantic
from .core import CompileError, builtin, tensor, unwrap
from .semantic import to_tensor


def _ints(values, what, n=None, wide=False):
    """Shapes (integers as given) and strides (`wide`: int64, as Triton's
    block pointers have them, so that a tile's offsets never wrap)."""
    values = unwrap(values)
    if not isinstance(values, (list, tuple)):
        raise CompileError("%s must be a tuple" % what)
    if n is not None and len(values) != n:
        raise CompileError("%s has %d entries; the block has %d dimensions" % (what, len(values), n))
    out = []
    for v in values:
        t = to_tensor(v)
        if not t.dtype.is_int() or t.shape:
            raise CompileError("%s must hold integer scalars" % what)
        if wide:
            out.append(semantic.cast(t, core.int64))
        else:
            out.append(t if t.dtype in (core.int32, core.int64) else semantic.cast(t, core.int32))
    return out


def _constant(t):
    return t.handle.constant() if isinstance(t, tensor) and not t.shape else None


def _always_inside(off, block, shape):
    """Whether offsets off .. off + block - 1 are all inside [0, shape), known now."""
    o, s = _constant(off), _constant(shape)
    return o is not None and s is not None and o >= 0 and o + block <= s


def _never_negative(off):
    o = _constant(off)
    return o is not None and o >= 0


class block_ptr:
    """A composite value of the kernel: base, shape, strides, offsets are
    tensors (loop-carried like any variable); block_shape, order constants."""

    def __init__(self, base, shape, strides, offsets, block_shape, order):
        self.base, self.shape, self.strides, self.offsets = base, shape, strides, offsets
        self.block_shape, self.order = tuple(block_shape), tuple(order)

    @property
    def dtype(self):
        """The base's pointer type: `p.dtype.element_ty` is the element type
        (Triton's is the block type, which `.to()` reads as its element
        type: kernels write `x.to(p.dtype.element_ty)`)."""
        return self.base.dtype

    @property
    def type(self):
        """As ``dtype`` (`p.type.element_ty` too: generated code casts to it)."""
        return self.base.dtype

    # The code generator stores composite values leaf by leaf.
    def _leaves(self):
        return [self.base] + list(self.shape) + list(self.strides) + list(self.offsets)

    def _rebuild(self, leaves):
        n = len(self.block_shape)
        return block_ptr(leaves[0], leaves[1:1 + n], leaves[1 + n:1 + 2 * n], leaves[1 + 2 * n:], self.block_shape,
                         self.order)

    def _signature(self):
        return ("block_ptr", self.block_shape, self.order)

    def _pointers_and_mask(self, boundary_check):
        """base + sum_d offsets[d] * strides[d] as one scalar, plus the tile
        of arange_d * strides[d] (loop-invariant: hoisted when the strides
        are), and for each checked dimension 0 <= arange_d < shape[d] -
        offsets[d]: per-element work stays what a hand-written kernel does."""
        from . import ops
        n = len(self.block_shape)
        check = tuple(unwrap(c) for c in (unwrap(boundary_check) or ()))
        for c in check:
            if not isinstance(c, int) or not 0 <= c < n:
                raise CompileError("boundary_check names dimension %r; the block has %d" % (c, n))
        base = self.base
        tile = None
        mask = None
        for d in range(n):
            shape = [1] * n
            shape[d] = self.block_shape[d]
            off = self.offsets[d]
            base = semantic.add(base, semantic.mul(semantic.cast(off, core.int64), self.strides[d]))
            lanes = semantic.reshape(ops.arange(0, self.block_shape[d]), tuple(shape))
            stride = self.strides[d]
            part = semantic.mul(lanes, stride)
            tile = part if tile is None else semantic.add(tile, part)
            if d in check and not _always_inside(off, self.block_shape[d], self.shape[d]):
                room = semantic.sub(self.shape[d], semantic.cast(off, self.shape[d].dtype))
                ok = semantic.compare("lt", lanes, room)
                if not _never_negative(off):
                    ok = semantic.logical("and", ok, semantic.compare("ge", lanes, semantic.neg(off)))
                mask = ok if mask is None else semantic.logical("and", mask, ok)
        ptr = semantic.broadcast_to(semantic.add(base, tile), self.block_shape)
        if mask is not None:
            mask = semantic.broadcast_to(mask, self.block_shape)
        return ptr, mask

    def load_block(self, boundary_check, padding_option):
        from . import ops
        ptr, mask = self._pointers_and_mask(boundary_check)
        if padding_option not in ("", "zero", "nan", None):
            raise CompileError("padding_option must be 'zero' or 'nan', not %r" % padding_option)
        other = float("nan") if padding_option == "nan" else 0
        return ops.load(ptr, mask=mask, other=other if mask is not None else None)

    def store_block(self, value, boundary_check):
        from . import ops
        ptr, mask = self._pointers_and_mask(boundary_check)
        ops.store(ptr, value, mask=mask)

    # Triton's tensor members of a block pointer: p.load(...), p.store(x, ...), p.advance(offsets).
    def load(self, *args, **kwargs):
        from . import ops
        return ops.load(self, *args, **kwargs)

    def store(self, *args, **kwargs):
        from . import ops
        return ops.store(self, *args, **kwargs)

    def advance(self, offsets):
        return advance(self, offsets)


@builtin
def make_block_ptr(base, shape, strides, offsets, block_shape, order):
    b = to_tensor(base)
    if not b.dtype.is_ptr() or b.shape:
        raise CompileError("make_block_ptr's base must be a scalar pointer")
    bs = tuple(unwrap(d) for d in unwrap(block_shape))
    if not all(isinstance(d, int) and not isinstance(d, bool) and d > 0 and d & (d - 1) == 0 for d in bs):
        raise CompileError("make_block_ptr's block_shape must be compile-time powers of two (constexprs), got %s"
                           % ", ".join(repr(d) if isinstance(d, int) else "a value of the running kernel" for d in bs))
    n = len(bs)
    offs = [semantic.cast(to_tensor(v), core.int32) for v in unwrap(offsets)]
    if len(offs) != n:
        raise CompileError("offsets has %d entries; the block has %d dimensions" % (len(offs), n))
    return block_ptr(b, _ints(shape, "shape", n), _ints(strides, "strides", n, wide=True), offs, bs,
                     tuple(int(unwrap(o)) for o in unwrap(order)))


@builtin
def advance(base, offsets):
    bp = unwrap(base)
    if not isinstance(bp, block_ptr):
        raise CompileError("tl.advance takes a block pointer (tl.make_block_ptr)")
    offs = unwrap(offsets)
    if len(offs) != len(bp.block_shape):
        raise CompileError("advance: %d offsets for a block of %d dimensions" % (len(offs), len(bp.block_shape)))
    new = [semantic.add(o, semantic.cast(to_tensor(d), core.int32)) for o, d in zip(bp.offsets, offs)]
    return block_ptr(bp.base, bp.shape, bp.strides, new, bp.block_shape, bp.order)


class tensor_descriptor:
    """``tl.make_tensor_descriptor(base, shape, strides, block_shape)``:
    ``desc.load([i, j])`` / ``desc.store([i, j], x)`` read and write the block
    at those element offsets, out-of-bounds elements read as zero."""

    def __init__(self, base, shape, strides, block_shape, padding="zero"):
        self.base, self.shape, self.strides, self.block_shape = base, shape, strides, tuple(block_shape)
        self.padding = padding

    def _leaves(self):
        return [self.base] + list(self.shape) + list(self.strides)

    def _rebuild(self, leaves):
        n = len(self.block_shape)
        return tensor_descriptor(leaves[0], leaves[1:1 + n], leaves[1 + n:], self.block_shape, self.padding)

    def _signature(self):
        return ("tensor_descriptor", self.block_shape, self.padding)

    @property
    def dtype(self):
        return self.base.dtype.element_ty

    def _block(self, offsets):
        offs = [semantic.cast(to_tensor(v), core.int32) for v in unwrap(offsets)]
        if len(offs) != len(self.block_shape):
            raise CompileError("%d offsets for a block of %d dimensions" % (len(offs), len(self.block_shape)))
        return block_ptr(self.base, self.shape, self.strides, offs, self.block_shape, ())

    def load(self, offsets):
        return self._block(offsets).load_block(tuple(range(len(self.block_shape))), self.padding)

    def store(self, offsets, value):
        self._block(offsets).store_block(value, tuple(range(len(self.block_shape))))

    # Triton's descriptor reductions: the block at `offsets` combined into
    # memory element by element (atomically; out-of-bounds elements left
    # out); they return nothing, as Triton's (a TMA reduction there).
    def _reduce(self, kind, offsets, value):
        from . import ops
        ptr, mask = self._block(offsets)._pointers_and_mask(tuple(range(len(self.block_shape))))
        ops._atomic(kind, ptr, value, mask, None, None)

    def _rows(self, x_offsets, y_offset):
        """Pointers and mask of rows x_offsets (a 1-D tensor), columns
        y_offset .. y_offset + block_shape[1] - 1 of a 2-D descriptor whose
        block is one row (Triton's gather and scatter)."""
        from . import ops
        if len(self.block_shape) != 2 or self.block_shape[0] != 1:
            raise CompileError("gather and scatter take a 2-D descriptor whose block is one row (block_shape "
                               "[1, N]), got %s" % list(self.block_shape))
        rows = to_tensor(x_offsets)
        if len(rows.shape) != 1 or not rows.dtype.is_int():
            raise CompileError("gather and scatter take a 1-D tensor of row indices, got %r of shape %s"
                               % (rows.dtype, list(rows.shape)))
        nrows, ncols = rows.shape[0], self.block_shape[1]
        rows = semantic.reshape(semantic.cast(rows, core.int32), (nrows, 1))
        cols = semantic.reshape(semantic.add(ops.arange(0, ncols), semantic.cast(to_tensor(y_offset), core.int32)),
                                (1, ncols))
        offs = semantic.add(semantic.mul(semantic.cast(rows, core.int64), self.strides[0]),
                            semantic.mul(semantic.cast(cols, core.int64), self.strides[1]))
        ptr = semantic.add(semantic.broadcast_to(self.base, (nrows, ncols)), semantic.broadcast_to(offs, (nrows, ncols)))
        inside = [semantic.logical("and", semantic.compare("ge", i, 0), semantic.compare("lt", i, n))
                  for i, n in ((rows, self.shape[0]), (cols, self.shape[1]))]
        mask = semantic.broadcast_to(semantic.logical("and", semantic.broadcast_to(inside[0], (nrows, ncols)),
                                                      semantic.broadcast_to(inside[1], (nrows, ncols))), (nrows, ncols))
        return ptr, mask

    def gather(self, x_offsets, y_offset):
        """Rows x_offsets, block_shape[1] columns from y_offset; outside the
        tensor, zeros (or NaN with padding 'nan')."""
        from . import ops
        ptr, mask = self._rows(x_offsets, y_offset)
        other = float("nan") if self.padding == "nan" else 0
        return ops.load(ptr, mask=mask, other=other)

    def scatter(self, value, x_offsets, y_offset):
        """Stores `value` (rows x columns) where gather would read; outside
        the tensor, nothing."""
        from . import ops
        ptr, mask = self._rows(x_offsets, y_offset)
        ops.store(ptr, value, mask=mask)


def _descriptor_reduction(kind):
    def reduction(self, offsets, value):
        self._reduce(kind, offsets, value)
    reduction.__name__ = "atomic_" + kind
    return reduction


for _kind in ("add", "min", "max", "and", "or", "xor"):  # desc.atomic_add(offsets, value), ...
    setattr(tensor_descriptor, "atomic_" + _kind, _descriptor_reduction(_kind))


@builtin
def load_tensor_descriptor(desc, offsets):
    """``desc.load(offsets)`` as a function."""
    if not isinstance(desc, tensor_descriptor):
        raise CompileError("load_tensor_descriptor takes a tensor descriptor (tl.make_tensor_descriptor)")
    return desc.load(offsets)


@builtin
def store_tensor_descriptor(desc, offsets, value):
    """``desc.store(offsets, value)`` as a function."""
    if not isinstance(desc, tensor_descriptor):
        raise CompileError("store_tensor_descriptor takes a tensor descriptor (tl.make_tensor_descriptor)")
    desc.store(offsets, value)


@builtin
def make_tensor_descriptor(base, shape, strides, block_shape, padding_option="zero"):
    b = to_tensor(base)
    if not b.dtype.is_ptr() or b.shape:
        raise CompileError("make_tensor_descriptor's base must be a scalar pointer")
    bs = tuple(int(unwrap(d)) for d in unwrap(block_shape))
    padding = unwrap(padding_option)
    if padding not in ("zero", "nan"):
        raise CompileError("padding_option must be 'zero' or 'nan', not %r" % (padding,))
    return tensor_descriptor(b, _ints(shape, "shape", len(bs)), _ints(strides, "strides", len(bs), wide=True), bs,
                             padding)
