"""``tritonc.reinterpret(x, dtype)``: an array or tensor's memory passed to a
kernel as elements of another type of the same size, as Triton's
``triton.reinterpret`` (``TensorWrapper``). Its use: fp8 data where the array
library has no fp8 type (numpy; torch before 2.1), e.g.
``kernel[grid](tritonc.reinterpret(bytes_u8, tl.float8e4nv), ...)``."""


class TensorWrapper:
    """`base` (a numpy array, a torch tensor, ...) seen as `dtype` (a tl
    dtype of the same element size) by the kernels it is passed to."""

    def __init__(self, base, dtype):
        from .language import core
        if not isinstance(dtype, core.dtype) or dtype.is_ptr():
            raise TypeError("reinterpret: expected an element type such as tl.float8e4nv, got %r" % (dtype,))
        size = _element_size(base)
        if size is not None and size * 8 != max(dtype.bits, 8):
            raise TypeError("reinterpret: the elements of the array have %d bytes, %r has %d bits"
                            % (size, dtype, dtype.bits))
        self.base, self.dtype = base, dtype
        self.shape = tuple(int(d) for d in base.shape)
        # (as Triton's: the base's data, an attribute of the wrapper that
        # tests may rebind without changing the base)
        self.data = getattr(base, "data", None)

    @property
    def device(self):
        return getattr(self.base, "device", "cpu")

    @property
    def is_cuda(self):
        return bool(getattr(self.base, "is_cuda", False))

    def data_ptr(self):
        if hasattr(self.base, "data_ptr"):
            return self.base.data_ptr()
        return self.base.__array_interface__["data"][0]

    def numel(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    def element_size(self):
        return max(self.dtype.bits, 8) // 8

    def stride(self, dim=None):
        """Strides in elements, as torch's (numpy's bytes divided by the size)."""
        if callable(getattr(self.base, "stride", None)):
            return self.base.stride() if dim is None else self.base.stride(dim)
        s = tuple(b // self.base.itemsize for b in self.base.strides)
        return s if dim is None else s[dim]

    def dim(self):
        return len(self.shape)

    @property
    def ndim(self):
        return len(self.shape)

    def __repr__(self):
        return "TensorWrapper[%r](%r)" % (self.dtype, self.base)

    # The base's own copies and moves, still seen as `dtype` (Triton's
    # TensorWrapper has them; numpy bases have copy_/new_empty by numpy's
    # names where they differ).
    def _rewrap(self, base):
        return TensorWrapper(base, self.dtype)

    def cpu(self):
        return self._rewrap(self.base.cpu()) if hasattr(self.base, "cpu") else self

    def to(self, device):
        return self._rewrap(self.base.to(device))

    def clone(self):
        return self._rewrap(self.base.clone() if hasattr(self.base, "clone") else self.base.copy())

    def copy_(self, other):
        src = other.base if isinstance(other, TensorWrapper) else other
        if hasattr(self.base, "copy_"):
            self.base.copy_(src)
        else:
            self.base[...] = src
        return self

    def new_empty(self, sizes):
        if hasattr(self.base, "new_empty"):
            return self._rewrap(self.base.new_empty(sizes))
        import numpy as np
        return self._rewrap(np.empty(sizes, dtype=self.base.dtype))


def _element_size(x):
    if hasattr(x, "element_size"):
        return int(x.element_size())
    dt = getattr(x, "dtype", None)
    return int(getattr(dt, "itemsize", 0)) or None


def _element_type(dtype):
    """A tl dtype for `dtype`: a tl dtype, or a torch or numpy one by its name."""
    from .language import core
    from .language.type_names import str_to_ty
    if isinstance(dtype, core.dtype):
        return dtype
    name = str(dtype)
    if name.startswith("torch."):
        name = name[len("torch."):]
    else:
        try:
            import numpy as np
            name = np.dtype(dtype).name
        except (TypeError, ImportError):
            pass
    try:
        return str_to_ty(name)
    except ValueError:
        raise TypeError("reinterpret: expected an element type such as tl.float8e4nv, got %r" % (dtype,)) from None


def reinterpret(x, dtype):
    """`x` seen as `dtype` elements by a kernel (a tl dtype, or torch's or
    numpy's); the array itself when `dtype` is its own type again (a wrapper
    of a wrapper unwraps)."""
    dtype = _element_type(dtype)
    if isinstance(x, TensorWrapper):
        from .jit import _array_dtype
        return x.base if _array_dtype(x.base) == dtype else TensorWrapper(x.base, dtype)
    return TensorWrapper(x, dtype)
