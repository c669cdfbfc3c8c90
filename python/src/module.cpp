// _tritonc: the C++ core seen from Python (nanobind). A thin layer over
// runtime::Launchable (a runtime::Kernel from source, or a
// runtime::LoadedKernel from a .tck file compiled ahead of time): the Python
// package (python/tritonc) turns tensors into
// (kind, address, bytes) triples and macros into -D definitions, and this
// module launches. Repeated calls with CUDA tensors take the Launcher's fast
// path instead (all in C++, see below). Compiler and launch errors become
// tritonc.Error carrying the diagnostic text.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/function.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "builder_bindings.h"
#include "ir/printer.h"
#include "ir/type.h"
#include "runtime/compile_report.h"
#include "runtime/host_memory.h"
#include "runtime/kernel.h"
#include "runtime/loaded_kernel.h"
#include "runtime/scalar_args.h"
#include "support/diagnostic.h"
#include "target/cpu/cpu_backend.h"
#include "target/nvptx/gpu_runner.h"

namespace nb = nanobind;
using namespace tritonc;

namespace {

// One argument from Python: ("int", v), ("float", v), ("host", address,
// bytes) or ("device", address, bytes). Host memory may be read-only (a
// numpy array that is not writeable: a memmap opened with mode 'r', an
// array over a bytes object): a kernel that changes it is an error.
// A float as Python prints it, near enough: the shortest of %g's forms.
std::string floatText(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", v);
  for (int digits = 1; digits < 17; ++digits) {
    char shorter[32];
    std::snprintf(shorter, sizeof shorter, "%.*g", digits, v);
    if (std::strtod(shorter, nullptr) == v) return shorter;
  }
  return text;
}

struct PyArg {
  std::string kind;
  int64_t i = 0;
  double f = 0;
  uint64_t address = 0;
  uint64_t bytes = 0;
  bool readOnly = false;
  // A strided view's span (from its first element to past its last): the
  // bytes between its elements belong to others (runtime::HostRange::view).
  bool view = false;
};

class PyKernel {
 public:
  PyKernel(const std::string& source, const std::vector<std::pair<std::string, std::string>>& defines,
           const std::vector<int>& numWarps, const std::vector<int>& numStages, const std::string& target,
           const std::string& kernel, const std::string& cacheDir, const std::string& filename,
           const std::vector<std::string>& tuningKey, bool verbose, bool cacheMustHit, const std::string& language,
           const std::string& diagnosticSource, bool allowTf32)
      : source_(language == "triton-ir" ? diagnosticSource : source), filename_(filename) {
    runtime::KernelOptions o;
    o.filename = filename;
    // Triton-IR from the Python DSL: its locations point into the Python
    // file, whose text (`diagnosticSource`) the carets are drawn from.
    if (language == "triton-ir") o.language = lang::Language::TritonIr;
    else if (language != "triton-c") throw UserError(SourceLoc{}, "unknown kernel language '" + language + "'");
    o.allowTf32 = allowTf32;
    for (auto& [n, v] : defines) o.defines.push_back({n, v});
    if (!numWarps.empty()) o.numWarps = numWarps;
    if (!numStages.empty()) o.numStages = numStages;
    o.target = target;
    o.kernel = kernel;
    o.cacheDir = cacheDir;
    o.tuningKey = tuningKey;
    if (verbose) o.progress = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
    o.cacheMustHit = cacheMustHit;
    located([&] { k_ = std::make_unique<runtime::Kernel>(source, o); });
  }

  // A kernel compiled ahead of time, from a .tck file: `defines`,
  // `numWarps` and `numStages` choose among its configurations (empty: any).
  static std::unique_ptr<PyKernel> load(const std::string& path,
                                        const std::vector<std::pair<std::string, std::string>>& defines,
                                        const std::vector<int>& numWarps, const std::vector<int>& numStages,
                                        const std::string& target, const std::string& kernel,
                                        const std::vector<std::string>& tuningKey, bool verbose) {
    runtime::LoadOptions o;
    for (auto& [n, v] : defines) o.defines.push_back({n, v});
    o.numWarps = numWarps;
    o.numStages = numStages;
    o.target = target;
    o.kernel = kernel;
    o.tuningKey = tuningKey;
    if (verbose) o.progress = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
    std::unique_ptr<runtime::LoadedKernel> loaded = runtime::LoadedKernel::load(path, o);
    auto out = std::unique_ptr<PyKernel>(new PyKernel());
    out->filename_ = loaded->sourceFile();  // launches' diagnostics point into the source it came from
    out->source_ = loaded->sourceText();
    out->k_ = std::move(loaded);
    return out;
  }

  // (name, is_pointer, dtype): dtype is the pointee for pointers.
  std::vector<std::tuple<std::string, bool, std::string>> params() const {
    std::vector<std::tuple<std::string, bool, std::string>> out;
    for (const runtime::Param& p : k_->params())
      out.emplace_back(p.name, p.type.isPtr(), ir::scalarName(p.type.isPtr() ? p.type.pointee : p.type.kind));
    return out;
  }

  // The launch path: `args` holds ints, floats and (kind, address, bytes)
  // tuples (kind 0: host, 1: device, 2: read-only host, 3: a host view's
  // span, 4: a read-only host view's span), converted here
  // without Arg objects.
  static std::vector<PyArg> convert(const nb::list& args) {
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
        a.readOnly = std::get<0>(t) == 2 || std::get<0>(t) == 4;
        a.view = std::get<0>(t) >= 3;
        a.address = std::get<1>(t);
        a.bytes = std::get<2>(t);
      }
    }
    return converted;
  }

  void launch(const nb::list& args, const nb::object& grid, uint64_t stream) {
    std::vector<PyArg> converted = convert(args);
    Bound b = bind(converted);
    runtime::GridFn fn = gridFn(grid);
    located([&] {
      nb::gil_scoped_release release;
      k_->launch(b.args, fn, reinterpret_cast<void*>(stream));
    });
    b.copyBack();
  }

  // The configuration that calls with `args` run (the tuner's choice), as
  // text; None while no call with their shape was made.
  nb::object chosen(const nb::list& args) {
    Bound b = bind(convert(args));
    runtime::PreparedLaunch p = k_->prepared(b.args);
    if (!p) return nb::none();
    return nb::str(p.config->text().c_str());
  }

  // Bytes of local memory per thread (spilled registers, as the driver
  // reports them) of the code that calls with `args` launched on the GPU;
  // -1 where none was launched there (another target, or no call yet).
  int64_t local_bytes(const nb::list& args) {
    Bound b = bind(convert(args));
    runtime::PreparedLaunch p = k_->prepared(b.args);
    if (!p || !p.compiled->gpu) return -1;
    return p.compiled->gpu->localBytes();
  }

  // The PTX of the first configuration, specialized for `args` (a GPU
  // target: compiled without a GPU, as `tritonc emit --stage ptx`).
  std::string ptx(const nb::list& args) {
    auto* kernel = dynamic_cast<runtime::Kernel*>(k_.get());
    if (!kernel || !kernel->onGpu()) throw UserError(SourceLoc{}, "PTX needs a kernel compiled for a GPU target");
    Bound b = bind(convert(args));
    std::string out;
    located([&] { out = kernel->compile(kernel->space()[0], b.args)->ptx; });
    return out;
  }

  // The GPU IR its PTX was lowered from (Triton's asm['ttgir']): layouts,
  // shared buffers, copies, barriers, as `tritonc emit --stage gpu-ir`.
  std::string gpu_ir(const nb::list& args) {
    auto* kernel = dynamic_cast<runtime::Kernel*>(k_.get());
    if (!kernel || !kernel->onGpu()) throw UserError(SourceLoc{}, "GPU IR needs a kernel compiled for a GPU target");
    Bound b = bind(convert(args));
    std::string out;
    located([&] {
      auto compiled = kernel->compile(kernel->space()[0], b.args);
      if (!compiled->module || !compiled->module->isGpu())
        throw UserError(SourceLoc{}, "the GPU IR of a kernel loaded from the cache is not kept; compile it uncached");
      out = ir::printModule(*compiled->module);
    });
    return out;
  }

  nb::dict tune(const nb::list& args, const nb::object& grid) {
    Bound b = bind(convert(args));
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
  runtime::Launchable& core() { return *k_; }
  // The `opt` a grid function receives: one Python object per configuration
  // of the space, made once (a copy, so that user code may keep it).
  nb::object options(const runtime::Config& c) {
    const std::vector<runtime::Config>& space = k_->space();
    if (&c < space.data() || &c >= space.data() + space.size()) return makeOptions(c);
    size_t i = size_t(&c - space.data());
    if (options_.size() != space.size()) options_.resize(space.size());
    if (!options_[i].is_valid()) options_[i] = makeOptions(c);
    return options_[i];
  }
  // Runs `f` with compiler diagnostics given their source text (see located()).
  template <class F>
  void withDiagnostics(F&& f) const {
    located(std::forward<F>(f));
  }
  std::string target() const { return k_->target(); }
  std::string name() const { return k_->name(); }

 private:
  PyKernel() = default;

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

  // Host memory is given to the CPU back end as it is (the kernel runs on
  // the caller's arrays, as a GPU kernel on its tensors), unless some of it
  // is read-only (a store there would crash, not raise); on the interpreter
  // it is copied into buffers and back after the launch
  // (runtime/host_memory.h: overlapping arguments share one).
  struct Bound {
    runtime::HostMemory host;
    std::vector<interp::KernelArg> args;
    void copyBack() { host.copyBack(); }
  };

  Bound bind(const std::vector<PyArg>& args) const {
    const auto& ps = k_->params();
    if (args.size() != ps.size())
      throw UserError(SourceLoc{}, "kernel '" + k_->name() + "' takes " + std::to_string(ps.size()) +
                                       " arguments, " + std::to_string(args.size()) + " given");
    Bound b;
    std::vector<size_t> hostArgs;
    std::vector<runtime::HostRange> ranges;
    for (size_t k = 0; k < args.size(); ++k) {
      const PyArg& a = args[k];
      const runtime::Param& p = ps[k];
      std::string who = "argument " + std::to_string(k) + " ('" + p.name + "')";
      if (p.type.isPtr() != (a.kind == "host" || a.kind == "device"))
        throw UserError(SourceLoc{}, who + (p.type.isPtr() ? " is a pointer: pass a tensor or an array"
                                                           : " is a scalar: pass a number, not a tensor"));
      if (a.kind == "int") {
        // (an integer for a float parameter is its value; for an integer one it must fit)
        std::string misfit = p.type.isFloat() ? "" : runtime::intMisfit(p.type.kind, a.i);
        if (!misfit.empty()) throw UserError(SourceLoc{}, who + ": " + misfit);
        b.args.push_back(interp::KernelArg::ofInt(a.i));
      } else if (a.kind == "float") {
        if (!p.type.isFloat())
          throw UserError(SourceLoc{}, who + " is an integer (" + ir::scalarName(p.type.kind) +
                                           "): pass an int, not the float " + floatText(a.f));
        b.args.push_back(interp::KernelArg::ofFloat(a.f));
      } else if (a.kind == "device") {
        b.args.push_back(interp::KernelArg::ofDevicePtr(a.address, a.bytes));
      } else {
        int64_t size = ir::byteSize(p.type.pointee);
        if (a.bytes % uint64_t(size) != 0)
          throw UserError(SourceLoc{}, who + " has " + std::to_string(a.bytes) + " bytes, not a whole number of " +
                                           ir::scalarName(p.type.pointee) + " elements");
        hostArgs.push_back(k);
        ranges.push_back({a.address, a.bytes, p.type.pointee, p.name, who, a.readOnly, a.view});
        b.args.push_back(interp::KernelArg::ofBuffer(nullptr));  // bound below
      }
    }
    const bool inPlace = k_->target() == "cpu" &&
                         std::none_of(ranges.begin(), ranges.end(), [](const runtime::HostRange& r) { return r.readOnly; });
    if (inPlace) {
      for (size_t h = 0; h < hostArgs.size(); ++h)
        b.args[hostArgs[h]] = interp::KernelArg::ofHostPtr(ranges[h].address, ranges[h].bytes);
      return b;
    }
    std::vector<interp::KernelArg> bound = b.host.bind(ranges);
    for (size_t h = 0; h < hostArgs.size(); ++h) b.args[hostArgs[h]] = bound[h];
    return b;
  }

  // A grid: a tuple, or a function of the configuration (opt.d('TM')).
  runtime::GridFn gridFn(const nb::object& grid) {
    return [this, grid](const runtime::Config& c) {
      nb::gil_scoped_acquire acquire;
      nb::object g = grid;
      if (!nb::isinstance<nb::tuple>(grid) && !nb::isinstance<nb::list>(grid)) g = grid(options(c));
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

  // tritonc.Options (whose d() is a dict lookup) when the package is there, else the Config.
  static nb::object makeOptions(const runtime::Config& c) {
    try {
      return nb::module_::import_("tritonc").attr("Options")(nb::cast(c));
    } catch (const nb::python_error&) {
      return nb::cast(c);
    }
  }

  std::string source_, filename_;
  std::unique_ptr<runtime::Launchable> k_;
  std::vector<nb::object> options_;  // by index in the space
};


// The launch path of tritonc.kernel (its base class, whose tp_call slot is
// launcherCall below). A call whose macros, argument kinds and launch shape
// were seen before, with every pointer argument a CUDA torch tensor on device
// 0, is launched from here without running any Python: the macros are
// compared with the remembered ones, each tensor gives its address, the
// runtime's memo gives the prepared launch, and the driver launches on torch's
// current stream (holding the GIL, as torch's own launches do). Anything else
// (numpy, CPU tensors, new macros or shapes, bad arguments) goes to the
// Python method _call_slow, which launches, raises the clear errors, and
// remembers its macros here for the next call.
class Launcher {
 public:
  // Called by _call_slow after a launch on the GPU: later calls with these
  // macros may take the fast path. `outputs` are the indices of the returned arguments.
  // `dtypes` are the dtypes of that call's arguments (None for numbers):
  // a fast call's tensors must have the same ones.
  void remember(const nb::dict& macros, nb::object kernel, std::vector<int> outputs, const nb::list& dtypes) {
    for (const Entry& e : entries_) {
      if (!e.kernel.is(kernel)) continue;
      try {
        if (e.macros.equal(macros) && e.dtypes.equal(dtypes)) return;  // known
      } catch (const nb::python_error&) {  // values that do not compare (arrays): not the same
      }
    }
    if (entries_.size() >= kMaxEntries) entries_.clear();
    PyKernel* pk = &nb::cast<PyKernel&>(kernel);
    entries_.push_back({nb::dict(macros), std::move(kernel), pk, std::move(outputs), nb::list(dtypes)});
  }

  // The launch without Python: true with `out` set (a new reference), or
  // false, having launched nothing, for _call_slow. `kwargs` may be null.
  bool fast(PyObject* args, PyObject* kwargs, PyObject*& out) {
    Names& n = names();
    if (!n.tensorType || !n.rawStream || entries_.empty()) return false;
    PyObject* grid = kwargs ? PyDict_GetItem(kwargs, n.grid) : nullptr;
    Py_ssize_t count = PyTuple_GET_SIZE(args);
    if (!grid && count > 0) {  // k(a, b, c, n, (1,))
      PyObject* last = PyTuple_GET_ITEM(args, count - 1);
      if (PyTuple_Check(last) || PyList_Check(last) || PyCallable_Check(last)) grid = last, --count;
    }
    if (!grid) return false;
    const Entry* e = entryFor(kwargs, n);
    if (!e) return false;
    PyKernel& pk = *e->pykernel;
    runtime::Launchable& k = pk.core();
    const std::vector<runtime::Param>& params = k.params();
    if (size_t(count) != params.size() || PyList_GET_SIZE(e->dtypes.ptr()) != count) return false;
    // Local, not thread_local: a grid function may launch another kernel.
    std::vector<interp::KernelArg> converted;
    converted.resize(size_t(count));
    for (Py_ssize_t i = 0; i < count; ++i) {
      PyObject* x = PyTuple_GET_ITEM(args, i);
      if (params[i].type.isPtr()) {
        // A CUDA tensor on device 0, any strides: the kernel gets its data pointer.
        if (!PyObject_TypeCheck(x, reinterpret_cast<PyTypeObject*>(n.tensorType))) return false;
        if (n.oneDevice ? !isTrue(PyObject_GetAttr(x, n.isCuda))
                        : intResult(PyObject_CallMethodNoArgs(x, n.getDevice)) != 0)
          return false;
        if (!sameObject(PyObject_GetAttr(x, n.dtype), PyList_GET_ITEM(e->dtypes.ptr(), i))) return false;
        int64_t address = intResult(PyObject_CallMethodNoArgs(x, n.dataPtr));
        if (address < 0) return false;
        converted[i] = interp::KernelArg::ofDevicePtr(uint64_t(address));
      } else if (PyLong_Check(x)) {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(x, &overflow);
        if (overflow || (v == -1 && PyErr_Occurred())) return PyErr_Clear(), false;
        // (one that does not fit its parameter: the slow path says so)
        if (!params[i].type.isFloat() && !runtime::intFits(params[i].type.kind, v)) return false;
        converted[i] = interp::KernelArg::ofInt(v);
      } else if (PyFloat_Check(x) && params[i].type.isFloat()) {
        converted[i] = interp::KernelArg::ofFloat(PyFloat_AS_DOUBLE(x));
      } else {
        return false;
      }
    }
    runtime::PreparedLaunch p = k.prepared(converted);
    if (!p) return false;  // a new shape: tuning may need the buffers' sizes
    interp::Grid g;
    if (!gridOf(grid, pk, *p.config, g)) return false;
    int64_t stream = intResult(PyObject_CallOneArg(n.rawStream, n.zero));
    if (stream < 0) return false;
    pk.withDiagnostics([&] { k.launch(p, converted, g, reinterpret_cast<void*>(stream)); });
    ++fastLaunches_;
    if (e->outputs.empty()) {
      out = Py_NewRef(Py_None);
    } else if (e->outputs.size() == 1) {
      out = Py_NewRef(PyTuple_GET_ITEM(args, e->outputs[0]));
    } else {
      out = PyTuple_New(Py_ssize_t(e->outputs.size()));
      for (size_t o = 0; o < e->outputs.size(); ++o)
        PyTuple_SET_ITEM(out, Py_ssize_t(o), Py_NewRef(PyTuple_GET_ITEM(args, e->outputs[o])));
    }
    return true;
  }

  uint64_t fastLaunches_ = 0;  // for tests: calls that ran no Python

 public:
  // Interned names and torch's objects, found once (torch is never imported
  // from here); kept for the life of the process.
  struct Names {
    PyObject *grid, *isCuda, *dataPtr, *getDevice, *dtype, *zero;
    PyObject* tensorType = nullptr;  // torch.Tensor
    PyObject* rawStream = nullptr;   // torch._C._cuda_getCurrentRawStream
    bool oneDevice = false;          // a single CUDA device: is_cuda says device 0
    bool torchLooked = false;
  };
  static Names& names() {
    static Names n{PyUnicode_InternFromString("grid"), PyUnicode_InternFromString("is_cuda"),
                   PyUnicode_InternFromString("data_ptr"), PyUnicode_InternFromString("get_device"),
                   PyUnicode_InternFromString("dtype"), PyLong_FromLong(0)};
    if (!n.torchLooked) {
      static PyObject* modules = PyImport_GetModuleDict();  // borrowed, lives as long as the interpreter
      PyObject* torch = PyDict_GetItemString(modules, "torch");  // borrowed
      if (!torch) return n;  // not imported yet: look again next time
      n.torchLooked = true;
      nb::handle t(torch);
      try {
        nb::object tensor = t.attr("Tensor");
        nb::object raw = t.attr("_C").attr("_cuda_getCurrentRawStream");
        n.oneDevice = nb::cast<int>(t.attr("cuda").attr("device_count")()) == 1;
        n.tensorType = PyType_Check(tensor.ptr()) ? tensor.release().ptr() : nullptr;
        n.rawStream = raw.release().ptr();
      } catch (const nb::python_error&) {  // a torch without CUDA: no fast path
        n.tensorType = n.rawStream = nullptr;
      }
    }
    return n;
  }

  // Consumes `r`: is it `expected`? (false on an error, which is cleared)
  static bool sameObject(PyObject* r, PyObject* expected) {
    if (!r) return PyErr_Clear(), false;
    bool same = r == expected;
    Py_DECREF(r);
    return same;
  }
  // Consumes `r`: is it True? (false on an error, which is cleared)
  static bool isTrue(PyObject* r) {
    if (!r) return PyErr_Clear(), false;
    bool t = r == Py_True;
    Py_DECREF(r);
    return t;
  }
  // Consumes `r`: its value as an int, or -1 (errors cleared).
  static int64_t intResult(PyObject* r) {
    if (!r) return PyErr_Clear(), -1;
    long long v = PyLong_Check(r) ? PyLong_AsLongLong(r) : -1;
    Py_DECREF(r);
    if (v == -1 && PyErr_Occurred()) PyErr_Clear();
    return v;
  }
  // A tuple or list of ints, or a function of the configuration returning one.
  static bool gridOf(PyObject* grid, PyKernel& k, const runtime::Config& c, interp::Grid& g) {
    nb::object dims;
    if (PyTuple_Check(grid) || PyList_Check(grid)) {
      dims = nb::borrow(grid);
    } else {
      PyObject* r = PyObject_CallOneArg(grid, k.options(c).ptr());
      if (!r) return PyErr_Clear(), false;  // _call_slow calls it again and raises
      dims = nb::steal(r);
      if (!PyTuple_Check(r) && !PyList_Check(r)) return false;
    }
    return gridDims(dims.ptr(), g);
  }

  // A tuple or list of 1 to 3 ints as a grid (false, nothing raised, else).
  static bool gridDims(PyObject* dims, interp::Grid& g) {
    Py_ssize_t size = PySequence_Fast_GET_SIZE(dims);
    if (size < 1 || size > 3) return false;
    int64_t v[3] = {1, 1, 1};
    for (Py_ssize_t i = 0; i < size; ++i) {
      PyObject* d = PySequence_Fast_GET_ITEM(dims, i);
      if (!PyLong_Check(d)) return false;
      v[i] = PyLong_AsLongLong(d);
      if (v[i] == -1 && PyErr_Occurred()) return PyErr_Clear(), false;
    }
    g = interp::Grid{v[0], v[1], v[2]};
    return true;
  }


 private:
  struct Entry {
    nb::dict macros;
    nb::object kernel;  // keeps `pykernel` alive
    PyKernel* pykernel;
    std::vector<int> outputs;
    nb::list dtypes;  // per argument: the dtype its tensor had (torch dtypes are singletons)
  };
  static constexpr size_t kMaxEntries = 16;

  const Entry* entryFor(PyObject* kwargs, Names& n) const {
    Py_ssize_t count = kwargs ? PyDict_GET_SIZE(kwargs) - (PyDict_GetItem(kwargs, n.grid) ? 1 : 0) : 0;
    for (const Entry& e : entries_) {
      if (PyDict_GET_SIZE(e.macros.ptr()) != count) continue;
      bool same = true;
      Py_ssize_t pos = 0;
      PyObject *key, *value;
      while (same && kwargs && PyDict_Next(kwargs, &pos, &key, &value)) {
        if (key == n.grid) continue;
        PyObject* known = PyDict_GetItem(e.macros.ptr(), key);
        // Same type too: 2, 2.0 and True compare equal but are different macros.
        same = known && (known == value || (Py_TYPE(known) == Py_TYPE(value) &&
                                            PyObject_RichCompareBool(known, value, Py_EQ) == 1));
      }
      PyErr_Clear();
      if (same) return &e;
    }
    return nullptr;
  }

  std::vector<Entry> entries_;
};

PyObject* g_errorType = nullptr;  // tritonc.Error

// tp_call of Launcher (and so of tritonc.kernel): the fast path, else _call_slow.
// Runs `f` (a tp_call's body), turning C++ exceptions into Python errors.
template <class F>
PyObject* pythonCall(F&& f) {
  try {
    return f();
  } catch (nb::python_error& e) {
    e.restore();
  } catch (const UserError& e) {
    PyErr_SetString(g_errorType, e.what());
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

PyObject* launcherCall(PyObject* self, PyObject* args, PyObject* kwargs) {
  return pythonCall([&]() -> PyObject* {
    PyObject* out = nullptr;
    if (nb::inst_ptr<Launcher>(self)->fast(args, kwargs, out)) return out;
    nb::object slow = nb::handle(self).attr("_call_slow");
    return PyObject_Call(slow.ptr(), args, kwargs);
  });
}

PyType_Slot launcherSlots[] = {{Py_tp_call, reinterpret_cast<void*>(launcherCall)}, {0, nullptr}};

// The launch path of @tritonc.jit kernels (the base class of
// python/tritonc/jit.py's JITFunction): kernel[grid] is a JitCall, and a call
// whose arguments play the roles of a remembered call (the same constexpr
// values, CUDA tensors of the same dtypes on device 0, integers of the same
// width, floats), positional ones and keyword ones by the same names in the
// same order (a library's call site passes them so every time: Liger's
// kernels take two dozen by keyword), launches from here without running
// Python, as Launcher does for tritonc.kernel. JITFunction.run remembers its
// calls with CUDA tensors; anything else goes there.
class JitLauncher {
 public:
  enum Role { Constexpr = 0, Pointer = 1, Int32 = 2, Int64 = 3, Float = 4 };

  // `roles` per argument, the positional ones then those in `keywords` (the
  // keyword arguments' names in the call's order: launch options and
  // constexprs as well as runtime parameters); `param` its index among the
  // kernel's parameters (-1 for constexprs); `expected` the constexpr's
  // value or the tensor's dtype; `names` the positional arguments' names and
  // `metaExtra` the other entries of the dict a grid function receives;
  // `globals` the (globals dict, name, value) the kernel was compiled with: a
  // call finds them unchanged, else run() raises Triton's error.
  void remember(nb::object compiled, nb::object kernel, std::vector<int> roles, std::vector<int> param,
                nb::list expected, nb::list keywords, nb::list names, nb::dict metaExtra, nb::list globals) {
    if (entries_.size() >= 16) entries_.clear();
    PyKernel* pk = &nb::cast<PyKernel&>(kernel);
    size_t positional = roles.size() - nb::len(keywords);
    entries_.push_back({std::move(compiled), std::move(kernel), pk, std::move(roles), std::move(param),
                        std::move(expected), std::move(keywords), positional, std::move(names),
                        std::move(metaExtra), std::move(globals)});
  }

  // Forgets every remembered call (the kernel's source changed).
  void forget() { entries_.clear(); }

  bool fast(PyObject* grid, PyObject* args, PyObject* kwargs, PyObject*& out) {
    Launcher::Names& n = Launcher::names();
    if (!n.tensorType || !n.rawStream || entries_.empty()) return false;
    Py_ssize_t count = PyTuple_GET_SIZE(args);
    std::vector<interp::KernelArg> converted;
    std::vector<PyObject*> values;  // borrowed: the positional arguments, then the keyword ones
    for (const Entry& e : entries_) {
      if (e.positional != size_t(count) || !sameGlobals(e.globals.ptr())) continue;
      if (!argumentsInOrder(e, args, kwargs, values)) continue;
      runtime::Launchable& k = e.pykernel->core();
      converted.assign(k.params().size(), interp::KernelArg{});
      if (!convert(e, values, n, converted)) continue;
      runtime::PreparedLaunch p = k.prepared(converted);
      if (!p) return false;
      interp::Grid g;
      if (!gridOf(grid, e, args, kwargs, g)) return false;
      int64_t stream = Launcher::intResult(PyObject_CallOneArg(n.rawStream, n.zero));
      if (stream < 0) return false;
      e.pykernel->withDiagnostics([&] { k.launch(p, converted, g, reinterpret_cast<void*>(stream)); });
      ++fastLaunches_;
      out = Py_NewRef(e.compiled.ptr());
      return true;
    }
    return false;
  }

  uint64_t fastLaunches_ = 0;

 private:
  struct Entry {
    nb::object compiled;  // what a launch returns (tritonc.jit.CompiledKernel)
    nb::object kernel;    // keeps `pykernel` alive
    PyKernel* pykernel;
    std::vector<int> roles, param;
    nb::list expected;
    nb::list keywords;  // the keyword arguments' names, in the remembered call's order
    size_t positional;
    nb::list names;
    nb::dict metaExtra;
    nb::list globals;  // (dict, name, value) tuples
  };

  // Whether every global the kernel was compiled with still holds its value.
  static bool sameGlobals(PyObject* globals) {
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(globals); ++i) {
      PyObject* t = PyList_GET_ITEM(globals, i);
      PyObject* now = PyDict_GetItemWithError(PyTuple_GET_ITEM(t, 0), PyTuple_GET_ITEM(t, 1));  // borrowed
      if (!now) return PyErr_Clear(), false;
      if (!same(PyTuple_GET_ITEM(t, 2), now)) return false;
    }
    return true;
  }

  static bool same(PyObject* known, PyObject* value) {
    if (known == value) return true;
    if (Py_TYPE(known) != Py_TYPE(value)) return false;  // 2, 2.0 and True differ
    int r = PyObject_RichCompareBool(known, value, Py_EQ);
    if (r < 0) PyErr_Clear();
    return r == 1;
  }

  // The call's arguments in the entry's order, when its keywords are the
  // entry's, in the same order (another order is another call site: the
  // Python path, which remembers it too).
  static bool argumentsInOrder(const Entry& e, PyObject* args, PyObject* kwargs, std::vector<PyObject*>& values) {
    Py_ssize_t keywordCount = kwargs ? PyDict_GET_SIZE(kwargs) : 0;
    if (size_t(keywordCount) != e.roles.size() - e.positional) return false;
    values.clear();
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args); ++i) values.push_back(PyTuple_GET_ITEM(args, i));
    Py_ssize_t pos = 0, j = 0;
    PyObject *key, *value;
    while (kwargs && PyDict_Next(kwargs, &pos, &key, &value)) {
      PyObject* known = PyList_GET_ITEM(e.keywords.ptr(), j++);
      if (key != known) {  // names are interned strings; equal ones are usually the same object
        int r = PyObject_RichCompareBool(key, known, Py_EQ);
        if (r != 1) return r < 0 ? (PyErr_Clear(), false) : false;
      }
      values.push_back(value);
    }
    return true;
  }

  static bool convert(const Entry& e, const std::vector<PyObject*>& values, Launcher::Names& n,
                      std::vector<interp::KernelArg>& out) {
    for (size_t i = 0; i < e.roles.size(); ++i) {
      PyObject* x = values[i];
      PyObject* expected = PyList_GET_ITEM(e.expected.ptr(), Py_ssize_t(i));
      switch (e.roles[i]) {
        case Constexpr:
          if (!same(expected, x)) return false;
          break;
        case Pointer: {
          if (!PyObject_TypeCheck(x, reinterpret_cast<PyTypeObject*>(n.tensorType))) return false;
          if (n.oneDevice ? !Launcher::isTrue(PyObject_GetAttr(x, n.isCuda))
                          : Launcher::intResult(PyObject_CallMethodNoArgs(x, n.getDevice)) != 0)
            return false;
          if (!Launcher::sameObject(PyObject_GetAttr(x, n.dtype), expected)) return false;
          int64_t address = Launcher::intResult(PyObject_CallMethodNoArgs(x, n.dataPtr));
          if (address < 0) return false;
          out[size_t(e.param[i])] = interp::KernelArg::ofDevicePtr(uint64_t(address));
          break;
        }
        case Int32:
        case Int64: {
          if (!PyLong_Check(x) || PyBool_Check(x)) return false;
          int overflow = 0;
          long long v = PyLong_AsLongLongAndOverflow(x, &overflow);
          if (overflow || (v == -1 && PyErr_Occurred())) return PyErr_Clear(), false;
          bool narrow = v >= INT32_MIN && v <= INT32_MAX;
          if (narrow != (e.roles[i] == Int32)) return false;  // another parameter type: another kernel
          out[size_t(e.param[i])] = interp::KernelArg::ofInt(v);
          break;
        }
        case Float:
          if (!PyFloat_Check(x)) return false;
          out[size_t(e.param[i])] = interp::KernelArg::ofFloat(PyFloat_AS_DOUBLE(x));
          break;
        default:
          return false;
      }
    }
    return true;
  }

  // A tuple or list of ints, or grid(meta) with meta the call's arguments by name.
  static bool gridOf(PyObject* grid, const Entry& e, PyObject* args, PyObject* kwargs, interp::Grid& g) {
    nb::object dims;
    if (PyTuple_Check(grid) || PyList_Check(grid)) {
      dims = nb::borrow(grid);
    } else {
      nb::object meta = nb::steal(PyDict_Copy(e.metaExtra.ptr()));
      if (!meta.is_valid()) return PyErr_Clear(), false;
      for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args); ++i)
        PyDict_SetItem(meta.ptr(), PyList_GET_ITEM(e.names.ptr(), i), PyTuple_GET_ITEM(args, i));
      if (kwargs && PyDict_Update(meta.ptr(), kwargs) < 0) return PyErr_Clear(), false;
      PyObject* r = PyObject_CallOneArg(grid, meta.ptr());
      if (!r) return PyErr_Clear(), false;  // run() calls it again and raises
      dims = nb::steal(r);
      if (!PyTuple_Check(r) && !PyList_Check(r)) return false;
    }
    // An empty grid is run()'s business (it launches nothing).
    return Launcher::gridDims(dims.ptr(), g) && g.x > 0 && g.y > 0 && g.z > 0;
  }

  std::vector<Entry> entries_;
};

// kernel[grid] of a @tritonc.jit kernel: its call takes JitLauncher's fast
// path, else JITFunction.run(*args, grid=grid, **kwargs).
struct JitCall {
  nb::object launcher, grid;
};

PyObject* jitCallCall(PyObject* self, PyObject* args, PyObject* kwargs) {
  return pythonCall([&]() -> PyObject* {
    JitCall* c = nb::inst_ptr<JitCall>(self);
    PyObject* out = nullptr;
    if (nb::inst_ptr<JitLauncher>(c->launcher.ptr())->fast(c->grid.ptr(), args, kwargs, out)) return out;
    nb::object run = c->launcher.attr("run");
    nb::dict all;
    if (kwargs)
      for (auto [k, v] : nb::borrow<nb::dict>(kwargs)) all[k] = v;
    all["grid"] = c->grid;
    return PyObject_Call(run.ptr(), args, all.ptr());
  });
}

PyType_Slot jitCallSlots[] = {{Py_tp_call, reinterpret_cast<void*>(jitCallCall)}, {0, nullptr}};

}  // namespace

NB_MODULE(_tritonc, m) {
  m.doc() = "tritonc: the C++ core (use the tritonc package)";
  // Kernels held by module-level objects (@tritonc.jit functions) may live
  // until the interpreter ends; that is not a leak worth a report.
  nb::set_leak_warnings(false);
  // Triton's base of its errors (triton.TritonError), the base of Error too,
  // so that `except triton.TritonError` catches what the C++ core reports.
  static PyObject* tritonError = PyErr_NewExceptionWithDoc(
      "tritonc._tritonc.TritonError", "Triton's base class of its errors (triton.TritonError).", nullptr, nullptr);
  m.attr("TritonError") = nb::handle(tritonError);
  static nb::exception<UserError> compileError(m, "Error", tritonError);
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const OutOfResourcesError& e) {
      // Triton's exception (tritonc.runtime.errors.OutOfResources, an Error),
      // with this message: host code prunes configurations by its name.
      // (The extension used without its package: a plain Error.)
      try {
        nb::object cls = nb::module_::import_("tritonc.runtime.errors").attr("OutOfResources");
        nb::object err = cls(e.required, e.limit, e.resource, e.what());
        PyErr_SetObject(cls.ptr(), err.ptr());
      } catch (const nb::python_error&) {
        PyErr_SetString(compileError.ptr(), e.what());
      }
    } catch (const UserError& e) {
      PyErr_SetString(compileError.ptr(), e.what());
    } catch (const InternalError& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
  // A macro's value as Python sees it: an int when it reads as one, else the text.
  static auto macroValue = [](const std::string& v) -> nb::object {
    char* end = nullptr;
    long long x = std::strtoll(v.c_str(), &end, 0);
    if (!v.empty() && *end == 0) return nb::int_(x);
    return nb::str(v.c_str());
  };
  nb::class_<runtime::Config>(m, "Config")
      .def("d", [](const runtime::Config& c, const std::string& name) -> nb::object {
        std::string v = c.value(name);
        if (v.empty()) throw nb::key_error(("no macro or tuning parameter '" + name + "'").c_str());
        return macroValue(v);
      })
      // Every name d() knows, with its value (tritonc.Options reads them once).
      .def("_values", [](const runtime::Config& c) {
        nb::dict d;
        d["num_warps"] = c.numWarps;
        d["num_stages"] = c.numStages;
        for (const auto* list : {&c.fixed, &c.values})  // the tuned values win, as in value()
          for (const lang::Define& def : *list) d[def.name.c_str()] = macroValue(def.value);
        return d;
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
      .def_rw("bytes", &PyArg::bytes)
      .def_rw("read_only", &PyArg::readOnly);
  nb::class_<PyKernel>(m, "Kernel")
      .def(nb::init<const std::string&, const std::vector<std::pair<std::string, std::string>>&, const std::vector<int>&,
                    const std::vector<int>&, const std::string&, const std::string&, const std::string&,
                    const std::string&, const std::vector<std::string>&, bool, bool, const std::string&,
                    const std::string&, bool>(),
           nb::arg("source"), nb::arg("defines"), nb::arg("num_warps"), nb::arg("num_stages"), nb::arg("target"),
           nb::arg("kernel"), nb::arg("cache_dir"), nb::arg("filename"), nb::arg("tuning_key"), nb::arg("verbose"),
           nb::arg("cache_must_hit") = false, nb::arg("language") = "triton-c", nb::arg("diagnostic_source") = "",
           nb::arg("allow_tf32") = false)
      .def("params", &PyKernel::params)
      .def("launch", &PyKernel::launch, nb::arg("args"), nb::arg("grid"), nb::arg("stream") = 0)
      .def("tune", &PyKernel::tune)
      .def("chosen", &PyKernel::chosen)
      .def("ptx", &PyKernel::ptx)
      .def("gpu_ir", &PyKernel::gpu_ir)
      .def("local_bytes", &PyKernel::local_bytes)
      .def_prop_ro("space_size", &PyKernel::spaceSize)
      .def_prop_ro("target", &PyKernel::target)
      .def_prop_ro("name", &PyKernel::name);
  m.def("load", &PyKernel::load, nb::arg("path"), nb::arg("defines"), nb::arg("num_warps"), nb::arg("num_stages"),
        nb::arg("target"), nb::arg("kernel"), nb::arg("tuning_key"), nb::arg("verbose"));
  g_errorType = compileError.ptr();
  nb::class_<Launcher>(m, "Launcher", nb::type_slots(launcherSlots))
      .def(nb::init<>())
      .def("_remember", &Launcher::remember, nb::arg("macros"), nb::arg("kernel"), nb::arg("outputs"),
           nb::arg("dtypes"))
      .def_ro("_fast_launches", &Launcher::fastLaunches_);
  nb::class_<JitCall>(m, "JitCall", nb::type_slots(jitCallSlots));
  nb::class_<JitLauncher>(m, "JitLauncher")
      .def(nb::init<>())
      .def("_forget", &JitLauncher::forget)
      .def("_remember", &JitLauncher::remember, nb::arg("compiled"), nb::arg("kernel"), nb::arg("roles"),
           nb::arg("param"), nb::arg("expected"), nb::arg("keywords"), nb::arg("names"), nb::arg("meta_extra"),
           nb::arg("globals"))
      .def("__getitem__", [](nb::handle self, nb::object grid) { return JitCall{nb::borrow(self), std::move(grid)}; })
      .def_ro("_fast_launches", &JitLauncher::fastLaunches_);
  // What the package needs of a DLPack tensor: (device type (1 CPU, 2 CUDA,
  // ...), device id, address, bytes, contiguous?, span: the bytes from the
  // address to its last element, -1 with negative strides). nanobind reads
  // the capsule; the memory stays the producer's (the caller holds the object).
  m.def("dlpack_info", [](nb::ndarray<nb::ro> a) {
    bool contiguous = true;
    int64_t expected = 1, last = 0;
    for (size_t d = a.ndim(); d-- > 0;) {
      if (a.shape(d) != 1 && a.stride(d) != expected) contiguous = false;
      expected *= int64_t(a.shape(d));
      if (a.stride(d) < 0) last = INT64_MIN / 2;
      else if (a.shape(d) > 0) last += (int64_t(a.shape(d)) - 1) * a.stride(d);
    }
    int64_t span = a.size() == 0 ? 0 : last < 0 ? -1 : (last + 1) * int64_t(a.itemsize());
    return nb::make_tuple(a.device_type(), a.device_id(), uint64_t(reinterpret_cast<uintptr_t>(a.data())),
                          uint64_t(a.nbytes()), contiguous, span);
  });
  m.def("version", [] { return runtime::versionString(); });
  m.def("cpu_backend_available", [] { return cpu::available(); });
  bindFunctionBuilder(m);
  // The compile report of one configuration (runtime/compile_report.h), as
  // text with the source in it, or JSON.
  m.def("compile_report",
        [](const std::string& source, const std::vector<std::pair<std::string, std::string>>& defines, int numWarps,
           int numStages, const std::string& target, bool allowTf32,
           const std::vector<std::pair<std::string, int64_t>>& ints, const std::string& filename, bool json,
           const std::string& language, const std::string& shown, size_t firstLine, size_t lastLine) {
          runtime::ReportOptions o;
          o.filename = filename;
          // Triton-IR from the Python DSL: rendered beside `shown` (the
          // Python file), lines firstLine..lastLine (the kernel's function).
          if (language == "triton-ir") o.language = lang::Language::TritonIr;
          else if (language != "triton-c") throw UserError(SourceLoc{}, "unknown kernel language '" + language + "'");
          for (auto& [n, v] : defines) o.defines.push_back({n, v});
          o.numWarps = numWarps;
          o.numStages = numStages;
          o.arch = target;
          o.allowTf32 = allowTf32;
          o.ints = ints;
          try {
            runtime::CompileReport r = runtime::compileReport(source, o);
            const std::string& text = shown.empty() ? source : shown;
            return json ? runtime::reportJson(r) : runtime::renderReport(r, text, firstLine, lastLine);
          } catch (const UserError& e) {
            if (!e.loc().known()) throw;
            throw UserError(SourceLoc{}, formatDiagnostic(filename, shown.empty() ? source : shown, e.loc(), e.what()));
          }
        },
        nb::arg("source"), nb::arg("defines"), nb::arg("num_warps"), nb::arg("num_stages"), nb::arg("target"),
        nb::arg("allow_tf32"), nb::arg("ints"), nb::arg("filename"), nb::arg("json"), nb::arg("language") = "triton-c",
        nb::arg("shown") = "", nb::arg("first_line") = 0, nb::arg("last_line") = 0);
}
