"""``tritonc.compiler``: the names Triton's host code imports from
``triton.compiler`` (its compile errors)."""
from .codegen import CompilationError  # noqa: F401
