"""``tritonc.autotune``, ``tritonc.heuristics`` and ``tritonc.Config`` for
@jit kernels, with Triton 3.x's interface. The first call with a new value
of the ``key`` arguments times every configuration (on the arguments given,
as Triton does: ``reset_to_zero``/``restore_value`` name the ones a run
changes) and launches the fastest; the choice is kept in memory and on disk
(the kernel cache directory's ``autotune/``), so a later process skips the
timing."""
import hashlib
import json
import os
import sys
import time

from . import knobs
from .jit import KernelInterface


class Config:
    """One point of a tuning space: constexpr values, num_warps, num_stages,
    num_ctas (2: tensor copies that pairs of programs along x share are
    multicast to both, in clusters of two; 4: along y too, in clusters of
    2 x 2; sm_90)."""

    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None, pre_hook=None, **ignored):
        self.kwargs = dict(kwargs)
        self.num_warps, self.num_stages = int(num_warps), int(num_stages)
        if isinstance(num_ctas, bool) or num_ctas not in (1, 2, 4):
            raise ValueError("num_ctas must be 1, 2 or 4, not %r" % (num_ctas,))
        self.num_ctas, self.maxnreg, self.pre_hook = int(num_ctas), maxnreg, pre_hook

    def all_kwargs(self):
        extra = {} if self.maxnreg is None else {"maxnreg": self.maxnreg}
        return dict(self.kwargs, num_warps=self.num_warps, num_stages=self.num_stages, num_ctas=self.num_ctas, **extra)

    def __repr__(self):
        items = ", ".join("%s: %r" % kv for kv in sorted(self.kwargs.items()))
        ctas = ", num_ctas=%d" % self.num_ctas if self.num_ctas != 1 else ""
        regs = ", maxnreg=%d" % self.maxnreg if self.maxnreg is not None else ""
        return "Config({%s}, num_warps=%d, num_stages=%d%s%s)" % (items, self.num_warps, self.num_stages, ctas, regs)


def _key_part(v):
    dt = getattr(v, "dtype", None)
    if dt is not None and not isinstance(v, (int, float)):
        return str(dt)
    return v


def _cache_dir():
    """The kernel cache's folder, as the C++ runtime picks it
    (TRITONC_CACHE_DIR, else an absolute XDG_CACHE_HOME's tritonc, else
    ~/.cache/tritonc), and autotune/ in it; None for TRITONC_CACHE_DIR=none
    (nothing persisted)."""
    base = os.environ.get("TRITONC_CACHE_DIR")
    if base == "none":
        return None
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME", "")
        base = os.path.join(xdg, "tritonc") if xdg.startswith("/") else \
            os.path.join(os.path.expanduser("~"), ".cache", "tritonc")
    return os.path.join(base, "autotune")


class _Wrapper(KernelInterface):
    """What autotune and heuristics wrap: a JITFunction or another wrapper."""

    def __init__(self, fn):
        self.fn = fn
        self.arg_names = fn.arg_names
        self.__name__ = getattr(fn, "__name__", "kernel")

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

    def named(self, args, kwargs):
        named = dict(zip(self.arg_names, args))
        named.update(kwargs)
        return named

    def jit_function(self):
        f = self.fn
        while isinstance(f, _Wrapper):
            f = f.fn
        return f


class Autotuner(_Wrapper):
    """``tritonc.autotune``'s wrapper. Its constructor takes Triton's
    arguments in Triton's order (libraries subclass it); `arg_names` is read
    from `fn` where not given. Also as Triton's: ``base_fn`` (the Python
    function), ``nargs`` (the arguments of the call being tuned, by name),
    ``prune_configs(nargs)``, ``_bench(*args, config=, grid=, **kwargs)``
    and ``do_bench``."""

    def __init__(self, fn, arg_names=None, configs=(), key=(), reset_to_zero=None, restore_value=None,
                 pre_hook=None, post_hook=None, prune_configs_by=None, warmup=None, rep=None, use_cuda_graph=False,
                 do_bench=None, cache_results=True):
        super().__init__(fn)
        if arg_names is not None:
            self.arg_names = list(arg_names)
        self.nargs = None
        # As Triton's: pre_hook(args) runs before each timed call (in place
        # of reset_to_zero's zeroing) and once more, with reset_only=True
        # where it takes that argument, before the launch that follows the
        # tuning; post_hook(args, exception) after each timed call.
        self.reset_to_zero = list(reset_to_zero or [])
        # Always callable, as Triton's (subclasses call them): by default the
        # pre-hook zeroes reset_to_zero's arguments and the post-hook does
        # nothing (restore_value's copies are taken around each timed call).
        self.pre_hook = pre_hook if pre_hook is not None else self._zero_reset_arguments
        self.post_hook = post_hook if post_hook is not None else (lambda kwargs, exception=None: None)
        self.errors = {}
        self.configs = list(configs) or [Config({})]
        self._tuned_names = {k for c in self.configs for k in c.kwargs}  # the caller may not pass these
        self.key = list(key)
        self.prune = prune_configs_by or {}
        self.restore_value = list(restore_value or [])
        # Triton's names: `warmup` is the method that compiles every configuration.
        self.num_warmups, self.num_reps = warmup or 25, rep or 100
        self.bench = do_bench
        self.cache = {}
        self.persist = cache_results
        self.best_config = None
        self.timings = {}
        self.spills = {}  # repr(config): spilled bytes per thread, of the last tuning
        self.stopped_early = set()  # repr(config) of those timed by their short run only
        self._key_index = None

    def _record_path(self, key):
        jf = self.jit_function()
        try:
            import inspect
            src = inspect.getsource(jf.fn)
        except (OSError, TypeError):
            src = jf.__name__
        h = hashlib.sha256(repr((src, [repr(c) for c in self.configs], key)).encode()).hexdigest()[:32]
        folder = _cache_dir()
        return None if folder is None else os.path.join(folder, jf.__name__ + "-" + h + ".json")

    def _time(self, config, args, kwargs, grid, untimed_spills=True, quantiles=False):
        """The median time of `config` (None: it spills, untimed; inf: it
        does not run); with `quantiles`, Triton's three (median, 20%, 80%)."""
        from . import testing
        named = self.named(args, kwargs)
        saved = {n: _snapshot(named[n]) for n in self.restore_value if n in named}
        merged = dict(kwargs, **config.all_kwargs())

        def call():
            if config.pre_hook is not None:
                config.pre_hook(dict(named, **config.all_kwargs()))
            self.pre_hook(dict(named, **config.all_kwargs()))
            try:
                out = self.fn.run(*args, grid=grid, **merged)
            except Exception as e:
                self.post_hook(dict(named, **config.all_kwargs()), exception=e)
                raise
            self.post_hook(dict(named, **config.all_kwargs()), exception=None)
            return out

        try:
            if untimed_spills:
                # The first call compiles and loads it: a configuration whose
                # registers spill (the driver says) is timed only if all do.
                local = _local_bytes(call())
                if local > 0:
                    self.spills[repr(config)] = local
                    return None
            if self.bench is not None:
                # As Triton's: the given function is asked for quantiles (median first).
                try:
                    t = self.bench(call, quantiles=(0.5, 0.2, 0.8))
                except TypeError as e:
                    if "quantiles" not in str(e):
                        raise
                    t = self.bench(call)  # one that takes the call alone
                if quantiles:
                    return list(t) if isinstance(t, (list, tuple)) else [t] * 3
                return t[0] if isinstance(t, (list, tuple)) else t
            if quantiles:
                return testing.do_bench(call, warmup=self.num_warmups, rep=self.num_reps, quantiles=(0.5, 0.2, 0.8))
            # The median, as Triton's tuner compares: a few slow calls (a clock
            # change, a flush that lands badly) do not decide the choice. A
            # short run first: one already clearly slower than the best so
            # far is timed no more (as the runtime's tuner does).
            best = min((t for t in self.timings.values() if t is not None), default=float("inf"))
            if best != float("inf"):
                quick = testing.do_bench(call, warmup=1, rep=_QUICK_MS, return_mode="median")
                if quick > _CLEARLY_SLOWER * best:
                    self.stopped_early.add(repr(config))
                    return quick
            return testing.do_bench(call, warmup=self.num_warmups, rep=self.num_reps, return_mode="median")
        except Exception as e:  # a configuration that does not compile or run is skipped
            self.errors[repr(config)] = str(e)
            return float("inf")
        finally:
            for n, v in saved.items():
                _restore(named[n], v)

    def _zero_reset_arguments(self, kwargs, reset_only=False):
        for n in self.reset_to_zero:
            _zero(kwargs.get(n))

    @property
    def base_fn(self):
        return self.jit_function().fn

    @property
    def do_bench(self):
        """The timing function: the one given to autotune, else tritonc.testing.do_bench."""
        from . import testing
        return self.bench if self.bench is not None else testing.do_bench

    def prune_configs(self, kwargs):
        """Triton's: the configurations left by prune_configs_by for the call's
        arguments: the positional ones from `self.nargs` (by name, as a
        library's run sets it before calling this), then `kwargs`."""
        return self._pruned_named(dict(self.nargs or {}, **kwargs), dict(kwargs))

    def _bench(self, *args, config, **meta):
        """Triton's: the times of one configuration, [median, 20%, 80%] (inf
        where it does not run; a spilling one is timed anyway)."""
        grid = meta.pop("grid")
        t = self._time(config, args, meta, grid, untimed_spills=False, quantiles=True)
        return t if isinstance(t, list) else [t] * 3

    def _pruned(self, args, kwargs):
        """The configurations left by prune_configs_by (all without it)."""
        return self._pruned_named(self.named(args, kwargs), kwargs)

    def _pruned_named(self, named, kwargs):
        """As Triton: early_config_prune(configs, named, **kwargs), `named`
        every argument by name, `kwargs` those given by keyword."""
        configs = self.configs
        early = self.prune.get("early_config_prune")
        if early is not None:
            configs = list(early(configs, named, **kwargs))
        top_k = self.prune.get("top_k")
        model = self.prune.get("perf_model")
        if model is not None and top_k:
            k = int(top_k * len(configs)) if isinstance(top_k, float) and top_k <= 1 else int(top_k)
            configs = sorted(configs, key=lambda c: model(**dict(named, **c.all_kwargs())))[:k]
        return configs

    def warmup(self, *args, **kwargs):
        """As Triton's: compiles every configuration left by the pruning,
        launching none; returns their compiled kernels in order."""
        return [self.fn.warmup(*args, **dict(kwargs, **c.all_kwargs())) for c in self._pruned(args, kwargs)]

    def _choose(self, args, kwargs, grid, key):
        configs = self._pruned(args, kwargs)
        self.errors, self.spills, self.stopped_early = {}, {}, set()
        t0 = time.perf_counter()
        self.timings = {}
        say = _progress()
        for i, c in enumerate(configs):
            self.timings[c] = t = self._time(c, args, kwargs, grid)
            if say:
                done = {k: v for k, v in self.timings.items() if v is not None and v != float("inf")}
                early = " (stopped early)" if repr(c) in self.stopped_early else ""
                what = ("%.4f ms%s" % (t, early) if t is not None and t != float("inf") else
                        "spills %d bytes per thread, timed only if all do" % self.spills[repr(c)] if t is None else
                        "skipped: %s" % self.errors.get(repr(c), "?").splitlines()[0])
                line = "  configuration %d of %d (%r): %s" % (i + 1, len(configs), c, what)
                if done:
                    b = min(done, key=done.get)
                    line += "; best so far %.4f ms (%r)" % (done[b], b)
                say(line)
        # Spilling configurations are skipped where another runs without
        # spilling, else timed as the rest (as the runtime's tuner does).
        spilled = [c for c, t in self.timings.items() if t is None]
        ran_clean = any(t is not None and t != float("inf") for t in self.timings.values())
        for c in spilled:
            if ran_clean:
                self.timings[c] = float("inf")
                self.errors[repr(c)] = "spills %d bytes per thread; skipped, others do not" % self.spills[repr(c)]
            else:
                self.timings[c] = self._time(c, args, kwargs, grid, untimed_spills=False)
        self.bench_time = time.perf_counter() - t0
        best = min(self.timings, key=self.timings.get)
        if self.timings[best] == float("inf"):
            raise RuntimeError("no configuration of %s runs:\n  " % self.__name__ +
                               "\n  ".join("%s: %s" % kv for kv in self.errors.items()))
        if say or os.environ.get("TRITON_PRINT_AUTOTUNING", "0") not in ("", "0"):
            print("tritonc autotuning for function %s finished after %.2fs; best config selected: %r;"
                  % (self.__name__, self.bench_time, best), file=sys.stderr)
        return best

    def _key(self, args, kwargs):
        # As Triton: the key's arguments, and the dtypes of every tensor argument.
        if self._key_index is None:
            self._key_index = [self.arg_names.index(k) if k in self.arg_names else None for k in self.key]
        key = []
        for k, i in zip(self.key, self._key_index):
            v = args[i] if i is not None and i < len(args) else kwargs.get(k)
            key.append(_key_part(v))
        for a in args:
            dt = getattr(a, "dtype", None)
            if dt is not None and not isinstance(a, (int, float)):
                key.append(str(dt))
        # And where it runs: a choice timed on the interpreter or the CPU
        # says nothing of the other, nor one GPU's of another's.
        which = getattr(self.jit_function(), "_target", None)  # (none on a stand-in kernel)
        if which is not None:
            key.append(_target_name(which(list(args) + list(kwargs.values()))))
        return tuple(key)

    def run(self, *args, grid, **kwargs):
        if "warmup" not in self.arg_names and kwargs.pop("warmup", False):
            return self.warmup(*args, **kwargs)  # (KernelInterface passes warmup=False)
        self.nargs = self.named(args, kwargs)
        conflicts = sorted(self._tuned_names.intersection(kwargs)) if kwargs else ()
        if conflicts:
            raise ValueError("Conflicting meta-parameters: %s. Make sure that you don't re-define auto-tuned "
                             "symbols." % ", ".join(conflicts))
        key = self._key(args, kwargs)
        # As Triton's: one configuration is launched, never timed (timing
        # runs would repeat an in-place kernel's updates).
        config = self.configs[0] if len(self.configs) == 1 else self.cache.get(key)
        if config is None and self.persist:
            config = self._load(key)
        if config is None:
            config = self._choose(args, kwargs, grid, key)
            if self.persist:
                self._save(key, config)
            # As Triton: the timing runs leave what they accumulated; the launch starts from zeros
            # (or from what the user's pre_hook makes of them).
            named = self.named(args, kwargs)
            _call_reset_only(self.pre_hook, dict(named, **config.all_kwargs()))
        self.cache[key] = config
        self.best_config = config
        if config.pre_hook is not None:
            config.pre_hook(dict(self.named(args, kwargs), **config.all_kwargs()))
        merged = dict(kwargs, **config.all_kwargs())
        if hasattr(self.fn, "run") and not isinstance(self.fn, _Wrapper):
            # kernel[grid]: repeated calls launch from C++ (JitLauncher).
            return self.fn[grid](*args, **merged)
        return self.fn.run(*args, grid=grid, **merged)

    def _load(self, key):
        path = self._record_path(key)
        if path is None:
            return None
        try:
            with open(path) as f:
                index = json.load(f)["best"]
            return self.configs[index]
        except (OSError, ValueError, KeyError, IndexError, TypeError):
            return None

    def _save(self, key, config):
        path = self._record_path(key)
        if path is None:
            return
        try:
            os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
            tmp = path + ".%d.tmp" % os.getpid()
            with open(tmp, "w") as f:
                json.dump({"best": self.configs.index(config), "config": repr(config), "key": repr(key)}, f)
            os.replace(tmp, path)
        except (OSError, ValueError):
            pass  # an unwritable cache costs a re-tune, nothing else


# A configuration whose short run (_QUICK_MS of calls) is this much slower
# than the best so far is not timed further.
_QUICK_MS = 3
_CLEARLY_SLOWER = 1.3


_GPU_NAMES = {}


def _target_name(target):
    if target != "gpu":
        return target
    try:
        import torch
        index = torch.cuda.current_device()
        if index not in _GPU_NAMES:
            _GPU_NAMES[index] = "gpu " + torch.cuda.get_device_name(index)
        return _GPU_NAMES[index]
    except Exception:  # no torch (CUDA arrays of another framework): the GPU unnamed
        return target


def _progress():
    """A line printer for TRITONC_TUNE_VERBOSE=1 or knobs.autotuning.print
    (as the runtime's tuner: each configuration's time, n of N, the best so
    far), else None."""
    if not knobs.autotuning.print:
        return None
    return lambda line: print(line, file=sys.stderr)


def _local_bytes(result):
    """Spilled bytes per thread of what a kernel call returned (a
    CompiledKernel launched on the GPU), 0 where unknown."""
    local = getattr(result, "local_bytes", None)
    return max(0, int(local())) if callable(local) else 0


def _host_array(x):
    """The array behind `x` (a tritonc.reinterpret wrapper's base), or x."""
    from .tensor_wrapper import TensorWrapper
    return x.base if isinstance(x, TensorWrapper) else x


def _zero(x):
    """Zeros a torch tensor or a numpy array in place (reset_to_zero)."""
    x = _host_array(x)
    if hasattr(x, "zero_"):
        x.zero_()
    elif hasattr(x, "__array_interface__") and hasattr(x, "fill"):
        x.fill(0)


def _snapshot(x):
    x = _host_array(x)
    if hasattr(x, "clone"):
        return x.clone()
    return x.copy() if hasattr(x, "copy") and hasattr(x, "__array_interface__") else None


def _restore(x, saved):
    """Puts back what _snapshot saved (restore_value)."""
    x = _host_array(x)
    if saved is None:
        return
    if hasattr(x, "copy_"):
        x.copy_(saved)
    else:
        x[...] = saved


def _call_reset_only(hook, args):
    """hook(args, reset_only=True) as Triton calls a pre_hook after tuning;
    hook(args) where the function takes no reset_only."""
    import inspect
    try:
        params = inspect.signature(hook).parameters
    except (TypeError, ValueError):
        params = {}
    takes = "reset_only" in params or any(p.kind == p.VAR_KEYWORD for p in params.values())
    return hook(args, reset_only=True) if takes else hook(args)


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None, pre_hook=None,
             post_hook=None, warmup=None, rep=None, use_cuda_graph=False, do_bench=None, cache_results=True):
    def decorator(fn):
        return Autotuner(fn, None, configs, key, reset_to_zero, restore_value, pre_hook=pre_hook, post_hook=post_hook,
                         prune_configs_by=prune_configs_by, warmup=warmup, rep=rep, do_bench=do_bench,
                         cache_results=cache_results)
    return decorator


class Heuristics(_Wrapper):
    def __init__(self, fn, values):
        super().__init__(fn)
        self.values = values

    def _with_values(self, args, kwargs):
        named = self.named(args, kwargs)
        for name, f in self.values.items():
            kwargs[name] = f(named)
            named[name] = kwargs[name]
        return kwargs

    def run(self, *args, grid, **kwargs):
        if "warmup" not in self.arg_names and kwargs.pop("warmup", False):
            return self.warmup(*args, **kwargs)  # (KernelInterface passes warmup=False)
        return self.fn.run(*args, grid=grid, **self._with_values(args, kwargs))

    def warmup(self, *args, **kwargs):
        """Compiles for the heuristics' values without launching (what the
        wrapped kernel's warmup returns)."""
        return self.fn.warmup(*args, **self._with_values(args, kwargs))


def heuristics(values):
    """``@tritonc.heuristics({'BLOCK': lambda args: ...})``: constexprs computed from the arguments."""
    def decorator(fn):
        return Heuristics(fn, values)
    return decorator
