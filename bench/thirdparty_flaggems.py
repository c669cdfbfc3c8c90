# FlagGems (flagos-ai/FlagGems, a third-party library of Triton kernels for
# torch's operators; its source is not part of tritonc) tested by its own
# pytest suite on the GPU with `import triton` resolving to tritonc
# (tritonc.install_as_triton(), loaded as a pytest plugin before FlagGems'
# conftest imports triton). The test files run in chunks, several pytest
# processes at once, in quick mode, until a time budget is spent; the tests
# that fail under tritonc then run again under Triton 3.6, so that a failure
# of the library or the environment is told from one of ours.
#   python3 bench/thirdparty_flaggems.py OUT_DIR FLAGGEMS_ROOT
#     [--jobs N] [--chunk N] [--budget S] [--chunk-timeout S] [--only SUBSTR,...]
# FLAGGEMS_ROOT holds FlagGems' src/, tests/ and pytest.ini; FLAGGEMS_SITE, if
# set, is a directory of packages FlagGems needs (PyYAML, SQLAlchemy) put at
# the end of the path, used only where the machine lacks them.
# Writes OUT_DIR/flaggems.json and prints a summary (tritonc-only failures
# with their first message).
import argparse, json, os, re, subprocess, sys, tempfile, time
from concurrent.futures import ThreadPoolExecutor

PLUGIN = """
import tritonc
tritonc.install_as_triton()
"""
RESULT = re.compile(r"^(tests/\S+::\S+) (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b")
SUMMARY = re.compile(r"^(FAILED|ERROR) (tests/\S+::\S+)(?: - (.*))?$")


def run_pytest(root, env, node_ids, timeout, log=None):
    """{node id: outcome}, {node id: first message}, seconds, whether it timed out.
    log: a file to which pytest's output is appended."""
    cmd = [sys.executable, "-m", "pytest", "-v", "-rfE", "--quick", "-p", "no:cacheprovider", "--tb=short",
           "-o", "addopts="] + node_ids
    env = dict(env, COLUMNS="1000")  # (the summary's messages not cut to the terminal's width)
    if env.get("TRITONC_AS_TRITON") == "1":
        cmd[3:3] = ["-p", "fg_tritonc_plugin"]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=timeout)
        out, timed_out = p.stdout + p.stderr, False
    except subprocess.TimeoutExpired as ex:
        out = (ex.stdout or b"").decode(errors="replace") if isinstance(ex.stdout, bytes) else (ex.stdout or "")
        timed_out = True
    if log:
        with open(log, "a") as f:
            f.write("==== %s\n%s\n" % (" ".join(node_ids)[:500], out[-400000:]))
    outcomes, messages = {}, {}
    for line in out.splitlines():
        m = RESULT.match(line)
        if m:
            outcomes[m.group(1)] = m.group(2)
        m = SUMMARY.match(line)
        if m:
            messages.setdefault(m.group(2), (m.group(3) or "")[:300])
    if not outcomes:  # (collection failed, or the process died at once)
        tail = [l for l in out.splitlines() if l.strip()][-6:]
        for n in node_ids:
            outcomes[n] = "TIMEOUT" if timed_out else "NOT RUN"
            messages[n] = " | ".join(tail)[-300:]
    return outcomes, messages, time.time() - t0, timed_out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir")
    ap.add_argument("root")
    ap.add_argument("--jobs", type=int, default=min(8, os.cpu_count() or 2))
    ap.add_argument("--chunk", type=int, default=6)
    ap.add_argument("--budget", type=float, default=300.0)
    ap.add_argument("--chunk-timeout", type=float, default=240.0)
    ap.add_argument("--only", default="")
    ap.add_argument("--no-recheck", action="store_true", help="no re-run of the failures under Triton")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    os.makedirs(args.out_dir, exist_ok=True)
    plugin_dir = tempfile.mkdtemp(prefix="fg_plugin_")
    with open(os.path.join(plugin_dir, "fg_tritonc_plugin.py"), "w") as f:
        f.write(PLUGIN)
    files = sorted(f for f in os.listdir(os.path.join(root, "tests")) if re.match(r"test_.*\.py$", f))
    if args.only:  # (substrings, comma-separated, or @FILE: names one a line)
        only = open(args.only[1:]).read().split() if args.only.startswith("@") else args.only.split(",")
        files = [f for f in files if any(s in f for s in only)]
    # Spread over the alphabet, so that a budget cut short still samples all kinds of operators.
    stride = 5
    files = [f for k in range(stride) for f in files[k::stride]]
    chunks = [["tests/" + f for f in files[i:i + args.chunk]] for i in range(0, len(files), args.chunk)]

    base = dict(os.environ)
    base.setdefault("GEMS_VENDOR", "nvidia")
    # (absolute: pytest runs in FLAGGEMS_ROOT)
    path = [plugin_dir, os.path.join(root, "src")] + base.get("PYTHONPATH", "").split(os.pathsep)
    if os.environ.get("FLAGGEMS_SITE"):
        path.append(os.environ["FLAGGEMS_SITE"])
    base["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in path if p)
    ours = dict(base, TRITONC_AS_TRITON="1")

    start = time.time()
    results, messages, chunk_log = {}, {}, []

    def work(chunk):
        if time.time() - start > args.budget:
            return chunk, None
        return chunk, run_pytest(root, ours, chunk, args.chunk_timeout, os.path.join(args.out_dir, "flaggems-log.txt"))

    with ThreadPoolExecutor(args.jobs) as pool:
        for chunk, res in pool.map(work, chunks):
            if res is None:
                continue
            o, m, secs, timed_out = res
            results.update(o)
            messages.update(m)
            chunk_log.append(dict(files=chunk, seconds=round(secs, 1), timed_out=timed_out, tests=len(o)))
            print("%5.0f s  %-70s %4d tests%s" % (time.time() - start, " ".join(f[6:] for f in chunk)[:70], len(o),
                                                 "  (timed out)" if timed_out else ""), flush=True)
    ran_files = sorted({f for c in chunk_log for f in c["files"]})

    failed = sorted(n for n, o in results.items() if o in ("FAILED", "ERROR", "TIMEOUT", "NOT RUN"))
    # The same tests under Triton: which failures are ours?
    theirs, their_messages = {}, {}
    by_file = {}
    for n in failed:
        by_file.setdefault(n.split("::")[0], []).append(n)
    groups = [ids if not any(results[i] in ("TIMEOUT", "NOT RUN") for i in ids) else [f] for f, ids in by_file.items()]
    if args.no_recheck:
        groups = []

    def recheck(ids):
        return run_pytest(root, base, ids, args.chunk_timeout)

    with ThreadPoolExecutor(args.jobs) as pool:
        for o, m, _, _ in pool.map(recheck, groups):
            theirs.update(o)
            their_messages.update(m)

    counts = {}
    for o in results.values():
        counts[o] = counts.get(o, 0) + 1

    def their(n):  # (a whole file that did not run under tritonc: Triton's counts over it)
        if "::" in n:
            return theirs.get(n, "?")
        got = [o for k, o in theirs.items() if k.split("::")[0] == n]
        return "%d of %d passed" % (got.count("PASSED"), len(got)) if got else theirs.get(n, "?")
    ours_only = [n for n in failed if their(n) in ("PASSED", "SKIPPED") or
                 ("::" not in n and their(n).split(" of ")[0] not in ("0", "?"))]
    print("\nFlagGems' tests under tritonc: %d files of %d, %d tests: %s" % (
        len(ran_files), len(files), len(results), ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
    print("failing under tritonc: %d; of them passing under Triton 3.6: %d" % (len(failed), len(ours_only)))
    for n in ours_only:
        print("  tritonc only: %s (Triton: %s)\n      %s" % (n, their(n), messages.get(n, "")[:300]))
    for n in failed:
        if n not in ours_only:
            print("  also under Triton (%s): %s\n      %s" % (their(n), n, their_messages.get(n, messages.get(n, ""))[:200]))
    try:
        import torch
        device, torch_version = torch.cuda.get_device_name(), torch.__version__
    except Exception:  # noqa: BLE001
        device, torch_version = None, None
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from commit_label import commit_label
    json.dump(dict(device=device, commit=commit_label(), torch=torch_version, files_run=ran_files,
                   files_total=len(files), counts=counts, tritonc=results, tritonc_messages=messages,
                   triton_rerun=theirs, triton_messages=their_messages, ours_only=ours_only, chunks=chunk_log,
                   method="FlagGems' pytest suite (--quick), import triton resolved to tritonc by a pytest plugin; "
                          "failing tests re-run under Triton"),
              open(os.path.join(args.out_dir, "flaggems.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
