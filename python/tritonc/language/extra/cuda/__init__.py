"""``tl.extra.cuda``: the same libdevice as ``tl.extra.libdevice``."""
from .. import libdevice  # noqa: F401
