// The driver's own cost of a launch on this machine: host microseconds per
// cuLaunchKernel of a 1024-float add (4 parameters, one block), back to back
// on the legacy default stream (torch's default), from C++ with nothing
// else in the loop. It is the floor under every launch path from Python.
// Also in bursts of 64 into an idle queue (after a synchronize): the host's
// cost alone, where 20000 back to back may wait for the GPU to drain.
//   nvcc -O2 -arch=sm_90 bench/launch_floor.cu -lcuda -o launch_floor && ./launch_floor
// Prints one JSON object: {"us_per_launch": {"median": ..., "best": ...}, ...}.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

extern "C" __global__ void add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (; i < n; i += blockDim.x) c[i] = a[i] + b[i];
}

int main() {
  const int kLaunches = 20000, kRounds = 9, n = 1024;
  float *a, *b, *c;
  if (cudaMalloc(&a, n * 4) != cudaSuccess || cudaMalloc(&b, n * 4) != cudaSuccess || cudaMalloc(&c, n * 4) != cudaSuccess) {
    std::fprintf(stderr, "no CUDA device\n");
    return 1;
  }
  cudaFunction_t fn;
  cudaGetFuncBySymbol(&fn, reinterpret_cast<const void*>(add));
  int nn = n;
  void* params[] = {&a, &b, &c, &nn};
  auto launch = [&] { cuLaunchKernel(reinterpret_cast<CUfunction>(fn), 1, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr); };
  for (int i = 0; i < 200; ++i) launch();
  cudaDeviceSynchronize();
  std::vector<double> us;
  for (int r = 0; r < kRounds; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kLaunches; ++i) launch();
    auto t1 = std::chrono::steady_clock::now();
    cudaDeviceSynchronize();
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / kLaunches);
  }
  // Bursts: kBurst launches into an idle queue, so that none waits for
  // the GPU to make room: the host's own cost per launch.
  const int kBurst = 64, kBursts = 300;
  std::vector<double> burst;
  for (int r = 0; r < kBursts; ++r) {
    cudaDeviceSynchronize();
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kBurst; ++i) launch();
    auto t1 = std::chrono::steady_clock::now();
    burst.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / kBurst);
  }
  cudaDeviceSynchronize();
  if (cudaGetLastError() != cudaSuccess) return 1;
  std::sort(us.begin(), us.end());
  std::sort(burst.begin(), burst.end());
  std::printf("{\"us_per_launch\": {\"median\": %.3f, \"best\": %.3f}, \"launches\": %d, \"rounds\": %d, "
              "\"burst_us_per_launch\": {\"median\": %.3f, \"best\": %.3f}, \"burst\": %d, \"bursts\": %d}\n",
              us[us.size() / 2], us[0], kLaunches, kRounds, burst[burst.size() / 2], burst[0], kBurst, kBursts);
  return 0;
}
