// Measurements of the host for the CPU benchmark (see cpu_machine.h). The
// peak loop is compiled for AVX-512 or AVX2 with target attributes and
// chosen at run time, since the binary itself targets baseline x86-64.
#include "cpu_machine.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>
#include <vector>

#include <sys/mman.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tritonc::bench {

namespace {

double seconds(const std::function<void()>& f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Runs f(thread, begin, end) over [0, n) split evenly on `threads` threads.
void parallel(int threads, size_t n, const std::function<void(int, size_t, size_t)>& f) {
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(f, t, n * size_t(t) / size_t(threads), n * size_t(t + 1) / size_t(threads));
  f(0, 0, n / size_t(threads));
  for (std::thread& th : pool) th.join();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// A large buffer backed by transparent huge pages where the kernel allows
// (numpy and torch ask for them too), touched once.
struct Pages {
  float* data = nullptr;
  size_t bytes = 0;
  explicit Pages(size_t n) : bytes(n) {
    void* p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    madvise(p, n, MADV_HUGEPAGE);
    data = static_cast<float*>(p);
    std::memset(data, 1, n);
  }
  ~Pages() { munmap(data, bytes); }
};

#if defined(__x86_64__)
// Sixteen independent chains (unrolled, so that they live in registers): more than FMA latency x pipes, so that the
// pipes never wait.
__attribute__((target("avx512f,fma"), noinline)) float fmaChainsAvx512(long iterations) {
  __m512 acc[16];
  for (int i = 0; i < 16; ++i) acc[i] = _mm512_set1_ps(float(i));
  const __m512 x = _mm512_set1_ps(0.999999f), y = _mm512_set1_ps(1e-7f);
  for (long it = 0; it < iterations; ++it) {
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) acc[i] = _mm512_fmadd_ps(acc[i], x, y);
  }
  __m512 s = acc[0];
  for (int i = 1; i < 16; ++i) s = _mm512_add_ps(s, acc[i]);
  float out[16];
  _mm512_storeu_ps(out, s);
  return out[0] + out[15];
}

__attribute__((target("avx2,fma"), noinline)) float fmaChainsAvx2(long iterations) {
  __m256 acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = _mm256_set1_ps(float(i));
  const __m256 x = _mm256_set1_ps(0.999999f), y = _mm256_set1_ps(1e-7f);
  for (long it = 0; it < iterations; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) acc[i] = _mm256_fmadd_ps(acc[i], x, y);
  }
  __m256 s = acc[0];
  for (int i = 1; i < 12; ++i) s = _mm256_add_ps(s, acc[i]);
  float out[8];
  _mm256_storeu_ps(out, s);
  return out[0] + out[7];
}

// Copies in 64-byte vectors, with ordinary stores (which read each line
// first, as a kernel's stores do) or non-temporal ones (which do not).
__attribute__((target("avx512f"), noinline)) void copyAvx512(const float* s, float* d, size_t n, bool streaming) {
  size_t i = 0;
  if (streaming)
    for (; i + 16 <= n; i += 16) _mm512_stream_ps(d + i, _mm512_loadu_ps(s + i));
  else
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(d + i, _mm512_loadu_ps(s + i));
  for (; i < n; ++i) d[i] = s[i];
  _mm_sfence();
}
#endif

std::string cpuInfoField(const std::string& field) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field, 0) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  return "";
}

}  // namespace

MachineFloor measureMachine(int cores, size_t bytes, int repeats) {
  MachineFloor m;
  m.cores = cores;
  m.cpuModel = cpuInfoField("model name") + " (family " + cpuInfoField("cpu family") + ", model " +
               cpuInfoField("model") + ")";
  try {
    m.mhz = std::stod(cpuInfoField("cpu MHz"));
  } catch (...) {
  }
  Pages src(bytes), dst(bytes);
  const size_t n = bytes / sizeof(float);
  bool avx512 = false;
#if defined(__x86_64__)
  __builtin_cpu_init();
  avx512 = __builtin_cpu_supports("avx512f");
#endif
  // A copy loop: in 64-byte vectors where the CPU has them (the baseline
  // build's loop would use 16-byte ones), with ordinary or streaming stores.
  auto loopCopy = [&](bool streaming) {
    parallel(cores, n, [&](int, size_t b, size_t e) {
#if defined(__x86_64__)
      if (avx512) return copyAvx512(src.data + b, dst.data + b, e - b, streaming);
#endif
      const float* __restrict s = src.data;
      float* __restrict d = dst.data;
      for (size_t i = b; i < e; ++i) d[i] = s[i];
    });
  };
  std::vector<double> loop, stream, mem;
  auto rate = [&](double s) { return 2.0 * double(bytes) / s / 1e9; };
  for (int r = 0; r < repeats + 1; ++r) {
    double t = seconds([&] { loopCopy(false); });
    double u = seconds([&] { loopCopy(true); });
    double v = seconds([&] {
      parallel(cores, n, [&](int, size_t b, size_t e) { std::memcpy(dst.data + b, src.data + b, (e - b) * 4); });
    });
    if (r > 0) {  // the first round is a warm-up
      loop.push_back(rate(t));
      stream.push_back(avx512 ? rate(u) : 0);
      mem.push_back(rate(v));
    }
  }
  m.loopCopyGBps = median(loop);
  m.streamCopyGBps = median(stream);
  m.memcpyGBps = median(mem);
  m.copyGBps = std::max({m.loopCopyGBps, m.streamCopyGBps, m.memcpyGBps});

  int lanes = 4;  // SSE2 without FMA: counted as 4 lanes x 2 flops (mul + add)
  std::function<float(long)> chains;
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma")) {
    m.vectorIsa = "avx512f+fma";
    lanes = 16;
    chains = fmaChainsAvx512;
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    m.vectorIsa = "avx2+fma";
    lanes = 8;
    chains = fmaChainsAvx2;
  }
#endif
  if (!chains) m.vectorIsa = "sse2";
  m.nominalGflopsF32 = double(lanes) * 2 * 2 * m.mhz * 1e6 * cores / 1e9;
  if (chains) {
    const int chainsPerIteration = lanes == 16 ? 16 : 12;
    const long iterations = 20'000'000;
    std::vector<double> rates;
    for (int r = 0; r < 3; ++r) {
      std::vector<float> sink(static_cast<size_t>(cores));
      double t = seconds([&] { parallel(cores, size_t(cores), [&](int th, size_t, size_t) { sink[size_t(th)] = chains(iterations); }); });
      rates.push_back(double(cores) * double(iterations) * chainsPerIteration * lanes * 2 / t / 1e9);
    }
    m.peakGflopsF32 = *std::max_element(rates.begin(), rates.end());
  }
  return m;
}

}  // namespace tritonc::bench
