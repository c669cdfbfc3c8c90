"""``triton.runtime.driver.active`` as host code uses it: the current CUDA
device and stream (through torch, which launches share) and the device's
properties (SM count, registers, shared memory per block, warp size), the
numbers Triton's tutorials size their grids with. Without a CUDA device
(kernels run on the CPU back end or the interpreter) the target is
``GPUTarget('cpu', <machine>, 1)``, the current device is 0, the properties
count the host's cores as multiprocessors and the active torch device is
the CPU, so that host
code asking ``get_current_target().backend == "hip"`` or sizing a grid by
the SM count runs; streams and the CUDA device interface raise a
RuntimeError saying why."""
import dataclasses
import os
import platform


def _has_cuda():
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


def _cuda():
    try:
        import torch
    except ImportError:
        torch = None
    if torch is None or not torch.cuda.is_available():
        raise RuntimeError("triton.runtime.driver.active needs a CUDA device (through torch); tritonc kernels on "
                           "numpy arrays or CPU tensors run on the CPU back end or the interpreter without one")
    return torch


class _Utils:
    def get_device_properties(self, device=None):
        if not _has_cuda():  # the CPU back end: programs spread over the host's cores
            return {"multiprocessor_count": os.cpu_count() or 1, "max_shared_mem": 0, "max_num_regs": 0,
                    "warpSize": 1, "sm_clock_rate": 0, "mem_clock_rate": 0, "mem_bus_width": 0}
        torch = _cuda()
        index = torch.cuda.current_device() if device is None else getattr(device, "index", device)
        p = torch.cuda.get_device_properties(index)
        return {
            "multiprocessor_count": p.multi_processor_count,
            "max_shared_mem": getattr(p, "shared_memory_per_block_optin", 0) or getattr(p, "shared_memory_per_block", 0),
            "max_num_regs": getattr(p, "regs_per_multiprocessor", 65536),
            "warpSize": getattr(p, "warp_size", 32),
            "sm_clock_rate": getattr(p, "clock_rate", 0),
            "mem_clock_rate": getattr(p, "memory_clock_rate", 0),
            "mem_bus_width": getattr(p, "memory_bus_width", 0),
        }


@dataclasses.dataclass(frozen=True)
class GPUTarget:
    """Triton's triton.backends.compiler.GPUTarget: what a kernel is compiled
    for (backend "cuda" or "cpu", arch 90 or the host's machine, warp size)."""
    backend: str
    arch: object
    warp_size: int



class _ActiveDriver:
    utils = _Utils()

    def get_current_device(self):
        if not _has_cuda():
            return 0  # (the host: device 0 of get_device_properties)
        return _cuda().cuda.current_device()

    def set_current_device(self, device):
        _cuda().cuda.set_device(device)

    def get_active_torch_device(self):
        if not _has_cuda():
            try:
                import torch
            except ImportError:
                raise RuntimeError("triton.runtime.driver.active.get_active_torch_device needs torch") from None
            return torch.device("cpu")
        torch = _cuda()
        return torch.device("cuda", torch.cuda.current_device())

    def get_current_stream(self, device=None):
        torch = _cuda()
        return torch.cuda.current_stream(device).cuda_stream

    def get_current_target(self):
        if not _has_cuda():
            return GPUTarget("cpu", platform.machine(), 1)
        torch = _cuda()
        major, minor = torch.cuda.get_device_capability()
        return GPUTarget("cuda", major * 10 + minor, 32)

    def get_benchmarker(self):
        """The timing function tuners use: tritonc.testing.do_bench."""
        from ..testing import do_bench
        return do_bench

    def get_device_interface(self):
        return _cuda().cuda


class _Driver:
    active = _ActiveDriver()


driver = _Driver()
