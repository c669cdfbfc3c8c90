"""Exceptions of Triton's runtime that host code catches by name."""
from .. import _tritonc


class OutOfResources(_tritonc.Error):
    """A configuration needs more of a resource (shared memory, registers)
    than the device has: Triton's name, for code that prunes
    configurations with ``except triton.OutOfResources``."""

    def __init__(self, required=0, limit=0, name="shared memory", message=None):
        self.required, self.limit, self.name = required, limit, name
        super().__init__(message or "out of resource: %s, required: %s, hardware limit: %s" % (name, required, limit))


class InterpreterError(_tritonc.Error):
    """Triton's error of a kernel its interpreter runs (an access out of
    bounds, a failed device_assert), by the name code catches it with.
    tritonc's interpreter reports those as ``tritonc.Error``, of which this
    is a kind; nothing raises this class itself yet."""
