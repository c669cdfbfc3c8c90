"""``tl.extra.cuda``: the same libdevice as ``tl.extra.libdevice``; the
multiprocessor id and the global timer (inline PTX: the GPU only); the
launch's warps and threads as constexprs; the
programmatic-dependent-launch controls, which do nothing here (tritonc
never launches a kernel with that attribute, so nothing is to wait for)."""
from .. import libdevice  # noqa: F401
from ... import core
from ...inline_asm import inline_asm_elementwise


@core.builtin
def smid():
    """The id of the multiprocessor running the program (int32)."""
    return inline_asm_elementwise("mov.u32 $0, %smid;", "=r", [], dtype=core.int32, is_pure=True, pack=1)


@core.builtin
def globaltimer():
    """The GPU's global nanosecond timer (int64)."""
    return inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [], dtype=core.int64, is_pure=False, pack=1)


def _launch_warps(what):
    n = getattr(core.current_codegen(), "num_warps", None)
    if n is None:
        raise core.CompileError("tl.extra.cuda.%s() needs the launch's num_warps, which this compile does not know "
                                "(the CLI's Python kernels: launch or warm the kernel up from Python)" % what)
    return n


@core.builtin
def num_warps():
    """The launch's num_warps, a constexpr (part of the compile's key)."""
    return core.constexpr(_launch_warps("num_warps"))


@core.builtin
def num_threads():
    """The threads of a program, 32 per warp of the launch, a constexpr."""
    return core.constexpr(32 * _launch_warps("num_threads"))


@core.builtin
def gdc_wait():
    """Triton's griddepcontrol.wait: nothing to wait for without a dependent launch."""


@core.builtin
def gdc_launch_dependents():
    """Triton's griddepcontrol.launch_dependents: no dependent launch follows."""
