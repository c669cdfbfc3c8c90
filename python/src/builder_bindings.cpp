// Bindings of lang::FunctionBuilder for the Python DSL's code generator
// (python/tritonc/codegen.py): the generator walks the kernel's Python AST,
// decides types and checks semantics, and calls these to build the SSA
// Triton-IR that Triton-C's front end would build. Values and blocks are
// handles into the builder's module; each keeps its builder alive.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "builder_bindings.h"
#include "ir/debug_output.h"
#include "ir/memory_hints.h"
#include "ir/type.h"
#include "lang/function_builder.h"
#include "support/diagnostic.h"

namespace nb = nanobind;
using namespace tritonc;

namespace {

struct PyValue {
  ir::Value* v;
};
struct PyBlock {
  ir::BasicBlock* bb;
};

ir::Type typeOf(const std::string& text) {
  std::optional<ir::Type> t = ir::parseType(text);
  if (!t) throw InternalError("the Python front end named no IR type: '" + text + "'");
  return *t;
}

ir::ReduceKind reduceKindOf(const std::string& name) {
  ir::ReduceKind k;
  if (!ir::reduceKindFromName(name, &k)) throw InternalError("no reduction or scan kind '" + name + "'");
  return k;
}

ir::Opcode opcodeOf(const std::string& name) {
  ir::Opcode op;
  if (!ir::opcodeFromName(name, &op)) throw InternalError("no IR opcode '" + name + "'");
  return op;
}

ir::Value* valueOr(const std::optional<PyValue>& v) { return v ? v->v : nullptr; }

// A load's or store's cache operator by name ("" for none).
ir::CacheOp cacheOf(ir::Opcode op, const std::string& name) {
  ir::CacheOp c = ir::CacheOp::Default;
  if (!name.empty() && (!ir::cacheOpFromName(name, &c) || !ir::cacheOpAllowed(op, c)))
    throw InternalError("no cache operator '" + name + "' for " + ir::opcodeName(op));
  return c;
}

// A load's or store's eviction priority bits by name ("" or "normal" for none).
uint8_t evictBitsOf(const std::string& name) {
  ir::Evict e = ir::Evict::Normal;
  if (!name.empty() && !ir::evictFromName(name, &e)) throw InternalError("no eviction priority '" + name + "'");
  return ir::evictBits(e);
}

std::vector<ir::Value*> values(const std::vector<PyValue>& vs) {
  std::vector<ir::Value*> out;
  for (const PyValue& v : vs) out.push_back(v.v);
  return out;
}

// An atomic with Triton's memory semantics and scope (the front end checked the names).
ir::Value* withOrder(ir::Value* atomic, const std::string& sem, const std::string& scope) {
  ir::MemSem s;
  ir::MemScope c;
  if (!ir::memSemFromName(sem, &s)) throw InternalError("no memory semantics '" + sem + "'");
  if (!ir::memScopeFromName(scope, &c)) throw InternalError("no memory scope '" + scope + "'");
  static_cast<ir::Instruction*>(atomic)->imm = ir::atomicOrder(s, c);
  return atomic;
}

}  // namespace

void bindFunctionBuilder(nb::module_& m) {
  using FB = lang::FunctionBuilder;
  nb::class_<PyBlock>(m, "IrBlock");
  nb::class_<PyValue>(m, "IrValue")
      .def("type", [](const PyValue& v) { return ir::typeToString(v.v->type()); })
      .def("shape", [](const PyValue& v) { return v.v->type().shape; })
      .def("kind", [](const PyValue& v) { return std::string(ir::scalarName(v.v->type().kind)); })
      // The value of a scalar constant (int or float), else None.
      .def("constant", [](const PyValue& v) -> nb::object {
        if (v.v->valueKind() != ir::ValueKind::Constant) return nb::none();
        auto* c = static_cast<ir::Constant*>(v.v);
        if (c->type().isFloat()) return nb::float_(c->f);
        return nb::int_(c->i);
      })
      .def("same", [](const PyValue& a, const PyValue& b) { return a.v == b.v; });

  nb::class_<FB>(m, "FunctionBuilder")
      .def(nb::init<const std::string&, const std::string&>())
      .def("param",
           [](FB& f, const std::string& name, const std::string& type) { return PyValue{f.addParam(name, typeOf(type))}; },
           nb::keep_alive<0, 1>())
      .def("set_param_attrs",
           [](FB& f, size_t index, int64_t multipleOf, int64_t aligned) {
             ir::Argument* a = f.function().arguments().at(index).get();
             if (multipleOf) a->attrs.multipleOf = multipleOf;
             if (aligned) a->attrs.aligned = aligned;
           })
      .def("set_loc", &FB::setLoc)
      .def("new_block", [](FB& f, const std::string& name) { return PyBlock{f.newBlock(name)}; }, nb::keep_alive<0, 1>())
      .def("set_block", [](FB& f, const PyBlock& b) { f.setBlock(b.bb); })
      .def("block", [](FB& f) { return PyBlock{f.block()}; }, nb::keep_alive<0, 1>())
      .def("terminated", &FB::terminated)
      .def("br", [](FB& f, const PyBlock& b) { f.br(b.bb); })
      .def("cond_br", [](FB& f, const PyValue& c, const PyBlock& t, const PyBlock& e,
                         int numStages) { f.condBr(c.v, t.bb, e.bb, numStages); },
           nb::arg("c"), nb::arg("t"), nb::arg("e"), nb::arg("num_stages") = 0)
      .def("ret", &FB::ret)
      .def("seal", [](FB& f, const PyBlock& b) { f.seal(b.bb); })
      .def("new_var", [](FB& f, const std::string& type, const std::string& name) { return f.newVariable(typeOf(type), name); })
      .def("write", [](FB& f, int var, const PyValue& v) { f.write(var, v.v); })
      .def("read", [](FB& f, int var) { return PyValue{f.read(var)}; }, nb::keep_alive<0, 1>())
      .def("const_int",
           [](FB& f, const std::string& kind, int64_t v) {
             ir::Type t = typeOf(kind);
             return PyValue{f.module().constInt(t.kind, ir::wrapInt(t.kind, v))};
           },
           nb::keep_alive<0, 1>())
      .def("const_float",
           [](FB& f, const std::string& kind, double v) { return PyValue{f.module().constFloat(typeOf(kind).kind, v)}; },
           nb::keep_alive<0, 1>())
      .def("binary",
           [](FB& f, const std::string& op, const PyValue& a, const PyValue& b) {
             return PyValue{f.builder().binary(opcodeOf(op), a.v, b.v)};
           },
           nb::keep_alive<0, 1>())
      .def("unary", [](FB& f, const std::string& op, const PyValue& a) { return PyValue{f.builder().unary(opcodeOf(op), a.v)}; },
           nb::keep_alive<0, 1>())
      .def("cmp",
           [](FB& f, const std::string& pred, const PyValue& a, const PyValue& b) {
             ir::CmpPred p;
             if (!ir::cmpPredFromName(pred, &p)) throw InternalError("no comparison '" + pred + "'");
             return PyValue{f.builder().cmp(p, a.v, b.v)};
           },
           nb::keep_alive<0, 1>())
      .def("cast", [](FB& f, const PyValue& v, const std::string& t) { return PyValue{f.builder().cast(v.v, typeOf(t))}; },
           nb::keep_alive<0, 1>())
      .def("ucast",
           [](FB& f, const PyValue& v, const std::string& t) { return PyValue{f.builder().unsignedCast(v.v, typeOf(t))}; },
           nb::keep_alive<0, 1>())
      .def("bitcast", [](FB& f, const PyValue& v, const std::string& t) { return PyValue{f.builder().bitcast(v.v, typeOf(t))}; },
           nb::keep_alive<0, 1>())
      .def("select",
           [](FB& f, const PyValue& c, const PyValue& a, const PyValue& b) { return PyValue{f.builder().select(c.v, a.v, b.v)}; },
           nb::keep_alive<0, 1>())
      .def("fma",
           [](FB& f, const PyValue& a, const PyValue& b, const PyValue& c) { return PyValue{f.builder().fma(a.v, b.v, c.v)}; },
           nb::keep_alive<0, 1>())
      .def("splat", [](FB& f, const PyValue& v, const ir::Shape& s) { return PyValue{f.builder().splat(v.v, s)}; },
           nb::keep_alive<0, 1>())
      .def("reshape", [](FB& f, const PyValue& v, const ir::Shape& s) { return PyValue{f.builder().reshape(v.v, s)}; },
           nb::keep_alive<0, 1>())
      .def("broadcast", [](FB& f, const PyValue& v, const ir::Shape& s) { return PyValue{f.builder().broadcast(v.v, s)}; },
           nb::keep_alive<0, 1>())
      .def("trans", [](FB& f, const PyValue& v) { return PyValue{f.builder().trans(v.v)}; }, nb::keep_alive<0, 1>())
      .def("extract_slice",
           [](FB& f, const PyValue& v, size_t axis, int64_t offset, int64_t length) {
             return PyValue{f.builder().extractSlice(v.v, axis, offset, length)};
           },
           nb::keep_alive<0, 1>())
      .def("histogram",
           [](FB& f, const PyValue& v, int64_t bins, const std::optional<PyValue>& mask) {
             return PyValue{f.builder().histogram(v.v, bins, valueOr(mask))};
           },
           nb::arg("v"), nb::arg("bins"), nb::arg("mask") = nb::none(), nb::keep_alive<0, 1>())
      .def("gather",
           [](FB& f, const PyValue& src, const PyValue& index, size_t axis) {
             return PyValue{f.builder().gather(src.v, index.v, axis)};
           },
           nb::keep_alive<0, 1>())
      .def("permute",
           [](FB& f, const PyValue& v, const std::vector<int>& perm) { return PyValue{f.builder().permute(v.v, perm)}; },
           nb::keep_alive<0, 1>())
      .def("arange", [](FB& f, int64_t start, int64_t n) { return PyValue{f.builder().range(start, n)}; },
           nb::keep_alive<0, 1>())
      .def("program_id", [](FB& f, int axis) { return PyValue{f.builder().programId(axis)}; }, nb::keep_alive<0, 1>())
      .def("num_programs", [](FB& f, int axis) { return PyValue{f.builder().numPrograms(axis)}; }, nb::keep_alive<0, 1>())
      .def("gep", [](FB& f, const PyValue& p, const PyValue& o) { return PyValue{f.builder().gep(p.v, o.v)}; },
           nb::keep_alive<0, 1>())
      // cache: "" or a cache operator ("cg", ...; ir.h CacheOp); volatile_: Triton's volatile=True;
      // evict: "", "first" or "last" (Triton's eviction_policy; ir/memory_hints.h).
      .def("load",
           [](FB& f, const PyValue& p, std::optional<PyValue> mask, std::optional<PyValue> other,
              const std::string& cache, bool volatile_, const std::string& evict) {
             auto* load = static_cast<ir::Instruction*>(f.builder().load(p.v, valueOr(mask), valueOr(other)));
             load->sub = uint8_t(uint8_t(cacheOf(ir::Opcode::Load, cache)) | (volatile_ ? ir::kLoadVolatile : 0) |
                                 evictBitsOf(evict));
             return PyValue{load};
           },
           nb::arg("ptr"), nb::arg("mask").none(), nb::arg("other").none(), nb::arg("cache") = "",
           nb::arg("volatile_") = false, nb::arg("evict") = "", nb::keep_alive<0, 1>())
      .def("store",
           [](FB& f, const PyValue& p, const PyValue& v, std::optional<PyValue> mask, const std::string& cache,
              const std::string& evict) {
             f.builder().store(p.v, v.v, valueOr(mask))->sub =
                 uint8_t(uint8_t(cacheOf(ir::Opcode::Store, cache)) | evictBitsOf(evict));
           },
           nb::arg("ptr"), nb::arg("value"), nb::arg("mask").none(), nb::arg("cache") = "", nb::arg("evict") = "")
      .def("dot",
           [](FB& f, const PyValue& a, const PyValue& b, const PyValue& acc) { return PyValue{f.builder().dot(a.v, b.v, acc.v)}; },
           nb::keep_alive<0, 1>())
      .def("reduce",
           [](FB& f, const std::string& kind, int axis, const PyValue& v) {
             return PyValue{f.builder().reduce(reduceKindOf(kind), axis, v.v)};
           },
           nb::keep_alive<0, 1>())
      .def("scan",
           [](FB& f, const std::string& kind, int axis, const PyValue& v) {
             return PyValue{f.builder().scan(reduceKindOf(kind), axis, v.v)};
           },
           nb::keep_alive<0, 1>())
      // A combine function: its arguments; then, given the values built on them, its end (its name).
      .def("begin_combiner",
           [](FB& f, const std::string& name, const std::vector<std::string>& types) {
             std::vector<ir::Type> ts;
             for (const std::string& t : types) ts.push_back(typeOf(t));
             std::vector<PyValue> args;
             for (ir::Argument* a : f.beginCombiner(name, ts)) args.push_back(PyValue{a});
             return args;  // (a list: not kept alive by it; the code generator holds the builder)
           })
      .def("end_combiner", [](FB& f, const std::vector<PyValue>& results) { return f.endCombiner(values(results)); })
      .def("scan_fn",
           [](FB& f, const std::string& combiner, int result, int axis, const std::vector<PyValue>& tiles) {
             return PyValue{f.builder().scanFn(combiner, size_t(result), axis, values(tiles))};
           },
           nb::keep_alive<0, 1>())
      .def("reduce_fn",
           [](FB& f, const std::string& combiner, int result, int axis, const std::vector<PyValue>& tiles) {
             return PyValue{f.builder().reduceFn(combiner, size_t(result), axis, values(tiles))};
           },
           nb::keep_alive<0, 1>())
      .def("sort",
           [](FB& f, bool descending, int axis, const PyValue& v, bool indices, int64_t keep) {
             return PyValue{f.builder().sort(descending ? ir::SortOrder::Descending : ir::SortOrder::Ascending, axis,
                                             v.v, indices, keep)};
           },
           nb::arg("descending"), nb::arg("axis"), nb::arg("value"), nb::arg("indices") = false, nb::arg("keep") = 0,
           nb::keep_alive<0, 1>())
      .def("atomic_rmw",
           [](FB& f, const std::string& kind, const PyValue& p, const PyValue& v, std::optional<PyValue> mask,
              const std::string& sem, const std::string& scope) {
             ir::AtomicKind k;
             if (!ir::atomicKindFromName(kind, &k)) throw InternalError("no atomic '" + kind + "'");
             return PyValue{withOrder(f.builder().atomicRmw(k, p.v, v.v, valueOr(mask)), sem, scope)};
           },
           nb::arg("kind"), nb::arg("ptr"), nb::arg("value"), nb::arg("mask").none(), nb::arg("sem") = "relaxed",
           nb::arg("scope") = "gpu", nb::keep_alive<0, 1>())
      .def("atomic_cas",
           [](FB& f, const PyValue& p, const PyValue& c, const PyValue& v, std::optional<PyValue> mask,
              const std::string& sem, const std::string& scope) {
             return PyValue{withOrder(f.builder().atomicCas(p.v, c.v, v.v, valueOr(mask)), sem, scope)};
           },
           nb::arg("ptr"), nb::arg("cmp"), nb::arg("value"), nb::arg("mask").none(), nb::arg("sem") = "relaxed",
           nb::arg("scope") = "gpu", nb::keep_alive<0, 1>())
      .def("multiple_of", [](FB& f, const PyValue& v, int64_t n) { return PyValue{f.builder().multipleOf(v.v, n)}; },
           nb::keep_alive<0, 1>())
      .def("max_contiguous",
           [](FB& f, const PyValue& v, size_t axis, int64_t n) { return PyValue{f.builder().maxContiguous(v.v, axis, n)}; },
           nb::keep_alive<0, 1>())
      .def("barrier", [](FB& f) { f.builder().create(ir::Opcode::Barrier, ir::Type::voidTy(), {}); })
      // tl.device_print: the prefix as the user wrote it (Triton's rule makes it " x: ").
      .def("device_print",
           [](FB& f, const std::string& prefix, const std::vector<PyValue>& values, bool hex) {
             std::vector<ir::Value*> vs;
             for (const PyValue& v : values) vs.push_back(v.v);
             f.builder().print(ir::devicePrintPrefix(prefix, !vs.empty()), vs, hex);
           })
      .def("inline_asm",
           [](FB& f, const std::string& assembly, const std::vector<PyValue>& inputs, const std::string& type,
              bool pure) {
             std::vector<ir::Value*> vs;
             for (const PyValue& v : inputs) vs.push_back(v.v);
             return PyValue{f.builder().inlineAsm(assembly, vs, typeOf(type), pure)};
           },
           nb::keep_alive<0, 1>())
      .def("device_assert", [](FB& f, const PyValue& c, const std::string& msg) { f.builder().assertTrue(c.v, msg); })
      .def("finish", &FB::finish);
}
