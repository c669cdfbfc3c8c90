"""``python -m tritonc.tools FILE.py KERNEL ...``: the Triton-IR of a
@tritonc.jit kernel (ir_of_kernel.py), for ``tritonc emit FILE.py:KERNEL``."""
import sys

from .ir_of_kernel import main

sys.exit(main(sys.argv[1:]))
