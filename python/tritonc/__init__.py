"""tritonc: Triton-C tile kernels from Python, after PyTriton.

    import tritonc
    add = tritonc.kernel(src, outputs=['c'])
    add(a, b, c, n, grid=lambda opt: (tritonc.cdiv(n, opt.d('BLOCK')),), BLOCK=[128, 256], TYPE=a.dtype)

    add = tritonc.load("add.tck")   # compiled ahead of time: tritonc compile add.tc ... -o add.tck
    add(a, b, c, n, grid=lambda opt: (tritonc.cdiv(n, opt.d('BLOCK')),))

Kernels take numpy arrays (run on the interpreter, or copied to the GPU and
back), PyTorch tensors on the CPU or on CUDA (launched on the current stream),
and any object that speaks DLPack (CPU or CUDA) or ``__cuda_array_interface__``.
TensorFlow cannot be installed on our machines and is not supported.
"""
import math
import sys

from . import _tritonc
from ._tritonc import Error

__all__ = ["kernel", "load", "function", "cdiv", "next_power_of_2", "set_allocator", "shape", "empty", "Error", "Options", "ops",
           "version", "jit", "JITFunction", "language", "autotune", "heuristics", "Config", "testing", "runtime",
           "OutOfResources", "CompilationError", "TritonError", "TensorWrapper", "reinterpret", "constexpr_function", "KernelInterface",
           "install_as_triton",
           "must_use_result"]


def version():
    return _tritonc.version()


def cdiv(a, b):
    """Ceiling division (grids: ``cdiv(M, opt.d('TM'))``), Triton's formula:
    inside a kernel too, where `//` truncates toward zero."""
    return (a + b - 1) // b


def next_power_of_2(n):
    """The smallest power of two at least `n` (0 for 0), as Triton's."""
    n = int(n)
    return 1 << (n - 1).bit_length() if n > 0 else 0


def set_allocator(allocator):
    """Triton's hook for the global scratch of device-side tensor descriptors
    (``tl.make_tensor_descriptor``): accepted; tritonc's descriptors need
    none (they lower to addresses and masks, or to tensor maps the launch
    builds)."""
    if allocator is not None and not callable(allocator):
        raise TypeError("set_allocator takes a function (size, alignment, stream) -> tensor, or None")


def shape(x):
    """The shape of a tensor of any supported framework, as a tuple of ints."""
    return tuple(int(d) for d in x.shape)


_C_TYPES = {
    "float32": "float", "float16": "half", "bfloat16": "bf16", "float64": "double",
    "int64": "long", "int32": "int", "int16": "short", "int8": "char", "bool": "bool",
}


def _dtype_name(dt):
    """'float32' for numpy dtypes and scalar types and for torch dtypes; None otherwise."""
    import numpy as np
    if isinstance(dt, type) and issubclass(dt, np.generic):
        return np.dtype(dt).name
    if isinstance(dt, np.dtype):
        return dt.name
    torch = _torch()
    if torch is not None and isinstance(dt, torch.dtype):
        return str(dt).replace("torch.", "")
    return None


def _macro_text(name, v):
    if isinstance(v, (list, tuple)):
        if len(v) == 1:
            return _macro_text(name, v[0])
        return "[" + ", ".join(_macro_text(name, x) for x in v) + "]"
    if isinstance(v, bool):
        return "1" if v else "0"
    n = _dtype_name(v)
    if n is not None:
        if n not in _C_TYPES:
            raise TypeError("macro %s: no Triton-C type for dtype %s" % (name, n))
        return _C_TYPES[n]
    import numbers
    if not isinstance(v, (numbers.Number, str)):
        raise TypeError("macro %s: a number, a string, a dtype or a list of them, not %r" % (name, v))
    return str(v)


def _torch():
    """torch where the program has imported it, else None. An object can be
    a torch tensor or dtype only then, and importing torch here cost every
    first call with numpy arrays a second or more (1.3 s of a 1.3 s cold
    compile on a CPU host)."""
    return sys.modules.get("torch")


def empty(shape_, dtype, like=None, device=None):
    """A new uninitialized tensor in the framework of ``like`` (numpy by default)."""
    torch = _torch()
    if torch is not None and (isinstance(like, torch.Tensor) or isinstance(dtype, torch.dtype)):
        dev = device if device is not None else (like.device if isinstance(like, torch.Tensor) else "cpu")
        return torch.empty(list(shape_), dtype=dtype, device=dev)
    import numpy as np
    return np.empty(list(shape_), dtype=dtype)


def _host_view(address, shape, byte_strides, itemsize, writable, where):
    """(kind, address, bytes) of host memory: a contiguous array's bytes, or
    a strided view's span from its first element (the kernel gets that
    address and indexes by the strides it is given, as on the GPU); the
    binding copies it and gives back only the bytes the kernel changed."""
    if 0 in shape:
        return (0 if writable else 2, address, 0)
    if any(s < 0 for s in byte_strides):
        raise ValueError("%s: views with negative strides are not supported (use a copy)" % where)
    span = sum((d - 1) * s for d, s in zip(shape, byte_strides)) + itemsize
    contiguous = span == itemsize * math.prod(int(d) for d in shape)
    return ((0 if writable else 2) if contiguous else (3 if writable else 4), address, span)


def _argument(x, where, gpu_target=False):
    """(launch argument, on the device?) for one argument: an int, a float, or
    (0 host / 1 device / 2 read-only host, address, bytes). `gpu_target`: the
    kernel runs on the GPU (a bare address is then a GPU one)."""
    import numpy as np
    from .tensor_wrapper import TensorWrapper
    if isinstance(x, TensorWrapper):
        x = x.base  # the same memory, another element type (the kernel's business)
    if isinstance(x, (bool, np.bool_)):
        return int(x), False
    if isinstance(x, (int, np.integer)):
        v = int(x)
        if not -2**63 <= v < 2**64:
            raise ValueError("%s: the integer %d does not fit in 64 bits" % (where, v))
        return (v - 2**64 if v >= 2**63 else v), False  # a uint64 passes its bits
    if isinstance(x, (float, np.floating)):
        return float(x), False
    if isinstance(x, np.ndarray):
        if x.flags["C_CONTIGUOUS"]:
            return (0 if x.flags.writeable else 2, x.__array_interface__["data"][0], x.nbytes), False
        return _host_view(x.__array_interface__["data"][0], x.shape, x.strides, x.itemsize, x.flags.writeable,
                          where), False
    torch = _torch()
    if torch is not None and isinstance(x, torch.Tensor):
        if x.is_cuda:
            if x.get_device() != 0:
                raise ValueError("%s: the tensor is on %s; tritonc runs kernels on CUDA device 0 only" % (where, x.device))
            # The kernel gets the data pointer, whatever the strides (they are
            # the kernel's business); it may reach up to the storage's end.
            storage = x.untyped_storage() if hasattr(x, "untyped_storage") else x.storage()
            return (1, x.data_ptr(), storage.nbytes() - x.storage_offset() * x.element_size()), True
        if x.is_contiguous():  # copied: numel elements from the data pointer
            return (0, x.data_ptr(), x.numel() * x.element_size()), False
        kind, address, span = _host_view(x.data_ptr(), tuple(x.shape), tuple(s * x.element_size() for s in x.stride()),
                                         x.element_size(), True, where)
        # A strided view (as_strided, stride 0 included) may be indexed with
        # strides other than its own: the kernel may reach the storage's end,
        # as on the GPU (the changed bytes alone are given back).
        storage = x.untyped_storage() if hasattr(x, "untyped_storage") else x.storage()
        end = storage.nbytes() - x.storage_offset() * x.element_size()
        return (kind, address, max(span, end) if kind in (3, 4) else span), False
    cai = getattr(x, "__cuda_array_interface__", None)
    if cai is not None:
        itemsize = np.dtype(cai["typestr"]).itemsize
        shape = [int(d) for d in cai["shape"]]
        strides = cai.get("strides") or [itemsize * int(np.prod(shape[i + 1:], dtype=np.int64)) for i in range(len(shape))]
        if any(s < 0 for s in strides):
            raise ValueError("%s: __cuda_array_interface__ arrays with negative strides are not supported" % where)
        span = 0 if 0 in shape else sum((d - 1) * s for d, s in zip(shape, strides)) + itemsize
        return (1, int(cai["data"][0]), span), True
    if hasattr(x, "__dlpack__"):
        try:
            device_type, device_id, address, nbytes, contiguous, span = _tritonc.dlpack_info(x)
        except TypeError:
            raise TypeError("%s: the %s's DLPack tensor cannot be read (its dtype or layout)" % (where, type(x).__name__))
        if device_type == 1:  # CPU: copied, numel elements from the address
            if not contiguous:
                raise ValueError("%s: the DLPack tensor is not contiguous" % where)
            return (0, address, nbytes), False
        if device_type == 2 and device_id == 0:  # CUDA: the address, any strides
            if span < 0:
                raise ValueError("%s: DLPack tensors with negative strides are not supported" % where)
            return (1, address, span), True
        raise TypeError("%s: a DLPack tensor on device (%d, %d); tritonc takes the CPU and CUDA device 0"
                        % (where, device_type, device_id))
    if callable(getattr(x, "data_ptr", None)) and hasattr(x, "dtype"):
        # As Triton: any object with data_ptr() and dtype is a pointer (libraries
        # pass views of their own). On the GPU its address alone; on the host the
        # span its shape and strides cover, where it gives them.
        address = int(x.data_ptr())
        if str(getattr(x, "device", "")).startswith("cuda"):
            return (1, address, 0), True
        shape, stride = getattr(x, "shape", None), getattr(x, "stride", None)
        size = getattr(x, "element_size", None)
        if shape is not None and callable(stride) and callable(size):
            dims, steps = tuple(int(d) for d in shape), tuple(int(s) for s in stride())
            if any(s < 0 for s in steps):
                raise ValueError("%s: a %s with negative strides" % (where, type(x).__name__))
            span = 0 if 0 in dims else (sum((d - 1) * s for d, s in zip(dims, steps)) + 1) * int(size())
            return (0, address, span), False
        if not hasattr(x, "device") and gpu_target:
            # A bare typed address (FlagGems' TypedPtr) to a kernel compiled for the GPU: as Triton, a GPU address
            return (1, address, 0), True
        raise TypeError("%s: a %s on the host gives no shape, stride() and element_size(): the memory a kernel may "
                        "reach is unknown" % (where, type(x).__name__))
    raise TypeError("%s: cannot pass a %s to a kernel (expected a number, a numpy array, a torch tensor, "
                    "an object with __dlpack__ / __cuda_array_interface__, or with data_ptr() and dtype)"
                    % (where, type(x).__name__))


# Element types of arrays as the IR names them; unsigned integers pass for
# the signed ones of their width.
_IR_ELEMENT = {
    "float32": "f32", "float16": "f16", "bfloat16": "bf16", "float64": "f64", "bool": "i1",
    "int64": "i64", "uint64": "i64", "int32": "i32", "uint32": "i32", "int16": "i16", "uint16": "i16",
    "int8": "i8", "uint8": "i8", "float8_e4m3fn": "f8e4m3", "float8_e5m2": "f8e5m2",
}


def _element_type(x):
    """The IR name of the elements of an array or tensor argument, when known."""
    import numpy as np
    dt = getattr(x, "dtype", None)
    name = _dtype_name(dt) if dt is not None else None
    if name is None and hasattr(x, "__cuda_array_interface__"):
        name = np.dtype(x.__cuda_array_interface__["typestr"]).name
    return _IR_ELEMENT.get(name) if name else None


def _check_element_types(args, params, kernel_name):
    for n, (x, (pname, is_ptr, dtype)) in enumerate(zip(args, params)):
        found = _element_type(x) if is_ptr else None
        if found is not None and found != dtype:
            raise TypeError("argument %d ('%s') holds %s elements, but kernel '%s' takes %s* there "
                            "(does a TYPE macro match the tensors?)" % (n, pname, found, kernel_name, dtype))


class kernel(_tritonc.Launcher):
    """A Triton-C kernel callable as ``k(arg1, ..., argN, grid, **macros)``.

    ``outputs`` names the pointer parameters the call returns (in order).
    Macros are keyword arguments; a list is a tuning list (the first call for
    new integer arguments times every configuration), a dtype becomes its
    Triton-C type name. ``num_warps`` / ``num_stages`` may be ints or lists.

    ``cache_must_hit=True`` makes a call that would compile (a miss of the
    memory and disk caches) raise ``tritonc.Error`` naming the key, as
    ``TRITONC_CACHE_MUST_HIT=1`` does; ``TRITONC_LOG_COMPILES=1`` prints a
    line per compile saying what changed since the kernel's closest earlier
    compile (an argument's alignment or divisibility, a dtype, a macro).
    ``allow_tf32=True`` lets f32 dots run on the tensor cores with tf32
    inputs (10-bit mantissas), as the CLI's ``--allow-tf32``: on sm_90a
    on wgmma where both operands are loaded K-contiguous, else mma.sync.

    Calling goes to the C++ base class first: a call like one made before
    with CUDA tensors is launched there without running Python code; any
    other call comes to ``_call_slow`` below.
    """

    def __init__(self, src, outputs=(), cache_dir="", verbose=False, filename="<python>", target="auto",
                 cache_must_hit=False, allow_tf32=False):
        super().__init__()
        self.allow_tf32 = bool(allow_tf32)
        self.src = src
        self.outputs = list(outputs)
        self.cache_dir = cache_dir
        self.verbose = verbose
        self.filename = filename
        self.target = target  # "auto" (the GPU for device tensors, else the best present), "interp", "cpu", "gpu"
        # A compile (a miss of the memory and disk caches) raises tritonc.Error naming the key, as
        # TRITONC_CACHE_MUST_HIT=1 does; TRITONC_LOG_COMPILES=1 prints a line per compile.
        self.cache_must_hit = cache_must_hit
        self._compiled = {}
        self._by_call = {}  # (macro items as given, on device) -> compiled kernel: the launch path

    def _kernel_for(self, macros, on_device):
        warps = macros.pop("num_warps", [4])
        stages = macros.pop("num_stages", [3])
        warps = list(warps) if isinstance(warps, (list, tuple)) else [int(warps)]
        stages = list(stages) if isinstance(stages, (list, tuple)) else [int(stages)]
        defines = [(str(k), _macro_text(k, v)) for k, v in sorted(macros.items())]
        target = "gpu" if on_device else self.target
        key = (tuple(defines), tuple(warps), tuple(stages), target)
        k = self._compiled.get(key)
        if k is None:
            k = _tritonc.Kernel(self.src, defines, warps, stages, target, "", self.cache_dir, self.filename, [],
                                self.verbose, self.cache_must_hit, allow_tf32=self.allow_tf32)
            self._compiled[key] = k
        return k

    def _call_slow(self, *args, grid=None, **macros):
        if grid is None and args and (callable(args[-1]) or isinstance(args[-1], (tuple, list))):
            args, grid = args[:-1], args[-1]
        if grid is None:
            raise TypeError("a kernel call needs a grid: a tuple, or a function of the options (opt.d('TM'))")
        if isinstance(grid, list):
            grid = tuple(grid)
        if not callable(grid):
            grid = tuple(int(g) for g in grid)
        converted, on_device = [], False
        for n, x in enumerate(args):
            a, dev = _argument(x, "argument %d" % n)
            converted.append(a)
            on_device = on_device or dev
        # Types in the key: 2, 2.0 and True hash alike but are different macros.
        call_key = (tuple((n, type(v), v) for n, v in macros.items()), on_device)
        try:
            k = self._by_call.get(call_key)
        except TypeError:  # unhashable macro values (lists): the slower path
            k, call_key = None, None
        if k is None:
            k = self._kernel_for(dict(macros), on_device)
            if call_key is not None:
                self._by_call[call_key] = k
        stream = 0
        if on_device:
            torch = _torch()
            if torch is not None and torch.cuda.is_available():
                stream = torch.cuda.current_stream().cuda_stream
        params = k.params()
        _check_element_types(args, params, k.name)
        names = [p[0] for p in params]
        for o in self.outputs:
            if o not in names:
                raise ValueError("output '%s' is not a parameter of kernel '%s' (%s)" % (o, k.name, ", ".join(names)))
        outputs = [names.index(o) for o in self.outputs]
        k.launch(converted, grid, stream)
        if on_device:
            # The fast path checks each tensor's dtype against this call's.
            self._remember(macros, k, outputs, [getattr(x, "dtype", None) for x in args])
        if not outputs:
            return None
        return args[outputs[0]] if len(outputs) == 1 else tuple(args[i] for i in outputs)


    def report(self, *args, num_warps=4, num_stages=3, target="sm_90a", allow_tf32=None, json=False, **macros):
        """The compile report of one configuration: the source with what the
        compiler decided beside each line (vector widths, asynchronous copies
        and their stages, the instruction of each dot, conversions through
        shared memory), then registers, spills, shared memory and occupancy
        (ptxas -v where the CUDA toolkit is installed), and warnings. Integer
        arguments given positionally (tensors may stand in the other places)
        specialize it as a launch with them would be; a macro list takes its
        first value. ``json=True`` returns JSON text."""
        defines = [(str(k), _macro_text(k, v[0] if isinstance(v, (list, tuple)) else v))
                   for k, v in sorted(macros.items())]
        ints = []
        if args:
            params = _tritonc.Kernel(self.src, defines, [int(num_warps)], [int(num_stages)], "interp", "", "none",
                                     self.filename, [], False).params()
            for (name, is_ptr, _), a in zip(params, args):
                if not is_ptr and isinstance(a, int) and not isinstance(a, bool):
                    ints.append((name, int(a)))
        tf32 = self.allow_tf32 if allow_tf32 is None else bool(allow_tf32)
        return _tritonc.compile_report(self.src, defines, int(num_warps), int(num_stages), target, tf32,
                                       ints, self.filename, bool(json))

    def config_of(self, *args, **macros):
        """The configuration that calls with these arguments and macros run
        (the tuner's choice), as text ("TM=64 TN=128 num_warps=4
        num_stages=3"); None before the first such call."""
        converted, on_device = [], False
        for n, x in enumerate(args):
            a, dev = _argument(x, "argument %d" % n)
            converted.append(a)
            on_device = on_device or dev
        return self._kernel_for(dict(macros), on_device).chosen(converted)


class loaded_kernel(kernel):
    """A kernel compiled ahead of time (``tritonc compile``), from a .tck file:
    called like ``tritonc.kernel`` objects, ``k(arg1, ..., argN, grid,
    **macros)``, without a compiler. Macros choose among the file's
    configurations (a list: any of those; a dtype becomes its Triton-C type
    name), as do ``num_warps`` and ``num_stages``; several left are tuned on
    the first call for new integer arguments. A launch runs the most
    specialized code whose assumptions (aligned pointers, divisible integers)
    its arguments meet; when there is none, or no configuration matches,
    ``tritonc.Error`` names what the file holds."""

    def __init__(self, path, outputs=(), target="auto", verbose=False):
        super().__init__(None, outputs=outputs, verbose=verbose, filename=str(path), target=target)
        self.path = str(path)
        # Loading checks the file now (tritonc.Error when it is missing or damaged).
        self._kernel_for({}, False)

    def _kernel_for(self, macros, on_device):
        warps = macros.pop("num_warps", [])
        stages = macros.pop("num_stages", [])
        warps = list(warps) if isinstance(warps, (list, tuple)) else [int(warps)]
        stages = list(stages) if isinstance(stages, (list, tuple)) else [int(stages)]
        defines = [(str(k), _macro_text(k, v)) for k, v in sorted(macros.items())]
        target = "gpu" if on_device else self.target
        key = (tuple(defines), tuple(warps), tuple(stages), target)
        k = self._compiled.get(key)
        if k is None:
            k = _tritonc.load(self.path, defines, warps, stages, target, "", [], self.verbose)
            self._compiled[key] = k
        return k

    def report(self, *args, **kwargs):
        raise Error("a kernel loaded from %s has no compile report (it was compiled ahead of time); "
                    "ask for one with the source: tritonc emit FILE.tc --stage report" % self.path)


def load(path, outputs=(), target="auto", verbose=False):
    """The kernel of a .tck file (``tritonc compile KERNEL.tc ... -o KERNEL.tck``),
    callable as ``k(arg1, ..., argN, grid, **macros)`` (see ``loaded_kernel``).
    ``target``: "auto" (the GPU for device tensors or when the file has code
    for it, else the CPU, else the interpreter), "gpu", "cpu", "interp"."""
    return loaded_kernel(path, outputs=outputs, target=target, verbose=verbose)


class _MacroValues(dict):
    def __missing__(self, name):
        raise KeyError("no macro or tuning parameter '%s'" % name)


class Options:
    """What a grid function receives: ``opt.d('TM')`` is the value of a macro
    or tuning parameter in this configuration (an int when it reads as one),
    ``opt.num_warps`` and ``opt.num_stages`` its launch options. Made once per
    configuration: ``d`` is a plain dict lookup, cheap on every launch."""

    __slots__ = ("d", "num_warps", "num_stages", "_config")

    def __init__(self, config):
        values = _MacroValues(config._values())
        self.d = values.__getitem__
        self.num_warps = values["num_warps"]
        self.num_stages = values["num_stages"]
        self._config = config

    def __repr__(self):
        return "Options(%s)" % repr(self._config)[len("Config("):-1]


class _Context:
    """The context of a tritonc.function without an autograd framework."""

    def save_for_backward(self, *tensors):
        self.saved_tensors = tensors


class function:
    """A differentiable operation: subclass with static ``forward(ctx, ...)``
    and ``backward(ctx, dy)``; call ``.apply(...)``. With PyTorch tensors it is
    a torch.autograd.Function; otherwise forward runs without a tape."""

    _torch_function = None

    @classmethod
    def apply(cls, *args):
        torch = _torch()
        if torch is not None and any(isinstance(a, torch.Tensor) for a in args):
            if cls.__dict__.get("_torch_function") is None:
                cls._torch_function = type(cls.__name__, (torch.autograd.Function,), {
                    "forward": staticmethod(cls.forward),
                    "backward": staticmethod(cls.backward),
                })
            return cls._torch_function.apply(*args)
        return cls.forward(_Context(), *args)


from . import ops  # noqa: E402  (ops uses kernel and function)

from .jit import JITFunction, KernelInterface, constexpr_function, jit, must_use_result  # noqa: E402
from . import language  # noqa: E402
from .autotuner import Config, autotune, heuristics  # noqa: E402
from . import testing  # noqa: E402
from . import runtime  # noqa: E402
from . import knobs  # noqa: E402  (triton.knobs)
from .runtime import OutOfResources  # noqa: E402
from .codegen import CompilationError  # noqa: E402  (Triton's triton.CompilationError)
from .language.core import TritonError  # noqa: E402  (the base of Triton's errors)
from . import compiler  # noqa: E402  (triton.compiler.CompilationError)
from .compiler import compile  # noqa: E402,A001  (Triton's triton.compile of an ASTSource)

__version__ = _tritonc.version().split()[1]  # "0.2"
from .tensor_wrapper import TensorWrapper, reinterpret  # noqa: E402
from .triton_alias import install_as_triton  # noqa: E402
