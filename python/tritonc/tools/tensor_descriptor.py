"""``TensorDescriptor``: a tensor's base, shape and strides with the block a
kernel reads or writes at a time, passed to a ``@tritonc.jit`` kernel as
Triton 3.x passes one (``triton.tools.tensor_descriptor``). In the kernel
the argument is a tensor descriptor: ``desc.load([i, j])``,
``desc.store([i, j], x)``, as one made by ``tl.make_tensor_descriptor``.

The launch passes the base pointer, then the shape and the strides as
integers (specialized like any integer argument); the block shape, the
element type and the number of dimensions are part of the kernel's
specialization."""


class TensorDescriptor:
    def __init__(self, base, shape, strides, block_shape, padding="zero"):
        if padding not in ("zero", "nan"):
            raise ValueError("padding must be 'zero' or 'nan', not %r" % (padding,))
        shape, strides, block_shape = list(shape), list(strides), list(block_shape)
        if not len(shape) == len(strides) == len(block_shape) or not 1 <= len(shape) <= 5:
            raise ValueError("a tensor descriptor has 1 to 5 dimensions, each with a size, a stride and a block size "
                             "(got %d, %d and %d)" % (len(shape), len(strides), len(block_shape)))
        self.base, self.shape, self.strides, self.block_shape, self.padding = base, shape, strides, block_shape, padding

    @staticmethod
    def from_tensor(tensor, block_shape, padding="zero"):
        strides = tensor.stride() if callable(getattr(tensor, "stride", None)) else \
            [s // tensor.itemsize for s in tensor.strides]
        return TensorDescriptor(tensor, list(tensor.shape), list(strides), block_shape, padding)

    def __repr__(self):
        return "TensorDescriptor(shape=%s, strides=%s, block_shape=%s)" % (self.shape, self.strides, self.block_shape)
