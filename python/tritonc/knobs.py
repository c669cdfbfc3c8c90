"""``triton.knobs``: Triton's settings object (Triton 3.4 and later), which
host code and Triton's own tests read and set (``knobs.cache.dir = d``,
``with knobs.runtime.scope(): ...``).

Each knob reads its environment variable until code sets it; setting one
also writes the variable (while ``propagate_env`` is true), which is how
tritonc's runtime, C++ included, sees it. The knobs with a meaning here use
tritonc's variables: ``runtime.interpret`` (TRITONC_INTERPRET: every launch
on the interpreter), ``runtime.debug`` (TRITONC_DEBUG: device assertions
compiled), ``cache.dir`` (TRITONC_CACHE_DIR: the kernel cache's folder),
``autotuning.print`` (TRITONC_TUNE_VERBOSE: the tuner's progress),
``nvidia.ptxas`` (the ptxas on PATH, its path and version). The others are
Triton's own knobs, kept so that code setting them runs; they change
nothing in tritonc."""
import contextlib
import functools
import os
import re
import shutil
import subprocess

propagate_env = True


def _setenv(key, value):
    if not propagate_env:
        return
    if value is None:
        os.environ.pop(key, None)
    else:
        os.environ[key] = value


class _Knob:
    """One setting: the value code set on the knob set, else the parsed
    environment variable ``key``, else ``default``."""

    def __init__(self, key, default=None, parse=str, to_env=str):
        self.key, self.default, self.parse, self.to_env = key, default, parse, to_env

    def __set_name__(self, owner, name):
        self.name = name

    def get(self):
        text = os.environ.get(self.key)
        if text is None or text == "":
            return self.default() if callable(self.default) else self.default
        return self.parse(text)

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        if self.name in obj.__dict__:
            return obj.__dict__[self.name]
        return self.get()

    def __set__(self, obj, value):
        obj.__dict__[self.name] = value
        _setenv(self.key, None if value is None else self.to_env(value))

    def __delete__(self, obj):
        obj.__dict__.pop(self.name, None)


def _bool(text):
    return text.strip().lower() not in ("", "0", "false", "off", "no")  # (as tritonc read its variables before)


def _bool_env(value):
    return "1" if value else "0"


def _flag(key, default=False):
    return _Knob(key, default, _bool, _bool_env)


def _int(key, default=0):
    return _Knob(key, default, int, str)


class base_knobs:
    """A set of knobs (``knobs.cache``, ``knobs.runtime``, ...)."""

    @property
    def knob_descriptors(self):
        return {k: v for k, v in type(self).__dict__.items() if isinstance(v, _Knob)}

    @property
    def knobs(self):
        return {k: getattr(self, k) for k in self.knob_descriptors}

    def copy(self):
        other = type(self)()
        other.__dict__.update(self.__dict__)
        return other

    def reset(self):
        """Forgets what code set: every knob reads its variable again."""
        for name in self.knob_descriptors:
            delattr(self, name)
        return self

    @contextlib.contextmanager
    def scope(self):
        """Restores the knobs and their variables on leaving the block."""
        keys = [k.key for k in self.knob_descriptors.values()]
        saved_env = {k: os.environ.get(k) for k in keys}
        saved = dict(self.__dict__)
        try:
            yield self
        finally:
            self.__dict__.clear()
            self.__dict__.update(saved)
            for k, v in saved_env.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


def _default_cache_dir():
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg.startswith("/"):
        return os.path.join(xdg, "tritonc")
    home = os.environ.get("HOME", "")
    return os.path.join(home, ".cache", "tritonc") if home else "/tmp/tritonc-cache-%d" % os.getuid()


class build_knobs(base_knobs):
    cc = _Knob("CC")
    cudacrt_path = _Knob("TRITON_CUDACRT_PATH")
    cudart_path = _Knob("TRITON_CUDART_PATH")


class cache_knobs(base_knobs):
    dir = _Knob("TRITONC_CACHE_DIR", _default_cache_dir)
    home_dir = _Knob("TRITON_HOME", lambda: os.path.expanduser("~/"))
    dump_dir = _Knob("TRITON_DUMP_DIR", lambda: os.path.join(os.path.expanduser("~/"), ".triton", "dump"))
    override_dir = _Knob("TRITON_OVERRIDE_DIR", lambda: os.path.join(os.path.expanduser("~/"), ".triton", "override"))
    manager_class = _Knob("TRITON_CACHE_MANAGER")
    remote_manager_class = _Knob("TRITON_REMOTE_CACHE_BACKEND")


class compilation_knobs(base_knobs):
    override = _flag("TRITON_KERNEL_OVERRIDE")
    dump_ir = _flag("TRITON_KERNEL_DUMP")
    store_binary_only = _flag("TRITON_STORE_BINARY_ONLY")
    always_compile = _flag("TRITON_ALWAYS_COMPILE")
    disable_line_info = _flag("TRITON_DISABLE_LINE_INFO")
    front_end_debugging = _flag("TRITON_FRONT_END_DEBUGGING")
    allow_non_constexpr_globals = _flag("TRITON_ALLOW_NON_CONSTEXPR_GLOBALS")
    enable_asan = _flag("TRITON_ENABLE_ASAN")
    use_ir_loc = _Knob("USE_IR_LOC")


class autotuning_knobs(base_knobs):
    cache = _flag("TRITON_CACHE_AUTOTUNING")
    print = _flag("TRITONC_TUNE_VERBOSE")


class runtime_knobs(base_knobs):
    interpret = _flag("TRITONC_INTERPRET")
    debug = _flag("TRITONC_DEBUG")
    override_arch = _Knob("TRITON_OVERRIDE_ARCH")
    # (Triton's hooks: kept, never called by tritonc)
    launch_enter_hook = None
    launch_exit_hook = None
    jit_cache_hook = None
    jit_post_compile_hook = None


class language_knobs(base_knobs):
    fp32_default = _Knob("TRITON_F32_DEFAULT")
    default_fp_fusion = _flag("TRITON_DEFAULT_FP_FUSION", True)


class NvidiaTool:
    """A CUDA tool: its path and its release ("13.0")."""

    def __init__(self, path, version):
        self.path, self.version = path, version

    def __repr__(self):
        return "NvidiaTool(%r, %r)" % (self.path, self.version)


def _find_tool(name, path=None):
    """The tool at ``path``, else $TRITON_<NAME>_PATH, else on PATH, else in
    $CUDA_HOME/bin; None where there is none."""
    path = path or os.environ.get("TRITON_%s_PATH" % name.upper()) or shutil.which(name)
    if path is None:
        path = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", name)
        if not os.path.exists(path):
            return None
    return NvidiaTool(path, _release(path))


@functools.lru_cache(maxsize=None)
def _release(path):
    """The release a CUDA tool prints ("13.0"), asked once per path."""
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return ""
    m = re.search(r"release (\d+\.\d+)", out)
    return m.group(1) if m else ""


class _ToolKnob(_Knob):
    """A CUDA tool, found when read; set to a path to use that one."""

    def __init__(self, name):
        super().__init__("TRITON_%s_PATH" % name.upper(), None)
        self.tool = name

    def get(self):
        return _find_tool(self.tool)

    def __set__(self, obj, value):
        obj.__dict__[self.name] = value if isinstance(value, NvidiaTool) else _find_tool(self.tool, value)


class nvidia_knobs(base_knobs):
    ptxas = _ToolKnob("ptxas")
    cuobjdump = _ToolKnob("cuobjdump")
    nvdisasm = _ToolKnob("nvdisasm")
    dump_nvptx = _flag("NVPTX_ENABLE_DUMP")
    disable_ptxas_opt = _flag("DISABLE_PTXAS_OPT")
    ptxas_options = _Knob("PTXAS_OPTIONS")
    mock_ptx_version = _Knob("TRITON_MOCK_PTX_VERSION")
    dump_ptxas_log = _flag("TRITON_DUMP_PTXAS_LOG")
    libdevice_path = _Knob("TRITON_LIBDEVICE_PATH")
    libcuda_path = _Knob("TRITON_LIBCUDA_PATH")


class amd_knobs(base_knobs):
    use_buffer_ops = _flag("AMDGCN_USE_BUFFER_OPS", True)
    dump_amdgcn = _flag("AMDGCN_ENABLE_DUMP")
    libhip_path = _Knob("TRITON_LIBHIP_PATH")


class proton_knobs(base_knobs):
    disable = _flag("TRITON_PROTON_DISABLE")


build = build_knobs()
cache = cache_knobs()
compilation = compilation_knobs()
autotuning = autotuning_knobs()
runtime = runtime_knobs()
language = language_knobs()
nvidia = nvidia_knobs()
amd = amd_knobs()
proton = proton_knobs()
