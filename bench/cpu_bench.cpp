// tritonc-cpu-bench: times tritonc's CPU back end on the workloads of the
// CPU performance goals (issue 13), in C++ so that nothing but the kernel
// is timed: the buffers are the kernels' own (no copies), each timing is the
// median of repeated launches after a warm-up. Also measured: the machine's
// floors (memory bandwidth, peak f32 rate), the interpreter on the same
// workloads (smaller where the full size would take minutes; the JSON says
// by how much), and a matmul's cold compile and disk-cache load. Outputs are
// poisoned (NaN) before each configuration runs and sampled against a
// double-precision reference afterwards.
//   tritonc-cpu-bench --root DIR [--out FILE.json] [--filter SUBSTR] [--repeats N]
//                     [--no-native] [--no-interp] [--no-machine] [--no-compile]
// bench/cpu_bench.py runs it beside numpy and PyTorch and writes the results.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <random>
#include <sstream>

#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "cpu_machine.h"
#include "lang/compile.h"
#include "runtime/kernel.h"
#include "runtime/optimize_for_launch.h"
#include "runtime/specialize.h"
#include "target/cpu/cpu_backend.h"
#include "target/interp/interpreter.h"

namespace {

using namespace tritonc;
using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// CPU time of the whole process (every thread), which other processes on
// the machine do not inflate as they do wall time.
double processCpuMs() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// An f32 buffer of n random values in [-1, 1), on huge pages where the
// kernel gives them (numpy and torch ask for them too).
std::unique_ptr<interp::Buffer> randomBuffer(const std::string& name, int64_t n, std::mt19937_64& rng) {
  auto b = std::make_unique<interp::Buffer>();
  b->name = name;
  b->elem = ir::Scalar::F32;
  b->shape = {n};
  b->data.reserve(size_t(n) * 4);
  const uintptr_t start = (reinterpret_cast<uintptr_t>(b->data.data()) + 4095) / 4096 * 4096;
  const uintptr_t end = (reinterpret_cast<uintptr_t>(b->data.data()) + size_t(n) * 4) / 4096 * 4096;
  if (end > start) madvise(reinterpret_cast<void*>(start), end - start, MADV_HUGEPAGE);
  b->data.resize(size_t(n) * 4);
  float* f = reinterpret_cast<float*>(b->data.data());
  uint64_t s = rng();
  for (int64_t i = 0; i < n; ++i) {  // a fast generator: 2^26-element inputs must not take long
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    f[i] = float(int64_t(s >> 40) - (int64_t(1) << 23)) / float(1 << 23);
  }
  return b;
}

float* floats(interp::Buffer& b) { return reinterpret_cast<float*>(b.data.data()); }

void poison(interp::Buffer& b) {
  std::fill(floats(b), floats(b) + b.numElements(), std::numeric_limits<float>::quiet_NaN());
}

// One workload at one size: the kernel file, its fixed macros and the
// configurations to try, the grid of a configuration, the arguments, and
// the check of the output.
struct Workload {
  std::string op, sizes, file;
  std::vector<lang::Define> defines;
  std::vector<std::vector<lang::Define>> configs{{}};
  std::function<interp::Grid(const std::map<std::string, int64_t>&)> grid;
  std::vector<std::unique_ptr<interp::Buffer>> buffers;
  std::vector<interp::KernelArg> args;
  std::vector<interp::Buffer*> outputs;
  double bytes = 0, flops = 0;
  // Largest error on sampled outputs (relative for matmul, softmax and layer
  // norm, absolute otherwise) against a double-precision reference.
  std::function<double()> check;
};

interp::KernelArg buf(interp::Buffer* b) { return interp::KernelArg::ofBuffer(b); }
interp::KernelArg num(int64_t v) { return interp::KernelArg::ofInt(v); }

// "2^26" for powers of two, else the number.
std::string vectorSize(int64_t n) {
  for (int k = 0; k < 62; ++k)
    if (n == int64_t(1) << k) return "2^" + std::to_string(k);
  return std::to_string(n);
}

std::vector<int64_t> samples(int64_t n, int count, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<int64_t> out;
  for (int s = 0; s < count; ++s) out.push_back(int64_t(g() % uint64_t(n)));
  return out;
}

std::unique_ptr<Workload> copyWorkload(int64_t n, std::mt19937_64& rng) {
  auto w = std::make_unique<Workload>();
  w->op = "copy";
  w->sizes = vectorSize(n);
  w->file = "bench/kernels/copy.tc";
  w->defines = {{"TYPE", "float"}};
  w->configs = {{{"SIZE", "1024"}}, {{"SIZE", "4096"}}, {{"SIZE", "16384"}}};
  w->grid = [n](const std::map<std::string, int64_t>& m) { return interp::Grid{n / m.at("SIZE"), 1, 1}; };
  w->buffers.push_back(randomBuffer("X", n, rng));
  w->buffers.push_back(randomBuffer("Y", n, rng));
  interp::Buffer *X = w->buffers[0].get(), *Y = w->buffers[1].get();
  w->args = {buf(X), buf(Y), num(n)};
  w->outputs = {Y};
  w->bytes = 2.0 * double(n) * 4;
  w->check = [=] {
    double e = 0;
    for (int64_t i : samples(n, 4096, 1)) e = std::max(e, double(std::fabs(floats(*Y)[i] - floats(*X)[i])));
    return e;
  };
  return w;
}

std::unique_ptr<Workload> addWorkload(int64_t n, std::mt19937_64& rng) {
  auto w = std::make_unique<Workload>();
  w->op = "add";
  w->sizes = vectorSize(n);
  w->file = "examples/vector_add_param.tc";
  w->defines = {{"TYPE", "float"}};
  w->configs = {{{"SIZE", "1024"}}, {{"SIZE", "4096"}}, {{"SIZE", "16384"}}};
  w->grid = [n](const std::map<std::string, int64_t>& m) { return interp::Grid{n / m.at("SIZE"), 1, 1}; };
  for (const char* name : {"a", "b", "c"}) w->buffers.push_back(randomBuffer(name, n, rng));
  interp::Buffer *A = w->buffers[0].get(), *B = w->buffers[1].get(), *C = w->buffers[2].get();
  w->args = {num(n), buf(A), buf(B), buf(C)};
  w->outputs = {C};
  w->bytes = 3.0 * double(n) * 4;
  w->check = [=] {
    double e = 0;
    for (int64_t i : samples(n, 4096, 2))
      e = std::max(e, std::fabs(double(floats(*C)[i]) - (double(floats(*A)[i]) + double(floats(*B)[i]))));
    return e;
  };
  return w;
}

std::unique_ptr<Workload> softmaxWorkload(int64_t rows, int64_t cols, std::mt19937_64& rng) {
  auto w = std::make_unique<Workload>();
  w->op = "softmax";
  w->sizes = std::to_string(rows) + "x" + std::to_string(cols);
  w->file = "examples/softmax.tc";
  w->defines = {{"TYPE", "float"}, {"BLOCK", std::to_string(cols)}};
  w->grid = [rows](const std::map<std::string, int64_t>&) { return interp::Grid{rows, 1, 1}; };
  w->buffers.push_back(randomBuffer("X", rows * cols, rng));
  w->buffers.push_back(randomBuffer("Y", rows * cols, rng));
  interp::Buffer *X = w->buffers[0].get(), *Y = w->buffers[1].get();
  w->args = {buf(X), buf(Y), num(cols), num(cols), num(cols)};
  w->outputs = {Y};
  w->bytes = 2.0 * double(rows * cols) * 4;
  w->check = [=] {
    double e = 0;
    for (int64_t r : samples(rows, 8, 3)) {
      const float* x = floats(*X) + r * cols;
      double mx = -INFINITY, sum = 0;
      for (int64_t j = 0; j < cols; ++j) mx = std::max(mx, double(x[j]));
      for (int64_t j = 0; j < cols; ++j) sum += std::exp(double(x[j]) - mx);
      for (int64_t j = 0; j < cols; ++j) {
        double ref = std::exp(double(x[j]) - mx) / sum;
        e = std::max(e, std::fabs(double(floats(*Y)[r * cols + j]) - ref) / ref);
      }
    }
    return e;
  };
  return w;
}

std::unique_ptr<Workload> layernormWorkload(int64_t rows, int64_t cols, std::mt19937_64& rng) {
  auto w = std::make_unique<Workload>();
  w->op = "layernorm";
  w->sizes = std::to_string(rows) + "x" + std::to_string(cols);
  w->file = "examples/layernorm.tc";
  w->defines = {{"TYPE", "float"}, {"BLOCK", std::to_string(cols)}};
  w->grid = [rows](const std::map<std::string, int64_t>&) { return interp::Grid{rows, 1, 1}; };
  w->buffers.push_back(randomBuffer("X", rows * cols, rng));
  w->buffers.push_back(randomBuffer("Y", rows * cols, rng));
  w->buffers.push_back(randomBuffer("W", cols, rng));
  w->buffers.push_back(randomBuffer("B", cols, rng));
  interp::Buffer *X = w->buffers[0].get(), *Y = w->buffers[1].get(), *W = w->buffers[2].get(),
                 *Bias = w->buffers[3].get();
  const double eps = 1e-5;
  w->args = {buf(X), buf(Y), buf(W), buf(Bias), num(cols), num(cols), interp::KernelArg::ofFloat(eps)};
  w->outputs = {Y};
  w->bytes = 2.0 * double(rows * cols) * 4;
  w->check = [=] {
    double e = 0;
    for (int64_t r : samples(rows, 8, 4)) {
      const float* x = floats(*X) + r * cols;
      double mean = 0, var = 0;
      for (int64_t j = 0; j < cols; ++j) mean += x[j];
      mean /= double(cols);
      for (int64_t j = 0; j < cols; ++j) var += (x[j] - mean) * (x[j] - mean);
      var /= double(cols);
      for (int64_t j = 0; j < cols; ++j) {
        double ref = (x[j] - mean) / std::sqrt(var + eps) * floats(*W)[j] + floats(*Bias)[j];
        e = std::max(e, std::fabs(double(floats(*Y)[r * cols + j]) - ref) / std::max(std::fabs(ref), 1e-3));
      }
    }
    return e;
  };
  return w;
}

std::unique_ptr<Workload> transposeWorkload(int64_t m, std::mt19937_64& rng) {
  auto w = std::make_unique<Workload>();
  w->op = "transpose";
  w->sizes = std::to_string(m) + "x" + std::to_string(m);
  w->file = "examples/transpose.tc";
  w->defines = {{"TYPE", "float"}};
  w->configs = {{{"TM", "32"}, {"TN", "32"}}, {{"TM", "64"}, {"TN", "64"}}, {{"TM", "128"}, {"TN", "128"}}};
  w->grid = [m](const std::map<std::string, int64_t>& c) { return interp::Grid{m / c.at("TM"), m / c.at("TN"), 1}; };
  w->buffers.push_back(randomBuffer("X", m * m, rng));
  w->buffers.push_back(randomBuffer("Y", m * m, rng));
  interp::Buffer *X = w->buffers[0].get(), *Y = w->buffers[1].get();
  w->args = {buf(X), buf(Y), num(m), num(m), num(m), num(m)};
  w->outputs = {Y};
  w->bytes = 2.0 * double(m * m) * 4;
  w->check = [=] {  // X[i + j m] (column-major) lands at Y[j + i m]
    double e = 0;
    std::vector<int64_t> is = samples(m, 4096, 5), js = samples(m, 4096, 6);
    for (size_t s = 0; s < is.size(); ++s)
      e = std::max(e, double(std::fabs(floats(*Y)[js[s] + is[s] * m] - floats(*X)[is[s] + js[s] * m])));
    return e;
  };
  return w;
}

std::unique_ptr<Workload> matmulWorkload(int64_t m, int64_t n, int64_t k, std::mt19937_64& rng,
                                         std::vector<std::vector<lang::Define>> configs) {
  auto w = std::make_unique<Workload>();
  w->op = "matmul";
  w->sizes = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  w->file = "examples/matmul.tc";
  w->defines = {{"TYPE", "float"}};
  w->configs = std::move(configs);
  w->grid = [m, n](const std::map<std::string, int64_t>& c) { return interp::Grid{m / c.at("TM"), n / c.at("TN"), 1}; };
  w->buffers.push_back(randomBuffer("A", m * k, rng));
  w->buffers.push_back(randomBuffer("B", k * n, rng));
  w->buffers.push_back(randomBuffer("C", m * n, rng));
  interp::Buffer *A = w->buffers[0].get(), *B = w->buffers[1].get(), *C = w->buffers[2].get();
  w->args = {buf(A), buf(B), buf(C), num(m), num(n), num(k), num(k), num(n), num(n)};
  w->outputs = {C};
  w->flops = 2.0 * double(m) * double(n) * double(k);
  w->bytes = 4.0 * double(m * k + k * n + m * n);
  w->check = [=] {
    double e = 0;
    std::vector<int64_t> is = samples(m, 64, 7), js = samples(n, 64, 8);
    for (size_t s = 0; s < is.size(); ++s) {
      double ref = 0, mag = 0;
      for (int64_t q = 0; q < k; ++q) {
        const double p = double(floats(*A)[is[s] * k + q]) * floats(*B)[q * n + js[s]];
        ref += p;
        mag += std::fabs(p);
      }
      e = std::max(e, std::fabs(floats(*C)[is[s] * n + js[s]] - ref) / mag);
    }
    return e;
  };
  return w;
}

std::vector<std::vector<lang::Define>> matmulConfigs() {
  std::vector<std::vector<lang::Define>> out;
  for (auto [tm, tn, tk] : std::vector<std::tuple<int, int, int>>{
           {64, 64, 64}, {128, 128, 64}, {128, 128, 128}, {256, 128, 64}, {128, 256, 64}, {256, 128, 128}})
    out.push_back({{"TM", std::to_string(tm)}, {"TN", std::to_string(tn)}, {"TK", std::to_string(tk)}});
  return out;
}

// Every workload at its full size (scale 1), or the interpreter's sizes.
std::vector<std::unique_ptr<Workload>> workloads(bool forInterpreter) {
  std::mt19937_64 rng(std::random_device{}());
  std::vector<std::unique_ptr<Workload>> out;
  const int64_t vec = forInterpreter ? int64_t(1) << 20 : int64_t(1) << 26;
  out.push_back(copyWorkload(vec, rng));
  out.push_back(addWorkload(vec, rng));
  out.push_back(softmaxWorkload(forInterpreter ? 64 : 4096, 1024, rng));
  out.push_back(layernormWorkload(forInterpreter ? 64 : 4096, 1024, rng));
  out.push_back(transposeWorkload(forInterpreter ? 512 : 4096, rng));
  if (forInterpreter) {
    out.push_back(matmulWorkload(128, 128, 128, rng, {{{"TM", "64"}, {"TN", "64"}, {"TK", "32"}}}));
  } else {
    out.push_back(matmulWorkload(1024, 1024, 1024, rng, matmulConfigs()));
    out.push_back(matmulWorkload(2048, 2048, 2048, rng, matmulConfigs()));
  }
  return out;
}

// The full sizes the interpreter's smaller ones stand for (the JSON's "scaled_from").
std::string fullSizeOf(const std::string& op) {
  if (op == "copy" || op == "add") return "2^26";
  if (op == "softmax" || op == "layernorm") return "4096x1024";
  if (op == "transpose") return "4096x4096";
  return "1024x1024x1024";
}

struct Compiled {
  std::unique_ptr<ir::Module> module;
  ir::Function* fn = nullptr;
  std::unique_ptr<cpu::CpuKernel> kernel;
  std::map<std::string, int64_t> macros;
  std::string name;
};

Compiled compileConfig(const Workload& w, const std::vector<lang::Define>& config, const std::string& root,
                       int numStages, bool native) {
  Compiled c;
  lang::CompileOptions co;
  co.filename = w.file;
  co.defines = w.defines;
  co.defines.insert(co.defines.end(), config.begin(), config.end());
  for (const lang::Define& d : config) {
    c.macros[d.name] = std::stoll(d.value);
    c.name += (c.name.empty() ? "" : " ") + d.name + "=" + d.value;
  }
  lang::CompileResult r = lang::compileSource(readFile(root + "/" + w.file), co);
  c.module = std::move(r.module);
  c.fn = c.module->functions()[0].get();
  runtime::specializeAndOptimize(*c.module, *c.fn, runtime::factsOf(w.args, runtime::parameterKinds(*c.fn)),
                                 numStages, false);
  if (native) c.kernel = cpu::CpuKernel::compile(*c.fn);
  return c;
}

struct Result {
  std::string op, sizes, backend, config, error, scaledFrom;
  double ms = 0, minMs = 0, gbps = 0, gflops = 0, err = 0, compileMs = 0;
  double cpuMs = 0;  // median process CPU time of a run (all threads)
  int runs = 0;
  std::vector<std::pair<std::string, double>> tried;  // configuration, median ms (0: failed)
};

std::string jsonString(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\', out += ch;
    else if (ch == '\n') out += "\\n";
    else if (ch >= 0 && ch < 0x20) out += ' ';
    else out += ch;
  }
  return out + "\"";
}

// Times each configuration on the CPU back end; keeps the fastest.
Result runNative(Workload& w, const std::string& root, int repeats) {
  Result best;
  best.op = w.op;
  best.sizes = w.sizes;
  best.backend = "tritonc-cpu";
  std::vector<std::pair<std::string, double>> tried;
  std::string errors;
  for (const auto& config : w.configs) {
    Result r = best;
    try {
      for (interp::Buffer* o : w.outputs) poison(*o);
      Compiled c = compileConfig(w, config, root, 1, true);
      r.config = c.name;
      r.compileMs = c.kernel->compileMs();
      const interp::Grid grid = w.grid(c.macros);
      c.kernel->run(grid, w.args);  // warm-up (and the run that is checked)
      r.err = w.check();
      std::vector<double> times, cpuTimes;
      for (int i = 0; i < repeats; ++i) {
        const double c0 = processCpuMs();
        auto t0 = Clock::now();
        c.kernel->run(grid, w.args);
        times.push_back(msSince(t0));
        cpuTimes.push_back(processCpuMs() - c0);
      }
      r.ms = median(times);
      r.cpuMs = median(cpuTimes);
      r.minMs = *std::min_element(times.begin(), times.end());
      r.runs = repeats;
      tried.push_back({r.config, r.ms});
      if (best.ms == 0 || r.ms < best.ms) best = r;
    } catch (const std::exception& e) {
      tried.push_back({r.config, 0});
      errors += r.config + ": " + e.what() + "; ";
    }
  }
  if (best.ms == 0) best.error = errors;
  best.tried = tried;
  best.gbps = best.ms > 0 ? w.bytes / best.ms / 1e6 : 0;
  best.gflops = best.ms > 0 ? w.flops / best.ms / 1e6 : 0;
  return best;
}

// The interpreter on the first configuration, once (it is slow).
Result runInterpreter(Workload& w, const std::string& root) {
  Result r;
  r.op = w.op;
  r.sizes = w.sizes;
  r.backend = "tritonc-interp";
  r.scaledFrom = fullSizeOf(w.op);
  try {
    for (interp::Buffer* o : w.outputs) poison(*o);
    Compiled c = compileConfig(w, w.configs.front(), root, 1, false);
    r.config = c.name;
    auto t0 = Clock::now();
    interp::runKernel(*c.fn, w.grid(c.macros), w.args);
    r.ms = r.minMs = msSince(t0);
    r.runs = 1;
    r.err = w.check();
    r.gbps = w.bytes / r.ms / 1e6;
    r.gflops = w.flops / r.ms / 1e6;
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  return r;
}

std::string resultJson(const Result& r) {
  std::ostringstream j;
  j << "{\"op\": " << jsonString(r.op) << ", \"sizes\": " << jsonString(r.sizes) << ", \"dtype\": \"f32\""
    << ", \"who\": " << jsonString(r.backend) << ", \"ms\": " << r.ms << ", \"min_ms\": " << r.minMs
    << ", \"runs\": " << r.runs << ", \"GBps\": " << r.gbps << ", \"GFLOPs\": " << r.gflops
    << ", \"cpu_ms\": " << r.cpuMs << ", \"max_err\": " << r.err << ", \"config\": " << jsonString(r.config);
  if (r.compileMs > 0) j << ", \"compile_ms\": " << r.compileMs;
  if (!r.scaledFrom.empty()) j << ", \"scaled_from\": " << jsonString(r.scaledFrom);
  if (!r.error.empty()) j << ", \"error\": " << jsonString(r.error);
  if (r.tried.size() > 1) {
    j << ", \"tried\": [";
    for (size_t i = 0; i < r.tried.size(); ++i)
      j << (i ? ", " : "") << "{\"config\": " << jsonString(r.tried[i].first) << ", \"ms\": " << r.tried[i].second << "}";
    j << "]";
  }
  return j.str() + "}";
}

// A matmul configuration through the runtime, as a user's first launch
// meets it: a cold compile (front end, passes, LLVM, link) into an empty
// disk cache, then a new kernel object that loads the entry from disk.
std::string compileAndCacheJson(const std::string& root) {
  const std::string dir = std::filesystem::temp_directory_path() / ("tritonc-cpu-bench-cache-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::mt19937_64 rng(1);
  std::unique_ptr<Workload> w = matmulWorkload(256, 256, 256, rng, {});
  runtime::KernelOptions o;
  o.target = "cpu";
  o.cacheDir = dir;
  o.defines = {{"TYPE", "float"}, {"TM", "128"}, {"TN", "128"}, {"TK", "32"}};
  o.numStages = {1};
  const std::string source = readFile(root + "/" + w->file);
  std::vector<double> cold, warm;
  for (int rep = 0; rep < 5; ++rep) {
    std::filesystem::remove_all(dir);
    {
      runtime::Kernel k(source, o);
      auto t0 = Clock::now();
      k.compile(k.space().front(), w->args);
      cold.push_back(msSince(t0));
    }
    runtime::Kernel k(source, o);
    auto t0 = Clock::now();
    std::shared_ptr<runtime::CompiledKernel> c = k.compile(k.space().front(), w->args);
    runtime::loadOnCpu(*c);
    warm.push_back(msSince(t0));
    if (c->origin != "disk") throw std::runtime_error("the second compile did not come from the disk cache");
  }
  std::filesystem::remove_all(dir);
  std::ostringstream j;
  j << "{\"kernel\": \"examples/matmul.tc TYPE=float TM=128 TN=128 TK=32\", \"cold_compile_ms\": " << median(cold)
    << ", \"disk_cache_load_ms\": " << median(warm) << ", \"runs\": " << cold.size() << "}";
  return j.str();
}

}  // namespace

int main(int argc, char** argv) {
  std::string root = ".", outPath, filter;
  int repeats = 10;
  bool native = true, interp = true, machine = true, compile = true;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--root" && i + 1 < argc) root = argv[++i];
    else if (a == "--out" && i + 1 < argc) outPath = argv[++i];
    else if (a == "--filter" && i + 1 < argc) filter = argv[++i];
    else if (a == "--repeats" && i + 1 < argc) repeats = std::max(1, std::atoi(argv[++i]));
    else if (a == "--no-native") native = false;
    else if (a == "--no-interp") interp = false;
    else if (a == "--no-machine") machine = false;
    else if (a == "--no-compile") compile = false;
    else {
      std::cerr << "usage: tritonc-cpu-bench [--root DIR] [--out FILE.json] [--filter SUBSTR] [--repeats N]"
                   " [--no-native] [--no-interp] [--no-machine] [--no-compile]\n";
      return 2;
    }
  }
  if (!cpu::available()) {
    std::cerr << "tritonc-cpu-bench: this build has no CPU back end\n";
    return 1;
  }
  // The JIT's start-up (LLVM's target, ORC), once per process, before anything else.
  auto t0 = Clock::now();
  const std::string host = cpu::hostDescription();
  const double jitStartupMs = msSince(t0);
  std::ostringstream json;
  json << "{\"host\": " << jsonString(host) << ", \"llvm\": " << jsonString(cpu::codeIdentity().substr(host.size()))
       << ", \"threads\": " << cpu::numThreads() << ", \"jit_startup_ms\": " << jitStartupMs;
  if (machine) {
    bench::MachineFloor m = bench::measureMachine(cpu::numThreads(), size_t(256) << 20, 5);
    std::printf("machine: %s, %s, %d threads, %.0f MHz\n", m.cpuModel.c_str(), m.vectorIsa.c_str(), m.cores, m.mhz);
    std::printf("  copy bandwidth %.1f GB/s (loop %.1f, streaming %.1f, memcpy %.1f); f32 peak %.0f GFLOP/s measured, "
                "%.0f nominal\n",
                m.copyGBps, m.loopCopyGBps, m.streamCopyGBps, m.memcpyGBps, m.peakGflopsF32, m.nominalGflopsF32);
    json << ", \"machine\": {\"cpu\": " << jsonString(m.cpuModel) << ", \"isa\": " << jsonString(m.vectorIsa)
         << ", \"mhz\": " << m.mhz << ", \"copy_GBps\": " << m.copyGBps << ", \"loop_copy_GBps\": " << m.loopCopyGBps
         << ", \"stream_copy_GBps\": " << m.streamCopyGBps << ", \"memcpy_GBps\": " << m.memcpyGBps << ", \"peak_GFLOPs_f32\": " << m.peakGflopsF32
         << ", \"nominal_GFLOPs_f32\": " << m.nominalGflopsF32 << "}";
  }
  json << ", \"results\": [";
  bool first = true;
  auto emit = [&](const Result& r) {
    if (r.error.empty())
      std::printf("  %-10s %-16s %-15s %9.3f ms (cpu %9.3f) %8.1f GB/s %8.1f GFLOP/s  err %.1e  %s\n",
                  r.op.c_str(), r.sizes.c_str(), r.backend.c_str(), r.ms, r.cpuMs, r.gbps, r.gflops, r.err,
                  r.config.c_str());
    else
      std::printf("  %-10s %-16s %-15s failed: %.300s\n", r.op.c_str(), r.sizes.c_str(), r.backend.c_str(), r.error.c_str());
    std::fflush(stdout);
    json << (first ? "\n  " : ",\n  ") << resultJson(r);
    first = false;
  };
  if (native)
    for (auto& w : workloads(false))
      if (filter.empty() || w->op.find(filter) != std::string::npos) emit(runNative(*w, root, repeats));
  if (interp)
    for (auto& w : workloads(true))
      if (filter.empty() || w->op.find(filter) != std::string::npos) emit(runInterpreter(*w, root));
  json << "\n]";
  if (compile) {
    try {
      std::string c = compileAndCacheJson(root);
      std::printf("compile: %s\n", c.c_str());
      json << ",\n\"compile\": " << c;
    } catch (const std::exception& e) {
      std::printf("compile: failed: %s\n", e.what());
      json << ",\n\"compile\": {\"error\": " << jsonString(e.what()) << "}";
    }
  }
  json << "}\n";
  if (!outPath.empty()) std::ofstream(outPath) << json.str();
  return 0;
}
