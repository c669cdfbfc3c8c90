"""``triton.runtime.jit`` as libraries import it."""
from ..jit import JITFunction, KernelInterface, jit  # noqa: F401
