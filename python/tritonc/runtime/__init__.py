"""``tritonc.runtime``: what Triton's host code reaches through
``triton.runtime`` (``driver.active``), and the exceptions its tuners name."""
from .driver import driver  # noqa: F401
from .errors import InterpreterError, OutOfResources  # noqa: F401
from ..autotuner import Autotuner, Config, Heuristics  # noqa: F401,E402  (triton.runtime's names for them)
from ..jit import JITFunction, KernelInterface  # noqa: F401,E402
from . import jit  # noqa: F401,E402  (triton.runtime.jit)
