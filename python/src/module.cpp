// _tritonc: the C++ core seen from Python (nanobind). A thin layer over
// runtime::Kernel: the Python package (python/tritonc) turns tensors into
// (kind, address, bytes) triples and macros into -D definitions, and this
// module launches. Compiler and launch errors become tritonc.Error carrying
// the diagnostic text.
#include <nanobind/nanobind.h>
#include <nanobind/stl/function.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstring>

#include "ir/type.h"
#include "runtime/kernel.h"
#include "support/diagnostic.h"

namespace nb = nanobind;
using namespace tritonc;

namespace {

// One argument from Python: ("int", v), ("float", v), ("host", address,
// bytes) or ("device", address, bytes).
struct PyArg {
  std::string kind;
  int64_t i = 0;
  double f = 0;
  uint64_t address = 0;
  uint64_t bytes = 0;
};

class PyKernel {
 public:
  PyKernel(const std::string& source, const std::vector<std::pair<std::string, std::string>>& defines,
           const std::vector<int>& numWarps, const std::vector<int>& numStages, const std::string& target,
           const std::string& kernel, const std::string& cacheDir, const std::string& filename,
           const std::vector<std::string>& tuningKey, bool verbose)
      : source_(source), filename_(filename) {
    runtime::KernelOptions o;
    o.filename = filename;
    for (auto& [n, v] : defines) o.defines.push_back({n, v});
    if (!numWarps.empty()) o.numWarps = numWarps;
    if (!numStages.empty()) o.numStages = numStages;
    o.target = target;
    o.kernel = kernel;
    o.cacheDir = cacheDir;
    o.tuningKey = tuningKey;
    if (verbose) o.progress = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
    located([&] { k_ = std::make_unique<runtime::Kernel>(source, o); });
  }

  // (name, is_pointer, dtype): dtype is the pointee for pointers.
  std::vector<std::tuple<std::string, bool, std::string>> params() const {
    std::vector<std::tuple<std::string, bool, std::string>> out;
    for (const runtime::Param& p : k_->params())
      out.emplace_back(p.name, p.type.isPtr(), ir::scalarName(p.type.isPtr() ? p.type.pointee : p.type.kind));
    return out;
  }

  // The launch path: `args` holds ints, floats and (kind, address, bytes)
  // tuples (kind 0: host, 1: device), converted here without Arg objects.
  void launch(const nb::list& args, const nb::object& grid, uint64_t stream) {
    std::vector<PyArg> converted(args.size());
    for (size_t k = 0; k < converted.size(); ++k) {
      nb::handle h = args[k];
      PyArg& a = converted[k];
      if (PyLong_Check(h.ptr())) {
        a.kind = "int";
        a.i = nb::cast<int64_t>(h);
      } else if (PyFloat_Check(h.ptr())) {
        a.kind = "float";
        a.f = nb::cast<double>(h);
      } else if (nb::isinstance<PyArg>(h)) {
        a = nb::cast<PyArg>(h);
      } else {
        auto t = nb::cast<std::tuple<int, uint64_t, uint64_t>>(h);
        a.kind = std::get<0>(t) == 1 ? "device" : "host";
        a.address = std::get<1>(t);
        a.bytes = std::get<2>(t);
      }
    }
    Bound b = bind(converted);
    runtime::GridFn fn = gridFn(grid);
    located([&] {
      nb::gil_scoped_release release;
      k_->launch(b.args, fn, reinterpret_cast<void*>(stream));
    });
    b.copyBack();
  }

  nb::dict tune(const std::vector<PyArg>& args, const nb::object& grid) {
    Bound b = bind(args);
    runtime::TuneResult r;
    runtime::GridFn fn = gridFn(grid);
    located([&] {
      nb::gil_scoped_release release;  // as launch: the grid callback takes the GIL
      r = k_->tune(b.args, fn, true);
    });
    nb::dict d;
    d["best"] = r.best.text();
    d["best_ms"] = r.bestMs;
    nb::list trials;
    for (const runtime::TuneTrial& t : r.trials) trials.append(nb::make_tuple(t.config.text(), t.ms, t.error));
    d["trials"] = trials;
    return d;
  }

  size_t spaceSize() const { return k_->space().size(); }
  std::string target() const { return k_->target(); }
  std::string name() const { return k_->name(); }

 private:
  // Runs `f`; a UserError with a source location gets the diagnostic's full
  // text (FILE:LINE:COL: error: ..., the line and a caret).
  template <class F>
  void located(F&& f) const {
    try {
      f();
    } catch (const UserError& e) {
      if (!e.loc().known()) throw;
      throw UserError(SourceLoc{}, formatDiagnostic(filename_, source_, e.loc(), e.what()));
    }
  }

  // Host memory is copied into the interpreter's buffers (typed by the
  // parameter) and back after the launch.
  struct Bound {
    std::vector<std::unique_ptr<interp::Buffer>> buffers;
    std::vector<std::pair<interp::Buffer*, void*>> back;
    std::vector<interp::KernelArg> args;
    void copyBack() {
      // Only what the kernel changed: inputs may be read-only memory.
      for (auto& [b, p] : back)
        if (std::memcmp(p, b->data.data(), b->data.size()) != 0) std::memcpy(p, b->data.data(), b->data.size());
    }
  };

  Bound bind(const std::vector<PyArg>& args) const {
    const auto& ps = k_->params();
    if (args.size() != ps.size())
      throw UserError(SourceLoc{}, "kernel '" + k_->name() + "' takes " + std::to_string(ps.size()) +
                                       " arguments, " + std::to_string(args.size()) + " given");
    Bound b;
    for (size_t k = 0; k < args.size(); ++k) {
      const PyArg& a = args[k];
      const runtime::Param& p = ps[k];
      std::string who = "argument " + std::to_string(k) + " ('" + p.name + "')";
      if (p.type.isPtr() != (a.kind == "host" || a.kind == "device"))
        throw UserError(SourceLoc{}, who + (p.type.isPtr() ? " is a pointer: pass a tensor or an array"
                                                           : " is a scalar: pass a number, not a tensor"));
      if (a.kind == "int") {
        b.args.push_back(interp::KernelArg::ofInt(a.i));
      } else if (a.kind == "float") {
        b.args.push_back(interp::KernelArg::ofFloat(a.f));
      } else if (a.kind == "device") {
        b.args.push_back(interp::KernelArg::ofDevicePtr(a.address, a.bytes));
      } else {
        auto buf = std::make_unique<interp::Buffer>();
        buf->name = p.name;
        buf->elem = p.type.pointee;
        int64_t size = ir::byteSize(buf->elem);
        if (a.bytes % uint64_t(size) != 0)
          throw UserError(SourceLoc{}, who + " has " + std::to_string(a.bytes) + " bytes, not a whole number of " +
                                           ir::scalarName(buf->elem) + " elements");
        buf->data.resize(a.bytes);
        if (a.bytes) std::memcpy(buf->data.data(), reinterpret_cast<const void*>(a.address), a.bytes);
        b.back.push_back({buf.get(), reinterpret_cast<void*>(a.address)});
        b.args.push_back(interp::KernelArg::ofBuffer(buf.get()));
        b.buffers.push_back(std::move(buf));
      }
    }
    return b;
  }

  // A grid: a tuple, or a function of the configuration (opt.d('TM')).
  runtime::GridFn gridFn(const nb::object& grid) const {
    return [grid](const runtime::Config& c) {
      nb::gil_scoped_acquire acquire;
      nb::object g = grid;
      if (!nb::isinstance<nb::tuple>(grid) && !nb::isinstance<nb::list>(grid)) g = grid(nb::cast(c));
      std::vector<int64_t> dims;
      for (nb::handle h : g) {
        nb::object i = nb::steal(PyNumber_Index(h.ptr()));  // ints, numpy ints
        if (!i.is_valid()) throw nb::python_error();
        long long v = PyLong_AsLongLong(i.ptr());
        if (v == -1 && PyErr_Occurred()) throw nb::python_error();
        dims.push_back(v);
      }
      if (dims.empty() || dims.size() > 3) throw UserError(SourceLoc{}, "a grid has 1 to 3 dimensions");
      while (dims.size() < 3) dims.push_back(1);
      return interp::Grid{dims[0], dims[1], dims[2]};
    };
  }

  std::string source_, filename_;
  std::unique_ptr<runtime::Kernel> k_;
};

}  // namespace

NB_MODULE(_tritonc, m) {
  m.doc() = "tritonc: the C++ core (use the tritonc package)";
  static nb::exception<UserError> compileError(m, "Error");
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const UserError& e) {
      PyErr_SetString(compileError.ptr(), e.what());
    } catch (const InternalError& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
  nb::class_<runtime::Config>(m, "Config")
      .def("d", [](const runtime::Config& c, const std::string& name) -> nb::object {
        std::string v = c.value(name);
        if (v.empty()) throw nb::key_error(("no macro or tuning parameter '" + name + "'").c_str());
        char* end = nullptr;
        long long x = std::strtoll(v.c_str(), &end, 0);
        if (*end == 0) return nb::int_(x);
        return nb::str(v.c_str());
      })
      .def("__repr__", [](const runtime::Config& c) { return "Config(" + c.text() + ")"; })
      .def_prop_ro("num_warps", [](const runtime::Config& c) { return c.numWarps; })
      .def_prop_ro("num_stages", [](const runtime::Config& c) { return c.numStages; });
  nb::class_<PyArg>(m, "Arg")
      .def(nb::init<>())
      .def_rw("kind", &PyArg::kind)
      .def_rw("i", &PyArg::i)
      .def_rw("f", &PyArg::f)
      .def_rw("address", &PyArg::address)
      .def_rw("bytes", &PyArg::bytes);
  nb::class_<PyKernel>(m, "Kernel")
      .def(nb::init<const std::string&, const std::vector<std::pair<std::string, std::string>>&, const std::vector<int>&,
                    const std::vector<int>&, const std::string&, const std::string&, const std::string&,
                    const std::string&, const std::vector<std::string>&, bool>(),
           nb::arg("source"), nb::arg("defines"), nb::arg("num_warps"), nb::arg("num_stages"), nb::arg("target"),
           nb::arg("kernel"), nb::arg("cache_dir"), nb::arg("filename"), nb::arg("tuning_key"), nb::arg("verbose"))
      .def("params", &PyKernel::params)
      .def("launch", &PyKernel::launch, nb::arg("args"), nb::arg("grid"), nb::arg("stream") = 0)
      .def("tune", &PyKernel::tune)
      .def_prop_ro("space_size", &PyKernel::spaceSize)
      .def_prop_ro("target", &PyKernel::target)
      .def_prop_ro("name", &PyKernel::name);
  m.def("version", [] { return runtime::compilerVersion(); });
}
