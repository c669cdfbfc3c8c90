# Triton's own language tests (triton-lang/triton's python/test/unit/language,
# not part of tritonc) run under tritonc: `import triton` resolves to tritonc
# (tritonc.install_as_triton(), from a pytest plugin loaded before the tests
# import triton) and `triton._internal_testing` is the tests' own helper file.
# On a host without a GPU the tests' tensors are CPU tensors (--device cpu:
# tritonc's CPU back end); on the GPU host, CUDA tensors. The tests that fail
# under tritonc can run again under Triton itself (--recheck; on the CPU through
# its interpreter, TRITON_INTERPRET=1), so that a test of Triton's internals or
# of its own messages is told from a fault of ours.
#   python3 bench/thirdparty_triton_tests.py OUT_DIR TESTS_ROOT [--device cpu|cuda]
#       [--files test_core.py,...] [-k EXPR] [--jobs N] [--timeout S] [--recheck]
# TESTS_ROOT holds python/test/conftest.py, python/test/unit/language/,
# python/triton/_internal_testing.py and python/triton/tools/mxfp.py of one
# Triton commit (git archive).
# Writes OUT_DIR/triton-tests.json and prints the failures grouped by test
# function with their first message.
import argparse, json, os, re, signal, subprocess, sys, tempfile, time
import xml.etree.ElementTree as ET

# (the tests' own triton._internal_testing, for Triton itself too: the tests
# of one commit import helpers that an installed release may not have; and
# triton.tools.mxfp, test_mxfp's and test_matmul's torch-only reference
# formats, where TESTS_ROOT has it)
HELPERS = """
import importlib.util, os, sys
for _name, _rel in (("triton._internal_testing", "_internal_testing.py"), ("triton.tools.mxfp", "tools/mxfp.py")):
    _path = os.path.join(os.environ["TRITON_TESTS_ROOT"], "python", "triton", _rel)
    if not os.path.exists(_path):
        continue
    _spec = importlib.util.spec_from_file_location(_name, _path)
    _mod = importlib.util.module_from_spec(_spec)
    sys.modules[_name] = _mod
    _spec.loader.exec_module(_mod)
"""
MARKERS = """
def pytest_configure(config):
    config.addinivalue_line("markers", "interpreter: runs on Triton's interpreter too")
    config.addinivalue_line("markers", "cpu: runs on the CPU")
"""


def have(module):
    return subprocess.run([sys.executable, "-c", "import " + module], capture_output=True).returncode == 0


def run_pytest(test_dir, env, targets, args, xml_path, plugin):
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:warnings", "--tb=short",
           "--device", args.device, "--junitxml", xml_path, "-o", "addopts=", "-o", "junit_family=xunit1"]
    cmd += ["-p", plugin]
    if args.k:
        cmd += ["-k", args.k]
    if args.jobs > 1 and have("xdist"):
        cmd += ["-n", str(args.jobs)]
    if have("pytest_timeout"):
        cmd += ["--timeout", str(args.timeout)]
    cmd += ["-v"]  # (each outcome on its line: what a run cut short by --budget still tells)
    t0 = time.time()
    # (a session of its own: at the budget, pytest and its workers are killed together)
    p = subprocess.Popen(cmd + targets, cwd=test_dir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=args.budget or None)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        out += "\n(stopped after the budget of %.0f s)\n" % args.budget
    return out, time.time() - t0


def outcomes_from_log(log):
    """{node id: (outcome, "")} from pytest -v's lines (a run cut short)."""
    out = {}
    for m in re.finditer(r"\b(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (unit/\S+::\S+)", log):
        out[m.group(2)] = ({"XFAIL": "SKIPPED", "XPASS": "PASSED"}.get(m.group(1), m.group(1)), "")
    for m in re.finditer(r"(unit/\S+::\S+) (PASSED|FAILED|ERROR|SKIPPED)\b", log):
        out.setdefault(m.group(1), (m.group(2), ""))
    return out


def outcomes(xml_path):
    """{node id: (outcome, first line of its message)} from pytest's JUnit XML."""
    out = {}
    if not os.path.exists(xml_path):
        return out
    for case in ET.parse(xml_path).getroot().iter("testcase"):
        node = case.get("file", "") + "::" + case.get("name", "")
        if not case.get("file"):
            node = case.get("classname", "").replace(".", "/") + ".py::" + case.get("name", "")
        outcome, message = "PASSED", ""
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = {"failure": "FAILED", "error": "ERROR", "skipped": "SKIPPED"}[child.tag]
                message = (child.get("message") or child.text or "").strip()
                break
        out[node] = (outcome, message)
    return out


def first_line(message):
    lines = [l for l in message.splitlines() if l.strip()]
    text = " | ".join(lines[:2])
    return re.sub(r"/\S+/", "", text)[:220]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir")
    ap.add_argument("root")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--files", default="test_core.py")
    ap.add_argument("-k", default="")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds a test may take")
    ap.add_argument("--budget", type=float, default=0, help="seconds the whole run may take (0: no limit)")
    ap.add_argument("--recheck", action="store_true", help="re-run the failures under Triton itself")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    os.makedirs(args.out_dir, exist_ok=True)
    plugin_dir = tempfile.mkdtemp(prefix="tt_plugin_")
    with open(os.path.join(plugin_dir, "tt_tritonc_plugin.py"), "w") as f:
        f.write("import tritonc\ntritonc.install_as_triton()\n" + HELPERS + MARKERS)
    with open(os.path.join(plugin_dir, "tt_triton_plugin.py"), "w") as f:
        f.write("import triton\n" + HELPERS + MARKERS)
    test_dir = os.path.join(root, "python", "test")
    targets = ["unit/language/" + f for f in args.files.split(",") if f]

    base = dict(os.environ, TRITON_TESTS_ROOT=root, COLUMNS="1000")
    # (absolute: pytest runs in the tests' folder)
    base["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in [plugin_dir] +
                                         base.get("PYTHONPATH", "").split(os.pathsep) if p)
    ours = dict(base)
    ours.pop("TRITON_INTERPRET", None)
    xml = os.path.join(args.out_dir, "triton-tests-tritonc.xml")
    log, secs = run_pytest(test_dir, ours, targets, args, xml, "tt_tritonc_plugin")
    with open(os.path.join(args.out_dir, "triton-tests-log.txt"), "w") as f:
        f.write(log[-2000000:])
    results = outcomes(xml)
    if not results:  # (the run was stopped: no XML)
        results = outcomes_from_log(log)
    counts = {}
    for o, _ in results.values():
        counts[o] = counts.get(o, 0) + 1
    failed = sorted(n for n, (o, _) in results.items() if o in ("FAILED", "ERROR"))

    theirs = {}
    if args.recheck and failed:
        # Triton itself: the real package, its interpreter where there is no GPU.
        env = dict(base)
        env["PYTHONPATH"] = plugin_dir  # (its own triton._internal_testing)
        if args.device == "cpu":
            env["TRITON_INTERPRET"] = "1"
        xml2 = os.path.join(args.out_dir, "triton-tests-triton.xml")
        ids = ["unit/language/" + n.split("/language/", 1)[-1] for n in failed]
        ids = [n for n in ids if "::test" in n]  # (not a file that failed to collect: no such node)
        rargs = argparse.Namespace(**dict(vars(args), k=""))
        log2, _ = run_pytest(test_dir, env, ids, rargs, xml2, "tt_triton_plugin")
        with open(os.path.join(args.out_dir, "triton-tests-recheck-log.txt"), "w") as f:
            f.write(log2[-2000000:])
        theirs = {n: o for n, (o, _) in outcomes(xml2).items()}

    def key(node):
        return node.split("/language/", 1)[-1]
    their = {key(n): o for n, o in theirs.items()}

    groups = {}
    for n in failed:
        fn = re.sub(r"\[.*", "", key(n))
        g = groups.setdefault(fn, dict(count=0, triton_passes=0, rechecked=0, messages={}))
        g["count"] += 1
        t = their.get(key(n))
        if t is not None:
            g["rechecked"] += 1
            g["triton_passes"] += t in ("PASSED", "SKIPPED")
        m = first_line(results[n][1])
        g["messages"][m] = g["messages"].get(m, 0) + 1

    print("Triton's tests under tritonc (%s, %s): %s in %.0f s" % (
        args.device, ",".join(targets), ", ".join("%s %d" % kv for kv in sorted(counts.items())), secs))
    for fn, g in sorted(groups.items(), key=lambda kv: -kv[1]["count"]):
        recheck = " (Triton passes %d of %d rechecked)" % (g["triton_passes"], g["rechecked"]) if g["rechecked"] else ""
        print("%5d %s%s" % (g["count"], fn, recheck))
        for m, c in sorted(g["messages"].items(), key=lambda kv: -kv[1])[:3]:
            print("        %4d  %s" % (c, m))
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from commit_label import commit_label
    commit_file = os.path.join(root, "COMMIT")
    with open(os.path.join(args.out_dir, "triton-tests.json"), "w") as f:
        json.dump(dict(commit=commit_label(), device=args.device, triton_tests_commit=open(commit_file).read().strip()
                       if os.path.exists(commit_file) else "", files=targets, k=args.k, counts=counts,
                       seconds=round(secs, 1), failures={key(n): dict(outcome=results[n][0],
                                                                      message=first_line(results[n][1]),
                                                                      triton=their.get(key(n)))
                                                         for n in failed}, groups=groups), f, indent=1)


if __name__ == "__main__":
    main()
