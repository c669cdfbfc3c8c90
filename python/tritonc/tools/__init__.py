"""``tritonc.tools``: host-side helpers Triton kernels are launched with
(``tensor_descriptor``, as ``triton.tools.tensor_descriptor``), and
``python -m tritonc.tools FILE.py KERNEL`` (ir_of_kernel.py), the IR of a
Python kernel for ``tritonc emit FILE.py:KERNEL``."""
