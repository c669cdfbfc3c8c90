"""``tl.extra.cuda``: the same libdevice as ``tl.extra.libdevice``; the
multiprocessor id and the global timer (inline PTX: the GPU only); the
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


@core.builtin
def gdc_wait():
    """Triton's griddepcontrol.wait: nothing to wait for without a dependent launch."""


@core.builtin
def gdc_launch_dependents():
    """Triton's griddepcontrol.launch_dependents: no dependent launch follows."""
