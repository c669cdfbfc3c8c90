"""``@tritonc.jit``: kernels in the Python DSL of Triton 3.x.

``kernel[grid](args..., BLOCK=128, num_warps=4, num_stages=3)`` compiles the
kernel for the constexpr values and argument types of the call (the Python
AST becomes Triton-IR through the C++ builder, codegen.py) and launches it:
torch CUDA tensors on the GPU on the current stream; numpy arrays and CPU
tensors on the CPU back end where it is built, else on the interpreter
(``TRITONC_INTERPRET=1`` forces the interpreter, the checked debug mode).
Integers' divisibility and pointers' alignment specialize the compiled code
in the runtime, whose memory and disk caches keep it.
"""
import ast
import inspect
import numbers
import os
import re
import textwrap
import types

from . import _tritonc, knobs
from . import language as tl
from .language import core, semantic
from .language.core import constexpr
from .tensor_wrapper import TensorWrapper
from .tools.tensor_descriptor import TensorDescriptor

# Element types of arrays by dtype name.
_ARRAY_TYPES = {
    "float32": tl.float32, "float16": tl.float16, "bfloat16": tl.bfloat16, "float64": tl.float64,
    "float8_e4m3fn": tl.float8e4nv, "float8_e5m2": tl.float8e5,
    "int64": tl.int64, "int32": tl.int32, "int16": tl.int16, "int8": tl.int8, "bool": tl.int1,
    "uint64": tl.uint64, "uint32": tl.uint32, "uint16": tl.uint16, "uint8": tl.uint8,
}


def constexpr_function(fn):
    """Triton's ``@triton.constexpr_function``: `fn`, called in a kernel on
    constexpr arguments, runs in Python while the kernel compiles and its
    result is a compile-time value (any plain Python function a kernel calls
    runs so here; this marks it as Triton requires)."""
    import functools

    @functools.wraps(fn)
    def call(*args, **kwargs):
        return fn(*[core.unwrap(a) for a in args], **{k: core.unwrap(v) for k, v in kwargs.items()})
    call.__tritonc_constexpr_function__ = True
    return call


def must_use_result(x, s=True):
    """Triton's ``@triton.must_use_result``: marks a @jit function whose
    result a caller must use (Triton then refuses a call whose result is
    dropped; here the mark is kept and not checked). With a message,
    ``@triton.must_use_result("why")``."""
    if isinstance(x, str):
        return lambda fn: must_use_result(fn, x)
    x._must_use_result = s
    return x


def _python_scalar(v):
    """A numpy scalar given for a constexpr as the Python number it holds
    (BLOCK=np.int64(8) is 8; Triton refuses it)."""
    if type(v).__module__ == "numpy" and hasattr(v, "item") and getattr(v, "shape", None) == ():
        return v.item()
    return v


def _is_constexpr_annotation(a):
    if a is constexpr or a is tl.constexpr:
        return True
    return isinstance(a, str) and a.split(".")[-1] == "constexpr"


def _is_const_annotation(a):
    if a is tl.const:
        return True
    return isinstance(a, str) and a.strip().split(".")[-1] == "const"


def _annotated_dtype(a):
    """The dtype an annotation names: `tl.int64`, or the string "tl.int64"
    that `from __future__ import annotations` makes of it (Triton reads both);
    None for anything else."""
    if isinstance(a, str):
        a = getattr(tl, a.strip().split(".")[-1], None)
    return a if isinstance(a, core.dtype) else None


def _array_dtype(x):
    from . import _dtype_name
    if isinstance(x, TensorWrapper):
        return x.dtype
    name = _dtype_name(getattr(x, "dtype", None))
    if name is None and hasattr(x, "__cuda_array_interface__"):
        import numpy as np
        name = np.dtype(x.__cuda_array_interface__["typestr"]).name
    if name is None:
        return None
    t = _ARRAY_TYPES.get(name)
    if t is None:
        raise TypeError("arrays of %s cannot be passed to a tritonc.jit kernel (it takes bool, int8-64, uint8-64, "
                        "float8_e4m3fn, float8_e5m2, float16, bfloat16, float32 and float64; "
                        "tritonc.reinterpret(x, dtype) passes other bytes)" % name)
    return t


def _is_array(x):
    import numpy as np
    if isinstance(x, np.generic):  # numpy scalars (np.int64(8), np.float32(...)) are numbers
        return False
    return hasattr(x, "data_ptr") or hasattr(x, "__array_interface__") or \
        hasattr(x, "__cuda_array_interface__") or hasattr(x, "__dlpack__")


class _MockTensor:
    """What a torch dtype given to `warmup` for a tensor argument stands for
    (Triton's MockTensor): a tensor of that type at address 0, on the GPU
    where torch has one."""

    def __init__(self, dtype):
        import torch
        self.dtype, self.is_cuda = dtype, torch.cuda.is_available()

    @staticmethod
    def wrap(v):
        t = type(v)
        return _MockTensor(v) if t.__module__ == "torch" and t.__name__ == "dtype" else v

    def data_ptr(self):
        return 0


def _runtime_type(x):
    """The kernel parameter type for a runtime argument; None for arguments
    that are constexprs by nature (None, dtypes, strings, @jit functions,
    which Triton passes as constexprs too)."""
    if x is None or isinstance(x, (core.dtype, str, constexpr, JITFunction)):
        return None
    if isinstance(x, int) and not isinstance(x, bool):
        # Triton's parameter types: i32 where it fits, u64 from 2^63, else i64.
        if -2**31 <= x < 2**31:
            return tl.int32
        if 2**63 <= x < 2**64:
            return tl.uint64
        if -2**63 <= x < 2**63:
            return tl.int64
        raise OverflowError("the integer %d does not fit in 64 bits (an argument of a kernel)" % x)
    if isinstance(x, bool):
        return tl.int1
    if isinstance(x, float):
        return tl.float32  # as Triton passes any float
    if _is_array(x):
        t = _array_dtype(x)
        if t is None:
            raise TypeError("cannot tell the element type of a %s" % type(x).__name__)
        return tl.pointer_type(t)
    import numpy as np
    if isinstance(x, np.bool_):
        return tl.int1
    if isinstance(x, np.integer):
        return _runtime_type(int(x))
    if isinstance(x, np.floating):
        return tl.float32
    raise TypeError("cannot pass a %s to a kernel" % type(x).__name__)


_UNSET = object()  # a launch option not given


class DescriptorSpec:
    """A TensorDescriptor argument as the kernel is compiled for it: its
    runtime parameters (the base pointer, then each size and stride, as
    integers) and its constant parts (element type, block shape, padding)."""

    def __init__(self, name, desc):
        elem = _array_dtype(desc.base)
        if elem is None:
            raise TypeError("cannot tell the element type of the base of descriptor '%s'" % name)
        self.name, self.elem = name, elem
        self.block_shape, self.padding = tuple(int(b) for b in desc.block_shape), desc.padding
        n = len(self.block_shape)
        self.params = [(name + "__base", tl.pointer_type(elem))]
        self.params += [("%s__shape%d" % (name, d), _runtime_type(int(desc.shape[d]))) for d in range(n)]
        self.params += [("%s__stride%d" % (name, d), _runtime_type(int(desc.strides[d]))) for d in range(n)]
        self.key = (elem.name, self.block_shape, self.padding, tuple(t.name for _, t in self.params[1:]))

    @staticmethod
    def values(name, desc):
        """The runtime values of the parameters, by name."""
        n = len(desc.block_shape)
        out = {name + "__base": _span_of_host_view(desc.base, "descriptor '%s'" % name)}
        out.update({"%s__shape%d" % (name, d): int(desc.shape[d]) for d in range(n)})
        out.update({"%s__stride%d" % (name, d): int(desc.strides[d]) for d in range(n)})
        return out


def _span_of_host_view(x, what):
    """A strided numpy view (a descriptor's base: its strides are the
    descriptor's business, as on the GPU) as the 1-D array over the same
    memory from its first element to its last, which host launches copy in
    and back; anything else as it is."""
    import numpy as np
    if not isinstance(x, np.ndarray) or x.flags["C_CONTIGUOUS"] or x.size == 0:
        return x
    if any(s < 0 for s in x.strides):
        raise ValueError("%s: the base array has negative strides (use np.ascontiguousarray)" % what)
    if any(s % x.itemsize for s in x.strides):
        raise ValueError("%s: the base array's strides are not whole elements" % what)
    span = sum((d - 1) * s for d, s in zip(x.shape, x.strides)) // x.itemsize + 1
    return np.lib.stride_tricks.as_strided(x, shape=(span,), strides=(x.itemsize,), writeable=x.flags.writeable)


class _Param:
    """A tuple's leaf passed as the runtime parameter `name`."""
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


class TupleSpec:
    """A tuple argument (Triton 3.x passes tuples, nested too) as the kernel
    is compiled for it: each leaf that is a runtime value (an array, a
    number) becomes a parameter NAME__0, NAME__1__0, ...; the others (None,
    dtypes, strings) are constants. In the kernel the name is the tuple (a
    named tuple stays one of its class)."""

    def __init__(self, name, value):
        self.name, self.params = name, []
        self.structure = self._walk(name, value)
        self.key = self._key(self.structure)

    def _walk(self, prefix, v):
        if isinstance(v, tuple):
            from .codegen import _like_tuple
            return _like_tuple(v, (self._walk("%s__%d" % (prefix, i), x) for i, x in enumerate(v)))
        if isinstance(v, TensorDescriptor):
            raise TypeError("a TensorDescriptor inside a tuple argument is not supported; pass it on its own")
        t = _runtime_type(v)
        if t is None:
            return constexpr(core.unwrap(v))
        self.params.append((prefix, t))
        return _Param(prefix)

    def _key(self, s):
        if isinstance(s, tuple):
            kind = type(s)
            return ("tuple", None if kind is tuple else (kind.__module__, kind.__qualname__, id(kind))) + \
                tuple(self._key(x) for x in s)
        if isinstance(s, _Param):
            return ("r", dict(self.params)[s.name].name)
        return ("c", type(s.value).__name__, s.value if _hashable(s.value) else repr(s.value))

    def build(self, handles, s=None):
        """The tuple in the kernel: parameters' tensors from `handles`."""
        s = self.structure if s is None else s
        if isinstance(s, tuple):
            from .codegen import _like_tuple
            return _like_tuple(s, (self.build(handles, x) for x in s))
        return handles[s.name] if isinstance(s, _Param) else s

    @staticmethod
    def values(name, v):
        """The runtime values of the leaves, by parameter name."""
        out = {}
        if isinstance(v, tuple):
            for i, x in enumerate(v):
                out.update(TupleSpec.values("%s__%d" % (name, i), x))
        elif _runtime_type(v) is not None:
            out[name] = v
        return out


def _leaves(v):
    """The values inside (nested) tuple arguments, and others as they are."""
    if isinstance(v, tuple):
        return [x for e in v for x in _leaves(e)]
    return [v]


def _by_name(arg_names, values):
    """Arguments by parameter name, the parts of TensorDescriptors and the
    leaves of tuples included."""
    out = dict(zip(arg_names, values))
    for name, v in zip(arg_names, values):
        if isinstance(v, TensorDescriptor):
            out.update(DescriptorSpec.values(name, v))
        elif isinstance(v, tuple):
            out.update(TupleSpec.values(name, v))
    return out


def _check_num_ctas(num_ctas):
    if isinstance(num_ctas, bool) or num_ctas not in (1, 2, 4):
        raise ValueError("num_ctas must be 1, 2 or 4 (2: clusters of two programs sharing tensor copies along x; "
                         "4: of 2 x 2, along y too), not %r" % (num_ctas,))
    return int(num_ctas)


def _config_defines(options):
    """num_ctas, enable_fp_fusion, enable_reflect_ftz and maxnreg as the
    runtime takes them (configuration macros, given where they differ from
    the defaults: 1, fusion on, ftz on, no register cap)."""
    n = _check_num_ctas(options["num_ctas"])
    return ([] if n == 1 else [("num_ctas", str(n))]) + \
        ([] if options["enable_fp_fusion"] else [("enable_fp_fusion", "0")]) + \
        ([] if options["enable_reflect_ftz"] else [("enable_reflect_ftz", "0")]) + \
        ([] if options["maxnreg"] is None else [("maxnreg", str(options["maxnreg"]))])


class LaunchOptionError(ValueError, AssertionError):
    """A launch option out of its range (a ValueError; also an
    AssertionError, which Triton raises for num_warps)."""


def _check_maxnreg(maxnreg):
    """Triton's maxnreg: None, or a thread's registers at most (1 to 255)."""
    if maxnreg is None:
        return None
    if isinstance(maxnreg, bool) or not isinstance(maxnreg, numbers.Integral) or not 1 <= maxnreg <= 255:
        raise ValueError("maxnreg must be a number of registers from 1 to 255, not %r" % (maxnreg,))
    return int(maxnreg)


def _fp_fusion(enable_fp_fusion):
    """Triton's enable_fp_fusion: the launch's, else knobs.language.default_fp_fusion
    (TRITON_DEFAULT_FP_FUSION, on by default)."""
    return bool(knobs.language.default_fp_fusion if enable_fp_fusion is None else enable_fp_fusion)


class CompiledKernel:
    """One compiled specialization. ``asm['ttir']`` is its Triton-IR as the
    front end built it (before the optimizer); ``asm['ptx']`` the PTX for
    ``$TRITONC_ARCH`` (default sm_90a) with the warm-up's arguments'
    specialization, or those of its launch on the GPU, compiled on first use
    (no GPU needed); ``asm['ttgir']`` the GPU IR that PTX was lowered from."""

    def __init__(self, jf, ir, kernel, params, options, args=None):
        self.jf, self.ir, self.kernel, self.params, self.options = jf, ir, kernel, params, options
        self.used_globals = []  # (globals dict, name, value) the kernel was compiled with
        self.target = None  # "gpu", "cpu" or "interp", where compile_for made it
        self.asm = _Asm(self, args)
        self.name = jf.__name__
        self.arch = None  # asm's GPU architecture (None: $TRITONC_ARCH, else sm_90a)
        self._args = args
        self._resources = None

    # What Triton's CompiledKernel tells host code that sizes grids by
    # occupancy (the fused-softmax tutorial): registers, spills and shared
    # memory of the code for $TRITONC_ARCH, from the compile report (ptxas -v
    # where installed, else 0).
    def _init_handles(self):
        pass

    def _resource(self, key):
        if self._resources is None:
            import json
            try:
                self._resources = json.loads(self.report(json=True)).get("resources", {})
            except Exception:  # no arguments to compile the report with, or no ptxas
                self._resources = {}
        return int(self._resources.get(key, 0))

    @property
    def n_regs(self):
        return self._resource("registers")

    @property
    def n_spills(self):
        return self._resource("spill_stores")

    def local_bytes(self):
        """Bytes of local memory per thread (spilled registers) of this code
        as the driver loaded it for its last launch from Python on the GPU;
        -1 where it has not been launched there (autotune skips spilling
        configurations, as the runtime's tuner does)."""
        launched = getattr(self, "_launched", None)
        return -1 if launched is None else int(self.kernel.local_bytes(launched))

    @property
    def metadata(self):
        return types.SimpleNamespace(shared=self._resource("shared_bytes"), name=self.name, **self.options)

    def __getitem__(self, grid):
        """``compiled[grid](*args)``: launches this kernel with every argument
        of the function, constexprs included, as Triton's compiled kernels
        are called."""
        def launch(*args, stream=None, **kwargs):  # (the current stream is taken, as every launch does)
            values = self.jf.bind(args, kwargs)
            return self.jf.run(*values, grid=grid, num_warps=self.options["num_warps"],
                               num_stages=self.options["num_stages"], num_ctas=self.options["num_ctas"],
                               enable_fp_fusion=self.options["enable_fp_fusion"],
                               enable_reflect_ftz=self.options["enable_reflect_ftz"],
                               maxnreg=self.options["maxnreg"])
        return launch

    def report(self, json=False):
        """The compile report for ``$TRITONC_ARCH`` (default sm_90a), as
        ``tritonc emit FILE.py:KERNEL --stage report`` prints it: what the
        compiler did beside the kernel's lines of its Python file (copies and
        their rings, each dot's instruction, store widths, conversions), then
        registers, spills, shared memory, occupancy and warnings; ``json``:
        the same as JSON. Integer arguments of the warm-up specialize it as a
        launch would; no GPU needed (ptxas, where installed, gives the
        registers)."""
        if self._args is None:
            raise RuntimeError("a report needs the arguments: kernel.warmup(...).report()")
        ints = [(name, int(v)) for (name, t), v in zip(self.params, self._args)
                if t.is_int() and not isinstance(v, bool)]
        try:  # the kernel's own lines of its file, decorators included
            lines, first = inspect.getsourcelines(self.jf.fn)
            last = first + len(lines) - 1
            with open(self.jf.file_name) as f:
                shown = f.read()
        except (OSError, TypeError):
            shown, first, last = "", 0, 0
        return _tritonc.compile_report(self.ir, _config_defines(self.options), self.options["num_warps"],
                                       self.options["num_stages"], os.environ.get("TRITONC_ARCH", "sm_90a"),
                                       self.options["allow_tf32"], ints, self.jf.file_name, bool(json),
                                       "triton-ir", shown, first, last)


class _Asm(dict):
    def __init__(self, compiled, args):
        super().__init__(ttir=compiled.ir)
        self._compiled, self._args = compiled, args

    def __missing__(self, key):
        # ptx, and ttgir: the GPU IR it was lowered from (layouts, shared
        # buffers, copies, barriers; docs/GPU_IR.md), not Triton's dialect.
        c = self._compiled
        launched = getattr(c, "_launched", None)  # (the GPU arguments of its launch)
        if key not in ("ptx", "ttgir") or (self._args is None and launched is None):
            raise KeyError(key)
        arch = c.arch or os.environ.get("TRITONC_ARCH", "sm_90a")
        k = _tritonc.Kernel(c.ir, _config_defines(c.options), [c.options["num_warps"]],
                            [c.options["num_stages"]], arch, "", "none",
                            c.jf.file_name, [], False, False, "triton-ir", "", c.options["allow_tf32"])
        from . import _argument
        args = launched if self._args is None else [_argument(a, "argument", gpu_target=True)[0] for a in self._args]
        self[key] = k.ptx(args) if key == "ptx" else k.gpu_ir(args)
        return self[key]


# Triton's launch options that change nothing here: accepted and dropped,
# unless the kernel has a parameter of that name (launch_pdl: tritonc never
# launches with programmatic dependence, so tl.extra.cuda.gdc_wait has
# nothing to wait for).
_IGNORED_OPTIONS = ("warp_specialize", "launch_cooperative_grid", "launch_pdl",
                    "sanitize_overflow")


def _drop_ignored_options(kwargs, keyword_params):
    for k in _IGNORED_OPTIONS:
        if k not in keyword_params:
            kwargs.pop(k, None)


class KernelInterface:
    """Triton's base of launchable kernels, which libraries subclass for
    wrappers of their own: ``k[grid](...)`` is ``k.run(..., grid=grid,
    warmup=False)``."""

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, warmup=False, **kwargs)


class JITFunction(_tritonc.JitLauncher, KernelInterface):
    """A @jit kernel. ``kernel[grid]`` (the C++ base class) returns a call
    object: a call like one made before with CUDA tensors launches without
    running Python; any other goes to ``run``."""

    def __init__(self, fn, do_not_specialize=(), debug=None, noinline=None, repr=None, launch_metadata=None):
        super().__init__()
        self.fn = fn
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        sig = inspect.signature(fn)
        self.arg_names = list(sig.parameters)
        self.defaults = {n: p.default for n, p in sig.parameters.items() if p.default is not inspect.Parameter.empty}
        self.constexpr_names = {n for n, p in sig.parameters.items() if _is_constexpr_annotation(p.annotation)}
        # `n: tl.int64`: a number passed there has that type (Triton 3.x), not the one its value suggests.
        annotated = {n: _annotated_dtype(p.annotation) for n, p in sig.parameters.items()}
        self.annotated_types = {n: t for n, t in annotated.items() if t is not None and not t.is_ptr()}
        # `p: tl.const`: the pointer passed there is a const pointer_type in the kernel.
        self.const_names = {n for n, p in sig.parameters.items() if _is_const_annotation(p.annotation)}
        self.do_not_specialize = set(do_not_specialize)
        self.debug = debug  # None: TRITONC_DEBUG / TRITON_DEBUG decide (see _debug)
        self.repr = repr  # names each specialization's kernel (Triton's repr=; see _kernel_name)
        self._parsed = None
        self._source_text = None  # (set by _unsafe_update_src)
        self.cache = {}
        try:
            self.file_name = inspect.getsourcefile(fn) or "<unknown>"
        except TypeError:
            self.file_name = "<unknown>"

    def __repr__(self):
        return "JITFunction(%s)" % self.__name__

    @property
    def src(self):
        """The function's source from its `def` line, dedented (Triton's JITFunction.src)."""
        lines = self.parsed()[3]
        first = next((i for i, l in enumerate(lines) if l.lstrip().startswith("def ")), 0)
        return "\n".join(lines[first:])

    @property
    def signature(self):
        """The function's inspect.Signature (Triton's JITFunction.signature)."""
        return inspect.signature(self.fn)

    @property
    def __globals__(self):
        """The function's globals (libraries generating kernels copy them)."""
        return self.fn.__globals__

    @property
    def cache_key(self):
        """A hex digest of the function's source and name and of those of the
        @jit functions and number/string globals it names, as Triton's: it
        changes when the source of the kernel or of a function it calls does
        (libraries name files of generated code by it)."""
        import hashlib
        return hashlib.sha256(self._dependency_text(set()).encode()).hexdigest()

    def _dependency_text(self, seen):
        seen.add(id(self))
        try:
            text = self._source_text or inspect.getsource(self.fn)
        except (OSError, TypeError):
            return self.__module__ + "." + self.__name__
        parts = [self.__module__ + "." + self.__name__ + "\n" + text]
        try:
            tree = ast.parse(textwrap.dedent(text))
        except SyntaxError:
            return parts[0]
        scope = dict(self.fn.__globals__)
        for name, cell in zip(self.fn.__code__.co_freevars, self.fn.__closure__ or ()):
            try:
                scope[name] = cell.cell_contents
            except ValueError:  # (an unbound cell)
                pass
        for name in sorted(_referenced_names(tree)):
            value = _resolve(scope, name)
            if isinstance(value, JITFunction):
                if id(value) not in seen:
                    parts.append("%s: %s" % (name, value._dependency_text(seen)))
            elif isinstance(value, (bool, int, float, str)):
                parts.append("%s = %r" % (name, value))
        return "\n".join(parts)

    @property
    def params(self):
        """The parameters as Triton's KernelParam shows them: num, name,
        is_constexpr, annotation, default (inspect.Parameter.empty where none)."""
        sig = inspect.signature(self.fn)
        return [types.SimpleNamespace(num=i, name=n, is_constexpr=n in self.constexpr_names,
                                      annotation=p.annotation, default=p.default,
                                      do_not_specialize=n in self.do_not_specialize)
                for i, (n, p) in enumerate(sig.parameters.items())]

    def _unsafe_update_src(self, new_src):
        """Compiles ``new_src`` from now on in place of the function's own
        source (Triton's JITFunction._unsafe_update_src, with which its tests
        make kernels from a template): the same parameters and globals, a
        new body; what was compiled before is forgotten. Its lines count
        from the `def` line of the original, as ``src`` gives them."""
        fdef, file_name, first, lines, indent = self.parsed()
        def_line = first + next((i for i, l in enumerate(lines) if l.lstrip().startswith("def ")), 0)
        src = textwrap.dedent(new_src)
        tree = ast.parse(src)
        fdef = next((n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
        if fdef is None:
            raise ValueError("_unsafe_update_src: the new source of '%s' defines no function" % self.__name__)
        self._parsed = (fdef, file_name, def_line, src.splitlines(), indent)
        self._source_text = src
        self.cache.clear()
        self._forget()

    def parsed(self):
        """(the FunctionDef, file, its first line, its lines, the indentation)."""
        if self._parsed is None:
            try:
                lines, first = inspect.getsourcelines(self.fn)
            except (OSError, TypeError):
                raise core.CompileError("the source of kernel '%s' is not available (defined interactively or with "
                                        "exec?): tritonc.jit compiles a function from its source file"
                                        % self.__name__) from None
            indent = len(lines[0]) - len(lines[0].lstrip())
            src = textwrap.dedent("".join(lines))
            tree = ast.parse(src)
            fdef = next(n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
            dedented = src.splitlines()
            self._parsed = (fdef, self.file_name, first, dedented, indent)
        return self._parsed

    def bind(self, args, kwargs):
        if len(args) > len(self.arg_names):
            raise TypeError("%s takes %d arguments, %d given" % (self.__name__, len(self.arg_names), len(args)))
        values = list(args)
        for name in self.arg_names[len(args):]:
            if name in kwargs:
                values.append(kwargs[name])
            elif name in self.defaults:
                values.append(self.defaults[name])
            else:
                raise TypeError("%s() is missing argument '%s'" % (self.__name__, name))
        extra = set(kwargs) - set(self.arg_names)
        if extra:
            # As Triton, which takes them as compile options and drops those it
            # does not know (a library's configuration for another target):
            # ignored, but said once.
            said = self.__dict__.setdefault("_ignored_said", set())
            names = ", ".join(sorted(extra))
            if names not in said:
                said.add(names)
                import warnings
                warnings.warn("%s(): keyword arguments %s are neither parameters nor launch options: ignored, as "
                              "Triton does" % (self.__name__, names), stacklevel=3)
        for name in self.arg_names[:len(args)]:
            if name in kwargs:
                raise TypeError("%s() got argument '%s' twice" % (self.__name__, name))
        return values

    def __call__(self, *args, **kwargs):
        raise RuntimeError("a @tritonc.jit kernel is launched as kernel[grid](...); inside another kernel "
                           "it is called (and inlined) directly")

    # ---- compiling ---------------------------------------------------------------

    def _specialize(self, values):
        """(runtime params [(name, dtype)], constexprs {name: value}, key)."""
        params, constexprs, key = [], {}, []
        for name, v in zip(self.arg_names, values):
            if name in self.constexpr_names:
                v = _python_scalar(core.unwrap(v))
                constexprs[name] = v
                key.append(("c", name, type(v).__name__, v if _hashable(v) else repr(v)))
                continue
            if type(v) is int and v == 1 and name not in self.do_not_specialize:
                # As Triton: an integer equal to 1 is the constant 1 in the kernel (a
                # constexpr computed from it compiles; a unit stride is known).
                constexprs[name] = 1
                key.append(("c", name, "int", 1))
                continue
            if isinstance(v, (TensorDescriptor, tuple)):  # arguments made of several parameters
                spec = DescriptorSpec(name, v) if isinstance(v, TensorDescriptor) else TupleSpec(name, v)
                params.extend(spec.params)
                constexprs[name] = spec
                key.append(("d" if isinstance(v, TensorDescriptor) else "t", name, spec.key))
                continue
            t = _runtime_type(v)
            if t is not None and not t.is_ptr() and name in self.annotated_types:
                t = self.annotated_types[name]
            if t is None:
                constexprs[name] = core.unwrap(v)
                key.append(("c", name, repr(core.unwrap(v))))
            else:
                params.append((name, t))
                key.append(("r", name, t.name))
        return params, constexprs, tuple(key)

    def _target(self, values):
        if knobs.runtime.interpret:  # (TRITONC_INTERPRET=1, or set by code)
            return "interp"
        values = [x for v in values for x in _leaves(v)]
        values = [v.base if isinstance(v, (TensorDescriptor, TensorWrapper)) else v for v in values]
        values = [v.base if isinstance(v, TensorWrapper) else v for v in values]  # a descriptor of a wrapper
        torch = _torch()
        if torch is not None:
            for v in values:
                if isinstance(v, (torch.Tensor, _MockTensor)) and v.is_cuda:
                    return "gpu"
        for v in values:
            if hasattr(v, "__cuda_array_interface__"):
                return "gpu"
            # (a library's own view of a CUDA tensor: data_ptr(), dtype and a
            # CUDA device, as FlagGems' StridedBuffer; passed as its address)
            if callable(getattr(v, "data_ptr", None)) and hasattr(v, "dtype") and \
                    str(getattr(v, "device", "")).startswith("cuda"):
                return "gpu"
        # A bare typed address (data_ptr() and dtype, no device, shape or
        # strides: FlagGems' TypedPtr) is a GPU address, as in Triton, where
        # there is a GPU and no host array is passed beside it.
        # (Checked lazily: host launches of arrays pay one scan.)
        if torch is not None and any(callable(getattr(v, "data_ptr", None)) and hasattr(v, "dtype") and
                                     not hasattr(v, "device") and not hasattr(v, "shape") and
                                     not hasattr(v, "__array_interface__") for v in values) and \
                not any(hasattr(v, "__array_interface__") or isinstance(v, torch.Tensor) and not v.is_cuda
                        for v in values) and torch.cuda.is_available():
            return "gpu"
        return "cpu" if _tritonc.cpu_backend_available() else "interp"

    def _debug(self, debug=None):
        """Whether device assertions are compiled: the launch's ``debug``,
        else the decorator's, else TRITONC_DEBUG or TRITON_DEBUG (off by
        default, as in Triton)."""
        for d in (debug, self.debug):
            if d is not None:
                return bool(d)
        return knobs.runtime.debug or os.environ.get("TRITON_DEBUG", "0") not in ("", "0")

    def compile_for(self, values, num_warps=4, num_stages=3, target=None, cache_dir="", debug=None, num_ctas=1,
                    enable_fp_fusion=None, enable_reflect_ftz=True, maxnreg=None):
        params, constexprs, key = self._specialize(values)
        return self.compile_specialization(params, constexprs, key, target or self._target(values), num_warps,
                                           num_stages, cache_dir, debug, num_ctas, enable_fp_fusion,
                                           enable_reflect_ftz, maxnreg)

    def compile_specialization(self, params, constexprs, key, target, num_warps=4, num_stages=3, cache_dir="",
                               debug=None, num_ctas=1, enable_fp_fusion=None, enable_reflect_ftz=True, maxnreg=None):
        """The CompiledKernel of runtime parameters `params` ([(name, dtype)])
        and constexpr values `constexprs` ({name: value}), cached under `key`
        (what _specialize makes of a launch's arguments, or tritonc.compile of
        an ASTSource)."""
        debug = self._debug(debug)
        if isinstance(num_warps, bool) or not isinstance(num_warps, numbers.Integral) or not 1 <= num_warps <= 32 or \
                num_warps & (num_warps - 1):
            raise LaunchOptionError("num_warps must be a power of 2 from 1 to 32, not %r" % (num_warps,))
        fusion = _fp_fusion(enable_fp_fusion)
        ftz = bool(enable_reflect_ftz)
        maxnreg = _check_maxnreg(maxnreg)
        full_key = (key, int(num_warps), int(num_stages), target, debug, _check_num_ctas(num_ctas), fusion, ftz,
                    maxnreg)
        hit = self.cache.get(full_key)
        if hit is not None:
            return hit
        from .codegen import generate
        used_globals = []
        name = self._kernel_name(params, constexprs)
        ir, precisions = generate(self, params, constexprs, self.file_name, debug, used_globals, name,
                                  num_warps=int(num_warps))
        if {"tf32", "ieee"} <= precisions or "tf32x3" in precisions and len(precisions) > 1:
            raise core.CompileError("%s mixes f32 dots of different input_precision; one kernel takes one" % self.__name__)
        allow_tf32 = "tf32" in precisions
        try:
            with open(self.file_name) as f:
                file_text = f.read()
        except OSError:
            file_text = ""
        options = {"num_warps": int(num_warps), "num_stages": int(num_stages), "allow_tf32": allow_tf32,
                   "num_ctas": int(num_ctas), "enable_fp_fusion": fusion, "enable_reflect_ftz": ftz,
                   "maxnreg": maxnreg}
        k = _tritonc.Kernel(ir, _config_defines(options), [int(num_warps)], [int(num_stages)], target, "", cache_dir,
                            self.file_name, [], False, _must_hit(), "triton-ir", file_text, allow_tf32)
        compiled = CompiledKernel(self, ir, k, params, options)
        compiled.used_globals = used_globals
        compiled.target = target
        compiled.name = name
        self.cache[full_key] = compiled
        return compiled

    def _kernel_name(self, params, constexprs):
        """The compiled kernel's name (in the IR, the PTX, profilers): the
        function's, or what the decorator's `repr` makes of the
        specialization, as Triton: `signature` maps every parameter to its
        type's short name ('i32', '*fp16', 'constexpr'), `constants` the
        compile-time ones (constexprs, integers specialized to 1) to their
        values. Characters other than letters, digits and _ become _."""
        if self.repr is None:
            return self.__name__
        from .language.type_names import type_canonicalisation_dict as canon

        def short(t):
            if t.is_ptr():
                return "*" + ("k" if t.is_const() else "") + short(t.element_ty)
            return canon.get(t.name, t.name)
        signature = {n: short(t) for n, t in params}
        constants = {n: v for n, v in constexprs.items() if not isinstance(v, (DescriptorSpec, TupleSpec))}
        signature.update({n: "constexpr" for n in constants})
        spec = types.SimpleNamespace(signature={n: signature[n] for n in self.arg_names if n in signature},
                                     constants=constants, name=self.__name__)
        text = str(self.repr(spec))
        name = re.sub(r"[^A-Za-z0-9_]", "_", text)
        if not name or name[0].isdigit():
            name = "_" + name
        return name

    def warmup(self, *args, grid=None, num_warps=_UNSET, num_stages=_UNSET, debug=None, num_ctas=_UNSET,
               enable_fp_fusion=_UNSET, enable_reflect_ftz=_UNSET, maxnreg=_UNSET, **kwargs):
        """Compiles without launching; returns the CompiledKernel
        (``.asm['ttir']``, ``.asm['ptx']``)."""
        for option, v in (("num_warps", num_warps), ("num_stages", num_stages), ("num_ctas", num_ctas),
                          ("enable_fp_fusion", enable_fp_fusion), ("enable_reflect_ftz", enable_reflect_ftz),
                          ("maxnreg", maxnreg)):
            if v is not _UNSET and option in self.arg_names and option not in kwargs and \
                    len(args) <= self.arg_names.index(option):
                kwargs[option] = v  # a kernel parameter of that name gets the option's value too, as in Triton
        num_warps = 4 if num_warps is _UNSET else num_warps
        num_stages = 3 if num_stages is _UNSET else num_stages
        num_ctas = 1 if num_ctas is _UNSET else num_ctas
        enable_fp_fusion = None if enable_fp_fusion is _UNSET else enable_fp_fusion
        enable_reflect_ftz = True if enable_reflect_ftz is _UNSET else enable_reflect_ftz
        maxnreg = None if maxnreg is _UNSET else maxnreg
        _drop_ignored_options(kwargs, self.arg_names[len(args):])
        # Torch dtypes given for tensors, as Triton's (constexprs keep theirs).
        args = tuple(a if n in self.constexpr_names else _MockTensor.wrap(a)
                     for n, a in zip(self.arg_names, args)) + tuple(args[len(self.arg_names):])
        kwargs = {k: v if k in self.constexpr_names else _MockTensor.wrap(v) for k, v in kwargs.items()}
        values = self.bind(args, kwargs)
        compiled = self.compile_for(values, num_warps, num_stages, debug=debug, num_ctas=num_ctas,
                                    enable_fp_fusion=enable_fp_fusion, enable_reflect_ftz=enable_reflect_ftz,
                                    maxnreg=maxnreg)
        by_name = _by_name(self.arg_names, values)
        out = CompiledKernel(self, compiled.ir, compiled.kernel, compiled.params, compiled.options,
                             [by_name[n] for n, _ in compiled.params])
        out.used_globals, out.target, out.name = compiled.used_globals, compiled.target, compiled.name
        return out

    def report(self, *args, num_warps=4, num_stages=3, num_ctas=1, json=False, **kwargs):
        """``warmup(...).report(json)``: the compile report of the kernel
        specialized for these arguments (see CompiledKernel.report)."""
        return self.warmup(*args, num_warps=num_warps, num_stages=num_stages, num_ctas=num_ctas,
                           **kwargs).report(json=json)

    # ---- launching ---------------------------------------------------------------

    def run(self, *args, grid, **kwargs):
        given = dict(kwargs)  # as the call passed them: the fast path compares these
        # Launch options; one that is also a kernel parameter's name binds to it too, as in Triton.
        keyword_params = self.arg_names[len(args):]
        option = lambda k, default: kwargs.get(k, default) if k in keyword_params else kwargs.pop(k, default)  # noqa: E731
        num_warps = option("num_warps", 4)
        num_stages = option("num_stages", 3)
        debug = option("debug", None)
        num_ctas = option("num_ctas", 1)
        enable_fp_fusion = option("enable_fp_fusion", None)
        enable_reflect_ftz = option("enable_reflect_ftz", True)
        maxnreg = option("maxnreg", None)
        warmup = option("warmup", False)  # Triton's run(..., warmup=True): compile, launch nothing
        _drop_ignored_options(kwargs, keyword_params)
        values = self.bind(args, kwargs)
        compiled = self.compile_for(values, num_warps, num_stages, debug=debug, num_ctas=num_ctas,
                                    enable_fp_fusion=enable_fp_fusion, enable_reflect_ftz=enable_reflect_ftz,
                                    maxnreg=maxnreg)
        if warmup:
            return compiled
        _check_globals(compiled)
        if callable(grid):
            meta = dict(zip(self.arg_names, (core.unwrap(v) for v in values)))
            meta["num_warps"], meta["num_stages"], meta["num_ctas"] = num_warps, num_stages, num_ctas
            grid = grid(meta)
        grid = _grid_dims(grid)
        if any(g == 0 for g in grid):
            return compiled  # an empty grid launches nothing
        from . import _argument
        converted, on_device = [], False
        by_name = _by_name(self.arg_names, values)
        for name, _ in compiled.params:
            a, dev = _argument(by_name[name], "argument '%s'" % name, gpu_target=compiled.target == "gpu")
            converted.append(a)
            on_device = on_device or dev
        stream = 0
        if on_device:
            torch = _torch()
            if torch is not None and torch.cuda.is_available():
                stream = torch.cuda.current_stream().cuda_stream
        compiled.kernel.launch(converted, grid, stream)
        if on_device:
            compiled._launched = converted  # what local_bytes() looks its code up by
            self._remember_call(compiled, args, given, num_warps, num_stages)
        return compiled

    def _remember_call(self, compiled, args, kwargs, num_warps, num_stages):
        """Lets calls like this one (CUDA tensors; the same keywords in the
        same order) take the C++ launch path."""
        torch = _torch()
        if torch is None:
            return  # device arrays of other frameworks: the Python path
        param_index = {name: k for k, (name, _) in enumerate(compiled.params)}
        roles, params, expected = [], [], []
        if any(isinstance(x, (TensorDescriptor, tuple)) for x in list(args) + list(kwargs.values())):
            return  # descriptors and tuples: the Python path (it expands them into their parameters)
        # (keyword arguments that are not parameters, launch options among them,
        # are constants of the call: another value is another call)
        for name, x in list(zip(self.arg_names, args)) + list(kwargs.items()):
            if name not in param_index:
                roles.append(0)
                params.append(-1)
                expected.append(x)
            elif isinstance(x, torch.Tensor):
                roles.append(1)
                params.append(param_index[name])
                expected.append(x.dtype)
            elif isinstance(x, int) and not isinstance(x, bool):
                if x >= 2**63:
                    return  # a uint64 parameter: the C++ path takes i32 and i64 only
                roles.append(2 if -2**31 <= x < 2**31 else 3)
                params.append(param_index[name])
                expected.append(None)
            elif isinstance(x, float):
                roles.append(4)
                params.append(param_index[name])
                expected.append(None)
            else:
                return
        meta = {n: v for n, v in self.defaults.items() if n not in kwargs and n not in self.arg_names[:len(args)]}
        meta.setdefault("num_warps", num_warps)
        meta.setdefault("num_stages", num_stages)
        self._remember(compiled, compiled.kernel, roles, params, expected, list(kwargs), list(self.arg_names[:len(args)]),
                       meta, list(compiled.used_globals))


_MISSING = object()


def _same_value(a, b):
    return a is b or (type(a) is type(b) and a == b)


def _check_globals(compiled):
    """As Triton: a kernel compiled with a global's value is not launched
    once that global holds another."""
    for g, name, value in compiled.used_globals:
        now = g.get(name, _MISSING)
        if not _same_value(now, value):
            raise RuntimeError("Global variable %s has changed since we compiled this kernel, from %r to %s"
                               % (name, value, "nothing (deleted)" if now is _MISSING else repr(now)))


def _grid_dims(grid):
    """A launch grid as a tuple of 1 to 3 integers, none negative."""
    import operator
    dims = grid if isinstance(grid, (tuple, list)) else (grid,)
    try:
        dims = tuple(operator.index(g) for g in dims)
    except TypeError:
        raise TypeError("a grid is a tuple of 1 to 3 integers (or a function of the meta-parameters returning "
                        "one), got %r" % (grid,)) from None
    if not 1 <= len(dims) <= 3:
        raise ValueError("a grid has 1 to 3 dimensions, got %r" % (grid,))
    if any(g < 0 for g in dims):
        raise ValueError("a grid's dimensions are not negative, got %r" % (grid,))
    return dims


def _hashable(v):
    try:
        hash(v)
        return True
    except TypeError:
        return False


def _must_hit():
    return os.environ.get("TRITONC_CACHE_MUST_HIT", "0") not in ("", "0")


def _torch():
    from . import _torch as t
    return t()


def jit(fn=None, *, version=None, do_not_specialize=(), do_not_specialize_on_alignment=(), debug=None,
        noinline=None, repr=None, launch_metadata=None):
    """Decorates a kernel (or a device function it calls) in the DSL.
    Triton's `version` and `do_not_specialize_on_alignment` are accepted and
    have no effect (as `do_not_specialize`: specializing changes no result);
    `repr` names each compiled specialization (JITFunction._kernel_name)."""
    def wrap(f):
        return JITFunction(f, do_not_specialize=do_not_specialize, debug=debug, noinline=noinline, repr=repr)
    return wrap(fn) if fn is not None else wrap


def _referenced_names(tree):
    """The names a function's source reads: `x` and dotted `mod.helper`
    (Triton's dependency finder follows attributes of globals too)."""
    names = set()
    for node in ast.walk(tree):
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name):
            parts.append(node.id)
            names.add(".".join(reversed(parts)))
    return names


def _resolve(scope, dotted):
    """The value `dotted` names in `scope` (a JITFunction behind autotune and
    heuristics wrappers), or None where it is not there or reading it fails."""
    try:
        first, *rest = dotted.split(".")
        value = scope.get(first)
        for attr in rest:
            if value is None or isinstance(value, types.ModuleType) and value.__name__.split(".")[0] in (
                    "tritonc", "triton", "math", "numpy", "torch", "builtins"):
                return None  # (the language itself, not the user's code)
            value = getattr(value, attr, None)
        value = core.unwrap(value)
        for _ in range(16):  # (wrappers; a bounded walk: a cycle of .fn ends)
            if isinstance(value, JITFunction) or not hasattr(value, "fn"):
                break
            value = value.fn
        return value
    except Exception:
        return None
