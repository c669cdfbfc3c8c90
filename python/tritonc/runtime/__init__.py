"""``tritonc.runtime``: what Triton's host code reaches through
``triton.runtime`` (``driver.active``), and the exceptions its tuners name."""
from .driver import driver  # noqa: F401
from .errors import OutOfResources  # noqa: F401
