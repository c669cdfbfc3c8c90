// tritonc-bench: times tritonc's kernels on the GPU (CUDA events, median of
// repeated launches after warm-up) on the workloads of the performance goals,
// checks each result on sampled elements against a double-precision
// reference, and writes JSON. The peers (torch, cuBLAS, Triton) are timed in
// the same run by bench/bench.py, which calls this program.
//   tritonc-bench --root DIR [--out FILE.json] [--filter SUBSTR]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <sstream>
#include <tuple>

#include "ir/verifier.h"
#include "lang/compile.h"
#include "runtime/optimize_for_launch.h"
#include "support/float16.h"
#include "target/nvptx/codegen.h"
#include "target/nvptx/gpu_runner.h"
#include "transform/pass_manager.h"

namespace {

using namespace tritonc;

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Buffer element access (f32 and f16 only here).
double get(const interp::Buffer& b, int64_t i) {
  if (b.elem == ir::Scalar::F32) {
    float f;
    std::memcpy(&f, b.data.data() + i * 4, 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, b.data.data() + i * 2, 2);
  return halfToFloat(h);
}

std::unique_ptr<interp::Buffer> buffer(const std::string& name, ir::Scalar k, int64_t n, uint64_t seed) {
  auto b = std::make_unique<interp::Buffer>();
  b->name = name;
  b->elem = k;
  b->shape = {n};
  b->data.resize(size_t(n) * size_t(ir::byteSize(k)));
  // A fast generator: the inputs of a 1 GiB benchmark must not take minutes.
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (int64_t i = 0; i < n; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    float v = float(int64_t(s >> 40) % 2001 - 1000) / 1000.0f;
    if (k == ir::Scalar::F32) std::memcpy(b->data.data() + i * 4, &v, 4);
    else { uint16_t h = floatToHalf(v); std::memcpy(b->data.data() + i * 2, &h, 2); }
  }
  return b;
}

struct Workload {
  std::string op, sizes, dtype, file;
  std::vector<lang::Define> defines;
  interp::Grid grid;
  int numWarps = 4;
  int numStages = transform::PipelineOptions::kDefaultNumStages;
  // Alternative tile configurations (extra -D values, num_warps and
  // num_stages); the fastest one that runs is reported, as the autotuned
  // Triton peer's is.
  struct Config {
    std::vector<lang::Define> defines;
    int numWarps, numStages;
  };
  std::vector<Config> configs;
  double bytes = 0, flops = 0;
  std::vector<std::unique_ptr<interp::Buffer>> buffers;
  std::vector<interp::KernelArg> args;
  // Max relative error on sampled outputs, computed from the buffers after the run.
  std::function<double()> check;
};

struct Result {
  std::string op, sizes, dtype, error, config;
  double ms = 0, gbps = 0, tflops = 0, relErr = 0;
  bool ok = false;
  // Every configuration tried: name, median ms (0 when it failed), error.
  struct Tried {
    std::string config, error;
    double ms = 0;
  };
  std::vector<Tried> tried;
};

std::string jsonText(const std::string& s) {
  std::string out;
  for (char ch : s) out += ch == '"' ? '\'' : ch == '\n' ? ' ' : ch == '\\' ? '/' : ch;
  return out;
}

Result runOne(Workload& w, const std::string& root, const std::string& arch) {
  Result r;
  r.op = w.op;
  r.sizes = w.sizes;
  r.dtype = w.dtype;
  try {
    lang::CompileOptions co;
    co.filename = w.file;
    co.defines = w.defines;
    lang::CompileResult c = lang::compileSource(readFile(root + "/" + w.file), co);
    if (w.grid.x == 0) {
      // Matmul: one program per TM x TN tile of the output.
      int64_t tm = 0, tn = 0, m = w.args[3].i, n = w.args[4].i;
      for (auto& d : w.defines) {
        if (d.name == "TM") tm = std::stoll(d.value);
        if (d.name == "TN") tn = std::stoll(d.value);
      }
      w.grid = {m / tm, n / tn, 1};
    }
    ir::Function& fn = *c.module->functions()[0];
    runtime::specializeAndOptimize(*c.module, fn, runtime::factsOf(w.args), w.numStages, true);
    nvptx::TargetOptions to;
    to.arch = arch;
    to.numWarps = w.numWarps;
    std::string ptx = nvptx::emitPtx(*c.module, to);
    nvptx::GpuLaunchOptions lo;
    lo.numWarps = w.numWarps;
    lo.warmup = 3;
    lo.repeats = 20;
    nvptx::GpuRunResult g = nvptx::runOnGpu(ptx, fn, w.grid, w.args, lo);
    std::sort(g.timesMs.begin(), g.timesMs.end());
    r.ms = g.timesMs[g.timesMs.size() / 2];
    r.gbps = w.bytes / r.ms / 1e6;
    r.tflops = w.flops / r.ms / 1e9;
    r.relErr = w.check();
    r.ok = true;
    if (w.op.rfind("matmul", 0) == 0) w.grid = {0, 0, 1};
  } catch (const std::exception& e) {
    r.error = e.what();
    if (w.op.rfind("matmul", 0) == 0) w.grid = {0, 0, 1};
  }
  return r;
}

Result run(Workload& w, const std::string& root, const std::string& arch) {
  if (w.configs.empty()) return runOne(w, root, arch);
  Result best;
  std::vector<lang::Define> baseDefines = w.defines;
  std::string errors;
  std::vector<Result::Tried> tried;
  for (const Workload::Config& c : w.configs) {
    w.defines = baseDefines;
    w.defines.insert(w.defines.end(), c.defines.begin(), c.defines.end());
    w.numWarps = c.numWarps;
    w.numStages = c.numStages;
    Result r = runOne(w, root, arch);
    std::string name;
    for (auto& d : c.defines) name += d.name + "=" + d.value + " ";
    name += "warps=" + std::to_string(c.numWarps) + " stages=" + std::to_string(c.numStages);
    tried.push_back({name, r.error, r.ok ? r.ms : 0});
    if (!r.ok) {
      errors += name + ": " + r.error + "; ";
      continue;
    }
    r.config = name;
    if (!best.ok || r.ms < best.ms) best = r;
  }
  if (!best.ok) best.error = errors;
  best.tried = tried;
  return best;
}

std::vector<std::unique_ptr<Workload>> workloads() {
  std::vector<std::unique_ptr<Workload>> out;
  const int64_t n = int64_t(1) << 28;
  {  // copy
    auto w = std::make_unique<Workload>();
    w->op = "copy"; w->sizes = "2^28"; w->dtype = "f32"; w->file = "bench/kernels/copy.tc";
    w->defines = {{"TYPE", "float"}, {"SIZE", "2048"}};
    w->grid = {n / 2048, 1, 1};
    w->bytes = 2.0 * n * 4;
    w->buffers.push_back(buffer("X", ir::Scalar::F32, n, 1));
    w->buffers.push_back(buffer("Y", ir::Scalar::F32, n, 2));
    auto* X = w->buffers[0].get(); auto* Y = w->buffers[1].get();
    w->args = {interp::KernelArg::ofBuffer(X), interp::KernelArg::ofBuffer(Y), interp::KernelArg::ofInt(n)};
    w->check = [=]() {
      std::mt19937_64 g(7);
      auto sample = [&g](int64_t n) { return int64_t(g() % uint64_t(n)); }; double e = 0; for (int s = 0; s < 4096; ++s) { int64_t i = sample(n); e = std::max(e, std::fabs(get(*Y, i) - get(*X, i))); } return e; };
    out.push_back(std::move(w));
  }
  {  // add
    auto w = std::make_unique<Workload>();
    w->op = "add"; w->sizes = "2^28"; w->dtype = "f32"; w->file = "examples/vector_add_param.tc";
    w->defines = {{"TYPE", "float"}, {"SIZE", "2048"}};
    w->grid = {n / 2048, 1, 1};
    w->bytes = 3.0 * n * 4;
    w->buffers.push_back(buffer("a", ir::Scalar::F32, n, 3));
    w->buffers.push_back(buffer("b", ir::Scalar::F32, n, 4));
    w->buffers.push_back(buffer("c", ir::Scalar::F32, n, 5));
    auto* A = w->buffers[0].get(); auto* B = w->buffers[1].get(); auto* C = w->buffers[2].get();
    w->args = {interp::KernelArg::ofInt(n), interp::KernelArg::ofBuffer(A), interp::KernelArg::ofBuffer(B), interp::KernelArg::ofBuffer(C)};
    w->check = [=]() {
      std::mt19937_64 g(7);
      auto sample = [&g](int64_t n) { return int64_t(g() % uint64_t(n)); }; double e = 0; for (int s = 0; s < 4096; ++s) { int64_t i = sample(n); e = std::max(e, std::fabs(get(*C, i) - (get(*A, i) + get(*B, i)))); } return e; };
    out.push_back(std::move(w));
  }
  for (ir::Scalar k : {ir::Scalar::F32, ir::Scalar::F16}) {  // transpose 8192^2
    const int64_t m = 8192;
    auto w = std::make_unique<Workload>();
    w->op = "transpose"; w->sizes = "8192x8192"; w->dtype = ir::scalarName(k); w->file = "examples/transpose_multipleof.tc";
    w->defines = {{"TYPE", k == ir::Scalar::F32 ? "float" : "half"}, {"TM", "64"}, {"TN", "64"}};
    w->grid = {m / 64, m / 64, 1};
    w->bytes = 2.0 * m * m * ir::byteSize(k);
    w->buffers.push_back(buffer("X", k, m * m, 6));
    w->buffers.push_back(buffer("Y", k, m * m, 7));
    auto* X = w->buffers[0].get(); auto* Y = w->buffers[1].get();
    w->args = {interp::KernelArg::ofBuffer(X), interp::KernelArg::ofBuffer(Y), interp::KernelArg::ofInt(m),
               interp::KernelArg::ofInt(m), interp::KernelArg::ofInt(m), interp::KernelArg::ofInt(m)};
    // X[i + j*ld] (column-major M x N) lands at Y[j + i*ld].
    w->check = [=]() {
      std::mt19937_64 g(7);
      auto sample = [&g](int64_t n) { return int64_t(g() % uint64_t(n)); }; double e = 0; for (int s = 0; s < 4096; ++s) { int64_t i = sample(m), j = sample(m); e = std::max(e, std::fabs(get(*Y, j + i * m) - get(*X, i + j * m))); } return e; };
    out.push_back(std::move(w));
  }
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{8192, 1024}, {4096, 16384}}) {  // softmax
    auto w = std::make_unique<Workload>();
    w->op = "softmax"; w->sizes = std::to_string(rows) + "x" + std::to_string(cols); w->dtype = "f32";
    w->file = "examples/softmax.tc";
    w->defines = {{"TYPE", "float"}, {"BLOCK", std::to_string(cols)}};
    w->grid = {rows, 1, 1};
    // num_warps: the Triton peer's (4, 16) and twice that; the faster is reported.
    for (int warps : {cols <= 2048 ? 4 : 16, cols <= 2048 ? 8 : 32})
      w->configs.push_back({{}, warps, transform::PipelineOptions::kDefaultNumStages});
    w->bytes = 2.0 * rows * cols * 4;
    w->buffers.push_back(buffer("X", ir::Scalar::F32, rows * cols, 8));
    w->buffers.push_back(buffer("Y", ir::Scalar::F32, rows * cols, 9));
    auto* X = w->buffers[0].get(); auto* Y = w->buffers[1].get();
    w->args = {interp::KernelArg::ofBuffer(X), interp::KernelArg::ofBuffer(Y), interp::KernelArg::ofInt(cols),
               interp::KernelArg::ofInt(cols), interp::KernelArg::ofInt(cols)};
    int64_t R = rows, C = cols;
    w->check = [=]() {
      std::mt19937_64 g(7);
      auto sample = [&g](int64_t n) { return int64_t(g() % uint64_t(n)); };
      double e = 0;
      for (int s = 0; s < 16; ++s) {
        int64_t r = sample(R);
        double mx = -INFINITY, sum = 0;
        for (int64_t j = 0; j < C; ++j) mx = std::max(mx, get(*X, r * C + j));
        for (int64_t j = 0; j < C; ++j) sum += std::exp(get(*X, r * C + j) - mx);
        for (int64_t j = 0; j < C; ++j) {
          double ref = std::exp(get(*X, r * C + j) - mx) / sum;
          e = std::max(e, std::fabs(get(*Y, r * C + j) - ref) / std::max(ref, 1e-30) * (ref > 1e-6 ? 1 : 0));
        }
      }
      return e;
    };
    out.push_back(std::move(w));
  }
  // matmul 4096^3: the seed's clean kernel, and the kernel as users write it
  // (masked on M, N and K: bench/kernels/matmul_masked.tc).
  for (auto [k, masked] : std::vector<std::pair<ir::Scalar, bool>>{
           {ir::Scalar::F16, false}, {ir::Scalar::F32, false}, {ir::Scalar::F16, true}, {ir::Scalar::F32, true}}) {
    const int64_t s = 4096;
    auto w = std::make_unique<Workload>();
    w->op = masked ? "matmul_masked" : "matmul"; w->sizes = "4096x4096x4096"; w->dtype = ir::scalarName(k);
    w->file = masked ? "bench/kernels/matmul_masked.tc" : "examples/matmul.tc";
    w->defines = {{"TYPE", k == ir::Scalar::F32 ? "float" : "half"}};
    for (auto [tm, tn, tk, warps] : std::vector<std::tuple<int, int, int, int>>{
             {64, 64, 16, 4}, {64, 64, 32, 4}, {128, 64, 32, 4}, {128, 128, 32, 4}, {128, 128, 32, 8}, {128, 128, 64, 4},
             {128, 128, 64, 8}, {128, 256, 32, 8}, {256, 128, 32, 8}, {128, 256, 64, 8}, {256, 128, 64, 8},
             {64, 256, 64, 4}, {64, 128, 64, 4}})
      for (int stages : {2, 3, 4})
        w->configs.push_back(
            {{{"TM", std::to_string(tm)}, {"TN", std::to_string(tn)}, {"TK", std::to_string(tk)}}, warps, stages});
    w->grid = {0, 0, 1};  // set per configuration
    w->flops = 2.0 * s * s * s;
    w->buffers.push_back(buffer("A", k, s * s, 10));
    w->buffers.push_back(buffer("B", k, s * s, 11));
    w->buffers.push_back(buffer("C", k, s * s, 12));
    auto* A = w->buffers[0].get(); auto* B = w->buffers[1].get(); auto* C = w->buffers[2].get();
    w->args = {interp::KernelArg::ofBuffer(A), interp::KernelArg::ofBuffer(B), interp::KernelArg::ofBuffer(C),
               interp::KernelArg::ofInt(s), interp::KernelArg::ofInt(s), interp::KernelArg::ofInt(s),
               interp::KernelArg::ofInt(s), interp::KernelArg::ofInt(s), interp::KernelArg::ofInt(s)};
    w->check = [=]() {
      std::mt19937_64 g(7);
      auto sample = [&g](int64_t n) { return int64_t(g() % uint64_t(n)); };
      double e = 0;
      for (int t = 0; t < 64; ++t) {
        int64_t i = sample(s), j = sample(s);
        double ref = 0, mag = 0;
        for (int64_t q = 0; q < s; ++q) {
          ref += get(*A, i * s + q) * get(*B, q * s + j);
          mag += std::fabs(get(*A, i * s + q) * get(*B, q * s + j));
        }
        e = std::max(e, std::fabs(get(*C, i * s + j) - ref) / std::max(mag, 1e-30));
      }
      return e;
    };
    out.push_back(std::move(w));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string root = ".", outPath, filter;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--root" && i + 1 < argc) root = argv[++i];
    else if (a == "--out" && i + 1 < argc) outPath = argv[++i];
    else if (a == "--filter" && i + 1 < argc) filter = argv[++i];
    else {
      std::cerr << "usage: tritonc-bench [--root DIR] [--out FILE.json] [--filter SUBSTR]\n";
      return 1;
    }
  }
  std::string why;
  std::string arch = nvptx::gpuArch(&why);
  if (arch.empty()) {
    std::cerr << "tritonc-bench: " << why << "\n";
    return 1;
  }
  std::ostringstream json;
  json << "[\n";
  bool first = true, allOk = true;
  std::printf("%-10s %-16s %-5s %10s %10s %10s %10s\n", "op", "sizes", "dtype", "ms", "GB/s", "TFLOP/s", "rel err");
  for (auto& w : workloads()) {
    if (!filter.empty() && (w->op + " " + w->sizes + " " + w->dtype).find(filter) == std::string::npos) continue;
    Result r = run(*w, root, arch);
    if (!r.ok) {
      allOk = false;
      std::printf("%-10s %-16s %-5s FAILED: %s\n", r.op.c_str(), r.sizes.c_str(), r.dtype.c_str(), r.error.c_str());
    } else {
      std::printf("%-10s %-16s %-5s %10.4f %10.1f %10.2f %10.2e %s\n", r.op.c_str(), r.sizes.c_str(), r.dtype.c_str(),
                  r.ms, r.gbps, r.tflops, r.relErr, r.config.c_str());
    }
    for (const Result::Tried& t : r.tried) {
      if (t.error.empty()) std::printf("    %-44s %10.4f ms\n", t.config.c_str(), t.ms);
      else std::printf("    %-44s failed: %.100s\n", t.config.c_str(), jsonText(t.error).c_str());
    }
    std::fflush(stdout);
    std::string tried;
    for (const Result::Tried& t : r.tried)
      tried += std::string(tried.empty() ? "" : ", ") + "{\"config\": \"" + t.config + "\", \"ms\": " + std::to_string(t.ms) +
               ", \"error\": \"" + jsonText(t.error) + "\"}";
    std::string err = jsonText(r.error);
    json << (first ? "" : ",\n") << "  {\"op\": \"" << r.op << "\", \"sizes\": \"" << r.sizes << "\", \"dtype\": \""
         << r.dtype << "\", \"ok\": " << (r.ok ? "true" : "false") << ", \"ms\": " << r.ms << ", \"GBps\": " << r.gbps
         << ", \"TFLOPs\": " << r.tflops << ", \"rel_err\": " << r.relErr << ", \"config\": \"" << r.config
         << "\", \"error\": \"" << err << "\", \"tried\": [" << tried << "]}";
    first = false;
  }
  json << "\n]\n";
  if (!outPath.empty()) std::ofstream(outPath) << json.str();
  std::printf("%s\n", allOk ? "all workloads ran" : "some workloads failed");
  return allOk ? 0 : 1;
}
