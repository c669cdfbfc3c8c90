"""``tritonc.install_as_triton()``: tritonc under Triton's module names, for
libraries that ``import triton`` themselves (a user's own code changes its
imports instead). ``import triton``, ``triton.language``,
``triton.language.extra.libdevice``, ``triton.runtime.jit``, ... then give
tritonc's modules, the same objects (so ``isinstance`` and registries agree),
and ``triton.__version__`` says which Triton's interface tritonc follows, for
libraries that choose code paths by it."""
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types

TRITON_API_VERSION = "3.6.0"


class _Loader(importlib.abc.Loader):
    def __init__(self, module):
        self.module = module

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        pass


class _Finder(importlib.abc.MetaPathFinder):
    """triton.X.Y: the module tritonc.X.Y."""

    def find_spec(self, fullname, path, target=None):
        if not fullname.startswith("triton."):
            return None
        try:
            module = importlib.import_module("tritonc." + fullname[len("triton."):])
        except ImportError:
            return None
        return importlib.util.spec_from_loader(fullname, _Loader(module))


def install_as_triton():
    """Makes ``import triton`` give tritonc (returns the ``triton`` module).
    Refused where the real triton is imported already: two compilers under
    one name would mix their objects."""
    import tritonc
    present = sys.modules.get("triton")
    if present is not None:
        if getattr(present, "__tritonc__", False):
            return present
        raise RuntimeError("install_as_triton: the module 'triton' (%s) is imported already; install tritonc under "
                           "its name before anything imports triton" % getattr(present, "__file__", "?"))
    alias = types.ModuleType("triton", "tritonc under Triton's name (tritonc.install_as_triton)")
    alias.__path__ = []  # a package: its submodules come from _Finder
    # (importlib.util.find_spec("triton") must work: torch asks it at CUDA initialization)
    alias.__spec__ = importlib.machinery.ModuleSpec("triton", None, is_package=True)
    alias.__version__ = TRITON_API_VERSION
    alias.__tritonc__ = True
    alias.__getattr__ = lambda name: getattr(tritonc, name)
    sys.meta_path.insert(0, _Finder())
    sys.modules["triton"] = alias
    for name, module in list(sys.modules.items()):
        if name.startswith("tritonc.") and module is not None:
            sys.modules.setdefault("triton." + name[len("tritonc."):], module)
    return alias
