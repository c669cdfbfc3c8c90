"""``triton.runtime.jit`` as libraries import it."""
from ..jit import JITFunction, KernelInterface, jit  # noqa: F401
from ..tensor_wrapper import TensorWrapper, reinterpret  # noqa: F401,E402
from ..language.type_names import type_canonicalisation_dict  # noqa: F401,E402
