"""tritonc.autotune's shortcuts, as the runtime's tuner takes them
(lib/runtime/trial_runs.cpp): configurations whose registers spill are
skipped where others do not, and timed as the rest where all spill (the
spills come from what a call returns, CompiledKernel.local_bytes: the
driver's figure after a launch on the GPU); a configuration clearly slower
than the best so far after a short run is timed no more; progress lines on
request. A stand-in kernel reports random times and spill sizes."""
import os
import sys

import numpy as np
import pytest

import tritonc

sys.path.insert(0, os.path.dirname(__file__))

rng = np.random.default_rng()


class _Result:
    def __init__(self, ms, local):
        self.ms, self.local = ms, local

    def local_bytes(self):
        return self.local


class _FakeKernel:
    """Answers each configuration (its BLOCK) with a time and spilled bytes."""
    arg_names = ["X", "N"]
    __name__ = "fake"

    def __init__(self, table):
        self.table = table  # BLOCK: (ms, local bytes)
        self.calls = {}

    def run(self, *args, grid, **kwargs):
        block = kwargs["BLOCK"]
        self.calls[block] = self.calls.get(block, 0) + 1
        return _Result(*self.table[block])

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)


def tuned(table):
    fake = _FakeKernel(table)
    configs = [tritonc.Config({"BLOCK": b}) for b in table]
    tuner = tritonc.autotune(configs=configs, key=["N"], cache_results=False,
                             do_bench=lambda call: call().ms)(fake)
    tuner[(1,)](None, int(rng.integers(1, 1000)))
    return tuner, fake


def test_spilling_configurations_are_skipped_where_others_do_not_spill():
    times = rng.permutation(np.arange(1, 6)).astype(float)
    spills = [0, 0, 16, 64, 8]
    fastest = int(np.argmin(times))
    spills[fastest] = int(rng.integers(4, 512))  # the fastest spills: it must not be chosen
    table = {16 << k: (times[k], spills[k]) for k in range(5)}
    tuner, fake = tuned(table)
    clean = [b for b, (_, s) in table.items() if s == 0]
    assert tuner.best_config.kwargs["BLOCK"] == min(clean, key=lambda b: table[b][0])
    assert {c.kwargs["BLOCK"] for c in tuner.configs if repr(c) in tuner.spills} == \
        {b for b, (_, s) in table.items() if s > 0}
    for c in tuner.configs:
        block = c.kwargs["BLOCK"]
        if table[block][1] > 0:
            assert tuner.timings[c] == float("inf")
            assert "spills %d bytes" % table[block][1] in tuner.errors[repr(c)]
            assert fake.calls[block] == 1  # compiled and loaded once, never timed
        else:
            assert tuner.timings[c] == table[block][0]


@pytest.mark.parametrize("all_spill", [True, False])
def test_where_all_spill_they_are_timed_as_the_rest(all_spill):
    times = rng.permutation(np.arange(1, 5)).astype(float)
    table = {32 << k: (times[k], int(rng.integers(4, 256)) if all_spill else 0) for k in range(4)}
    tuner, _ = tuned(table)
    assert tuner.best_config.kwargs["BLOCK"] == min(table, key=lambda b: table[b][0])
    assert all(tuner.timings[c] == table[c.kwargs["BLOCK"]][0] for c in tuner.configs)
    assert bool(tuner.spills) == all_spill


@pytest.fixture(params=__import__("dsl_backends").language_backends())
def backend(request, monkeypatch):
    import dsl_backends
    return dsl_backends.use(monkeypatch, request.param)


def test_local_bytes_of_a_launched_kernel(backend):
    """CompiledKernel.local_bytes(): the driver's figure after a launch on
    the GPU (0 for a vector add, which spills nothing); -1 elsewhere."""
    import dsl_kernels as K
    n = int(rng.integers(100, 5000))
    x, y = rng.random(n).astype(np.float32), rng.random(n).astype(np.float32)
    args = [x, y, np.full(n, np.nan, np.float32)]
    if backend == "cuda":
        import torch
        args = [torch.from_numpy(a).cuda() for a in args]
    # .run: the Python launch path, which returns the compiled kernel
    compiled = K.add_kernel.run(*args, n, grid=(tritonc.cdiv(n, 256),), BLOCK_SIZE=256)
    out = args[2].cpu().numpy() if backend == "cuda" else args[2]
    np.testing.assert_array_equal(out, x + y)
    assert compiled.local_bytes() == (0 if backend == "cuda" else -1)


def test_progress_on_request(monkeypatch, capsys):
    """TRITONC_TUNE_VERBOSE=1: a line per configuration (n of N, its time or
    why it was skipped, the best so far) and the choice, as the runtime's
    tuner prints; TRITON_PRINT_AUTOTUNING=1 (Triton's): the choice only."""
    times = rng.permutation(np.arange(1, 4)).astype(float)
    table = {64 << k: (times[k], 0) for k in range(3)}
    spiller = 64 << int(rng.integers(0, 3))
    table[spiller] = (table[spiller][0], 24)
    monkeypatch.setenv("TRITONC_TUNE_VERBOSE", "1")
    tuner, _ = tuned(table)
    err = capsys.readouterr().err.splitlines()
    lines = [e for e in err if "configuration" in e and " of 3 " in e]
    assert len(lines) == 3, err
    for k, (block, (ms, local)) in enumerate(table.items()):
        assert lines[k].startswith("  configuration %d of 3 (Config({BLOCK: %d}" % (k + 1, block))
        assert ("spills 24 bytes" in lines[k]) == (block == spiller)
        assert (("%.4f ms" % ms) in lines[k]) == (block != spiller)
    best = tuner.best_config.kwargs["BLOCK"]
    assert "best so far %.4f ms" % table[best][0] in lines[-1]
    assert any("best config selected" in e and "BLOCK: %d" % best in e for e in err)
    monkeypatch.delenv("TRITONC_TUNE_VERBOSE")
    monkeypatch.setenv("TRITON_PRINT_AUTOTUNING", "1")
    tuned(table)
    err = capsys.readouterr().err.splitlines()
    assert not any(" of 3 " in e for e in err) and any("best config selected" in e for e in err), err


def test_clearly_slower_configurations_stop_early(monkeypatch):
    """Each configuration after the first gets a short run first (a few ms
    of calls); one already 30% slower than the best so far is timed no more,
    the others as before. The choice is the fastest either way."""
    from tritonc import autotuner, testing
    times = rng.permutation(np.geomspace(1.0, 8.0, 6))
    table = {16 << k: (float(times[k]), 0) for k in range(6)}
    reps = {}

    def fake_bench(call, warmup=25, rep=100, return_mode="mean", **kw):
        r = call()
        reps.setdefault(r.ms, []).append(rep)
        return r.ms

    monkeypatch.setattr(testing, "do_bench", fake_bench)
    fake = _FakeKernel(table)
    configs = [tritonc.Config({"BLOCK": b}) for b in table]
    tuner = tritonc.autotune(configs=configs, key=["N"], cache_results=False, warmup=5, rep=40)(fake)
    tuner[(1,)](None, int(rng.integers(1, 1000)))
    assert tuner.best_config.kwargs["BLOCK"] == min(table, key=lambda b: table[b][0])
    best = float("inf")
    for c in configs:
        ms = table[c.kwargs["BLOCK"]][0]
        early = best != float("inf") and ms > autotuner._CLEARLY_SLOWER * best
        assert (repr(c) in tuner.stopped_early) == early
        # the first has no short run; a clearly slower one only that; the others both
        assert reps[ms] == ([] if best == float("inf") else [autotuner._QUICK_MS]) + ([] if early else [40])
        best = min(best, ms)
