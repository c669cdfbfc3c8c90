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


def _module(name, doc, package=False, **names):
    module = types.ModuleType(name, doc)
    if package:
        module.__path__ = []
    module.__dict__.update(names)
    return module


def _backends():
    return _module("triton.backends", "Triton's registry of compiler back ends: tritonc is not one of them (empty)",
                   package=True, backends={})


def _backends_compiler():
    from .runtime.driver import GPUTarget

    class BaseBackend:
        """Triton's base of a compiler back end, for host code that names it
        (isinstance checks, subclasses never instantiated under tritonc)."""

        def __init__(self, target):
            self.target = target

        @staticmethod
        def supports_target(target):
            return False

    return _module("triton.backends.compiler", "GPUTarget and BaseBackend under Triton's names",
                   GPUTarget=GPUTarget, BaseBackend=BaseBackend)


def _backends_driver():
    from .runtime import driver

    class DriverBase:
        """Triton's base of a device driver; tritonc's is driver.active."""

    return _module("triton.backends.driver", "DriverBase under Triton's name", DriverBase=DriverBase,
                   GPUDriver=DriverBase, active=driver.active)


def _compiler_compiler():
    import tritonc
    from .codegen import CompilationError
    from .compiler import ASTSource, compile
    from .jit import CompiledKernel

    def triton_key():
        """Triton's key of the compiler in caches (torch's, for one): tritonc's version."""
        return "tritonc-" + tritonc.__version__

    return _module("triton.compiler.compiler",
                   "CompiledKernel, CompilationError, ASTSource, compile and triton_key under Triton's names",
                   CompiledKernel=CompiledKernel, CompilationError=CompilationError, ASTSource=ASTSource,
                   compile=compile, triton_key=triton_key)


def _runtime_autotuner():
    from . import autotuner
    from .runtime.errors import OutOfResources
    return _module("triton.runtime.autotuner", "Triton's autotuner module: tritonc's tuner",
                   Autotuner=autotuner.Autotuner, Config=autotuner.Config, Heuristics=autotuner.Heuristics,
                   autotune=autotuner.autotune, heuristics=autotuner.heuristics, OutOfResources=OutOfResources)


# Triton's modules that host code (torch's inductor among it) imports by name
# and tritonc has no file for: made when first imported.
_MADE = {
    "triton.backends": _backends,
    "triton.backends.compiler": _backends_compiler,
    "triton.backends.driver": _backends_driver,
    "triton.compiler.compiler": _compiler_compiler,
    "triton.compiler.errors": lambda: importlib.import_module("tritonc.compiler").errors,
    "triton.runtime.autotuner": _runtime_autotuner,
}


class _Finder(importlib.abc.MetaPathFinder):
    """triton.X.Y: the module tritonc.X.Y, or one of _MADE."""

    def find_spec(self, fullname, path, target=None):
        if not fullname.startswith("triton."):
            return None
        if fullname in _MADE:
            module = _MADE[fullname]()
            return importlib.util.spec_from_loader(fullname, _Loader(module), is_package=hasattr(module, "__path__"))
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

    def attribute(name):
        if "triton." + name in _MADE:  # (Triton imports triton.backends with itself)
            return importlib.import_module("triton." + name)
        return getattr(tritonc, name)
    alias.__getattr__ = attribute
    sys.meta_path.insert(0, _Finder())
    sys.modules["triton"] = alias
    for name, module in list(sys.modules.items()):
        if name.startswith("tritonc.") and module is not None:
            sys.modules.setdefault("triton." + name[len("tritonc."):], module)
    return alias
