"""The Python DSL's code generator: walks a @jit kernel's Python AST and
builds SSA Triton-IR through the C++ FunctionBuilder (the same IR, passes and
back ends as Triton-C).

Values while generating: Python objects (constexprs, dtypes, functions,
tuples) are evaluated in Python; tensors are IR values. A variable holding a
tensor is an SSA variable of the builder, one per (name, type), so control
flow needs no phi bookkeeping here: at a merge, a name keeps its binding when
every incoming path agrees on its type, and a loop-carried variable must keep
its type through the loop (as in Triton). Calls of other @jit functions are
inlined. Errors are CompilationError, located in the user's file.
"""
import ast
import sys
import builtins
import operator

from . import language as tl
from .language import core, semantic
from .language.core import CompileError, constexpr, tensor, unwrap


def _as_tuple(x):
    """A tuple or list, nested ones and constexprs unwrapped: what Triton
    compares when kernel code compares sequences."""
    return tuple(_as_tuple(e) if isinstance(e, (tuple, list)) else e for e in (unwrap(v) for v in x))


class CompilationError(CompileError):
    """A compile error located in the user's Python file: the message reads
    ``FILE:LINE:COL: error: ...`` with the source line and a caret;
    ``error_message`` (Triton's attribute) and ``reason`` are what it says
    without the place."""

    def __init__(self, file, line, col, message, source_line=None):
        self.file, self.line, self.col, self.reason = file, line, col, message
        self.error_message = message
        text = "%s:%d:%d: error: %s" % (file, line, col, message)
        if source_line is not None:
            text += "\n" + source_line.rstrip("\n") + "\n" + " " * (col - 1) + "^"
        super().__init__(text)


# ---- how variables are stored ---------------------------------------------------

def _effects():
    """What must not run under an element's predicate (its other elements
    would do it too): memory and printing."""
    return {tl.store, tl.load, tl.atomic_add, tl.atomic_and, tl.atomic_cas, tl.atomic_max, tl.atomic_min,
            tl.atomic_or, tl.atomic_xchg, tl.atomic_xor, tl.device_print, tl.device_assert}


class _Conflict:
    """A name whose paths into a merge disagree (different types, or defined
    on some paths only): reading it is an error saying so."""

    def __init__(self, why):
        self.why = why


def _same(a, b):
    if a is b:
        return True
    if type(a) is not type(b) or not isinstance(a, tuple):
        return False
    if a[0] != b[0]:
        return False
    if a[0] == "py":
        try:
            return type(a[1]) is type(b[1]) and bool(a[1] == b[1])
        except Exception:
            return False
    if a[0] == "t":
        return a[1] == b[1]
    if a[0] == "tuple":
        return a[2] is b[2] and len(a[1]) == len(b[1]) and all(_same(x, y) for x, y in zip(a[1], b[1]))
    if a[0] == "obj":
        return a[1] == b[1] and len(a[3]) == len(b[3]) and all(_same(x, y) for x, y in zip(a[3], b[3]))
    return False


def _describe_slot(s):
    if isinstance(s, _Conflict) or s is None:
        return "undefined"
    if s[0] == "py":
        return repr(s[1])
    if s[0] == "t":
        dt = s[3]
        plain = not dt.is_int_unsigned() and not (dt.is_ptr() and (dt.element_ty.is_int_unsigned() or dt.is_const()))
        return s[2] if plain else repr(dt) + (str(list(s[4])) if s[4] else "")
    if s[0] == "tuple":
        return "(" + ", ".join(_describe_slot(x) for x in s[1]) + ")"
    return s[1][0]


class _Frame:
    """One function body: the kernel, or a @jit function inlined into it."""

    def __init__(self, fn, file, first_line, lines, col_offset, glob):
        self.fn, self.file, self.first_line, self.lines = fn, file, first_line, lines
        self.col_offset, self.globals = col_offset, glob
        # the variables of the functions it is defined in (a kernel or helper
        # defined inside a function names that function's locals)
        code = getattr(getattr(fn, "fn", None), "__code__", None)
        self.closure = dict(zip(code.co_freevars, fn.fn.__closure__ or ())) if code is not None else {}
        self.bindings = {}
        self.vars = {}  # (name, path, ir type) -> SSA variable
        self.exit = None  # inlined functions: the block returns go to
        self.ret_slot = None
        self.returns_nothing = False  # a `return` without a value was seen
        # tl.map_elementwise's function (and what it calls): its arguments are
        # whole tiles, an `if` on an element's value runs both branches under
        # a predicate and selects, and returns accumulate into ret_value per
        # element (done: the elements that have returned).
        self.elementwise = False
        self.predicate = None
        self.done = None
        self.ret_value = None
        self.finished = False  # every element has returned
        self.shape = None  # the elements' shape: numbers assigned become tiles of it
        self.several_returns = False  # an inlined function with more than one return statement


def _named_tuple_type(value):
    """The class of a named tuple (typing.NamedTuple, collections.namedtuple;
    kept through variables, arguments and returns), else None."""
    t = type(value)
    return t if t is not tuple and isinstance(value, tuple) and hasattr(t, "_fields") else None


def _like_tuple(value, items):
    """`items` as a tuple of `value`'s kind (a named tuple stays one)."""
    t = _named_tuple_type(value)
    return t(*items) if t is not None else tuple(items)


def _is_number(v):
    return isinstance(v, (bool, int, float)) and not isinstance(v, constexpr)


def _numbers_to_tensors(value, like=None):
    """`value` with its Python numbers made tensors, where `like` (a slot of
    the same shape) holds a tensor, or everywhere without `like`."""
    if isinstance(value, tuple):
        subs = like[1] if like is not None and like[0] == "tuple" and len(like[1]) == len(value) else None
        if like is not None and subs is None:
            return value
        return _like_tuple(value, (_numbers_to_tensors(v, subs[i] if subs else None) for i, v in enumerate(value)))
    if _is_number(value) and (like is None or like[0] == "t"):
        return semantic.to_tensor(value)
    return value


def _has_number_leaf(slot):
    if slot[0] == "tuple":
        return any(_has_number_leaf(s) for s in slot[1])
    return slot[0] == "py" and _is_number(slot[1])


def _assigned_names(stmts):
    return {n.id for stmt in stmts for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


class _Loop:
    def __init__(self, continue_to, break_to, before, node):
        self.continue_to, self.break_to, self.before, self.node = continue_to, break_to, before, node


class _Generator(ast.NodeVisitor):
    def __init__(self, fb, kernel_file, debug=False):
        self.fb = fb
        self.kernel_file = kernel_file
        self.debug = debug  # device assertions are compiled (tl.device_assert, assert on tensors)
        self.num_warps = None  # the launch's, where known (generate)
        self.frames = []
        self.loops = []
        self.dot_precisions = set()
        self.depth = 0
        self.dead = False
        self.node = None
        # Globals read as values (numbers, strings, dtypes, constexprs): the
        # kernel is compiled with these values, so a launch checks they are
        # still there (Triton refuses a kernel whose globals changed).
        self.used_globals = {}  # (id(globals dict), name) -> (globals dict, name, value)

    @property
    def frame(self):
        return self.frames[-1]

    # ---- called by the language -------------------------------------------------

    def note_dot_precision(self, precision):
        self.dot_precisions.add(precision)

    def call(self, fn, args, scalars=False):
        """Calls `fn` (a @jit function, inlined, or a Python callable) with
        `args`: combine functions of scans and reductions. With `scalars`, a
        @jit function is inlined as one block on its scalar arguments (its
        returns picked by selects, as tl.map_elementwise's), outside any
        condition of the kernel: the body of an IR combine function."""
        from .jit import JITFunction
        if isinstance(fn, JITFunction):
            if scalars:
                return self.inline(self.node, fn, list(args), {}, elementwise=True, shape=(), outside=True)
            return self.inline(self.node, fn, list(args), {})
        return fn(*args)

    # ---- errors and locations ---------------------------------------------------

    def position(self, node):
        f = self.frame
        return f.first_line + node.lineno - 1, node.col_offset + 1 + f.col_offset

    def error(self, node, message):
        line, col = self.position(node)
        f = self.frame
        src = f.lines[node.lineno - 1] if 0 < node.lineno <= len(f.lines) else None
        if src is not None and f.col_offset:
            src = " " * f.col_offset + src
        return CompilationError(f.file, line, col, message, src)

    def here(self, node):
        """Locates what is built next at `node` (after its operands moved it)."""
        if self.frame.file == self.kernel_file:
            self.fb.set_loc(*self.position(node))

    def visit(self, node):
        if hasattr(node, "lineno"):
            self.here(node)
            self.node = node
        try:
            return super().visit(node)
        except CompilationError:
            raise
        except RecursionError:
            raise self.error(node, "the kernel is nested too deeply to compile") from None
        except (CompileError, TypeError, ValueError, NameError, AttributeError, IndexError, KeyError,
                ArithmeticError, AssertionError, RuntimeError, OSError) as e:
            # (what Python code run at compile time raises, e.g. math.exp of a
            # large constexpr, a helper's NotImplementedError: located too)
            if not hasattr(node, "lineno"):
                raise
            msg = str(e) if isinstance(e, CompileError) else "%s: %s" % (type(e).__name__, e)
            raise self.error(node, msg) from None

    def generic_visit(self, node):
        raise CompileError("unsupported Python syntax in a kernel: %s" % type(node).__name__)

    # ---- variables ----------------------------------------------------------------

    def _store(self, name, path, value):
        if isinstance(value, tensor):
            t = value.ir_type()
            key = (name, path, t, value.dtype)  # int32 and uint32 share an IR type, not a variable
            var = self.frame.vars.get(key)
            if var is None:
                var = self.fb.new_var(t, name)
                self.frame.vars[key] = var
            self.fb.write(var, value.handle)
            return ("t", var, t, value.dtype, value.shape)
        if isinstance(value, tuple):
            return ("tuple", tuple(self._store(name, path + (i,), v) for i, v in enumerate(value)),
                    _named_tuple_type(value))
        if hasattr(value, "_leaves"):
            leaves = value._leaves()
            return ("obj", value._signature(), value,
                    tuple(self._store(name, path + (i,), v) for i, v in enumerate(leaves)))
        return ("py", value)

    def _load(self, slot):
        kind = slot[0]
        if kind == "t":
            return tensor(self.fb.read(slot[1]), slot[3], slot[4])
        if kind == "tuple":
            items = tuple(self._load(s) for s in slot[1])
            return slot[2](*items) if slot[2] is not None else items
        if kind == "obj":
            return slot[2]._rebuild([self._load(s) for s in slot[3]])
        return slot[1]

    def assign(self, name, value):
        if isinstance(value, (bool, int, float)) and not isinstance(value, constexpr):
            value = semantic.to_tensor(value)  # as Triton: assigned numbers are tensors
        elif isinstance(value, tuple):
            # A tuple's numbers become tensors where the variable's tuple has
            # tensors (a loop-carried one, below), so that the types stay.
            slot = self.frame.bindings.get(name)
            if isinstance(slot, tuple) and slot[0] == "tuple":
                value = _numbers_to_tensors(value, slot)
        self.frame.bindings[name] = self._store(name, (), value)

    def _carried_tuples_as_tensors(self, body):
        """Tuples holding Python numbers that the loop (or a runtime if's
        branch) assigns again have them made tensors before it, as Triton
        3.3+ makes every assigned tuple's numbers (`t = (1.0, 2)`, then
        `t = (t[0] * 2, t[1] + 1)` in the loop); other tuples keep their
        numbers (`shape = (16, 32)` stays a shape)."""
        for name in sorted(_assigned_names(body)):
            slot = self.frame.bindings.get(name)
            if isinstance(slot, tuple) and slot[0] == "tuple" and _has_number_leaf(slot):
                self.frame.bindings[name] = self._store(name, (), _numbers_to_tensors(self._load(slot)))

    def lookup(self, name):
        f = self.frame
        if name in f.bindings:
            slot = f.bindings[name]
            if isinstance(slot, _Conflict):
                if slot.why.startswith("has different types"):
                    raise CompileError("Mismatched type for %s: it %s" % (name, slot.why))
                raise CompileError("'%s' %s" % (name, slot.why))
            return self._load(slot)
        if name in f.closure:
            try:
                return f.closure[name].cell_contents
            except ValueError:  # (a cell not bound yet)
                raise NameError("name '%s' is not defined yet where the kernel was defined" % name) from None
        if name in f.globals:
            value = f.globals[name]
            if value is None or isinstance(value, (bool, int, float, str, constexpr, core.dtype)):
                self.used_globals[(id(f.globals), name)] = (f.globals, name, value)
            return value
        if hasattr(builtins, name):
            return getattr(builtins, name)
        raise NameError("name '%s' is not defined" % name)

    def _merge(self, maps):
        """The bindings after paths with bindings `maps` join."""
        if len(maps) == 1:
            return dict(maps[0])
        out = {}
        for name in set().union(*maps):
            slots = [m.get(name) for m in maps]
            if any(s is None for s in slots):
                out[name] = _Conflict("is defined on some paths only (assign it before the 'if')")
            elif all(_same(slots[0], s) for s in slots[1:]):
                out[name] = slots[0]
            else:
                out[name] = _Conflict("has different types on the paths that reach here (%s)"
                                      % ", ".join(sorted(set(_describe_slot(s) for s in slots))))
        return out

    def _check_loop_carried(self, loop, where):
        for name, before in loop.before.items():
            if isinstance(before, _Conflict):
                continue
            now = self.frame.bindings.get(name)
            if now is None or not _same(before, now):
                raise self.error(where, "'%s' is loop-carried and changes type in the loop: %s before it, %s %s "
                                        "(give it its final type before the loop, e.g. with tl.zeros)"
                                 % (name, _describe_slot(before), _describe_slot(now),
                                    "at the end of the body" if where is loop.node else "here"))

    # ---- blocks -----------------------------------------------------------------

    def _unreachable(self, name):
        """Goes on after a jump in a fresh block nothing reaches (dropped at
        the end); paths ending here join no merge."""
        bb = self.fb.new_block(name)
        self.enter(bb)
        self.fb.seal(bb)
        self.dead = True

    def enter(self, bb):
        self.fb.set_block(bb)
        self.dead = False

    def ends(self):
        """Whether the current path has ended (a jump, a return)."""
        return self.dead or self.fb.terminated()

    # ---- statements ------------------------------------------------------------

    def body(self, stmts):
        for s in stmts:
            # What follows a return, break or continue on this path (or an
            # `if` whose branches all ended) runs for nobody: it is not
            # compiled, so that a constexpr branch that returns can guard
            # what would not compile (a static_assert, a recursion's step).
            if self.frame.finished or self.dead:
                break
            self.visit(s)

    def visit_Expr(self, node):
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # a docstring
        if isinstance(node.value, ast.IfExp):
            # `store(a) if c else store(b)` as a statement: an if, one branch runs
            e = node.value
            stmt = ast.If(test=e.test, body=[ast.copy_location(ast.Expr(e.body), e.body)],
                          orelse=[ast.copy_location(ast.Expr(e.orelse), e.orelse)])
            self.visit(ast.copy_location(stmt, node))
            return
        hinted = self._hinted_name(node.value)
        value = self.visit(node.value)
        if hinted is not None and isinstance(unwrap(value), tensor):
            # `tl.multiple_of(x, 16)` as a statement: Triton attaches the hint
            # to x's value itself; here x takes the hinted value from now on
            # (dropping it lost the vector widths it promises).
            self.assign(hinted, value)

    def _hinted_name(self, expr):
        """The variable a hint call statement (tl.multiple_of,
        tl.max_contiguous, tl.max_constancy, nested) is about, else None."""
        hints = (tl.multiple_of, tl.max_contiguous, tl.max_constancy)
        name = None
        while isinstance(expr, ast.Call) and expr.args:
            if any(isinstance(n, ast.Call) for n in ast.walk(expr.func)):
                return None  # (looked up only where that runs nothing: tl.multiple_of, a name)
            try:
                fn = self.visit(expr.func)
            except CompileError:
                return None
            if fn not in hints:
                return None
            expr, name = expr.args[0], None
            if isinstance(expr, ast.Name):
                name = expr.id
        return name

    def visit_Pass(self, node):
        pass

    def visit_Assign(self, node):
        value = self.visit(node.value)
        if isinstance(value, constexpr) and isinstance(value.value, (bool, int, float)):
            # As Triton: a plain assignment makes a constexpr number a tensor (a
            # variable may then take a runtime value on another path); `v:
            # tl.constexpr = ...` keeps it.
            value = value.value
        for target in node.targets:
            self._assign_target(target, value)

    def visit_AnnAssign(self, node):
        if node.value is None:
            return
        value = self.visit(node.value)
        ann = node.annotation
        is_constexpr = (isinstance(ann, ast.Attribute) and ann.attr == "constexpr") or \
            (isinstance(ann, ast.Name) and ann.id == "constexpr")
        if is_constexpr and not isinstance(unwrap(value), tensor):
            # (a tensor stays one, as Triton lets it: its uses that need a
            # constant say so)
            value = constexpr(value)
        self._assign_target(node.target, value)

    def _per_element(self, value):
        """In tl.map_elementwise's function every variable holds one value per
        element: a number or scalar assigned there becomes a tile of the
        elements' shape (so that a loop may carry it)."""
        f = self.frame
        v = unwrap(value)
        if not f.elementwise or f.shape is None or isinstance(value, constexpr):
            return value
        if (isinstance(v, (bool, int, float)) and not isinstance(v, constexpr)) or \
                (isinstance(v, tensor) and v.shape == ()):
            return semantic.broadcast_to(semantic.to_tensor(v), f.shape)
        return value

    def _assign_target(self, target, value):
        if isinstance(target, ast.Name):
            self.assign(target.id, self._per_element(value))
        elif isinstance(target, (ast.Tuple, ast.List)):
            v = unwrap(value)
            if not isinstance(v, (tuple, list)):
                raise self.error(target, "cannot unpack %s" % type(v).__name__)
            if len(v) != len(target.elts):
                raise self.error(target, "cannot unpack %d values into %d names" % (len(v), len(target.elts)))
            for t, x in zip(target.elts, v):
                self._assign_target(t, x)
        else:
            raise self.error(target, "only names and tuples of names can be assigned in a kernel "
                                     "(store to memory with tl.store)")

    def visit_AugAssign(self, node):
        if not isinstance(node.target, ast.Name):
            raise CompileError("only names can be updated with %s=" % type(node.op).__name__)
        left = self.lookup(node.target.id)
        right = self.visit(node.value)
        self.here(node)
        self.assign(node.target.id, self._per_element(self._binop(node.op, left, right)))

    def visit_Return(self, node):
        f = self.frame
        value = self.visit(node.value) if node.value is not None else None
        if f.elementwise:
            self._elementwise_return(node, value)
            return
        if len(self.frames) == 1:
            if value is not None:
                raise CompileError("a kernel returns no value")
            self.fb.ret()
            self.dead = True
            return
        if unwrap(value) is None:  # `return` or `return None`: as falling off the end
            f.returns_nothing = True
            if f.ret_slot is not None:
                raise CompileError("this return gives no value; an earlier one gave %s" % _describe_slot(f.ret_slot))
            self.fb.br(f.exit)
            self._unreachable("after.return")
            return
        if f.returns_nothing:
            raise CompileError("this return gives a value; an earlier one gave none")
        if f.several_returns:
            value = _numbers_to_tensors(value)
        slot = self._store("$ret", (), value if not isinstance(value, (bool, int, float)) else semantic.to_tensor(value))
        if f.ret_slot is None:
            f.ret_slot = slot
        elif not _same(f.ret_slot, slot):
            raise CompileError("Return type mismatch: this return gives %s; an earlier one gave %s"
                               % (_describe_slot(slot), _describe_slot(f.ret_slot)))
        self.fb.br(f.exit)
        self._unreachable("after.return")

    def visit_If(self, node):
        cond = self.visit(node.test)
        if not isinstance(unwrap(cond), tensor):
            self.body(node.body if unwrap(cond) else node.orelse)
            return
        c = semantic.to_bool(cond)
        if self.frame.elementwise:  # (a scalar tensor condition too: selects keep one block)
            self._if_converted(node, c)
            return
        if c.shape and all(d == 1 for d in c.shape):
            c = semantic.item(c)  # (a tensor of one element: its element, as in Triton)
        if c.shape:
            raise self.error(node.test, "the condition of 'if' must be a scalar, not a tensor of shape %s "
                                        "(use tl.where or a mask)" % list(c.shape))
        # Tuples of numbers that a branch assigns again: tensors first, so that the paths agree.
        self._carried_tuples_as_tensors(node.body + node.orelse)
        fb = self.fb
        then_bb = fb.new_block("if.then")
        else_bb = fb.new_block("if.else") if node.orelse else None
        end_bb = fb.new_block("if.end")
        fb.cond_br(c.handle, then_bb, else_bb or end_bb)
        fb.seal(then_bb)
        before = dict(self.frame.bindings)
        live = []
        self.enter(then_bb)
        self.body(node.body)
        if not self.ends():
            live.append(dict(self.frame.bindings))
            fb.br(end_bb)
        self.frame.bindings = dict(before)
        if else_bb is not None:
            fb.seal(else_bb)
            self.enter(else_bb)
            self.body(node.orelse)
            if not self.ends():
                live.append(dict(self.frame.bindings))
                fb.br(end_bb)
        else:
            live.append(before)
        fb.seal(end_bb)
        self.enter(end_bb)
        self.frame.bindings = self._merge(live) if live else before
        self.dead = not live

    # ---- tl.map_elementwise: branches on an element's value, converted ----------

    def _select(self, c, a, b, what):
        """where(c, a, b) over values of one structure (tensors, numbers, tuples)."""
        if isinstance(a, tuple) or isinstance(b, tuple):
            if not (isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b)):
                raise CompileError("%s differs in structure between the branches of an element's 'if'" % what)
            return tuple(self._select(c, x, y, what) for x, y in zip(a, b))
        if a is b:
            return a
        ok = lambda v: isinstance(unwrap(v), tensor) or semantic.is_py_scalar(unwrap(v))  # noqa: E731
        if not (ok(a) and ok(b)):
            raise CompileError("%s must be a number or a tensor in both branches of an element's 'if' "
                               "(tl.map_elementwise)" % what)
        return semantic.where(c, unwrap(a), unwrap(b))

    def _if_converted(self, node, c):
        """`if` on an element's value in tl.map_elementwise's function: both
        branches run, each under its predicate, and what they assign is
        selected per element (their returns too: _elementwise_return)."""
        f = self.frame
        outer = f.predicate

        def under(p):
            return p if outer is None else semantic.logical("and", outer, p)

        def values(bindings):
            return {n: self._load(s) for n, s in bindings.items() if not isinstance(s, _Conflict)}

        before = dict(f.bindings)
        before_values = values(before)
        f.predicate = under(c)
        self.body(node.body)
        then_b = dict(f.bindings)
        then_values = values(then_b)
        # The else-branch starts from the names of before, holding their values
        # from before again where the then-branch wrote them.
        f.bindings = {n: f.bindings[n] for n in before}
        for n, slot in then_b.items():
            if n in before and slot is not before[n] and n in before_values:
                f.bindings[n] = self._store(n, (), before_values[n])
        restored = dict(f.bindings)
        f.predicate = under(semantic.logical_not(c))
        self.body(node.orelse)
        else_b = dict(f.bindings)
        else_values = values(else_b)
        f.predicate = outer
        merged = {}
        for n in set(then_b) | set(else_b):
            t_changed = n not in before or then_b.get(n) is not before.get(n)
            e_changed = n not in before or else_b.get(n) is not restored.get(n)
            if n not in then_values or n not in else_values:
                merged[n] = _Conflict("is defined in one branch only of an element's 'if' (tl.map_elementwise)")
            elif not t_changed and not e_changed:
                merged[n] = before[n]
            else:
                value = self._select(c, then_values[n], else_values[n], "'%s'" % n)
                merged[n] = self._store(n, (), value)
        f.bindings = merged

    def _elementwise_return(self, node, value):
        f = self.frame
        if value is None:
            raise self.error(node, "tl.map_elementwise's function returns a value")
        if self.loops:  # its value would not reach past the loop (it is taken per element, not jumped out of)
            raise self.error(node, "'return' inside a loop of a function mapped over elements (tl.map_elementwise): "
                                   "not supported; assign a variable and return after the loop")
        take = f.predicate
        if f.done is not None:
            running = semantic.logical_not(f.done)
            take = running if take is None else semantic.logical("and", take, running)
        if f.ret_value is None or take is None:
            f.ret_value = value
        else:
            f.ret_value = self._select(take, value, f.ret_value, "the returned value")
        if take is not None:
            f.done = take if f.done is None else semantic.logical("or", f.done, take)
        else:
            f.finished = True  # every element has returned: what follows runs for none

    def visit_ListComp(self, node):
        """[elt for x in seq if cond]: unrolled while compiling, over a tuple,
        list or range known then (as Triton); its names do not leak."""
        return self._comprehension(node, list)

    def visit_GeneratorExp(self, node):  # (tuple(f(v) for v in values))
        return self._comprehension(node, tuple)

    def _comprehension(self, node, kind):
        f = self.frame
        saved = dict(f.bindings)
        out = []

        def walk(i):
            if i == len(node.generators):
                out.append(self.visit(node.elt))
                return
            gen = node.generators[i]
            seq = unwrap(self.visit(gen.iter))
            if not isinstance(seq, (range, tuple, list)):
                raise self.error(gen.iter, "a comprehension in a kernel runs over a tuple, a list or a range of "
                                           "constants, not %s" % type(seq).__name__)
            for v in seq:
                self._assign_target(gen.target, constexpr(v) if isinstance(v, int) and not isinstance(v, bool)
                                    else v)
                conds = [unwrap(self.visit(c)) for c in gen.ifs]
                if any(isinstance(c, tensor) for c in conds):
                    raise self.error(gen.ifs[0], "a comprehension's condition in a kernel must be known while "
                                                 "compiling, not a tensor")
                if all(conds):
                    walk(i + 1)
        try:
            walk(0)
        finally:
            f.bindings = saved
        return kind(out)

    def visit_IfExp(self, node):
        cond = self.visit(node.test)
        if not isinstance(unwrap(cond), tensor):
            return self.visit(node.body if unwrap(cond) else node.orelse)
        body, orelse = self.visit(node.body), self.visit(node.orelse)
        tb, te = unwrap(body), unwrap(orelse)
        if isinstance(tb, tensor) and isinstance(te, tensor) and tb.dtype.is_ptr() and te.dtype.is_ptr() \
                and tb.dtype.is_const() != te.dtype.is_const():
            raise CompileError("Ternary expression with dynamic condition has inconsistent types %r and %r"
                               % (tb.dtype, te.dtype))
        return semantic.where(cond, body, orelse)

    def _loop_stages(self, call, num_stages):
        """tl.range's num_stages: the loop's own pipelining depth on the GPU
        (0: the kernel's num_stages)."""
        n = unwrap(num_stages)
        if n is None:
            return 0
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 8:
            raise self.error(call, "tl.range's num_stages must be a constant from 1 to 8, not %r" % (n,))
        return n

    # tl.range's hints: num_stages is the loop's own pipelining depth, the
    # others are accepted (and change nothing)
    _RANGE_HINTS = ("num_stages", "loop_unroll_factor", "disallow_acc_multi_buffer", "flatten", "warp_specialize",
                    "disable_licm")

    def _range_args(self, call, fn):
        """[start, end, step] of `range`/`tl.range`/`tl.static_range`, whose
        bounds may also be given as Triton's keywords arg1, arg2, step."""
        args = [self.visit(a) for a in call.args]
        kwargs = {k.arg: self.visit(k.value) for k in call.keywords}
        if fn is not builtins.range:
            for i, name in enumerate(("arg1", "arg2", "step")):
                if name in kwargs:
                    if len(args) > i:
                        raise self.error(call, "range got '%s' twice" % name)
                    if len(args) < i:  # (a step without an end: as Triton, arg2=None)
                        args.append(None)
                    args.append(kwargs.pop(name))
            hints = self._RANGE_HINTS if fn is tl.range else ()
            unknown = [k for k in kwargs if k not in hints]
            if unknown:
                raise self.error(call, "%s takes no keyword '%s'" % (fn.__name__, unknown[0]))
        elif kwargs:
            raise self.error(call, "range takes no keyword arguments")
        if not 1 <= len(args) <= 3:
            raise self.error(call, "range takes 1 to 3 arguments")
        if unwrap(args[0]) is None:
            raise self.error(call, "range needs its first bound")
        if len(args) == 3 and unwrap(args[2]) is None:  # (step=None: Triton's 1)
            args = args[:2]
        if len(args) >= 2 and unwrap(args[1]) is None:  # range(n, None, step): from 0 to n
            args = [0, args[0]] + args[2:]
        if len(args) == 1:
            args = [0] + args
        if len(args) == 2:
            args.append(1)
        return args, kwargs

    def visit_For(self, node):
        if node.orelse:
            raise CompileError("'for ... else' is not supported in kernels")
        it = node.iter
        fn = self.visit(it.func) if isinstance(it, ast.Call) else None
        if fn is tl.static_range:
            args, _ = self._range_args(it, fn)
            bounds = [unwrap(a) for a in args]
            if any(isinstance(b, tensor) for b in bounds):
                raise self.error(it, "tl.static_range needs constant bounds")
            return self._unrolled(node, [constexpr(v) for v in range(*bounds)])
        if fn is builtins.range or fn is tl.range:
            args, hints = self._range_args(it, fn)
            return self._counted_loop(node, *args, num_stages=self._loop_stages(it, hints.get("num_stages")))
        seq = self._static_sequence(it)
        if isinstance(seq, (tuple, list)):
            return self._unrolled(node, list(seq))
        raise self.error(it, "a kernel loops over range(...), tl.range(...), tl.static_range(...), a tuple "
                             "or enumerate/zip/reversed of tuples")

    def _static_sequence(self, node):
        """A loop's sequence; enumerate, zip and reversed of tuples (nested)
        are tuples too, unrolled like them (Triton refuses them)."""
        fn = self.visit(node.func) if isinstance(node, ast.Call) else None
        if fn not in (builtins.enumerate, builtins.zip, builtins.reversed):
            return unwrap(self.visit(node))
        args = [self._static_sequence(a) for a in node.args]
        kwargs = {k.arg: unwrap(self.visit(k.value)) for k in node.keywords}
        if not args or not all(isinstance(a, (tuple, list)) for a in args):
            raise self.error(node, "%s(...) in a kernel's loop takes tuples" % fn.__name__)
        return tuple(fn(*args, **kwargs))

    def _unrolled(self, node, values):
        for v in values:
            self._assign_target(node.target, v)
            self.loops.append(None)
            try:
                self.body(node.body)
            finally:
                self.loops.pop()

    def _counted_loop(self, node, lb, ub, step, num_stages=0):
        if not isinstance(node.target, ast.Name):
            raise self.error(node.target, "the loop variable must be a name")
        fb = self.fb
        step_v = unwrap(step)
        if not isinstance(step_v, tensor) and step_v == 0:
            raise self.error(node.iter, "range's step must not be zero")
        kinds = [semantic.py_scalar_dtype(v) if not isinstance(unwrap(v), tensor) else unwrap(v).dtype
                 for v in (lb, ub, step)]
        for k in kinds:
            if not k.is_int():
                raise self.error(node.iter, "range's bounds must be integers, not %r" % k)
        # As Triton: the bounds' and step's types promoted (unsigned bounds give an unsigned variable).
        iv_type = semantic.integer_promote(semantic.integer_promote(kinds[0], kinds[1]), kinds[2])
        lb_t = semantic.cast(semantic.to_tensor(lb, iv_type), iv_type)
        ub_t = semantic.cast(semantic.to_tensor(ub, iv_type), iv_type)
        step_t = semantic.cast(semantic.to_tensor(step, iv_type), iv_type)
        if lb_t.shape or ub_t.shape or step_t.shape:
            raise self.error(node.iter, "range's bounds must be scalars")
        iv_var = fb.new_var(iv_type.ir, "iv")
        fb.write(iv_var, lb_t.handle)
        self._carried_tuples_as_tensors(node.body)
        header, body, latch, exit_ = (fb.new_block(n) for n in ("for.header", "for.body", "for.latch", "for.end"))
        fb.br(header)
        self.enter(header)
        iv = tensor(fb.read(iv_var), iv_type, ())
        if not isinstance(step_v, tensor):
            cond = semantic.compare("lt" if step_v > 0 else "gt", iv, ub_t)
        else:
            up = semantic.compare("gt", step_t, 0)
            cond = semantic.where(up, semantic.compare("lt", iv, ub_t), semantic.compare("gt", iv, ub_t))
        fb.cond_br(cond.handle, body, exit_, num_stages=num_stages)
        fb.seal(body)
        self.enter(body)
        before = dict(self.frame.bindings)
        self.assign(node.target.id, iv)
        loop = _Loop(latch, exit_, dict(self.frame.bindings), node)
        self._loop_body(loop, node.body, latch)
        fb.seal(latch)
        self.enter(latch)
        nxt = semantic.add(tensor(fb.read(iv_var), iv_type, ()), step_t)
        fb.write(iv_var, nxt.handle)
        fb.br(header)
        fb.seal(header)
        self._after_loop(loop, exit_, set(before) | {node.target.id})

    def visit_While(self, node):
        if node.orelse:
            raise CompileError("'while ... else' is not supported in kernels")
        fb = self.fb
        header, body, exit_ = fb.new_block("while.header"), fb.new_block("while.body"), fb.new_block("while.end")
        self._carried_tuples_as_tensors(node.body)
        fb.br(header)
        self.enter(header)
        before = dict(self.frame.bindings)
        cond = self.visit(node.test)
        if isinstance(unwrap(cond), tl.condition):  # while tl.condition(c, disable_licm=...): while c
            cond = unwrap(cond).condition
        if not isinstance(unwrap(cond), tensor):
            cond = semantic.to_tensor(bool(unwrap(cond)))
        c = semantic.to_bool(cond)
        if c.shape:
            raise self.error(node.test, "the condition of 'while' must be a scalar" +
                             (" (a loop on an element's value in tl.map_elementwise is not supported)"
                              if self.frame.elementwise else ""))
        fb.cond_br(c.handle, body, exit_)
        fb.seal(body)
        self.enter(body)
        loop = _Loop(header, exit_, dict(self.frame.bindings), node)
        self._loop_body(loop, node.body, header)
        fb.seal(header)
        self._after_loop(loop, exit_, set(before))

    def _loop_body(self, loop, stmts, back_to):
        """The body of `loop`, then the back edge to `back_to` (the latch or
        the header) where the body falls through."""
        self.loops.append(loop)
        try:
            self.body(stmts)
        finally:
            self.loops.pop()
        if not self.ends():
            self._check_loop_carried(loop, loop.node)
            self.fb.br(back_to)

    def _after_loop(self, loop, exit_, visible):
        """Goes on at the loop's exit with the bindings from before it: a name
        first bound in the loop is not visible after it (it may not run)."""
        self.fb.seal(exit_)
        self.enter(exit_)
        self.frame.bindings = {n: b for n, b in loop.before.items() if n in visible}

    def _jump(self, node, kind):
        if not self.loops:
            raise CompileError("'%s' outside of a loop" % kind)
        loop = self.loops[-1]
        if loop is None:
            raise CompileError("'%s' in a loop unrolled at compile time (tl.static_range, or a for over a tuple) "
                               "is not supported" % kind)
        self._check_loop_carried(loop, node)
        self.fb.br(loop.break_to if kind == "break" else loop.continue_to)
        self._unreachable("after." + kind)

    def visit_Break(self, node):
        self._no_jump_under_a_predicate(node, "break")
        self._jump(node, "break")

    def visit_Continue(self, node):
        self._no_jump_under_a_predicate(node, "continue")
        self._jump(node, "continue")

    def _no_jump_under_a_predicate(self, node, what):
        if self.frame.predicate is not None:
            raise self.error(node, "'%s' under an 'if' on an element's value (tl.map_elementwise): not supported"
                             % what)

    def visit_Assert(self, node):
        cond = self.visit(node.test)
        msg = unwrap(self.visit(node.msg)) if node.msg is not None else ""
        if isinstance(unwrap(cond), tensor):
            # As in Triton: tl.device_assert, located at the statement.
            self.here(node)
            tl.device_assert(cond, msg)
            return
        if not unwrap(cond):
            raise CompileError("assertion failed" + (": %s" % msg if msg else ""))

    # ---- expressions ------------------------------------------------------------

    def visit_Constant(self, node):
        return node.value

    def visit_Name(self, node):
        return self.lookup(node.id)

    def visit_Tuple(self, node):
        return tuple(self._elements(node.elts))

    def visit_List(self, node):
        return list(self._elements(node.elts))

    def _elements(self, elts):
        out = []
        for e in elts:
            if isinstance(e, ast.Starred):
                out.extend(unwrap(self.visit(e.value)))
            else:
                out.append(self.visit(e))
        return out

    def visit_Attribute(self, node):
        raw = self.visit(node.value)
        if isinstance(raw, constexpr) and node.attr == "value":
            return raw.value  # `dtype.value` of a tl.constexpr parameter, as in Triton
        if isinstance(raw, constexpr) and node.attr == "type" and not isinstance(raw.value, tensor):
            return raw.type  # a compile-time value's type: constexpr_type(value), as in Triton
        obj = unwrap(raw)
        if _is_number(obj) and not hasattr(obj, node.attr) and hasattr(tensor, node.attr):
            # A number kept in a tuple is a tensor in Triton (t = (1, 2.5); t[0].to(tl.float32)).
            obj = semantic.to_tensor(obj)
        return getattr(obj, node.attr)

    def visit_Slice(self, node):
        part = [unwrap(self.visit(x)) if x is not None else None for x in (node.lower, node.upper, node.step)]
        return slice(*part)

    def visit_Subscript(self, node):
        value = unwrap(self.visit(node.value))
        index = self.visit(node.slice)
        self.here(node)
        if isinstance(value, tensor):
            return semantic.subscript(value, index)
        from .jit import JITFunction
        if isinstance(value, JITFunction):
            raise CompileError("%s[grid]: a kernel does not launch kernels; call the @jit function directly "
                               "(%s(...)), which inlines it" % (value.__name__, value.__name__))
        index = unwrap(index)
        if isinstance(index, tensor):
            raise CompileError("a tuple is indexed by a constant, not a tensor")
        return value[index]

    def visit_JoinedStr(self, node):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
                continue
            value = unwrap(self.visit(v.value))
            if isinstance(value, tensor):  # known only when the kernel runs (located at the f-string: Python
                # 3.11 gives its pieces the f-string's position, 3.12 their own)
                raise self.error(node, "an f-string takes compile-time values only (constexprs, Python values), "
                                    "not a value of the running kernel; print it with tl.device_print(prefix, x)")
            spec = self.visit(v.format_spec) if v.format_spec is not None else ""
            value = {115: str, 114: repr, 97: ascii}.get(v.conversion, lambda x: x)(value)  # !s !r !a
            parts.append(format(value, spec))
        return "".join(parts)

    _BINOPS = {
        ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
        ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
        ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.BitAnd: operator.and_,
        ast.BitOr: operator.or_, ast.BitXor: operator.xor, ast.MatMult: None,
    }

    def _binop(self, op, left, right):
        fn = self._BINOPS.get(type(op))
        l, r = unwrap(left), unwrap(right)
        if isinstance(op, ast.MatMult):
            return tl.dot(l, r)
        if fn is None:
            raise CompileError("unsupported operator %s" % type(op).__name__)
        if not isinstance(l, tensor) and not isinstance(r, tensor):
            v = fn(l, r)
            return constexpr(v) if isinstance(left, constexpr) or isinstance(right, constexpr) else v
        if isinstance(op, ast.Pow):
            raise CompileError("'**' on tensors is not supported (use multiplication, or tl.exp and tl.log)")
        return fn(l, r)

    def visit_BinOp(self, node):
        left, right = self.visit(node.left), self.visit(node.right)
        self.here(node)
        return self._binop(node.op, left, right)

    def visit_UnaryOp(self, node):
        v = unwrap(self.visit(node.operand))
        self.here(node)
        if isinstance(node.op, ast.Not):
            return semantic.logical_not(v) if isinstance(v, tensor) else (not v)
        if isinstance(node.op, ast.USub):
            return -v
        if isinstance(node.op, ast.UAdd):
            return +v
        if isinstance(node.op, ast.Invert):
            return ~v
        raise CompileError("unsupported operator %s" % type(node.op).__name__)

    def visit_BoolOp(self, node):
        kind = "and" if isinstance(node.op, ast.And) else "or"
        result = unwrap(self.visit(node.values[0]))
        for e in node.values[1:]:
            if not isinstance(result, tensor):
                # Python's short circuit while the values are known.
                if (kind == "and" and not result) or (kind == "or" and result):
                    return result
                result = unwrap(self.visit(e))
                continue
            result = semantic.logical(kind, result, unwrap(self.visit(e)))
        return result

    _CMPOPS = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne"}

    def visit_Compare(self, node):
        left = unwrap(self.visit(node.left))
        result = None
        for op, comp in zip(node.ops, node.comparators):
            right = unwrap(self.visit(comp))
            self.here(node)
            if isinstance(op, (ast.Is, ast.IsNot)):
                v = (left is right) if isinstance(op, ast.Is) else (left is not right)
            elif isinstance(op, (ast.In, ast.NotIn)):
                v = (left in right) if isinstance(op, ast.In) else (left not in right)
            elif isinstance(left, tensor) or isinstance(right, tensor):
                if len(node.ops) > 1:
                    raise CompileError("chained comparisons of tensors are not supported; use & between them")
                return semantic.compare(self._CMPOPS[type(op)], left, right)
            else:
                a, b = left, right
                if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
                    # (Triton's tuples equal lists of the same values: `x.shape == [1, N]`)
                    a, b = _as_tuple(a), _as_tuple(b)
                v = {"lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge,
                     "eq": operator.eq, "ne": operator.ne}[self._CMPOPS[type(op)]](a, b)
            if not v:
                return False
            result = v
            left = right
        return result

    def visit_Call(self, node):
        fn = unwrap(self.visit(node.func))
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                args.extend(unwrap(self.visit(a.value)))
            else:
                args.append(self.visit(a))
        kwargs = {}
        for k in node.keywords:
            if k.arg is None:
                kwargs.update(unwrap(self.visit(k.value)))
            else:
                kwargs[k.arg] = self.visit(k.value)
        self.here(node)
        from .jit import JITFunction
        if isinstance(fn, JITFunction):
            return self.inline(node, fn, args, kwargs, elementwise=self.frame.elementwise, shape=self.frame.shape)
        if fn is tl.map_elementwise:
            return self.map_elementwise(node, args, kwargs)
        if self.frame.predicate is not None and (fn in _effects() or (
                fn is tl.inline_asm_elementwise and not unwrap(kwargs.get("is_pure", args[4] if len(args) > 4 else 0)))):
            raise self.error(node, "%s%s under an 'if' on an element's value (tl.map_elementwise runs both branches "
                                   "of it): not supported" % (fn.__name__, "" if fn in _effects() else " (not pure)"))
        if fn is builtins.print:
            fn = tl.device_print  # as in Triton: print("x", x) is tl.device_print("x", x)
        if fn in (builtins.min, builtins.max) and any(isinstance(unwrap(a), tensor) for a in args):
            # As in Triton: min/max of tensors are element-wise.
            if len(args) < 2 or kwargs:
                raise CompileError("%s of tensors takes two or more tensors (tl.min/tl.max reduce one)" % fn.__name__)
            combine = tl.minimum if fn is builtins.min else tl.maximum
            result = args[0]
            for a in args[1:]:
                result = combine(result, a)
            return result
        if getattr(fn, "__tritonc_builtin__", False):
            return fn(*args, **kwargs)
        result = fn(*[unwrap(a) if not isinstance(unwrap(a), tensor) else a for a in args],
                    **{k: unwrap(v) if not isinstance(unwrap(v), tensor) else v for k, v in kwargs.items()})
        return result

    # ---- functions -----------------------------------------------------------------

    def map_elementwise(self, node, args, kwargs):
        """tl.map_elementwise(fn, *tensors, pack): fn inlined on the tiles
        broadcast to one shape, an `if` on an element's value converted to
        selects (pack > 1: _map_packed)."""
        from .jit import JITFunction
        pack = unwrap(kwargs.pop("pack", 1))
        if kwargs:
            raise self.error(node, "tl.map_elementwise takes the function, its tensors and pack, not %s"
                                   % ", ".join(sorted(kwargs)))
        if not args or not isinstance(unwrap(args[0]), JITFunction):
            raise self.error(node, "tl.map_elementwise's first argument is a @jit function")
        values = [semantic.to_tensor(unwrap(a)) for a in args[1:]]
        if not values:
            raise self.error(node, "tl.map_elementwise needs at least one tensor")
        shape = ()
        for v in values:
            shape = semantic.broadcast_shapes(shape, v.shape)
        values = [semantic.broadcast_to(v, shape) for v in values]
        if not isinstance(pack, int) or pack < 1 or pack & (pack - 1) or \
                (pack > 1 and (not shape or shape[-1] % pack)):
            raise self.error(node, "tl.map_elementwise's pack is a power of two dividing the last axis (%s), not %r"
                             % (list(shape), pack))
        if pack == 1:
            out = self.inline(node, unwrap(args[0]), values, {}, elementwise=True, shape=shape)
            if isinstance(out, tuple):
                return tuple(semantic.broadcast_to(semantic.to_tensor(unwrap(o)), shape) for o in out)
            return semantic.broadcast_to(semantic.to_tensor(unwrap(out)), shape)
        return self._map_packed(node, unwrap(args[0]), values, shape, pack)

    def _map_packed(self, node, fn, values, shape, pack):
        """pack > 1: fn takes `pack` consecutive elements (along the last
        axis) of each tensor, all of the first tensor's then the second's,
        and returns `pack` values per result, all of the first result's
        first: each tensor viewed as [..., n / pack, pack] and sliced."""
        from .language.standard import from_lanes, lanes_of
        grouped = shape[:-1] + (shape[-1] // pack, pack)
        parts = []
        for v in values:
            parts.extend(lanes_of(v, grouped))
        out = self.inline(node, fn, parts, {}, elementwise=True, shape=grouped[:-1])
        out = list(out) if isinstance(out, tuple) else [out]
        if len(out) % pack:
            raise self.error(node, "tl.map_elementwise with pack=%d: the function returns %d values, not a multiple "
                                   "of %d (pack values per result)" % (pack, len(out), pack))
        results = []
        for r in range(len(out) // pack):
            lanes = [semantic.broadcast_to(semantic.to_tensor(unwrap(out[r * pack + j])), grouped[:-1])
                     for j in range(pack)]
            results.append(from_lanes(lanes, grouped, shape))
        return results[0] if len(results) == 1 else tuple(results)

    def inline(self, node, jf, args, kwargs, elementwise=False, shape=None, outside=False):
        self.depth += 1
        if self.depth > 64:
            raise CompileError("calls of @jit functions nest deeper than 64 (recursion is not supported)")
        try:
            bound = jf.bind(args, kwargs)
            fdef, file, first_line, lines, col = jf.parsed()
            frame = _Frame(jf, file, first_line, lines, col, jf.fn.__globals__)
            fb = self.fb
            if elementwise:
                # (a call under an element's if: its effects are under that predicate too)
                frame.shape, frame.predicate = shape, None if outside else self.frame.predicate
                return self._inline_elementwise(jf, frame, fdef, bound)
            frame.exit = fb.new_block("return." + jf.__name__)
            # With several returns, their numbers become tensors (as Triton's, tuples too), so
            # that `return x, 1` and `return 0, -1` agree; one return keeps its constants.
            frame.several_returns = sum(isinstance(n, ast.Return) for n in ast.walk(fdef)) > 1
            self.frames.append(frame)
            saved_loops, self.loops = self.loops, []
            try:
                self._bind_arguments(jf, bound)
                self.body(fdef.body)
                falls_through = not self.ends()
                if falls_through:
                    fb.br(frame.exit)
                fb.seal(frame.exit)
                self.enter(frame.exit)
                if frame.ret_slot is None:
                    return None
                if falls_through:
                    raise CompileError("%s returns a value on some paths and falls off its end on others"
                                       % jf.__name__)
                return self._load(frame.ret_slot)
            finally:
                self.frames.pop()
                self.loops = saved_loops
        finally:
            self.depth -= 1

    def _bind_arguments(self, jf, bound):
        for name, value in zip(jf.arg_names, bound):
            # As Triton: what is not a tensor is a tl.constexpr in the callee
            # (numbers, strings, dtypes; `dtype.value` reads it), annotated or
            # not. A tensor given for a tl.constexpr parameter stays a tensor
            # (the attention tutorial passes its offsets so).
            if not isinstance(value, constexpr) and (
                    isinstance(value, (bool, int, float, str, core.dtype)) or
                    (name in jf.constexpr_names and not isinstance(unwrap(value), tensor))):
                value = constexpr(value)
            self.frame.bindings[name] = self._store(name, (), value)

    def _inline_elementwise(self, jf, frame, fdef, bound):
        """The body of `jf` in the current block, its returns selected per
        element (no branches: tl.map_elementwise)."""
        frame.elementwise = True
        self.frames.append(frame)
        saved_loops, self.loops = self.loops, []
        try:
            self._bind_arguments(jf, bound)
            self.body(fdef.body)
            if frame.ret_value is None:
                raise CompileError("%s, mapped over elements (tl.map_elementwise), returns no value" % jf.__name__)
            return frame.ret_value
        finally:
            self.frames.pop()
            self.loops = saved_loops

    def kernel(self, jf, params, constexprs):
        """Generates the kernel `jf`: `params` are (name, dtype) of its runtime
        parameters, `constexprs` the values of the others by name."""
        fdef, file, first_line, lines, col = jf.parsed()
        frame = _Frame(jf, file, first_line, lines, col, jf.fn.__globals__)
        self.frames.append(frame)
        self.fb.set_loc(first_line + fdef.lineno - 1, col + fdef.col_offset + 1)
        handles = {}
        for name, dt in params:
            if name in jf.const_names and dt.is_ptr():
                dt = core.pointer_type(dt.element_ty, const=True)
            handles[name] = tensor(self.fb.param(name, core.ir_type(dt, ())), dt, ())
        from .jit import DescriptorSpec, TupleSpec
        from .language.block_pointers import tensor_descriptor
        for name in jf.arg_names:
            if name in handles:
                self.frame.bindings[name] = self._store(name, (), handles[name])
            elif isinstance(constexprs[name], DescriptorSpec):  # a TensorDescriptor argument
                spec = constexprs[name]
                n = len(spec.block_shape)
                parts = [handles[p] for p, _ in spec.params]
                desc = tensor_descriptor(parts[0], parts[1:1 + n], [semantic.cast(s, core.int64) for s in parts[1 + n:]],
                                         spec.block_shape, spec.padding)
                self.frame.bindings[name] = self._store(name, (), desc)
            elif isinstance(constexprs[name], TupleSpec):  # a tuple argument: its leaves are parameters
                self.frame.bindings[name] = self._store(name, (), constexprs[name].build(handles))
            elif name in jf.annotated_types and name not in jf.constexpr_names and type(constexprs[name]) is int:
                # `u: tl.uint8` passed 1: specialized to the constant 1, still of the annotated type
                self.frame.bindings[name] = self._store(name, (), semantic.constant(constexprs[name],
                                                                                    jf.annotated_types[name]))
            else:
                self.frame.bindings[name] = ("py", constexpr(constexprs[name]))
        self.body(fdef.body)
        self.frames.pop()


_GENERATOR_RECURSION_LIMIT = 100000


def generate(jf, params, constexprs, file_name, debug=False, used_globals=None, name=None, num_warps=None):
    """Triton-IR text for kernel `jf` (named `name`, by default the
    function's) with runtime parameters `params` ((name, dtype) pairs) and
    constexpr values (with device assertions when `debug`); also the f32 dot
    precisions it asks for. `used_globals`, a list, receives (globals dict,
    name, value) of each global the kernel read as a value. `num_warps`, the
    launch's, where known (tl.extra.cuda.num_warps() and num_threads() read
    it)."""
    from . import _tritonc
    fb = _tritonc.FunctionBuilder(name or jf.__name__, file_name)
    gen = _Generator(fb, file_name, debug)
    gen.num_warps = num_warps
    previous = core.set_current(fb, gen)
    # The generator recurses along the syntax tree (a few frames a level):
    # any expression that Python itself compiles (a sum of a thousand terms
    # is a thousand levels deep) must fit. Python-to-Python calls do not
    # grow the C stack, so the limit can be raised while it runs.
    depth = sys.getrecursionlimit()
    sys.setrecursionlimit(max(depth, _GENERATOR_RECURSION_LIMIT))
    try:
        gen.kernel(jf, params, constexprs)
        try:
            text = fb.finish()
        except RuntimeError as e:
            raise CompileError(str(e)) from None
    finally:
        sys.setrecursionlimit(depth)
        core.set_current(*previous)
    if used_globals is not None:
        used_globals.extend(gen.used_globals.values())
    return text, gen.dot_precisions
