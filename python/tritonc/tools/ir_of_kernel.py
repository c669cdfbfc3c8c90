"""``python -m tritonc.tools FILE.py KERNEL [--signature SIG] [-DNAME=VALUE]...``
prints the Triton-IR of a @tritonc.jit kernel for one specialization (what
``tritonc emit FILE.py:KERNEL`` compiles further). SIG gives the runtime
parameters' types, by name or in order: ``x_ptr=*fp32,n=i32`` or
``*fp32,*fp32,i32`` (``*`` marks a pointer; fp8e4nv fp8e5 fp16 bf16 fp32
fp64 i1 i8 i16 i32 i64, or f16 f32 ...); parameters not given are int32 (pointers must be
given). -D gives constexpr values (ints, floats, True/False, dtype names
such as float16). The file is imported as a module, as Triton's AOT
compiler does."""
import importlib.util
import os
import sys

from .. import language as tl
from ..jit import JITFunction
from ..language.type_names import str_to_ty

def parse_type(text):
    text = text.strip()
    if ":" in text:
        # Triton's AOT suffix (i32:16, divisible by 16): here the facts come
        # from values, as at a launch.
        raise ValueError("'%s': a type takes no ':' suffix here; to specialize an integer as a launch would (divisible "
                         "by 16, equal to 1), give its value with --arg NAME=VALUE" % text)
    return str_to_ty(text)


def parse_value(text):
    if text in ("True", "true"):
        return True
    if text in ("False", "false"):
        return False
    if text == "None":
        return None
    for cast in (int, float):
        try:
            return cast(text, 0) if cast is int else cast(text)
        except ValueError:
            pass
    dt = getattr(tl, text.replace("tl.", ""), None)
    if isinstance(dt, tl.dtype):
        return dt
    try:
        return tl.dtype(text)  # Triton's names too: fp16, bf16, fp32
    except TypeError:
        return text


def kernel_ir(path, name, signature="", defines=()):
    spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(path))[0], path)
    if spec is None:
        raise ValueError("cannot load '%s'" % path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    spec.loader.exec_module(module)
    fn = getattr(module, name, None)
    while fn is not None and not isinstance(fn, JITFunction) and hasattr(fn, "fn"):
        fn = fn.fn  # autotune / heuristics wrappers
    if not isinstance(fn, JITFunction):
        kernels = sorted(n for n, v in vars(module).items() if isinstance(v, JITFunction))
        raise ValueError("'%s' has no @tritonc.jit kernel named '%s' (it has: %s)" % (path, name, ", ".join(kernels)))
    constexprs = {}
    for d in defines:
        key, _, value = d.partition("=")
        constexprs[key] = parse_value(value)
    runtime = [n for n in fn.arg_names if n not in fn.constexpr_names and n not in constexprs]
    types = {}
    items = [s for s in signature.split(",") if s.strip()] if signature else []
    for k, item in enumerate(items):
        if "=" in item:
            key, _, t = item.partition("=")
            types[key.strip()] = parse_type(t)
        elif k < len(runtime):
            types[runtime[k]] = parse_type(item)
    unknown = set(types) - set(runtime)
    if unknown:
        raise ValueError("the signature names %s, not runtime parameters of %s (%s)"
                         % (", ".join(sorted(unknown)), name, ", ".join(runtime)))
    missing = [n for n in fn.constexpr_names if n not in constexprs and n not in fn.defaults]
    if missing:
        raise ValueError("give the constexpr parameters %s with -DNAME=VALUE" % ", ".join(missing))
    for n in fn.constexpr_names:
        if n not in constexprs:
            constexprs[n] = fn.defaults[n]
    params = [(n, types.get(n, tl.int32)) for n in runtime]
    from ..codegen import generate
    text, _ = generate(fn, params, constexprs, fn.file_name, fn._debug())
    return text


def main(argv):
    if len(argv) < 2 or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv and argv[0] in ("-h", "--help") else 1
    path, name = argv[0], argv[1]
    signature, defines = "", []
    i = 2
    while i < len(argv):
        a = argv[i]
        if a == "--signature" and i + 1 < len(argv):
            signature = argv[i + 1]
            i += 1
        elif a.startswith("--signature="):
            signature = a.split("=", 1)[1]
        elif a == "-D" and i + 1 < len(argv):
            defines.append(argv[i + 1])
            i += 1
        elif a.startswith("-D"):
            defines.append(a[2:])
        else:
            print("tritonc.tools: unknown argument '%s'" % a, file=sys.stderr)
            return 1
        i += 1
    # What the user's module prints as it is imported (print, os.write(1, ...), C code)
    # goes to stderr: file descriptor 1 carries the IR alone.
    out = sys.stdout
    out.flush()
    ir_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        text = kernel_ir(path, name, signature, defines)
    except Exception as e:  # noqa: BLE001  (a user's mistake: one message, no traceback)
        print(str(e), file=sys.stderr)
        return 1
    finally:
        sys.stdout = out
        sys.stderr.flush()
        os.dup2(ir_fd, 1)
        os.close(ir_fd)
    out.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
