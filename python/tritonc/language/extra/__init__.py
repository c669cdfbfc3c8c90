"""``tritonc.language.extra``: as Triton's ``triton.language.extra``
(``from triton.language.extra import libdevice``; ``extra.cuda.libdevice``)."""
from . import cuda, libdevice  # noqa: F401
