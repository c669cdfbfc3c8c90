"""``from triton.language.extra.cuda import libdevice``: the functions of
``tritonc.language.extra.libdevice``."""
from ..libdevice import *  # noqa: F401,F403
